//! Progress of a run on stderr: an indicatif bar on a terminal, plain periodic lines otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::record::{GameRecord, Termination};

/// Seconds between plain progress lines.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

/// Games this run must finish before a rate and an ETA are shown: earlier ones mostly measure
/// engine start-up.
const ETA_AFTER: u64 = 5;

/// Shows games done out of the total, rate, ETA, and time forfeits, crashes (and protocol
/// errors), illegal moves and withdrawals so far.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    /// Games finished by this run (not resumed ones).
    played: u64,
    forfeits: u64,
    crashes: u64,
    illegal: u64,
    withdrawn: u64,
    started: Instant,
    last_line: Instant,
    quiet: bool,
    /// Appended to the message (the SPRT status), empty for none.
    extra: String,
}

impl Progress {
    /// A display for `total` games of which `done` are already finished; `quiet` shows nothing.
    pub fn new(total: u64, done: u64, quiet: bool) -> Progress {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total).with_position(done);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress {
            bar,
            total,
            done,
            played: 0,
            forfeits: 0,
            crashes: 0,
            illegal: 0,
            withdrawn: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            quiet,
            extra: String::new(),
        }
    }

    fn message(&self) -> String {
        let mut text = String::new();
        if self.played >= ETA_AFTER {
            let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
            let rate = self.played as f64 / elapsed;
            let left = (self.total - self.done) as f64 / rate;
            text.push_str(&format!(
                "{rate:.1} games/s  ETA {}  ",
                human_duration(left)
            ));
        }
        text.push_str(&format!(
            "time forfeits {}  crashes {}  illegal {}",
            self.forfeits, self.crashes, self.illegal
        ));
        if self.withdrawn > 0 {
            text.push_str(&format!("  withdrawn {}", self.withdrawn));
        }
        if !self.extra.is_empty() {
            text.push_str("  ");
            text.push_str(&self.extra);
        }
        text
    }

    /// Sets a status shown after the counts from the next game on (the SPRT line).
    pub fn set_extra(&mut self, text: String) {
        self.extra = text;
    }

    /// Counts a finished game.
    pub fn game(&mut self, record: &GameRecord) {
        self.done += 1;
        self.played += 1;
        match record.termination {
            Termination::TimeForfeit => self.forfeits += 1,
            Termination::Crash | Termination::ProtocolError => self.crashes += 1,
            Termination::IllegalMove => self.illegal += 1,
            Termination::Withdrawn => self.withdrawn += 1,
            _ => {}
        }
        if let Some(bar) = &self.bar {
            bar.set_message(self.message());
            bar.inc(1);
        } else if !self.quiet
            && (self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total)
        {
            self.last_line = Instant::now();
            eprintln!("{}/{} games  {}", self.done, self.total, self.message());
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

/// `42 s`, `3 min 5 s`, `2 h 10 min`: a duration for people.
pub fn human_duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}
