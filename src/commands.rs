//! What each subcommand does, from parsed arguments to an exit code. Prints to stdout, as do
//! the command bodies it hands over to ([`crate::tournament`] for a run, [`crate::play`] for
//! play and replay).
//!
//! Exit codes: 0 done, 1 a run that could not complete, 2 bad usage or config, 130 interrupted.

use std::collections::BTreeSet;
use std::fs;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{CheckArgs, RatingsArgs, ReportArgs, RunArgs, ShowArgs};
use crate::config::{self, Plan};
use crate::games::{AnyPosition, BoardSpec, GameKind};
use crate::import;
use crate::record::GameRecord;
use crate::report::{self, files, summary};
use crate::schedule;
use crate::standings;
use crate::tournament::{self, Stop};

pub use crate::tournament::{BAD_CONFIG, DONE, FAILED, INTERRUPTED};

fn finish(result: Result<u8, Stop>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(Stop { code, message }) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

fn current_dir() -> Result<PathBuf, Stop> {
    std::env::current_dir()
        .map_err(|e| Stop::new(FAILED, format!("cannot read the current directory: {e}")))
}

fn load_plan(path: &Path, overrides: &config::Overrides) -> Result<Plan, Stop> {
    let config = config::read(path).map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))?;
    config
        .plan(path, &current_dir()?, overrides)
        .map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))
}

/// A scratch directory for the preflight's stderr logs, removed when dropped: `check` quotes
/// an engine's stderr but leaves no log behind.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, Stop> {
        let dir = std::env::temp_dir().join(format!("arena-check-{}", std::process::id()));
        fs::create_dir_all(&dir).map_err(|e| {
            Stop::new(
                FAILED,
                format!("cannot create {} for stderr logs: {e}", dir.display()),
            )
        })?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// `arena check`: validates the config, starts every engine for its handshake and one move a
/// game, prints the plan and what the run will take. Plays no tournament game.
pub fn check(args: &CheckArgs) -> ExitCode {
    // An interrupt ends the engines being probed and whatever they started.
    crate::reaper::exit_on_signals(None);
    finish((|| {
        let overrides = config::Overrides {
            dry_run: true,
            ..config::Overrides::default()
        };
        let plan = load_plan(&args.config, &overrides)?;
        let previous = tournament::resume::Previous::read(&plan.output);
        let scratch = Scratch::new()?;
        let mut prepared = tournament::prepare(&plan, Some(&scratch.0), previous.plays.as_ref())?;
        if let Some(driver) = tournament::rounds::Driver::of(&plan) {
            // The rounds the output's results reach, as `arena run` would pair them.
            let retry = plan.config.on_engine_failure == config::OnEngineFailure::Stop;
            driver.replay(&mut prepared.schedule, &plan, retry)?;
        }
        if let Some(roster) = &plan.roster {
            print!("{}", roster.describe());
        }
        let mut failed = print_engines(&plan, &prepared);
        crate::sandbox::print_check(&plan.engines);
        print_warnings(&plan, &prepared);
        let probes = tournament::probe(&plan, &prepared);
        failed |= print_probes(&plan, &probes);
        if plan.config.format.pairs_by_results() {
            print!("{}", tournament::rounds::describe_first_round(&plan));
        } else {
            print_boards(&plan, &prepared.schedule);
        }
        print_previous(&plan, &previous, &prepared)?;
        print_estimate(&plan, &prepared, &probes);
        if failed {
            return Err(Stop::new(
                FAILED,
                "some engines failed the handshake or their first move",
            ));
        }
        Ok(DONE)
    })())
}

