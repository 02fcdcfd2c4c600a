//! Tournament configs: `configs/*.yaml` → a validated [`Plan`]. Reads files, spawns nothing.
//!
//! Unknown keys are errors. Relative paths (an engine `command` containing `/`, and `output`)
//! are resolved against the directory arena is run from, and engines run there too; a bare
//! command name is searched on PATH.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::engine;
use crate::games::{BoardSpec, GameKind};
use crate::player_library;

/// A config that cannot be used, with the file and, where the parser knows it, line and column.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct ConfigError {
    /// The config file as given.
    pub file: String,
    /// `line L column C: …` or a description of the invalid value.
    pub message: String,
}

/// The time control as written: exactly one of movetime, base (+ increment), depth or nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeControlSpec {
    /// Fixed time per move (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub movetime_ms: Option<u64>,
    /// Clock at the start of the game (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_ms: Option<u64>,
    /// Added to the clock after each move (ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increment_ms: Option<u64>,
    /// Fixed search depth (plies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Fixed node count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// Grace past a deadline before a time forfeit (ms); default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_ms: Option<u64>,
    /// Hang limit for depth- and node-limited moves (ms); default 10,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_timeout_ms: Option<u64>,
}

/// The limit of each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// `go movetime` (ms).
    MoveTime(u64),
    /// A clock: base and increment (ms).
    Clock {
        /// Start time (ms).
        base: u64,
        /// Increment per move (ms).
        increment: u64,
    },
    /// `go depth` (plies).
    Depth(u32),
    /// `go nodes`.
    Nodes(u64),
}

/// A validated time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    /// The per-move limit.
    pub limit: Limit,
    /// Grace past a deadline before a forfeit (ms).
    pub margin_ms: u64,
    /// Hang limit for untimed moves (ms).
    pub move_timeout_ms: u64,
}

/// Longest accepted time in a config: a week, in ms.
const MAX_MS: u64 = 7 * 24 * 3600 * 1000;
/// Deepest accepted `depth` limit (plies).
const MAX_DEPTH: u32 = 10_000;
/// Most rounds a config may ask for (each round of each board keeps its start position).
pub const MAX_ROUNDS: u32 = 100_000;
/// Most games one tournament may schedule (the schedule is built up front: about 50 bytes a
/// game).
pub const MAX_GAMES: u64 = 10_000_000;

impl TimeControlSpec {
    /// Checks that exactly one limit is given and that times are sane.
    ///
    /// # Errors
    /// A message naming the offending key.
    pub fn validate(&self) -> Result<TimeControl, String> {
        let mut limits = Vec::new();
        if let Some(ms) = self.movetime_ms {
            limits.push(Limit::MoveTime(ms));
        }
        if let Some(base) = self.base_ms {
            let increment = self.increment_ms.unwrap_or(0);
            if increment > MAX_MS {
                return Err(format!(
                    "increment_ms of {increment} ms is more than a week"
                ));
            }
            limits.push(Limit::Clock { base, increment });
        } else if self.increment_ms.is_some() {
            return Err("increment_ms needs base_ms".into());
        }
        if let Some(depth) = self.depth {
            limits.push(Limit::Depth(depth));
        }
        if let Some(nodes) = self.nodes {
            limits.push(Limit::Nodes(nodes));
        }
        let limit = match limits[..] {
            [limit] => limit,
            [] => {
                return Err(
                    "time_control needs one of movetime_ms, base_ms, depth or nodes".into(),
                );
            }
            _ => {
                return Err(
                    "time_control takes only one of movetime_ms, base_ms, depth and nodes".into(),
                );
            }
        };
        match limit {
            Limit::MoveTime(0)
            | Limit::Clock { base: 0, .. }
            | Limit::Depth(0)
            | Limit::Nodes(0) => {
                return Err("time_control limits must be positive".into());
            }
            Limit::MoveTime(ms) | Limit::Clock { base: ms, .. } if ms > MAX_MS => {
                return Err(format!("time_control of {ms} ms is more than a week"));
            }
            Limit::Depth(d) if d > MAX_DEPTH => {
                return Err(format!("depth {d} is more than {MAX_DEPTH} plies"));
            }
            _ => {}
        }
        let margin_ms = self.margin_ms.unwrap_or(50);
        let move_timeout_ms = self.move_timeout_ms.unwrap_or(10_000);
        if margin_ms > MAX_MS || move_timeout_ms > MAX_MS || move_timeout_ms == 0 {
            return Err("margin_ms and move_timeout_ms must be between 1 ms and a week".into());
        }
        Ok(TimeControl {
            limit,
            margin_ms,
            move_timeout_ms,
        })
    }
}

