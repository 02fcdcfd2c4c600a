//! One tournament run, from a validated [`Plan`] to result files, as a pipeline of named steps:
//! every `arena run`, shard and resume passes through [`run`].
//!
//! Each step is a function below, in the order [`run`] calls them; the steps that decide
//! something without touching files or processes are pure and unit-tested.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use crate::config::{self, OnEngineFailure, Plan};
use crate::live::{Feed, Publisher, Server};
use crate::record::GameRecord;
use crate::report::{self, files, progress::Progress, summary};
use crate::runner::{self, Tournament};
use crate::schedule::{Fixture, Schedule};
use crate::standings::{self, Standings};

use super::recorder::Recorder;
use super::resume::{self, Compatibility, Plays, Previous};
use super::sprt_run::{self, SprtRun};
use super::{
    BAD_CONFIG, DONE, FAILED, INTERRUPTED, Prepared, RunOptions, Stop, describe_failures,
    engine_names, lock, moves_resume, outputs, prepare, rounds, shard,
};

/// Plays the tournament of `plan` into its output directory and writes every result file;
/// returns the exit code ([`DONE`], or [`INTERRUPTED`] after Ctrl-C).
///
/// # Errors
/// [`Stop`] for another process on the same output directory, a config change the directory
/// cannot take, failed handshakes (without `on_engine_failure: forfeit`), unwritable files
/// (naming the first, with how to resume), engines withdrawn during the run.
pub fn run(plan: Plan, options: &RunOptions) -> Result<u8, Stop> {
    refuse_sharded_sprt(&plan, options)?;
    rounds::refuse_shard(&plan, options)?;
    refuse_unshared_salt(&plan, options)?;
    // Bound before the lock creates the output directory: a bad address leaves nothing.
    let _server = serve(&plan, options)?;
    let _lock = lock::acquire(&plan.output)?;
    let previous = previous_state(&plan, options.force)?;
    check_recorded_shard(&plan, &previous, options)?;
    let mut notes = Vec::new();
    let plan = adopt_recorded_seed(plan, &previous, options, &mut notes);
    let (log_dir, logs_are_new) = create_log_dir(&plan.output)?;
    let prepared = prepare_games(&plan, &log_dir, logs_are_new, &previous, options)?;
    let (compatible, resubmitted) = check_compatible(&plan, &previous, &prepared)?;
    notes.extend(compatible);
    let withdrawn = forfeit_failed_handshakes(&plan, &prepared, &mut notes)?;
    let records = keep_earlier_games(
        &plan,
        &previous,
        &prepared,
        &resubmitted,
        &log_dir,
        &mut notes,
    )?;
    record_run_identity(&plan, &prepared, options)?;
    let sprt = sprt_run::start(&plan, &plan.output, &records).map_err(|e| Stop::new(FAILED, e))?;
    let todo = games_to_play(&prepared.schedule, &records, sprt.as_ref());
    let (total, done) = totals(&plan, &prepared.schedule, &records, &todo);
    announce(
        &prepared.warnings,
        &notes,
        records.len(),
        total,
        &plan.output,
    );
    let progress = Progress::new(total, done, options.quiet);
    let mut recorder = Recorder::open(
        &plan.output,
        engine_names(&plan),
        plan.config.record_moves,
        records,
        sprt,
        progress,
    )?;
    if let Some(roster) = &plan.roster {
        recorder = recorder.redacting(roster.path_redactions());
    }
    let feed = Arc::new(Feed::new(total, recorder.records.len() as u64));
    let played = play(
        &plan,
        &prepared,
        options,
        withdrawn,
        todo,
        &mut recorder,
        &feed,
    );
    let finished = finish_files(&plan, recorder);
    if !options.quiet {
        print_summary(&plan, &finished, &played, total);
    }
    exit_code(&plan, &finished, &played, total)
}

