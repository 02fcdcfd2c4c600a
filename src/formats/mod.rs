//! Tournament formats for fields too big for a round robin: who meets whom, as pure functions
//! of the standings so far. [`swiss`] pairs each round from the points; [`knockout`] seeds a
//! bracket and decides its matches.
//!
//! Not wired into `arena run` yet (config `format: swiss | knockout` is the next step): these
//! are the rules, unit-tested on hand-made standings.

pub mod knockout;
pub mod swiss;
