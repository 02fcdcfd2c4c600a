//! Per-engine figures of a run, as fastchess prints them per engine: games, moves, mean time a
//! move, mean depth, mean nodes/s, and the failures charged to it. Written as `engines.csv` and
//! as a block of the summary (see docs/COLUMNS.md).
//!
//! Everything comes from what a run stores, so a merge of several output directories can
//! recompute it: games, moves, times and failures from games.csv rows; depth and nodes/s from
//! moves.csv rows ([`MoveTotals`], empty without `record_moves`). Knows no game's rules: the
//! side that moved first in a game comes from its start position through [`AnyPosition`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::games::{AnyPosition, GameKind, Side};
use crate::record::{GameRecord, Termination};

/// The file name, in the output directory.
pub const FILE: &str = "engines.csv";

/// Sums of the per-move engine info of one engine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Acc {
    depth_moves: u64,
    depth_sum: f64,
    nps_moves: u64,
    nps_sum: f64,
}

/// Per engine, the sums of depth and nodes/s over the moves that reported them (moves.csv).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MoveTotals(BTreeMap<String, Acc>);

/// The nodes/s of a move: as reported, else its nodes over its time (ms), else none.
pub fn nps_of(nps: Option<u64>, nodes: Option<u64>, time_ms: u64) -> Option<f64> {
    match (nps, nodes) {
        (Some(nps), _) => Some(nps as f64),
        (None, Some(nodes)) if time_ms > 0 => Some(nodes as f64 * 1000.0 / time_ms as f64),
        _ => None,
    }
}

impl MoveTotals {
    /// Counts one move of `engine` with its reported depth (plies) and nodes/s.
    pub fn add(&mut self, engine: &str, depth: Option<u32>, nps: Option<f64>) {
        if depth.is_none() && nps.is_none() {
            return;
        }
        if !self.0.contains_key(engine) {
            self.0.insert(engine.to_owned(), Acc::default());
        }
        let acc = self.0.get_mut(engine).expect("inserted above");
        if let Some(d) = depth {
            acc.depth_moves += 1;
            acc.depth_sum += f64::from(d);
        }
        if let Some(n) = nps {
            acc.nps_moves += 1;
            acc.nps_sum += n;
        }
    }

    /// Sums a moves.csv (rows of every game in it; columns found by name).
    ///
    /// # Errors
    /// A message naming the file and line of a row that cannot be read.
    pub fn from_file(path: &Path) -> Result<MoveTotals, String> {
        let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        let mut reader = csv::Reader::from_path(path).map_err(|e| fail(&e))?;
        let header = reader.headers().map_err(|e| fail(&e))?.clone();
        let column = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .ok_or_else(|| fail(&format!("no `{name}` column")))
        };
        let (engine, time, depth, nodes, nps) = (
            column("engine")?,
            column("time_ms")?,
            column("depth")?,
            column("nodes")?,
            column("nps")?,
        );
        let mut totals = MoveTotals::default();
        for row in reader.records() {
            let row = row.map_err(|e| fail(&e))?;
            let number = |i: usize| row.get(i).and_then(|t| t.parse::<u64>().ok());
            totals.add(
                row.get(engine).unwrap_or_default(),
                number(depth).map(|d| d.min(u64::from(u32::MAX)) as u32),
                nps_of(number(nps), number(nodes), number(time).unwrap_or(0)),
            );
        }
        Ok(totals)
    }
}

/// One engine's row of engines.csv.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineRow {
    /// Engine name.
    pub engine: String,
    /// Games it took part in (unplayed forfeits included).
    pub games: u64,
    /// Moves it played.
    pub moves: u64,
    /// Its thinking time over its moves (ms a move; a forfeited move's time included).
    pub mean_time_ms: Option<f64>,
    /// Mean depth reported (plies), over the moves that reported one.
    pub mean_depth: Option<f64>,
    /// Mean nodes/s, over the moves that reported nps (or nodes).
    pub mean_nps: Option<f64>,
    /// Games it lost on time.
    pub time_forfeits: u64,
    /// Games it lost by crashing (or failing to start).
    pub crashes: u64,
    /// Games it lost by an illegal move.
    pub illegal_moves: u64,
    /// Games it lost by a protocol error.
    pub protocol_errors: u64,
}