/// What [`play`] reports about the games it played.
struct Played {
    /// Whether every game was played (false after Ctrl-C or a write failure).
    completed: bool,
    /// Games in the output directory before this run.
    before: usize,
    /// Wall time of the games.
    wall: Duration,
    /// Plies of the games this run played.
    plies: u64,
    /// Where engine logs are.
    log_dir: PathBuf,
}

/// The state after the result files: the games, their standings and what went wrong.
struct Finished {
    recorder: Recorder,
    /// The standings of every game (also without result files after a write failure).
    table: Standings,
    /// Per engine: moves, time, failures (engines.csv).
    engine_rows: Vec<report::engines::EngineRow>,
    /// Notes on report.html and results.xlsx that could not be fully written.
    visual_notes: Vec<String>,
}

/// Shards of an anonymized championship must share the pseudonyms' salt, so a shard that
/// would draw its own is refused (`arena slurm` gives every shard the tournament's).
fn refuse_unshared_salt(plan: &Plan, options: &RunOptions) -> Result<(), Stop> {
    let new_salt = plan
        .roster
        .as_ref()
        .is_some_and(|r| r.salt.is_some_and(|(_, new)| new));
    match options.shard {
        Some(shard) if new_salt => Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: `anonymize` with --shard {shard}: every shard must use the same pseudonyms, \
                 but {} has no {}; `arena slurm CONFIG --shards N` (without --submit) writes one \
                 into every shard's directory, or copy an earlier run's there",
                plan.file.display(),
                plan.output.display(),
                crate::class::pseudonyms::FILE
            ),
        )),
        _ => Ok(()),
    }
}

/// `sprt` ends a whole run early, which shards on separate machines cannot do.
fn refuse_sharded_sprt(plan: &Plan, options: &RunOptions) -> Result<(), Stop> {
    match (options.shard, &plan.config.sprt) {
        (Some(s), Some(_)) => Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: `sprt` cannot be split into shards (--shard {s}): the test stops the whole run early, which shards on separate machines cannot do; run it without --shard",
                plan.file.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// What the output directory holds from earlier runs; with `--force`, its results deleted
/// first (and nothing held).
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
            crate::record::moves::MOVES,
            moves_resume::DROPPED,
            crate::report::engines::FILE,
            crate::boards::FILE,
            crate::ranks::FILE,
            rounds::SWISS,
            rounds::SWISS_STANDINGS,
            rounds::KNOCKOUT,
            crate::class::outputs::FILE,
        ] {
            let _ = fs::remove_file(out.join(name));
        }
        // Old stderr logs and transcripts would mix with the new run's. pseudonyms.csv stays:
        // its salt keeps every team's pseudonym from run to run.
        let _ = fs::remove_dir_all(out.join("logs"));
        let _ = fs::remove_dir_all(out.join(crate::class::outputs::PAGES));
        return Ok(Previous::default());
    }
    Ok(Previous::read(out))
}

/// A directory that holds one shard's games resumes only as that shard.
fn check_recorded_shard(
    plan: &Plan,
    previous: &Previous,
    options: &RunOptions,
) -> Result<(), Stop> {
    if !previous.has_games {
        return Ok(());
    }
    let recorded = shard::recorded(&plan.output).map_err(|e| Stop::new(BAD_CONFIG, e))?;
    match shard::resume_conflict(&plan.output, recorded, options.shard) {
        Some(why) => Err(Stop::new(BAD_CONFIG, why)),
        None => Ok(()),
    }
}

/// With `--serve`, the live page's server on the output directory, its URL printed (with a
/// warning when it listens beyond this machine).
fn serve(plan: &Plan, options: &RunOptions) -> Result<Option<Server>, Stop> {
    let Some(addr) = &options.serve else {
        return Ok(None);
    };
    let server = Server::start(addr, &plan.output).map_err(|e| Stop::new(BAD_CONFIG, e))?;
    if server.is_public() {
        eprintln!(
            "warning: --serve {addr}: anyone who can reach this machine on port {} can watch the run (read-only); use 127.0.0.1 to keep it local",
            server.addr().port()
        );
    }
    eprintln!("live page: {}", server.url());
    Ok(Some(server))
}

