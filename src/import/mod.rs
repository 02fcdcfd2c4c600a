//! Games from files that arena or other tools wrote, for `arena ratings`: arena's `games.csv`,
//! a minimal CSV (`first`/`white`, `second`/`black`, `result`), or PGN (arena's `results.pgn`,
//! cutechess-cli, fastchess, anything with White/Black/Result tags). Also finds the game pairs
//! that the pair-clustered intervals need.
//!
//! Reads only: writes no file and knows no game's rules (moves are never read). The rating maths
//! lives in [`crate::rating`] and [`crate::standings`]; arena's own `games.csv` reader for
//! resuming a run stays in [`crate::report::files`].
//!
//! Two passes, so that memory does not grow with the games' size: [`observe`] streams the file
//! once into [`Observation`]s (40 bytes a game, names interned), which is all the ratings need;
//! [`replay`] reads it again for the games' texts, one at a time ([`write_pgn`] writes
//! `results.pgn` from it). [`read`] and [`parse`] do both and collect every game.
//!
//! One concern a file: this one holds the types and the entry points; `stream` gives a file's
//! characters or bytes, `csv` and `pgn` read the two formats into rows, `scan` is the first
//! pass (ids, meanings, repeats), `pairs` finds the game pairs, `replay` the second pass, `run`
//! reads what the run beside the file says.

use std::path::Path;

use crate::record::Termination;

mod csv;
mod pairs;
mod pgn;
mod replay;
mod run;
mod scan;
mod stream;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

pub use pairs::{PairMode, Pairing};
pub use replay::write_pgn;
pub use run::{MAX_ANCHOR, RESOLVED_CONFIG, RunContext, parse_anchor, run_context};

use crate::record::GameRecord;
use crate::standings::{Names, Observation};

/// The two input formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-, semicolon- or tab-separated values with a header row.
    Csv,
    /// Portable Game Notation: tag pairs and optional move text.
    Pgn,
}

/// One imported game: a [`GameRecord`] with what the file said (columns or tags it did not have
/// are empty or 0) and what `results.pgn` should repeat.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The game. `game_id` is the file's id when every id is a number, else the position in the
    /// file (0-based); `pair` is the game pair's cluster id (unique for unpaired games); `game`
    /// and `board` are empty when the file does not say.
    pub record: GameRecord,
    /// The PGN `Event` tag, when the input had one.
    pub event: Option<String>,
    /// The PGN `Round` to write: the input's tag, or `round.game_id` for CSV with numeric ids
    /// (arena's own form), else `?`.
    pub round_text: String,
    /// Whether `record.termination` came from the file (else it is a placeholder).
    pub termination_known: bool,
    /// A hash of the game's start position and moves ([`crate::repeats::fingerprint`]) when
    /// the file has its moves (a CSV's `moves` column, PGN move text), to find repeated games
    /// without keeping the move text; `None` otherwise.
    pub fingerprint: Option<u64>,
}

/// Everything read from one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// Rated games, in file order.
    pub games: Vec<Imported>,
    /// The format read.
    pub format: InputFormat,
    /// Where the game pairs came from.
    pub pairing: Pairing,
    /// Things the user should know (skipped games, unpaired games, a dropped last row).
    pub notes: Vec<String>,
}

/// A file that cannot be imported: the file, the line (a CSV row's or a PGN line, 1-based) and
/// what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ImportError {
    /// The file as given.
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// A result cell or tag: a finished game (first player's view, canonical spelling) or `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Score {
    Finished(&'static str),
    Unfinished,
}

/// Reads `1-0`, `0-1`, `1/2-1/2` and the short forms `1`, `0`, `0.5`, `=`, `½` (first player's
/// view); `*` is an unfinished game.
fn parse_score(text: &str) -> Option<Score> {
    Some(match text.trim() {
        "1-0" | "1" | "1.0" => Score::Finished("1-0"),
        "0-1" | "0" | "0.0" => Score::Finished("0-1"),
        "1/2-1/2" | "1/2" | "0.5" | "0.5-0.5" | "=" | "½" | "½-½" => Score::Finished("1/2-1/2"),
        "*" => Score::Unfinished,
        _ => return None,
    })
}

