//! `arena merge`: the output directories of the shards of one tournament (`arena run --shard
//! K/N`) joined into the directory a single run would have written.
//!
//! Every shard must come from the same resolved config and seed (all keys but `concurrency`
//! and `output`) and the same plays; the schedule is rebuilt from them, so each row is checked
//! against the game its id stands for and the shard that should have played it, duplicates are
//! named with both shards, and missing games are listed by shard with the command to re-run
//! it. Then games.csv is written id-sorted, and everything else through the same functions as
//! `arena run` ([`super::outputs`]). Reads shard directories only; writes only into `--output`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_yaml::Value;

use crate::config::{Config, Format};
use crate::games::GameKind;
use crate::record::GameRecord;
use crate::report::{files, summary};
use crate::schedule::{self, Entrants, Schedule};

use super::resume::{self, Plays, Previous};
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
    let records = if games.exists() {
        let (rows, cut) =
            files::read_games(&games).map_err(|e| Stop::new(FAILED, e.to_string()))?;
        if let Some(cut) = cut {
            eprintln!("note: {}: {cut}", games.display());
        }
        rows
    } else {
        Vec::new()
    };
    Ok(Some(ShardDir {
        dir: dir.to_owned(),
        shard,
        config,
        plays,
        records,
    }))
}

/// The config keys that decide the games and the result files: all but `concurrency` and
/// `output`, which differ between shards by design.
fn comparable(config: &Config) -> BTreeMap<String, Value> {
    let mut config = config.clone();
    config.concurrency = None;
    config.output = None;
    serde_yaml::to_value(&config)
        .ok()
        .and_then(|v| v.as_mapping().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_owned(), v)))
        .collect()
}

/// The keys in which two shards' configs or plays differ (empty: the same tournament).
fn differences(a: &ShardDir, b: &ShardDir) -> Vec<String> {
    let (ca, cb) = (comparable(&a.config), comparable(&b.config));
    let keys: BTreeSet<&String> = ca.keys().chain(cb.keys()).collect();
    let mut diff: Vec<String> = keys
        .into_iter()
        .filter(|k| ca.get(*k) != cb.get(*k))
        .map(|k| match k.as_str() {
            "seed" => format!(
                "seed ({} vs {})",
                a.config.seed.unwrap_or_default(),
                b.config.seed.unwrap_or_default()
            ),
            "rounds" => format!("rounds ({} vs {})", a.config.rounds, b.config.rounds),
            _ => k.clone(),
        })
        .collect();
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
    let hub = match config.format {
        Format::Gauntlet => config
            .gauntlet_engine
            .as_ref()
            .and_then(|g| engine_names.iter().position(|n| n == g)),
        Format::RoundRobin => None,
    };
    schedule::build(
        &Entrants {
            boards: &config.boards,
            board_names: &board_names,
            engine_names: &engine_names,
            plays: &plays,
        },
        config.rounds,
        config.seed.unwrap_or_default(),
        hub,
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

/// The problems with the rows of the shards, against the schedule: rows whose id is not the
/// schedule's game, rows in the wrong shard, duplicates (naming both shards) and missing games
/// (by shard, with the command to re-run it).
fn check_rows(shards: &[ShardDir], given: &[PathBuf], schedule: &Schedule) -> Vec<String> {
    let n = shards[0].shard.shards;
    let first = &shards[0].config;
    let board_names: Vec<String> = first.boards.iter().map(|b| b.name()).collect();
    let engine_names: Vec<String> = first.engines.iter().map(|e| e.name.clone()).collect();
    let dealt = shard::deal(&schedule.fixtures, n);
    let by_id: BTreeMap<u64, usize> = schedule
        .fixtures
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id, i))
        .collect();
    let mut problems = Vec::new();
    let mut owner: BTreeMap<u64, &Path> = BTreeMap::new();
    let mut duplicates = Vec::new();
    for s in shards {
        for r in &s.records {
            let Some(&i) = by_id.get(&r.game_id) else {
                problems.push(format!(
                    "{}: game {} is not in the schedule of this config ({} games)",
                    s.dir.display(),
                    r.game_id,
                    schedule.fixtures.len()
                ));
                continue;
            };
            let f = &schedule.fixtures[i];
            let key = f.key(&board_names, &engine_names);
            if (
                r.board.as_str(),
                r.round,
                r.first.as_str(),
                r.second.as_str(),
            ) != (key.0.as_str(), key.1, key.2.as_str(), key.3.as_str())
            {
                problems.push(format!(
                    "{}: game {} is {} round {} {} vs {}, but the schedule's game {} is {} round {} {} vs {}",
                    s.dir.display(),
                    r.game_id,
                    r.board,
                    r.round,
                    r.first,
                    r.second,
                    f.id,
                    key.0,
                    key.1,
                    key.2,
                    key.3
                ));
                continue;
            }
            if dealt[i] != s.shard.shard {
                problems.push(format!(
                    "{} (shard {}): game {} belongs to shard {}/{n}",
                    s.dir.display(),
                    s.shard,
                    r.game_id,
                    dealt[i]
                ));
                continue;
            }
            if let Some(other) = owner.insert(r.game_id, &s.dir) {
                duplicates.push((r.game_id, other, s.dir.as_path()));
            }
        }
    }
    let mut pairs: BTreeMap<(&Path, &Path), Vec<u64>> = BTreeMap::new();
    for (id, a, b) in duplicates {
        pairs.entry((a, b)).or_default().push(id);
    }
    for ((a, b), ids) in pairs {
        let place = if a == b {
            format!("twice in {}", a.display())
        } else {
            format!("in both {} and {}", a.display(), b.display())
        };
        problems.push(format!(
            "{} game(s) {place} (ids {})",
            ids.len(),
            shard::ranges(&ids, 20)
        ));
    }
    // Missing games, by shard.
    let mut missing: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for (f, &k) in schedule.fixtures.iter().zip(&dealt) {
        if !owner.contains_key(&f.id) {
            missing.entry(k).or_default().push(f.id);
        }
    }
    if !missing.is_empty() {
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
                seed = first.seed.unwrap_or_default(),
            ));
        }
        problems.push(text);
    }
    problems
}

