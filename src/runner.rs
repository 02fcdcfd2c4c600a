//! The worker pool: fixtures in, game records out.
//!
//! Each worker thread takes fixtures from a crossbeam channel, keeps its own engine processes
//! (reused across games with `uginewgame`, restarted after a failure) and hands every finished
//! game to the caller's callback on the calling thread, in completion order. Cancellation kills
//! every live engine, so running games stop at once; their records are dropped. An engine that
//! fails `withdraw_after` games in a row without playing a move is withdrawn: its remaining
//! games are recorded at once as forfeits (`withdrawn`) instead of being tried. No formatting,
//! no ratings.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, unbounded};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::config::PlanEngine;
use crate::engine::{Engine, Identity, Launch, TranscriptLine};
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
    /// Games failed in a row without a move after which an engine is withdrawn (≥ 1).
    pub withdraw_after: u32,
    /// Per engine (config order), why it is withdrawn before the first game (its handshake
    /// failed and the config forfeits such engines), else `None`.
    pub withdrawn: Vec<Option<String>>,
    /// Keep every ply's time and engine info, reported as [`Event::Moves`].
    pub record_moves: bool,
    /// Adjudication by the engines' scores (config `adjudication`).
    pub adjudication: Option<&'a crate::adjudication::Adjudication>,
    /// Where games in progress are published for watchers, if anywhere.
    pub live: Option<&'a crate::live::Feed>,
}

/// What the runner reports while it works.
#[derive(Debug)]
pub enum Event {
    /// A game finished; its record is final.
    Finished(Box<GameRecord>),
    /// The plies of the game reported next by [`Event::Finished`] (same id), with each move's
    /// time and engine info; only with [`Tournament::record_moves`], and only for a game with at
    /// least one ply.
    Moves(u64, Vec<referee::PlyInfo>),
    /// Something worth telling the user (an engine restarted, a transcript not written).
    Note(String),
    /// An engine was withdrawn during the run: its index and why. Its remaining games are
    /// forfeited.
    Withdrawn(usize, String),
}

/// Per engine: games failed in a row without a move, and why it was withdrawn, if it was.
struct Health {
    limit: u32,
    state: Mutex<Vec<(u32, Option<String>)>>,
}

/// How a game went for one engine, as far as withdrawal is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Turnout {
    /// It crashed, broke the protocol or ran out of time without having played a move.
    FailedWithoutMove,
    /// It played at least one move.
    Played,
    /// Neither (its opponent failed before it had to move).
    Neutral,
}

