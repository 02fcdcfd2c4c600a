//! Iterative-deepening negamax alpha-beta, generic over the [`Game`] trait.
//!
//! Each game supplies an [`Evaluator`]: a static evaluation and a move ordering that may also
//! drop moves (selective search, used for Amazons' branching factor of ~2,000). Scores are from
//! the side to move's view; a decided game scores ±[`WIN`] less the plies to reach it, so faster
//! wins and slower losses are preferred.

use arena::games::{Game, Outcome};
use arena::protocol::{Info, Score};
use arena::ugi::Search;

/// The score of a won position at the root.
pub const WIN: i32 = 1_000_000;
/// Deepest iteration when no depth limit is given.
const MAX_DEPTH: u32 = 64;

/// Static knowledge of one game.
pub trait Evaluator<G: Game> {
    /// The position's value for the side to move (any scale well inside ±[`WIN`]).
    fn evaluate(&mut self, pos: &G) -> i32;

    /// Orders `moves` best first, and may truncate them; `ply` is the distance from the root.
    /// The default keeps the generation order.
    fn order(&mut self, pos: &G, moves: &mut Vec<G::Move>, ply: u32) {
        let _ = (pos, moves, ply);
    }
}

struct Searcher<'s, 'a, E> {
    eval: E,
    search: &'s Search<'a>,
    nodes: u64,
    aborted: bool,
}

impl<E> Searcher<'_, '_, E> {
    fn out_of_budget(&mut self) -> bool {
        if !self.aborted {
            let over_nodes = self.search.nodes.is_some_and(|limit| self.nodes >= limit);
            // Reading the clock every node costs little next to a move generation.
            self.aborted = over_nodes || self.search.should_stop();
        }
        self.aborted
    }
}

fn terminal_score(outcome: Outcome, pos_side: arena::games::Side, ply: u32) -> i32 {
    match outcome {
        Outcome::Draw => 0,
        Outcome::Decisive { winner } if winner == pos_side => WIN - ply as i32,
        Outcome::Decisive { .. } => -(WIN - ply as i32),
    }
}

impl<E> Searcher<'_, '_, E> {
    fn negamax<G: Game>(&mut self, pos: &G, depth: u32, ply: u32, mut alpha: i32, beta: i32) -> i32
    where
        E: Evaluator<G>,
    {
        self.nodes += 1;
        if let Some(outcome) = pos.outcome() {
            return terminal_score(outcome, pos.side_to_move(), ply);
        }
        if depth == 0 {
            return self.eval.evaluate(pos);
        }
        if self.out_of_budget() {
            return 0;
        }
        let mut moves = pos.legal_moves();
        self.eval.order(pos, &mut moves, ply);
        let mut best = -WIN - 1;
        for mv in moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let score = -self.negamax(&child, depth - 1, ply + 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Searches `pos` by iterative deepening until the depth limit, the node limit, the deadline or
/// `stop`, printing an `info` line per completed depth. Returns the best move of the deepest
/// completed iteration (or the best found so far at depth 1), `None` only without legal moves.
pub fn best_move<G: Game, E: Evaluator<G>>(
    pos: &G,
    eval: E,
    search: &Search<'_>,
) -> Option<G::Move> {
    let mut moves = pos.legal_moves();
    let mut searcher = Searcher {
        eval,
        search,
        nodes: 0,
        aborted: false,
    };
    searcher.eval.order(pos, &mut moves, 0);
    let mut best = *moves.first()?;
    if moves.len() == 1 {
        return Some(best);
    }
    let max_depth = search.depth.unwrap_or(MAX_DEPTH).max(1);
    for depth in 1..=max_depth {
        let mut alpha = -WIN - 1;
        let mut iteration_best = None;
        for &mv in &moves {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let score = -searcher.negamax(&child, depth - 1, 1, -WIN - 1, -alpha);
            if searcher.aborted {
                break;
            }
            if score > alpha {
                alpha = score;
                iteration_best = Some(mv);
            }
        }
        // A partial iteration still searched the previous best first; anything it found better
        // with a full window is trustworthy.
        if let Some(mv) = iteration_best {
            best = mv;
        }
        if searcher.aborted {
            break;
        }
        search.info(Info {
            depth: Some(depth),
            score: Some(Score::Cp(i64::from(alpha))),
            nodes: Some(searcher.nodes),
            pv: vec![pos.move_text(best)],
            ..Info::default()
        });
        // Principal move first for the next iteration.
        if let Some(i) = moves.iter().position(|&m| m == best) {
            moves[..=i].rotate_right(1);
        }
        if alpha.abs() >= WIN - MAX_DEPTH as i32 * 2 {
            break;
        }
    }
    Some(best)
}
