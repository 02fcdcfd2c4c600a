//! The rules of every game arena referees, behind one [`Game`] trait.
//!
//! Each game is a position type implementing [`Game`]: [`SevenColors`], [`Amazons`] and
//! [`Awale`]. The runner never names them; it works with a [`BoardSpec`] (a game plus its variant
//! parameters, as written in a config) and the [`AnyPosition`] it generates, and moves travel as
//! text in the formats of `docs/games.md`. Engines match on [`AnyPosition`] to reach the typed
//! position they know how to search.
//!
//! Everything here is pure: no I/O, no clock, and randomness only from a seed passed in.
//!
//! ```
//! use arena::games::{BoardSpec, Outcome};
//!
//! let spec: BoardSpec = serde_yaml::from_str("{game: awale, pits: 6}")?;
//! let mut pos = spec.start_position(7)?;
//! assert_eq!(pos.fen(), "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture");
//! pos.play_text("3")?;
//! assert_eq!(pos.fen(), "4,4,0,5,5,5/5,4,4,4,4,4 0,0 2 no_capture");
//! assert_eq!(pos.outcome(), None::<Outcome>);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod amazons;
pub mod awale;
pub mod seven_colors;
mod side;
mod spec;
pub mod suite;

use std::fmt;
use std::hash::Hash;

pub use amazons::Amazons;
pub use awale::Awale;
pub use seven_colors::SevenColors;
pub use side::{BySide, Outcome, Side};
pub use spec::{BoardSpec, GameKind, SpecError};

use crate::seed::{self, SeededRng};

/// A move text that does not name a move, or names one the rules forbid here.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not in the game's move format (see `docs/games.md`).
    #[error("cannot parse move `{text}`: {reason}")]
    Syntax {
        /// The move text as received.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text names a move that is not legal in the position.
    #[error("illegal move `{text}`: {reason}")]
    Illegal {
        /// The move text as received.
        text: String,
        /// Which rule it breaks.
        reason: String,
    },
}

impl MoveError {
    pub(crate) fn syntax(text: &str, reason: impl Into<String>) -> Self {
        MoveError::Syntax {
            text: text.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn illegal(text: &str, reason: impl Into<String>) -> Self {
        MoveError::Illegal {
            text: text.to_owned(),
            reason: reason.into(),
        }
    }
}

/// A position text that cannot be read (see `docs/games.md` for each game's format).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid {game} position `{text}`: {reason}")]
pub struct FenError {
    /// The game whose format was expected.
    pub game: GameKind,
    /// The text as received (cut to 200 characters).
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl FenError {
    pub(crate) fn new(game: GameKind, text: &str, reason: impl Into<String>) -> Self {
        FenError {
            game,
            text: text.chars().take(200).collect(),
            reason: reason.into(),
        }
    }
}

/// Splits a position text into its fields, one per entry of `names`, and requires the one
/// spelling [`Game::fen`] prints: single spaces between fields, none before or after. Texts
/// are compared as strings (resume, start positions), so each position has exactly one.
///
/// # Errors
/// The reason: the wrong number of fields, or other spacing.
pub(crate) fn fen_fields<'t, const N: usize>(
    text: &'t str,
    names: [&str; N],
) -> Result<[&'t str; N], String> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.join(" ") != text && fields.len() == N {
        return Err("fields are separated by single spaces, with none before or after".into());
    }
    fields.try_into().map_err(|fields: Vec<&str>| {
        format!(
            "expected {N} fields ({}), got {}",
            names.join(", "),
            fields.len()
        )
    })
}

/// The rules of one game, implemented by its position type.
///
/// Required methods give the rules; provided ones (`play`, `play_text`, `is_legal`, …) build the
/// checked operations on top and should not be overridden.
pub trait Game: Clone + fmt::Debug + Send + Sync + 'static {
    /// A move, obtained only from [`Game::legal_moves`] or [`Game::parse_move`].
    type Move: Copy + Eq + Hash + fmt::Debug + Send + Sync + 'static;

    /// Which game these rules are.
    const KIND: GameKind;

    /// The side that plays next.
    fn side_to_move(&self) -> Side;

    /// Replaces the content of `moves` with every legal move; empty once the game is over.
    fn legal_moves_into(&self, moves: &mut Vec<Self::Move>);

    /// `None` if `mv` is legal here, else the rule it breaks.
    fn illegal_reason(&self, mv: Self::Move) -> Option<String>;