/// Runs `arena merge`; returns the exit code.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] for bad usage (no shard, a directory that is not a shard's,
/// an output that is a shard or holds other results); with [`FAILED`] for shards of different
/// configs, seeds or shard counts, duplicated, misplaced or missing games, unwritable files.
pub fn merge(options: &MergeOptions) -> Result<u8, Stop> {
    if options.shards.is_empty() {
        return Err(Stop::new(BAD_CONFIG, "give the shards' output directories"));
    }
    check_output(options)?;
    let mut shards = Vec::new();
    let mut absent = Vec::new();
    for dir in &options.shards {
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
    let Some(first) = shards.first() else {
        return Err(Stop::new(
            FAILED,
            "none of the shard directories exists (have the shards run?)",
        ));
    };
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
    }
    let mut seen: BTreeMap<Shard, &Path> = BTreeMap::new();
    for s in &shards {
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

    let out = &options.output;
    fs::create_dir_all(out)
        .map_err(|e| Stop::new(FAILED, format!("{}: cannot create: {e}", out.display())))?;
    let write = |name: &str, text: String| {
        fs::write(out.join(name), text)
            .map_err(|e| Stop::new(FAILED, format!("{}: {e}", out.join(name).display())))
    };
    let mut config = first.config.clone();
    config.output = Some(out.clone());
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
    let mut records: Vec<GameRecord> = shards.iter().flat_map(|s| s.records.clone()).collect();
    files::rewrite_games(&out.join(files::GAMES), &records)
        .map_err(|e| Stop::new(FAILED, e.to_string()))?;
    let dirs: Vec<&Path> = shards.iter().map(|s| s.dir.as_path()).collect();
    per_game_files(&dirs, out).map_err(|e| Stop::new(FAILED, e))?;
    let context = outputs::Context::of_resolved(&first.config);
    let (table, visual) = outputs::write(out, &context, &mut records)?;
    // engines.csv as a run writes it: times and failures from the games, depth and nodes/s
    // from the merged moves.csv when the shards recorded moves.
    let moves = out.join(crate::play::moves_file::MOVES);
    let totals = if moves.exists() {
        crate::report::engines::MoveTotals::from_file(&moves).map_err(|e| Stop::new(FAILED, e))?
    } else {
        crate::report::engines::MoveTotals::default()
    };
    let engine_rows = crate::report::engines::compute(&records, &context.engines, &totals);
    crate::report::engines::write(out, &engine_rows).map_err(|e| Stop::new(FAILED, e))?;
    if !options.quiet {
        print!("{}", summary::render(&table, &records, context.confidence));
        println!(
            "merged {} games of {} shard(s) into {}",
            records.len(),
            shards.len(),
            out.display()
        );
    }
    let visual = visual.map_err(|e| Stop::new(FAILED, e))?;
    for failure in &visual.failures {
        eprintln!("note: {failure}");
    }
    Ok(DONE)
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
