//! The referee: plays one fixture between two live engines and returns its [`GameRecord`].
//!
//! Per game: `setoption UGI_Variant` (and `Seed` when declared), `uginewgame`, `isready`; then
//! per move `position fen <start> moves …` and `go`, reading until `bestmove` before the
//! deadline. Every move is checked by the rules library. Any failure ends the game against the
//! engine at fault, with a [`Termination`] and a sentence naming the engine, side, ply and move;
//! the referee never waits past a deadline and never prints.
//!
//! Engine `info` lines are not parsed as they come: the referee keeps the text of the last one
//! (not `info string`) before each `bestmove`, and parses it only when the game needs it
//! (`record_moves` or adjudication), at the `bestmove`.
//!
//! Time is kept as [`Duration`] (the clock's own resolution) and rounded only where it leaves
//! the referee: down to whole ms in `go` (an engine is never told it has more than it has),
//! to the nearest ms in the record.

use std::time::{Duration, Instant};

use crate::adjudication::{Adjudication, Adjudicator, Verdict};
use crate::config::{Limit, TimeControl};
use crate::engine::{Engine, EngineError, Identity};
use crate::games::{AnyPosition, BySide, GameKind, Outcome, Side};
use crate::protocol::{self, BestMove, Command, Go, Info, Reply};
use crate::record::{GameIds, GameRecord, Termination};
use crate::schedule::Fixture;

/// How long an engine gets to answer `stop` with a `bestmove` after missing its deadline,
/// before it is treated as hung (and restarted).
const STOP_GRACE: Duration = Duration::from_millis(200);

/// One side of the board: a live engine and how it is to be played.
pub struct Seat<'a> {
    /// The process.
    pub engine: &'a mut Engine,
    /// Its name in the config.
    pub name: &'a str,
    /// What it declared after `ugi`.
    pub identity: &'a Identity,
    /// Its time control.
    pub time_control: TimeControl,
}

/// What the referee needs to know about the game besides the engines.
pub struct Setup<'a> {
    /// The fixture.
    pub fixture: &'a Fixture,
    /// Board name for the record.
    pub board_name: &'a str,
    /// The game.
    pub game: GameKind,
    /// Start position.
    pub start: &'a AnyPosition,
    /// Ply cap (adjudicated).
    pub max_plies: u32,
    /// Timeout of `isready` before the game.
    pub ready_timeout: Duration,
    /// Keep every ply's time and engine info in [`Played::plies`].
    pub record_moves: bool,
    /// End the game by the engines' scores (config `adjudication`).
    pub adjudication: Option<&'a Adjudication>,
    /// Where each ply is published for watchers (`live.json`, `arena serve`), if anywhere.
    pub live: Option<&'a crate::live::Feed>,
}

impl<'a> Setup<'a> {
    /// The game's identifying columns, with `names` by side.
    pub fn ids(&self, names: BySide<&'a str>) -> GameIds<'a> {
        GameIds {
            game_id: self.fixture.id,
            round: self.fixture.round,
            pair: self.fixture.pair,
            board: self.board_name,
            game: self.game.name(),
            first: names.first,
            second: names.second,
        }
    }
}

/// One ply as played, for `moves.csv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlyInfo {
    /// Who played it.
    pub side: Side,
    /// The move, canonical text.
    pub text: String,
    /// Thinking time (ms, rounded to nearest).
    pub time_ms: u64,
    /// The engine's last `info` before its `bestmove` (not `info string`), if it sent one that
    /// parses.
    pub info: Option<Info>,
}

/// The result of refereeing a game.
pub struct Played {
    /// The record to write.
    pub record: GameRecord,
    /// Per side, whether its engine misbehaved and must be restarted before another game.
    pub faulty: BySide<bool>,
    /// The side charged with the game's failure (crash, time, protocol, illegal move); `None`
    /// when the rules, the ply cap or a resignation ended it.
    pub at_fault: Option<Side>,
    /// Moves each side played, so the runner can tell an engine that never manages a move.
    pub moves: BySide<u32>,
    /// Every ply with its time and info when [`Setup::record_moves`], else empty.
    pub plies: Vec<PlyInfo>,
}

/// A failure charged to one side.
pub struct Fault {
    /// The side at fault.
    pub side: Side,
    /// How the game ends.
    pub termination: Termination,
    /// What happened, naming the engine, side and ply.
    pub detail: String,
    /// The engine cannot be trusted for another game.
    pub restart: bool,
}

