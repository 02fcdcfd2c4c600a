//! Progress of a run on stderr: an indicatif bar on a terminal, plain periodic lines otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::record::{GameRecord, Termination};

/// Seconds between plain progress lines.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// Shows games done out of the total, rate, ETA, and forfeits and crashes so far.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    forfeits: u64,
    crashes: u64,
    started: Instant,
    last_line: Instant,
    quiet: bool,
}

impl Progress {
    /// A display for `total` games of which `done` are already finished; `quiet` shows nothing.
    pub fn new(total: u64, done: u64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total).with_position(done);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games  {per_sec}  ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            bar,
            total,
            done,
            forfeits: 0,
            crashes: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            quiet,
        }
    }

    fn message(&self) -> String {
        format!("forfeits {}  crashes {}", self.forfeits, self.crashes)
    }

    /// Counts a finished game.
    pub fn game(&mut self, record: &GameRecord) {
        self.done += 1;
        match record.termination {
            Termination::TimeForfeit => self.forfeits += 1,
            Termination::Crash | Termination::ProtocolError => self.crashes += 1,
            _ => {}
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.message());
            bar.inc(1);
        } else if !self.quiet
            && (self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total)
        {
            self.last_line = Instant::now();
            let rate = self.done as f64 / self.started.elapsed().as_secs_f64().max(1e-3);
            eprintln!(
                "{}/{} games  {rate:.1}/s  {}",
                self.done,
                self.total,
                self.message()
            );
        }
    }

    /// Prints a line without breaking the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None if !self.quiet => eprintln!("{line}"),
            None => {}
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
