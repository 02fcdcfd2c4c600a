//! A tournament run, from a validated [`Plan`] to result files: shared by `arena run` and
//! `arena check`.
//!
//! [`run()`] is the run itself, a pipeline of named steps (module `run`): lock the output
//! directory ([`lock`]) → what it holds ([`resume`]) → handshake every engine and build the
//! schedule ([`prepare`]) → keep the rows that belong to it → play the rest on the worker pool,
//! each game recorded as it ends → games.csv, ratings and the summary. Knows no game's rules.
//!
//! A run may play one shard of the schedule ([`shard`], `--shard K/N`); [`merge`] joins shards
//! and writes the result files through [`outputs`], as a run does; [`slurm`] writes and submits
//! the job array that plays the shards on a cluster.

pub mod lock;
pub mod merge;
pub mod moves_resume;
pub mod outputs;
mod recorder;
pub mod resume;
pub mod rounds;
mod run;
pub mod shard;
pub mod slurm;
mod sprt_run;

pub use run::run;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{self, Plan};
use crate::engine::{self, Engine, Identity, Launch};
use crate::games::GameKind;
use crate::protocol;
use crate::schedule::{self, Entrants, Schedule};

use resume::Plays;

/// Exit code: done.
pub const DONE: u8 = 0;
/// Exit code: a run that could not complete (an output file could not be written, an engine
/// failed its handshake or was withdrawn without `on_engine_failure: forfeit`).
pub const FAILED: u8 = 1;
/// Exit code: bad usage or config.
pub const BAD_CONFIG: u8 = 2;
/// Exit code: interrupted by SIGINT or SIGTERM.
pub const INTERRUPTED: u8 = 130;

/// An error that ends a command: its exit code and message.
#[derive(Debug)]
pub struct Stop {
    /// Exit code.
    pub code: u8,
    /// One or more lines for the user.
    pub message: String,
}

impl Stop {
    /// A stop with `code` and `message`.
    pub fn new(code: u8, message: impl Into<String>) -> Stop {
        Stop {
            code,
            message: message.into(),
        }
    }
}

/// Why an engine failed its preflight handshake.
#[derive(Clone, Debug)]
pub struct PreflightFailure {
    /// What went wrong.
    pub reason: String,
    /// Its last stderr lines (at most 5), and where the log is.
    pub stderr: Vec<String>,
    /// The stderr log, when there is one.
    pub log: Option<PathBuf>,
}

/// Starts each engine once and performs the handshake, logging stderr to
/// `log_dir/<name>.preflight.stderr.log` (truncated first) when given.
pub fn preflight(plan: &Plan, log_dir: Option<&Path>) -> Vec<Result<Identity, PreflightFailure>> {
    let timeout = Duration::from_millis(plan.handshake_timeout_ms);
    plan.engines
        .iter()
        .map(|e| {
            let log = log_dir.map(|d| d.join(format!("{}.preflight.stderr.log", e.spec.name)));
            if let Some(log) = &log {
                let _ = fs::write(log, "");
            }
            let launch = Launch {
                program: e.program.clone(),
                args: e.spec.args.clone(),
                stderr_log: log.clone(),
                limits: e.spec.limits.unwrap_or_default(),
                sandbox: crate::sandbox::of(&e.spec),
            };
            let failure = |reason: String| {
                // Give a dying engine's stderr a moment to reach the file.
                std::thread::sleep(Duration::from_millis(20));
                PreflightFailure {
                    reason,
                    stderr: log
                        .as_deref()
                        .and_then(|l| engine::tail_lines(l, 5))
                        .unwrap_or_default(),
                    log: log.clone(),
                }
            };
            let mut engine = Engine::spawn(&launch).map_err(|err| failure(err.to_string()))?;
            let identity = engine
                .handshake(timeout)
                .map_err(|err| format!("handshake failed: {err}"));
            engine.quit();
            identity.map_err(failure)
        })
        .collect()
}

