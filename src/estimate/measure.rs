//! What the estimate needs measured: a typical game's plies per board, each engine's time per
//! move along a greedy and a random game of it, and each engine's start-up.
//!
//! Engines' games are longer than greedy playouts (which grab everything at once) and shorter
//! than random ones (which wander): on awale-6, awale-10 and seven_colors-10, greedy 47, 124
//! and 17 plies, random 96, 228 and 43, depth-limited alphabeta games 33, 212 and 22. The
//! typical length is the mean of both kinds.
//!
//! Starts engines only through [`crate::engine::Engine`]; plays no tournament game.

use std::time::{Duration, Instant};

use crate::config::{Limit, Plan, PlanEngine};
use crate::engine::{Engine, Launch};
use crate::games::{AnyPosition, BoardSpec};
use crate::protocol::{self, Command, Go, Reply};
use crate::seed::{self, SeededRng};

/// Playouts per board for its typical length.
pub const PLAYOUTS: u32 = 8;

/// Positions of a playout at which an engine's move is timed: these fractions of its plies.
pub const TIMED_AT: [f64; 4] = [0.0, 0.25, 0.5, 0.75];

/// One playout from `start`: the move texts, each chosen greedily (`greedy`: the best score
/// difference for the mover, ties broken at random, where the game keeps a score) or at random.
pub fn playout(
    start: &AnyPosition,
    max_plies: u32,
    greedy: bool,
    rng: &mut SeededRng,
) -> Vec<String> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let greedy = greedy && start.scores().is_some();
    while pos.outcome().is_none() && moves.len() < max_plies as usize {
        let choice = if greedy {
            greedy_move(&pos, rng)
        } else {
            pos.random_move_text(rng)
        };
        let Some(mv) = choice else { break };
        match pos.play_text(&mv) {
            Ok(canonical) => moves.push(canonical),
            Err(_) => break,
        }
    }
    moves
}

/// The move that leaves the mover the best score difference; a random one among equals.
fn greedy_move(pos: &AnyPosition, rng: &mut SeededRng) -> Option<String> {
    let me = pos.side_to_move();
    let mut best: Vec<String> = Vec::new();
    let mut best_diff = i64::MIN;
    for mv in pos.legal_move_texts() {
        let mut next = pos.clone();
        if next.play_text(&mv).is_err() {
            continue;
        }
        let diff = next
            .scores()
            .map_or(0, |s| i64::from(s[me]) - i64::from(s[me.other()]));
        if diff > best_diff {
            best_diff = diff;
            best.clear();
        }
        if diff == best_diff {
            best.push(mv);
        }
    }
    seed::choose(rng, &best).cloned()
}

/// Per board: the mean plies of [`PLAYOUTS`] greedy and as many random playouts from its first
/// start position, and one of each kind (for timing moves along them).
pub fn typical_games(plan: &Plan, starts: &[Vec<AnyPosition>]) -> Vec<(f64, [Vec<String>; 2])> {
    let mut rng = seed::rng(plan.seed);
    starts
        .iter()
        .zip(&plan.config.boards)
        .map(|(starts, board)| {
            let Some(start) = starts.first() else {
                return (0.0, [Vec::new(), Vec::new()]);
            };
            let games: Vec<Vec<String>> = [true, false]
                .into_iter()
                .flat_map(|greedy| (0..PLAYOUTS).map(move |_| greedy))
                .map(|greedy| playout(start, board.max_plies(), greedy, &mut rng))
                .collect();
            let mean = games.iter().map(Vec::len).sum::<usize>() as f64 / games.len() as f64;
            let random = games[PLAYOUTS as usize].clone();
            (mean, [games[0].clone(), random])
        })
        .collect()
}

/// How `e` is started.
fn launch(e: &PlanEngine) -> Launch {
    Launch {
        program: e.program.clone(),
        args: e.spec.args.clone(),
        stderr_log: None,
        limits: e.spec.limits.unwrap_or_default(),
        sandbox: crate::sandbox::of(&e.spec),
    }
}