/// The engines.csv header.
pub const HEADER: [&str; 10] = [
    "engine",
    "games",
    "moves",
    "mean_time_ms",
    "mean_depth",
    "mean_nps",
    "time_forfeits",
    "crashes",
    "illegal_moves",
    "protocol_errors",
];

/// The engines charged with a game's failure: the loser, or both when neither could play.
fn at_fault(r: &GameRecord) -> Vec<&str> {
    match r.result.as_str() {
        "1-0" => vec![&r.second],
        "0-1" => vec![&r.first],
        "*" => vec![&r.first, &r.second],
        _ => vec![],
    }
}

/// Moves each side played in `r`: every other ply, from its start position's side to move.
fn moves_by_side(r: &GameRecord) -> (u64, u64) {
    let opener = r
        .game
        .parse::<GameKind>()
        .ok()
        .and_then(|kind| AnyPosition::from_fen(kind, &r.start_fen).ok())
        .map_or(Side::First, |p| p.side_to_move());
    let plies = u64::from(r.plies);
    let (mover, other) = (plies.div_ceil(2), plies / 2);
    match opener {
        Side::First => (mover, other),
        Side::Second => (other, mover),
    }
}

/// The rows, one per engine of `names` (config order) then any other engine of `records`.
pub fn compute(records: &[GameRecord], names: &[String], totals: &MoveTotals) -> Vec<EngineRow> {
    let mut order: Vec<String> = names.to_vec();
    let mut rows: BTreeMap<String, (EngineRow, u64)> = BTreeMap::new();
    let blank = |engine: &str| {
        (
            EngineRow {
                engine: engine.to_owned(),
                games: 0,
                moves: 0,
                mean_time_ms: None,
                mean_depth: None,
                mean_nps: None,
                time_forfeits: 0,
                crashes: 0,
                illegal_moves: 0,
                protocol_errors: 0,
            },
            0u64,
        )
    };
    for name in names {
        rows.insert(name.clone(), blank(name));
    }
    for r in records {
        let (first_moves, second_moves) = moves_by_side(r);
        for (engine, moves, time) in [
            (&r.first, first_moves, r.first_time_ms),
            (&r.second, second_moves, r.second_time_ms),
        ] {
            if !rows.contains_key(engine) {
                order.push(engine.clone());
                rows.insert(engine.clone(), blank(engine));
            }
            let (row, ms) = rows.get_mut(engine).expect("inserted above");
            row.games += 1;
            row.moves += moves;
            *ms += time;
        }
        for engine in at_fault(r) {
            let Some((row, _)) = rows.get_mut(engine) else {
                continue;
            };
            match r.termination {
                Termination::TimeForfeit => row.time_forfeits += 1,
                Termination::Crash => row.crashes += 1,
                Termination::IllegalMove => row.illegal_moves += 1,
                Termination::ProtocolError => row.protocol_errors += 1,
                _ => {}
            }
        }
    }
    order
        .iter()
        .filter_map(|name| rows.remove(name))
        .map(|(mut row, ms)| {
            row.mean_time_ms = (row.moves > 0).then(|| ms as f64 / row.moves as f64);
            if let Some(acc) = totals.0.get(&row.engine) {
                row.mean_depth =
                    (acc.depth_moves > 0).then(|| acc.depth_sum / acc.depth_moves as f64);
                row.mean_nps = (acc.nps_moves > 0).then(|| acc.nps_sum / acc.nps_moves as f64);
            }
            row
        })
        .collect()
}

fn fixed(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.decimals$}"))
}

/// Writes `dir/engines.csv` (through a temporary file, as every result file).
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn write(dir: &Path, rows: &[EngineRow]) -> Result<(), String> {
    crate::report::files::write_atomically(&dir.join(FILE), |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(HEADER)?;
        for r in rows {
            w.write_record([
                r.engine.clone(),
                r.games.to_string(),
                r.moves.to_string(),
                fixed(r.mean_time_ms, 1),
                fixed(r.mean_depth, 2),
                fixed(r.mean_nps, 0),
                r.time_forfeits.to_string(),
                r.crashes.to_string(),
                r.illegal_moves.to_string(),
                r.protocol_errors.to_string(),
            ])?;
        }
        w.flush()
    })
    .map_err(|e| e.to_string())
}