/// The termination an engine error stands for: silence and broken lines are protocol errors,
/// an engine that is gone (or never started) has crashed.
pub fn termination_of(error: &EngineError) -> Termination {
    match error {
        EngineError::Timeout { .. } | EngineError::Protocol(_) => Termination::ProtocolError,
        EngineError::Closed { .. } | EngineError::Write(_) | EngineError::Spawn { .. } => {
            Termination::Crash
        }
    }
}

/// `error` in words, with the engine's last stderr line and log when it died: the first thing
/// a user needs to see why.
pub fn describe(engine: &Engine, error: &EngineError) -> String {
    match error {
        EngineError::Closed { .. } | EngineError::Write(_) => match engine.stderr_tail(1) {
            Some(tail) => format!("{error}; {tail}"),
            None => error.to_string(),
        },
        _ => error.to_string(),
    }
}

fn fault_of(side: Side, seat: &Seat<'_>, error: &EngineError, doing: &str) -> Fault {
    Fault {
        side,
        termination: termination_of(error),
        detail: format!(
            "{} ({side}) {doing}: {}",
            seat.name,
            describe(seat.engine, error)
        ),
        restart: true,
    }
}

/// The `Seed` value for an engine: the fixture's seed folded into the range it declared.
fn seed_value(identity: &Identity, seed: u64) -> Option<String> {
    let decl = identity.option(protocol::SEED_OPTION)?;
    let (min, max) = (
        decl.min.unwrap_or(0).max(0) as u64,
        decl.max.unwrap_or(i64::MAX).max(0) as u64,
    );
    if max < min {
        return None;
    }
    let span = max - min;
    Some(
        (min + if span == u64::MAX {
            seed
        } else {
            seed % (span + 1)
        })
        .to_string(),
    )
}

/// Sets up `seat`'s engine for the game: `setoption UGI_Variant`, `Seed` when the engine
/// declares it, `uginewgame`, then `isready`.
///
/// # Errors
/// The [`Fault`] of `side` when the engine fails before the game.
pub fn prepare(seat: &mut Seat<'_>, side: Side, setup: &Setup<'_>) -> Result<(), Fault> {
    let mut lines = vec![Command::SetOption {
        name: protocol::VARIANT_OPTION.into(),
        value: setup.game.name().into(),
    }];
    if let Some(value) = seed_value(seat.identity, setup.fixture.engine_seed) {
        lines.push(Command::SetOption {
            name: protocol::SEED_OPTION.into(),
            value,
        });
    }
    lines.push(Command::NewGame);
    let lines: Vec<String> = lines.iter().map(Command::to_string).collect();
    seat.engine.drain();
    let sent = seat
        .engine
        .send_lines(&lines.iter().map(String::as_str).collect::<Vec<_>>())
        .and_then(|_| seat.engine.sync(setup.ready_timeout));
    sent.map_err(|e| fault_of(side, seat, &e, "failed before the game"))
}

/// One side's time for a game: its time control and, under a clock, the time left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideClock {
    tc: TimeControl,
    left: Duration,
}

impl SideClock {
    /// A full clock at the start of a game.
    pub fn new(tc: TimeControl) -> SideClock {
        let left = match tc.limit {
            Limit::Clock { base, .. } => Duration::from_millis(base),
            _ => Duration::ZERO,
        };
        SideClock { tc, left }
    }

    /// How long the next move may take before it is a time forfeit: movetime, the time left
    /// on the clock, or the hang limit of depth/node moves; plus the margin for the first two.
    pub fn allowance(&self) -> Duration {
        let ms = Duration::from_millis;
        match self.tc.limit {
            Limit::MoveTime(t) => ms(t) + ms(self.tc.margin_ms),
            Limit::Clock { .. } => self.left + ms(self.tc.margin_ms),
            Limit::Depth(_) | Limit::Nodes(_) => ms(self.tc.move_timeout_ms),
        }
    }

    /// Charges a move that took `elapsed`; `true` when it took longer than
    /// [`SideClock::allowance`]. Under a clock the time left shrinks by `elapsed` and then
    /// grows by the increment (the increment comes after the move, as in Fischer timing).
    pub fn charge(&mut self, elapsed: Duration) -> bool {
        let late = elapsed > self.allowance();
        if let Limit::Clock { increment, .. } = self.tc.limit {
            self.left = self.left.saturating_sub(elapsed) + Duration::from_millis(increment);
        }
        late
    }