/// A config without a seed resumes with the seed the first run drew (else the schedule would
/// change under the games already played).
fn adopt_recorded_seed(
    mut plan: Plan,
    previous: &Previous,
    options: &RunOptions,
    notes: &mut Vec<String>,
) -> Plan {
    if options.seed_given {
        return plan;
    }
    if let Some(seed) = previous.config.as_ref().and_then(|c| c.seed) {
        plan.seed = seed;
        plan.config.seed = Some(seed);
        notes.push(format!(
            "the config sets no seed: resuming with seed {seed}, recorded in {}",
            plan.output.join(resume::RESOLVED).display()
        ));
    }
    plan
}

/// Creates `OUT/logs/games`; returns `OUT/logs` and whether this run created it.
fn create_log_dir(out: &Path) -> Result<(PathBuf, bool), Stop> {
    let log_dir = out.join("logs");
    let new = !log_dir.exists();
    fs::create_dir_all(log_dir.join("games")).map_err(|e| {
        Stop::new(
            FAILED,
            format!("{}: cannot create the directory: {e}", out.display()),
        )
    })?;
    Ok((log_dir, new))
}

/// Handshakes, the games each engine plays and the schedule (only this shard's games with
/// `--shard`). A refused config leaves no preflight log behind when this run created the log
/// directory (`logs_are_new`); an existing one keeps what it held.
fn prepare_games(
    plan: &Plan,
    log_dir: &Path,
    logs_are_new: bool,
    previous: &Previous,
    options: &RunOptions,
) -> Result<Prepared, Stop> {
    let mut prepared = match prepare(plan, Some(log_dir), previous.plays.as_ref()) {
        Ok(prepared) => prepared,
        Err(stop) => {
            if logs_are_new {
                let _ = fs::remove_dir_all(log_dir);
            }
            return Err(stop);
        }
    };
    if let Some(s) = options.shard {
        prepared.schedule.fixtures = shard::select(&prepared.schedule.fixtures, s);
    }
    if let Some(driver) = rounds::Driver::of(plan) {
        // The rounds the recorded results reach, so the resume keeps their games.
        let retry = plan.config.on_engine_failure == OnEngineFailure::Stop;
        driver.replay(&mut prepared.schedule, plan, retry)?;
    }
    Ok(prepared)
}

/// Whether the directory's games belong to this tournament: the same (no note), an extension
/// (a note: only the new games are played), or a conflict (an error naming the keys).
fn check_compatible(
    plan: &Plan,
    previous: &Previous,
    prepared: &Prepared,
) -> Result<(Option<String>, Vec<String>), Stop> {
    if !previous.has_games {
        return Ok((None, Vec::new()));
    }
    let out = &plan.output;
    let Some(old) = &previous.config else {
        let why = previous
            .config_error
            .clone()
            .unwrap_or_else(|| format!("it has no {} of the run that wrote it", resume::RESOLVED));
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{} holds a games.csv that cannot be resumed: {why}; start fresh with --force or choose another --output",
                out.display(),
            ),
        ));
    };
    let old_boards: Vec<String> = old.boards.iter().map(|b| b.name()).collect();
    let old_plays = previous.plays.clone().unwrap_or_default();
    match resume::compare(
        old,
        &old_boards,
        &old_plays,
        &plan.config,
        &plan.board_names,
        &prepared.plays,
    ) {
        Compatibility::Same => Ok((None, Vec::new())),
        Compatibility::Extension(added) => Ok((
            Some(format!(
                "extending the tournament in {}: {}; only the new games are played",
                out.display(),
                added.join(", ")
            )),
            Vec::new(),
        )),
        Compatibility::Conflict(keys) => match resubmissions(plan, &keys) {
            Some(teams) => Ok((
                Some(format!(
                    "new submission of {}: their earlier games are set aside (and played again \
                     by those still entered), with any new team's; the other games are kept",
                    teams
                        .iter()
                        .map(|t| who(plan, t))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                teams,
            )),
            None => Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{} holds games of a different config (differs in: {}); start fresh with --force (deletes them) or choose another --output{}",
                    out.display(),
                    keys.join("; "),
                    class_hint(plan, &keys)
                ),
            )),
        },
    }
}