impl TimeControl {
    /// A rough time per move for estimates (ms): the movetime; a clock's base spread over 40
    /// moves plus the increment; 10 ms for depth- and node-limited moves.
    pub fn typical_move_ms(&self) -> f64 {
        match self.limit {
            Limit::MoveTime(ms) => ms as f64,
            Limit::Clock { base, increment } => base as f64 / 40.0 + increment as f64,
            Limit::Depth(_) | Limit::Nodes(_) => 10.0,
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            Limit::MoveTime(ms) => write!(f, "{ms} ms/move"),
            Limit::Clock { base, increment } => write!(f, "{base}+{increment} ms"),
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "{n} nodes"),
        }
    }
}

/// An option value as YAML allows it (`depth: 6`, `book: "x.bin"`, `ponder: false`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OptionValue {
    /// A boolean, sent as `true`/`false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// Text.
    Text(String),
}

impl fmt::Display for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionValue::Bool(b) => write!(f, "{b}"),
            OptionValue::Int(i) => write!(f, "{i}"),
            OptionValue::Float(x) => write!(f, "{x}"),
            OptionValue::Text(s) => f.write_str(s),
        }
    }
}

/// An engine entry of the config.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSpec {
    /// Unique name, used in every result file.
    pub name: String,
    /// Program to run (no shell); empty for a library engine (`library`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// UGI options sent with `setoption` after the handshake.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, OptionValue>,
    /// Games it may play; default: every game it declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games: Option<Vec<GameKind>>,
    /// Its own time control (time odds); default: the tournament's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<TimeControlSpec>,
    /// Resource limits: `{ memory_mb: 512, user_processes: 64 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<engine::Limits>,
    /// A course Amazons player library (`player.h`), run by the `player-so` adapter instead of
    /// a `command`; see [`crate::player_library`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library: Option<PathBuf>,
    /// The `dir.h` version the library was compiled against; required with `library`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<player_library::Directions>,
    /// This engine's own `restart`; default the tournament's, and `per_game` for a library
    /// engine (course players keep global state that `finalize` does not reset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart: Option<Restart>,
    /// This engine's own `sandbox` (see [`crate::sandbox`]); default the tournament's. In a
    /// [`PlanEngine`], the one in force, with absolute `read` paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::Setting>,
    /// Swiss and knockout: the rating (Elo) that seeds it, higher first; default the config
    /// order. Given for every engine or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rating: Option<f64>,
}

/// An anchor: the engine whose rating is fixed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// Engine name.
    pub engine: String,
    /// Its rating (Elo).
    pub elo: f64,
}

