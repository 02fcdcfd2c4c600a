//! The referee: plays one fixture between two live engines and returns its [`GameRecord`].
//!
//! Per game: `setoption UGI_Variant` (and `Seed` when declared), `uginewgame`, `isready`; then
//! per move `position fen <start> moves …` and `go`, reading until `bestmove` before the
//! deadline. Every move is checked by the rules library. Any failure ends the game against the
//! engine at fault, with a [`Termination`] and a sentence naming the engine, side, ply and move;
//! the referee never waits past a deadline and never prints.

use std::time::{Duration, Instant};

use crate::config::{Limit, TimeControl};
use crate::engine::{Engine, EngineError, Identity};
use crate::games::{AnyPosition, BySide, GameKind, Outcome, Side};
use crate::protocol::{self, BestMove, Command, Go, Reply};
use crate::record::{GameRecord, Termination};
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
}

/// The result of refereeing a game.
pub struct Played {
    /// The record to write.
    pub record: GameRecord,
    /// Per side, whether its engine misbehaved and must be restarted before another game.
    pub faulty: BySide<bool>,
}

/// A failure charged to one side.
struct Fault {
    side: Side,
    termination: Termination,
    detail: String,
    /// The engine cannot be trusted for another game.
    restart: bool,
}

fn fault_of(side: Side, name: &str, error: &EngineError, doing: &str) -> Fault {
    let termination = match error {
        EngineError::Timeout { .. } | EngineError::Protocol(_) => Termination::ProtocolError,
        EngineError::Closed { .. } | EngineError::Write(_) | EngineError::Spawn { .. } => {
            Termination::Crash
        }
    };
    Fault {
        side,
        termination,
        detail: format!("{name} ({side}) {doing}: {error}"),
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

fn prepare(seat: &mut Seat<'_>, side: Side, setup: &Setup<'_>) -> Result<(), Fault> {
    let fail = |e: EngineError| fault_of(side, seat.name, &e, "failed before the game");
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
    let engine = &mut *seat.engine;
    engine.drain();
    engine
        .send_lines(&lines.iter().map(String::as_str).collect::<Vec<_>>())
        .map_err(fail)?;
    engine.sync(setup.ready_timeout).map_err(fail)
}

/// The `go` command for `side`, given both seats' time controls and clocks.
fn go_command(tcs: BySide<TimeControl>, clocks: BySide<u64>, side: Side) -> Go {
    match tcs[side].limit {
        Limit::MoveTime(ms) => Go::MoveTime(ms),
        Limit::Depth(d) => Go::Depth(d),
        Limit::Nodes(n) => Go::Nodes(n),
        Limit::Clock { .. } => {
            let inc = |s: Side| match tcs[s].limit {
                Limit::Clock { increment, .. } => increment,
                _ => 0,
            };
            Go::Clock {
                p1time: clocks.first,
                p2time: clocks.second,
                p1inc: inc(Side::First),
                p2inc: inc(Side::Second),
            }
        }
    }
}

/// Plays `setup.fixture` between `seats` (first player first) and records it.
pub fn play(setup: &Setup<'_>, mut seats: BySide<Seat<'_>>) -> Played {
    let started = Instant::now();
    let tcs = BySide::new(seats.first.time_control, seats.second.time_control);
    let mut clocks = tcs.map(|tc| match tc.limit {
        Limit::Clock { base, .. } => base,
        _ => 0,
    });
    let mut pos = setup.start.clone();
    let mut moves: Vec<String> = Vec::new();
    let start_fen = setup.start.fen();
    // `position fen <start> moves m1 m2 …`, extended by one move a ply.
    let mut position_line = Command::Position {
        fen: start_fen.clone(),
        moves: Vec::new(),
    }
    .to_string();
    let mut used = BySide::new(0u64, 0u64);
    let mut faulty = BySide::new(false, false);

    let ending: Result<Termination, Fault> = (|| {
        for side in Side::BOTH {
            prepare(&mut seats[side], side, setup)?;
        }
        loop {
            if pos.outcome().is_some() {
                return Ok(Termination::Normal);
            }
            if moves.len() as u32 >= setup.max_plies {
                return Ok(Termination::MaxPlies);
            }
            let side = pos.side_to_move();
            let ply = moves.len() + 1;
            let seat = &mut seats[side];
            let name = seat.name;
            let fail = |e: EngineError| fault_of(side, name, &e, &format!("failed at ply {ply}"));
            let tc = tcs[side];
            let go_line = Command::Go(go_command(tcs, clocks, side)).to_string();
            let sent = seat
                .engine
                .send_lines(&[&position_line, &go_line])
                .map_err(fail)?;
            let allowance = match tc.limit {
                Limit::MoveTime(ms) => ms + tc.margin_ms,
                Limit::Clock { .. } => clocks[side] + tc.margin_ms,
                Limit::Depth(_) | Limit::Nodes(_) => tc.move_timeout_ms,
            };
            let deadline = sent + Duration::from_millis(allowance);
            let answer = seat
                .engine
                .recv_reply(deadline, "bestmove", |reply, at| match reply {
                    Reply::BestMove(best) => Some((best, at)),
                    _ => None,
                });
            let (best, at) = match answer {
                Ok(answer) => answer,
                Err(EngineError::Timeout { .. }) => {
                    // Ask for the move, give it a moment, then give up on the process.
                    let _ = seat.engine.send(&Command::Stop);
                    let late = seat.engine.recv_reply(
                        Instant::now() + STOP_GRACE,
                        "bestmove",
                        |reply, _| matches!(reply, Reply::BestMove(_)).then_some(()),
                    );
                    used[side] += allowance;
                    return Err(Fault {
                        side,
                        termination: Termination::TimeForfeit,
                        detail: format!(
                            "{name} ({side}) lost on time at ply {ply}: no bestmove within {allowance} ms ({tc})"
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
                Err(e) => return Err(fail(e)),
            };
            let elapsed = at.saturating_duration_since(sent).as_millis() as u64;
            used[side] += elapsed;
            let late = match tc.limit {
                Limit::MoveTime(ms) => elapsed > ms + tc.margin_ms,
                Limit::Clock { increment, .. } => {
                    let over = elapsed > clocks[side] + tc.margin_ms;
                    clocks[side] = clocks[side].saturating_sub(elapsed) + increment;
                    over
                }
                Limit::Depth(_) | Limit::Nodes(_) => elapsed > tc.move_timeout_ms,
            };
            if late {
                return Err(Fault {
                    side,
                    termination: Termination::TimeForfeit,
                    detail: format!(
                        "{name} ({side}) lost on time at ply {ply}: {elapsed} ms ({tc}, margin {} ms)",
                        tc.margin_ms
                    ),
                    restart: false,
                });
            }
            match best {
                BestMove::Resign => {
                    return Err(Fault {
                        side,
                        termination: Termination::Resign,
                        detail: format!("{name} ({side}) resigned at ply {ply}"),
                        restart: false,
                    });
                }
                BestMove::Move(text) => match pos.play_text(&text) {
                    Ok(canonical) => {
                        position_line.push_str(if moves.is_empty() { " moves " } else { " " });
                        position_line.push_str(&canonical);
                        moves.push(canonical);
                    }
                    Err(e) => {
                        return Err(Fault {
                            side,
                            termination: Termination::IllegalMove,
                            detail: format!("{name} ({side}) at ply {ply} in {}: {e}", setup.game),
                            restart: false,
                        });
                    }
                },
            }
        }
    })();

    let (outcome, termination, detail, scores) = match ending {
        Ok(Termination::MaxPlies) => (
            pos.adjudicate(),
            Termination::MaxPlies,
            format!("adjudicated after {} plies", moves.len()),
            pos.final_scores(),
        ),
        Ok(termination) => (
            pos.outcome().unwrap_or(Outcome::Draw),
            termination,
            String::new(),
            pos.scores(),
        ),
        Err(fault) => {
            faulty[fault.side] = fault.restart;
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
    let fixture = setup.fixture;
    Played {
        record: GameRecord {
            game_id: fixture.id,
            round: fixture.round,
            board: setup.board_name.to_owned(),
            game: setup.game.name().to_owned(),
            pair: fixture.pair,
            first: seats.first.name.to_owned(),
            second: seats.second.name.to_owned(),
            result: outcome.result_str().to_owned(),
            termination,
            plies: moves.len() as u32,
            score_first: scores.map(|s| s.first),
            score_second: scores.map(|s| s.second),
            duration_ms: started.elapsed().as_millis() as u64,
            first_time_ms: used.first,
            second_time_ms: used.second,
            start_fen,
            moves: moves.join(" "),
            detail,
        },
        faulty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::OptionDecl;

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

    #[test]
    fn go_carries_both_clocks_by_player() {
        let clock = TimeControl {
            limit: Limit::Clock {
                base: 1000,
                increment: 10,
            },
            margin_ms: 5,
            move_timeout_ms: 1,
        };
        let fixed = TimeControl {
            limit: Limit::MoveTime(50),
            ..clock
        };
        let go = go_command(
            BySide::new(clock, clock),
            BySide::new(900, 800),
            Side::Second,
        );
        assert_eq!(
            go,
            Go::Clock {
                p1time: 900,
                p2time: 800,
                p1inc: 10,
                p2inc: 10
            }
        );
        assert_eq!(
            go_command(BySide::new(fixed, clock), BySide::new(0, 800), Side::First),
            Go::MoveTime(50)
        );
    }
}
