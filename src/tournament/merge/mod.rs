//! `arena merge`: the output directories of the shards of one tournament (`arena run --shard
//! K/N`) joined into the directory a single run would have written.
//!
//! Every shard must come from the same resolved config and seed (all keys but those that
//! change no game played, as a resume allows: `concurrency`, `output`, `name`, `record_moves`…)
//! and the same plays; the schedule is rebuilt from them, so each row is checked against the
//! game its id stands for, its start position and the shard that should have played it, and
//! is replayed by the rules ([`rows`]): a result a run never writes, an illegal move or a
//! result the replay contradicts is refused with the shard's file and line. Duplicates are
//! named with both shards, and missing games are listed by shard with the command to re-run
//! it. Then games.csv is written id-sorted, and everything else through the same functions as
//! `arena run` ([`super::outputs`]). Reads shard directories only; writes only into `--output`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_yaml::Value;

use crate::config::Config;
use crate::games::GameKind;
use crate::record::GameRecord;
use crate::report::{files, summary};
use crate::schedule::{self, Entrants, Schedule};

use super::resume::{self, Plays, Previous};

pub mod rows;
use super::shard::{self, Shard};
use super::{BAD_CONFIG, DONE, FAILED, Stop, outputs};

/// The file `arena merge` writes into its output directory: which shard directories it
/// joined. Its presence lets a later merge overwrite the directory without `--force`.
pub const MERGED: &str = "merged.yaml";

/// Per-game CSV files (a header row with a `game_id` column) that shards may hold: joined in
/// game id order when present. The one place to name such a file.
pub const PER_GAME_CSV: &[&str] = &[crate::report::html::inputs::MOVES];

/// What `arena merge` is asked to do.
#[derive(Clone, Debug, Default)]
pub struct MergeOptions {
    /// The shards' output directories.
    pub shards: Vec<PathBuf>,
    /// Where the merged files go.
    pub output: PathBuf,
    /// Write over results in `output` that no merge wrote.
    pub force: bool,
    /// No summary.
    pub quiet: bool,
}

/// One shard's directory, as read.
struct ShardDir {
    dir: PathBuf,
    shard: Shard,
    config: Config,
    plays: Plays,
    records: Vec<GameRecord>,
    /// The line of games.csv each record starts on (0 where unknown).
    lines: Vec<u64>,
}

/// Reads a shard's directory: `None` when it does not exist (its games are then missing).
fn read_shard(dir: &Path) -> Result<Option<ShardDir>, Stop> {
    if !dir.exists() {
        return Ok(None);
    }
    let usage = |why: String| Stop::new(BAD_CONFIG, format!("{}: {why}", dir.display()));
    let shard = shard::recorded(dir)
        .map_err(|e| Stop::new(BAD_CONFIG, e))?
        .ok_or_else(|| {
            usage(format!(
                "not the output directory of a shard (no {}; `arena run CONFIG --shard K/N` writes one)",
                shard::FILE
            ))
        })?;
    let previous = Previous::read(dir);
    let config = match (previous.config, previous.config_error) {
        (Some(c), _) => c,
        (None, Some(e)) => return Err(Stop::new(BAD_CONFIG, e)),
        (None, None) => {
            return Err(usage(format!(
                "no {} (the shard's run stopped before its first game?)",
                resume::RESOLVED
            )));
        }
    };
    let plays = previous.plays.unwrap_or_default();
    let games = dir.join(files::GAMES);
    let (records, lines) = if games.exists() {
        let (rows, cut) =
            files::read_games(&games).map_err(|e| Stop::new(FAILED, e.to_string()))?;
        if let Some(cut) = cut {
            eprintln!("note: {}: {cut}", games.display());
        }
        let lines = rows::row_lines(&games).map_err(|e| Stop::new(FAILED, e))?;
        (rows, lines)
    } else {
        (Vec::new(), Vec::new())
    };
    Ok(Some(ShardDir {
        dir: dir.to_owned(),
        shard,
        config,
        plays,
        records,
        lines,
    }))
}

