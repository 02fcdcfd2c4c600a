//! Tournament formats for fields too big for a round robin: who meets whom, as pure functions
//! of the standings so far. [`swiss`] pairs each round from the points; [`knockout`] seeds a
//! bracket and decides its matches.
//!
//! [`settings`] reads the config keys (`format: swiss | knockout`, `games_per_pairing`, ...);
//! [`driver`] replays a tournament from its results, stage by stage, which the run
//! (`tournament::rounds`) plays round by round. The rule in words: docs/formats.md.

pub mod driver;
pub mod knockout;
pub mod settings;
pub mod swiss;