/// One line per engine: how it runs, its identity, time control and games; for one that
/// failed its handshake, the reason, with a library's own reason first and once. Returns
/// whether any failed.
fn print_engines(plan: &Plan, prepared: &tournament::Prepared) -> bool {
    let mut failed = false;
    for (e, identity) in plan.engines.iter().zip(&prepared.identities) {
        let how = match &e.spec.library {
            Some(library) => format!(
                "library {}, directions {}, {}",
                library.display(),
                e.spec
                    .directions
                    .map_or("?", crate::player_library::Directions::name),
                if e.restarts_per_game(false) {
                    "a fresh process per game"
                } else {
                    "processes reused across games (restart: on_failure)"
                }
            ),
            None => format!("`{}`", tournament::command_line(e)),
        };
        match identity {
            Ok(id) => println!(
                "engine {}: {how} ({}) by {}, {}; plays {}",
                e.spec.name,
                id.name.as_deref().unwrap_or("no id name"),
                id.author.as_deref().unwrap_or("no author"),
                e.time_control,
                prepared.plays[&e.spec.name]
                    .iter()
                    .map(|g| g.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Err(failure) => {
                failed |= !is_team(plan, &e.spec.name);
                print!("{}", describe_failure(&e.spec.name, &how, failure));
                if is_team(plan, &e.spec.name) {
                    println!(
                        "  → a team: it will forfeit its games and the run goes on without it"
                    );
                }
            }
        }
    }
    failed
}

/// Whether `engine` is a team of a class championship: a team that cannot play forfeits its
/// games and the run goes on, so its failure is no failure of the check.
fn is_team(plan: &Plan, engine: &str) -> bool {
    plan.roster
        .as_ref()
        .is_some_and(|r| r.entered().contains(&engine))
}

/// A failed handshake in words: the adapter's own reason first for a library engine (its
/// `player-so:` lines), else the runner's; then the engine's other stderr lines.
fn describe_failure(name: &str, how: &str, failure: &tournament::PreflightFailure) -> String {
    let (adapter, other): (Vec<&String>, Vec<&String>) = failure
        .stderr
        .iter()
        .partition(|l| l.starts_with("player-so: "));
    let mut text = if adapter.is_empty() {
        format!("engine {name} ({how}): {}\n", failure.reason)
    } else {
        let reasons: Vec<&str> = adapter
            .iter()
            .map(|l| l.trim_start_matches("player-so: "))
            .collect();
        format!(
            "engine {name}: {how}: FAILED to load: {} (then {})\n",
            reasons.join("; "),
            failure.reason
        )
    };
    if failure.stderr.is_empty() {
        text.push_str("  (nothing on stderr)\n");
    }
    for line in other {
        text.push_str(&format!("  stderr | {line}\n"));
    }
    text
}

/// The preparation's warnings, and for library engines the boards whose queen count course
/// players may get wrong.
fn print_warnings(plan: &Plan, prepared: &tournament::Prepared) {
    if plan.engines.iter().any(|e| e.spec.library.is_some()) {
        for w in crate::player_library::queens_warnings(&plan.config.boards, &plan.board_names) {
            println!("warning: {w}");
        }
    }
    for w in &prepared.warnings {
        println!("warning: {w}");
    }
}

/// Each engine's first move per game it plays; returns whether any failed.
fn print_probes(plan: &Plan, probes: &[tournament::Probe]) -> bool {
    let mut failed = false;
    for probe in probes {
        match &probe.outcome {
            Ok((mv, took)) => println!(
                "engine {} on {}: `go` answered `bestmove {mv}` in {:.1} ms",
                probe.engine,
                probe.board,
                took.as_secs_f64() * 1e3
            ),
            Err(why) => {
                failed |= !is_team(plan, &probe.engine);
                println!(
                    "engine {} on {}: FAILED its first move: {why}{}",
                    probe.engine,
                    probe.board,
                    if is_team(plan, &probe.engine) {
                        " (a team: it loses such games; the run goes on)"
                    } else {
                        ""
                    }
                );
            }
        }
    }
    failed
}

/// One line per board (games, engines, openings) and the totals.
fn print_boards(plan: &Plan, schedule: &schedule::Schedule) {
    for (b, name) in plan.board_names.iter().enumerate() {
        let fixtures: Vec<_> = schedule.fixtures.iter().filter(|f| f.board == b).collect();
        let players: BTreeSet<&str> = fixtures
            .iter()
            .flat_map(|f| [f.players.first, f.players.second])
            .map(|e| plan.engines[e].spec.name.as_str())
            .collect();
        println!(
            "board {name}: {} games; {}{}",
            fixtures.len(),
            players.into_iter().collect::<Vec<_>>().join(", "),
            plan.config.boards[b]
                .openings()
                .map_or_else(String::new, |o| format!("; {}", o.describe()))
        );
    }
    let rounds = plan.config.rounds;
    println!(
        "{} games in all ({rounds} round{}, seed {}, concurrency {}), output {}",
        schedule.fixtures.len(),
        if rounds == 1 { "" } else { "s" },
        plan.seed,
        plan.concurrency,
        plan.output.display()
    );
}

/// What the output directory already holds: a shard (`--shard K/N` only resumes it), and
/// earlier games with what `arena run` will do with them.
fn print_previous(
    plan: &Plan,
    previous: &tournament::resume::Previous,
    prepared: &tournament::Prepared,
) -> Result<(), Stop> {
    use tournament::resume::{self, Compatibility};
    match tournament::shard::recorded(&plan.output) {
        Ok(Some(shard)) => println!(
            "{} holds shard {shard} (its {}): `arena run --shard {shard}` resumes it \
             ({} of the {} games), a run without --shard is refused there",
            plan.output.display(),
            tournament::shard::FILE,
            tournament::shard::select(&prepared.schedule.fixtures, shard).len(),
            prepared.schedule.fixtures.len()
        ),
        Ok(None) => {}
        Err(e) => println!("warning: {e}"),
    }
    if !previous.has_games {
        return Ok(());
    }
    let (rows, _) = files::read_games(&plan.output.join(files::GAMES))
        .map_err(|e| Stop::new(FAILED, e.to_string()))?;
    let verdict = match &previous.config {
        Some(old) => match resume::compare(
            old,
            &old.boards.iter().map(|b| b.name()).collect::<Vec<_>>(),
            &previous.plays.clone().unwrap_or_default(),
            &plan.config,
            &plan.board_names,
            &prepared.plays,
        ) {
            Compatibility::Same => "`arena run` resumes them".into(),
            Compatibility::Extension(added) => {
                format!("`arena run` extends that tournament ({})", added.join(", "))
            }
            Compatibility::Conflict(keys) => format!(
                "`arena run` will REFUSE this config there (differs in: {}); use --force or another --output",
                keys.join("; ")
            ),
        },
        None => "`arena run` cannot resume them (no readable config.resolved.yaml)".into(),
    };
    println!(
        "{} already holds {} games: {verdict}",
        plan.output.display(),
        rows.len()
    );
    Ok(())
}

/// Seconds per move of each engine (outer) on each board (inner), where it plays there: an
/// engine with a depth or node limit timed along the board's typical games; a timed one (a
/// movetime or a clock) by its first move in `check`'s probe, which libraries and quick
/// engines answer well within their time; the time control's typical move otherwise.
fn move_times(
    plan: &Plan,
    schedule: &schedule::Schedule,
    typical: &[(f64, [Vec<String>; 2])],
    probes: &[tournament::Probe],
) -> Vec<Vec<f64>> {
    use crate::estimate::measure;
    let handshake = std::time::Duration::from_millis(plan.handshake_timeout_ms);
    let probed = |name: &str, board: &BoardSpec| {
        probes.iter().find_map(|p| {
            let b = plan.board_names.iter().position(|n| *n == p.board)?;
            let took = p.outcome.as_ref().ok()?.1;
            (p.engine == name && plan.config.boards[b].kind() == board.kind())
                .then_some(took.as_secs_f64())
        })
    };
    plan.engines
        .iter()
        .enumerate()
        .map(|(e, engine)| {
            let timed = matches!(
                engine.time_control.limit,
                config::Limit::MoveTime(_) | config::Limit::Clock { .. }
            );
            plan.config
                .boards
                .iter()
                .enumerate()
                .map(|(b, board)| {
                    let plays = schedule
                        .fixtures
                        .iter()
                        .any(|f| f.board == b && (f.players.first == e || f.players.second == e));
                    let start = schedule.starts[b].first();
                    let measured = match (plays, timed, start) {
                        (true, true, _) => probed(&engine.spec.name, board),
                        (true, false, Some(start)) => {
                            measure::move_seconds(engine, board, start, &typical[b].1, handshake)
                        }
                        _ => None,
                    };
                    measured.unwrap_or(engine.time_control.typical_move_ms() / 1e3)
                })
                .collect()
        })
        .collect()
}

/// The run's estimated time: every game's plies at the engines' measured time per move, over
/// the games played at once; for an SPRT, at its expected lengths when the difference is
/// `elo0` and `elo1`, with its maximum beside them.
fn print_estimate(plan: &Plan, prepared: &tournament::Prepared, probes: &[tournament::Probe]) {
    use crate::estimate::{GameCost, measure, run_seconds, sprt_expected_games};
    let schedule = &prepared.schedule;
    let typical = measure::typical_games(plan, &schedule.starts);
    let moves = move_times(plan, schedule, &typical, probes);
    let startup = measure::startup_seconds(plan);
    // Start-ups paid by every game: engines that get a fresh process per game.
    let per_game = plan.config.restart == config::Restart::PerGame;
    let fresh: Vec<f64> = plan
        .engines
        .iter()
        .zip(&startup)
        .map(|(e, s)| {
            if e.restarts_per_game(per_game) {
                *s
            } else {
                0.0
            }
        })
        .collect();
    let games: Vec<GameCost> = schedule
        .fixtures
        .iter()
        .map(|f| {
            let [a, b] = [f.players.first, f.players.second];
            GameCost {
                plies: typical[f.board].0,
                move_s: [moves[a][f.board], moves[b][f.board]],
                startup_s: [fresh[a], fresh[b]],
            }
        })
        .collect();
    // Engines that search to a depth or node count use a core each; timed ones wait their time.
    let cpu_bound = plan.engines.iter().any(|e| {
        matches!(
            e.time_control.limit,
            config::Limit::Depth(_) | config::Limit::Nodes(_)
        )
    });
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let parallel = if cpu_bound {
        plan.concurrency.min(cores)
    } else {
        plan.concurrency
    };
    let all = run_seconds(&games, parallel, &startup);
    let lengths: Vec<String> = plan
        .board_names
        .iter()
        .zip(&typical)
        .map(|(name, (plies, _))| format!("{name} {plies:.0}"))
        .collect();
    let how = format!(
        "at concurrency {} ({parallel} at once{}), from each engine's time per move measured along a typical game of each board (plies: {})",
        plan.concurrency,
        if cpu_bound && parallel < plan.concurrency {
            format!(": {cores} cores for engines searching to a depth or node count")
        } else {
            String::new()
        },
        lengths.join(", ")
    );
    let human = crate::report::progress::human_duration;
    if plan.config.ladder.is_some() || plan.roster.is_some() {
        print_class_estimate(plan, &games, parallel);
    }
    match &plan.config.sprt {
        None => println!("estimated time: about {} ({all:.1} s) {how}", human(all)),
        Some(spec) => {
            let (at0, at1) = sprt_expected_games(spec);
            let max = games.len().max(1) as f64;
            let part = |n: f64| all * n.min(max) / max;
            println!(
                "estimated time: about {} ({:.1} s) if the difference is elo0 ({:.0} games expected, Wald), \
                 about {} ({:.1} s) if it is elo1 ({:.0} games), at most about {} ({all:.1} s) for all {} games; {how}",
                human(part(at0)),
                part(at0),
                at0.min(max),
                human(part(at1)),
                part(at1),
                at1.min(max),
                human(all),
                games.len()
            );
        }
    }
}

/// The time of the same championship with 60 teams: games × mean plies × mean time per
/// move ÷ games at once, from the costs of this schedule's games.
fn print_class_estimate(plan: &Plan, games: &[crate::estimate::GameCost], parallel: usize) {
    const CLASS: u64 = 60;
    let Some(total) = crate::class::roster::games_for(&plan.config, CLASS) else {
        return;
    };
    let n = games.len().max(1) as f64;
    let plies = games.iter().map(|g| g.plies).sum::<f64>() / n;
    let move_s = games
        .iter()
        .map(|g| (g.move_s[0] + g.move_s[1]) / 2.0)
        .sum::<f64>()
        / n;
    let seconds = total as f64 * plies * move_s / parallel.max(1) as f64;
    println!(
        "a class of {CLASS} teams with this ladder and config: {total} games × {plies:.0} plies × \
         {:.1} ms a move ÷ {parallel} at once ≈ {} ({seconds:.0} s)",
        move_s * 1000.0,
        crate::report::progress::human_duration(seconds)
    );
}

/// `arena run`.
pub fn run(args: &RunArgs) -> ExitCode {
    finish((|| {
        let overrides = config::Overrides {
            seed: args.seed,
            concurrency: args.concurrency,
            output: args.output.clone(),
            no_sandbox: args.no_sandbox,
            dry_run: false,
        };
        if args.no_sandbox {
            eprintln!(
                "WARNING: --no-sandbox: every engine runs UNCONFINED, with your rights, whatever the config's `sandbox` says"
            );
        }
        let seed_given = args.seed.is_some()
            || config::read(&args.config)
                .map(|c| c.seed.is_some())
                .unwrap_or(false);
        let mut plan = load_plan(&args.config, &overrides)?;
        plan.config.record_moves |= args.record_moves;
        tournament::run(
            plan,
            &tournament::RunOptions {
                force: args.force,
                quiet: args.quiet,
                log_protocol: args.log_protocol,
                seed_given,
                shard: args.shard,
                serve: args.serve.clone(),
            },
        )
    })())
}

/// `arena serve`: the live page of an output directory, until Ctrl-C.
pub fn serve(args: &crate::cli::ServeArgs) -> ExitCode {
    finish((|| {
        if !args.dir.is_dir() {
            return Err(Stop::new(
                tournament::BAD_CONFIG,
                format!(
                    "{}: no such directory (give an output directory of `arena run`)",
                    args.dir.display()
                ),
            ));
        }
        let known = [
            "games.csv",
            "config.resolved.yaml",
            "live.json",
            ".arena.lock",
        ];
        if !known.iter().any(|f| args.dir.join(f).exists()) {
            return Err(Stop::new(
                tournament::BAD_CONFIG,
                format!(
                    "{}: not an output directory of arena (no games.csv, config.resolved.yaml or live.json); give the directory a run writes, such as results/NAME",
                    args.dir.display()
                ),
            ));
        }
        let server = crate::live::Server::start(&args.serve, &args.dir)
            .map_err(|e| Stop::new(tournament::BAD_CONFIG, e))?;
        if server.is_public() {
            eprintln!(
                "warning: --serve {}: anyone who can reach this machine on port {} can watch (read-only)",
                args.serve,
                server.addr().port()
            );
        }
        eprintln!(
            "live page of {}: {} (Ctrl-C to stop)",
            args.dir.display(),
            server.url()
        );
        crate::reaper::exit_on_signals(None);
        loop {
            std::thread::park();
        }
    })())
}

/// `arena merge`: see [`tournament::merge`].
pub fn merge(args: &crate::cli::MergeArgs) -> ExitCode {
    finish((|| {
        let _lock = tournament::lock::acquire(&args.output)?;
        tournament::merge::merge(&tournament::merge::MergeOptions {
            shards: args.shards.clone(),
            output: args.output.clone(),
            force: args.force,
            quiet: args.quiet,
        })
    })())
}

/// `arena slurm`: see [`tournament::slurm`].
pub fn slurm(args: &crate::cli::SlurmArgs) -> ExitCode {
    finish((|| {
        let overrides = config::Overrides {
            seed: args.seed,
            concurrency: None,
            output: args.output.clone(),
            no_sandbox: false,
            dry_run: false,
        };
        let plan = load_plan(&args.config, &overrides)?;
        tournament::slurm::slurm(
            &plan,
            &tournament::slurm::SlurmOptions {
                config: args.config.clone(),
                shards: args.shards,
                partition: args.partition.clone(),
                time: args.time.clone(),
                cpus_per_task: args.cpus_per_task,
                submit: args.submit,
            },
        )
    })())
}

/// `arena report`: rebuilds report.html and results.xlsx from an output directory. Engine
/// order, anchor and confidence come from its config.resolved.yaml when present.
pub fn report(args: &ReportArgs) -> ExitCode {
    finish((|| {
        let games = match &args.games {
            Some(text) => text.parse().map_err(|e| Stop::new(BAD_CONFIG, e))?,
            None => report::html::Games::default(),
        };
        let games_path = args.dir.join(files::GAMES);
        if !games_path.is_file() {
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{}: no such file (give an output directory of `arena run`)",
                    games_path.display()
                ),
            ));
        }
        let _lock = tournament::lock::acquire(&args.dir)?;
        let (records, dropped) =
            files::read_games(&games_path).map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))?;
        if let Some(note) = dropped {
            eprintln!("note: {}: {note}", games_path.display());
        }
        check_results(&games_path, &records)?;
        let config = report::html::inputs::config(&args.dir)
            .map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))?;
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
        let written = report::write_visual(&args.dir, &records, &table, level, games)
            .map_err(|e| Stop::new(FAILED, e))?;
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
        if let Ok(Some(rows)) = crate::class::outputs::read(&args.dir) {
            let pages = rows.iter().filter(|r| r.entered()).count();
            println!(
                "{}: {pages} team pages; {}: levels and grades",
                args.dir.join(crate::class::outputs::PAGES).display(),
                args.dir.join(crate::class::outputs::FILE).display()
            );
        }
        Ok(DONE)
    })())
}