/// A config file as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Tournament name (PGN `Event`); default: the file's stem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Master seed; default: drawn at start and recorded in `config.resolved.yaml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Games played at once; default: the number of cores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Game pairs per engine pair per board; default 1. With `format: swiss`, the Swiss rounds.
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    /// `round_robin` (default), `gauntlet` (see `gauntlet_engine`), `swiss` or `knockout`
    /// (see [`crate::formats`]).
    #[serde(default)]
    pub format: Format,
    /// Swiss and knockout: game pairs each pairing (or match) plays; default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_per_pairing: Option<u32>,
    /// Swiss: the points of a bye, in 0..=1 (a pairing won is 1); default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bye_score: Option<f64>,
    /// Knockout: tie-break game pairs a tied match plays at most, one at a time; default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiebreak_pairs: Option<u32>,
    /// In a gauntlet, the engine that plays every other (the others do not meet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gauntlet_engine: Option<String>,
    /// The time control of every engine without its own.
    pub time_control: TimeControlSpec,
    /// Boards to play; see the rules library for each game's keys.
    pub boards: Vec<BoardSpec>,
    /// Engines taking part.
    pub engines: Vec<EngineSpec>,
    /// Output directory; default `results/<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<PathBuf>,
    /// The sandbox of every engine without its own: `off` (default), `on` or a map of parts
    /// (see [`crate::sandbox`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::Setting>,
    /// Rating anchor; default: mean 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<Anchor>,
    /// Confidence level of intervals, in (0, 1); default 0.95.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// When engine processes are restarted: `on_failure` (default; reused across games with
    /// `uginewgame`) or `per_game`.
    #[serde(default)]
    pub restart: Restart,
    /// Timeout of the `ugi` handshake and of `isready` (ms); default 10,000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake_timeout_ms: Option<u64>,
    /// What a run does about an engine that cannot play: `stop` (default: a failed handshake
    /// stops the run before the first game; an engine withdrawn during the run makes it exit 1)
    /// or `forfeit` (its games are forfeited and the run goes on and exits 0: a class
    /// championship).
    #[serde(default, skip_serializing_if = "is_default")]
    pub on_engine_failure: OnEngineFailure,
    /// Games an engine may fail in a row without playing a move before it is withdrawn;
    /// default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdraw_after: Option<u32>,
    /// Refuse options an engine does not declare (default: warn and send them anyway).
    #[serde(default, skip_serializing_if = "is_default")]
    pub strict_options: bool,
    /// Sequential test between the two engines (see `crate::sprt`); `rounds` is then the
    /// maximum and the run stops once a bound is crossed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<crate::sprt::SprtSpec>,
    /// Write `moves.csv`: every ply with the engine's last `info` (see
    /// [`crate::record::moves`]); default false. `--record-moves` sets it.
    #[serde(default, skip_serializing_if = "is_default")]
    pub record_moves: bool,
    /// End games early by the engines' scores (see [`crate::adjudication`]); default off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<crate::adjudication::Adjudication>,
    /// A class championship: the folder of team submissions, relative to the config file;
    /// each subfolder is a team (see [`crate::class::submissions`]). A run expands it into
    /// `engines` (its `config.resolved.yaml` lists the teams that entered, without this key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submissions: Option<PathBuf>,
    /// What every submission gets unless it says otherwise: `{ directions: clockwise }` for
    /// `.so` players without a `directions` file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submissions_defaults: Option<crate::class::SubmissionsDefaults>,
    /// Staff reference engines (names of `engines`), weakest first: every other engine (a
    /// team) plays each rung and gets a level, the highest rung it beats (see
    /// [`crate::class::levels`]). Sets `format: ladder` unless `format` is written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder: Option<Vec<String>>,
    /// With `format: ladder`, whether the rungs also play each other once (round 1), which
    /// places the rungs on the Elo scale by themselves; default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ladder_calibration: Option<bool>,
    /// Grades of levels: `{ alphabeta: A, greedy: C, random: E, none: F }` (rung name or
    /// `none` → grade).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grades: Option<BTreeMap<String, String>>,
    /// Teams play and are published under stable pseudonyms; the mapping and its salt stay in
    /// `OUTPUT/pseudonyms.csv` (see [`crate::class::pseudonyms`]). Needs `submissions`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub anonymize: bool,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// What a run does about an engine that cannot play (config `on_engine_failure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnEngineFailure {
    /// Stop before the first game when a handshake fails; exit 1 after a run in which an
    /// engine was withdrawn.
    #[default]
    Stop,
    /// Forfeit the engine's games and go on; exit 0.
    Forfeit,
}

fn default_rounds() -> u32 {
    1
}

/// When engine processes are restarted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Restart {
    /// Reused across games; restarted only after a crash, hang or protocol error.
    #[default]
    OnFailure,
    /// A fresh process for every game.
    PerGame,
}

/// Who meets whom.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Every engine meets every other.
    #[default]
    RoundRobin,
    /// `gauntlet_engine` meets every other engine; the others do not meet.
    Gauntlet,
    /// Swiss rounds paired from the standings (see [`crate::formats::swiss`]).
    Swiss,
    /// A seeded single-elimination bracket (see [`crate::formats::knockout`]).
    Knockout,
    /// Every rung of `ladder` meets every other engine (the teams), which do not meet each
    /// other; the rungs meet each other in round 1 (`ladder_calibration`).
    Ladder,
}

impl Format {
    /// Whether the games of a round depend on earlier results (Swiss, knockout): such a
    /// tournament is played round by round and cannot be sharded.
    pub fn pairs_by_results(self) -> bool {
        matches!(self, Format::Swiss | Format::Knockout)
    }
}

/// A validated engine entry.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanEngine {
    /// The entry as written; for a library engine, with `command` and `args` those of the
    /// `player-so` adapter and `restart` defaulted to `per_game`.
    pub spec: EngineSpec,
    /// The resolved program.
    pub program: PathBuf,
    /// Its time control.
    pub time_control: TimeControl,
}

impl PlanEngine {
    /// Whether this engine gets a fresh process for every game: its own `restart`, else the
    /// tournament's (`tournament_per_game`).
    pub fn restarts_per_game(&self, tournament_per_game: bool) -> bool {
        self.spec
            .restart
            .map_or(tournament_per_game, |r| r == Restart::PerGame)
    }
}

