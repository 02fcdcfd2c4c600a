//! moves.csv rewritten to match games.csv, as [`super::resume::sort_rows`] and
//! `files::rewrite_games` treat games.csv: on resume, the rows of kept games stay, renumbered to
//! the new schedule's ids, in games.csv's order; at the end of a run, sorted by game id like
//! games.csv. The rows of any other game (dropped, replayed, cut short by an interrupted run,
//! or half written) are set aside in `moves.dropped.csv`, never silently kept or lost.
//!
//! A game's rows are a run of consecutive rows of one `game_id` with plies 1, 2, …; a run is
//! kept only when its moves are exactly the kept record's `moves` (compared by count and
//! FNV-1a hash). Streams: the first pass notes each run's byte range and hash, the second
//! copies runs one at a time, so memory stays at one game's rows whatever the file's size.
//! Touches only moves.csv and moves.dropped.csv; knows no game's rules.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use crate::record::GameRecord;
use crate::record::moves::{self, HEADER};
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

/// One game's rows in the file: its id (`None` for an unreadable or short row), its byte range,
/// its ply count and the hash of its moves.
struct Run {
    id: Option<u64>,
    start: u64,
    end: u64,
    plies: usize,
    hash: u64,
}

/// FNV-1a over move texts, each followed by a space.
fn hash_moves<'a>(moves: impl Iterator<Item = &'a [u8]>) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for mv in moves {
        for &b in mv.iter().chain(b" ") {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

fn parse<T: std::str::FromStr>(field: Option<&[u8]>) -> Option<T> {
    std::str::from_utf8(field?).ok()?.parse().ok()
}

/// `path: error`, the form of every message here.
fn fail(path: &Path, e: &dyn std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
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
    totals: Option<&mut MoveTotals>,
) -> Result<Resumed, String> {
    let path = dir.join(moves::MOVES);
    if !path.exists() {
        return Ok(Resumed::default());
    }
    let runs = scan_runs(&path)?;
    let mut source = RunReader::open(&path)?;
    let tmp = dir.join(format!("{}.tmp", moves::MOVES));
    let (used, kept_rows) = copy_kept(&runs, kept, &mut source, &tmp, totals)?;
    let dropped = set_aside(&runs, &used, &mut source, &dir.join(DROPPED))?;
    fs::rename(&tmp, &path).map_err(|e| fail(&path, &e))?;
    Ok(Resumed {
        kept: kept_rows,
        dropped,
    })
}

/// First pass: checks the header, then notes each game's run of rows by byte range.
fn scan_runs(path: &Path) -> Result<Vec<Run>, String> {
    let file = File::open(path).map_err(|e| fail(path, &e))?;
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(BufReader::new(file));
    let header = reader.byte_headers().map_err(|e| fail(path, &e))?.clone();
    if header.iter().ne(HEADER.iter().map(|h| h.as_bytes())) {
        return Err(fail(
            path,
            &format!(
                "its columns are not `{}`: move it away to resume",
                HEADER.join(",")
            ),
        ));
    }
    let mut runs: Vec<Run> = Vec::new();
    let mut row = csv::ByteRecord::new();
    loop {
        let start = reader.position().byte();
        match reader.read_byte_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => return Err(fail(path, &e)),
        }
        let end = reader.position().byte();
        let id: Option<u64> = parse(row.get(0));
        let ply: Option<usize> = parse(row.get(1));
        let whole = row.len() == HEADER.len() && id.is_some() && ply.is_some();
        let mv = hash_moves(std::iter::once(row.get(4).unwrap_or_default()));
        match runs.last_mut() {
            Some(run)
                if whole && run.id == id && ply == Some(run.plies + 1) && run.end == start =>
            {
                run.end = end;
                run.plies += 1;
                run.hash = mv ^ run.hash.rotate_left(5);
            }
            _ => runs.push(Run {
                id: if whole { id } else { None },
                start,
                end,
                plies: 1,
                hash: mv,
            }),
        }
    }
    Ok(runs)
}

/// Second-pass reads of moves.csv, one run of rows at a time (memory of one game's rows).
struct RunReader<'p> {
    path: &'p Path,
    file: File,
    bytes: Vec<u8>,
}

impl<'p> RunReader<'p> {
    fn open(path: &'p Path) -> Result<RunReader<'p>, String> {
        let file = File::open(path).map_err(|e| fail(path, &e))?;
        Ok(RunReader {
            path,
            file,
            bytes: Vec::new(),
        })
    }

    /// The rows of `run`.
    fn read(&mut self, run: &Run) -> Result<Vec<csv::ByteRecord>, String> {
        self.bytes.resize((run.end - run.start) as usize, 0);
        self.file
            .seek(SeekFrom::Start(run.start))
            .and_then(|_| self.file.read_exact(&mut self.bytes))
            .map_err(|e| fail(self.path, &e))?;
        let mut rows = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(self.bytes.as_slice());
        Ok(rows.byte_records().filter_map(Result::ok).collect())
    }
}

/// Writes `tmp`: the header, then for each kept record the run whose moves are exactly its
/// moves, under its new id. Returns which runs were used and how many rows were kept.
fn copy_kept(
    runs: &[Run],
    kept: &[(u64, &GameRecord)],
    source: &mut RunReader<'_>,
    tmp: &Path,
    mut totals: Option<&mut MoveTotals>,
) -> Result<(Vec<bool>, usize), String> {
    let mut by_id: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        if let Some(id) = run.id {
            by_id.entry(id).or_default().push(i);
        }
    }
    let mut used = vec![false; runs.len()];
    let mut rows_kept = 0;
    let mut out = csv::Writer::from_path(tmp).map_err(|e| fail(tmp, &e))?;
    out.write_record(HEADER).map_err(|e| fail(tmp, &e))?;
    for (old_id, record) in kept {
        let Some(candidates) = by_id.get(old_id) else {
            continue;
        };
        let wanted = record
            .moves
            .split(' ')
            .filter(|m| !m.is_empty())
            .fold(0u64, |h, mv| {
                hash_moves(std::iter::once(mv.as_bytes())) ^ h.rotate_left(5)
            });
        let found = candidates.iter().copied().find(|&i| {
            !used[i] && runs[i].plies == record.plies as usize && runs[i].hash == wanted
        });
        let Some(i) = found else { continue };
        used[i] = true;
        let new_id = record.game_id.to_string();
        for row in source.read(&runs[i])? {
            if let Some(totals) = totals.as_deref_mut() {
                add_to_totals(totals, &row);
            }
            out.write_record(std::iter::once(new_id.as_bytes()).chain(row.iter().skip(1)))
                .map_err(|e| fail(tmp, &e))?;
            rows_kept += 1;
        }
    }
    out.flush().map_err(|e| fail(tmp, &e))?;
    Ok((used, rows_kept))
}