/// The summary block: one aligned line per engine; `-` where a figure is unknown.
pub fn render(rows: &[EngineRow]) -> String {
    let width = rows
        .iter()
        .map(|r| r.engine.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let dash = |v: Option<f64>, d: usize| {
        let text = fixed(v, d);
        if text.is_empty() { "-".into() } else { text }
    };
    let mut out = format!(
        "{:<width$} {:>6} {:>8} {:>9} {:>6} {:>10} {:>5} {:>6} {:>8} {:>9}\n",
        "engine",
        "games",
        "moves",
        "ms/move",
        "depth",
        "nodes/s",
        "time",
        "crash",
        "illegal",
        "protocol"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:<width$} {:>6} {:>8} {:>9} {:>6} {:>10} {:>5} {:>6} {:>8} {:>9}",
            r.engine,
            r.games,
            r.moves,
            dash(r.mean_time_ms, 1),
            dash(r.mean_depth, 1),
            dash(r.mean_nps, 0),
            r.time_forfeits,
            r.crashes,
            r.illegal_moves,
            r.protocol_errors
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(first: &str, second: &str, result: &str, t: Termination, plies: u32) -> GameRecord {
        GameRecord {
            game_id: 0,
            round: 1,
            board: "a".into(),
            game: "awale".into(),
            first: first.into(),
            second: second.into(),
            result: result.into(),
            termination: t,
            plies,
            first_time_ms: 30,
            second_time_ms: 20,
            start_fen: "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture".into(),
            ..GameRecord::default()
        }
    }

    #[test]
    fn rows_count_moves_times_and_failures_of_the_loser() {
        let records = [
            record("a", "b", "1-0", Termination::TimeForfeit, 3),
            record("b", "a", "1-0", Termination::Crash, 4),
            record("a", "b", "*", Termination::Crash, 0),
            record("a", "b", "1/2-1/2", Termination::AdjudicatedDraw, 10),
        ];
        let mut totals = MoveTotals::default();
        totals.add("a", Some(4), Some(1000.0));
        totals.add("a", Some(6), None);
        let rows = compute(&records, &["a".into(), "b".into(), "c".into()], &totals);
        let a = &rows[0];
        // a: 2 + 2 + 0 + 5 moves; 30 + 20 + 30 + 30 ms.
        assert_eq!((a.games, a.moves), (4, 9));
        assert_eq!(a.mean_time_ms, Some(110.0 / 9.0));
        assert_eq!((a.mean_depth, a.mean_nps), (Some(5.0), Some(1000.0)));
        assert_eq!((a.time_forfeits, a.crashes), (0, 2));
        let b = &rows[1];
        assert_eq!((b.time_forfeits, b.crashes, b.moves), (1, 1, 1 + 2 + 5));
        assert_eq!((b.mean_depth, b.mean_nps), (None, None));
        assert_eq!((rows[2].games, rows[2].mean_time_ms), (0, None));
        let block = render(&rows);
        assert!(block.lines().nth(3).unwrap().contains(" - "), "{block}");
    }

    #[test]
    fn totals_read_back_from_a_moves_file_match_those_added() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves.csv");
        std::fs::write(
            &path,
            "game_id,ply,side,engine,move,time_ms,depth,seldepth,score_cp,score_mate,nodes,nps,pv\n\
             0,1,first,a,1,10,3,,5,,100,,1\n0,2,second,b,2,0,,,,,,,\n0,3,first,a,3,20,5,,,,,5000,\n",
        )
        .unwrap();
        let mut expected = MoveTotals::default();
        expected.add("a", Some(3), nps_of(None, Some(100), 10));
        expected.add("a", Some(5), Some(5000.0));
        assert_eq!(MoveTotals::from_file(&path).unwrap(), expected);
        assert_eq!(nps_of(None, Some(100), 10), Some(10_000.0));
    }
}
