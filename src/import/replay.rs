//! The second pass over a file: every rated game again with its texts (event, round, tags),
//! matched to what the first pass found (id, pair, repeat), one at a time; and `results.pgn`
//! written from it without holding the games.

use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::Path;

use crate::record::{GameRecord, Termination};
use crate::report::files::{self, FileError, PgnGame};

use super::{ImportError, Imported, InputFormat, Observed, STOP, Source, each_raw};

/// Reads `source` again and gives `each` its rated games in file order, with the ids, pairs
/// and repeats of `observed`.
///
/// # Errors
/// As [`super::read`]; when the file no longer holds the games `observed` found; what `each`
/// returns.
pub(super) fn replay(
    source: Source<'_>,
    file: &str,
    observed: &Observed,
    mut each: impl FnMut(Imported) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let plan = observed.plan;
    let changed = |line: u64| ImportError {
        file: file.to_owned(),
        line: Some(line),
        message: "the file changed while it was read; rate it when nothing writes to it".into(),
    };
    let mut seen = 0;
    let mut failure = None;
    let read = each_raw(source, file, observed.format, &mut Vec::new(), |mut raw| {
        // Rows written after the first pass are not rated.
        if seen == plan.rows {
            return Err((STOP, String::new()));
        }
        seen += 1;
        if plan.game_is_id {
            raw.id = Some(std::mem::take(&mut raw.game));
        }
        if plan.boards_dropped {
            raw.board.clear();
        }
        let game_id = if plan.numeric_ids {
            raw.id.as_deref().and_then(|i| i.parse().ok())
        } else {
            Some(raw.position as u64)
        };
        let names = &observed.names;
        // The same game as the first pass read: players, result and ending.
        let Some(g) = game_id.and_then(|id| observed.find(id)).filter(|g| {
            names.engine(g.first) == raw.first
                && names.engine(g.second) == raw.second
                && g.outcome == crate::games::Outcome::from_result_str(raw.result)
                && g.termination == raw.termination.unwrap_or(Termination::Normal)
        }) else {
            return Err((raw.line, changed(raw.line).message));
        };
        let round: u32 = raw
            .round
            .as_deref()
            .and_then(|r| r.split('.').next())
            .and_then(|r| r.parse().ok())
            .unwrap_or(0);
        let round_text = match (observed.format, &raw.round) {
            // CSV with numeric ids: arena's `round.game_id`.
            (InputFormat::Csv, _) if plan.numeric_ids => format!("{round}.{}", g.game_id),
            // Else the round as written.
            (_, Some(r)) => r.clone(),
            (_, None) => "?".into(),
        };
        let imported = Imported {
            record: GameRecord {
                game_id: g.game_id,
                round,
                board: raw.board,
                game: raw.game,
                pair: g.pair,
                first: raw.first,
                second: raw.second,
                result: raw.result.to_owned(),
                termination: raw.termination.unwrap_or(Termination::Normal),
                repeat_of: g.repeat_of(),
                ..GameRecord::default()
            },
            event: raw.event,
            round_text,
            termination_known: raw.termination.is_some(),
            fingerprint: raw.fingerprint,
        };
        each(imported).map_err(|e| {
            failure = Some(e);
            (STOP, String::new())
        })
    });
    if let Some(e) = failure {
        return Err(e);
    }
    match read {
        Err(e) if e.line != Some(STOP) => Err(e),
        _ if seen < plan.rows => Err(ImportError {
            line: None,
            ..changed(0)
        }),
        _ => Ok(()),
    }
}

/// Writes `results.pgn` of the games of `input` (as [`files::write_pgn`] would from all of
/// them, in game-id order; `event` where a game has no `Event` tag) at `path`, reading `input`
/// again. A file in game-id order (PGN always; CSV as a run writes it, give or take the games
/// in flight) holds no game; games ahead of their turn wait as PGN text.
///
/// # Errors
/// [`FileError`] naming `path`, with the import error when `input` cannot be read again.
pub fn write_pgn(
    input: &Path,
    observed: &Observed,
    path: &Path,
    event: &str,
) -> Result<(), FileError> {
    // Games in a repeat group (a repeat, or a game repeated) carry `RepeatGroup`.
    let repeated: HashSet<u64> = observed
        .games
        .iter()
        .filter_map(|g| g.repeat_of())
        .collect();
    let group = |r: &GameRecord| {
        r.repeat_of
            .or_else(|| repeated.contains(&r.game_id).then_some(r.game_id))
    };
    files::write_atomically(path, |out| {
        let mut next = observed.games.iter().map(|g| g.game_id).peekable();
        let mut waiting: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
        super::replay(input, observed, |g| {
            let pgn = PgnGame {
                record: &g.record,
                event: g.event.as_deref().unwrap_or(event),
                round: &g.round_text,
                termination: g.termination_known,
            };
            let io = |e: io::Error| ImportError {
                file: path.display().to_string(),
                line: None,
                message: e.to_string(),
            };
            if next.peek() == Some(&g.record.game_id) {
                files::write_pgn_game(out, &pgn, group(&g.record)).map_err(io)?;
                next.next();
                while let Some(text) = next.peek().and_then(|id| waiting.remove(id)) {
                    out.write_all(&text).map_err(io)?;
                    next.next();
                }
            } else {
                let mut text = Vec::new();
                files::write_pgn_game(&mut text, &pgn, group(&g.record)).map_err(io)?;
                waiting.insert(g.record.game_id, text);
            }
            Ok(())
        })
        .map_err(|e| io::Error::other(e.to_string()))
    })
}
