//! Awale strategies: greedy capture and the evaluation of the Awale report for alpha-beta.

use arena::games::{Awale, Game, Side};
use arena::seed::SeededRng;

use crate::alphabeta::Evaluator;

/// The move that captures the most seeds now; ties broken by the generator.
pub fn greedy(pos: &Awale, rng: &mut SeededRng) -> Option<u8> {
    let me = pos.side_to_move();
    crate::best_by(
        &pos.legal_moves(),
        |mv| {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            next.captured(me)
        },
        rng,
    )
}

/// Feature weights of the evaluation, each settable as an engine option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Per seed captured (own minus opponent's).
    pub captured: i32,
    /// Per pit holding 1 or 2 seeds (capturable next turn) on the opponent's row minus own.
    pub vulnerable: i32,
    /// Per empty pit on the opponent's row minus own.
    pub empty: i32,
    /// Per opponent pit one's own moves reach, minus the same for the opponent.
    pub reach: i32,
    /// Per pit holding enough seeds to sow a full lap, own minus opponent's.
    pub lap: i32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            captured: 100,
            vulnerable: 6,
            empty: 3,
            reach: 2,
            lap: 10,
        }
    }
}

impl Weights {
    /// The option names, in declaration order, with their current values.
    pub fn named(&mut self) -> [(&'static str, &mut i32); 5] {
        [
            ("CaptureWeight", &mut self.captured),
            ("VulnerableWeight", &mut self.vulnerable),
            ("EmptyWeight", &mut self.empty),
            ("ReachWeight", &mut self.reach),
            ("LapWeight", &mut self.lap),
        ]
    }
}

/// The report's features: seeds captured, pits with 1 or 2 seeds, empty pits, opponent pits
/// each side can reach, pits that can sow a full lap.
pub struct Eval(pub Weights);

fn side_features(pos: &Awale, side: Side) -> (i32, i32, i32, i32) {
    let n = pos.pits_per_row();
    let pits = pos.pits();
    let row = pos.row(side);
    let (mut vulnerable, mut empty, mut reach, mut lap) = (0, 0, 0, 0);
    for i in row.clone() {
        let seeds = usize::from(pits[i]);
        match seeds {
            0 => empty += 1,
            1 | 2 => vulnerable += 1,
            _ => {}
        }
        // Opponent pits this pit's sowing touches.
        let to_edge = row.end - i;
        if seeds >= to_edge {
            reach += (seeds + 1 - to_edge).min(n) as i32;
        }
        if seeds >= 2 * n - 1 {
            lap += 1;
        }
    }
    (vulnerable, empty, reach, lap)
}

impl Evaluator<Awale> for Eval {
    fn evaluate(&mut self, pos: &Awale) -> i32 {
        let w = self.0;
        let me = pos.side_to_move();
        let (v1, e1, r1, l1) = side_features(pos, me);
        let (v2, e2, r2, l2) = side_features(pos, me.other());
        w.captured * (pos.captured(me) as i32 - pos.captured(me.other()) as i32)
            + w.vulnerable * (v2 - v1)
            + w.empty * (e2 - e1)
            + w.reach * (r1 - r2)
            + w.lap * (l1 - l2)
    }

    fn order(&mut self, pos: &Awale, moves: &mut Vec<u8>, _ply: u32) {
        let me = pos.side_to_move();
        moves.sort_by_cached_key(|&mv| {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            std::cmp::Reverse(next.captured(me))
        });
    }
}
