//! Games from files that arena or other tools wrote, for `arena ratings`: arena's `games.csv`,
//! a minimal CSV (`first`/`white`, `second`/`black`, `result`), or PGN (arena's `results.pgn`,
//! cutechess-cli, fastchess, anything with White/Black/Result tags). Also finds the game pairs
//! that the pair-clustered intervals need.
//!
//! Reads only: writes no file and knows no game's rules (moves are never read). The rating maths
//! lives in [`crate::rating`] and [`crate::standings`]; arena's own `games.csv` reader for
//! resuming a run stays in [`crate::report::files`]. One concern a file: this one holds the
//! types and the entry points; `csv` and `pgn` read the two formats into rows, `pairs`
//! gives them ids and game pairs, `run` reads what the run beside the file says.

use std::collections::HashMap;
use std::path::Path;

use crate::record::Termination;

mod csv;
mod pairs;
mod pgn;
mod run;
#[cfg(test)]
mod tests;

pub use pairs::{PairMode, Pairing};
pub use run::{MAX_ANCHOR, RESOLVED_CONFIG, RunContext, parse_anchor, run_context};

use crate::record::GameRecord;

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

/// Maps `items` front to back into a new vector, giving the input's memory back as the
/// output grows: `into_iter().map().collect()` holds both whole vectors until the end, which
/// for 500,000 rows is the input's size again. Order and results are the same.
pub(crate) fn map_shrinking<T, U>(mut items: Vec<T>, mut f: impl FnMut(T) -> U) -> Vec<U> {
    /// Items taken between two releases of the input's unused memory.
    const STEP: usize = 1 << 16;
    items.reverse();
    let mut out = Vec::with_capacity(items.len());
    while let Some(item) = items.pop() {
        out.push(f(item));
        if items.capacity() - items.len() >= STEP {
            items.shrink_to_fit();
        }
    }
    out
}

/// Reads `path`, detecting the format from the extension (`.pgn`, `.csv`, `.tsv`) or else the
/// content (a first `[` means PGN), and assigns game pairs by `mode`.
///
/// # Errors
/// [`ImportError`] for an unreadable file, a malformed row or game (with its line), or a file
/// with nothing to rate.
pub fn read(path: &Path, mode: PairMode) -> Result<Import, ImportError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ImportError {
        file: file.clone(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let format = detect(path, &text);
    let (raws, notes) = rows(&text, &file, format)?;
    // The rows own what they need: the file's text goes before ids and pairs are built.
    drop(text);
    drop(bytes);
    finish(raws, notes, &file, format, mode)
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
    let (raws, notes) = rows(text, file, format)?;
    finish(raws, notes, file, format, mode)
}

/// The first half of [`parse`]: the rated rows of the text, with notes; refuses a file with
/// nothing to rate.
fn rows(
    text: &str,
    file: &str,
    format: InputFormat,
) -> Result<(Vec<Raw>, Vec<String>), ImportError> {
    let err = |line: Option<u64>, message: String| ImportError {
        file: file.to_owned(),
        line,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(err(None, "nothing to rate: the file is empty".into()));
    }
    let mut notes = Vec::new();
    let (raws, unfinished, total) = match format {
        InputFormat::Csv => csv::csv_games(text, &mut notes).map_err(|(l, m)| err(l, m))?,
        InputFormat::Pgn => pgn::pgn_games(text).map_err(|(l, m)| err(Some(l), m))?,
    };
    if unfinished > 0 {
        notes.push(format!(
            "{unfinished} unfinished game{} (`*`) skipped",
            plural(unfinished)
        ));
    }
    if raws.is_empty() {
        let what = match format {
            InputFormat::Csv => "rows",
            InputFormat::Pgn => "games",
        };
        return Err(err(
            None,
            if total == 0 {
                format!("nothing to rate: no {what} found")
            } else {
                format!("nothing to rate: all {total} {what} are unfinished (`*`)")
            },
        ));
    }
    Ok((raws, notes))
}

/// The second half of [`parse`]: what the rows' columns or tags mean here, their ids and
/// game pairs.
fn finish(
    mut raws: Vec<Raw>,
    mut notes: Vec<String>,
    file: &str,
    format: InputFormat,
    mode: PairMode,
) -> Result<Import, ImportError> {
    match format {
        InputFormat::Csv => csv::numeric_game_column_is_an_id(&mut raws, &mut notes),
        InputFormat::Pgn => pgn::sites_that_are_boards(&mut raws, &mut notes),
    }
    let games = pairs::assign_ids(raws, file, format)?;
    let (mut games, pairing) = pairs::assign_pairs(games, mode, &mut notes);
    mark_repeats(&mut games);
    Ok(Import {
        games,
        format,
        pairing,
        notes,
    })
}

/// Sets `repeat_of` of imported games as a run does ([`crate::repeats::mark`]), comparing the
/// moves by their fingerprint: same board, game, players in the same colours, result and
/// fingerprint. A game without moves repeats nothing. Two different move lists share a 64-bit
/// fingerprint with probability about 2⁻⁶⁴ per pair of games.
fn mark_repeats(games: &mut [Imported]) {
    let mut order: Vec<usize> = (0..games.len()).collect();
    order.sort_by_key(|&i| games[i].record.game_id);
    let mut first: HashMap<(&str, &str, &str, &str, &str, u64), u64> = HashMap::new();
    let mut marks = vec![None; games.len()];
    for i in order {
        let r = &games[i].record;
        if let Some(fp) = games[i].fingerprint {
            let key = (
                r.board.as_str(),
                r.game.as_str(),
                r.first.as_str(),
                r.second.as_str(),
                r.result.as_str(),
                fp,
            );
            let original = *first.entry(key).or_insert(r.game_id);
            marks[i] = (original != r.game_id).then_some(original);
        }
    }
    drop(first);
    for (g, mark) in games.iter_mut().zip(marks) {
        g.record.repeat_of = mark;
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