/// A copy of `input` in a temporary file (same extension) when it is not a regular file (a
/// pipe, `/dev/stdin`, a FIFO), which `arena ratings` could not read twice; `None` for a
/// regular file.
///
/// # Errors
/// [`BAD_CONFIG`] when `input` cannot be read, [`FAILED`] when the copy cannot be written.
fn spool_unless_regular(input: &Path) -> Result<Option<tempfile::NamedTempFile>, Stop> {
    let meta = fs::metadata(input)
        .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", input.display())))?;
    if meta.is_file() {
        return Ok(None);
    }
    let suffix = input
        .extension()
        .map(|x| format!(".{}", x.to_string_lossy()))
        .unwrap_or_default();
    let mut copy = tempfile::Builder::new()
        .prefix("arena-ratings-")
        .suffix(&suffix)
        .tempfile()
        .map_err(|e| {
            Stop::new(
                FAILED,
                format!("a temporary copy of {}: {e}", input.display()),
            )
        })?;
    let mut from = fs::File::open(input)
        .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", input.display())))?;
    std::io::copy(&mut from, copy.as_file_mut()).map_err(|e| {
        Stop::new(
            FAILED,
            format!("a temporary copy of {}: {e}", input.display()),
        )
    })?;
    Ok(Some(copy))
}

