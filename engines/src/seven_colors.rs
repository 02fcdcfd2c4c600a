//! Seven Colors strategies: the seeds' ladder (random-available, greedy, hegemonic, foresight,
//! hybrid) and the alpha-beta evaluation.

use arena::games::seven_colors::{COLOURS, Colour};
use arena::games::{Game, SevenColors, Side};
use arena::seed::{self, SeededRng};

use crate::alphabeta::Evaluator;

/// Colours that capture at least one cell for the side to move, in colour order.
pub fn capturing(pos: &SevenColors) -> Vec<Colour> {
    Colour::in_set(pos.capturing_colours(pos.side_to_move())).collect()
}

/// Picks uniformly among the capturing colours of maximal `key` ([`crate::best_by`]); any
/// colour, uniformly, if none captures.
fn argmax_by<K: Ord>(
    pos: &SevenColors,
    rng: &mut SeededRng,
    key: impl FnMut(Colour) -> K,
) -> Colour {
    crate::best_by(&capturing(pos), key, rng)
        .unwrap_or_else(|| Colour::ALL[seed::below(rng, COLOURS)])
}

/// Uniform over the colours that capture; a non-capturing colour only when none does.
pub fn random_available(pos: &SevenColors, rng: &mut SeededRng) -> Colour {
    argmax_by(pos, rng, |_| 0)
}

/// The colour that captures the most cells now; ties broken by the generator.
pub fn greedy(pos: &SevenColors, rng: &mut SeededRng) -> Colour {
    let me = pos.side_to_move();
    argmax_by(pos, rng, |c| pos.gain(me, c))
}

/// The colour after which the mover's perimeter (neutral cells next to its zone) is largest;
/// ties go to the larger capture, then to the generator.
pub fn hegemonic(pos: &SevenColors, rng: &mut SeededRng) -> Colour {
    let me = pos.side_to_move();
    argmax_by(pos, rng, |c| {
        let mut next = pos.clone();
        next.play_unchecked(c);
        (next.perimeter(me), next.owned(me))
    })
}

/// Most cells over `depth` consecutive own moves (the opponent is ignored); ties by the larger
/// first-move gain, then by the generator.
pub fn foresight(pos: &SevenColors, depth: u32, rng: &mut SeededRng) -> Colour {
    fn best_total(pos: &SevenColors, me: Side, depth: u32) -> u32 {
        if depth == 0 || pos.is_over() {
            return pos.owned(me);
        }
        let mut best = pos.owned(me);
        for c in Colour::in_set(pos.capturing_colours(me)) {
            let mut next = pos.clone();
            next.play_unchecked(c);
            // Own moves only: hand the turn straight back.
            let next = next.with_side_to_move(me);
            best = best.max(best_total(&next, me, depth - 1));
        }
        best
    }
    let me = pos.side_to_move();
    argmax_by(pos, rng, |c| {
        let mut next = pos.clone();
        next.play_unchecked(c);
        let next = next.with_side_to_move(me);
        (
            best_total(&next, me, depth.saturating_sub(1)),
            pos.gain(me, c),
        )
    })
}

/// Hegemonic while more than `switch_percent`% of the board is neutral, greedy after.
pub fn hybrid(pos: &SevenColors, switch_percent: u32, rng: &mut SeededRng) -> Colour {
    let cells = (pos.size() * pos.size()) as u32;
    if pos.neutral() * 100 > switch_percent * cells {
        hegemonic(pos, rng)
    } else {
        greedy(pos, rng)
    }
}

/// Cells and frontier: 4 points a cell owned, 1 a neutral cell on the perimeter, for the side
/// to move minus the opponent. Orders capturing colours by gain and drops the rest (a
/// non-capturing colour is kept only when nothing captures: it never gains territory).
pub struct Eval;

impl Evaluator<SevenColors> for Eval {
    fn evaluate(&mut self, pos: &SevenColors) -> i32 {
        let me = pos.side_to_move();
        let value = |side: Side| 4 * pos.owned(side) as i32 + pos.perimeter(side) as i32;
        value(me) - value(me.other())
    }

    fn order(&mut self, pos: &SevenColors, moves: &mut Vec<Colour>, _ply: u32) {
        let me = pos.side_to_move();
        let set = pos.capturing_colours(me);
        if set == 0 {
            moves.truncate(1);
            return;
        }
        moves.retain(|c| c.is_in(set));
        moves.sort_by_cached_key(|&c| std::cmp::Reverse(pos.gain(me, c)));
    }
}
