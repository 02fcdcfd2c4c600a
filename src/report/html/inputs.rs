//! The report's optional inputs besides games.csv, read only when present in the output
//! directory: `config.resolved.yaml` (the config summary), `moves.csv` (per-move engine
//! output) and `sprt.csv` (an SPRT trace). Knows their columns, not how they are shown.
//!
//! Expected columns (a header row; extra columns are ignored, empty cells are missing values):
//! - `moves.csv`: `game_id, ply, side, engine, move, time_ms, depth, seldepth, score_cp,
//!   score_mate, nodes, nps, pv` (ply 1-based; side `1`/`2` or `first`/`second`).
//! - `sprt.csv`: `pairs, games, llr, lower, upper, elo, elo_ci_low, elo_ci_high, repeated_pairs`, one row per
//!   update of the test (LLR and its bounds in natural-log units, Elo in Elo).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;

use crate::report::files::FileError;

/// File names inside the output directory.
pub const CONFIG: &str = "config.resolved.yaml";
/// Per-move engine output, when a run wrote it.
pub const MOVES: &str = "moves.csv";
/// SPRT trace, when a run wrote it.
pub const SPRT: &str = "sprt.csv";

fn error(path: &Path, e: impl std::fmt::Display) -> FileError {
    FileError {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// The resolved config as a YAML tree, `None` when the file is missing.
///
/// # Errors
/// [`FileError`] when the file exists but is not YAML.
pub fn config(dir: &Path) -> Result<Option<serde_yaml::Value>, FileError> {
    let path = dir.join(CONFIG);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_yaml::from_str(&text)
            .map(Some)
            .map_err(|e| error(&path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(error(&path, e)),
    }
}

/// One row of `sprt.csv`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct SprtRow {
    /// Game pairs so far.
    pub pairs: u64,
    /// Games so far.
    pub games: u64,
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower bound (accept H0 at or below).
    pub lower: f64,
    /// Upper bound (accept H1 at or above).
    pub upper: f64,
    /// Elo estimate so far.
    pub elo: Option<f64>,
    /// Lower end of its interval.
    pub elo_ci_low: Option<f64>,
    /// Upper end of its interval.
    pub elo_ci_high: Option<f64>,
    /// Game pairs left out as repeats of counted ones (0 in files from before the column).
    #[serde(default)]
    pub repeated_pairs: u64,
}

/// The rows of `sprt.csv`, `None` when the file is missing.
///
/// # Errors
/// [`FileError`] naming the line of a malformed row.
pub fn sprt(dir: &Path) -> Result<Option<Vec<SprtRow>>, FileError> {
    let path = dir.join(SPRT);
    if !path.exists() {
        return Ok(None);
    }
    let mut reader = csv::Reader::from_path(&path).map_err(|e| error(&path, e))?;
    let rows: Result<Vec<SprtRow>, _> = reader.deserialize().collect();
    rows.map(Some).map_err(|e| error(&path, e))
}

#[derive(Debug, Deserialize)]
struct MoveRow {
    game_id: u64,
    ply: u32,
    engine: String,
    time_ms: Option<f64>,
    depth: Option<f64>,
    score_cp: Option<i64>,
    score_mate: Option<i64>,
    nodes: Option<f64>,
    nps: Option<f64>,
}

/// Bucket upper bounds (ms) of the time histogram: 0, then powers of 2^(1/4) up to ~10 h.
fn bucket(ms: f64) -> usize {
    if ms <= 0.0 {
        0
    } else {
        (1 + (4.0 * ms.log2()).ceil().max(0.0) as usize).min(BUCKETS - 1)
    }
}

fn bucket_top(k: usize) -> f64 {
    if k == 0 {
        0.0
    } else {
        2f64.powf((k - 1) as f64 / 4.0)
    }
}

const BUCKETS: usize = 110;

/// Per-engine totals of `moves.csv`, streamed so that millions of rows fit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineMoves {
    /// Rows with a time.
    pub timed: u64,
    /// Sum of `time_ms`.
    pub time_sum: f64,
    /// Largest `time_ms`.
    pub time_max: f64,
    /// Histogram of `time_ms` (buckets a quarter-octave wide), for percentiles.
    histogram: Vec<u64>,
    /// Rows with a depth, and their sum.
    pub depth_n: u64,
    /// Sum of depths.
    pub depth_sum: f64,
    /// Rows with nodes per second, and their sum.
    pub nps_n: u64,
    /// Sum of nps.
    pub nps_sum: f64,
}

impl EngineMoves {
    /// The `q`-quantile of move time (ms), as the upper bound of its histogram bucket (within
    /// 19% above the true value); `None` without timed moves.
    pub fn time_quantile(&self, q: f64) -> Option<f64> {
        let target = (q * self.timed as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (k, &n) in self.histogram.iter().enumerate() {
            seen += n;
            if seen >= target {
                return Some(bucket_top(k).min(self.time_max));
            }
        }
        None
    }
}

/// What `moves.csv` adds to the report.
#[derive(Clone, Debug, Default)]
pub struct Moves {
    /// Per engine.
    pub engines: BTreeMap<String, EngineMoves>,
    /// For each embedded game, per ply (1-based index - 1), a short note: time, depth, score.
    pub notes: BTreeMap<u64, Vec<String>>,
}

/// Reads `moves.csv` when present, keeping per-ply notes for the games in `keep`.
///
/// # Errors
/// [`FileError`] naming the line of a malformed row.
pub fn moves(dir: &Path, keep: &BTreeSet<u64>) -> Result<Option<Moves>, FileError> {
    let path = dir.join(MOVES);
    if !path.exists() {
        return Ok(None);
    }
    let mut reader = csv::Reader::from_path(&path).map_err(|e| error(&path, e))?;
    let mut out = Moves::default();
    for row in reader.deserialize::<MoveRow>() {
        let row = row.map_err(|e| error(&path, e))?;
        let e = out.engines.entry(row.engine.clone()).or_default();
        if e.histogram.is_empty() {
            e.histogram = vec![0; BUCKETS];
        }
        if let Some(t) = row.time_ms {
            e.timed += 1;
            e.time_sum += t;
            e.time_max = e.time_max.max(t);
            e.histogram[bucket(t)] += 1;
        }
        if let Some(d) = row.depth {
            e.depth_n += 1;
            e.depth_sum += d;
        }
        if let Some(nps) = row.nps.or(row
            .nodes
            .zip(row.time_ms)
            .and_then(|(n, t)| (t > 0.0).then(|| n * 1000.0 / t)))
        {
            e.nps_n += 1;
            e.nps_sum += nps;
        }
        if keep.contains(&row.game_id) && row.ply >= 1 {
            let mut note = Vec::new();
            if let Some(t) = row.time_ms {
                note.push(format!("{t:.0} ms"));
            }
            if let Some(d) = row.depth {
                note.push(format!("depth {d}"));
            }
            match (row.score_mate, row.score_cp) {
                (Some(m), _) => note.push(format!("mate {m}")),
                (None, Some(cp)) => note.push(format!("score {cp:+} cp")),
                _ => {}
            }
            let notes = out.notes.entry(row.game_id).or_default();
            let k = row.ply as usize - 1;
            if notes.len() <= k {
                notes.resize(k + 1, String::new());
            }
            notes[k] = note.join(", ");
        }
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_come_from_the_histogram_within_a_bucket() {
        let mut e = EngineMoves {
            histogram: vec![0; BUCKETS],
            ..EngineMoves::default()
        };
        for t in 1..=100 {
            e.timed += 1;
            e.time_max = e.time_max.max(f64::from(t));
            e.histogram[bucket(f64::from(t))] += 1;
        }
        let median = e.time_quantile(0.5).unwrap();
        assert!((50.0..=50.0 * 1.19).contains(&median), "{median}");
        assert_eq!(e.time_quantile(1.0), Some(100.0));
    }
}
