//! `sprt.csv`: the SPRT trace, one row per finished game pair in completion order (`pairs,
//! games, llr, lower, upper, elo, elo_ci_low, elo_ci_high, repeated_pairs`; empty Elo cells
//! when unbounded; `repeated_pairs` counts the pairs so far that repeat a counted one and are
//! left out of the others).
//! Writes only; the maths is in `crate::sprt`, the reading for report.html in
//! `html::inputs`.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::sprt::Row;

/// The file name in the output directory.
pub const FILE: &str = "sprt.csv";

/// A `sprt.csv` being written; every row is flushed, so an interrupted run keeps its trace.
pub struct SprtWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl SprtWriter {
    /// Creates (truncates) `dir/sprt.csv` and writes the header.
    ///
    /// # Errors
    /// A message naming the file.
    pub fn create(dir: &Path) -> Result<SprtWriter, String> {
        let path = dir.join(FILE);
        let file = File::create(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut writer = SprtWriter {
            path,
            out: BufWriter::new(file),
        };
        writer.line("pairs,games,llr,lower,upper,elo,elo_ci_low,elo_ci_high,repeated_pairs")?;
        Ok(writer)
    }

    /// Appends one row (LLR and bounds to 4 decimals, Elo to 2).
    ///
    /// # Errors
    /// A message naming the file.
    pub fn write(&mut self, row: &Row) -> Result<(), String> {
        let elo = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.2}"));
        let line = format!(
            "{},{},{:.4},{:.4},{:.4},{},{},{},{}",
            row.pairs,
            row.games,
            row.llr,
            row.lower,
            row.upper,
            elo(row.elo),
            elo(row.elo_ci_low),
            elo(row.elo_ci_high),
            row.repeated_pairs
        );
        self.line(&line)
    }

    fn line(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.out, "{line}")
            .and_then(|()| self.out.flush())
            .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}
