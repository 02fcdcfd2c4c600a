//! arena runs tournaments between board-game engines and rates them.
//!
//! Engines are separate programs that speak UGI (see `docs/protocol.md`); arena referees every
//! game with its own rules library, so the layout follows the flow of a tournament:
//!
//! - [`games`]: the rules of Seven Colors, Amazons and Awale behind one [`games::Game`] trait.
//! - [`seed`]: portable seeded randomness, so one seed gives the same tournament everywhere.
#![deny(missing_docs)]

pub mod games;
pub mod protocol;
pub mod rating;
pub mod seed;
pub mod ugi;
