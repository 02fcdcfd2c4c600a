//! What each subcommand does, from parsed arguments to an exit code. The only module that
//! prints to stdout.
//!
//! Exit codes: 0 done, 1 a run that could not complete, 2 bad usage or config, 130 interrupted.

use std::collections::BTreeSet;
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::cli::{CheckArgs, RatingsArgs, ReportArgs, RunArgs, ShowArgs};
use crate::config::{self, Format, Plan};
use crate::engine::{Engine, Identity, Launch};
use crate::games::{AnyPosition, BoardSpec, GameKind};
use crate::protocol;
use crate::record::GameRecord;
use crate::report::{self, files, progress::Progress, summary};
use crate::runner::{self, Event, Tournament};
use crate::schedule;
use crate::standings;

/// A run completed.
pub const DONE: u8 = 0;
/// A run could not complete (an output file could not be written, an engine failed `check`).
pub const FAILED: u8 = 1;
/// Bad usage or config.
pub const BAD_CONFIG: u8 = 2;
/// Interrupted by SIGINT or SIGTERM.
pub const INTERRUPTED: u8 = 130;

/// An error that ends a command, with its exit code.
struct Stop(u8, String);

fn finish(result: Result<u8, Stop>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(Stop(code, message)) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

fn current_dir() -> Result<PathBuf, Stop> {
    std::env::current_dir()
        .map_err(|e| Stop(FAILED, format!("cannot read the current directory: {e}")))
}

fn load_plan(path: &Path, overrides: &config::Overrides) -> Result<Plan, Stop> {
    let config = config::read(path).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
    config
        .plan(path, &current_dir()?, overrides)
        .map_err(|e| Stop(BAD_CONFIG, e.to_string()))
}

/// Starts each engine once and performs the handshake; `None` where it failed, with the reason.
fn preflight(plan: &Plan, log_dir: Option<&Path>) -> Vec<Result<Identity, String>> {
    let timeout = Duration::from_millis(plan.handshake_timeout_ms);
    plan.engines
        .iter()
        .map(|e| {
            let launch = Launch {
                program: e.program.clone(),
                args: e.spec.args.clone(),
                stderr_log: log_dir
                    .map(|d| d.join(format!("{}.preflight.stderr.log", e.spec.name))),
                limits: e.spec.limits.unwrap_or_default(),
            };
            let mut engine =
                Engine::spawn(&launch).map_err(|err| format!("{}: {err}", e.spec.name))?;
            let identity = engine
                .handshake(timeout)
                .map_err(|err| format!("{}: handshake failed: {err}", e.spec.name));
            engine.quit();
            identity
        })
        .collect()
}

/// The games each engine plays: the config's `games`, checked against what the engine declares
/// through `UGI_Variant`; without either, every game (with a warning).
fn games_played(
    plan: &Plan,
    identities: &[Result<Identity, String>],
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec<GameKind>>, Stop> {
    let mut plays = Vec::new();
    for (e, identity) in plan.engines.iter().zip(identities) {
        let declared: Option<Vec<GameKind>> = identity.as_ref().ok().and_then(|id| {
            id.option(protocol::VARIANT_OPTION)
                .map(|o| o.vars.iter().filter_map(|v| v.parse().ok()).collect())
        });
        let games = match (&e.spec.games, declared) {
            (Some(wanted), Some(declared)) => {
                if let Some(missing) = wanted.iter().find(|g| !declared.contains(g)) {
                    let names: Vec<&str> = declared.iter().map(|g| g.name()).collect();
                    return Err(Stop(
                        BAD_CONFIG,
                        format!(
                            "engine {}: does not play {missing} (it declares {})",
                            e.spec.name,
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
            (None, None) => {
                warnings.push(format!(
                    "engine {} declares no {}; assuming it plays every game",
                    e.spec.name,
                    protocol::VARIANT_OPTION
                ));
                GameKind::ALL.to_vec()
            }
        };
        plays.push(games);
    }
    Ok(plays)
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

fn build_schedule(plan: &Plan, plays: &[Vec<GameKind>]) -> Result<schedule::Schedule, Stop> {
    for (board, name) in plan.config.boards.iter().zip(&plan.board_names) {
        let entrants = plays.iter().filter(|p| p.contains(&board.kind())).count();
        if entrants < 2 {
            return Err(Stop(
                BAD_CONFIG,
                format!("board {name}: fewer than two engines play {}", board.kind()),
            ));
        }
    }
    schedule::build(
        &plan.config.boards,
        plays,
        plan.config.rounds,
        plan.seed,
        hub(plan),
    )
    .map_err(|e| Stop(BAD_CONFIG, e.to_string()))
}

/// FNV-1a over the resolved config with the keys that do not change any game removed, so a
/// resumed run can tell whether it is the same tournament.
fn config_hash(plan: &Plan) -> String {
    let mut config = plan.config.clone();
    config.concurrency = None;
    config.output = None;
    let text = serde_yaml::to_string(&config).unwrap_or_default();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// `arena check`.
pub fn check(args: &CheckArgs) -> ExitCode {
    finish((|| {
        let plan = load_plan(&args.config, &config::Overrides::default())?;
        let identities = preflight(&plan, None);
        let mut failed = false;
        for (e, identity) in plan.engines.iter().zip(&identities) {
            match identity {
                Ok(id) => println!(
                    "engine {}: {} ({}) by {}, {}",
                    e.spec.name,
                    e.program.display(),
                    id.name.as_deref().unwrap_or("no id name"),
                    id.author.as_deref().unwrap_or("no author"),
                    e.time_control
                ),
                Err(reason) => {
                    failed = true;
                    println!("engine {}: FAILED: {reason}", e.spec.name);
                }
            }
        }
        let mut warnings = Vec::new();
        let plays = games_played(&plan, &identities, &mut warnings)?;
        for w in &warnings {
            println!("warning: {w}");
        }
        let schedule = build_schedule(&plan, &plays)?;
        for (b, name) in plan.board_names.iter().enumerate() {
            let players: BTreeSet<&str> = schedule
                .fixtures
                .iter()
                .filter(|f| f.board == b)
                .flat_map(|f| [f.players.first, f.players.second])
                .map(|e| plan.engines[e].spec.name.as_str())
                .collect();
            let games = schedule.fixtures.iter().filter(|f| f.board == b).count();
            println!(
                "board {name}: {games} games; {}",
                players.into_iter().collect::<Vec<_>>().join(", ")
            );
        }
        println!(
            "{} games in all ({} rounds, seed {}, concurrency {}), output {}",
            schedule.fixtures.len(),
            plan.config.rounds,
            plan.seed,
            plan.concurrency,
            plan.output.display()
        );
        if failed {
            return Err(Stop(FAILED, "some engines failed the handshake".into()));
        }
        Ok(DONE)
    })())
}

/// Prepares the output directory; returns the records already there (resume).
fn prepare_output(plan: &Plan, force: bool, hash: &str) -> Result<Vec<GameRecord>, Stop> {
    let out = &plan.output;
    let fail = |what: &str, e: std::io::Error| {
        Stop(FAILED, format!("{}: cannot {what}: {e}", out.display()))
    };
    let games_path = out.join(files::GAMES);
    let hash_path = out.join("config.hash");
    let mut previous = Vec::new();
    if games_path.exists() {
        let old_hash = fs::read_to_string(&hash_path).unwrap_or_default();
        if force {
            for name in [files::GAMES, files::RATINGS, files::PAIRS, files::PGN] {
                let _ = fs::remove_file(out.join(name));
            }
        } else if old_hash.trim() != hash {
            return Err(Stop(
                BAD_CONFIG,
                format!(
                    "{} holds games of a different config; start fresh with --force (deletes them) or choose another --output",
                    out.display()
                ),
            ));
        } else {
            let (records, dropped) =
                files::read_games(&games_path).map_err(|e| Stop(FAILED, e.to_string()))?;
            if let Some(note) = dropped {
                eprintln!("note: {}: {note}", games_path.display());
            }
            // Drop duplicates and rows the schedule does not know, then rewrite cleanly.
            let mut seen = BTreeSet::new();
            previous = records
                .into_iter()
                .filter(|r| seen.insert(r.game_id))
                .collect();
            files::rewrite_games(&games_path, &previous)
                .map_err(|e| Stop(FAILED, e.to_string()))?;
        }
    }
    fs::create_dir_all(out.join("logs").join("games"))
        .map_err(|e| fail("create the directory", e))?;
    fs::write(&hash_path, format!("{hash}\n")).map_err(|e| fail("write config.hash", e))?;
    let resolved = serde_yaml::to_string(&plan.config).unwrap_or_default();
    fs::write(out.join("config.resolved.yaml"), resolved)
        .map_err(|e| fail("write config.resolved.yaml", e))?;
    Ok(previous)
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

/// `arena run`.
pub fn run(args: &RunArgs) -> ExitCode {
    finish((|| {
        let overrides = config::Overrides {
            seed: args.seed,
            concurrency: args.concurrency,
            output: args.output.clone(),
        };
        let plan = load_plan(&args.config, &overrides)?;
        let hash = config_hash(&plan);
        let previous = prepare_output(&plan, args.force, &hash)?;
        let log_dir = plan.output.join("logs");
        let identities = preflight(&plan, Some(&log_dir));
        let mut warnings = Vec::new();
        for reason in identities.iter().filter_map(|i| i.as_ref().err()) {
            warnings.push(format!(
                "{reason}; its games will be forfeited if it keeps failing"
            ));
        }
        let plays = games_played(&plan, &identities, &mut warnings)?;
        let schedule = build_schedule(&plan, &plays)?;
        let done: BTreeSet<u64> = previous.iter().map(|r| r.game_id).collect();
        let todo: Vec<_> = schedule
            .fixtures
            .iter()
            .filter(|f| !done.contains(&f.id))
            .cloned()
            .collect();
        let total = schedule.fixtures.len() as u64;
        let mut progress = Progress::new(total, total - todo.len() as u64, args.quiet);
        for w in &warnings {
            progress.println(&format!("warning: {w}"));
        }
        if !done.is_empty() {
            progress.println(&format!(
                "resuming: {} of {total} games already in {}",
                done.len(),
                plan.output.display()
            ));
        }
        let cancel = Arc::new(AtomicBool::new(false));
        install_signals(&cancel);
        let games_path = plan.output.join(files::GAMES);
        let mut writer =
            files::GamesWriter::append(&games_path).map_err(|e| Stop(FAILED, e.to_string()))?;
        let mut records = previous;
        let mut write_error = None;
        let tournament = Tournament {
            boards: &plan.config.boards,
            board_names: &plan.board_names,
            engines: &plan.engines,
            schedule: &schedule,
            handshake_timeout_ms: plan.handshake_timeout_ms,
            log_dir,
            log_protocol: args.log_protocol,
            restart_per_game: plan.config.restart == config::Restart::PerGame,
        };
        let wall = std::time::Instant::now();
        let played_before = records.len();
        let completed =
            runner::run(
                &tournament,
                todo,
                plan.concurrency,
                &cancel,
                |event| match event {
                    Event::Finished(record) => {
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
                    Event::Note(note) => progress.println(&format!("note: {note}")),
                },
            );
        progress.finish();
        drop(writer);
        if write_error.is_none() {
            files::rewrite_games(&games_path, &records).map_err(|e| Stop(FAILED, e.to_string()))?;
        }
        let engine_names: Vec<String> = plan.engines.iter().map(|e| e.spec.name.clone()).collect();
        let anchor = plan
            .config
            .anchor
            .as_ref()
            .map(|a| (a.engine.as_str(), a.elo));
        let table = standings::compute(&records, &engine_names, anchor, plan.confidence);
        files::write_ratings(&plan.output, &plan.name, &records, &table)
            .map_err(|e| Stop(FAILED, e.to_string()))?;
        // report.html and results.xlsx (issue 13), also after an interrupt.
        write_visual(
            &plan.output,
            &records,
            &table,
            plan.confidence,
            Default::default(),
        )?;
        if !args.quiet {
            print!("{}", summary::render(&table, &records, plan.confidence));
            let new = &records[played_before..];
            let plies: u64 = new.iter().map(|r| u64::from(r.plies)).sum();
            println!(
                "{}",
                summary::runner_cost(new.len(), plies, wall.elapsed(), summary::own_cpu())
            );
            println!("results in {}", plan.output.display());
        }
        if let Some(e) = write_error {
            return Err(Stop(FAILED, format!("stopped: {e}")));
        }
        Ok(if completed { DONE } else { INTERRUPTED })
    })())
}

/// Writes `report.html` and `results.xlsx` into `dir`; returns what the page holds.
fn write_visual(
    dir: &Path,
    records: &[GameRecord],
    table: &standings::Standings,
    level: f64,
    games: report::html::Games,
) -> Result<report::html::Written, Stop> {
    let options = report::html::Options { games, level };
    let written = report::html::write(dir, records, table, &options)
        .map_err(|e| Stop(FAILED, e.to_string()))?;
    report::xlsx::write(dir, records, table).map_err(|e| Stop(FAILED, e.to_string()))?;
    Ok(written)
}

/// `arena report`: rebuilds report.html and results.xlsx from an output directory. Engine
/// order, anchor and confidence come from its config.resolved.yaml when present.
pub fn report(args: &ReportArgs) -> ExitCode {
    finish((|| {
        let games = match &args.games {
            Some(text) => text.parse().map_err(|e| Stop(BAD_CONFIG, e))?,
            None => report::html::Games::default(),
        };
        let games_path = args.dir.join(files::GAMES);
        if !games_path.is_file() {
            return Err(Stop(
                BAD_CONFIG,
                format!(
                    "{}: no such file (give an output directory of `arena run`)",
                    games_path.display()
                ),
            ));
        }
        let (records, dropped) =
            files::read_games(&games_path).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
        if let Some(note) = dropped {
            eprintln!("note: {}: {note}", games_path.display());
        }
        let config =
            report::html::inputs::config(&args.dir).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
        let config = config.as_ref();
        let engines: Vec<String> = config
            .and_then(|c| c.get("engines"))
            .and_then(serde_yaml::Value::as_sequence)
            .map(|list| {
                list.iter()
                    .filter_map(|e| e.get("name")?.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let anchor = config
            .and_then(|c| c.get("anchor"))
            .and_then(|a| Some((a.get("engine")?.as_str()?, a.get("elo")?.as_f64()?)));
        let level = config
            .and_then(|c| c.get("confidence"))
            .and_then(serde_yaml::Value::as_f64)
            .unwrap_or(0.95);
        let table = standings::compute(&records, &engines, anchor, level);
        let written = write_visual(&args.dir, &records, &table, level, games)?;
        for failure in &written.failures {
            eprintln!("note: {failure}");
        }
        println!(
            "{}: {} games, {} in the viewer, {:.1} MB; {}",
            args.dir.join(report::html::REPORT).display(),
            written.games,
            written.embedded,
            written.bytes as f64 / 1e6,
            args.dir.join(report::xlsx::XLSX).display()
        );
        Ok(DONE)
    })())
}

/// `arena ratings`.
pub fn ratings(args: &RatingsArgs) -> ExitCode {
    finish((|| {
        let (records, dropped) =
            files::read_games(&args.games).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
        if let Some(note) = dropped {
            eprintln!("note: {}: {note}", args.games.display());
        }
        let anchor = match &args.anchor {
            Some(text) => {
                let (name, elo) = text.rsplit_once('=').unwrap_or((text.as_str(), "0"));
                let elo: f64 = elo
                    .parse()
                    .map_err(|_| Stop(BAD_CONFIG, format!("--anchor {text}: expected NAME=ELO")))?;
                if !records.iter().any(|r| r.first == name || r.second == name) {
                    return Err(Stop(
                        BAD_CONFIG,
                        format!(
                            "--anchor: no engine called `{name}` in {}",
                            args.games.display()
                        ),
                    ));
                }
                Some((name.to_owned(), elo))
            }
            None => None,
        };
        let output = args.output.clone().unwrap_or_else(|| {
            args.games
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        });
        fs::create_dir_all(&output)
            .map_err(|e| Stop(FAILED, format!("{}: cannot create: {e}", output.display())))?;
        let level = args.confidence;
        if !(level > 0.0 && level < 1.0) {
            return Err(Stop(
                BAD_CONFIG,
                format!("--confidence must be in (0, 1), got {level}"),
            ));
        }
        let table = standings::compute(
            &records,
            &[],
            anchor.as_ref().map(|(n, e)| (n.as_str(), *e)),
            level,
        );
        let event = args
            .games
            .parent()
            .and_then(Path::file_name)
            .map_or_else(|| "arena".to_owned(), |n| n.to_string_lossy().into_owned());
        files::write_ratings(&output, &event, &records, &table)
            .map_err(|e| Stop(FAILED, e.to_string()))?;
        print!("{}", summary::render(&table, &records, level));
        println!("ratings in {}", output.display());
        Ok(DONE)
    })())
}

/// `arena show`.
pub fn show(args: &ShowArgs) -> ExitCode {
    finish((|| {
        let mut pos = match (&args.board, &args.fen) {
            (Some(yaml), None) => {
                let spec: BoardSpec = serde_yaml::from_str(yaml)
                    .map_err(|e| Stop(BAD_CONFIG, format!("--board: {e}")))?;
                spec.start_position(args.seed)
                    .map_err(|e| Stop(BAD_CONFIG, format!("--board: {e}")))?
            }
            (None, Some(fen)) => {
                let game: GameKind = args
                    .game
                    .as_deref()
                    .unwrap_or_default()
                    .parse()
                    .map_err(|e| Stop(BAD_CONFIG, format!("--game: {e}")))?;
                AnyPosition::from_fen(game, fen).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?
            }
            _ => {
                return Err(Stop(
                    BAD_CONFIG,
                    "give either --board or --fen with --game".into(),
                ));
            }
        };
        for mv in args.moves.split_whitespace() {
            pos.play_text(mv)
                .map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
        }
        let ansi = !args.plain && std::io::stdout().is_terminal();
        println!("{}", pos.fen());
        print!("{}", pos.render(ansi));
        if let Some(outcome) = pos.outcome() {
            println!("game over: {outcome}");
        }
        Ok(DONE)
    })())
}