/// Whether this process's effective user is root (from `/proc/self/status`).
fn running_as_root() -> bool {
    fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

/// Everything decided before the first game.
pub struct Prepared {
    /// Per engine, its handshake.
    pub identities: Vec<Result<Identity, PreflightFailure>>,
    /// The games each engine plays, by engine name.
    pub plays: Plays,
    /// Engines whose games are only assumed (no handshake, no `games:`, nothing recorded):
    /// not recorded in `plays.yaml`, so a later run takes what they declare.
    pub assumed: BTreeSet<String>,
    /// The schedule.
    pub schedule: Schedule,
    /// Warnings for the user.
    pub warnings: Vec<String>,
}

/// The games each engine plays: the config's `games`, checked against what the engine declares
/// through `UGI_Variant`; without either, every game (with a warning). An engine whose
/// handshake failed keeps what an earlier run of the same output recorded, if any.
fn games_played(
    plan: &Plan,
    identities: &[Result<Identity, PreflightFailure>],
    recorded: Option<&Plays>,
    warnings: &mut Vec<String>,
    assumed: &mut BTreeSet<String>,
) -> Result<Plays, Stop> {
    let mut plays = Plays::new();
    for (e, identity) in plan.engines.iter().zip(identities) {
        let name = &e.spec.name;
        let declared: Option<Vec<GameKind>> = identity.as_ref().ok().and_then(|id| {
            id.option(protocol::VARIANT_OPTION)
                .map(|o| o.vars.iter().filter_map(|v| v.parse().ok()).collect())
        });
        let remembered = recorded.and_then(|r| r.get(name));
        let games = match (&e.spec.games, declared) {
            (Some(wanted), Some(declared)) => {
                if let Some(missing) = wanted.iter().find(|g| !declared.contains(g)) {
                    let names: Vec<&str> = declared.iter().map(|g| g.name()).collect();
                    return Err(Stop::new(
                        BAD_CONFIG,
                        format!(
                            "{}: engine {name}: does not play {missing} (it declares {})",
                            plan.file.display(),
                            if names.is_empty() {
                                "no game".into()
                            } else {
                                names.join(", ")
                            }
                        ),
                    ));
                }
                wanted.clone()
            }
            (Some(wanted), None) => wanted.clone(),
            (None, Some(declared)) => declared,
            (None, None) if identity.is_err() && remembered.is_some() => {
                remembered.cloned().unwrap_or_default()
            }
            (None, None) if identity.is_err() => {
                assumed.insert(name.clone());
                GameKind::ALL.to_vec()
            }
            (None, None) => {
                if identity.is_ok() {
                    warnings.push(format!(
                        "engine {name} declares no {}; assuming it plays every game",
                        protocol::VARIANT_OPTION
                    ));
                }
                GameKind::ALL.to_vec()
            }
        };
        plays.insert(name.clone(), games);
    }
    Ok(plays)
}

/// Options in the config that the engine did not declare: warnings, or an error with
/// `strict_options`.
fn check_options(
    plan: &Plan,
    identities: &[Result<Identity, PreflightFailure>],
    warnings: &mut Vec<String>,
) -> Result<(), Stop> {
    let mut unknown = Vec::new();
    for (e, identity) in plan.engines.iter().zip(identities) {
        let Ok(identity) = identity else { continue };
        for option in e.spec.options.keys() {
            if identity.option(option).is_none() {
                let declared: Vec<&str> =
                    identity.options.iter().map(|o| o.name.as_str()).collect();
                unknown.push(format!(
                    "engine {}: option `{option}` is not declared by the engine (it declares: {})",
                    e.spec.name,
                    if declared.is_empty() {
                        "no option".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ));
            }
        }
    }
    if plan.config.strict_options && !unknown.is_empty() {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: {} (strict_options: true)",
                plan.file.display(),
                unknown.join("; ")
            ),
        ));
    }
    warnings.extend(unknown.into_iter().map(|u| format!("{u}; sent anyway")));
    Ok(())
}

/// Which pairs meet in `plan`'s schedule (not a Swiss or knockout, which pair round by round).
pub(crate) fn pairing(plan: &Plan) -> Result<schedule::Pairing, String> {
    schedule::Pairing::of(&plan.config, &engine_names(plan))
}

/// The engine names in config order.
pub fn engine_names(plan: &Plan) -> Vec<String> {
    plan.engines.iter().map(|e| e.spec.name.clone()).collect()
}

