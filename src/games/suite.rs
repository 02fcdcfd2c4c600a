//! The data of a board's `openings` key: the key as written ([`OpeningsSpec`]) and the suite
//! read from its file ([`Suite`]). Types only, so board specs can hold them: reading, checking
//! and choosing openings is [`crate::openings`]'s, which depends on the games, not the reverse.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::AnyPosition;

/// In which order rounds take the openings of a suite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// Round r takes opening number `start + r − 1`, wrapping after the last.
    #[default]
    Sequential,
    /// The suite is shuffled once per pass through it (seeded from the master seed, the
    /// board's name and the pass number) and rounds take the shuffled openings in turn: every
    /// opening is played once before any is played again.
    Random,
}

/// The `openings` key of a board: `{ file: openings/awale10.txt, order: sequential, start: 1 }`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpeningsSpec {
    /// The suite file, relative to the directory arena runs in (as engine commands are).
    pub file: PathBuf,
    /// `sequential` (default) or `random`.
    #[serde(default)]
    pub order: Order,
    /// The opening number (1-based, counting openings, not file lines) that round 1 takes
    /// with `sequential` order; default 1. Must be 1 with `random`.
    #[serde(default = "one")]
    pub start: u32,
    /// FNV-1a 64 of the file's bytes (`fnv1a64:<16 hex digits>`), filled in when the config
    /// is planned and written to `config.resolved.yaml`, so that a resumed run with an edited
    /// suite is a conflict. When a config gives it, the file must still match it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// The openings read from the file, once loaded by [`crate::openings::resolve_boards`].
    #[serde(skip)]
    pub suite: Option<Arc<Suite>>,
}

fn one() -> u32 {
    1
}

/// Specs are equal when they name the same file, order, start and digest: the loaded suite is
/// what the digest stands for.
impl PartialEq for OpeningsSpec {
    fn eq(&self, other: &Self) -> bool {
        (&self.file, self.order, self.start, &self.digest)
            == (&other.file, other.order, other.start, &other.digest)
    }
}

impl Eq for OpeningsSpec {}

/// One opening of a suite.
#[derive(Clone, Debug)]
pub struct Opening {
    /// Its line in the file (1-based).
    pub line: usize,
    /// The position after its `moves`: the start position of the games that use it.
    pub position: AnyPosition,
}

/// The openings of a suite file, in file order (never empty once loaded).
#[derive(Clone, Debug)]
pub struct Suite {
    /// The openings.
    pub openings: Vec<Opening>,
}