/// Checks a `library` engine entry and turns it into the adapter's command line (see
/// [`player_library::adapter_command`]); checks that a `command` entry has no `directions`.
fn resolve_library(spec: &mut EngineSpec, base: &Path) -> Result<(), String> {
    let Some(library) = spec.library.clone() else {
        if spec.command.is_empty() {
            return Err("needs a `command` (or a `library`)".into());
        }
        if spec.directions.is_some() {
            return Err("`directions` is only for `library` engines".into());
        }
        return Ok(());
    };
    if !spec.command.is_empty() || !spec.args.is_empty() {
        return Err(
            "`library` and `command`/`args` are exclusive: a library runs in arena's \
             player-so adapter"
                .into(),
        );
    }
    let directions = spec.directions.ok_or(
        "a library engine needs `directions: clockwise` or `directions: west3` (the dir.h its \
         team compiled against; see docs/course-players.md)",
    )?;
    let adapter = player_library::adapter_command(
        &spec.name,
        &library,
        directions,
        base,
        &player_library::adapter_dir()?,
    )?;
    spec.command = adapter.program.display().to_string();
    spec.args = adapter.args;
    spec.restart.get_or_insert(Restart::PerGame);
    Ok(())
}

/// One engine entry checked (library, limits, program, time control) and resolved; `global`
/// is the tournament's time control.
///
/// # Errors
/// What is wrong with the entry, without its name.
pub(crate) fn plan_engine(
    spec: &EngineSpec,
    base: &Path,
    global: TimeControl,
) -> Result<PlanEngine, String> {
    let mut spec = spec.clone();
    resolve_library(&mut spec, base)?;
    if let Some(limits) = &spec.limits {
        if limits.memory_mb == Some(0) || limits.user_processes == Some(0) {
            return Err("limits must be at least 1 (memory_mb, user_processes)".into());
        }
    }
    let program = engine::resolve_program(&spec.command, base).map_err(|e| {
        format!(
            "{e}{}",
            split_command_hint(&spec.command, base).unwrap_or_default()
        )
    })?;
    let time_control = match &spec.time_control {
        Some(tc) => tc.validate().map_err(|e| format!("time_control: {e}"))?,
        None => global,
    };
    Ok(PlanEngine {
        spec,
        program,
        time_control,
    })
}

/// For a `command` with spaces whose first word is a program (`node my/awale.js`), the
/// suggestion to split it: `command` is one program, run without a shell.
fn split_command_hint(command: &str, base: &Path) -> Option<String> {
    let mut words = command.split_whitespace();
    let first = words.next()?;
    let rest: Vec<&str> = words.collect();
    if rest.is_empty() || engine::resolve_program(first, base).is_err() {
        return None;
    }
    Some(format!(
        "; `command` is one program, run without a shell: write `command: {first}` and \
         `args: [{}]`",
        rest.join(", ")
    ))
}

/// A validated tournament, ready to schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// The config file as given, for messages.
    pub file: PathBuf,
    /// The config as read, with defaults that depend on the run filled in (seed, output,
    /// concurrency, name): written back as `config.resolved.yaml`.
    pub config: Config,
    /// Tournament name.
    pub name: String,
    /// Master seed.
    pub seed: u64,
    /// Games at once (≥ 1).
    pub concurrency: usize,
    /// Output directory.
    pub output: PathBuf,
    /// Engines, in config order.
    pub engines: Vec<PlanEngine>,
    /// Board names, in config order (unique).
    pub board_names: Vec<String>,
    /// Confidence level of intervals.
    pub confidence: f64,
    /// Handshake and `isready` timeout (ms).
    pub handshake_timeout_ms: u64,
    /// Games failed in a row without a move before an engine is withdrawn (≥ 1).
    pub withdraw_after: u32,
    /// A class championship's teams (config `submissions`), entered or not.
    pub roster: Option<crate::class::Roster>,
}

/// Overrides from the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--concurrency`.
    pub concurrency: Option<usize>,
    /// `--output`.
    pub output: Option<PathBuf>,
    /// `--no-sandbox`: every engine runs with `sandbox: off`.
    pub no_sandbox: bool,
    /// Nothing will be written (`arena check`): an anonymized class without a kept salt keeps
    /// its real names rather than pseudonyms the run would draw anew.
    pub dry_run: bool,
}

/// Reads and parses a config file.
///
/// # Errors
/// [`ConfigError`] for an unreadable file or invalid YAML, with line and column.
pub fn read(path: &Path) -> Result<Config, ConfigError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        file: file.clone(),
        message: format!("cannot read: {e}"),
    })?;
    parse(&text, &file)
}

