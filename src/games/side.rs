//! Sides, per-side data and game outcomes, shared by every game.

use std::fmt;
use std::ops::{Index, IndexMut};

/// A player: the first player moves first from the start position.
///
/// Position texts write the first player as `1` and the second as `2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The player who moves first from a game's start position.
    First,
    /// The player who moves second.
    Second,
}

impl Side {
    /// Both sides, first player first.
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    /// The opponent.
    #[must_use]
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }

    /// 0 for the first player, 1 for the second.
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The digit used for this side in position texts: `'1'` or `'2'`.
    #[must_use]
    pub fn digit(self) -> char {
        match self {
            Side::First => '1',
            Side::Second => '2',
        }
    }

    /// Parses `"1"` or `"2"`.
    pub fn from_digit(text: &str) -> Option<Side> {
        match text {
            "1" => Some(Side::First),
            "2" => Some(Side::Second),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::First => "first",
            Side::Second => "second",
        })
    }
}

/// One value per side, indexed by [`Side`] instead of by 0/1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySide<T> {
    /// The first player's value.
    pub first: T,
    /// The second player's value.
    pub second: T,
}

impl<T> BySide<T> {
    /// Builds from the two values, first player first.
    pub fn new(first: T, second: T) -> Self {
        BySide { first, second }
    }

    /// Builds each side's value with `f(side)`.
    pub fn from_fn(mut f: impl FnMut(Side) -> T) -> Self {
        BySide {
            first: f(Side::First),
            second: f(Side::Second),
        }
    }

    /// Applies `f` to both values.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        BySide {
            first: f(self.first),
            second: f(self.second),
        }
    }

    /// Borrows both values.
    pub fn as_ref(&self) -> BySide<&T> {
        BySide {
            first: &self.first,
            second: &self.second,
        }
    }
}

impl<T> Index<Side> for BySide<T> {
    type Output = T;
    fn index(&self, side: Side) -> &T {
        match side {
            Side::First => &self.first,
            Side::Second => &self.second,
        }
    }
}

impl<T> IndexMut<Side> for BySide<T> {
    fn index_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::First => &mut self.first,
            Side::Second => &mut self.second,
        }
    }
}

/// How a finished game ended for the players: who won, or a draw. Says nothing of *why*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The side that won.
        winner: Side,
    },
    /// Neither side won.
    Draw,
}

impl Outcome {
    /// The outcome of comparing two per-side totals: larger wins, equal draws.
    pub fn by_comparison<T: Ord>(totals: BySide<T>) -> Outcome {
        match totals.first.cmp(&totals.second) {
            std::cmp::Ordering::Greater => Outcome::Decisive {
                winner: Side::First,
            },
            std::cmp::Ordering::Less => Outcome::Decisive {
                winner: Side::Second,
            },
            std::cmp::Ordering::Equal => Outcome::Draw,
        }
    }

    /// Points scored by `side`: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn points(self, side: Side) -> f64 {
        match self {
            Outcome::Decisive { winner } if winner == side => 1.0,
            Outcome::Decisive { .. } => 0.0,
            Outcome::Draw => 0.5,
        }
    }

    /// The PGN result string: `1-0` (first player won), `0-1` or `1/2-1/2`.
    pub fn result_str(self) -> &'static str {
        match self {
            Outcome::Decisive {
                winner: Side::First,
            } => "1-0",
            Outcome::Decisive {
                winner: Side::Second,
            } => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// Parses a PGN result string as written by [`Outcome::result_str`].
    pub fn from_result_str(text: &str) -> Option<Outcome> {
        match text {
            "1-0" => Some(Outcome::Decisive {
                winner: Side::First,
            }),
            "0-1" => Some(Outcome::Decisive {
                winner: Side::Second,
            }),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.result_str())
    }
}