/// One row's engine, depth and nodes/s into `totals` (for engines.csv).
fn add_to_totals(totals: &mut MoveTotals, row: &csv::ByteRecord) {
    let number = |c: usize| parse::<u64>(row.get(c));
    totals.add(
        &String::from_utf8_lossy(row.get(3).unwrap_or_default()),
        number(6).map(|d| d.min(u64::from(u32::MAX)) as u32),
        nps_of(number(11), number(10), number(5).unwrap_or(0)),
    );
}

/// Appends the rows of every run not used to `dropped` (with a header when it is new);
/// returns how many.
fn set_aside(
    runs: &[Run],
    used: &[bool],
    source: &mut RunReader<'_>,
    dropped: &Path,
) -> Result<usize, String> {
    if used.iter().all(|u| *u) {
        return Ok(0);
    }
    let fresh = fs::metadata(dropped).map_or(true, |m| m.len() == 0);
    let file = File::options()
        .create(true)
        .append(true)
        .open(dropped)
        .map_err(|e| fail(dropped, &e))?;
    let mut w = csv::WriterBuilder::new().flexible(true).from_writer(file);
    if fresh {
        w.write_record(HEADER).map_err(|e| fail(dropped, &e))?;
    }
    let mut count = 0;
    for (run, _) in runs.iter().zip(used).filter(|(_, used)| !**used) {
        for row in source.read(run)? {
            w.write_byte_record(&row).map_err(|e| fail(dropped, &e))?;
            count += 1;
        }
    }
    w.flush().map_err(|e| fail(dropped, &e))?;
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(game_id: u64, moves: &str) -> GameRecord {
        let ids = crate::record::GameIds {
            game_id,
            round: 1,
            pair: 0,
            board: "b",
            game: "awale",
            first: "x",
            second: "y",
        };
        GameRecord {
            plies: moves.split(' ').filter(|m| !m.is_empty()).count() as u32,
            moves: moves.into(),
            ..GameRecord::unplayed(
                ids,
                "1-0",
                crate::record::Termination::Normal,
                String::new(),
            )
        }
    }

    #[test]
    fn kept_runs_are_renumbered_in_order_and_the_rest_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(moves::MOVES);
        let header = HEADER.join(",");
        fs::write(
            &path,
            format!(
                "{header}\n\
                 1,1,first,x,4,3,5,,12,,100,,4 2\n1,2,second,y,2,1,,,,,,,\n\
                 0,1,first,x,\"1\",2,2,,,,,,\n\
                 7,1,first,x,3,1,,,,,,,\n7,2,second,y,6,1,,,,,,,\n\
                 2,1,first,x,5,1,,,,,,,\n2,1,first,x,5,1,,,,,,,\n\
                 9,1,fir"
            ),
        )
        .unwrap();
        // Old 1 becomes 0, old 0 becomes 5; old 7's moves differ from its record; old 2 has a
        // repeated ply 1 (two runs of one ply: one kept, one set aside).
        let (a, b, c, d) = (
            record(0, "4 2"),
            record(5, "1"),
            record(6, "3 5"),
            record(2, "5"),
        );
        let kept = [(1, &a), (0, &b), (7, &c), (2, &d)];
        let mut totals = MoveTotals::default();
        let resumed = rewrite(dir.path(), &kept, Some(&mut totals)).unwrap();
        assert_eq!((resumed.kept, resumed.dropped), (4, 4));
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            format!(
                "{header}\n0,1,first,x,4,3,5,,12,,100,,4 2\n0,2,second,y,2,1,,,,,,,\n\
                 5,1,first,x,1,2,2,,,,,,\n2,1,first,x,5,1,,,,,,,\n"
            )
        );
        let dropped = fs::read_to_string(dir.path().join(DROPPED)).unwrap();
        assert_eq!(
            dropped,
            format!(
                "{header}\n7,1,first,x,3,1,,,,,,,\n7,2,second,y,6,1,,,,,,,\n\
                 2,1,first,x,5,1,,,,,,,\n9,1,fir\n"
            )
        );
        let mut expected = MoveTotals::default();
        expected.add("x", Some(5), nps_of(None, Some(100), 3));
        expected.add("x", Some(2), None);
        assert_eq!(totals, expected);
        // Nothing to do without a moves.csv.
        let empty = tempfile::tempdir().unwrap();
        assert_eq!(rewrite(empty.path(), &kept, None).unwrap().kept, 0);
    }
}