/// Parses config text; `file` names it in errors.
///
/// # Errors
/// [`ConfigError`] for invalid YAML, wrong types or unknown keys, with line and column.
pub fn parse(text: &str, file: &str) -> Result<Config, ConfigError> {
    let mut config: Config = serde_yaml::from_str(text).map_err(|e| {
        let full = e.to_string();
        // serde_yaml appends " at line L column C"; the position goes first instead.
        let reason = full.split(" at line ").next().unwrap_or(&full).to_owned();
        // The old name of `limits.user_processes`, which did not limit threads.
        let reason = if reason.contains("unknown field `threads`") {
            format!(
                "{reason} (`threads` was renamed `user_processes`: it is RLIMIT_NPROC, a limit on all processes and threads of the engine's user; see README)"
            )
        } else {
            reason
        };
        let message = match e.location() {
            Some(at) => {
                let (line, column) = locate_sprt(text, &reason)
                    .or_else(|| locate_unknown_key(text, &reason, at.index()))
                    .or_else(|| locate_key_of_value(text, &reason, at.line(), at.column()))
                    .unwrap_or((at.line(), at.column()));
                // Boards are buffered (internally tagged), so serde's path lacks their index.
                let reason = match board_index(text, line) {
                    Some(i) => match reason.strip_prefix("boards") {
                        Some(rest) if rest.starts_with([':', '.']) => format!("boards[{i}]{rest}"),
                        Some(_) => reason,
                        None => format!("boards[{i}]: {reason}"),
                    },
                    None => reason,
                };
                format!("line {line} column {column}: {reason}")
            }
            None => reason,
        };
        ConfigError {
            file: file.to_owned(),
            message,
        }
    })?;
    // A ladder grades teams against the rungs; teams meet each other only if `format` says so.
    if config.ladder.is_some() && !has_top_level_key(text, "format") {
        config.format = Format::Ladder;
    }
    Ok(config)
}

/// Whether YAML `text` (a map) has top-level `key`.
fn has_top_level_key(text: &str, key: &str) -> bool {
    serde_yaml::from_str::<serde_yaml::Value>(text)
        .ok()
        .and_then(|v| v.as_mapping().map(|m| m.contains_key(key)))
        .unwrap_or(false)
}

/// For an invalid `sprt:` section (checked as a whole, so serde points at the document's
/// start), the line of its top-level key.
fn locate_sprt(text: &str, reason: &str) -> Option<(usize, usize)> {
    // `adjudication:` is checked the same way.
    let key = ["sprt:", "adjudication:"]
        .into_iter()
        .find(|k| reason.starts_with(k))?;
    let index = text.lines().position(|l| l.starts_with(key))?;
    Some((index + 1, 1))
}

/// For a bad value (`movetime_ms: -20`), where its key is: serde points at the value, but the
/// message's path (`time_control.movetime_ms: invalid type …`) names the key, found on the same
/// line before the value.
fn locate_key_of_value(
    text: &str,
    reason: &str,
    line: usize,
    column: usize,
) -> Option<(usize, usize)> {
    if !reason.contains("invalid type") && !reason.contains("invalid value") {
        return None;
    }
    let path = reason.split(": ").next()?;
    let key = path.rsplit('.').next()?;
    let key = key.split('[').next()?;
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let before = row.get(..column.saturating_sub(1).min(row.len()))?;
    let found = before.rfind(&format!("{key}:"))?;
    Some((line, found + 1))
}

/// The index of the `boards:` list item that holds 1-based `line`, for block-style lists
/// (`- {…}` or `- key: …` items) under a top-level `boards:` key.
fn board_index(text: &str, line: usize) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("boards:"))?;
    if line <= start + 1 || line > lines.len() {
        return None;
    }
    let mut index = None;
    let mut item_indent = None;
    for l in &lines[start + 1..line] {
        let trimmed = l.trim_start();
        let indent = l.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if indent == 0 && !trimmed.starts_with('-') {
            return None; // past the list: another top-level key
        }
        if trimmed.starts_with('-') && item_indent.is_none_or(|i| i == indent) {
            item_indent = Some(indent);
            index = Some(index.map_or(0, |i| i + 1));
        }
    }
    index
}

/// Where the key named in an "unknown field" or "duplicate field" error really is. Boards are buffered by serde
/// before their game is known, so the parser reports the start of the list instead of the key;
/// the key's first occurrence after that point is the culprit.
fn locate_unknown_key(text: &str, reason: &str, from: usize) -> Option<(usize, usize)> {
    // An unknown key is its first occurrence; a duplicate one, its second.
    let (key, mut skip) = if let Some(rest) = reason.split("unknown field `").nth(1) {
        (rest.split('`').next()?, 0)
    } else {
        (
            reason
                .split("duplicate field `")
                .nth(1)?
                .split('`')
                .next()?,
            1,
        )
    };
    let mut search = from.min(text.len());
    while let Some(found) = text.get(search..)?.find(key) {
        let at = search + found;
        let before = text[..at].chars().next_back();
        let after = text[at + key.len()..].trim_start_matches([' ', '\t']);
        if before.is_none_or(|c| c.is_whitespace() || c == '{' || c == ',')
            && after.starts_with(':')
        {
            if skip == 0 {
                let line = text[..at].matches('\n').count() + 1;
                let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
                return Some((line, column));
            }
            skip -= 1;
        }
        search = at + key.len();
    }
    None
}