    /// Plays a move known to be legal. Playing an illegal move leaves an unspecified position.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// The result once the rules have ended the game, `None` while it goes on.
    fn outcome(&self) -> Option<Outcome>;

    /// The result the rules give a game stopped early (at `max_plies`): by cells for Seven
    /// Colors, by seeds for Awale (each row's seeds to its owner), a draw for Amazons.
    fn adjudicate(&self) -> Outcome;

    /// The per-side tally shown in results (cells owned, seeds captured, with the seeds left in
    /// each row added once the game is over); `None` for games that have none (Amazons).
    fn scores(&self) -> Option<BySide<u32>>;

    /// The tally as the rules would count it if the game stopped now (Awale gives each row's
    /// seeds to its owner); used with [`Game::adjudicate`].
    fn final_scores(&self) -> Option<BySide<u32>> {
        self.scores()
    }

    /// A rule that narrows the legal moves here beyond what the board shows, named (Awale:
    /// `must feed` when the opponent's row is empty and some of the mover's pits do not reach
    /// it); `None` for most positions. For test batteries that must try such positions.
    fn constraint(&self) -> Option<&'static str> {
        None
    }

    /// Whether [`Game::constraint`] can ever name a rule in this game (a search for such a
    /// position is pointless otherwise).
    const HAS_CONSTRAINTS: bool = false;

    /// Reads a move in the game's text format. Checks the syntax and that it fits the board,
    /// not that it is legal (use [`Game::play_text`] for both).
    ///
    /// # Errors
    /// [`MoveError::Syntax`] when the text is not a move of this board.
    fn parse_move(&self, text: &str) -> Result<Self::Move, MoveError>;

    /// Writes a move in the game's text format; `parse_move(move_text(m)) == m`.
    fn move_text(&self, mv: Self::Move) -> String;

    /// The position text; `from_fen(fen()) == self` up to history that the text does not carry
    /// (Awale's repetition record).
    fn fen(&self) -> String;

    /// Reads a position text, in exactly the spelling [`Game::fen`] prints and within the
    /// game's board bounds (`docs/games.md`), so `from_fen(t)?.fen() == t`.
    ///
    /// # Errors
    /// [`FenError`] naming what is malformed, misspelt or out of bounds.
    fn from_fen(text: &str) -> Result<Self, FenError>;

    /// A picture of the board for a person; with ANSI colours when `ansi` is true.
    fn render(&self, ansi: bool) -> String;

    /// How a person types a move on this board and what it does, in a short paragraph
    /// (shown by `arena play`; the formats are those of `docs/games.md`).
    fn move_help(&self) -> String;

    /// Every legal move, in the game's fixed generation order.
    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut moves = Vec::new();
        self.legal_moves_into(&mut moves);
        moves
    }

    /// Whether `mv` is legal here.
    fn is_legal(&self, mv: Self::Move) -> bool {
        self.illegal_reason(mv).is_none()
    }

    /// Whether the rules have ended the game.
    fn is_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// Plays `mv` if it is legal.
    ///
    /// # Errors
    /// [`MoveError::Illegal`] with the broken rule; the position is then unchanged.
    fn play(&mut self, mv: Self::Move) -> Result<(), MoveError> {
        match self.illegal_reason(mv) {
            Some(reason) => Err(MoveError::illegal(&self.move_text(mv), reason)),
            None => {
                self.play_unchecked(mv);
                Ok(())
            }
        }
    }

    /// Parses and plays a move text, returning the move.
    ///
    /// # Errors
    /// [`MoveError`] when the text is malformed or the move illegal; the position is then
    /// unchanged.
    fn play_text(&mut self, text: &str) -> Result<Self::Move, MoveError> {
        let mv = self.parse_move(text)?;
        match self.illegal_reason(mv) {
            Some(reason) => Err(MoveError::illegal(text, reason)),
            None => {
                self.play_unchecked(mv);
                Ok(mv)
            }
        }
    }

    /// A uniformly random legal move, `None` once the game is over.
    fn random_move(&self, rng: &mut SeededRng) -> Option<Self::Move> {
        seed::choose(rng, &self.legal_moves()).copied()
    }

    /// The move a random playout makes (used by Monte Carlo search). Uniform by default; a game
    /// may skip moves that are legal but pointless, as long as the playout still ends.
    fn playout_move(&self, rng: &mut SeededRng, buf: &mut Vec<Self::Move>) -> Option<Self::Move> {
        self.legal_moves_into(buf);
        seed::choose(rng, buf).copied()
    }
}