/// A game as read, before ids and pairs are assigned.
#[derive(Clone, Debug, Default)]
struct Raw {
    /// Position in the file among all games, unfinished ones included.
    position: usize,
    line: u64,
    id: Option<String>,
    round: Option<String>,
    board: String,
    game: String,
    pair: Option<String>,
    first: String,
    second: String,
    result: &'static str,
    termination: Option<Termination>,
    event: Option<String>,
    fingerprint: Option<u64>,
}

/// What the ratings need of a file, a few numbers a game: [`observe`]'s answer. The games'
/// texts (event, round, tags) are read again by [`replay`] when `results.pgn` is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// Rated games in game-id order (ids as [`Imported::record`] says).
    pub games: Vec<Observation>,
    /// The names the games' indices point to.
    pub names: Names,
    /// The format read.
    pub format: InputFormat,
    /// Where the game pairs came from.
    pub pairing: Pairing,
    /// Things the user should know (skipped games, unpaired games, a dropped last row).
    pub notes: Vec<String>,
    /// Whether every game's termination came from the file.
    pub terminations_known: bool,
    /// How [`replay`] reads the rows again as the first pass understood them.
    plan: Plan,
}

/// What the first pass decided about the whole file, for the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Plan {
    /// Rated rows.
    rows: usize,
    /// Game ids are the file's (else positions).
    numeric_ids: bool,
    /// A CSV's `game` column holds the ids.
    game_is_id: bool,
    /// PGN `Site` tags are not boards.
    boards_dropped: bool,
}

impl Observed {
    /// The game with id `id`.
    fn find(&self, id: u64) -> Option<&Observation> {
        self.games
            .binary_search_by_key(&id, |g| g.game_id)
            .ok()
            .map(|i| &self.games[i])
    }
}