/// The config keys that no game played depends on, which a resume lets change between runs
/// (see [`resume`]): shards may differ in them, and the merged files take the first shard's.
const GAME_NEUTRAL: &[&str] = &[
    "concurrency",
    "output",
    "name",
    "anchor",
    "confidence",
    "on_engine_failure",
    "withdraw_after",
    "strict_options",
    "handshake_timeout_ms",
    "record_moves",
];

/// The config's keys, as written in `config.resolved.yaml`.
fn keys(config: &Config) -> BTreeMap<String, Value> {
    serde_yaml::to_value(config)
        .ok()
        .and_then(|v| v.as_mapping().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), v)))
        .collect()
}

/// The keys in which two shards' configs differ, split into those that change games (first)
/// and [`GAME_NEUTRAL`] ones (second).
fn config_differences(a: &Config, b: &Config) -> (Vec<String>, Vec<String>) {
    let (ka, kb) = (keys(a), keys(b));
    let names: BTreeSet<&String> = ka.keys().chain(kb.keys()).collect();
    let (mut games, mut neutral) = (Vec::new(), Vec::new());
    for k in names.into_iter().filter(|k| ka.get(*k) != kb.get(*k)) {
        match k.as_str() {
            k if GAME_NEUTRAL.contains(&k) => neutral.push(k.to_owned()),
            "seed" => games.push(format!(
                "seed ({} vs {})",
                a.seed.unwrap_or_default(),
                b.seed.unwrap_or_default()
            )),
            "rounds" => games.push(format!("rounds ({} vs {})", a.rounds, b.rounds)),
            _ => games.push(k.clone()),
        }
    }
    (games, neutral)
}

/// The ways in which two shards are not of one tournament (empty: they are): config keys
/// that change games, plays, the number of shards.
fn differences(a: &ShardDir, b: &ShardDir) -> Vec<String> {
    let (mut diff, _) = config_differences(&a.config, &b.config);
    if a.plays != b.plays {
        diff.push(format!("the games each engine plays ({})", resume::PLAYS));
    }
    if a.shard.shards != b.shard.shards {
        diff.push(format!(
            "the number of shards ({} vs {})",
            a.shard.shards, b.shard.shards
        ));
    }
    diff
}

/// The schedule a shard's run built: from its resolved config and plays (an engine missing
/// from plays.yaml was assumed to play every game, as the run assumed).
fn schedule_of(config: &Config, plays: &Plays) -> Result<Schedule, String> {
    let board_names: Vec<String> = config.boards.iter().map(|b| b.name()).collect();
    let engine_names: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let plays: Vec<Vec<GameKind>> = engine_names
        .iter()
        .map(|n| {
            plays
                .get(n)
                .cloned()
                .unwrap_or_else(|| GameKind::ALL.to_vec())
        })
        .collect();
    if config.format.pairs_by_results() {
        return Err(
            "a Swiss or knockout is never played in shards (each round is paired from the last), so there is nothing to merge".into(),
        );
    }
    let pairing = schedule::Pairing::of(config, &engine_names)?;
    schedule::build(
        &Entrants {
            boards: &config.boards,
            board_names: &board_names,
            engine_names: &engine_names,
            plays: &plays,
        },
        config.rounds,
        config.seed.unwrap_or_default(),
        &pairing,
    )
    .map_err(|e| e.to_string())
}

/// Refuses an output directory that is one of the shards, or that holds results no merge
/// wrote (unless `force`).
fn check_output(options: &MergeOptions) -> Result<(), Stop> {
    let out = fs::canonicalize(&options.output).ok();
    for dir in &options.shards {
        if out.is_some() && fs::canonicalize(dir).ok() == out {
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "--output {} is one of the shard directories; choose another directory",
                    options.output.display()
                ),
            ));
        }
    }
    let games = options.output.join(files::GAMES);
    if games.exists() && !options.output.join(MERGED).exists() && !options.force {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{} holds results that no `arena merge` wrote; choose another --output, or replace them with --force",
                options.output.display()
            ),
        ));
    }
    Ok(())
}