    /// Time left on the clock, whole ms rounded down (0 without a clock).
    pub fn left_ms(&self) -> u64 {
        self.left.as_millis() as u64
    }

    fn increment_ms(&self) -> u64 {
        match self.tc.limit {
            Limit::Clock { increment, .. } => increment,
            _ => 0,
        }
    }

    /// The `go` command for `side` given both sides' clocks: the mover's own limit, or both
    /// clocks by player when it plays on a clock.
    pub fn go(clocks: &BySide<SideClock>, side: Side) -> Go {
        match clocks[side].tc.limit {
            Limit::MoveTime(ms) => Go::MoveTime(ms),
            Limit::Depth(d) => Go::Depth(d),
            Limit::Nodes(n) => Go::Nodes(n),
            Limit::Clock { .. } => Go::Clock {
                p1time: clocks.first.left_ms(),
                p2time: clocks.second.left_ms(),
                p1inc: clocks.first.increment_ms(),
                p2inc: clocks.second.increment_ms(),
            },
        }
    }
}

/// Rounds a duration to the nearest whole ms, for the record.
fn round_ms(d: Duration) -> u64 {
    (d.as_micros() as u64 + 500) / 1000
}

/// A game in progress.
struct Game {
    pos: AnyPosition,
    moves: Vec<String>,
    /// `position fen <start> moves m1 m2 …`, extended by one move a ply.
    position_line: String,
    clocks: BySide<SideClock>,
    used: BySide<Duration>,
    /// The last `info` line of the move being played (reused buffer).
    info_line: String,
    plies: Vec<PlyInfo>,
    adjudicator: Option<Adjudicator>,
    verdict: Option<Verdict>,
}

/// The `info` of a kept line, or `None` when there was none or it does not parse.
pub fn parse_info(line: &str) -> Option<Info> {
    match Reply::parse(line) {
        Ok(Reply::Info(info)) => Some(info),
        _ => None,
    }
}

impl Game {
    fn new(setup: &Setup<'_>, tcs: BySide<TimeControl>) -> Game {
        Game {
            pos: setup.start.clone(),
            moves: Vec::new(),
            position_line: Command::Position {
                fen: setup.start.fen(),
                moves: Vec::new(),
            }
            .to_string(),
            clocks: tcs.map(SideClock::new),
            used: BySide::new(Duration::ZERO, Duration::ZERO),
            info_line: String::new(),
            plies: Vec::new(),
            adjudicator: setup.adjudication.map(Adjudicator::new),
            verdict: None,
        }
    }

    /// Plays until the rules, the ply cap or a fault end the game.
    fn run(
        &mut self,
        setup: &Setup<'_>,
        seats: &mut BySide<Seat<'_>>,
    ) -> Result<Termination, Fault> {
        for side in Side::BOTH {
            prepare(&mut seats[side], side, setup)?;
        }
        loop {
            if self.pos.outcome().is_some() {
                return Ok(Termination::Normal);
            }
            match &self.verdict {
                Some(Verdict::Win { .. }) => return Ok(Termination::AdjudicatedWin),
                Some(Verdict::Draw { .. }) => return Ok(Termination::AdjudicatedDraw),
                None => {}
            }
            if self.moves.len() as u32 >= setup.max_plies {
                return Ok(Termination::MaxPlies);
            }
            let side = self.pos.side_to_move();
            let ply = self.moves.len() + 1;
            let before = self.used[side];
            let wants_info =
                setup.record_moves || self.adjudicator.is_some() || setup.live.is_some();
            let canonical = engine_move_keeping_info(
                &mut seats[side],
                &mut self.clocks,
                &mut self.used,
                &self.position_line,
                &mut self.pos,
                ply,
                wants_info.then_some(&mut self.info_line),
            )?;
            if wants_info {
                let info = parse_info(&self.info_line);
                if let Some(adjudicator) = &mut self.adjudicator {
                    // The rules come first: a move that ends the game is not adjudicated.
                    if self.pos.outcome().is_none() {
                        let score = info.as_ref().and_then(|i| i.score);
                        self.verdict = adjudicator.observe(ply as u32, side, score);
                    }
                }
                if setup.record_moves {
                    self.plies.push(PlyInfo {
                        side,
                        text: canonical.clone(),
                        time_ms: round_ms(self.used[side] - before),
                        info,
                    });
                }
            }
            if let Some(feed) = setup.live {
                let clock = |side: Side| match seats[side].time_control.limit {
                    Limit::Clock { .. } => Some(self.clocks[side].left_ms()),
                    _ => None,
                };
                feed.ply(
                    setup.fixture.id,
                    side,
                    &canonical,
                    BySide::new(clock(Side::First), clock(Side::Second)),
                    self.used.map(round_ms),
                    &self.info_line,
                );
            }
            let sep = if self.moves.is_empty() {
                " moves "
            } else {
                " "
            };
            self.position_line.push_str(sep);
            self.position_line.push_str(&canonical);
            self.moves.push(canonical);
        }
    }
}