/// In a class championship, the teams (public names) whose engine entry or games changed, or
/// that are gone (a folder removed, a new submission that cannot enter), when that is every
/// difference `keys` lists: their earlier games alone are set aside (and a team still entered
/// plays again). `None` otherwise (a changed rung, board or setting changes every game).
fn resubmissions(plan: &Plan, keys: &[String]) -> Option<Vec<String>> {
    let entered = plan.roster.as_ref()?.entered();
    // The teams of the earlier run, gone ones included: its teams.csv, not yet rewritten.
    let before: Vec<String> = crate::class::outputs::read(&plan.output)
        .ok()
        .flatten()
        .unwrap_or_default()
        .into_iter()
        .map(|r| r.name)
        .collect();
    let mut teams = Vec::new();
    for key in keys {
        let name = resume::changed_engine(key)?;
        if !entered.contains(&name) && !before.iter().any(|b| b == name) {
            return None;
        }
        if !teams.iter().any(|t| t == name) {
            teams.push(name.to_owned());
        }
    }
    (!teams.is_empty()).then_some(teams)
}

/// A team's public name, with its folder's name when they differ (the terminal is the
/// teacher's).
fn who(plan: &Plan, name: &str) -> String {
    plan.roster
        .as_ref()
        .and_then(|r| r.teams.iter().find(|t| t.name == name && t.team != name))
        .map_or_else(|| name.to_owned(), |t| format!("{name} (team {})", t.team))
}

/// For a class championship whose teams changed: which team each named engine is (the
/// terminal is the teacher's), and that `--force` keeps the pseudonyms.
fn class_hint(plan: &Plan, keys: &[String]) -> String {
    let Some(roster) = &plan.roster else {
        return String::new();
    };
    let changed: Vec<String> = roster
        .teams
        .iter()
        .filter(|t| t.name != t.team && keys.iter().any(|k| k.contains(&format!("`{}`", t.name))))
        .map(|t| {
            format!(
                "{} is team {} (submission {})",
                t.name, t.team, t.submission
            )
        })
        .collect();
    let mut hint = String::new();
    if !changed.is_empty() {
        hint.push_str(&format!(". {}", changed.join("; ")));
    }
    if roster.salt.is_some() {
        hint.push_str(&format!(
            ". --force keeps {} (the same pseudonyms); another --output needs a copy of it",
            crate::class::pseudonyms::FILE
        ));
    }
    hint
}

/// Engines that failed the handshake stop the run, or (`on_engine_failure: forfeit`) have
/// every game forfeited: per engine, why it is withdrawn.
fn forfeit_failed_handshakes(
    plan: &Plan,
    prepared: &Prepared,
    notes: &mut Vec<String>,
) -> Result<Vec<Option<String>>, Stop> {
    let mut withdrawn = vec![None; plan.engines.len()];
    let failed: Vec<usize> = (0..plan.engines.len())
        .filter(|&e| prepared.identities[e].is_err())
        .collect();
    if failed.is_empty() {
        return Ok(withdrawn);
    }
    let text = describe_failures(plan, &prepared.identities);
    if plan.config.on_engine_failure == OnEngineFailure::Stop {
        return Err(Stop::new(
            FAILED,
            format!(
                "{} engine(s) failed the handshake; no game was played (set `on_engine_failure: forfeit` to forfeit their games and play the rest):\n{}",
                failed.len(),
                text.trim_end()
            ),
        ));
    }
    for &e in &failed {
        if let Err(f) = &prepared.identities[e] {
            withdrawn[e] = Some(format!("its handshake failed before the run: {}", f.reason));
        }
    }
    notes.push(format!(
        "forfeiting every game of {} engine(s) that failed the handshake:\n{}",
        failed.len(),
        text.trim_end()
    ));
    Ok(withdrawn)
}

