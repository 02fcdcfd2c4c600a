//! Result files in the output directory (csv crate: UTF-8, header row, RFC 4180 quoting, `.`
//! decimals).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::record::GameRecord;
use crate::standings::{RatingRow, Standings};

/// File names inside the output directory.
pub const GAMES: &str = "games.csv";
/// Ratings per scope.
pub const RATINGS: &str = "ratings.csv";
/// Head-to-head per scope.
pub const PAIRS: &str = "pairs.csv";
/// Tag-only PGN for Ordo and BayesElo.
pub const PGN: &str = "results.pgn";

/// A failure to read or write a result file, naming it.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

fn file_error(path: &Path, e: impl std::fmt::Display) -> FileError {
    FileError {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// Appends game rows to `games.csv`, flushing after each so that a finished game survives any
/// later crash.
pub struct GamesWriter {
    path: PathBuf,
    writer: csv::Writer<File>,
}

impl GamesWriter {
    /// Opens `games.csv` for appending, writing the header if the file is new or empty.
    ///
    /// # Errors
    /// [`FileError`] when the file cannot be opened.
    pub fn append(path: &Path) -> Result<GamesWriter, FileError> {
        let fresh = fs::metadata(path).map_or(true, |m| m.len() == 0);
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| file_error(path, e))?;
        let writer = csv::WriterBuilder::new()
            .has_headers(fresh)
            .from_writer(file);
        Ok(GamesWriter {
            path: path.to_owned(),
            writer,
        })
    }

    /// Writes one row and flushes it to the OS.
    ///
    /// # Errors
    /// [`FileError`] when the write fails (disk full, …).
    pub fn write(&mut self, record: &GameRecord) -> Result<(), FileError> {
        self.writer
            .serialize(record)
            .map_err(|e| file_error(&self.path, e))?;
        self.writer.flush().map_err(|e| file_error(&self.path, e))
    }
}

/// Reads every complete row of a `games.csv`. A last line cut short by a crash mid-write is
/// dropped and reported in the second value.
///
/// # Errors
/// [`FileError`] naming the line of the first malformed row before the last.
pub fn read_games(path: &Path) -> Result<(Vec<GameRecord>, Option<String>), FileError> {
    let text = fs::read(path).map_err(|e| file_error(path, e))?;
    let complete = text.ends_with(b"\n");
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_slice());
    let mut records = Vec::new();
    let mut rows = reader.deserialize::<GameRecord>().peekable();
    let mut dropped = None;
    while let Some(row) = rows.next() {
        let last = rows.peek().is_none();
        match row {
            Ok(record) if !last || complete => records.push(record),
            Ok(_) => {
                dropped = Some(
                    "the last row has no line end (cut off mid-write); it was dropped".to_owned(),
                )
            }
            Err(e) if last => {
                dropped = Some(format!("the last row is incomplete and was dropped ({e})"))
            }
            Err(e) => return Err(file_error(path, e)),
        }
    }
    Ok((records, dropped))
}

/// Writes what `fill` writes to `path` through a temporary file (`path` with extension `tmp`)
/// and a rename, so readers never see a half-written file; the temporary file is removed when
/// the write fails.
///
/// # Errors
/// [`FileError`] naming `path`.
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    let tmp = path.with_extension("tmp");
    let result = File::create(&tmp).and_then(|file| {
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        out.into_inner()
            .map_err(io::IntoInnerError::into_error)?
            .sync_all()
    });
    result.and_then(|()| fs::rename(&tmp, path)).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        file_error(path, e)
    })
}

fn write_csv<T: serde::Serialize>(path: &Path, rows: &[T]) -> Result<(), FileError> {
    write_atomically(path, |out| {
        let mut writer = csv::Writer::from_writer(out);
        for row in rows {
            writer.serialize(row).map_err(io::Error::other)?;
        }
        writer.flush()
    })
}

/// As [`write_csv`], with the header row even when there is no row.
fn write_table<T: serde::Serialize + Default>(path: &Path, rows: &[T]) -> Result<(), FileError> {
    write_atomically(path, |out| {
        let mut writer = csv::Writer::from_writer(out);
        for row in rows {
            writer.serialize(row).map_err(io::Error::other)?;
        }
        if rows.is_empty() {
            header_only::<T, _>(&mut writer)?;
        }
        writer.flush()
    })
}