/// One engine move, as the referee plays it at every ply: sends `position_line` (the
/// `position fen <start> moves …` line of `pos`) and `go` for the side to move, waits for its
/// `bestmove` within its time (`stop` and a short grace after a missed deadline), charges the
/// time to `used` and to its clock, and plays the move on `pos`. `ply` is 1-based, for
/// messages. Returns the move in canonical text. Shared with `arena play`, where the other
/// side is a person.
///
/// # Errors
/// The [`Fault`] of the side to move: a crash, hang or protocol error, a time forfeit, a
/// resignation, or an illegal move (`pos` is then unchanged).
pub fn engine_move(
    seat: &mut Seat<'_>,
    clocks: &mut BySide<SideClock>,
    used: &mut BySide<Duration>,
    position_line: &str,
    pos: &mut AnyPosition,
    ply: usize,
) -> Result<String, Fault> {
    engine_move_keeping_info(seat, clocks, used, position_line, pos, ply, None)
}

/// [`engine_move`], keeping in `info_line` (when given) the text of the engine's last `info`
/// line before its `bestmove`, `info string` lines excepted; empty when it sent none. The line
/// is not parsed here (see [`parse_info`]).
///
/// # Errors
/// As [`engine_move`].
pub fn engine_move_keeping_info(
    seat: &mut Seat<'_>,
    clocks: &mut BySide<SideClock>,
    used: &mut BySide<Duration>,
    position_line: &str,
    pos: &mut AnyPosition,
    ply: usize,
    info_line: Option<&mut String>,
) -> Result<String, Fault> {
    let side = pos.side_to_move();
    match ask(seat, side, ply, position_line, clocks, used, info_line)? {
        BestMove::Resign => Err(Fault {
            side,
            termination: Termination::Resign,
            detail: format!("{} ({side}) resigned at ply {ply}", seat.name),
            restart: false,
        }),
        BestMove::Move(text) => pos.play_text(&text).map_err(|e| Fault {
            side,
            termination: Termination::IllegalMove,
            detail: format!("{} ({side}) at ply {ply} in {}: {e}", seat.name, pos.kind()),
            restart: false,
        }),
    }
}

/// Whether `line` is an `info` line worth keeping: `info` followed by anything but `string`.
fn is_search_info(line: &str) -> bool {
    let mut words = line.split_ascii_whitespace();
    words.next() == Some("info") && !matches!(words.next(), Some("string") | None)
}

/// Reads `engine`'s lines until `bestmove` before `deadline`, as [`Engine::recv_reply`] does,
/// but passing over `info` lines unparsed, the last one (not `info string`) kept in
/// `info_line` when given.
fn recv_bestmove(
    engine: &mut Engine,
    deadline: Instant,
    mut info_line: Option<&mut String>,
) -> Result<(BestMove, Instant), EngineError> {
    if let Some(kept) = info_line.as_deref_mut() {
        kept.clear();
    }
    loop {
        let (line, at) = engine.recv(deadline, "bestmove")?;
        if line.trim_start().starts_with("info") {
            if let Some(kept) = info_line.as_deref_mut() {
                if is_search_info(&line) {
                    kept.clear();
                    kept.push_str(&line);
                }
            }
            continue;
        }
        match Reply::parse(&line) {
            Ok(Reply::BestMove(best)) => return Ok((best, at)),
            Ok(_) => {}
            // A malformed `bestmove` cannot be skipped: nothing else will come.
            Err(e) if e.keyword == "bestmove" => {
                return Err(EngineError::Protocol(e.to_string()));
            }
            Err(_) => {}
        }
    }
}