/// The rows of games.csv that belong to this schedule, renumbered to its ids, with their
/// transcripts and moves.csv rows; the others set aside in `games.dropped.csv` and
/// `moves.dropped.csv`. games.csv is rewritten with the kept rows.
fn keep_earlier_games(
    plan: &Plan,
    previous: &Previous,
    prepared: &Prepared,
    resubmitted: &[String],
    log_dir: &Path,
    notes: &mut Vec<String>,
) -> Result<Vec<GameRecord>, Stop> {
    if !previous.has_games {
        return Ok(Vec::new());
    }
    let out = &plan.output;
    let games_path = out.join(files::GAMES);
    let (rows, cut) =
        files::read_games(&games_path).map_err(|e| Stop::new(FAILED, e.to_string()))?;
    if let Some(cut) = cut {
        notes.push(format!("{}: {cut}", games_path.display()));
    }
    let retry = plan.config.on_engine_failure == OnEngineFailure::Stop;
    let names = engine_names(plan);
    // The games of a team's earlier submission are not its new one's.
    let (rows, old_submission): (Vec<GameRecord>, Vec<GameRecord>) = rows
        .into_iter()
        .partition(|r| !resubmitted.iter().any(|t| *t == r.first || *t == r.second));
    let mut sorted = resume::sort_rows(rows, &prepared.schedule, &plan.board_names, &names, retry);
    sorted.dropped.extend(
        old_submission
            .into_iter()
            .map(|r| (r, "a team's earlier submission".to_owned())),
    );
    move_transcripts(&log_dir.join("games"), &sorted.renumbered);
    let old_ids: BTreeMap<u64, u64> = sorted
        .renumbered
        .iter()
        .map(|&(old, new)| (new, old))
        .collect();
    // moves.csv follows games.csv, in id order; a moves.csv not in arena's columns stops.
    let mut kept: Vec<(u64, &GameRecord)> = sorted
        .kept
        .iter()
        .map(|r| (old_ids.get(&r.game_id).copied().unwrap_or(r.game_id), r))
        .collect();
    kept.sort_by_key(|(_, r)| r.game_id);
    let moved = moves_resume::rewrite(out, &kept, None).map_err(|e| Stop::new(FAILED, e))?;
    if moved.dropped > 0 {
        notes.push(format!(
            "set aside {} row(s) of moves.csv of games not kept, in {}",
            moved.dropped,
            out.join(moves_resume::DROPPED).display()
        ));
    }
    set_aside(out, &sorted.dropped, notes)?;
    if sorted.retried > 0 {
        notes.push(format!(
            "playing again {} game(s) forfeited by withdrawn engines",
            sorted.retried
        ));
    }
    if sorted.unfinished > 0 {
        notes.push(format!(
            "playing again {} game(s) without a result (`*`: neither engine could start)",
            sorted.unfinished
        ));
    }
    // Renumbered rows, or a games.csv from before the column: mark repeats afresh.
    let mut kept = sorted.kept;
    crate::repeats::mark(&mut kept);
    files::rewrite_games(&games_path, &kept).map_err(|e| Stop::new(FAILED, e.to_string()))?;
    Ok(kept)
}