/// Seconds per move of `e` on `board`: for a depth or node limit, the mean of its moves at
/// [`TIMED_AT`] of each of `games` (playouts from `start`), as a tournament game asks them; for a
/// movetime, that time; for a clock, its base over 40 moves plus the increment. `None` when
/// the engine does not answer.
pub fn move_seconds(
    e: &PlanEngine,
    board: &BoardSpec,
    start: &AnyPosition,
    games: &[Vec<String>],
    handshake: Duration,
) -> Option<f64> {
    let go = match e.time_control.limit {
        Limit::Depth(d) => Go::Depth(d),
        Limit::Nodes(n) => Go::Nodes(n),
        Limit::MoveTime(_) | Limit::Clock { .. } => {
            return Some(e.time_control.typical_move_ms() / 1e3);
        }
    };
    let mut engine = Engine::spawn(&launch(e)).ok()?;
    engine.handshake(handshake).ok()?;
    let mut setup: Vec<String> = e
        .spec
        .options
        .iter()
        .map(|(name, value)| {
            Command::SetOption {
                name: name.clone(),
                value: value.to_string(),
            }
            .to_string()
        })
        .collect();
    setup.push(
        Command::SetOption {
            name: protocol::VARIANT_OPTION.into(),
            value: board.kind().name().into(),
        }
        .to_string(),
    );
    setup.push(Command::NewGame.to_string());
    let lines: Vec<&str> = setup.iter().map(String::as_str).collect();
    engine.send_lines(&lines).ok()?;
    engine.sync(handshake).ok()?;
    let limit = Duration::from_millis(e.time_control.move_timeout_ms);
    let mut took = Vec::new();
    for (game, at) in games
        .iter()
        .flat_map(|g| TIMED_AT.into_iter().map(move |at| (g, at)))
    {
        let plies = ((game.len() as f64 * at) as usize).min(game.len().saturating_sub(1));
        let position = Command::Position {
            fen: start.fen(),
            moves: game[..plies].to_vec(),
        }
        .to_string();
        let sent = engine
            .send_lines(&[&position, &Command::Go(go).to_string()])
            .ok()?;
        let answered = engine
            .recv_reply(sent + limit, "bestmove", |reply, at| {
                matches!(reply, Reply::BestMove(_)).then_some(at)
            })
            .ok()?;
        took.push(answered.saturating_duration_since(sent).as_secs_f64());
    }
    engine.quit();
    Some(took.iter().sum::<f64>() / took.len() as f64)
}

/// Start-up seconds of each engine: its start and handshake.
pub fn startup_seconds(plan: &Plan) -> Vec<f64> {
    let timeout = Duration::from_millis(plan.handshake_timeout_ms);
    plan.engines
        .iter()
        .map(|e| {
            let started = Instant::now();
            match Engine::spawn(&launch(e)) {
                Ok(mut engine) => {
                    let _ = engine.handshake(timeout);
                    let took = started.elapsed().as_secs_f64();
                    engine.quit();
                    took
                }
                Err(_) => 0.0,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_awale_games_end_sooner_than_random_ones() {
        let board: BoardSpec = serde_yaml::from_str("{game: awale, pits: 6}").unwrap();
        let start = board.start_position(1).unwrap();
        let mut rng = seed::rng(7);
        let mean = |rng: &mut SeededRng, greedy: bool| {
            let total: usize = (0..8)
                .map(|_| {
                    if greedy {
                        playout(&start, board.max_plies(), true, rng).len()
                    } else {
                        let mut pos = start.clone();
                        let mut n = 0;
                        while pos.outcome().is_none() && n < board.max_plies() {
                            let mv = pos.random_move_text(rng).unwrap();
                            pos.play_text(&mv).unwrap();
                            n += 1;
                        }
                        n as usize
                    }
                })
                .sum();
            total as f64 / 8.0
        };
        let greedy = mean(&mut rng, true);
        let random = mean(&mut rng, false);
        assert!(greedy > 10.0 && greedy < random, "{greedy} vs {random}");
        // Every greedy move is legal: the playout replays.
        let game = playout(&start, board.max_plies(), true, &mut rng);
        let mut pos = start.clone();
        for mv in &game {
            pos.play_text(mv).expect("legal");
        }
    }
}