/// The run-dependent settings of a plan, with their defaults applied.
struct Settings {
    confidence: f64,
    concurrency: usize,
    seed: u64,
    output: PathBuf,
    handshake_timeout_ms: u64,
    withdraw_after: u32,
}

impl Config {
    /// Validates everything that can be checked without starting an engine, resolves engine
    /// programs against `base`, and applies `overrides`.
    ///
    /// # Errors
    /// [`ConfigError`] naming the board or engine at fault.
    pub fn plan(
        mut self,
        file: &Path,
        base: &Path,
        overrides: &Overrides,
    ) -> Result<Plan, ConfigError> {
        let fail = |message: String| ConfigError {
            file: file.display().to_string(),
            message,
        };
        let name = self.name.clone().unwrap_or_else(|| {
            file.file_stem().map_or_else(
                || "tournament".to_owned(),
                |s| s.to_string_lossy().into_owned(),
            )
        });
        let settings = self.settings(overrides, &name).map_err(fail)?;
        let global = self
            .time_control
            .validate()
            .map_err(|e| fail(format!("time_control: {e}")))?;
        let roster = crate::class::roster::expand(
            &mut self,
            file,
            base,
            &settings.output,
            global,
            overrides.dry_run,
        )
        .map_err(fail)?;
        self.check_sizes().map_err(fail)?;
        let board_names = self.board_names().map_err(fail)?;
        // Opening suites are read and checked now, so a bad one stops the run before any game.
        crate::openings::resolve_boards(&mut self.boards, base).map_err(fail)?;
        let mut engines = self.plan_engines(base).map_err(fail)?;
        crate::sandbox::plan(
            &mut engines,
            self.sandbox.as_ref(),
            base,
            overrides.no_sandbox,
        )
        .map_err(fail)?;
        if let Some(roster) = &roster {
            roster.seal_entries(&mut self);
        }
        self.check_references(&engines).map_err(fail)?;
        crate::formats::settings::validate(&self).map_err(fail)?;
        self.check_game_count(engines.len()).map_err(fail)?;
        self.seed = Some(settings.seed);
        self.concurrency = Some(settings.concurrency);
        self.output = Some(settings.output.clone());
        self.name = Some(name.clone());
        Ok(Plan {
            file: file.to_owned(),
            config: self,
            name,
            seed: settings.seed,
            concurrency: settings.concurrency,
            output: base.join(settings.output),
            engines,
            board_names,
            confidence: settings.confidence,
            handshake_timeout_ms: settings.handshake_timeout_ms,
            withdraw_after: settings.withdraw_after,
            roster,
        })
    }

    /// At least two engines, a board, and `rounds` in range.
    fn check_sizes(&self) -> Result<(), String> {
        if self.engines.len() < 2 {
            return Err(format!(
                "engines: a tournament needs at least 2 engines, got {}",
                self.engines.len()
            ));
        }
        if self.boards.is_empty() {
            return Err("boards: the list is empty".into());
        }
        if self.rounds == 0 || self.rounds > MAX_ROUNDS {
            return Err(format!(
                "rounds must be in 1..={MAX_ROUNDS}, got {}",
                self.rounds
            ));
        }
        Ok(())
    }

    /// Each board validated, and its name, unique.
    fn board_names(&self) -> Result<Vec<String>, String> {
        let mut board_names = Vec::new();
        for (i, board) in self.boards.iter().enumerate() {
            board
                .validate()
                .map_err(|e| format!("boards[{i}] ({}): {e}", board.name()))?;
            let board_name = board.name();
            if board_names.contains(&board_name) {
                return Err(format!(
                    "boards[{i}]: the name `{board_name}` is used twice; give one board a `name`"
                ));
            }
            board_names.push(board_name);
        }
        Ok(board_names)
    }