/// Appends rows the schedule does not have to `games.dropped.csv`, with a note of why.
fn set_aside(
    out: &Path,
    dropped: &[(GameRecord, String)],
    notes: &mut Vec<String>,
) -> Result<(), Stop> {
    if dropped.is_empty() {
        return Ok(());
    }
    let path = out.join(resume::DROPPED);
    let fail = |e: files::FileError| Stop::new(FAILED, e.to_string());
    let mut writer = files::GamesWriter::append(&path).map_err(fail)?;
    let mut reasons = BTreeSet::new();
    for (row, why) in dropped {
        writer.write(row).map_err(fail)?;
        reasons.insert(why.as_str());
    }
    notes.push(format!(
        "set aside {} row(s) of games.csv ({}), in {}",
        dropped.len(),
        reasons.into_iter().collect::<Vec<_>>().join("; "),
        path.display()
    ));
    Ok(())
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

/// Writes what a later run of the directory compares with: `config.hash`, the resolved config
/// (with the seed used), the games each engine plays and the shard.
fn record_run_identity(plan: &Plan, prepared: &Prepared, options: &RunOptions) -> Result<(), Stop> {
    let out = &plan.output;
    let write = |name: &str, text: String| {
        fs::write(out.join(name), text).map_err(|e| {
            Stop::new(
                FAILED,
                format!("{}: cannot write {name}: {e}", out.display()),
            )
        })
    };
    let hash = super::config_hash(plan, &prepared.plays, options.shard);
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
    crate::class::outputs::write_initial(plan).map_err(|e| Stop::new(FAILED, e))?;
    shard::record(out, options.shard).map_err(|e| {
        Stop::new(
            FAILED,
            format!("{}: cannot write shard.yaml: {e}", out.display()),
        )
    })
}

/// The scheduled games not in `records`, in schedule order; none once the SPRT has decided.
fn games_to_play(
    schedule: &Schedule,
    records: &[GameRecord],
    sprt: Option<&SprtRun>,
) -> Vec<Fixture> {
    if sprt.is_some_and(SprtRun::stopped) {
        return Vec::new();
    }
    let done: BTreeSet<u64> = records.iter().map(|r| r.game_id).collect();
    schedule
        .fixtures
        .iter()
        .filter(|f| !done.contains(&f.id))
        .cloned()
        .collect()
}

/// The games of the run and those already done, for the progress bar and the summary: the
/// schedule's; for a Swiss or knockout, which schedules a round at a time, the whole format's.
fn totals(
    plan: &Plan,
    schedule: &Schedule,
    records: &[GameRecord],
    todo: &[Fixture],
) -> (u64, u64) {
    let scheduled = schedule.fixtures.len() as u64;
    match rounds::Driver::of(plan) {
        Some(d) => (
            d.expected_games(plan, scheduled as usize),
            records.len() as u64,
        ),
        None => (scheduled, scheduled - todo.len() as u64),
    }
}

/// Warnings, notes and the resume line, before the progress bar and whatever `--quiet` says:
/// they are about the results.
fn announce(warnings: &[String], notes: &[String], done: usize, total: u64, out: &Path) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
    for n in notes {
        eprintln!("note: {n}");
    }
    if done > 0 {
        eprintln!(
            "resuming: {done} of {total} games already in {}",
            out.display()
        );
    }
}

/// Plays `todo` on the worker pool, every event through `recorder`, until done, Ctrl-C or a
/// write failure; the games in progress go to `feed`, published in `live.json` meanwhile.
fn play(
    plan: &Plan,
    prepared: &Prepared,
    options: &RunOptions,
    withdrawn: Vec<Option<String>>,
    todo: Vec<Fixture>,
    recorder: &mut Recorder,
    feed: &Arc<Feed>,
) -> Played {
    let publisher = Publisher::start(Arc::clone(feed), &plan.output);
    let cancel = Arc::new(AtomicBool::new(false));
    // Ctrl-C: the first stops the run (its games' engines killed), a second ends everything.
    crate::reaper::exit_on_signals(Some(Arc::clone(&cancel)));
    let no_new_games = AtomicBool::new(false);
    if let Some(s) = &recorder.sprt {
        if s.stopped() {
            recorder
                .progress
                .println("note: the SPRT was decided by the games already played: no new game");
        }
        recorder.progress.set_extra(s.short());
    }
    let log_dir = plan.output.join("logs");
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
        live: Some(feed),
    };
    let wall = Instant::now();
    let before = recorder.records.len();
    let completed = match rounds::Driver::of(plan) {
        Some(driver) => rounds::play(
            &driver,
            &tournament,
            plan,
            todo,
            &cancel,
            &no_new_games,
            recorder,
        ),
        None => runner::run_until(
            &tournament,
            todo,
            plan.concurrency,
            &cancel,
            &no_new_games,
            |event| {
                recorder.on_event(event, &cancel, &no_new_games, &log_dir);
                if let Some(s) = &recorder.sprt {
                    feed.set_sprt(&s.short());
                }
            },
        ),
    };
    drop(publisher);
    recorder.progress.finish();
    recorder.close();
    let plies = recorder.records[before..]
        .iter()
        .map(|r| u64::from(r.plies))
        .sum();
    // Whatever an engine detached and nobody ended yet, tokens or not.
    crate::reaper::end_all();
    Played {
        completed,
        before,
        wall: wall.elapsed(),
        plies,
        log_dir,
    }
}

