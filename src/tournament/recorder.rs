//! What happens to each event of the worker pool during a run: a finished game is marked when
//! it repeats an earlier one (`repeat_of`), then goes to the SPRT, to moves.csv and games.csv (in that order, so a games.csv row always has its moves),
//! and to the progress bar. The first write failure is kept with its path and stops the run
//! (no later game could be kept); the games finished before it are already on disk.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::games::Side;
use crate::record::GameRecord;
use crate::record::moves::{self, MoveRow, MovesWriter};
use crate::referee::PlyInfo;
use crate::repeats;
use crate::report::files::{self, GamesWriter};
use crate::report::progress::Progress;
use crate::runner::Event;

use super::sprt_run::SprtRun;
use super::{FAILED, Stop};

/// The open files and state of a run while its games are played.
pub(super) struct Recorder {
    /// Every game of the output directory: those kept from before, then this run's.
    pub records: Vec<GameRecord>,
    /// The run's SPRT, when the config has one.
    pub sprt: Option<SprtRun>,
    /// The first file that could not be written and why (`path: error`).
    pub write_error: Option<String>,
    /// Rows of `records` that games.csv holds (all of them unless a write failed).
    pub on_disk: usize,
    /// Names of the engines withdrawn during the run, in order.
    pub withdrawals: Vec<String>,
    /// The progress bar (and the lines printed above it).
    pub progress: Progress,
    /// Engine names in config order (the pool names engines by index).
    names: Vec<String>,
    games: GamesWriter,
    moves: Option<MovesWriter>,
    /// Plies reported ahead of their game's record, by game id.
    pending_plies: HashMap<u64, Vec<PlyInfo>>,
    /// The first game of each kind, to mark repeats as games finish.
    repeats: repeats::Index,
    /// With `anonymize`: team folder paths → their public form, replaced in what engines
    /// print (see [`crate::class::pseudonyms::redact`]).
    redactions: Vec<(String, String)>,
}

impl Recorder {
    /// Opens games.csv (and moves.csv with `record_moves`) of `out` for appending; `names` are
    /// the engines in config order.
    ///
    /// # Errors
    /// [`Stop`] with [`FAILED`] naming the file that cannot be opened.
    pub fn open(
        out: &Path,
        names: Vec<String>,
        record_moves: bool,
        records: Vec<GameRecord>,
        sprt: Option<SprtRun>,
        progress: Progress,
    ) -> Result<Recorder, Stop> {
        let games = GamesWriter::append(&out.join(files::GAMES))
            .map_err(|e| Stop::new(FAILED, e.to_string()))?;
        let moves = if record_moves {
            let path = out.join(moves::MOVES);
            Some(MovesWriter::append(&path).map_err(|e| Stop::new(FAILED, e))?)
        } else {
            None
        };
        Ok(Recorder {
            repeats: repeats::Index::of(&records),
            on_disk: records.len(),
            records,
            sprt,
            write_error: None,
            withdrawals: Vec::new(),
            progress,
            names,
            games,
            moves,
            pending_plies: HashMap::new(),
            redactions: Vec::new(),
        })
    }

    /// Replaces each `(from, to)` of `redactions` (team folder paths) in every game's
    /// `detail` from now on: a crash's stderr lines may quote a submission's path, which names
    /// its team, and games.csv is public.
    pub fn redacting(mut self, redactions: Vec<(String, String)>) -> Recorder {
        self.redactions = redactions;
        self
    }

    /// Handles one event of the pool. `no_new_games` is raised when the SPRT decides,
    /// `cancel` when a file cannot be written; `log_dir` is named in a withdrawal line.
    pub fn on_event(
        &mut self,
        event: Event,
        cancel: &AtomicBool,
        no_new_games: &AtomicBool,
        log_dir: &Path,
    ) {
        match event {
            Event::Finished(record) => self.finished(*record, cancel, no_new_games),
            Event::Moves(id, plies) => {
                self.pending_plies.insert(id, plies);
            }
            Event::Note(note) => self.progress.println(&format!("note: {note}")),
            Event::Withdrawn(e, reason) => {
                let name = self.names[e].clone();
                self.progress.println(&format!(
                    "WITHDRAWN: engine {name} {reason}; its remaining games are forfeited (stderr logs: {})",
                    log_dir.join(format!("{name}.w*.stderr.log")).display()
                ));
                self.withdrawals.push(name);
            }
        }
    }

    /// A finished game: SPRT, moves.csv, games.csv, progress.
    fn finished(&mut self, mut record: GameRecord, cancel: &AtomicBool, no_new_games: &AtomicBool) {
        if !self.redactions.is_empty() {
            record.detail = crate::class::pseudonyms::redact(&record.detail, &self.redactions);
        }
        // Before the SPRT, which counts a repeated game pair once.
        self.repeats.observe(&self.records, &mut record);
        if let Some(s) = &mut self.sprt {
            // The decision is printed once, in the summary.
            let added = s.add(&record);
            self.progress.set_extra(s.short());
            match added {
                Ok(true) => no_new_games.store(true, Ordering::SeqCst),
                Ok(false) => {}
                Err(e) => self.fail(e, cancel),
            }
        }
        let plies = self.pending_plies.remove(&record.game_id);
        if self.write_error.is_none() {
            if let (Some(plies), Some(w)) = (plies, &mut self.moves) {
                if let Err(e) = write_plies(w, &record, &plies) {
                    self.fail(e, cancel);
                }
            }
        }
        if self.write_error.is_none() {
            match self.games.write(&record) {
                Ok(()) => self.on_disk += 1,
                Err(e) => self.fail(e.to_string(), cancel),
            }
        }
        self.progress.game(&record);
        self.records.push(record);
    }

    /// Keeps the first write failure and stops starting games: nothing more could be kept.
    fn fail(&mut self, error: String, cancel: &AtomicBool) {
        if self.write_error.is_none() {
            self.progress
                .println(&format!("error: cannot write {error}"));
            self.write_error = Some(error);
        }
        cancel.store(true, Ordering::SeqCst);
    }

    /// Closes games.csv and moves.csv (appended rows are already flushed).
    pub fn close(&mut self) {
        self.moves = None;
    }
}

/// Writes the plies of a finished game to moves.csv.
fn write_plies(
    writer: &mut MovesWriter,
    record: &GameRecord,
    plies: &[PlyInfo],
) -> Result<(), String> {
    let rows: Vec<MoveRow<'_>> = plies
        .iter()
        .enumerate()
        .map(|(i, p)| MoveRow {
            ply: i + 1,
            side: p.side,
            player: match p.side {
                Side::First => record.first.as_str(),
                Side::Second => record.second.as_str(),
            },
            text: &p.text,
            time_ms: p.time_ms,
            info: p.info.as_ref(),
        })
        .collect();
    writer.write_game(record.game_id, &rows)
}