/// A position of any game, for code that learns the game only at run time.
///
/// The runner uses only the text-level methods; engines match on the variants.
#[derive(Clone, Debug)]
pub enum AnyPosition {
    /// A Seven Colors position.
    SevenColors(SevenColors),
    /// An Amazons position.
    Amazons(Amazons),
    /// An Awale position.
    Awale(Awale),
}

macro_rules! each {
    ($value:expr, $pos:ident => $body:expr) => {
        match $value {
            AnyPosition::SevenColors($pos) => $body,
            AnyPosition::Amazons($pos) => $body,
            AnyPosition::Awale($pos) => $body,
        }
    };
}

impl AnyPosition {
    /// Reads a position text of game `kind`.
    ///
    /// # Errors
    /// [`FenError`] when the text is not a position of that game.
    pub fn from_fen(kind: GameKind, text: &str) -> Result<AnyPosition, FenError> {
        Ok(match kind {
            GameKind::SevenColors => AnyPosition::SevenColors(SevenColors::from_fen(text)?),
            GameKind::Amazons => AnyPosition::Amazons(Amazons::from_fen(text)?),
            GameKind::Awale => AnyPosition::Awale(Awale::from_fen(text)?),
        })
    }

    /// Which game this is.
    pub fn kind(&self) -> GameKind {
        match self {
            AnyPosition::SevenColors(_) => GameKind::SevenColors,
            AnyPosition::Amazons(_) => GameKind::Amazons,
            AnyPosition::Awale(_) => GameKind::Awale,
        }
    }

    /// See [`Game::fen`].
    pub fn fen(&self) -> String {
        each!(self, p => p.fen())
    }

    /// See [`Game::side_to_move`].
    pub fn side_to_move(&self) -> Side {
        each!(self, p => p.side_to_move())
    }

    /// See [`Game::constraint`].
    pub fn constraint(&self) -> Option<&'static str> {
        each!(self, p => p.constraint())
    }

    /// See [`Game::HAS_CONSTRAINTS`].
    pub fn has_constraints(&self) -> bool {
        fn of<G: Game>(_: &G) -> bool {
            G::HAS_CONSTRAINTS
        }
        each!(self, p => of(p))
    }

    /// See [`Game::outcome`].
    pub fn outcome(&self) -> Option<Outcome> {
        each!(self, p => p.outcome())
    }

    /// See [`Game::adjudicate`].
    pub fn adjudicate(&self) -> Outcome {
        each!(self, p => p.adjudicate())
    }

    /// See [`Game::scores`].
    pub fn scores(&self) -> Option<BySide<u32>> {
        each!(self, p => p.scores())
    }

    /// See [`Game::final_scores`].
    pub fn final_scores(&self) -> Option<BySide<u32>> {
        each!(self, p => p.final_scores())
    }

    /// See [`Game::render`].
    pub fn render(&self, ansi: bool) -> String {
        each!(self, p => p.render(ansi))
    }

    /// See [`Game::move_help`].
    pub fn move_help(&self) -> String {
        each!(self, p => p.move_help())
    }

    /// Parses and plays a move text; returns the move in canonical text form.
    ///
    /// # Errors
    /// [`MoveError`] when the text is malformed or the move illegal; the position is then
    /// unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<String, MoveError> {
        // Every game's move text is independent of the position, so printing after playing is
        // the same as before.
        each!(self, p => {
            let mv = p.play_text(text)?;
            Ok(p.move_text(mv))
        })
    }

    /// Every legal move as text, in generation order.
    pub fn legal_move_texts(&self) -> Vec<String> {
        each!(self, p => p.legal_moves().into_iter().map(|m| p.move_text(m)).collect())
    }

    /// A uniformly random legal move as text, `None` once the game is over.
    pub fn random_move_text(&self, rng: &mut SeededRng) -> Option<String> {
        each!(self, p => p.random_move(rng).map(|m| p.move_text(m)))
    }
}

macro_rules! impl_from_position {
    ($($variant:ident),*) => {$(
        impl From<$variant> for AnyPosition {
            fn from(pos: $variant) -> AnyPosition {
                AnyPosition::$variant(pos)
            }
        }
    )*};
}

impl_from_position!(SevenColors, Amazons, Awale);

impl fmt::Display for AnyPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}