/// Where the rows come from: a file, read as a stream where the format allows (PGN), or text.
#[derive(Clone, Copy)]
enum Source<'a> {
    File(&'a Path),
    Text(&'a str),
}

/// Reads `path`, detecting the format from the extension (`.pgn`, `.csv`, `.tsv`) or else the
/// content (a first `[` means PGN), and assigns game pairs by `mode`.
///
/// # Errors
/// [`ImportError`] for an unreadable file, a malformed row or game (with its line), or a file
/// with nothing to rate.
pub fn read(path: &Path, mode: PairMode) -> Result<Import, ImportError> {
    let observed = observe(path, mode)?;
    collect(Source::File(path), &path.display().to_string(), observed)
}

/// [`read`] without the games' texts: one pass over the file (a PGN is streamed, never held)
/// into [`Observation`]s, 40 bytes a game; [`replay`] reads the rest again.
///
/// # Errors
/// As [`read`].
pub fn observe(path: &Path, mode: PairMode) -> Result<Observed, ImportError> {
    let file = path.display().to_string();
    let format = detect_file(path, &file)?;
    scan::scan(Source::File(path), &file, format, mode)
}

/// The games of `path` again, as [`read`] gives them, one by one in file order, with the ids,
/// pairs and repeats `observed` (from [`observe`] of the same file) found.
///
/// # Errors
/// As [`read`]; also when the file changed since [`observe`] (fewer or other games), and
/// whatever `each` returns.
pub fn replay(
    path: &Path,
    observed: &Observed,
    each: impl FnMut(Imported) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    replay::replay(
        Source::File(path),
        &path.display().to_string(),
        observed,
        each,
    )
}

/// The format of `path`: by extension, else by its first character other than white space.
fn detect_file(path: &Path, file: &str) -> Result<InputFormat, ImportError> {
    let cannot = |e: std::io::Error| ImportError {
        file: file.to_owned(),
        line: None,
        message: format!("cannot read: {e}"),
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if matches!(ext.as_deref(), Some("pgn" | "csv" | "tsv")) {
        return Ok(detect(path, ""));
    }
    let mut chars = stream::FileChars::new(std::io::BufReader::new(
        std::fs::File::open(path).map_err(cannot)?,
    ));
    let first = chars.find(|c| !c.is_whitespace() && *c != '\u{feff}');
    if let Some(e) = chars.error.take() {
        return Err(cannot(e));
    }
    Ok(detect(path, &first.map(String::from).unwrap_or_default()))
}

/// The format of a file: by extension, else by content.
pub fn detect(path: &Path, text: &str) -> InputFormat {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("pgn") => InputFormat::Pgn,
        Some("csv" | "tsv") => InputFormat::Csv,
        _ if text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('[') =>
        {
            InputFormat::Pgn
        }
        _ => InputFormat::Csv,
    }
}

/// Parses file text; `file` names it in errors.
///
/// # Errors
/// As [`read`].
pub fn parse(
    text: &str,
    file: &str,
    format: InputFormat,
    mode: PairMode,
) -> Result<Import, ImportError> {
    let observed = scan::scan(Source::Text(text), file, format, mode)?;
    collect(Source::Text(text), file, observed)
}

/// The second pass of [`read`] and [`parse`]: every game with its texts, in file order.
fn collect(source: Source<'_>, file: &str, observed: Observed) -> Result<Import, ImportError> {
    let mut games = Vec::with_capacity(observed.games.len());
    replay::replay(source, file, &observed, |g| {
        games.push(g);
        Ok(())
    })?;
    Ok(Import {
        games,
        format: observed.format,
        pairing: observed.pairing,
        notes: observed.notes,
    })
}

/// A line number no file reaches: what a row callback returns to stop reading.
const STOP: u64 = u64::MAX;

/// Reads the rows of `source` one by one into `each` (which may return an error with its
/// line, or [`STOP`]), with the notes of the reader; refuses an empty file. Returns the count
/// of unfinished games and of all games.
fn each_raw(
    source: Source<'_>,
    file: &str,
    format: InputFormat,
    notes: &mut Vec<String>,
    mut each: impl FnMut(Raw) -> Result<(), (u64, String)>,
) -> Result<(usize, usize), ImportError> {
    let err = |line: Option<u64>, message: String| ImportError {
        file: file.to_owned(),
        line,
        message,
    };
    let empty = || err(None, "nothing to rate: the file is empty".into());
    let cannot = |e: std::io::Error| err(None, format!("cannot read: {e}"));
    match source {
        Source::Text(text) => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            if text.trim().is_empty() {
                return Err(empty());
            }
            match format {
                InputFormat::Csv => {
                    let input = csv::CsvInput {
                        bytes: text.as_bytes(),
                        header: text.lines().next().unwrap_or("").to_owned(),
                        complete: text.ends_with('\n'),
                        quotes_after: |byte: u64| {
                            Ok(text.as_bytes()[byte as usize..]
                                .iter()
                                .filter(|&&b| b == b'"')
                                .count())
                        },
                    };
                    csv::csv_games(input, notes, |raw| each(raw).map_err(|(l, m)| (Some(l), m)))
                        .map_err(|(l, m)| err(l, m))
                }
                InputFormat::Pgn => {
                    pgn::pgn_games(text.chars(), each).map_err(|(l, m)| err(Some(l), m))
                }
            }
        }
        Source::File(path) => {
            let open = || std::fs::File::open(path).map(std::io::BufReader::new);
            let mut chars = stream::FileChars::new(open().map_err(cannot)?);
            if format == InputFormat::Csv {
                // Only to refuse a blank file as empty, as the text reader does: stops at the
                // first character that is not white space.
                let blank = chars.find(|c| !c.is_whitespace()).is_none();
                if let Some(e) = chars.error.take() {
                    return Err(cannot(e));
                }
                if blank {
                    return Err(empty());
                }
                let input = stream::csv_input(path).map_err(cannot)?;
                return csv::csv_games(input, notes, |raw| {
                    each(raw).map_err(|(l, m)| (Some(l), m))
                })
                .map_err(|(l, m)| err(l, m));
            }
            let read = pgn::pgn_games(&mut chars, &mut each);
            if let Some(e) = chars.error.take() {
                return Err(cannot(e));
            }
            let counts = read.map_err(|(l, m)| err(Some(l), m))?;
            if chars.seen_text {
                Ok(counts)
            } else {
                Err(empty())
            }
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Checks the players of a game: two non-empty, different names.
fn check_players(first: &str, second: &str) -> Result<(), String> {
    if first.is_empty() || second.is_empty() {
        return Err("a game needs two named players".into());
    }
    if first == second {
        return Err(format!("engine `{first}` plays itself"));
    }
    Ok(())
}