    /// Each engine entry checked (name, library, limits, program, time control) and resolved.
    fn plan_engines(&self, base: &Path) -> Result<Vec<PlanEngine>, String> {
        let global = self
            .time_control
            .validate()
            .map_err(|e| format!("time_control: {e}"))?;
        let mut engines: Vec<PlanEngine> = Vec::new();
        for (i, spec) in self.engines.iter().enumerate() {
            let label = format!("engines[{i}] ({})", spec.name);
            if spec.name.trim().is_empty() || spec.name.contains(['/', '\\', ',', '"']) {
                return Err(format!(
                    "{label}: a name must be non-empty without / \\ , or \""
                ));
            }
            if engines.iter().any(|e| e.spec.name == spec.name) {
                return Err(format!("{label}: the name `{}` is used twice", spec.name));
            }
            engines.push(plan_engine(spec, base, global).map_err(|e| format!("{label}: {e}"))?);
        }
        Ok(engines)
    }

    /// The keys that name engines (`anchor`, `gauntlet_engine`) name one, and `sprt` has
    /// exactly one pair to test.
    fn check_references(&self, engines: &[PlanEngine]) -> Result<(), String> {
        if let Some(anchor) = &self.anchor {
            if !anchor.elo.is_finite() {
                return Err(format!(
                    "anchor: elo must be a finite number, got {}",
                    anchor.elo
                ));
            }
            if anchor.elo.abs() > crate::rating::MAX_ANCHOR {
                return Err(format!(
                    "anchor: elo must be within ±{}, got {:e}",
                    crate::rating::MAX_ANCHOR,
                    anchor.elo
                ));
            }
            if !engines.iter().any(|e| e.spec.name == anchor.engine) {
                return Err(format!("anchor: no engine is called `{}`", anchor.engine));
            }
        }
        match (self.format, &self.gauntlet_engine) {
            (Format::Gauntlet, Some(g)) if !engines.iter().any(|e| &e.spec.name == g) => {
                return Err(format!("gauntlet_engine: no engine is called `{g}`"));
            }
            (Format::Gauntlet, None) => {
                return Err("format gauntlet needs gauntlet_engine".into());
            }
            (Format::RoundRobin | Format::Swiss | Format::Knockout | Format::Ladder, Some(_)) => {
                return Err("gauntlet_engine is only used with format: gauntlet".into());
            }
            _ => {}
        }
        if self.sprt.is_some() {
            let pairs = match self.format {
                Format::RoundRobin => engines.len() * (engines.len() - 1) / 2,
                Format::Gauntlet => engines.len() - 1,
                Format::Swiss | Format::Knockout | Format::Ladder => {
                    return Err(format!(
                        "sprt: not with format: {} (use round_robin with two engines)",
                        crate::formats::settings::format_name(self.format)
                    ));
                }
            };
            if pairs != 1 {
                return Err(format!(
                    "sprt: needs exactly two engines (or format: gauntlet with one opponent), got {}",
                    engines.len()
                ));
            }
        }
        Ok(())
    }

