//! moves.csv rewritten to match games.csv, as [`super::resume::sort_rows`] and
//! `files::rewrite_games` treat games.csv: on resume, the rows of kept games stay, renumbered to
//! the new schedule's ids, in games.csv's order; at the end of a run, sorted by game id like
//! games.csv. The rows of any other game (dropped, replayed, cut short by an interrupted run,
//! or half written) are set aside in `moves.dropped.csv`, never silently kept or lost.
//!
//! A game's rows are a run of consecutive rows of one `game_id` with plies 1, 2, …; a run is
//! kept only when its moves are exactly the kept record's `moves`. Touches only moves.csv and
//! moves.dropped.csv; knows no game's rules.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::Path;

use crate::play::moves_file::{self, HEADER};
use crate::record::GameRecord;
use crate::report::engines::{MoveTotals, nps_of};

/// Rows of moves.csv whose game is not kept, set aside on resume.
pub const DROPPED: &str = "moves.dropped.csv";

/// What happened to moves.csv.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Rows kept.
    pub kept: usize,
    /// Rows set aside in moves.dropped.csv.
    pub dropped: usize,
}

/// Rewrites `dir/moves.csv` (through a temporary file and a rename) to the rows of `kept` (each
/// with its id in the file and its record, whose `game_id` the rows take), in that order, and
/// appends every other row to `dir/moves.dropped.csv`; adds the kept rows' depth and nodes/s to
/// `totals` when given. Nothing to do when there is no moves.csv.
///
/// # Errors
/// A message naming the file when one cannot be read or written, or when moves.csv does not
/// have arena's columns.
pub fn rewrite(
    dir: &Path,
    kept: &[(u64, &GameRecord)],
    mut totals: Option<&mut MoveTotals>,
) -> Result<Resumed, String> {
    let path = dir.join(moves_file::MOVES);
    if !path.exists() {
        return Ok(Resumed::default());
    }
    let fail = |p: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", p.display());
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(&path)
        .map_err(|e| fail(&path, &e))?;
    let header = reader.headers().map_err(|e| fail(&path, &e))?.clone();
    if header.iter().ne(HEADER) {
        return Err(fail(
            &path,
            &format!(
                "its columns are not `{}`: move it away to resume",
                HEADER.join(",")
            ),
        ));
    }
    // Runs of rows: (game id, rows), plies 1, 2, … in order.
    let mut runs: Vec<(Option<u64>, Vec<csv::StringRecord>)> = Vec::new();
    for row in reader.records() {
        // A row cut by a kill is unreadable or short: it stays in a run of its own, dropped.
        let Ok(row) = row else { continue };
        let id = row.get(0).and_then(|t| t.parse::<u64>().ok());
        let ply = row.get(1).and_then(|t| t.parse::<usize>().ok());
        let whole = row.len() == HEADER.len() && id.is_some() && ply.is_some();
        match runs.last_mut() {
            Some((run_id, rows)) if whole && *run_id == id && ply == Some(rows.len() + 1) => {
                rows.push(row)
            }
            _ => runs.push((if whole { id } else { None }, vec![row])),
        }
    }
    let mut by_id: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, (id, _)) in runs.iter().enumerate() {
        if let Some(id) = id {
            by_id.entry(*id).or_default().push(i);
        }
    }
    let mut used = vec![false; runs.len()];
    let tmp = dir.join(format!("{}.tmp", moves_file::MOVES));
    let mut out = csv::Writer::from_path(&tmp).map_err(|e| fail(&tmp, &e))?;
    out.write_record(HEADER).map_err(|e| fail(&tmp, &e))?;
    let mut resumed = Resumed::default();
    for (old_id, record) in kept {
        let Some(candidates) = by_id.get(old_id) else {
            continue;
        };
        let found = candidates.iter().copied().find(|&i| {
            !used[i]
                && runs[i].1.len() == record.plies as usize
                && runs[i]
                    .1
                    .iter()
                    .map(|r| r.get(4).unwrap_or_default())
                    .eq(record.moves.split(' ').filter(|m| !m.is_empty()))
        });
        let Some(i) = found else { continue };
        used[i] = true;
        let new_id = record.game_id.to_string();
        for row in &runs[i].1 {
            if let Some(totals) = totals.as_deref_mut() {
                let number = |c: usize| row.get(c).and_then(|t| t.parse::<u64>().ok());
                totals.add(
                    row.get(3).unwrap_or_default(),
                    number(6).map(|d| d.min(u64::from(u32::MAX)) as u32),
                    nps_of(number(11), number(10), number(5).unwrap_or(0)),
                );
            }
            out.write_record(std::iter::once(new_id.as_str()).chain(row.iter().skip(1)))
                .map_err(|e| fail(&tmp, &e))?;
            resumed.kept += 1;
        }
    }
    out.flush().map_err(|e| fail(&tmp, &e))?;
    drop(out);
    let leftover: Vec<&csv::StringRecord> = runs
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .flat_map(|((_, rows), _)| rows)
        .collect();
    if !leftover.is_empty() {
        let dropped = dir.join(DROPPED);
        let fresh = fs::metadata(&dropped).map_or(true, |m| m.len() == 0);
        let file = File::options()
            .create(true)
            .append(true)
            .open(&dropped)
            .map_err(|e| fail(&dropped, &e))?;
        let mut w = csv::WriterBuilder::new().flexible(true).from_writer(file);
        if fresh {
            w.write_record(HEADER).map_err(|e| fail(&dropped, &e))?;
        }
        for row in &leftover {
            w.write_record(*row).map_err(|e| fail(&dropped, &e))?;
        }
        w.flush().map_err(|e| fail(&dropped, &e))?;
        resumed.dropped = leftover.len();
    }
    fs::rename(&tmp, &path).map_err(|e| fail(&path, &e))?;
    Ok(resumed)
}
