//! The SPRT of a run (config `sprt:`): which engine is A, the tracker fed with every finished
//! game, `sprt.csv` written as pairs finish, and the moment to stop feeding games. A resumed
//! run replays games.csv's rows first, so a test already decided starts nothing. The maths is
//! in `crate::sprt`; stopping the workers is the runner's `no_new_games` flag.

use std::path::Path;

use crate::config::{Format, Plan};
use crate::record::GameRecord;
use crate::report::sprt::SprtWriter;
use crate::sprt::Tracker;

/// A run's SPRT: the tracker and its trace file.
pub struct SprtRun {
    tracker: Tracker,
    writer: SprtWriter,
}

/// The SPRT of `plan`, if it has one, after `records` (the games already in the output
/// directory, in games.csv order); rewrites `out/sprt.csv` with their rows.
///
/// # Errors
/// A message naming sprt.csv when it cannot be written.
pub fn start(plan: &Plan, out: &Path, records: &[GameRecord]) -> Result<Option<SprtRun>, String> {
    let Some(spec) = plan.config.sprt else {
        return Ok(None);
    };
    let names: Vec<&str> = plan.engines.iter().map(|e| e.spec.name.as_str()).collect();
    // A is the gauntlet engine, else the first engine listed; B the other one.
    let a = match (plan.config.format, &plan.config.gauntlet_engine) {
        (Format::Gauntlet, Some(g)) => g.as_str(),
        _ => names[0],
    };
    let b = names.iter().copied().find(|n| *n != a).unwrap_or(a);
    let mut run = SprtRun {
        tracker: Tracker::new(spec, a, b, plan.confidence),
        writer: SprtWriter::create(out)?,
    };
    for record in records {
        run.add(record)?;
    }
    Ok(Some(run))
}

impl SprtRun {
    /// Counts a finished game and writes its pair's row; returns the status line when this
    /// game made the test decide.
    ///
    /// # Errors
    /// A message naming sprt.csv when it cannot be written.
    pub fn add(&mut self, record: &GameRecord) -> Result<Option<String>, String> {
        let before = self.tracker.stopped();
        if let Some(row) = self.tracker.add(record) {
            self.writer.write(&row)?;
        }
        Ok((!before && self.tracker.stopped()).then(|| self.status()))
    }

    /// True once a bound has been crossed.
    pub fn stopped(&self) -> bool {
        self.tracker.stopped()
    }

    /// The summary line (`SPRT [0, 5] normalized: LLR 2.97 (-2.94, 2.94) H1 accepted after
    /// 812 games`).
    pub fn status(&self) -> String {
        self.tracker.status()
    }

    /// The progress bar's part: `LLR 1.23 (-2.94, 2.94)` and the decision once made.
    pub fn short(&self) -> String {
        let status = self.tracker.status();
        let tail = status.split(": ").nth(1).unwrap_or(&status);
        let tail = tail.split(" after ").next().unwrap_or(tail);
        format!("SPRT {}", tail.replace(" continue", ""))
    }
}