/// Writes just the header row of `T`'s columns (the csv crate writes it with the first row
/// only), so a file without rows still says what it would hold.
fn header_only<T: serde::Serialize + Default, W: Write>(
    writer: &mut csv::Writer<W>,
) -> io::Result<()> {
    let mut probe = csv::Writer::from_writer(Vec::new());
    probe.serialize(T::default()).map_err(io::Error::other)?;
    let bytes = probe
        .into_inner()
        .map_err(|e| io::Error::other(e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes);
    let header = text.lines().next().unwrap_or_default();
    writer
        .write_record(header.split(','))
        .map_err(io::Error::other)
}

/// Rewrites `games.csv` sorted by game id, so that the file is the same whatever order games
/// finished in.
///
/// # Errors
/// [`FileError`] when writing fails; the old file is then left in place.
pub fn rewrite_games(path: &Path, records: &[GameRecord]) -> Result<(), FileError> {
    if records.is_empty() {
        // The header alone: a run with no game (an empty shard) still writes a readable file.
        return write_table::<GameRecord>(path, &[]);
    }
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    write_csv(path, &sorted)
}

/// The name of `ratings.csv`'s half-width column at confidence `level`: `err95` at 0.95 (the
/// name every earlier file used), `err90`, `err99`, `err99.9`… at other levels, so a reader
/// that looks for `err95` fails loudly on a file at another level instead of misreading it.
pub fn err_column(level: f64) -> String {
    let percent = (level * 100_000.0).round() / 1000.0;
    format!("err{percent}")
}

/// Writes `ratings.csv` (the half-width column named by [`err_column`]), `pairs.csv`,
/// `boards.csv` and `ranks.csv` into `dir`.
///
/// # Errors
/// [`FileError`] naming the file that could not be written.
pub fn write_tables(dir: &Path, standings: &Standings, level: f64) -> Result<(), FileError> {
    let path = dir.join(RATINGS);
    let mut text = Vec::new();
    {
        let mut writer = csv::Writer::from_writer(&mut text);
        for row in &standings.ratings {
            writer.serialize(row).map_err(|e| file_error(&path, e))?;
        }
        if standings.ratings.is_empty() {
            header_only::<RatingRow, _>(&mut writer).map_err(|e| file_error(&path, e))?;
        }
        writer.flush().map_err(|e| file_error(&path, e))?;
    }
    let text = String::from_utf8_lossy(&text);
    write_atomically(&path, |out| {
        // Field names are plain words, never quoted: the header can be rewritten as text.
        if let Some((header, body)) = text.split_once('\n') {
            let header: Vec<String> = header
                .split(',')
                .map(|h| {
                    if h == "err95" {
                        err_column(level)
                    } else {
                        h.to_owned()
                    }
                })
                .collect();
            writeln!(out, "{}", header.join(","))?;
            out.write_all(body.as_bytes())?;
        }
        Ok(())
    })?;
    write_table(&dir.join(PAIRS), &standings.pairs)?;
    write_table(&dir.join(crate::boards::FILE), &standings.boards)?;
    write_ranks(&dir.join(crate::ranks::FILE), &standings.ranks)
}

/// Writes `ranks.csv`: one place column per engine of the largest scope (empty cells beyond a
/// smaller scope's engines).
fn write_ranks(path: &Path, rows: &[crate::ranks::RankRow]) -> Result<(), FileError> {
    let places = rows.iter().map(|r| r.probability.len()).max().unwrap_or(0);
    write_atomically(path, |out| {
        let mut writer = csv::Writer::from_writer(out);
        writer
            .write_record(crate::ranks::header(places))
            .map_err(io::Error::other)?;
        for row in rows {
            writer
                .write_record(row.record(places))
                .map_err(io::Error::other)?;
        }
        writer.flush()
    })
}

/// One game of `results.pgn`: the record and the tags that do not come from it.
#[derive(Clone, Copy, Debug)]
pub struct PgnGame<'a> {
    /// The game.
    pub record: &'a GameRecord,
    /// `Event` tag: the tournament name.
    pub event: &'a str,
    /// `Round` tag: arena writes `round.game_id`; imports keep the input's.
    pub round: &'a str,
    /// Whether `record.termination` is known (an import may not know it): else no
    /// `Termination` tag.
    pub termination: bool,
}