/// Preflight, plays, option check and schedule. `recorded` is what an earlier run of the same
/// output directory fixed; `log_dir` receives the preflight stderr logs.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] for a board fewer than two engines play, an engine asked to
/// play a game it does not declare, undeclared options under `strict_options`.
pub fn prepare(
    plan: &Plan,
    log_dir: Option<&Path>,
    recorded: Option<&Plays>,
) -> Result<Prepared, Stop> {
    let identities = preflight(plan, log_dir);
    let mut warnings = Vec::new();
    let mut assumed = BTreeSet::new();
    let plays = games_played(plan, &identities, recorded, &mut warnings, &mut assumed)?;
    check_options(plan, &identities, &mut warnings)?;
    if running_as_root()
        && plan
            .engines
            .iter()
            .any(|e| e.spec.limits.is_some_and(|l| l.user_processes.is_some()))
    {
        warnings.push(
            "limits.user_processes is not enforced: arena runs as root, and RLIMIT_NPROC does not apply to root (run the engines as another user)".into(),
        );
    }
    let names = engine_names(plan);
    let plays_list: Vec<Vec<GameKind>> = names.iter().map(|n| plays[n].clone()).collect();
    let kinds: BTreeSet<GameKind> = plan.config.boards.iter().map(|b| b.kind()).collect();
    for (name, games) in &plays {
        if !games.iter().any(|g| kinds.contains(g)) {
            warnings.push(format!(
                "engine {name} plays none of the boards (it plays {}); it gets no game",
                games
                    .iter()
                    .map(|g| g.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    for (board, name) in plan.config.boards.iter().zip(&plan.board_names) {
        let entrants = plays_list
            .iter()
            .filter(|p| p.contains(&board.kind()))
            .count();
        if entrants < 2 {
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{}: board {name}: fewer than two engines play {}",
                    plan.file.display(),
                    board.kind()
                ),
            ));
        }
    }
    if let Some(driver) = rounds::Driver::of(plan) {
        let schedule = driver.first_schedule(plan, &plays)?;
        return Ok(Prepared {
            identities,
            plays,
            assumed,
            schedule,
            warnings,
        });
    }
    let schedule = schedule::build(
        &Entrants {
            boards: &plan.config.boards,
            board_names: &plan.board_names,
            engine_names: &names,
            plays: &plays_list,
        },
        plan.config.rounds,
        plan.seed,
        &pairing(plan)
            .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", plan.file.display())))?,
    )
    .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", plan.file.display())))?;
    Ok(Prepared {
        identities,
        plays,
        assumed,
        schedule,
        warnings,
    })
}

/// What `arena check` found when it asked an engine for one move on a board.
#[derive(Clone, Debug)]
pub struct Probe {
    /// Engine name.
    pub engine: String,
    /// Board name.
    pub board: String,
    /// The move and the time it took, or why there was none.
    pub outcome: Result<(String, Duration), String>,
}

/// For each engine whose handshake worked and each game it plays, one `go` on the start
/// position of the first board of that game, as a real game starts (options, `UGI_Variant`,
/// `Seed`, `uginewgame`, `isready`, `position`, `go` with its time control); the answer is
/// checked by the rules. Catches engines that handshake but cannot read a position or never
/// answer `go`.
pub fn probe(plan: &Plan, prepared: &Prepared) -> Vec<Probe> {
    use crate::games::{BySide, Side};
    use crate::referee::{self, Seat, SideClock};
    let mut probes = Vec::new();
    let timeout = Duration::from_millis(plan.handshake_timeout_ms);
    for (e, (engine, identity)) in plan.engines.iter().zip(&prepared.identities).enumerate() {
        let Ok(identity) = identity else { continue };
        let games = &prepared.plays[&engine.spec.name];
        let mut seen = BTreeSet::new();
        for (b, board) in plan.config.boards.iter().enumerate() {
            let game = board.kind();
            if !games.contains(&game) || !seen.insert(game) {
                continue;
            }
            let Some(start) = prepared.schedule.starts[b].first() else {
                continue;
            };
            let fixture = schedule::Fixture {
                id: 0,
                board: b,
                round: 1,
                pair: 0,
                leg: 0,
                players: BySide::new(e, e),
                engine_seed: plan.seed >> 1,
            };
            let setup = referee::Setup {
                fixture: &fixture,
                board_name: &plan.board_names[b],
                game,
                start,
                max_plies: board.max_plies(),
                ready_timeout: timeout,
                record_moves: false,
                adjudication: None,
                live: None,
            };
            let launch = Launch {
                program: engine.program.clone(),
                args: engine.spec.args.clone(),
                stderr_log: None,
                limits: engine.spec.limits.unwrap_or_default(),
                sandbox: crate::sandbox::of(&engine.spec),
            };
            let outcome = (|| {
                let mut live = Engine::spawn(&launch).map_err(|e| e.to_string())?;
                live.handshake(timeout).map_err(|e| e.to_string())?;
                for (name, value) in &engine.spec.options {
                    live.send(&protocol::Command::SetOption {
                        name: name.clone(),
                        value: value.to_string(),
                    })
                    .map_err(|e| e.to_string())?;
                }
                let side = start.side_to_move();
                let mut seat = Seat {
                    engine: &mut live,
                    name: &engine.spec.name,
                    identity,
                    time_control: engine.time_control,
                };
                referee::prepare(&mut seat, side, &setup).map_err(|f| f.detail)?;
                let mut clocks = BySide::new(
                    SideClock::new(engine.time_control),
                    SideClock::new(engine.time_control),
                );
                let mut used = BySide::new(Duration::ZERO, Duration::ZERO);
                let line = protocol::Command::Position {
                    fen: start.fen(),
                    moves: Vec::new(),
                }
                .to_string();
                let mut pos = start.clone();
                let mv =
                    referee::engine_move(&mut seat, &mut clocks, &mut used, &line, &mut pos, 1)
                        .map_err(|f| f.detail)?;
                live.quit();
                let took = used[side] + used[Side::other(side)];
                Ok((mv, took))
            })();
            probes.push(Probe {
                engine: engine.spec.name.clone(),
                board: plan.board_names[b].clone(),
                outcome,
            });
        }
    }
    probes
}

/// The preflight failures in words, with each engine's last stderr lines.
pub fn describe_failures(plan: &Plan, identities: &[Result<Identity, PreflightFailure>]) -> String {
    let mut text = String::new();
    for (e, identity) in plan.engines.iter().zip(identities) {
        if let Err(f) = identity {
            text.push_str(&format!(
                "engine {} (`{}`): {}\n",
                e.spec.name,
                command_line(e),
                f.reason
            ));
            if f.stderr.is_empty() {
                text.push_str("  (nothing on stderr)\n");
            }
            for line in &f.stderr {
                text.push_str(&format!("  stderr | {line}\n"));
            }
            if let Some(log) = &f.log {
                text.push_str(&format!("  log: {}\n", log.display()));
            }
        }
    }
    text
}

/// The command line of an engine, as run.
pub fn command_line(e: &config::PlanEngine) -> String {
    std::iter::once(e.program.display().to_string())
        .chain(e.spec.args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// FNV-1a over the resolved config (without the keys that change no game), the plays and the
/// shard (`--shard K/N`), so two shards of one tournament have different hashes.
fn config_hash(plan: &Plan, plays: &Plays, shard: Option<shard::Shard>) -> String {
    let mut config = plan.config.clone();
    config.concurrency = None;
    config.output = None;
    let mut text = serde_yaml::to_string(&config).unwrap_or_default()
        + &serde_yaml::to_string(plays).unwrap_or_default();
    if let Some(s) = shard {
        text.push_str(&format!("shard: {s}\n"));
    }
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// Options of `arena run` beyond the plan.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Delete the output directory's results first.
    pub force: bool,
    /// No progress and no summary.
    pub quiet: bool,
    /// Write every game's transcript.
    pub log_protocol: bool,
    /// The seed was given (config or `--seed`); otherwise a resumed run takes the recorded one.
    pub seed_given: bool,
    /// Play only this shard's games (`--shard K/N`, see [`shard`]).
    pub shard: Option<shard::Shard>,
    /// Serve the live page on this address (`--serve`, see [`crate::live`]).
    pub serve: Option<String>,
}