/// games.csv and moves.csv in id order, then ratings, pairs, PGN, report and engines.csv.
/// Never fails: the first file that cannot be written goes to the recorder's `write_error`
/// (nothing after it is attempted, the standings are computed in memory for the summary), so
/// the user always gets the summary, that file's name and how to resume.
fn finish_files(plan: &Plan, mut recorder: Recorder) -> Finished {
    let out = &plan.output;
    let names = engine_names(plan);
    recorder.records.sort_by_key(|r| r.game_id);
    // Games finished out of order were marked against the first to finish: name the smallest id.
    crate::repeats::mark(&mut recorder.records);
    let mut move_totals = report::engines::MoveTotals::default();
    if recorder.write_error.is_none() {
        let sorted = files::rewrite_games(&out.join(files::GAMES), &recorder.records)
            .map_err(|e| e.to_string())
            .and_then(|()| {
                let kept: Vec<(u64, &GameRecord)> =
                    recorder.records.iter().map(|r| (r.game_id, r)).collect();
                moves_resume::rewrite(out, &kept, Some(&mut move_totals)).map(drop)
            });
        recorder.write_error = sorted.err();
    }
    let engine_rows = report::engines::compute(&recorder.records, &names, &move_totals);
    // swiss.csv or knockout.csv first: report.html draws the bracket from knockout.csv.
    if recorder.write_error.is_none() {
        recorder.write_error = rounds::write_files(plan, &recorder.records).err();
    }
    let context = outputs::Context::of_plan(plan);
    let mut visual_notes = Vec::new();
    let written = match &recorder.write_error {
        Some(_) => None,
        None => match outputs::write(out, &context, &mut recorder.records) {
            Ok((table, visual)) => {
                match visual {
                    Ok(visual) => visual_notes = visual.failures,
                    Err(e) => recorder.write_error = Some(e),
                }
                Some(table)
            }
            Err(stop) => {
                recorder.write_error = Some(stop.message);
                None
            }
        },
    };
    if recorder.write_error.is_none() {
        if let Err(e) = report::engines::write(out, &engine_rows) {
            recorder.write_error = Some(e);
        }
    }

    let table = written.unwrap_or_else(|| {
        let anchor = context.anchor.as_ref().map(|(n, e)| (n.as_str(), *e));
        standings::compute(&recorder.records, &names, anchor, plan.confidence)
    });
    Finished {
        recorder,
        table,
        engine_rows,
        visual_notes,
    }
}