impl Health {
    fn withdrawn(&self, engine: usize) -> Option<String> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())[engine]
            .1
            .clone()
    }

    /// Counts a game; returns the reason when this game makes `engine` withdrawn.
    fn count(&self, engine: usize, turnout: Turnout, detail: &str) -> Option<String> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let (streak, withdrawn) = &mut state[engine];
        match turnout {
            Turnout::Played => *streak = 0,
            Turnout::Neutral => {}
            Turnout::FailedWithoutMove => {
                *streak += 1;
                if *streak >= self.limit && withdrawn.is_none() {
                    let reason = format!(
                        "failed {streak} games in a row without playing a move (last: {detail})"
                    );
                    *withdrawn = Some(reason.clone());
                    return Some(reason);
                }
            }
        }
        None
    }
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
            sandbox: crate::sandbox::of(&spec.spec),
        };
        let mut engine = Engine::spawn(&launch).map_err(|e| StartFailure {
            termination: referee::termination_of(&e),
            detail: e.to_string(),
        })?;
        self.registry.add(engine.pid());
        if self.tournament.log_protocol {
            engine.record_transcript();
        }
        let timeout = Duration::from_millis(self.tournament.handshake_timeout_ms);
        let setup = |engine: &mut Engine| -> Result<Identity, crate::engine::EngineError> {
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
                let detail = format!("failed the handshake: {}", referee::describe(&engine, &e));
                drop(engine);
                Err(StartFailure {
                    termination: referee::termination_of(&e),
                    detail,
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

    fn play(
        &mut self,
        fixture: &Fixture,
        health: &Health,
        cancel: &AtomicBool,
        events: &mut Vec<Event>,
    ) -> GameRecord {
        let game_start = Instant::now();
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
            record_moves: t.record_moves,
            adjudication: t.adjudication,
            live: t.live,
        };
        let withdrawn = fixture.players.map(|e| health.withdrawn(e));
        if withdrawn.first.is_some() || withdrawn.second.is_some() {
            let failures = withdrawn.map(|w| {
                w.map(|reason| StartFailure {
                    termination: Termination::Withdrawn,
                    detail: format!("was withdrawn: {reason}"),
                })
            });
            return unplayed(&setup, names, failures);
        }
        let failures = fixture.players.map(|e| self.start(e).err());
        if failures.first.is_some() || failures.second.is_some() {
            for side in Side::BOTH {
                if let Some(f) = &failures[side] {
                    let e = fixture.players[side];
                    if let Some(reason) = health.count(e, Turnout::FailedWithoutMove, &f.detail) {
                        events.push(Event::Withdrawn(e, reason));
                    }
                }
            }
            return unplayed(&setup, names, failures);
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
        if let Some(feed) = t.live {
            feed.begin(live_game(&setup, names, start, t.engines, fixture));
        }
        let played = referee::play(
            &setup,
            BySide::new(seat(first, &t.engines[a]), seat(second, &t.engines[b])),
        );
        if let Some(feed) = t.live {
            feed.end(fixture.id);
        }
        let record = played.record;
        if cancel.load(Ordering::SeqCst) {
            // Killed by arena itself: neither a result nor a reason to restart anything.
            return record;
        }
        if !played.plies.is_empty() {
            events.push(Event::Moves(record.game_id, played.plies));
        }
        if t.log_protocol {
            let lines = fixture
                .players
                .map(|e| self.live[e].as_mut().map(|l| l.engine.take_transcript()));
            let text = transcript(game_start, names, lines, &record);
            let path = t.log_dir.join("games").join(format!("{}.log", fixture.id));
            if let Err(e) = fs::write(&path, text) {
                events.push(Event::Note(format!("cannot write {}: {e}", path.display())));
            }
        }
        let turnouts = Side::BOTH.map(|side| turnout(&record, played.at_fault, played.moves, side));
        self.settle(
            fixture,
            &record,
            BySide::new(turnouts[0], turnouts[1]),
            played.faulty,
            health,
            events,
        );
        // Whatever the engines detached during the game ends with it.
        crate::reaper::sweep();
        record
    }

    /// After a game: counts it towards each engine's withdrawal, and stops the engines that
    /// restart per game or failed (announcing a restart unless the engine is now withdrawn).
    fn settle(
        &mut self,
        fixture: &Fixture,
        record: &GameRecord,
        turnouts: BySide<Turnout>,
        faulty: BySide<bool>,
        health: &Health,
        events: &mut Vec<Event>,
    ) {
        let t = self.tournament;
        for side in Side::BOTH {
            let e = fixture.players[side];
            let withdrawn = health.count(e, turnouts[side], &record.detail);
            if t.engines[e].restarts_per_game(t.restart_per_game) {
                self.stop(e);
            } else if faulty[side] {
                self.stop(e);
                // A withdrawn engine is not restarted: its games are forfeited from now on.
                if withdrawn.is_none() {
                    events.push(Event::Note(format!(
                        "restarting {} after game {}: {}",
                        t.engines[e].spec.name, fixture.id, record.detail
                    )));
                }
            }
            if let Some(reason) = withdrawn {
                events.push(Event::Withdrawn(e, reason));
            }
        }
    }
}

/// A game about to be played, as watchers first see it: full clocks, no move.
fn live_game(
    setup: &Setup<'_>,
    names: BySide<&str>,
    start: &crate::games::AnyPosition,
    engines: &[PlanEngine],
    fixture: &Fixture,
) -> crate::live::LiveGame {
    let clock = |side: Side| match engines[fixture.players[side]].time_control.limit {
        crate::config::Limit::Clock { base, .. } => Some(base),
        _ => None,
    };
    crate::live::LiveGame {
        game_id: fixture.id,
        round: fixture.round,
        board: setup.board_name.to_owned(),
        game: setup.game.name().to_owned(),
        first: names.first.to_owned(),
        second: names.second.to_owned(),
        start_fen: start.fen(),
        clock_ms: [clock(Side::First), clock(Side::Second)],
        started_unix_ms: crate::live::unix_ms(),
        ..Default::default()
    }
}

/// How a game went for the engine of `side`, as far as withdrawal is concerned. Only an engine
/// that produced no move at all counts as failed: an illegal move is a move (a buggy engine,
/// e.g. a course player with the wrong `directions`, keeps playing).
fn turnout(record: &GameRecord, at_fault: Option<Side>, moves: BySide<u32>, side: Side) -> Turnout {
    let silent = matches!(
        record.termination,
        Termination::Crash | Termination::ProtocolError | Termination::TimeForfeit
    );
    if silent && at_fault == Some(side) && moves[side] == 0 {
        Turnout::FailedWithoutMove
    } else if moves[side] > 0 {
        Turnout::Played
    } else {
        Turnout::Neutral
    }
}

/// A game's protocol transcript: both engines' lines merged in time order on one clock (ms
/// since the game was handed to the referee), each labelled with its side and engine, then
/// the result.
fn transcript(
    start: Instant,
    names: BySide<&str>,
    lines: BySide<Option<Vec<TranscriptLine>>>,
    record: &GameRecord,
) -> String {
    let mut merged: Vec<(Side, TranscriptLine)> = Vec::new();
    for side in Side::BOTH {
        for line in lines[side].clone().unwrap_or_default() {
            merged.push((side, line));
        }
    }
    // Stable: lines of one engine keep their order when time stamps tie.
    merged.sort_by_key(|(_, line)| line.at);
    let mut text = format!(
        "# game {}: {} (first) vs {} (second) on {}; times in ms since the game started\n",
        record.game_id, names.first, names.second, record.board
    );
    for (side, line) in merged {
        let ms = line.at.saturating_duration_since(start).as_secs_f64() * 1e3;
        let arrow = if line.sent { '>' } else { '<' };
        text.push_str(&format!(
            "{ms:10.3} {:<6} {:<12} {arrow} {}\n",
            side.to_string(),
            names[side],
            line.text
        ));
    }
    text.push_str(&format!(
        "# result {} {}{}{}\n",
        record.result,
        record.termination,
        if record.detail.is_empty() { "" } else { ": " },
        record.detail
    ));
    text
}

/// The record of a game that could not start because one or both engines failed to come up
/// (or were withdrawn): the other wins; when both failed, nobody does (`*`, not rated).
fn unplayed(
    setup: &Setup<'_>,
    names: BySide<&str>,
    failures: BySide<Option<StartFailure>>,
) -> GameRecord {
    let result = match (&failures.first, &failures.second) {
        (Some(_), None) => Outcome::Decisive {
            winner: Side::Second,
        }
        .result_str(),
        (None, Some(_)) => Outcome::Decisive {
            winner: Side::First,
        }
        .result_str(),
        _ => "*",
    };
    let termination = [&failures.first, &failures.second]
        .into_iter()
        .flatten()
        .map(|f| f.termination)
        .next()
        .unwrap_or(Termination::Crash);
    let detail = Side::BOTH
        .into_iter()
        .filter_map(|side| {
            let f = failures[side].as_ref()?;
            let verb = if f.termination == Termination::Withdrawn {
                ""
            } else {
                "could not start: "
            };
            Some(format!("{} ({side}) {verb}{}", names[side], f.detail))
        })
        .collect::<Vec<_>>()
        .join("; ");
    GameRecord {
        start_fen: setup.start.fen(),
        ..GameRecord::unplayed(setup.ids(names), result, termination, detail)
    }
}

/// Plays `fixtures` on `concurrency` workers, calling `on_event` on this thread for every
/// finished game and note. Returns `false` if `cancel` stopped the run early.
pub fn run(
    tournament: &Tournament<'_>,
    fixtures: Vec<Fixture>,
    concurrency: usize,
    cancel: &AtomicBool,
    on_event: impl FnMut(Event),
) -> bool {
    run_until(
        tournament,
        fixtures,
        concurrency,
        cancel,
        &AtomicBool::new(false),
        on_event,
    )
}

/// [`run`], with `no_new_games`: once set (an SPRT decided), workers take no further fixture
/// while the games in flight finish and are reported as usual. Unlike `cancel`, it kills
/// nothing and the run counts as completed (`true`).
pub fn run_until(
    tournament: &Tournament<'_>,
    fixtures: Vec<Fixture>,
    concurrency: usize,
    cancel: &AtomicBool,
    no_new_games: &AtomicBool,
    mut on_event: impl FnMut(Event),
) -> bool {
    let (work_tx, work_rx) = unbounded::<Fixture>();
    for fixture in fixtures {
        let _ = work_tx.send(fixture);
    }
    drop(work_tx);
    let (event_tx, event_rx) = unbounded::<Event>();
    let registry = Arc::new(Registry::default());
    let health = Health {
        limit: tournament.withdraw_after.max(1),
        state: Mutex::new(
            (0..tournament.engines.len())
                .map(|e| (0, tournament.withdrawn.get(e).cloned().flatten()))
                .collect(),
        ),
    };
    let health = &health;
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
                    if cancel.load(Ordering::SeqCst) || no_new_games.load(Ordering::SeqCst) {
                        break;
                    }
                    let mut events = Vec::new();
                    let record = worker.play(&fixture, health, cancel, &mut events);
                    for event in events {
                        let _ = event_tx.send(event);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn health(limit: u32) -> Health {
        Health {
            limit,
            state: Mutex::new(vec![(0, None); 2]),
        }
    }

    #[test]
    fn a_played_game_resets_the_streak_of_failures() {
        let h = health(3);
        let fail = Turnout::FailedWithoutMove;
        assert_eq!(h.count(0, fail, "a"), None);
        assert_eq!(h.count(0, fail, "b"), None);
        assert_eq!(h.count(0, Turnout::Played, ""), None);
        // Two failures again: the streak started over, so still not withdrawn.
        assert_eq!(h.count(0, fail, "c"), None);
        assert_eq!(h.count(0, fail, "d"), None);
        assert_eq!(h.withdrawn(0), None);
        let reason = h.count(0, fail, "e").expect("third in a row");
        assert!(reason.contains("3 games in a row") && reason.contains("(last: e)"));
        assert_eq!(h.withdrawn(0), Some(reason));
        // Withdrawn once; the other engine is untouched.
        assert_eq!(h.count(0, fail, "f"), None);
        assert_eq!(h.withdrawn(1), None);
    }

    #[test]
    fn a_neutral_game_neither_counts_nor_resets() {
        let h = health(2);
        let fail = Turnout::FailedWithoutMove;
        assert_eq!(h.count(1, fail, "a"), None);
        assert_eq!(h.count(1, Turnout::Neutral, ""), None);
        assert!(h.count(1, fail, "b").is_some());
    }
}
