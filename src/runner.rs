//! The worker pool: fixtures in, game records out.
//!
//! Each worker thread takes fixtures from a crossbeam channel, keeps its own engine processes
//! (reused across games with `uginewgame`, restarted after a failure) and hands every finished
//! game to the caller's callback on the calling thread, in completion order. Cancellation kills
//! every live engine, so running games stop at once; their records are dropped. No formatting,
//! no ratings.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crossbeam_channel::{select, unbounded};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::config::PlanEngine;
use crate::engine::{Engine, EngineError, Identity, Launch};
use crate::games::{BoardSpec, BySide, Outcome, Side};
use crate::protocol::Command;
use crate::record::{GameRecord, Termination};
use crate::referee::{self, Seat, Setup};
use crate::schedule::{Fixture, Schedule};

/// Everything the workers share, read-only.
pub struct Tournament<'a> {
    /// Boards in config order.
    pub boards: &'a [BoardSpec],
    /// Board names in config order.
    pub board_names: &'a [String],
    /// Engines in config order.
    pub engines: &'a [PlanEngine],
    /// The schedule (for start positions).
    pub schedule: &'a Schedule,
    /// Timeout of the handshake and of `isready` (ms).
    pub handshake_timeout_ms: u64,
    /// Directory of engine stderr logs and game transcripts.
    pub log_dir: PathBuf,
    /// Write every game's full protocol transcript to `log_dir/games/<id>.log`.
    pub log_protocol: bool,
    /// Start fresh engine processes for every game (an engine's own `restart` overrides it).
    pub restart_per_game: bool,
}

/// What the runner reports while it works.
#[derive(Debug)]
pub enum Event {
    /// A game finished; its record is final.
    Finished(Box<GameRecord>),
    /// Something worth telling the user (an engine restarted, a transcript not written).
    Note(String),
}

/// Process ids of every live engine, so cancellation can kill them from another thread.
#[derive(Default)]
struct Registry(Mutex<HashSet<u32>>);

impl Registry {
    fn add(&self, pid: u32) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(pid);
    }

    fn remove(&self, pid: u32) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&pid);
    }

    fn kill_all(&self) {
        for &pid in self.0.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
    }
}

/// A live engine with what it declared.
struct Live {
    engine: Engine,
    identity: Identity,
}

/// Why an engine could not be brought up for a game.
struct StartFailure {
    termination: Termination,
    detail: String,
}

struct Worker<'a, 't> {
    id: usize,
    tournament: &'a Tournament<'t>,
    registry: &'a Registry,
    live: Vec<Option<Live>>,
}

impl Worker<'_, '_> {
    fn start(&mut self, index: usize) -> Result<(), StartFailure> {
        if self.live[index].is_some() {
            return Ok(());
        }
        let spec = &self.tournament.engines[index];
        let log = self
            .tournament
            .log_dir
            .join(format!("{}.w{}.stderr.log", spec.spec.name, self.id));
        let launch = Launch {
            program: spec.program.clone(),
            args: spec.spec.args.clone(),
            stderr_log: Some(log),
            limits: spec.spec.limits.unwrap_or_default(),
        };
        let classify = |e: &EngineError| match e {
            EngineError::Timeout { .. } | EngineError::Protocol(_) => Termination::ProtocolError,
            _ => Termination::Crash,
        };
        let mut engine = Engine::spawn(&launch).map_err(|e| StartFailure {
            termination: classify(&e),
            detail: format!("{}: {e}", spec.spec.name),
        })?;
        self.registry.add(engine.pid());
        if self.tournament.log_protocol {
            engine.record_transcript();
        }
        let timeout = Duration::from_millis(self.tournament.handshake_timeout_ms);
        let setup = |engine: &mut Engine| -> Result<Identity, EngineError> {
            let identity = engine.handshake(timeout)?;
            for (name, value) in &spec.spec.options {
                engine.send(&Command::SetOption {
                    name: name.clone(),
                    value: value.to_string(),
                })?;
            }
            Ok(identity)
        };
        match setup(&mut engine) {
            Ok(identity) => {
                self.live[index] = Some(Live { engine, identity });
                Ok(())
            }
            Err(e) => {
                self.registry.remove(engine.pid());
                drop(engine);
                Err(StartFailure {
                    termination: classify(&e),
                    detail: format!("{} failed the handshake: {e}", spec.spec.name),
                })
            }
        }
    }

    fn stop(&mut self, index: usize) {
        if let Some(live) = self.live[index].take() {
            self.registry.remove(live.engine.pid());
            live.engine.quit();
        }
    }

