//! `arena check-engine`: a conformance battery run against one engine (or every engine of a
//! config) before a tournament: handshake, `isready`, time limits, `stop`, positions of every
//! board type of every game it declares (checked by arena's rules), robustness and
//! determinism. Each check gets a verdict and, when it fails, the protocol lines that show it.
//!
//! Owns the battery, its report (text, JSON, `check-engines.csv`) and the subcommand's body.
//! Talks to engines only through [`crate::engine::Engine`] and judges moves only through
//! [`crate::games`]; it must not use the runner, the referee or the tournament module.
//!
//! One concern a file: [`boards`] (the boards and positions sent), `battery` (the live engine
//! and how one check runs), `handshake`, `time` (time limits, `isready` and `stop` during a
//! search), `play` (positions, second game, determinism), `process` (stdout and exit),
//! `directions` (a course library under each `dir.h` convention), `report` (text, JSON, CSV)
//! and `command` (the subcommand's arguments).

mod battery;
mod boards;
mod command;
mod directions;
mod handshake;
mod play;
mod process;
mod report;
mod sandboxed;
mod time;

pub use boards::{Probe, boards, probes};
pub use command::command;
pub use report::{render, summary, write_csv};

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cli::CheckEngineArgs;
use crate::config;
use crate::engine::{self, Engine, EngineError, Identity, Launch, TranscriptLine};
use crate::games::{AnyPosition, BoardSpec, GameKind};
use crate::protocol::{self, BestMove, Command, Go, Reply};
use crate::seed;

/// Exit code: every engine passed (warnings allowed).
const DONE: u8 = 0;
/// Exit code: a check failed.
const FAILED: u8 = 1;
/// Exit code: bad usage or config.
const BAD_USAGE: u8 = 2;

/// Protocol lines shown under a failed check.
const EXCERPT_LINES: usize = 8;
/// Longest transcript line shown (characters); long `position` lines are cut in the middle.
const EXCERPT_WIDTH: usize = 160;
/// Handshake and `isready` limit without a config (ms), as a config's default.
const DEFAULT_HANDSHAKE_MS: u64 = 10_000;
/// Limit for `go depth 1` and `go nodes` (ms): generous, these only have to be answered.
const SEARCH_LIMIT: Duration = Duration::from_secs(5);
/// How long `stop` may take to bring a `bestmove` (before the margin), as the referee's grace.
const STOP_LIMIT: Duration = Duration::from_millis(200);
/// How long an engine gets to exit after `quit` or the end of its stdin.
const EXIT_LIMIT: Duration = Duration::from_millis(1000);
/// The long search interrupted by `stop` (ms).
const LONG_MOVETIME_MS: u64 = 10_000;
/// Time left on each clock in the low-time check (ms), and the increment (ms).
const LOW_CLOCK_MS: (u64, u64) = (300, 20);
/// Node budget of `go nodes` and of the determinism check.
const NODES: u64 = 1000;
/// Seed of the generated boards and of the random plies that make mid-game positions.
const POSITION_SEED: u64 = 15;
/// `Seed` value sent in the determinism check.
const ENGINE_SEED: u64 = 4242;

/// A check's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Conforms.
    Pass,
    /// Works, but something is off (e.g. stray stdout lines, a move in under 1% of movetime).
    Warn,
    /// Would lose or forfeit games in a tournament.
    Fail,
    /// Not run: nothing to exercise, or the engine stopped answering earlier.
    Skipped,
    /// Cannot apply to this kind of engine (a course library cannot see a clock or be
    /// stopped); the detail says why.
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Verdict {
    /// `pass`, `warn`, `fail`, `skipped` or `n/a`, as in the CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
            Verdict::Skipped => "skipped",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// One check of the battery.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Its name, e.g. `handshake`, `go movetime`, `positions amazons-donut-10`.
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence: what was measured or what went wrong.
    pub detail: String,
    /// For a failure, the last protocol lines of the check (`> ` sent, `< ` received, each
    /// with ms since the check began); empty otherwise.
    pub transcript: Vec<String>,
}

/// The battery's result for one engine.
#[derive(Clone, Debug, Serialize)]
pub struct EngineReport {
    /// The engine's name (config name, or the program's file name).
    pub engine: String,
    /// Every check, in the order run.
    pub checks: Vec<Check>,
    /// Wall time of the battery (s).
    pub seconds: f64,
}