    /// Confidence, concurrency, seed, output, handshake timeout and withdrawal streak: the
    /// command line's `overrides` first, then the config, then the defaults.
    fn settings(&self, overrides: &Overrides, name: &str) -> Result<Settings, String> {
        let confidence = self.confidence.unwrap_or(0.95);
        if !(confidence > 0.0 && confidence < 1.0) {
            return Err(format!("confidence must be in (0, 1), got {confidence}"));
        }
        let concurrency = overrides
            .concurrency
            .or(self.concurrency)
            .unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            });
        if concurrency == 0 || concurrency > 1024 {
            return Err(format!(
                "concurrency must be in 1..=1024, got {concurrency}"
            ));
        }
        let seed = overrides.seed.or(self.seed).unwrap_or_else(|| {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            crate::seed::mix(nanos ^ u64::from(std::process::id()))
        });
        let output = overrides
            .output
            .clone()
            .or_else(|| self.output.clone())
            .unwrap_or_else(|| PathBuf::from("results").join(name));
        let handshake_timeout_ms = self.handshake_timeout_ms.unwrap_or(10_000);
        if handshake_timeout_ms == 0 || handshake_timeout_ms > MAX_MS {
            return Err(format!(
                "handshake_timeout_ms must be between 1 ms and a week, got {handshake_timeout_ms}"
            ));
        }
        let withdraw_after = self.withdraw_after.unwrap_or(3);
        if withdraw_after == 0 {
            return Err("withdraw_after must be at least 1".into());
        }
        Ok(Settings {
            confidence,
            concurrency,
            seed,
            output,
            handshake_timeout_ms,
            withdraw_after,
        })
    }

    /// Pairs per board and round, bounded before anything is allocated for them.
    fn check_game_count(&self, engines: usize) -> Result<(), String> {
        let n = engines as u64;
        let games = match self.format {
            Format::RoundRobin => n * (n - 1) * u64::from(self.rounds) * self.boards.len() as u64,
            Format::Gauntlet => 2 * (n - 1) * u64::from(self.rounds) * self.boards.len() as u64,
            Format::Swiss | Format::Knockout => crate::formats::settings::max_games(self, engines),
            Format::Ladder => {
                let rungs = self.ladder.as_ref().map_or(0, Vec::len) as u64;
                let teams = n.saturating_sub(rungs);
                2 * (rungs * teams * u64::from(self.rounds) + rungs * rungs.saturating_sub(1) / 2)
                    * self.boards.len() as u64
            }
        };
        if games > MAX_GAMES {
            return Err(format!(
                "this config schedules up to {games} games, more than {MAX_GAMES}: fewer rounds, boards or engines"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "
name: t
seed: 5
time_control: { movetime_ms: 50 }
boards:
  - { game: awale, pits: 6 }
engines:
  - { name: a, command: sh }
  - { name: b, command: sh, options: { Depth: 3, Mode: fast, Flag: true } }
";

    #[test]
    fn unknown_keys_name_line_and_column() {
        let text = GOOD.replace("pits: 6", "pitz: 6");
        let err = parse(&text, "x.yaml").unwrap_err().to_string();
        assert!(err.starts_with("x.yaml: line 6 column 20:"), "{err}");
        assert!(err.contains("unknown field `pitz`"), "{err}");
        let err = parse(&GOOD.replace("seed: 5", "sede: 5"), "x.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 3 column 1: unknown field `sede`"),
            "{err}"
        );
    }

    #[test]
    fn plan_validates_and_fills_defaults() {
        let plan = parse(GOOD, "t.yaml")
            .unwrap()
            .plan(Path::new("t.yaml"), Path::new("/"), &Overrides::default())
            .unwrap();
        assert_eq!(plan.seed, 5);
        assert_eq!(plan.output, Path::new("/results/t"));
        assert_eq!(plan.engines[1].spec.options["Depth"].to_string(), "3");
        assert_eq!(plan.engines[1].spec.options["Flag"].to_string(), "true");
        assert_eq!(plan.engines[0].time_control.limit, Limit::MoveTime(50));
    }

    #[test]
    fn bad_plans_are_refused_with_the_reason() {
        let cases = [
            (GOOD.replace("name: b,", "name: a,"), "used twice"),
            (
                GOOD.replace("command: sh }", "command: ./no/such/engine }"),
                "does not exist",
            ),
            (
                GOOD.replace("command: sh }", "command: sh my/awale.js }"),
                "write `command: sh` and `args: [my/awale.js]`",
            ),
            (
                GOOD.replace("movetime_ms: 50", "movetime_ms: 0"),
                "must be positive",
            ),
            (
                GOOD.replace("movetime_ms: 50", "movetime_ms: 50, depth: 3"),
                "only one of",
            ),
            (
                GOOD.replace("pits: 6", "pits: 1"),
                "boards[0] (awale-1): awale pits must be in 2..=30",
            ),
            (
                GOOD.replace("seed: 5", "seed: 5\nconcurrency: 0"),
                "concurrency must be in 1..=1024",
            ),
            (
                GOOD.replace("seed: 5", "seed: 5\nrounds: 0"),
                "rounds must be in 1..=100000, got 0",
            ),
        ];
        for (text, message) in cases {
            let err = parse(&text, "t.yaml")
                .and_then(|c| c.plan(Path::new("t.yaml"), Path::new("/"), &Overrides::default()))
                .unwrap_err()
                .to_string();
            assert!(err.contains(message), "{err} lacks {message}");
        }
        // 200 engines, 300 rounds: 2 x 19900 x 300 = 11.9 M games, refused before building.
        let many: String = (0..200)
            .map(|i| format!("  - {{ name: e{i}, command: sh }}\n"))
            .collect();
        let text = GOOD.replace("seed: 5", "seed: 5\nrounds: 300").replace(
            "  - { name: a, command: sh }\n  - { name: b, command: sh, options: { Depth: 3, Mode: fast, Flag: true } }\n",
            &many,
        );
        let err = parse(&text, "t.yaml")
            .and_then(|c| c.plan(Path::new("t.yaml"), Path::new("/"), &Overrides::default()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("up to 11940000 games, more than 10000000"),
            "{err}"
        );
        let negative = parse(
            &GOOD.replace("movetime_ms: 50", "movetime_ms: -5"),
            "t.yaml",
        )
        .unwrap_err();
        assert!(negative.to_string().contains("line 4"), "{negative}");
    }
}