    fn play(&mut self, fixture: &Fixture, notes: &mut Vec<String>) -> GameRecord {
        let t = self.tournament;
        let board = &t.boards[fixture.board];
        let start = t.schedule.start(fixture);
        let names = fixture.players.map(|e| t.engines[e].spec.name.as_str());
        let setup = Setup {
            fixture,
            board_name: &t.board_names[fixture.board],
            game: board.kind(),
            start,
            max_plies: board.max_plies(),
            ready_timeout: Duration::from_millis(t.handshake_timeout_ms),
        };
        for side in Side::BOTH {
            if let Err(failure) = self.start(fixture.players[side]) {
                return unplayed(&setup, names, side, failure);
            }
        }
        let (a, b) = (fixture.players.first, fixture.players.second);
        let (first, second) = if a < b {
            let (low, high) = self.live.split_at_mut(b);
            (low[a].as_mut(), high[0].as_mut())
        } else {
            let (low, high) = self.live.split_at_mut(a);
            (high[0].as_mut(), low[b].as_mut())
        };
        let (Some(first), Some(second)) = (first, second) else {
            unreachable!("both engines were just started");
        };
        fn seat<'s>(live: &'s mut Live, spec: &'s PlanEngine) -> Seat<'s> {
            Seat {
                engine: &mut live.engine,
                name: &spec.spec.name,
                identity: &live.identity,
                time_control: spec.time_control,
            }
        }
        let referee::Played { record, faulty } = referee::play(
            &setup,
            BySide::new(seat(first, &t.engines[a]), seat(second, &t.engines[b])),
        );
        if t.log_protocol {
            let mut text = String::new();
            for side in Side::BOTH {
                let e = fixture.players[side];
                text.push_str(&format!("== {side}: {} ==\n", t.engines[e].spec.name));
                if let Some(live) = self.live[e].as_mut() {
                    for line in live.engine.take_transcript() {
                        text.push_str(&line);
                        text.push('\n');
                    }
                }
            }
            let path = t.log_dir.join("games").join(format!("{}.log", fixture.id));
            if let Err(e) = fs::write(&path, text) {
                notes.push(format!("cannot write {}: {e}", path.display()));
            }
        }
        for side in Side::BOTH {
            if t.engines[fixture.players[side]].restarts_per_game(t.restart_per_game) {
                self.stop(fixture.players[side]);
            } else if faulty[side] {
                let e = fixture.players[side];
                self.stop(e);
                notes.push(format!(
                    "restarting {} after game {}: {}",
                    t.engines[e].spec.name, fixture.id, record.detail
                ));
            }
        }
        record
    }
}

/// The record of a game that could not start because `side`'s engine failed to come up.
fn unplayed(
    setup: &Setup<'_>,
    names: BySide<&str>,
    side: Side,
    failure: StartFailure,
) -> GameRecord {
    let outcome = Outcome::Decisive {
        winner: side.other(),
    };
    GameRecord {
        game_id: setup.fixture.id,
        round: setup.fixture.round,
        board: setup.board_name.to_owned(),
        game: setup.game.name().to_owned(),
        pair: setup.fixture.pair,
        first: names.first.to_owned(),
        second: names.second.to_owned(),
        result: outcome.result_str().to_owned(),
        termination: failure.termination,
        plies: 0,
        score_first: None,
        score_second: None,
        duration_ms: 0,
        first_time_ms: 0,
        second_time_ms: 0,
        start_fen: setup.start.fen(),
        moves: String::new(),
        detail: format!(
            "{} ({side}) could not start: {}",
            names[side], failure.detail
        ),
    }
}

/// Plays `fixtures` on `concurrency` workers, calling `on_event` on this thread for every
/// finished game and note. Returns `false` if `cancel` stopped the run early.
pub fn run(
    tournament: &Tournament<'_>,
    fixtures: Vec<Fixture>,
    concurrency: usize,
    cancel: &AtomicBool,
    mut on_event: impl FnMut(Event),
) -> bool {
    let (work_tx, work_rx) = unbounded::<Fixture>();
    for fixture in fixtures {
        let _ = work_tx.send(fixture);
    }
    drop(work_tx);
    let (event_tx, event_rx) = unbounded::<Event>();
    let registry = Arc::new(Registry::default());
    let cancelled = thread::scope(|scope| {
        for id in 0..concurrency.max(1) {
            let work_rx = work_rx.clone();
            let event_tx = event_tx.clone();
            let registry = Arc::clone(&registry);
            scope.spawn(move || {
                let count = tournament.engines.len();
                let mut worker = Worker {
                    id,
                    tournament,
                    registry: &registry,
                    live: (0..count).map(|_| None).collect(),
                };
                while let Ok(fixture) = work_rx.recv() {
                    if cancel.load(Ordering::SeqCst) {
                        break;
                    }
                    let mut notes = Vec::new();
                    let record = worker.play(&fixture, &mut notes);
                    for note in notes {
                        let _ = event_tx.send(Event::Note(note));
                    }
                    // A game cut short by cancellation is not a result.
                    if cancel.load(Ordering::SeqCst) {
                        break;
                    }
                    let _ = event_tx.send(Event::Finished(Box::new(record)));
                }
                for index in 0..count {
                    worker.stop(index);
                }
            });
        }
        drop(event_tx);
        let ticker = crossbeam_channel::tick(Duration::from_millis(50));
        let mut killed = false;
        loop {
            select! {
                recv(event_rx) -> event => match event {
                    Ok(event) => on_event(event),
                    Err(_) => break,
                },
                recv(ticker) -> _ => {
                    if cancel.load(Ordering::SeqCst) && !killed {
                        killed = true;
                        registry.kill_all();
                    }
                }
            }
        }
        killed
    });
    !cancelled && !cancel.load(Ordering::SeqCst)
}
