//! `moves.csv` beside a games.csv: one row per ply with the time it took, so that `arena
//! replay` can show each move's time and the clocks as they stood. `arena play` writes it for
//! its games; `arena run` does not (yet), and replay then shows only each side's total.
//!
//! Columns are those planned for tournament runs' per-move engine info: `game_id, ply, side,
//! engine, move, time_ms, depth, seldepth, score_cp, score_mate, nodes, nps, pv`; the info
//! columns stay empty here (a person sends no `info`, and [`crate::referee::engine_move`] keeps
//! none). Reading needs only `game_id`, `ply` and `time_ms`, found by name.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::Path;

use crate::games::Side;

/// The file name, beside games.csv.
pub const MOVES: &str = "moves.csv";

const HEADER: [&str; 13] = [
    "game_id",
    "ply",
    "side",
    "engine",
    "move",
    "time_ms",
    "depth",
    "seldepth",
    "score_cp",
    "score_mate",
    "nodes",
    "nps",
    "pv",
];

/// One ply of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRow<'a> {
    /// Ply number, 1-based.
    pub ply: usize,
    /// Who played it.
    pub side: Side,
    /// Its player's name.
    pub player: &'a str,
    /// The move text.
    pub text: &'a str,
    /// Time taken (ms).
    pub time_ms: u64,
}

/// Appends the plies of game `game_id` to `path`, with the header if the file is new.
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn append(path: &Path, game_id: u64, rows: &[MoveRow<'_>]) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let fresh = fs::metadata(path).map_or(true, |m| m.len() == 0);
    let file = File::options()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| fail(&e))?;
    let mut writer = csv::Writer::from_writer(file);
    if fresh {
        writer.write_record(HEADER).map_err(|e| fail(&e))?;
    }
    for row in rows {
        let (id, ply, time) = (
            game_id.to_string(),
            row.ply.to_string(),
            row.time_ms.to_string(),
        );
        let side = row.side.to_string();
        let fields = [id.as_str(), &ply, &side, row.player, row.text, &time];
        writer
            .write_record(fields.into_iter().chain([""; 7]))
            .map_err(|e| fail(&e))?;
    }
    writer.flush().map_err(|e| fail(&e))
}

/// The time of each ply (ms) of game `game_id`, by ply number, from a moves.csv; empty when
/// the file is absent, lacks the columns, or has no row of that game. Unreadable rows are
/// skipped: the times are an aid to the replay, not a record it depends on.
pub fn ply_times(path: &Path, game_id: u64) -> BTreeMap<usize, u64> {
    let mut times = BTreeMap::new();
    let Ok(mut reader) = csv::Reader::from_path(path) else {
        return times;
    };
    let Ok(header) = reader.headers().cloned() else {
        return times;
    };
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(id), Some(ply), Some(time)) = (column("game_id"), column("ply"), column("time_ms"))
    else {
        return times;
    };
    let game = game_id.to_string();
    for row in reader.records().flatten() {
        if row.get(id) != Some(game.as_str()) {
            continue;
        }
        if let (Some(Ok(ply)), Some(Ok(ms))) = (
            row.get(ply).map(str::parse::<usize>),
            row.get(time).map(str::parse::<u64>),
        ) {
            times.insert(ply, ms);
        }
    }
    times
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_written_are_read_back_per_game() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MOVES);
        assert!(ply_times(&path, 0).is_empty());
        let row = |ply, time_ms| MoveRow {
            ply,
            side: Side::First,
            player: "ada, the \"first\"",
            text: "3",
            time_ms,
        };
        append(&path, 0, &[row(1, 1500), row(2, 30)]).unwrap();
        append(&path, 1, &[row(1, 7)]).unwrap();
        assert_eq!(ply_times(&path, 0), BTreeMap::from([(1, 1500), (2, 30)]));
        assert_eq!(ply_times(&path, 1), BTreeMap::from([(1, 7)]));
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap(), HEADER.join(","));
        assert_eq!(text.lines().count(), 4, "one header: {text}");
    }
}
