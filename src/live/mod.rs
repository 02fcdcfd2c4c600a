//! Watching a tournament live: `arena run --serve` and `arena serve DIR`.
//!
//! The run publishes its games in progress ([`Feed`], one short lock a ply) into `live.json`
//! a few times a second ([`Publisher`]); the server ([`Server`]) reads the output directory
//! as its files grow ([`view`]): standings from games.csv with the same code as ratings.csv,
//! boards drawn by report.html's viewer code, updates pushed as Server-Sent Events. Because
//! the server only reads files, it shows a run in this process, a run in another one, a shard
//! on a cluster node or a finished directory alike. See `docs/live.md`.

pub mod feed;
pub mod page;
pub mod server;
pub mod view;

pub use feed::{Feed, LiveGame, Publisher, Snapshot, unix_ms};
pub use server::Server;