/// Writes a tag-only PGN: per game `Event`, `Site` (the board, `?` if unknown), `Round`,
/// `White` (first player), `Black`, `Result`, then `Variant` (the game, when known), `Pair`
/// (the game pair id, so `arena ratings` can cluster by pair) and `Termination` (arena's
/// spelling, when known), and the result as move text. Ordo and BayesElo read it; unknown tags
/// are allowed by the PGN standard (section 9).
///
/// # Errors
/// [`FileError`] when it cannot be written.
pub fn write_pgn(path: &Path, games: &[PgnGame<'_>]) -> Result<(), FileError> {
    // Games in a repeat group (a repeat, or a game repeated) carry `RepeatGroup`, the group's
    // first game id, so `arena ratings` finds the repeats of this tag-only file.
    let repeated: std::collections::HashSet<u64> =
        games.iter().filter_map(|g| g.record.repeat_of).collect();
    write_atomically(path, |out| {
        for g in games {
            let r = g.record;
            let group = r
                .repeat_of
                .or_else(|| repeated.contains(&r.game_id).then_some(r.game_id));
            write_pgn_game(out, g, group)?;
        }
        Ok(())
    })
}

/// One game of [`write_pgn`]; `group` is its `RepeatGroup` (none outside a repeat group).
///
/// # Errors
/// What `out` returns.
pub fn write_pgn_game(out: &mut dyn Write, g: &PgnGame<'_>, group: Option<u64>) -> io::Result<()> {
    let tag = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
    let r = g.record;
    let site = if r.board.is_empty() { "?" } else { &r.board };
    writeln!(out, "[Event \"{}\"]", tag(g.event))?;
    writeln!(out, "[Site \"{}\"]", tag(site))?;
    writeln!(out, "[Round \"{}\"]", tag(g.round))?;
    writeln!(out, "[White \"{}\"]", tag(&r.first))?;
    writeln!(out, "[Black \"{}\"]", tag(&r.second))?;
    writeln!(out, "[Result \"{}\"]", r.result)?;
    if !r.game.is_empty() {
        writeln!(out, "[Variant \"{}\"]", tag(&r.game))?;
    }
    writeln!(out, "[Pair \"{}\"]", r.pair)?;
    if g.termination {
        writeln!(out, "[Termination \"{}\"]", r.termination)?;
    }
    if let Some(group) = group {
        writeln!(out, "[RepeatGroup \"{group}\"]")?;
    }
    writeln!(out, "\n{}\n", r.result)
}

/// Writes `ratings.csv`, `pairs.csv` and `results.pgn` of a run into `dir`: the PGN in game id
/// order, `Round` as `round.game_id`.
///
/// # Errors
/// [`FileError`] naming the file that could not be written.
pub fn write_ratings(
    dir: &Path,
    event: &str,
    records: &[GameRecord],
    standings: &Standings,
    level: f64,
) -> Result<(), FileError> {
    write_tables(dir, standings, level)?;
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    let rounds: Vec<String> = sorted
        .iter()
        .map(|r| format!("{}.{}", r.round, r.game_id))
        .collect();
    let games: Vec<PgnGame<'_>> = sorted
        .iter()
        .zip(&rounds)
        .map(|(record, round)| PgnGame {
            record,
            event,
            round,
            termination: true,
        })
        .collect();
    write_pgn(&dir.join(PGN), &games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_header_names_the_level() {
        let row = RatingRow {
            scope: "all".into(),
            rank: 1,
            engine: "a".into(),
            elo: 0.0,
            ci_low: Some(-1.0),
            ci_high: Some(1.0),
            err95: Some(1.0),
            games: 2,
            wins: 1,
            draws: 0,
            losses: 1,
            points: 1.0,
            score_pct: 50.0,
            draw_pct: 0.0,
            los_next: None,
            flags: String::new(),
            n_eff: 1,
        };
        let standings = Standings {
            ratings: vec![row],
            ..Standings::default()
        };
        let dir = tempfile::tempdir().unwrap();
        for (level, column) in [(0.95, "err95"), (0.9, "err90")] {
            write_tables(dir.path(), &standings, level).unwrap();
            let text = fs::read_to_string(dir.path().join(RATINGS)).unwrap();
            assert_eq!(
                text,
                format!(
                    "scope,rank,engine,elo,ci_low,ci_high,{column},games,wins,draws,losses,points,score_pct,draw_pct,los_next,flags,n_eff\n\
                     all,1,a,0.0,-1.0,1.0,1.0,2,1,0,1,1.0,50.0,0.0,,,1\n"
                )
            );
        }
    }

    #[test]
    fn err_column_names_the_level() {
        assert_eq!(err_column(0.95), "err95");
        assert_eq!(err_column(0.9), "err90");
        assert_eq!(err_column(0.975), "err97.5");
        assert_eq!(err_column(0.999), "err99.9");
    }
}
