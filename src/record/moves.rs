//! `moves.csv` beside a games.csv: one row per ply with the time it took and the engine's last
//! `info` before its `bestmove`, so that `arena replay` can show each move's time and the
//! clocks as they stood, and engine authors can read depth, score and speed. `arena play`
//! writes it for its games, `arena run` with `record_moves` (see `crate::tournament`); both
//! through [`MovesWriter`], one game at a time, so a file never holds half a game unless the
//! process died while writing it.
//!
//! Columns: `game_id, ply, side, engine, move, time_ms, depth, seldepth, score_cp, score_mate,
//! nodes, nps, pv` (pv space-separated); an info column is empty where the engine sent no such
//! field (always, for a person's moves). Reading needs only the columns it uses, found by name.
//! Owns this file's format only; what is recorded is the referee's business.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::path::Path;

use crate::games::Side;
use crate::protocol::{Info, Score};

/// The file name, beside games.csv.
pub const MOVES: &str = "moves.csv";

/// Its columns, in order.
pub const HEADER: [&str; 13] = [
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
    /// The engine's last `info` before its `bestmove`, if any.
    pub info: Option<&'a Info>,
}

/// An open moves.csv, appended to one game at a time.
pub struct MovesWriter {
    path: std::path::PathBuf,
    writer: csv::Writer<File>,
    /// Reused text of the row being written.
    fields: [String; 13],
}

impl MovesWriter {
    /// Opens `path` for appending, writing the header if the file is new or empty.
    ///
    /// # Errors
    /// A message naming the file when it cannot be opened or written.
    pub fn append(path: &Path) -> Result<MovesWriter, String> {
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
            writer.flush().map_err(|e| fail(&e))?;
        }
        Ok(MovesWriter {
            path: path.to_owned(),
            writer,
            fields: Default::default(),
        })
    }

    /// Writes the plies of game `game_id` and flushes them.
    ///
    /// # Errors
    /// A message naming the file when it cannot be written.
    pub fn write_game(&mut self, game_id: u64, rows: &[MoveRow<'_>]) -> Result<(), String> {
        use std::fmt::Write;
        let path = &self.path;
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        for row in rows {
            for f in &mut self.fields {
                f.clear();
            }
            let f = &mut self.fields;
            let _ = write!(f[0], "{game_id}");
            let _ = write!(f[1], "{}", row.ply);
            let _ = write!(f[2], "{}", row.side);
            f[3].push_str(row.player);
            f[4].push_str(row.text);
            let _ = write!(f[5], "{}", row.time_ms);
            if let Some(info) = row.info {
                let (cp, mate) = match info.score {
                    Some(Score::Cp(cp)) => (Some(cp), None),
                    Some(Score::Mate(n)) => (None, Some(n)),
                    None => (None, None),
                };
                let numbers = [
                    info.depth.map(i128::from),
                    info.seldepth.map(i128::from),
                    cp.map(i128::from),
                    mate.map(i128::from),
                    info.nodes.map(i128::from),
                    info.nps.map(i128::from),
                ];
                for (i, v) in numbers.into_iter().enumerate() {
                    if let Some(v) = v {
                        let _ = write!(f[6 + i], "{v}");
                    }
                }
                f[12].push_str(&info.pv.join(" "));
            }
            self.writer
                .write_record(&self.fields)
                .map_err(|e| fail(&e))?;
        }
        self.writer.flush().map_err(|e| fail(&e))
    }
}

/// Appends the plies of game `game_id` to `path`, with the header if the file is new.
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn append(path: &Path, game_id: u64, rows: &[MoveRow<'_>]) -> Result<(), String> {
    MovesWriter::append(path)?.write_game(game_id, rows)
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
            info: None,
        };
        append(&path, 0, &[row(1, 1500), row(2, 30)]).unwrap();
        append(&path, 1, &[row(1, 7)]).unwrap();
        assert_eq!(ply_times(&path, 0), BTreeMap::from([(1, 1500), (2, 30)]));
        assert_eq!(ply_times(&path, 1), BTreeMap::from([(1, 7)]));
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next().unwrap(), HEADER.join(","));
        assert_eq!(text.lines().count(), 4, "one header: {text}");
    }

    #[test]
    fn info_fields_fill_their_columns_and_stay_empty_when_absent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(MOVES);
        let info = crate::referee::parse_info(
            "info depth 7 seldepth 9 score mate -3 nodes 1200 nps 60000 time 20 pv 3 4 5",
        )
        .unwrap();
        let partial = crate::referee::parse_info("info score cp -15").unwrap();
        let row = |ply, info| MoveRow {
            ply,
            side: Side::Second,
            player: "b",
            text: "4",
            time_ms: 20,
            info,
        };
        append(
            &path,
            9,
            &[row(1, Some(&info)), row(2, Some(&partial)), row(3, None)],
        )
        .unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "9,1,second,b,4,20,7,9,,-3,1200,60000,3 4 5");
        assert_eq!(lines[2], "9,2,second,b,4,20,,,-15,,,,");
        assert_eq!(lines[3], "9,3,second,b,4,20,,,,,,,");
    }
}
