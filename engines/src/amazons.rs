//! Amazons strategies: one-ply mobility and the territory evaluation for alpha-beta.
//!
//! The evaluation follows the queen-distance territory of the Amazons literature (Hensgens,
//! "A Knowledge-based Approach of the Game of Amazons", 2001; Lieberum, "An evaluation function
//! for the game of amazons", Theoretical Computer Science 349, 2005): every empty vertex belongs
//! to the side whose queens reach it in fewer queen moves; ties count a little for the side to
//! move. Mobility is added with a small weight for the opening, when territory is still vague.

use arena::games::amazons::AmazonsMove;
use arena::games::{Amazons, Game, Side};
use arena::seed::SeededRng;

use crate::alphabeta::Evaluator;

/// Own minus opponent's queen mobility after each move; the best, ties broken by the generator.
pub fn mobility(pos: &Amazons, rng: &mut SeededRng) -> Option<AmazonsMove> {
    let me = pos.side_to_move();
    crate::best_by(
        &pos.legal_moves(),
        |mv| {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            i64::from(next.mobility(me)) - i64::from(next.mobility(me.other()))
        },
        rng,
    )
}

/// Queen-move distance from `side`'s queens to every vertex (`u8::MAX`: unreachable).
pub fn queen_distances(pos: &Amazons, side: Side, dist: &mut Vec<u8>, queue: &mut Vec<usize>) {
    dist.clear();
    dist.resize(pos.grid_len(), u8::MAX);
    queue.clear();
    for &q in pos.queens(side) {
        dist[usize::from(q)] = 0;
        queue.push(usize::from(q));
    }
    let mut head = 0;
    while head < queue.len() {
        let v = queue[head];
        head += 1;
        let next = dist[v].saturating_add(1);
        pos.for_each_reach(v, usize::MAX, |u| {
            if dist[u] > next {
                dist[u] = next;
                queue.push(u);
            }
        });
    }
}

/// Territory (×8 per vertex, ties ×1 for the side to move) plus mobility, for the side to
/// move; keeps the best `keep_root` moves at the root and `keep` below it, ranked by mobility.
pub struct Eval {
    /// Moves searched at the root.
    pub keep_root: usize,
    /// Moves searched below the root.
    pub keep: usize,
    dist: [Vec<u8>; 2],
    queue: Vec<usize>,
}

impl Eval {
    /// An evaluator keeping `keep_root` root moves and `keep` moves deeper.
    pub fn new(keep_root: usize, keep: usize) -> Eval {
        Eval {
            keep_root,
            keep,
            dist: [Vec::new(), Vec::new()],
            queue: Vec::new(),
        }
    }
}

impl Evaluator<Amazons> for Eval {
    fn evaluate(&mut self, pos: &Amazons) -> i32 {
        let me = pos.side_to_move();
        let [mine, theirs] = &mut self.dist;
        queen_distances(pos, me, mine, &mut self.queue);
        queen_distances(pos, me.other(), theirs, &mut self.queue);
        let mut territory = 0i32;
        for v in 0..pos.grid_len() {
            if !pos.is_empty(v) {
                continue;
            }
            let (a, b) = (mine[v], theirs[v]);
            territory += match a.cmp(&b) {
                std::cmp::Ordering::Less => 8,
                std::cmp::Ordering::Greater => -8,
                std::cmp::Ordering::Equal if a != u8::MAX => 1,
                std::cmp::Ordering::Equal => 0,
            };
        }
        territory + (pos.mobility(me) as i32 - pos.mobility(me.other()) as i32) / 2
    }

    fn order(&mut self, pos: &Amazons, moves: &mut Vec<AmazonsMove>, ply: u32) {
        let keep = if ply == 0 { self.keep_root } else { self.keep };
        if moves.len() <= keep {
            return;
        }
        let me = pos.side_to_move();
        moves.sort_by_cached_key(|&mv| {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            std::cmp::Reverse(next.mobility(me) as i32 - 2 * next.mobility(me.other()) as i32)
        });
        moves.truncate(keep);
    }
}