/// Joins the per-game files of the shards into `out`: protocol transcripts
/// (`logs/games/<id>.log`, linked or copied) and each [`PER_GAME_CSV`] file present in a
/// shard. Where a file that a run writes per game gets into the merged directory.
///
/// # Errors
/// A message naming the file that could not be read or written.
fn per_game_files(shards: &[&Path], out: &Path) -> Result<(), String> {
    let logs = out.join("logs").join("games");
    for dir in shards {
        let Ok(entries) = fs::read_dir(dir.join("logs").join("games")) else {
            continue;
        };
        for entry in entries.flatten() {
            fs::create_dir_all(&logs).map_err(|e| format!("{}: {e}", logs.display()))?;
            let to = logs.join(entry.file_name());
            let _ = fs::remove_file(&to);
            if fs::hard_link(entry.path(), &to).is_err() {
                fs::copy(entry.path(), &to).map_err(|e| format!("{}: {e}", to.display()))?;
            }
        }
    }
    for name in PER_GAME_CSV {
        let inputs: Vec<PathBuf> = shards
            .iter()
            .map(|d| d.join(name))
            .filter(|p| p.is_file())
            .collect();
        if !inputs.is_empty() {
            join_csv(&inputs, &out.join(name))?;
        }
    }
    Ok(())
}

/// Writes the rows of `inputs` (CSV files with the same header, holding a `game_id` column)
/// into `output`, ordered by game id; rows of one game keep their order. Returns the rows.
///
/// # Errors
/// A message naming the file whose header differs, whose `game_id` is not a number, or that
/// cannot be read or written.
pub fn join_csv(inputs: &[PathBuf], output: &Path) -> Result<usize, String> {
    let mut header: Option<(csv::StringRecord, &Path)> = None;
    let mut rows: Vec<(u64, csv::StringRecord)> = Vec::new();
    let mut id_column = 0;
    for path in inputs {
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let mut reader = csv::Reader::from_path(path).map_err(|e| fail(&e))?;
        let this = reader.headers().map_err(|e| fail(&e))?.clone();
        match &header {
            Some((h, first)) if *h != this => {
                return Err(format!(
                    "{}: its header differs from {}'s",
                    path.display(),
                    first.display()
                ));
            }
            Some(_) => {}
            None => {
                id_column = this
                    .iter()
                    .position(|c| c == "game_id")
                    .ok_or_else(|| fail(&"no game_id column"))?;
                header = Some((this, path));
            }
        }
        for (line, row) in reader.records().enumerate() {
            let row = row.map_err(|e| fail(&e))?;
            let id = row
                .get(id_column)
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| fail(&format!("row {}: game_id is not a number", line + 2)))?;
            rows.push((id, row));
        }
    }
    rows.sort_by_key(|(id, _)| *id);
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", output.display());
    let mut writer = csv::Writer::from_path(output).map_err(|e| fail(&e))?;
    if let Some((h, _)) = &header {
        writer.write_record(h).map_err(|e| fail(&e))?;
    }
    for (_, row) in &rows {
        writer.write_record(row).map_err(|e| fail(&e))?;
    }
    writer.flush().map_err(|e| fail(&e))?;
    Ok(rows.len())
}

/// What a row is checked against: the schedule, its fixtures by id, the shard each fixture
/// is dealt to, and the names that make up a fixture's [`crate::schedule::GameKey`].
struct Expected<'a> {
    schedule: &'a Schedule,
    by_id: BTreeMap<u64, usize>,
    dealt: Vec<u32>,
    board_names: Vec<String>,
    engine_names: Vec<String>,
}

