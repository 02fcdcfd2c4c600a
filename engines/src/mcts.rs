//! Monte Carlo tree search (UCT, Kocsis and Szepesvári 2006) with random playouts, generic over
//! the [`Game`] trait.
//!
//! Limits: the deadline from the clock or movetime; `go nodes n` runs n playouts; `go depth d`
//! runs 1,000·d playouts. The move played is the most visited child of the root.

use arena::games::{Game, Side};
use arena::seed::{self, SeededRng};
use arena::ugi::Search;

/// UCB1 exploration constant for results in [0, 1].
const EXPLORATION: f64 = 1.4;
/// Playouts per `go depth` ply.
const PLAYOUTS_PER_DEPTH: u64 = 1_000;
/// A playout longer than this is adjudicated by the rules' count.
const PLAYOUT_CAP: u32 = 2_000;

struct Node<M> {
    mv: Option<M>,
    parent: usize,
    children: Vec<usize>,
    untried: Vec<M>,
    visits: f64,
    /// Points won by the side that made `mv`.
    points: f64,
    /// The side that made `mv` (the side not to move in this node).
    mover: Side,
}

fn playout<G: Game>(
    mut pos: G,
    rng: &mut SeededRng,
    buf: &mut Vec<G::Move>,
) -> arena::games::Outcome {
    for _ in 0..PLAYOUT_CAP {
        if let Some(outcome) = pos.outcome() {
            return outcome;
        }
        match pos.playout_move(rng, buf) {
            Some(mv) => pos.play_unchecked(mv),
            None => break,
        }
    }
    pos.outcome().unwrap_or_else(|| pos.adjudicate())
}

/// Runs UCT from `root` within the search limits; `None` only without legal moves.
pub fn best_move<G: Game>(root: &G, search: &mut Search<'_>) -> Option<G::Move> {
    let moves = root.legal_moves();
    if moves.len() <= 1 {
        return moves.first().copied();
    }
    let limit = match (search.nodes, search.depth) {
        (Some(n), _) => Some(n),
        (None, Some(d)) => Some(u64::from(d) * PLAYOUTS_PER_DEPTH),
        (None, None) => None,
    };
    let mut tree = vec![Node {
        mv: None,
        parent: usize::MAX,
        children: Vec::new(),
        untried: moves,
        visits: 0.0,
        points: 0.0,
        mover: root.side_to_move().other(),
    }];
    let mut buf = Vec::new();
    let mut playouts = 0u64;
    while limit.is_none_or(|l| playouts < l) && !search.should_stop() {
        // Selection.
        let mut node = 0;
        let mut pos = root.clone();
        while tree[node].untried.is_empty() && !tree[node].children.is_empty() {
            let log_n = tree[node].visits.ln();
            node = *tree[node]
                .children
                .iter()
                .max_by(|&&a, &&b| {
                    let ucb = |i: usize| {
                        tree[i].points / tree[i].visits
                            + EXPLORATION * (log_n / tree[i].visits).sqrt()
                    };
                    ucb(a).total_cmp(&ucb(b))
                })
                .expect("a node with children");
            pos.play_unchecked(tree[node].mv.expect("non-root nodes carry a move"));
        }
        // Expansion.
        if !tree[node].untried.is_empty() {
            let k = seed::below(search.rng, tree[node].untried.len());
            let mv = tree[node].untried.swap_remove(k);
            let mover = pos.side_to_move();
            pos.play_unchecked(mv);
            let child = tree.len();
            tree.push(Node {
                mv: Some(mv),
                parent: node,
                children: Vec::new(),
                untried: pos.legal_moves(),
                visits: 0.0,
                points: 0.0,
                mover,
            });
            tree[node].children.push(child);
            node = child;
        }
        // Simulation and backpropagation.
        let outcome = playout(pos, search.rng, &mut buf);
        playouts += 1;
        while node != usize::MAX {
            tree[node].visits += 1.0;
            tree[node].points += outcome.points(tree[node].mover);
            node = tree[node].parent;
        }
    }
    tree[0]
        .children
        .iter()
        .max_by(|&&a, &&b| tree[a].visits.total_cmp(&tree[b].visits))
        .and_then(|&c| tree[c].mv)
        .or_else(|| tree[0].untried.first().copied())
}