/// Sends the position and `go` to `side`, and waits for its `bestmove` within its time.
fn ask(
    seat: &mut Seat<'_>,
    side: Side,
    ply: usize,
    position_line: &str,
    clocks: &mut BySide<SideClock>,
    used: &mut BySide<Duration>,
    info_line: Option<&mut String>,
) -> Result<BestMove, Fault> {
    let name = seat.name;
    let go_line = Command::Go(SideClock::go(clocks, side)).to_string();
    let sent = match seat.engine.send_lines(&[position_line, &go_line]) {
        Ok(sent) => sent,
        Err(e) => return Err(fault_of(side, seat, &e, &format!("failed at ply {ply}"))),
    };
    let clock = &mut clocks[side];
    let allowance = clock.allowance();
    let tc = clock.tc;
    let answer = recv_bestmove(seat.engine, sent + allowance, info_line);
    let (best, at) = match answer {
        Ok(answer) => answer,
        Err(EngineError::Timeout { .. }) if seat.engine.exited().is_some() => {
            // Its output stayed open only because a process it forked holds it.
            let status = seat.engine.exited().unwrap_or_default();
            used[side] += allowance;
            return Err(Fault {
                side,
                termination: Termination::Crash,
                detail: format!(
                    "{name} ({side}) exited ({status}) at ply {ply} while a process it started kept its output open"
                ),
                restart: true,
            });
        }
        Err(EngineError::Timeout { .. }) => {
            // Ask for the move, give it a moment, then give up on the process.
            let _ = seat.engine.send(&Command::Stop);
            let late =
                seat.engine
                    .recv_reply(Instant::now() + STOP_GRACE, "bestmove", |reply, _| {
                        matches!(reply, Reply::BestMove(_)).then_some(())
                    });
            used[side] += allowance;
            return Err(Fault {
                side,
                termination: Termination::TimeForfeit,
                detail: format!(
                    "{name} ({side}) lost on time at ply {ply}: no bestmove within {} ms ({tc})",
                    round_ms(allowance)
                ),
                restart: late.is_err(),
            });
        }
        Err(EngineError::Protocol(reason)) if reason.contains("bestmove") => {
            return Err(Fault {
                side,
                termination: Termination::ProtocolError,
                detail: format!("{name} ({side}) at ply {ply}: {reason}"),
                restart: true,
            });
        }
        Err(e) => return Err(fault_of(side, seat, &e, &format!("failed at ply {ply}"))),
    };
    let elapsed = at.saturating_duration_since(sent);
    used[side] += elapsed;
    if clocks[side].charge(elapsed) {
        return Err(Fault {
            side,
            termination: Termination::TimeForfeit,
            detail: format!(
                "{name} ({side}) lost on time at ply {ply}: {:.1} ms ({tc}, margin {} ms)",
                elapsed.as_secs_f64() * 1e3,
                tc.margin_ms
            ),
            restart: false,
        });
    }
    Ok(best)
}