/// The standings, terminations, SPRT verdict, per-engine table, failures and the runner's own
/// cost, on stdout.
fn print_summary(plan: &Plan, finished: &Finished, played: &Played, total: u64) {
    let records = &finished.recorder.records;
    let this_run = records.len() - played.before;
    if !played.completed && finished.recorder.write_error.is_none() {
        println!(
            "INTERRUPTED: partial results, {} of {total} games ({this_run} in this run); run the same command to resume",
            records.len(),
        );
    }
    print!(
        "{}",
        summary::render(&finished.table, records, plan.confidence)
    );
    if let Some(s) = &finished.recorder.sprt {
        println!("{}", s.status());
    }
    print!("{}", rounds::render(plan, records));
    print!("{}", crate::class::outputs::render(&plan.output));
    print!("{}", report::engines::render(&finished.engine_rows));
    print!("{}", summary::failures(records, &played.log_dir));
    println!(
        "{}",
        summary::runner_cost(this_run, played.plies, played.wall, summary::own_cpu())
    );
    println!("results in {}", plan.output.display());
}

/// The exit code, or the stop that explains a run that did not end well.
fn exit_code(plan: &Plan, finished: &Finished, played: &Played, total: u64) -> Result<u8, Stop> {
    let records = &finished.recorder.records;
    if let Some(e) = &finished.recorder.write_error {
        return Err(Stop::new(
            FAILED,
            format!(
                "stopped: cannot write {e}; games.csv holds {} of the {} games finished; free space (or fix the file), then run the same command to resume",
                finished.recorder.on_disk,
                records.len()
            ),
        ));
    }
    for note in &finished.visual_notes {
        eprintln!("note: {note}");
    }
    if !played.completed {
        eprintln!(
            "interrupted after {} of {total} games; run the same command to resume",
            records.len()
        );
        return Ok(INTERRUPTED);
    }
    let withdrawals = &finished.recorder.withdrawals;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{BoardSpec, GameKind};
    use crate::record::{GameIds, Termination};
    use crate::schedule::{self, Entrants};

    /// Two engines on Awale 6, `rounds` game pairs.
    fn schedule(rounds: u32) -> Schedule {
        let boards: Vec<BoardSpec> = vec![serde_yaml::from_str("{game: awale, pits: 6}").unwrap()];
        let board_names: Vec<String> = boards.iter().map(BoardSpec::name).collect();
        let engine_names = vec!["a".to_owned(), "b".to_owned()];
        let plays = vec![GameKind::ALL.to_vec(); 2];
        let entrants = Entrants {
            boards: &boards,
            board_names: &board_names,
            engine_names: &engine_names,
            plays: &plays,
        };
        schedule::build(&entrants, rounds, 3, &schedule::Pairing::All).unwrap()
    }

    fn record_of(f: &Fixture) -> GameRecord {
        let ids = GameIds {
            game_id: f.id,
            round: f.round,
            pair: f.pair,
            board: "awale-6",
            game: "awale",
            first: "a",
            second: "b",
        };
        GameRecord::unplayed(ids, "1-0", Termination::Normal, String::new())
    }

    #[test]
    fn games_to_play_are_the_scheduled_games_not_recorded_in_schedule_order() {
        let s = schedule(3);
        assert_eq!(s.fixtures.len(), 6);
        let done = vec![record_of(&s.fixtures[4]), record_of(&s.fixtures[1])];
        let todo: Vec<u64> = games_to_play(&s, &done, None)
            .iter()
            .map(|f| f.id)
            .collect();
        assert_eq!(todo, [0, 2, 3, 5]);
        let all: Vec<u64> = games_to_play(&s, &[], None).iter().map(|f| f.id).collect();
        assert_eq!(all, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn transcripts_follow_renumbered_games_even_when_ids_swap() {
        let dir = tempfile::tempdir().unwrap();
        for (id, text) in [(1, "one"), (2, "two")] {
            fs::write(dir.path().join(format!("{id}.log")), text).unwrap();
        }
        // 1 ↔ 2 swap, and 7 (no transcript) is no error.
        move_transcripts(dir.path(), &[(1, 2), (2, 1), (7, 8)]);
        let read = |id: u32| fs::read_to_string(dir.path().join(format!("{id}.log"))).unwrap();
        assert_eq!((read(1).as_str(), read(2).as_str()), ("two", "one"));
        assert!(!dir.path().join("8.log").exists());
    }
}
