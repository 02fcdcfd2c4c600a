//! Result files in the output directory (csv crate: UTF-8, header row, RFC 4180 quoting, `.`
//! decimals).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::record::GameRecord;
use crate::standings::Standings;

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

/// Writes `rows` to `path` through a temporary file and a rename, so readers never see a
/// half-written file.
fn write_atomically(
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
    result
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| file_error(path, e))
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

/// Rewrites `games.csv` sorted by game id, so that the file is the same whatever order games
/// finished in.
///
/// # Errors
/// [`FileError`] when writing fails; the old file is then left in place.
pub fn rewrite_games(path: &Path, records: &[GameRecord]) -> Result<(), FileError> {
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    write_csv(path, &sorted)
}

/// Writes `ratings.csv`, `pairs.csv` and `results.pgn` into `dir`.
///
/// # Errors
/// [`FileError`] naming the file that could not be written.
pub fn write_ratings(
    dir: &Path,
    event: &str,
    records: &[GameRecord],
    standings: &Standings,
) -> Result<(), FileError> {
    write_csv(&dir.join(RATINGS), &standings.ratings)?;
    write_csv(&dir.join(PAIRS), &standings.pairs)?;
    write_atomically(&dir.join(PGN), |out| {
        let mut sorted: Vec<&GameRecord> = records.iter().collect();
        sorted.sort_by_key(|r| r.game_id);
        for r in sorted {
            let tag = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(out, "[Event \"{}\"]", tag(event))?;
            writeln!(out, "[Site \"{}\"]", tag(&r.board))?;
            writeln!(out, "[Round \"{}.{}\"]", r.round, r.game_id)?;
            writeln!(out, "[White \"{}\"]", tag(&r.first))?;
            writeln!(out, "[Black \"{}\"]", tag(&r.second))?;
            writeln!(out, "[Result \"{}\"]", r.result)?;
            writeln!(out, "[Termination \"{}\"]", r.termination)?;
            writeln!(out, "\n{}\n", r.result)?;
        }
        Ok(())
    })
}