/// Plays `setup.fixture` between `seats` (first player first) and records it.
pub fn play(setup: &Setup<'_>, mut seats: BySide<Seat<'_>>) -> Played {
    let started = Instant::now();
    let mut game = Game::new(
        setup,
        BySide::new(seats.first.time_control, seats.second.time_control),
    );
    let ending = game.run(setup, &mut seats);
    let mut faulty = BySide::new(false, false);
    let mut at_fault = None;
    let pos = &game.pos;
    let (outcome, termination, detail, scores) = match ending {
        Ok(Termination::MaxPlies) => (
            pos.adjudicate(),
            Termination::MaxPlies,
            format!("adjudicated after {} plies", game.moves.len()),
            pos.final_scores(),
        ),
        Ok(Termination::AdjudicatedWin | Termination::AdjudicatedDraw) => {
            let (outcome, termination, detail) = match game.verdict.take() {
                Some(Verdict::Win { winner, detail }) => (
                    Outcome::Decisive { winner },
                    Termination::AdjudicatedWin,
                    detail,
                ),
                Some(Verdict::Draw { detail }) => {
                    (Outcome::Draw, Termination::AdjudicatedDraw, detail)
                }
                None => unreachable!("an adjudicated ending has a verdict"),
            };
            (outcome, termination, detail, pos.scores())
        }
        Ok(termination) => (
            pos.outcome().unwrap_or(Outcome::Draw),
            termination,
            String::new(),
            pos.scores(),
        ),
        Err(fault) => {
            faulty[fault.side] = fault.restart;
            if fault.termination != Termination::Resign {
                at_fault = Some(fault.side);
            }
            (
                Outcome::Decisive {
                    winner: fault.side.other(),
                },
                fault.termination,
                fault.detail,
                pos.scores(),
            )
        }
    };
    // Each side's own moves: every other ply, from the start's side to move.
    let plies = game.moves.len() as u32;
    let opener = setup.start.side_to_move();
    let moves = BySide::new(Side::First, Side::Second).map(|side| {
        if side == opener {
            plies.div_ceil(2)
        } else {
            plies / 2
        }
    });
    Played {
        record: GameRecord {
            plies: game.moves.len() as u32,
            score_first: scores.map(|s| s.first),
            score_second: scores.map(|s| s.second),
            duration_ms: round_ms(started.elapsed()),
            first_time_ms: round_ms(game.used.first),
            second_time_ms: round_ms(game.used.second),
            start_fen: setup.start.fen(),
            moves: game.moves.join(" "),
            ..GameRecord::unplayed(
                setup.ids(BySide::new(seats.first.name, seats.second.name)),
                outcome.result_str(),
                termination,
                detail,
            )
        },
        faulty,
        at_fault,
        moves,
        plies: std::mem::take(&mut game.plies),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::OptionDecl;

    #[test]
    fn only_search_info_lines_are_kept() {
        assert!(is_search_info("info depth 3 score cp 5"));
        assert!(is_search_info("info\tnodes 9"));
        assert!(!is_search_info("info string depth 3"));
        assert!(!is_search_info("info"));
        assert!(!is_search_info("bestmove 3"));
        let info = parse_info("info depth 2 seldepth 4 score mate -1 nodes 7 pv a b").unwrap();
        assert_eq!((info.depth, info.seldepth), (Some(2), Some(4)));
        assert_eq!(info.score, Some(protocol::Score::Mate(-1)));
        assert_eq!(parse_info("info depth banana"), None);
        assert_eq!(parse_info(""), None);
    }

    #[test]
    fn seeds_fold_into_the_declared_range() {
        let mut identity = Identity::default();
        assert_eq!(seed_value(&identity, 5), None);
        identity.options.push(OptionDecl {
            name: "seed".into(),
            kind: "spin".into(),
            min: Some(1),
            max: Some(10),
            ..OptionDecl::default()
        });
        assert_eq!(seed_value(&identity, 25), Some("6".into()));
        identity.options[0].max = None;
        identity.options[0].min = None;
        assert_eq!(
            seed_value(&identity, 1 << 62),
            Some((1u64 << 62).to_string())
        );
    }

    fn clock(base: u64, increment: u64) -> TimeControl {
        TimeControl {
            limit: Limit::Clock { base, increment },
            margin_ms: 5,
            move_timeout_ms: 1,
        }
    }

    #[test]
    fn go_carries_both_clocks_by_player() {
        let fixed = TimeControl {
            limit: Limit::MoveTime(50),
            ..clock(1, 0)
        };
        let mut clocks = BySide::new(
            SideClock::new(clock(1000, 10)),
            SideClock::new(clock(1000, 20)),
        );
        clocks.first.charge(Duration::from_millis(110));
        clocks.second.charge(Duration::from_millis(220));
        assert_eq!(
            SideClock::go(&clocks, Side::Second),
            Go::Clock {
                p1time: 900,
                p2time: 800,
                p1inc: 10,
                p2inc: 20
            }
        );
        let mixed = BySide::new(SideClock::new(fixed), SideClock::new(clock(800, 0)));
        assert_eq!(SideClock::go(&mixed, Side::First), Go::MoveTime(50));
    }

    #[test]
    fn clocks_charge_sub_millisecond_moves_and_add_the_increment_after() {
        let mut c = SideClock::new(clock(2000, 50));
        for _ in 0..10 {
            assert!(!c.charge(Duration::from_micros(400)));
        }
        // 2000 ms - 10 x 0.4 ms + 10 x 50 ms = 2496 ms: the 4 ms used are charged.
        assert_eq!(c.left, Duration::from_millis(2496));
        assert_eq!(c.left_ms(), 2496);
        c.charge(Duration::from_micros(1500));
        assert_eq!(c.left_ms(), 2544, "2546.5 left, rounded down when sent");
        // Late: more than the time left plus the margin, judged before the increment.
        let mut c = SideClock::new(clock(100, 1000));
        assert!(!c.charge(Duration::from_millis(105)));
        let mut c = SideClock::new(clock(100, 1000));
        assert!(c.charge(Duration::from_micros(105_001)));
        assert_eq!(round_ms(Duration::from_micros(1499)), 1);
        assert_eq!(round_ms(Duration::from_micros(1500)), 2);
    }
}
