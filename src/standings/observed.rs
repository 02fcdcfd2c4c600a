//! Games as the ratings see them: a few numbers a game, the names kept once. What
//! [`super::compute_observed`], [`crate::boards::compute_observed`] and the summary need, so
//! that `arena ratings` on a file of 500,000 games holds 40 bytes a game instead of a
//! [`GameRecord`] with its strings.

use std::collections::HashMap;

use crate::games::Outcome;
use crate::record::{GameRecord, Termination};

/// One game: ids, players and place as indices into [`Names`], its outcome. 40 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observation {
    /// The game id (the order of `results.pgn` and of the repeats' "first of its kind").
    pub game_id: u64,
    /// The game pair's id (the cluster of the rating intervals; unique for unpaired games).
    pub pair: u64,
    /// The id of the game this one repeats ([`GameRecord::repeat_of`]), else its own id: the
    /// "canonical id" of [`crate::repeats::clusters`].
    pub canonical: u64,
    /// First player: an index into [`Names::engines`].
    pub first: u32,
    /// Second player: an index into [`Names::engines`].
    pub second: u32,
    /// Game and board: an index into [`Names::places`].
    pub place: u32,
    /// The result; `None` for a result string that is not a finished game's (`*`).
    pub outcome: Option<Outcome>,
    /// Why the game ended.
    pub termination: Termination,
}

impl Observation {
    /// [`GameRecord::repeat_of`]: the canonical id when it is not the game's own.
    pub fn repeat_of(&self) -> Option<u64> {
        (self.canonical != self.game_id).then_some(self.canonical)
    }

    /// The points of engine `e` (an index into [`Names::engines`]), or `None` when it did not
    /// play or the game has no result.
    pub fn points_of(&self, e: u32) -> Option<f64> {
        let outcome = self.outcome?;
        if self.first == e {
            Some(outcome.points(crate::games::Side::First))
        } else if self.second == e {
            Some(outcome.points(crate::games::Side::Second))
        } else {
            None
        }
    }

    /// Whether `a` and `b` (indices) played this game, in either colour.
    pub fn between(&self, a: u32, b: u32) -> bool {
        (self.first == a && self.second == b) || (self.first == b && self.second == a)
    }
}

/// Strings numbered in the order they were first seen, each kept once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interner {
    names: Vec<Box<str>>,
    index: HashMap<Box<str>, u32>,
}

impl Interner {
    /// The number of `name`, numbering it if it is new.
    ///
    /// # Panics
    /// Beyond 2³² distinct names.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).expect("fewer than 2^32 distinct names");
        self.names.push(name.into());
        self.index.insert(name.into(), i);
        i
    }

    /// The number of `name`, if it was seen.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// The name numbered `i`.
    ///
    /// # Panics
    /// When `i` was never given out.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The names behind [`Observation`]s' indices.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    /// Engine names.
    pub engines: Interner,
    /// Game names (`""` when a file does not say).
    pub games: Interner,
    /// Board names (`""` when a file does not say).
    pub boards: Interner,
    /// (game, board) of each place: indices into `games` and `boards`.
    places: Vec<(u32, u32)>,
    place_index: HashMap<(u32, u32), u32>,
}

impl Names {
    /// The place of a game and board, numbering it if it is new.
    ///
    /// # Panics
    /// Beyond 2³² distinct places.
    pub fn place(&mut self, game: &str, board: &str) -> u32 {
        let key = (self.games.intern(game), self.boards.intern(board));
        self.place_of(key.0, key.1)
    }

    /// The place of a game and board given by their indices into `games` and `boards`,
    /// numbering it if it is new.
    ///
    /// # Panics
    /// Beyond 2³² distinct places.
    pub fn place_of(&mut self, game: u32, board: u32) -> u32 {
        let key = (game, board);
        let next = u32::try_from(self.places.len()).expect("fewer than 2^32 places");
        *self.place_index.entry(key).or_insert_with(|| {
            self.places.push(key);
            next
        })
    }

    /// The game name of place `p`.
    pub fn game(&self, p: u32) -> &str {
        self.games.name(self.places[p as usize].0)
    }

    /// The board name of place `p`.
    pub fn board(&self, p: u32) -> &str {
        self.boards.name(self.places[p as usize].1)
    }

    /// The name of engine `e`.
    pub fn engine(&self, e: u32) -> &str {
        self.engines.name(e)
    }
}

/// The observations of `records`, in their order, and the names they use.
pub fn of_records(records: &[GameRecord]) -> (Vec<Observation>, Names) {
    let mut names = Names::default();
    let games = records
        .iter()
        .map(|r| Observation {
            game_id: r.game_id,
            pair: r.pair,
            canonical: r.repeat_of.unwrap_or(r.game_id),
            first: names.engines.intern(&r.first),
            second: names.engines.intern(&r.second),
            place: names.place(&r.game, &r.board),
            outcome: Outcome::from_result_str(&r.result),
            termination: r.termination,
        })
        .collect();
    (games, names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_observation_is_forty_bytes() {
        // The memory of `arena ratings` on a large file is this times the games.
        assert_eq!(std::mem::size_of::<Observation>(), 40);
    }

    #[test]
    fn names_are_numbered_once_in_order_of_first_sight() {
        let mut names = Names::default();
        assert_eq!(names.engines.intern("b"), 0);
        assert_eq!(names.engines.intern("a"), 1);
        assert_eq!(names.engines.intern("b"), 0);
        assert_eq!((names.engine(1), names.engines.get("c")), ("a", None));
        let p = names.place("awale", "awale-6");
        assert_eq!(names.place("awale", "awale-6"), p);
        assert_ne!(names.place("awale", "awale-5"), p);
        assert_eq!((names.game(p), names.board(p)), ("awale", "awale-6"));
    }
}