/// Refuses a games.csv row whose result a run never writes (`2-0`), naming file and line,
/// as `arena merge` does: such a game would silently drop out of the tables.
fn check_results(path: &Path, records: &[GameRecord]) -> Result<(), Stop> {
    use crate::tournament::merge::rows;
    let lines = rows::row_lines(path).map_err(|e| Stop::new(BAD_CONFIG, e))?;
    for (k, r) in records.iter().enumerate() {
        rows::check_result(r).map_err(|e| {
            let line = lines.get(k).copied().unwrap_or_default();
            Stop::new(
                BAD_CONFIG,
                format!("{}:{line}: game {}: {e}", path.display(), r.game_id),
            )
        })?;
    }
    Ok(())
}

/// `arena ratings`: imports games (see [`crate::import`]), rates them as `run` does and writes
/// the three rating files, refusing to replace existing ones without `--force`.
pub fn ratings(args: &RatingsArgs) -> ExitCode {
    finish((|| {
        if let Some(level) = args.confidence {
            if !(level > 0.0 && level < 1.0) {
                return Err(Stop::new(
                    BAD_CONFIG,
                    format!("--confidence must be in (0, 1), got {level}"),
                ));
            }
        }
        let cli_anchor = args
            .anchor
            .as_deref()
            .map(import::parse_anchor)
            .transpose()
            .map_err(|e| Stop::new(BAD_CONFIG, e))?;
        // A run's output directory stands for its games.csv.
        let input = &if args.games.is_dir() {
            args.games.join(files::GAMES)
        } else {
            args.games.clone()
        };
        // Observations, not games: a few numbers a game (a 500,000-game file); results.pgn
        // reads the file again, so a pipe is first copied to a temporary file.
        let spool = spool_unless_regular(input)?;
        if spool.is_some() && args.output.is_none() {
            // A pipe's directory (/dev, /proc) is no place for the files.
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{}: not a regular file (a pipe?): give --output DIR for the rating files",
                    input.display()
                ),
            ));
        }
        let source = spool.as_ref().map_or(input.as_path(), |s| s.path());
        // Messages name the file the user gave, not the copy.
        let named = |e: String| match &spool {
            Some(s) => e.replace(
                &s.path().display().to_string(),
                &input.display().to_string(),
            ),
            None => e,
        };
        let observed = import::observe(source, args.pairs)
            .map_err(|e| Stop::new(BAD_CONFIG, named(e.to_string())))?;
        for note in &observed.notes {
            eprintln!("note: {}: {note}", input.display());
        }
        let dir = input
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        // Beside a run's files: its engine order, name, anchor and level, so the files match.
        let context = import::run_context(&dir).unwrap_or_default();
        // The config's anchor needs no check: like `run`, the fit ignores one that never played.
        if let Some((name, _)) = &cli_anchor {
            if observed.names.engines.get(name).is_none() {
                return Err(Stop::new(
                    BAD_CONFIG,
                    format!("--anchor: no engine called `{name}` in {}", input.display()),
                ));
            }
        }
        let anchor = cli_anchor.or(context.anchor);
        let level = args.confidence.or(context.confidence).unwrap_or(0.95);
        let output = args.output.clone().unwrap_or(dir.clone());
        check_overwrite(input, &output, args.force)?;
        fs::create_dir_all(&output)
            .map_err(|e| Stop::new(FAILED, format!("{}: cannot create: {e}", output.display())))?;
        let _lock = tournament::lock::acquire(&output)?;
        let table = standings::compute_observed(
            &observed.games,
            &observed.names,
            &context.engines,
            anchor.as_ref().map(|(n, e)| (n.as_str(), *e)),
            level,
        );
        let default_event = context.name.unwrap_or_else(|| {
            fs::canonicalize(&dir)
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "arena".to_owned())
        });
        // results.pgn first: its second reading of the file is what can find the file changed,
        // and then nothing is written.
        import::write_pgn(source, &observed, &output.join(files::PGN), &default_event)
            .map_err(|e| Stop::new(BAD_CONFIG, named(e.to_string())))?;
        files::write_tables(&output, &table, level)
            .map_err(|e| Stop::new(FAILED, e.to_string()))?;
        print!(
            "{}",
            summary::render_observed(
                &table,
                &observed.games,
                &observed.names,
                level,
                observed.terminations_known
            )
        );
        println!("ratings in {}", output.display());
        Ok(DONE)
    })())
}