impl EngineReport {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.verdict == Verdict::Fail)
    }

    fn count(&self, verdict: Verdict) -> usize {
        self.checks.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// The engine to check: how to start it and the options a config sets.
#[derive(Clone, Debug)]
pub struct Target {
    /// Name in messages and reports.
    pub name: String,
    /// How to start it.
    pub launch: Launch,
    /// `setoption` pairs sent after every handshake (from the config).
    pub options: Vec<(String, String)>,
    /// Games to check (the config's `games:`); `None`: every game it declares.
    pub games: Option<Vec<GameKind>>,
    /// Plays only whole games from their start, one side, each position extending the last by
    /// the opponent's move: a course player library behind the `player-so` adapter, which
    /// cannot be given an arbitrary position. Mid-game probes become games against random moves.
    pub from_start: bool,
    /// A fresh process for every game, as the tournament would give it (a library engine's
    /// default; its `restart` key decides).
    pub fresh_per_game: bool,
    /// The config's time control for this engine (`--config`): `go movetime` is checked under
    /// it (the engine will play under it; a library only ever does).
    pub time_control: Option<config::TimeControl>,
}

/// How the battery runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Fewer positions and shorter movetimes (about 5 s instead of 30 s).
    pub quick: bool,
    /// Slack added to every time limit (ms): movetime, low clock, `stop`.
    pub margin: Duration,
    /// Handshake and `isready` limit.
    pub handshake: Duration,
    /// Boards to play instead of the built-in ones (`--boards`); the games checked are then
    /// those of these boards.
    pub boards: Option<Vec<BoardSpec>>,
}

impl Settings {
    /// `movetime` of each position (ms).
    fn position_movetime(&self) -> u64 {
        if self.quick { 50 } else { 100 }
    }

    /// `movetime` of the `go movetime` check (ms).
    fn movetime(&self) -> u64 {
        if self.quick { 100 } else { 500 }
    }

    /// The boards of `game` that the battery plays: `--boards` when given, else [`boards`].
    fn boards(&self, game: GameKind) -> Vec<BoardSpec> {
        match &self.boards {
            Some(chosen) => chosen
                .iter()
                .filter(|b| b.kind() == game)
                .cloned()
                .collect(),
            None => boards(game),
        }
    }
}

/// Parses one `--boards` value: a board spec as in a config's `boards:` list (YAML), checked by
/// making its start position.
///
/// # Errors
/// The YAML or spec error, naming the value.
pub fn parse_board(text: &str) -> Result<BoardSpec, String> {
    let spec: BoardSpec =
        serde_yaml::from_str(text).map_err(|e| format!("--boards `{text}`: {e}"))?;
    spec.start_position(POSITION_SEED)
        .map_err(|e| format!("--boards `{text}`: {e}"))?;
    Ok(spec)
}

/// What a check function returns: its verdict and detail.
type Outcome = (Verdict, String);

/// A live battery against one engine.
struct Battery<'a> {
    target: &'a Target,
    settings: Settings,
    engine: Option<Engine>,
    identity: Identity,
    /// Declared games that arena knows (and the config allows), in [`GameKind::ALL`] order.
    games: Vec<GameKind>,
    checks: Vec<Check>,
    /// Lines the engine printed outside the handshake, for the stdout check.
    received: Vec<String>,
    /// The check after which the engine stopped answering.
    dead: Option<String>,
}

fn fail(detail: impl Into<String>) -> Outcome {
    (Verdict::Fail, detail.into())
}

fn pass(detail: impl Into<String>) -> Outcome {
    (Verdict::Pass, detail.into())
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

/// A message for a failed exchange: the error, and the exit status when the engine died.
fn describe(engine: &mut Engine, error: &EngineError) -> String {
    let text = match (error, engine.exited()) {
        (EngineError::Closed { .. }, _) => error.to_string(),
        (_, Some(status)) => format!("{error} (the engine exited: {status})"),
        _ => error.to_string(),
    };
    // What the engine said on its way out (a Python traceback, a loader error) is the cause.
    let said = engine.stderr_lines(3);
    if said.is_empty() {
        text
    } else {
        format!("{text}; last stderr: `{}`", said.join(" | "))
    }
}

/// Runs the whole battery against `target`.
pub fn check(target: &Target, settings: Settings) -> EngineReport {
    let started = Instant::now();
    // Stderr goes to a scratch log, so that failures can quote it; removed afterwards.
    let mut logged = target.clone();
    let scratch = logged.launch.stderr_log.is_none().then(|| {
        let safe: String = target
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        std::env::temp_dir().join(format!(
            "arena-check-engine-{}-{safe}.stderr.log",
            std::process::id()
        ))
    });
    if let Some(path) = &scratch {
        let _ = std::fs::remove_file(path);
        logged.launch.stderr_log = Some(path.clone());
    }
    let target = &logged;
    let mut battery = Battery {
        target,
        settings,
        engine: None,
        identity: Identity::default(),
        games: Vec::new(),
        checks: Vec::new(),
        received: Vec::new(),
        dead: None,
    };
    battery.all();
    drop(battery.engine.take());
    if let Some(path) = &scratch {
        let _ = std::fs::remove_file(path);
    }
    EngineReport {
        engine: target.name.clone(),
        checks: battery.checks,
        seconds: started.elapsed().as_secs_f64(),
    }
}
