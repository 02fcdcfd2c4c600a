//! The end-of-run summary: standings of scope `all`, terminations by reason, and the
//! two-engine line.

use std::fmt::Write as _;

use crate::record::{GameRecord, Termination};
use crate::standings::{self, Standings};

/// The text printed after a run: a standings table (rank, engine, Elo ± interval, games,
/// score), the count of terminations by reason, and for two engines the fastchess-style line.
pub fn render(standings: &Standings, records: &[GameRecord], level: f64) -> String {
    let mut out = String::new();
    let rows: Vec<_> = standings
        .ratings
        .iter()
        .filter(|r| r.scope == "all")
        .collect();
    let width = rows
        .iter()
        .map(|r| r.engine.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>8}  {:>7}  {:>6}  {:>7}  flags",
        "rank", "engine", "elo", "+/-", "games", "score"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>8.1}  {:>7.1}  {:>6}  {:>6.1}%  {}",
            r.rank, r.engine, r.elo, r.err95, r.games, r.score_pct, r.flags
        );
    }
    let counts: Vec<String> = Termination::ALL
        .iter()
        .map(|t| (t, records.iter().filter(|r| r.termination == *t).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    let _ = writeln!(out, "{} games: {}", records.len(), counts.join(", "));
    if let Some(line) = standings::two_engine_line(records, level) {
        let _ = writeln!(out, "{line}");
    }
    out
}
