//! A tournament run, from a validated [`Plan`] to result files: the one place where the steps
//! are put together, shared by `arena run` and `arena check`.
//!
//! Steps: handshake every engine (preflight) → fix the games each engine plays → compare with
//! what the output directory holds ([`resume`]) → build the schedule → keep the rows that
//! belong to it → play the rest on the worker pool → write games.csv, ratings and the summary.
//! Prints progress and the summary (stderr and stdout); knows no game's rules.
//!
//! A run may play one shard of the schedule ([`shard`], `--shard K/N`); [`merge`] joins shards
//! and writes the result files through [`outputs`], as a run does; [`slurm`] writes and submits
//! the job array that plays the shards on a cluster.

pub mod merge;
pub mod moves_resume;
pub mod outputs;
pub mod resume;
pub mod shard;
pub mod slurm;
mod sprt_run;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::config::{self, Format, OnEngineFailure, Plan};
use crate::engine::{self, Engine, Identity, Launch};
use crate::games::GameKind;
use crate::protocol;
use crate::report::{files, progress::Progress, summary};
use crate::runner::{self, Event, Tournament};
use crate::schedule::{self, Entrants, Schedule};

use resume::{Compatibility, Plays, Previous};

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

fn hub(plan: &Plan) -> Option<usize> {
    match plan.config.format {
        Format::Gauntlet => plan
            .config
            .gauntlet_engine
            .as_ref()
            .and_then(|g| plan.engines.iter().position(|e| &e.spec.name == g)),
        Format::RoundRobin => None,
    }
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
    let schedule = schedule::build(
        &Entrants {
            boards: &plan.config.boards,
            board_names: &plan.board_names,
            engine_names: &names,
            plays: &plays_list,
        },
        plan.config.rounds,
        plan.seed,
        hub(plan),
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
            };
            let launch = Launch {
                program: engine.program.clone(),
                args: engine.spec.args.clone(),
                stderr_log: None,
                limits: engine.spec.limits.unwrap_or_default(),
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
}

/// What an output directory's earlier results are, after `--force` or not.
fn previous_state(plan: &Plan, force: bool) -> Result<Previous, Stop> {
    let out = &plan.output;
    if force {
        for name in [
            files::GAMES,
            files::RATINGS,
            files::PAIRS,
            files::PGN,
            resume::DROPPED,
            resume::PLAYS,
            resume::RESOLVED,
            "config.hash",
            shard::FILE,
            crate::report::sprt::FILE,
            crate::play::moves_file::MOVES,
            moves_resume::DROPPED,
            crate::report::engines::FILE,
        ] {
            let _ = fs::remove_file(out.join(name));
        }
        // Old stderr logs and transcripts would mix with the new run's.
        let _ = fs::remove_dir_all(out.join("logs"));
        return Ok(Previous::default());
    }
    Ok(Previous::read(out))
}

/// Renames `<old>.log` transcripts to `<new>.log` after rows were renumbered (through
/// temporary names, since ids may swap); a missing transcript is no error.
fn move_transcripts(dir: &Path, renumbered: &[(u64, u64)]) {
    for (old, new) in renumbered {
        let _ = fs::rename(
            dir.join(format!("{old}.log")),
            dir.join(format!("{new}.log.moving")),
        );
    }
    for (_, new) in renumbered {
        let _ = fs::rename(
            dir.join(format!("{new}.log.moving")),
            dir.join(format!("{new}.log")),
        );
    }
}

/// Board names of a resolved config (as the plan names them).
fn board_names_of(config: &config::Config) -> Vec<String> {
    config.boards.iter().map(|b| b.name()).collect()
}

/// Installs SIGINT/SIGTERM handling: the first sets `cancel`, a second exits at once with 130.
fn install_signals(cancel: &Arc<AtomicBool>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    for signal in [SIGINT, SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(
            signal,
            i32::from(INTERRUPTED),
            Arc::clone(cancel),
        );
        let _ = signal_hook::flag::register(signal, Arc::clone(cancel));
    }
}

fn io_stop(out: &Path, what: &str, e: std::io::Error) -> Stop {
    Stop::new(FAILED, format!("{}: cannot {what}: {e}", out.display()))
}

/// Plays the tournament of `plan` into its output directory and writes every result file;
/// returns the exit code.
///
/// # Errors
/// [`Stop`] for a config change the output directory cannot take, failed handshakes (without
/// `on_engine_failure: forfeit`), unwritable files.
pub fn run(mut plan: Plan, options: &RunOptions) -> Result<u8, Stop> {
    if let (Some(s), Some(_)) = (options.shard, &plan.config.sprt) {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: `sprt` cannot be split into shards (--shard {s}): the test stops the whole run early, which shards on separate machines cannot do; run it without --shard",
                plan.file.display()
            ),
        ));
    }
    let previous = previous_state(&plan, options.force)?;
    if previous.has_games {
        let recorded = shard::recorded(&plan.output).map_err(|e| Stop::new(BAD_CONFIG, e))?;
        if let Some(why) = shard::resume_conflict(&plan.output, recorded, options.shard) {
            return Err(Stop::new(BAD_CONFIG, why));
        }
    }
    let mut notes = Vec::new();
    if !options.seed_given {
        if let Some(seed) = previous.config.as_ref().and_then(|c| c.seed) {
            plan.seed = seed;
            plan.config.seed = Some(seed);
            notes.push(format!(
                "the config sets no seed: resuming with seed {seed}, recorded in {}",
                plan.output.join(resume::RESOLVED).display()
            ));
        }
    }
    let out = plan.output.clone();
    let log_dir = out.join("logs");
    fs::create_dir_all(log_dir.join("games"))
        .map_err(|e| io_stop(&out, "create the directory", e))?;
    let mut prepared = prepare(&plan, Some(&log_dir), previous.plays.as_ref())?;
    if let Some(s) = options.shard {
        prepared.schedule.fixtures = shard::select(&prepared.schedule.fixtures, s);
    }
    let names = engine_names(&plan);

    // Is the directory's content this tournament's?
    if previous.has_games {
        match &previous.config {
            Some(old) => {
                let old_plays = previous.plays.clone().unwrap_or_default();
                match resume::compare(
                    old,
                    &board_names_of(old),
                    &old_plays,
                    &plan.config,
                    &plan.board_names,
                    &prepared.plays,
                ) {
                    Compatibility::Same => {}
                    Compatibility::Extension(added) => notes.push(format!(
                        "extending the tournament in {}: {}; only the new games are played",
                        out.display(),
                        added.join(", ")
                    )),
                    Compatibility::Conflict(keys) => {
                        return Err(Stop::new(
                            BAD_CONFIG,
                            format!(
                                "{} holds games of a different config (differs in: {}); start fresh with --force (deletes them) or choose another --output",
                                out.display(),
                                keys.join("; ")
                            ),
                        ));
                    }
                }
            }
            None => {
                let why = previous.config_error.clone().unwrap_or_else(|| {
                    format!("it has no {} of the run that wrote it", resume::RESOLVED)
                });
                return Err(Stop::new(
                    BAD_CONFIG,
                    format!(
                        "{} holds a games.csv that cannot be resumed: {why}; start fresh with --force or choose another --output",
                        out.display(),
                    ),
                ));
            }
        }
    }

    // Engines that cannot start: stop here, or forfeit their games.
    let failed: Vec<usize> = (0..plan.engines.len())
        .filter(|&e| prepared.identities[e].is_err())
        .collect();
    let mut withdrawn = vec![None; plan.engines.len()];
    if !failed.is_empty() {
        let text = describe_failures(&plan, &prepared.identities);
        match plan.config.on_engine_failure {
            OnEngineFailure::Stop => {
                return Err(Stop::new(
                    FAILED,
                    format!(
                        "{} engine(s) failed the handshake; no game was played (set `on_engine_failure: forfeit` to forfeit their games and play the rest):\n{}",
                        failed.len(),
                        text.trim_end()
                    ),
                ));
            }
            OnEngineFailure::Forfeit => {
                for &e in &failed {
                    let reason = prepared.identities[e]
                        .as_ref()
                        .err()
                        .map_or_else(String::new, |f| f.reason.clone());
                    withdrawn[e] = Some(format!("its handshake failed before the run: {reason}"));
                }
                notes.push(format!(
                    "forfeiting every game of {} engine(s) that failed the handshake:\n{}",
                    failed.len(),
                    text.trim_end()
                ));
            }
        }
    }

    // Keep the rows that belong to this schedule.
    let games_path = out.join(files::GAMES);
    let mut records = Vec::new();
    if previous.has_games {
        let (rows, cut) =
            files::read_games(&games_path).map_err(|e| Stop::new(FAILED, e.to_string()))?;
        if let Some(cut) = cut {
            notes.push(format!("{}: {cut}", games_path.display()));
        }
        let retry = plan.config.on_engine_failure == OnEngineFailure::Stop;
        let sorted = resume::sort_rows(rows, &prepared.schedule, &plan.board_names, &names, retry);
        move_transcripts(&log_dir.join("games"), &sorted.renumbered);
        // moves.csv follows games.csv: kept games' rows renumbered, the rest set aside
        // (moves_resume.rs); a moves.csv not in arena's columns stops the run.
        let old_ids: std::collections::BTreeMap<u64, u64> = sorted
            .renumbered
            .iter()
            .map(|&(old, new)| (new, old))
            .collect();
        // In id order, as games.csv is rewritten below.
        let mut kept: Vec<(u64, &crate::record::GameRecord)> = sorted
            .kept
            .iter()
            .map(|r| (old_ids.get(&r.game_id).copied().unwrap_or(r.game_id), r))
            .collect();
        kept.sort_by_key(|(_, r)| r.game_id);
        let moved = moves_resume::rewrite(&out, &kept, None).map_err(|e| Stop::new(FAILED, e))?;
        if moved.dropped > 0 {
            notes.push(format!(
                "set aside {} row(s) of moves.csv of games not kept, in {}",
                moved.dropped,
                out.join(moves_resume::DROPPED).display()
            ));
        }
        if !sorted.dropped.is_empty() {
            let path = out.join(resume::DROPPED);
            let mut writer =
                files::GamesWriter::append(&path).map_err(|e| Stop::new(FAILED, e.to_string()))?;
            let mut reasons = BTreeSet::new();
            for (row, why) in &sorted.dropped {
                writer
                    .write(row)
                    .map_err(|e| Stop::new(FAILED, e.to_string()))?;
                reasons.insert(why.clone());
            }
            notes.push(format!(
                "set aside {} row(s) of games.csv that this schedule does not have ({}), in {}",
                sorted.dropped.len(),
                reasons.into_iter().collect::<Vec<_>>().join("; "),
                path.display()
            ));
        }
        if sorted.retried > 0 {
            notes.push(format!(
                "playing again {} game(s) forfeited by withdrawn engines",
                sorted.retried
            ));
        }
        records = sorted.kept;
        files::rewrite_games(&games_path, &records)
            .map_err(|e| Stop::new(FAILED, e.to_string()))?;
    }
    let hash = config_hash(&plan, &prepared.plays, options.shard);
    let write = |name: &str, text: String| {
        fs::write(out.join(name), text).map_err(|e| io_stop(&out, &format!("write {name}"), e))
    };
    write("config.hash", format!("{hash}\n"))?;
    write(
        resume::RESOLVED,
        serde_yaml::to_string(&plan.config).unwrap_or_default(),
    )?;
    let known: Plays = prepared
        .plays
        .iter()
        .filter(|(name, _)| !prepared.assumed.contains(*name))
        .map(|(name, games)| (name.clone(), games.clone()))
        .collect();
    write(
        resume::PLAYS,
        serde_yaml::to_string(&known).unwrap_or_default(),
    )?;
    shard::record(&out, options.shard).map_err(|e| io_stop(&out, "write shard.yaml", e))?;

    // SPRT: the games so far give the LLR; a decided test starts no new game.
    let mut sprt = match sprt_run::start(&plan, &out, &records) {
        Ok(s) => s,
        Err(e) => return Err(Stop::new(FAILED, e)),
    };
    let done: BTreeSet<u64> = records.iter().map(|r| r.game_id).collect();
    let todo: Vec<_> = prepared
        .schedule
        .fixtures
        .iter()
        .filter(|f| !done.contains(&f.id))
        .filter(|_| !sprt.as_ref().is_some_and(sprt_run::SprtRun::stopped))
        .cloned()
        .collect();
    let total = prepared.schedule.fixtures.len() as u64;
    // Before the bar exists, and whatever --quiet says: they are about the results.
    for w in &prepared.warnings {
        eprintln!("warning: {w}");
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    if !done.is_empty() {
        eprintln!(
            "resuming: {} of {total} games already in {}",
            done.len(),
            out.display()
        );
    }

    let mut progress = Progress::new(total, total - todo.len() as u64, options.quiet);
    let cancel = Arc::new(AtomicBool::new(false));
    install_signals(&cancel);
    let no_new_games = AtomicBool::new(false);
    if let Some(s) = &sprt {
        if s.stopped() {
            progress.println("note: the SPRT was decided by the games already played: no new game");
        }
        progress.set_extra(s.short());
    }
    let mut writer =
        files::GamesWriter::append(&games_path).map_err(|e| Stop::new(FAILED, e.to_string()))?;
    let mut write_error = None;
    let mut withdrawals = Vec::new();
    let moves_path = out.join(crate::play::moves_file::MOVES);
    let mut moves_writer = if plan.config.record_moves {
        Some(
            crate::play::moves_file::MovesWriter::append(&moves_path)
                .map_err(|e| Stop::new(FAILED, e))?,
        )
    } else {
        None
    };
    // Plies reported ahead of their game's record, by game id.
    let mut pending_plies: std::collections::HashMap<u64, Vec<crate::referee::PlyInfo>> =
        std::collections::HashMap::new();
    let tournament = Tournament {
        boards: &plan.config.boards,
        board_names: &plan.board_names,
        engines: &plan.engines,
        schedule: &prepared.schedule,
        handshake_timeout_ms: plan.handshake_timeout_ms,
        log_dir: log_dir.clone(),
        log_protocol: options.log_protocol,
        restart_per_game: plan.config.restart == config::Restart::PerGame,
        withdraw_after: plan.withdraw_after,
        withdrawn,
        record_moves: plan.config.record_moves,
        adjudication: plan.config.adjudication.as_ref(),
    };
    let wall = Instant::now();
    let played_before = records.len();
    let completed = runner::run_until(
        &tournament,
        todo,
        plan.concurrency,
        &cancel,
        &no_new_games,
        |event| match event {
            Event::Finished(record) => {
                if let Some(s) = &mut sprt {
                    // The decision is printed once, in the summary.
                    match s.add(&record) {
                        Ok(true) => no_new_games.store(true, Ordering::SeqCst),
                        Ok(false) => {}
                        Err(e) => {
                            if write_error.is_none() {
                                write_error = Some(e);
                            }
                            cancel.store(true, Ordering::SeqCst);
                        }
                    }
                    progress.set_extra(s.short());
                }
                // A game's moves first: a games.csv row always has its moves.csv rows.
                if let (Some(plies), Some(w)) =
                    (pending_plies.remove(&record.game_id), &mut moves_writer)
                {
                    if write_error.is_none() {
                        if let Err(e) = write_plies(w, &record, &plies) {
                            write_error = Some(e);
                            cancel.store(true, Ordering::SeqCst);
                        }
                    }
                }
                if write_error.is_none() {
                    if let Err(e) = writer.write(&record) {
                        write_error = Some(e.to_string());
                        // Nothing more can be kept: stop starting games.
                        cancel.store(true, Ordering::SeqCst);
                    }
                }
                progress.game(&record);
                records.push(*record);
            }
            Event::Moves(id, plies) => {
                pending_plies.insert(id, plies);
            }
            Event::Note(note) => progress.println(&format!("note: {note}")),
            Event::Withdrawn(e, reason) => {
                let name = &plan.engines[e].spec.name;
                progress.println(&format!(
                "WITHDRAWN: engine {name} {reason}; its remaining games are forfeited (stderr logs: {})",
                log_dir.join(format!("{name}.w*.stderr.log")).display()
            ));
                withdrawals.push(name.clone());
            }
        },
    );
    progress.finish();
    drop(writer);
    drop(moves_writer);
    let mut move_totals = crate::report::engines::MoveTotals::default();
    if write_error.is_none() {
        files::rewrite_games(&games_path, &records)
            .map_err(|e| Stop::new(FAILED, e.to_string()))?;
        // moves.csv in games.csv's order too; its depth and nodes/s for engines.csv.
        let mut sorted: Vec<&crate::record::GameRecord> = records.iter().collect();
        sorted.sort_by_key(|r| r.game_id);
        let kept: Vec<(u64, &crate::record::GameRecord)> =
            sorted.into_iter().map(|r| (r.game_id, r)).collect();
        moves_resume::rewrite(&out, &kept, Some(&mut move_totals))
            .map_err(|e| Stop::new(FAILED, e))?;
    }
    let new_games = records.len() - played_before;
    let new_plies: u64 = records[played_before..]
        .iter()
        .map(|r| u64::from(r.plies))
        .sum();
    let (table, visual) = outputs::write(&out, &outputs::Context::of_plan(&plan), &mut records)?;
    let engine_rows = crate::report::engines::compute(&records, &names, &move_totals);
    crate::report::engines::write(&out, &engine_rows).map_err(|e| Stop::new(FAILED, e))?;
    let interrupted = !completed && write_error.is_none();
    if !options.quiet {
        if interrupted {
            println!(
                "INTERRUPTED: partial results, {} of {total} games ({} in this run); run the same command to resume",
                records.len(),
                records.len() - played_before
            );
        }
        print!("{}", summary::render(&table, &records, plan.confidence));
        if let Some(s) = &sprt {
            println!("{}", s.status());
        }
        print!("{}", crate::report::engines::render(&engine_rows));
        print!("{}", summary::failures(&records, &log_dir));
        println!(
            "{}",
            summary::runner_cost(new_games, new_plies, wall.elapsed(), summary::own_cpu())
        );
        println!("results in {}", out.display());
    }
    if let Some(e) = write_error {
        return Err(Stop::new(FAILED, format!("stopped: {e}")));
    }
    let visual = visual.map_err(|e| Stop::new(FAILED, e))?;
    for failure in &visual.failures {
        eprintln!("note: {failure}");
    }
    if interrupted {
        eprintln!(
            "interrupted after {} of {total} games; run the same command to resume",
            records.len()
        );
        return Ok(INTERRUPTED);
    }
    if !withdrawals.is_empty() && plan.config.on_engine_failure == OnEngineFailure::Stop {
        return Err(Stop::new(
            FAILED,
            format!(
                "engine(s) withdrawn during the run: {}; their games are forfeited (termination `withdrawn`) and are played again when the same command runs again; `on_engine_failure: forfeit` accepts the forfeits and exits 0",
                withdrawals.join(", ")
            ),
        ));
    }
    Ok(DONE)
}

/// Writes the plies of a finished game to moves.csv.
fn write_plies(
    writer: &mut crate::play::moves_file::MovesWriter,
    record: &crate::record::GameRecord,
    plies: &[crate::referee::PlyInfo],
) -> Result<(), String> {
    use crate::games::Side;
    let rows: Vec<crate::play::moves_file::MoveRow<'_>> = plies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let engine = match p.side {
                Side::First => record.first.as_str(),
                Side::Second => record.second.as_str(),
            };
            crate::play::moves_file::MoveRow {
                ply: i + 1,
                side: p.side,
                player: engine,
                text: &p.text,
                time_ms: p.time_ms,
                info: p.info.as_ref(),
            }
        })
        .collect();
    writer.write_game(record.game_id, &rows)
}
