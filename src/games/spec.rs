//! Board specs: a game plus its variant parameters, as written in a config's `boards:` list.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::suite::OpeningsSpec;
use super::{AnyPosition, Game, amazons, awale, seven_colors};
use crate::seed::{self, SeededRng};

/// The games arena knows. Written `seven_colors`, `amazons`, `awale` in configs and protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// Seven Colors (7 couleurs).
    SevenColors,
    /// The Game of the Amazons on graph boards.
    Amazons,
    /// Awale (oware, abapa rules).
    Awale,
}

impl GameKind {
    /// Every game, in a fixed order.
    pub const ALL: [GameKind; 3] = [GameKind::SevenColors, GameKind::Amazons, GameKind::Awale];

    /// The name used in configs, CSV files and the protocol's `UGI_Variant` option.
    pub fn name(self) -> &'static str {
        match self {
            GameKind::SevenColors => "seven_colors",
            GameKind::Amazons => "amazons",
            GameKind::Awale => "awale",
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GameKind {
    type Err = SpecError;
    fn from_str(text: &str) -> Result<Self, SpecError> {
        GameKind::ALL
            .into_iter()
            .find(|kind| kind.name() == text)
            .ok_or_else(|| {
                SpecError(format!(
                    "unknown game `{text}` (known: seven_colors, amazons, awale)"
                ))
            })
    }
}

/// A board spec that the rules reject, with a message for the person who wrote it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

/// What every game's spec provides to [`BoardSpec`].
pub(crate) trait Variant {
    type Position: Game + Into<AnyPosition>;
    /// Checks the parameters; the message names the parameter and the value.
    fn validate(&self) -> Result<(), SpecError>;
    /// A readable name such as `amazons-donut-9`.
    fn default_name(&self) -> String;
    /// The ply cap when the config gives none.
    fn default_max_plies(&self) -> u32;
    /// The start position, before any opening plies.
    fn generate(&self, rng: &mut SeededRng) -> Self::Position;
    /// Whether a position (an opening of a suite) belongs to this board: same size, shape,
    /// pits, seeds, rules; the message says what differs.
    fn fits(&self, pos: &Self::Position) -> Result<(), String>;
    /// The board's `openings` key, for filling in its digest and loaded suite.
    fn openings_mut(&mut self) -> &mut Option<OpeningsSpec>;
    /// The keys every board has: `name`, `max_plies`, `random_opening_plies`, `openings`.
    fn common(&self) -> Common<'_>;
}

/// Keys shared by every board, repeated in each game's spec because serde's `flatten` cannot
/// be combined with rejecting unknown keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Common<'a> {
    pub name: Option<&'a str>,
    pub max_plies: Option<u32>,
    pub random_opening_plies: u32,
    pub openings: Option<&'a OpeningsSpec>,
}

/// A board: which game and with which parameters.
///
/// In YAML: `{game: seven_colors, size: 20, layout: random}`,
/// `{game: amazons, shape: donut, width: 9}`, `{game: awale, pits: 10}`; each game's keys are
/// documented on its spec type and in `docs/games.md`. Every board also takes `name` (default:
/// [`BoardSpec::name`]), `max_plies` (a ply cap after which the game is adjudicated),
/// `random_opening_plies` (random legal plies played from the generated start, drawn from the
/// same seed, so that games with a fixed start get varied openings) and `openings` (an opening
/// suite file, see [`crate::openings`]; excludes `random_opening_plies`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum BoardSpec {
    /// Seven Colors.
    SevenColors(seven_colors::Spec),
    /// Amazons.
    Amazons(amazons::Spec),
    /// Awale.
    Awale(awale::Spec),
}

macro_rules! each_spec {
    ($value:expr, $spec:ident => $body:expr) => {
        match $value {
            BoardSpec::SevenColors($spec) => $body,
            BoardSpec::Amazons($spec) => $body,
            BoardSpec::Awale($spec) => $body,
        }
    };
}

/// How often a start position is drawn again when its random opening already ended the game.
const OPENING_ATTEMPTS: u32 = 100;

impl BoardSpec {
    /// Which game the board is for.
    pub fn kind(&self) -> GameKind {
        match self {
            BoardSpec::SevenColors(_) => GameKind::SevenColors,
            BoardSpec::Amazons(_) => GameKind::Amazons,
            BoardSpec::Awale(_) => GameKind::Awale,
        }
    }

