//! The SPRT of a run (config `sprt:`): which engine is A, the tracker fed with every finished
//! game, `sprt.csv` written as pairs finish, and the moment to stop feeding games. A resumed
//! run replays games.csv's rows first, so a test already decided starts nothing. The maths is
//! in `crate::sprt`; stopping the workers is the runner's `no_new_games` flag.
//!
//! The test ends at its decision: games still in flight then finish and go to games.csv and
//! the standings, but not into the test. So sprt.csv, the summary line and report.html count
//! the same games, and a run interrupted after the decision (its games in flight lost) leaves
//! the same sprt.csv as one that was not.

use std::path::Path;

use crate::config::{Format, Plan};
use crate::record::GameRecord;
use crate::report::sprt::SprtWriter;
use crate::sprt::Tracker;

/// A run's SPRT: the tracker and its trace file.
pub struct SprtRun {
    tracker: Tracker,
    writer: SprtWriter,
    /// Engines A and B.
    engines: [String; 2],
    /// Games between A and B seen, counted in the test or not.
    seen: u64,
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
        engines: [a.to_owned(), b.to_owned()],
        seen: 0,
    };
    for record in records {
        run.add(record)?;
    }
    Ok(Some(run))
}

impl SprtRun {
    /// Counts a finished game and writes its pair's row; true when this game made the test
    /// decide. Once decided, games are no longer counted (see the module comment).
    ///
    /// # Errors
    /// A message naming sprt.csv when it cannot be written.
    pub fn add(&mut self, record: &GameRecord) -> Result<bool, String> {
        let [a, b] = &self.engines;
        if (record.first == *a && record.second == *b)
            || (record.first == *b && record.second == *a)
        {
            self.seen += 1;
        }
        if self.tracker.stopped() {
            return Ok(false);
        }
        if let Some(row) = self.tracker.add(record) {
            self.writer.write(&row)?;
        }
        Ok(self.tracker.stopped())
    }

    /// True once a bound has been crossed.
    pub fn stopped(&self) -> bool {
        self.tracker.stopped()
    }

    /// The summary line (`SPRT [0, 5] normalized: LLR 2.97 (-2.94, 2.94) H1 accepted after
    /// 812 games`), the games being sprt.csv's last row's; then how many games between A and
    /// B games.csv has beyond them, and why, when it has any.
    pub fn status(&self) -> String {
        let counted = self.tracker.counts().games();
        // Repeated pairs are already named in the tracker's status.
        let repeated = 2 * self.tracker.repeated_pairs();
        let more = self.seen.saturating_sub(counted + repeated);
        let mut line = self.tracker.status();
        if more > 0 {
            let why = if self.stopped() {
                "in flight at the decision, or a game pair's lone leg"
            } else {
                "a game pair's lone leg or a game without a result"
            };
            line.push_str(&format!(
                " (in sprt.csv; games.csv has {more} more between them, not counted: {why})"
            ));
        }
        line
    }

    /// The progress bar's part: `LLR 1.23 (-2.94, 2.94)` and the decision once made.
    pub fn short(&self) -> String {
        let status = self.tracker.status();
        let tail = status.split(": ").nth(1).unwrap_or(&status);
        let tail = tail.split(" after ").next().unwrap_or(tail);
        format!("SPRT {}", tail.replace(" continue", ""))
    }
}