impl<'a> Expected<'a> {
    /// The schedule's fixtures of `config` (the first shard's), dealt over `shards` shards.
    fn new(config: &Config, schedule: &'a Schedule, shards: u32) -> Expected<'a> {
        Expected {
            schedule,
            by_id: schedule
                .fixtures
                .iter()
                .enumerate()
                .map(|(i, f)| (f.id, i))
                .collect(),
            dealt: shard::deal(&schedule.fixtures, shards),
            board_names: config.boards.iter().map(|b| b.name()).collect(),
            engine_names: config.engines.iter().map(|e| e.name.clone()).collect(),
        }
    }
}

/// The problems with the rows of the shards, against the schedule: each row's own
/// ([`check_row`]), duplicates naming both shards ([`duplicated`]) and missing games by
/// shard with the command to re-run it ([`missing`]).
fn check_rows(shards: &[ShardDir], given: &[PathBuf], schedule: &Schedule) -> Vec<String> {
    let n = shards[0].shard.shards;
    let expected = Expected::new(&shards[0].config, schedule, n);
    let mut problems = Vec::new();
    let mut owner: BTreeMap<u64, &Path> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for s in shards {
        let games = s.dir.join(files::GAMES);
        for (k, r) in s.records.iter().enumerate() {
            let line = s.lines.get(k).copied().unwrap_or_default();
            if let Err(why) = check_row(s, r, &expected) {
                problems.push(format!(
                    "{}:{line}: game {} {why}",
                    games.display(),
                    r.game_id
                ));
                continue;
            }
            if let Some(other) = owner.insert(r.game_id, &s.dir) {
                duplicates.push((r.game_id, other, s.dir.as_path()));
            }
        }
    }
    problems.extend(duplicated(duplicates));
    problems.extend(missing(shards, given, schedule, &expected.dealt, &owner));
    problems
}

/// One row against the game its id stands for: in the schedule, the same board, round and
/// engines, the same start position, in the shard it was dealt to; then its result and its
/// replay ([`rows`]).
///
/// # Errors
/// What is wrong, in words after "game ID" (the caller names the file and line).
fn check_row(s: &ShardDir, r: &GameRecord, expected: &Expected<'_>) -> Result<(), String> {
    let Some(&i) = expected.by_id.get(&r.game_id) else {
        return Err(format!(
            "is not in the schedule of this config ({} games)",
            expected.schedule.fixtures.len()
        ));
    };
    let f = &expected.schedule.fixtures[i];
    let key = f.key(&expected.board_names, &expected.engine_names);
    if (
        r.board.as_str(),
        r.round,
        r.first.as_str(),
        r.second.as_str(),
    ) != (key.0.as_str(), key.1, key.2.as_str(), key.3.as_str())
    {
        return Err(format!(
            "is {} round {} {} vs {}, but the schedule's game {} is {} round {} {} vs {}",
            r.board, r.round, r.first, r.second, f.id, key.0, key.1, key.2, key.3
        ));
    }
    if expected.dealt[i] != s.shard.shard {
        return Err(format!(
            "belongs to shard {}/{}, not to this shard {}",
            expected.dealt[i], s.shard.shards, s.shard
        ));
    }
    if expected.schedule.start(f).fen() != r.start_fen {
        return Err("is refused: its start position is not the schedule's".into());
    }
    rows::check_result(r)
        .and_then(|()| rows::check_replay(r))
        .map_err(|e| format!("is refused: {e}"))
}

/// The duplicates found (game id, first directory, second), one line per pair of
/// directories with the ids.
fn duplicated(duplicates: Vec<(u64, &Path, &Path)>) -> Vec<String> {
    let mut pairs: BTreeMap<(&Path, &Path), Vec<u64>> = BTreeMap::new();
    for (id, a, b) in duplicates {
        pairs.entry((a, b)).or_default().push(id);
    }
    pairs
        .into_iter()
        .map(|((a, b), ids)| {
            let place = if a == b {
                format!("twice in {}", a.display())
            } else {
                format!("in both {} and {}", a.display(), b.display())
            };
            format!(
                "{} game(s) {place} (ids {})",
                ids.len(),
                shard::ranges(&ids, 20)
            )
        })
        .collect()
}

/// The games no shard holds (`owner` has the ones held), by shard, with the command that
/// re-runs each shard; `None` when none is missing.
fn missing(
    shards: &[ShardDir],
    given: &[PathBuf],
    schedule: &Schedule,
    dealt: &[u32],
    owner: &BTreeMap<u64, &Path>,
) -> Option<String> {
    let n = shards[0].shard.shards;
    let mut missing: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for (f, &k) in schedule.fixtures.iter().zip(dealt) {
        if !owner.contains_key(&f.id) {
            missing.entry(k).or_default().push(f.id);
        }
    }
    if missing.is_empty() {
        return None;
    }
    let total: usize = missing.values().map(Vec::len).sum();
    let mut text = format!(
        "{total} of {} games are missing; re-run these shards (each resumes where it stopped), then merge again:",
        schedule.fixtures.len()
    );
    for (k, ids) in &missing {
        let shard = Shard {
            shard: *k,
            shards: n,
        };
        let dir = shards
            .iter()
            .find(|s| s.shard == shard)
            .map(|s| s.dir.clone())
            .or_else(|| {
                // A directory given but absent: the one named like the shard, if any.
                given
                    .iter()
                    .find(|d| !d.exists() && d.to_string_lossy().ends_with(&format!("-{k}")))
                    .cloned()
            });
        let place = dir.map_or_else(
            || "no directory given".to_owned(),
            |d| d.display().to_string(),
        );
        text.push_str(&format!(
            "\n  shard {shard} ({place}): {} game(s), ids {}; `arena run CONFIG --seed {seed} --shard {shard} --output DIR` (on Slurm: `sbatch --array={k} shards.sbatch`)",
            ids.len(),
            shard::ranges(ids, 12),
            seed = shards[0].config.seed.unwrap_or_default(),
        ));
    }
    Some(text)
}

/// Runs `arena merge`, as a sequence of steps: the output directory, the shards read, one
/// tournament, every row checked, the files written, the summary.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] for bad usage (no shard, a directory that is not a shard's,
/// an output that is a shard or holds other results); with [`FAILED`] for shards of different
/// configs, seeds or shard counts, duplicated, misplaced, missing or wrong games (a result a
/// run never writes, illegal moves, a result the replay contradicts), unwritable files.
pub fn merge(options: &MergeOptions) -> Result<u8, Stop> {
    if options.shards.is_empty() {
        return Err(Stop::new(BAD_CONFIG, "give the shards' output directories"));
    }
    check_output(options)?;
    let shards = read_shards(&options.shards)?;
    let first = &shards[0];
    let problems = one_tournament(&shards);
    if !problems.is_empty() {
        return Err(Stop::new(FAILED, problems.join("\n")));
    }
    let schedule = schedule_of(&first.config, &first.plays).map_err(|e| {
        Stop::new(
            FAILED,
            format!("{}: {e}", first.dir.join(resume::RESOLVED).display()),
        )
    })?;
    let problems = check_rows(&shards, &options.shards, &schedule);
    if !problems.is_empty() {
        return Err(Stop::new(FAILED, problems.join("\n")));
    }
    let (table, records, visual) = write_merged(&options.output, &shards)?;
    if !options.quiet {
        print!(
            "{}",
            summary::render(
                &table,
                &records,
                outputs::Context::of_resolved(&first.config).confidence
            )
        );
        println!(
            "merged {} games of {} shard(s) into {}",
            records.len(),
            shards.len(),
            options.output.display()
        );
    }
    let visual = visual.map_err(|e| Stop::new(FAILED, e))?;
    for failure in &visual.failures {
        eprintln!("note: {failure}");
    }
    Ok(DONE)
}

/// Step 2: reads every shard directory given, noting those that do not exist (their games
/// count as missing).
///
/// # Errors
/// As [`read_shard`]; [`FAILED`] when none exists.
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, Stop> {
    let mut shards = Vec::new();
    let mut absent = Vec::new();
    for dir in dirs {
        match read_shard(dir)? {
            Some(s) => shards.push(s),
            None => absent.push(dir.display().to_string()),
        }
    }
    if !absent.is_empty() {
        eprintln!(
            "note: no such shard directory: {} (its games count as missing)",
            absent.join(", ")
        );
    }
    if shards.is_empty() {
        return Err(Stop::new(
            FAILED,
            "none of the shard directories exists (have the shards run?)",
        ));
    }
    Ok(shards)
}

/// Step 3: why the shards are not one tournament (empty: they are): a difference that
/// changes games, or one shard given twice. Differences in [`GAME_NEUTRAL`] keys are only
/// noted: the merged files take the first shard's.
fn one_tournament(shards: &[ShardDir]) -> Vec<String> {
    let first = &shards[0];
    let mut problems = Vec::new();
    for other in &shards[1..] {
        let diff = differences(first, other);
        if !diff.is_empty() {
            problems.push(format!(
                "{} and {} are not shards of the same tournament (they differ in: {})",
                first.dir.display(),
                other.dir.display(),
                diff.join("; ")
            ));
        }
        let (_, neutral) = config_differences(&first.config, &other.config);
        let neutral: Vec<String> = neutral
            .into_iter()
            .filter(|k| k != "concurrency" && k != "output")
            .collect();
        if !neutral.is_empty() {
            eprintln!(
                "note: {} and {} differ in {}, which change no game; the merged files take {}'s",
                first.dir.display(),
                other.dir.display(),
                neutral.join(", "),
                first.dir.display()
            );
        }
    }
    let mut seen: BTreeMap<Shard, &Path> = BTreeMap::new();
    for s in shards {
        if let Some(other) = seen.insert(s.shard, &s.dir) {
            if fs::canonicalize(other).ok() != fs::canonicalize(&s.dir).ok() {
                problems.push(format!(
                    "{} and {} are both shard {}",
                    other.display(),
                    s.dir.display(),
                    s.shard
                ));
            } else {
                problems.push(format!("{} is given twice", s.dir.display()));
            }
        }
    }
    problems
}

/// What [`write_merged`] leaves for the summary: the tables, the games, and how report.html
/// and results.xlsx went.
type Written = (
    crate::standings::Standings,
    Vec<GameRecord>,
    Result<crate::report::html::Written, String>,
);

/// Step 5: writes into `out` what one run writes: its resolved config and plays, the list
/// of shards joined, games.csv, the per-game files, the rating files, report.html,
/// results.xlsx and engines.csv.
///
/// # Errors
/// [`FAILED`] naming a file that could not be written.
fn write_merged(out: &Path, shards: &[ShardDir]) -> Result<Written, Stop> {
    let first = &shards[0];
    fs::create_dir_all(out)
        .map_err(|e| Stop::new(FAILED, format!("{}: cannot create: {e}", out.display())))?;
    let write = |name: &str, text: String| {
        fs::write(out.join(name), text)
            .map_err(|e| Stop::new(FAILED, format!("{}: {e}", out.join(name).display())))
    };
    let mut config = first.config.clone();
    config.output = Some(out.to_owned());
    write(
        resume::RESOLVED,
        serde_yaml::to_string(&config).unwrap_or_default(),
    )?;
    write(
        resume::PLAYS,
        serde_yaml::to_string(&first.plays).unwrap_or_default(),
    )?;
    let dirs: Vec<String> = shards.iter().map(|s| s.dir.display().to_string()).collect();
    write(
        MERGED,
        format!(
            "# Written by `arena merge`: the shards joined here.\n{}",
            serde_yaml::to_string(&BTreeMap::from([("shards", dirs)])).unwrap_or_default()
        ),
    )?;
    copy_class_files(out, shards)?;
    let mut records: Vec<GameRecord> = shards.iter().flat_map(|s| s.records.clone()).collect();
    // A game may repeat one of another shard.
    crate::repeats::mark(&mut records);
    files::rewrite_games(&out.join(files::GAMES), &records)
        .map_err(|e| Stop::new(FAILED, e.to_string()))?;
    let dirs: Vec<&Path> = shards.iter().map(|s| s.dir.as_path()).collect();
    per_game_files(&dirs, out).map_err(|e| Stop::new(FAILED, e))?;
    let context = outputs::Context::of_resolved(&first.config);
    let (table, visual) = outputs::write(out, &context, &mut records)?;
    // engines.csv as a run writes it: times and failures from the games, depth and nodes/s
    // from the merged moves.csv when the shards recorded moves.
    let moves = out.join(crate::record::moves::MOVES);
    let totals = if moves.exists() {
        crate::report::engines::MoveTotals::from_file(&moves).map_err(|e| Stop::new(FAILED, e))?
    } else {
        crate::report::engines::MoveTotals::default()
    };
    let engine_rows = crate::report::engines::compute(&records, &context.engines, &totals);
    crate::report::engines::write(out, &engine_rows).map_err(|e| Stop::new(FAILED, e))?;
    Ok((table, records, visual))
}

/// A class championship's `teams.csv` and `pseudonyms.csv`, which every shard wrote alike
/// (same submissions, same salt), taken from the first shard; refused when the shards entered
/// different teams or named them differently. Status, level and grade are recomputed from
/// the merged games.
fn copy_class_files(out: &Path, shards: &[ShardDir]) -> Result<(), Stop> {
    use crate::class::{outputs, pseudonyms};
    let fail = |e: String| Stop::new(FAILED, e);
    let mut rosters = Vec::new();
    for s in shards {
        let rows = outputs::read(&s.dir).map_err(fail)?;
        let salt = pseudonyms::read_salt(&s.dir).map_err(fail)?;
        let teams = rows.map(|rows| {
            rows.into_iter()
                .map(|r| (r.entered(), r.team, r.name, r.submission, r.kind, r.command))
                .collect::<Vec<_>>()
        });
        rosters.push((teams, salt));
    }
    if let Some(k) = rosters.iter().position(|r| *r != rosters[0]) {
        return Err(Stop::new(
            FAILED,
            format!(
                "{} and {} hold different teams or pseudonyms ({}, {}): the shards are not of one championship",
                shards[0].dir.display(),
                shards[k].dir.display(),
                outputs::FILE,
                pseudonyms::FILE
            ),
        ));
    }
    for name in [outputs::FILE, pseudonyms::FILE] {
        let from = shards[0].dir.join(name);
        if from.exists() {
            fs::copy(&from, out.join(name))
                .map_err(|e| fail(format!("{}: {e}", out.join(name).display())))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_game_csv_files_are_joined_in_id_order_keeping_each_game_s_rows() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        fs::write(&a, "game_id,ply,move\n2,1,x\n2,2,y\n0,1,z\n").unwrap();
        fs::write(&b, "game_id,ply,move\n1,1,\"q,r\"\n3,1,s\n").unwrap();
        let out = dir.path().join("out.csv");
        assert_eq!(join_csv(&[a.clone(), b.clone()], &out), Ok(5));
        assert_eq!(
            fs::read_to_string(&out).unwrap(),
            "game_id,ply,move\n0,1,z\n1,1,\"q,r\"\n2,1,x\n2,2,y\n3,1,s\n"
        );
        fs::write(&b, "game_id,move\n1,q\n").unwrap();
        let err = join_csv(&[a.clone(), b], &out).unwrap_err();
        assert!(
            err.contains("b.csv") && err.contains("header differs"),
            "{err}"
        );
        fs::write(&a, "game_id,move\nx,q\n").unwrap();
        let err = join_csv(&[a], &out).unwrap_err();
        assert!(
            err.contains("row 2") && err.contains("not a number"),
            "{err}"
        );
    }
}