    /// Checks every parameter against the rules.
    ///
    /// # Errors
    /// [`SpecError`] with a message such as `clover needs a width divisible by 5, got 12`.
    pub fn validate(&self) -> Result<(), SpecError> {
        each_spec!(self, s => {
            s.validate()?;
            if s.common().max_plies == Some(0) {
                return Err(SpecError("max_plies must be at least 1".into()));
            }
            // A suite's openings are chosen for balance; random plies after them would undo it.
            if s.common().openings.is_some() && s.common().random_opening_plies > 0 {
                return Err(SpecError(
                    "openings and random_opening_plies exclude each other (add plies to the suite's lines with `moves …`, or make a suite with `arena openings --plies`)".into(),
                ));
            }
            Ok(())
        })
    }

    /// The board's name: the `name` key, or a readable default such as `amazons-donut-9`,
    /// `seven_colors-diagonal-20`, `awale-10`.
    pub fn name(&self) -> String {
        each_spec!(self, s => s.common().name.map_or_else(|| s.default_name(), str::to_owned))
    }

    /// The ply cap: `max_plies`, or the game's default (Seven Colors 10·N², Awale 1000,
    /// Amazons the number of vertices, which no game can exceed).
    pub fn max_plies(&self) -> u32 {
        each_spec!(self, s => s.common().max_plies.unwrap_or_else(|| s.default_max_plies()))
    }

    /// Random legal plies played from the generated start position.
    pub fn random_opening_plies(&self) -> u32 {
        each_spec!(self, s => s.common().random_opening_plies)
    }

    /// The board's opening suite (`openings` key), if any.
    pub fn openings(&self) -> Option<&OpeningsSpec> {
        each_spec!(self, s => s.common().openings)
    }

    /// The `openings` key, to fill in what [`crate::openings::load`] read.
    pub fn openings_mut(&mut self) -> &mut Option<OpeningsSpec> {
        each_spec!(self, s => s.openings_mut())
    }

    /// Checks that `pos` is a position of this board (same game, and the game's own check:
    /// size, shape, pits, seeds, rules).
    ///
    /// # Errors
    /// [`SpecError`] saying what differs.
    pub fn check_position(&self, pos: &AnyPosition) -> Result<(), SpecError> {
        let fits = match (self, pos) {
            (BoardSpec::SevenColors(s), AnyPosition::SevenColors(p)) => s.fits(p),
            (BoardSpec::Amazons(s), AnyPosition::Amazons(p)) => s.fits(p),
            (BoardSpec::Awale(s), AnyPosition::Awale(p)) => s.fits(p),
            _ => Err(format!(
                "a {} position on a {} board",
                pos.kind(),
                self.kind()
            )),
        };
        fits.map_err(|e| SpecError(format!("not a position of board {}: {e}", self.name())))
    }

    /// The start position for `seed`: the generated board followed by the random opening plies,
    /// all drawn from one ChaCha8 stream, so the same spec and seed give the same position on
    /// every platform. A draw whose opening ends the game is replaced by the next one.
    /// A board's `openings` suite is not used here: the schedule takes its starts from it.
    ///
    /// # Errors
    /// [`SpecError`] when the spec is invalid, or when no opening of that length leaves a game
    /// to play.
    pub fn start_position(&self, seed: u64) -> Result<AnyPosition, SpecError> {
        self.validate()?;
        let mut rng = seed::rng(seed);
        for _ in 0..OPENING_ATTEMPTS {
            let pos = each_spec!(self, s => {
                let mut pos = s.generate(&mut rng);
                for _ in 0..s.common().random_opening_plies {
                    match pos.random_move(&mut rng) {
                        Some(mv) => pos.play_unchecked(mv),
                        None => break,
                    }
                }
                (!pos.is_over()).then(|| pos.into())
            });
            if let Some(pos) = pos {
                return Ok(pos);
            }
        }
        Err(SpecError(format!(
            "{}: random_opening_plies {} ends the game in every one of {OPENING_ATTEMPTS} tries",
            self.name(),
            self.random_opening_plies()
        )))
    }
}