/// Refuses to write over the input, and over rating files already in `output` unless `force`.
fn check_overwrite(input: &Path, output: &Path, force: bool) -> Result<(), Stop> {
    let input = fs::canonicalize(input).ok();
    let mut existing = Vec::new();
    for name in [
        files::RATINGS,
        files::PAIRS,
        files::PGN,
        crate::boards::FILE,
        crate::ranks::FILE,
    ] {
        let path = output.join(name);
        if !path.exists() {
            continue;
        }
        if fs::canonicalize(&path).ok() == input {
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{} is the input and would be overwritten; choose another --output",
                    path.display()
                ),
            ));
        }
        existing.push(name);
    }
    if !existing.is_empty() && !force {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{} already holds {}; write elsewhere with --output DIR, or replace them with --force",
                output.display(),
                existing.join(", ")
            ),
        ));
    }
    Ok(())
}

/// `arena show`.
pub fn show(args: &ShowArgs) -> ExitCode {
    finish((|| {
        let mut pos = match (&args.board, &args.fen) {
            (Some(yaml), None) => {
                let spec: BoardSpec = serde_yaml::from_str(yaml)
                    .map_err(|e| Stop::new(BAD_CONFIG, format!("--board: {e}")))?;
                spec.start_position(args.seed)
                    .map_err(|e| Stop::new(BAD_CONFIG, format!("--board: {e}")))?
            }
            (None, Some(fen)) => {
                let game: GameKind = args
                    .game
                    .as_deref()
                    .unwrap_or_default()
                    .parse()
                    .map_err(|e| Stop::new(BAD_CONFIG, format!("--game: {e}")))?;
                AnyPosition::from_fen(game, fen)
                    .map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))?
            }
            _ => {
                return Err(Stop::new(
                    BAD_CONFIG,
                    "give either --board or --fen with --game",
                ));
            }
        };
        for mv in args.moves.split_whitespace() {
            pos.play_text(mv)
                .map_err(|e| Stop::new(BAD_CONFIG, e.to_string()))?;
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

/// `arena sprt`: prints the LLR, the bounds and the decision for the given counts.
pub fn sprt(args: &crate::cli::SprtArgs) -> ExitCode {
    use crate::sprt::{Counts, Model, SprtSpec};
    finish((|| {
        let bad = |m: String| Stop::new(BAD_CONFIG, m);
        let counts = |flag: &str, text: &str, n: usize| {
            crate::sprt::parse_counts(flag, text, n).map_err(bad)
        };
        let model: Model = args
            .model
            .parse()
            .map_err(|e| bad(format!("--model: {e}")))?;
        let penta = args
            .penta
            .as_deref()
            .map(|t| counts("penta", t, 5))
            .transpose()?;
        let wdl = args
            .wdl
            .as_deref()
            .map(|t| counts("wdl", t, 3))
            .transpose()?;
        let spec = SprtSpec::new(
            args.elo0,
            args.elo1,
            args.alpha,
            args.beta,
            model,
            penta.is_some(),
        )
        .map_err(|e| bad(e.replace("sprt: ", "--")))?;
        let mut c = Counts::default();
        match (&penta, &wdl) {
            (None, None) => return Err(bad("give --penta or --wdl".into())),
            (None, Some(_)) | (Some(_), Some(_)) if model == Model::Bayesian => {}
            (Some(_), None) if model == Model::Bayesian => {
                return Err(bad(
                    "--model bayesian needs --wdl for the draw elo (with or without --penta)"
                        .into(),
                ));
            }
            _ => {}
        }
        if let Some(p) = &penta {
            c.penta.copy_from_slice(p);
        }
        if let Some(w) = &wdl {
            c.wdl.copy_from_slice(w);
        }
        if let Some(why) = crate::sprt::undefined_draw_elo(model, c.wdl) {
            return Err(bad(format!("--model bayesian: {why}")));
        }
        let llr = spec.llr(&c);
        let (lower, upper) = spec.bounds();
        let (unit, n) = if spec.pentanomial {
            ("game pairs", c.pairs())
        } else {
            ("games", c.games())
        };
        println!(
            "{}: LLR {llr:.2} ({lower:.2}, {upper:.2}) {} after {n} {unit}",
            spec.label(),
            spec.decide(llr).words()
        );
        Ok(DONE)
    })())
}
