//! Adjudication by the engines' own scores (config `adjudication:`), as cutechess-cli and
//! fastchess do it: a game is given to one side once both engines agree for long enough that it
//! is won, or drawn once both agree for long enough that it is level.
//!
//! Owns the config section and the per-game state machine. Knows no game's rules: only the
//! `score` of each engine's last `info` before its `bestmove`. Does not touch the referee's
//! clocks or records; the referee feeds it one move at a time and ends the game on a verdict.
//!
//! Scores in UGI are from the side to move's view (the engine that just searched). They are
//! turned to the first player's view here; a mate score counts as beyond any centipawn bound
//! (`mate N` with N > 0 is a win for the engine that sent it, N ≤ 0 a loss).

use serde::{Deserialize, Serialize};

use crate::games::{BySide, Side};
use crate::protocol::Score;

/// Most consecutive moves a rule may ask for: beyond it a rule could never fire in a real game.
const MAX_MOVES: u32 = 10_000;

/// The `adjudication:` section: either rule, or both.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawAdjudication")]
pub struct Adjudication {
    /// Give the game to a side both engines see ahead by at least `score_cp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignRule>,
    /// Draw a game both engines see within `score_cp` of level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
}

/// `adjudication.resign`: both engines' scores say the same side is ahead by at least
/// `score_cp` (cp, or any mate score) on `moves` consecutive moves of each engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignRule {
    /// Consecutive moves of each engine (≥ 1).
    pub moves: u32,
    /// The bound (cp, ≥ 1).
    pub score_cp: i64,
}

/// `adjudication.draw`: both engines report |score| ≤ `score_cp` on `moves` consecutive
/// moves each, counting only plies after `after_ply`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRule {
    /// Consecutive moves of each engine (≥ 1).
    pub moves: u32,
    /// The bound (cp, ≥ 0).
    pub score_cp: i64,
    /// Plies 1..=after_ply never count (default 0): openings are often level on paper.
    #[serde(default)]
    pub after_ply: u32,
}

/// The section as written, checked by [`Adjudication::try_from`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdjudication {
    #[serde(default)]
    resign: Option<ResignRule>,
    #[serde(default)]
    draw: Option<DrawRule>,
}

impl TryFrom<RawAdjudication> for Adjudication {
    type Error = String;
    fn try_from(raw: RawAdjudication) -> Result<Adjudication, String> {
        let moves = |key: &str, n: u32| {
            if n == 0 || n > MAX_MOVES {
                Err(format!(
                    "adjudication: {key}.moves must be in 1..={MAX_MOVES}, got {n}"
                ))
            } else {
                Ok(())
            }
        };
        if let Some(r) = &raw.resign {
            moves("resign", r.moves)?;
            if r.score_cp < 1 {
                return Err(format!(
                    "adjudication: resign.score_cp must be at least 1, got {}",
                    r.score_cp
                ));
            }
        }
        if let Some(d) = &raw.draw {
            moves("draw", d.moves)?;
            if d.score_cp < 0 {
                return Err(format!(
                    "adjudication: draw.score_cp must be at least 0, got {}",
                    d.score_cp
                ));
            }
        }
        if raw.resign.is_none() && raw.draw.is_none() {
            return Err("adjudication: needs `resign`, `draw` or both".into());
        }
        Ok(Adjudication {
            resign: raw.resign,
            draw: raw.draw,
        })
    }
}

/// How an adjudicated game ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side both engines saw winning wins.
    Win {
        /// The winner.
        winner: Side,
        /// The scores behind it, for the record's `detail`.
        detail: String,
    },
    /// Drawn.
    Draw {
        /// The scores behind it, for the record's `detail`.
        detail: String,
    },
}

/// A score from the first player's view, mate scores outside every cp bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum View {
    Cp(i64),
    FirstMates,
    SecondMates,
}

/// The per-game state: per side, how many of its last moves in a row support each verdict,
/// and the scores of those moves (for the detail).
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Per side: consecutive moves saying the first player is ahead, the second is, level.
    streaks: BySide<[u32; 3]>,
    /// Per side: its last scores, as sent, most recent last (at most the longest rule's moves).
    recent: BySide<Vec<String>>,
}

const FIRST_AHEAD: usize = 0;
const SECOND_AHEAD: usize = 1;
const LEVEL: usize = 2;

impl Adjudicator {
    /// A fresh state for one game.
    pub fn new(rules: &Adjudication) -> Adjudicator {
        Adjudicator {
            rules: rules.clone(),
            streaks: BySide::new([0; 3], [0; 3]),
            recent: BySide::new(Vec::new(), Vec::new()),
        }
    }

    fn keep(&self) -> usize {
        let r = self.rules.resign.map_or(0, |r| r.moves);
        let d = self.rules.draw.map_or(0, |d| d.moves);
        r.max(d) as usize
    }

    /// Counts the move `side` just played at `ply` (1-based) with the score of its last `info`
    /// (`None` when it sent none, which breaks its streaks); returns the verdict once a rule
    /// holds for both engines, judged at this ply.
    pub fn observe(&mut self, ply: u32, side: Side, score: Option<Score>) -> Option<Verdict> {
        let view = score.map(|s| {
            let mover = match s {
                Score::Cp(cp) => View::Cp(cp),
                Score::Mate(n) if n > 0 => View::FirstMates,
                Score::Mate(_) => View::SecondMates,
            };
            // `mover` is "FirstMates" for "the mover mates"; turn it to the first player's view.
            match (side, mover) {
                (Side::First, v) => v,
                (Side::Second, View::Cp(cp)) => View::Cp(-cp),
                (Side::Second, View::FirstMates) => View::SecondMates,
                (Side::Second, View::SecondMates) => View::FirstMates,
            }
        });
        let streak = &mut self.streaks[side];
        let mut bump = |i: usize, holds: bool| streak[i] = if holds { streak[i] + 1 } else { 0 };
        if let Some(r) = self.rules.resign {
            bump(
                FIRST_AHEAD,
                matches!(view, Some(View::FirstMates))
                    || matches!(view, Some(View::Cp(cp)) if cp >= r.score_cp),
            );
            bump(
                SECOND_AHEAD,
                matches!(view, Some(View::SecondMates))
                    || matches!(view, Some(View::Cp(cp)) if cp <= -r.score_cp),
            );
        }
        if let Some(d) = self.rules.draw {
            // Plies up to `after_ply` neither count nor break a streak: none has begun.
            let counts = ply > d.after_ply;
            bump(
                LEVEL,
                counts && matches!(view, Some(View::Cp(cp)) if cp.abs() <= d.score_cp),
            );
        }
        let keep = self.keep();
        let recent = &mut self.recent[side];
        recent.push(match score {
            Some(Score::Cp(cp)) => format!("cp {cp}"),
            Some(Score::Mate(n)) => format!("mate {n}"),
            None => "none".into(),
        });
        if recent.len() > keep {
            recent.remove(0);
        }
        let both = |i: usize, n: u32| self.streaks.first[i] >= n && self.streaks.second[i] >= n;
        if let Some(r) = self.rules.resign {
            for (i, winner) in [(FIRST_AHEAD, Side::First), (SECOND_AHEAD, Side::Second)] {
                if both(i, r.moves) {
                    return Some(Verdict::Win {
                        winner,
                        detail: format!(
                            "adjudicated at ply {ply}: both engines scored {winner} ahead by at least {} cp for {} moves each; {}",
                            r.score_cp,
                            r.moves,
                            self.scores(r.moves)
                        ),
                    });
                }
            }
        }
        if let Some(d) = self.rules.draw {
            if both(LEVEL, d.moves) {
                return Some(Verdict::Draw {
                    detail: format!(
                        "adjudicated at ply {ply}: both engines scored within {} cp for {} moves each after ply {}; {}",
                        d.score_cp,
                        d.moves,
                        d.after_ply,
                        self.scores(d.moves)
                    ),
                });
            }
        }
        None
    }

    /// The last `n` scores of each side as sent (each from its own view).
    fn scores(&self, n: u32) -> String {
        let tail = |side: Side| {
            let r = &self.recent[side];
            r[r.len().saturating_sub(n as usize)..].join(", ")
        };
        format!(
            "first's scores (own view) [{}], second's [{}]",
            tail(Side::First),
            tail(Side::Second)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(resign: Option<(u32, i64)>, draw: Option<(u32, i64, u32)>) -> Adjudication {
        Adjudication {
            resign: resign.map(|(moves, score_cp)| ResignRule { moves, score_cp }),
            draw: draw.map(|(moves, score_cp, after_ply)| DrawRule {
                moves,
                score_cp,
                after_ply,
            }),
        }
    }

    /// Feeds scores ply by ply, first player moving at odd plies; the ply and verdict of the
    /// first verdict.
    fn run(a: &Adjudication, scores: &[Option<Score>]) -> Option<(u32, Verdict)> {
        let mut adj = Adjudicator::new(a);
        for (i, s) in scores.iter().enumerate() {
            let ply = i as u32 + 1;
            let side = if ply % 2 == 1 {
                Side::First
            } else {
                Side::Second
            };
            if let Some(v) = adj.observe(ply, side, *s) {
                return Some((ply, v));
            }
        }
        None
    }

    fn cp(n: i64) -> Option<Score> {
        Some(Score::Cp(n))
    }

    fn winner(v: &Option<(u32, Verdict)>) -> Option<(u32, Side)> {
        match v {
            Some((ply, Verdict::Win { winner, .. })) => Some((*ply, *winner)),
            _ => None,
        }
    }

    #[test]
    fn resign_fires_on_the_ply_both_streaks_reach_moves() {
        let a = rules(Some((3, 500)), None);
        // First says +600 (first ahead); second says -600 from its own view (first ahead).
        let seq: Vec<_> = (0..10)
            .map(|i| if i % 2 == 0 { cp(600) } else { cp(-600) })
            .collect();
        assert_eq!(winner(&run(&a, &seq)), Some((6, Side::First)));
        // The second player ahead: second says +500 (exactly the bound), first says -700.
        let seq: Vec<_> = (0..10)
            .map(|i| if i % 2 == 0 { cp(-700) } else { cp(500) })
            .collect();
        assert_eq!(winner(&run(&a, &seq)), Some((6, Side::Second)));
        // One cp short of the bound never resigns.
        let seq: Vec<_> = (0..20)
            .map(|i| if i % 2 == 0 { cp(499) } else { cp(-600) })
            .collect();
        assert_eq!(run(&a, &seq), None);
    }

    #[test]
    fn a_broken_streak_starts_again() {
        let a = rules(Some((2, 100)), None);
        // Plies: F+, S+, F+ (first has 2), S 0 (breaks second), F+, S+, F+, S+ → ply 8.
        let seq = [
            cp(200),
            cp(-200),
            cp(200),
            cp(0),
            cp(200),
            cp(-200),
            cp(200),
            cp(-200),
        ];
        assert_eq!(winner(&run(&a, &seq)), Some((8, Side::First)));
        // A move without a score breaks the streak too.
        let seq = [cp(200), cp(-200), None, cp(-200), cp(200), cp(-200)];
        assert_eq!(run(&a, &seq), None);
    }

    #[test]
    fn engines_that_each_think_they_win_never_resign() {
        let a = rules(Some((1, 100)), None);
        let seq: Vec<_> = (0..50).map(|_| cp(900)).collect();
        assert_eq!(run(&a, &seq), None);
        let seq: Vec<_> = (0..50).map(|_| Some(Score::Mate(3))).collect();
        assert_eq!(run(&a, &seq), None);
    }

    #[test]
    fn mate_scores_count_beyond_any_bound_from_the_senders_view() {
        let a = rules(Some((2, 100_000)), Some((1, 100_000, 0)));
        // First is mated (mate -2 from its view), second mates (mate 3): the second wins, and a
        // mate is never "level" however wide the draw bound.
        let seq = [
            Some(Score::Mate(-2)),
            Some(Score::Mate(3)),
            Some(Score::Mate(-1)),
            Some(Score::Mate(1)),
        ];
        assert_eq!(winner(&run(&a, &seq)), Some((4, Side::Second)));
        // `mate 0` is the sender's loss.
        let a = rules(Some((1, 1)), None);
        assert_eq!(
            winner(&run(&a, &[cp(5), Some(Score::Mate(0))])),
            Some((2, Side::First))
        );
    }

    #[test]
    fn draw_needs_after_ply_and_both_level() {
        let a = rules(None, Some((2, 10, 6)));
        let level: Vec<_> = (0..20).map(|_| cp(0)).collect();
        // Plies 7 and 9 (first), 8 and 10 (second): the draw is at ply 10.
        match run(&a, &level) {
            Some((10, Verdict::Draw { detail })) => {
                assert!(detail.contains("[cp 0, cp 0]"), "{detail}")
            }
            other => panic!("{other:?}"),
        }
        // One engine off by 11 cp at every move: no draw.
        let seq: Vec<_> = (0..20)
            .map(|i| if i % 2 == 0 { cp(11) } else { cp(-10) })
            .collect();
        assert_eq!(run(&a, &seq), None);
        // With after_ply 0 the same level scores draw at ply 4.
        let a = rules(None, Some((2, 10, 0)));
        assert!(matches!(run(&a, &level), Some((4, Verdict::Draw { .. }))));
    }

    proptest::proptest! {
        /// Two engines that each score themselves not behind never agree on a winner,
        /// whatever the rule's bound and length.
        #[test]
        fn optimists_are_never_adjudicated_a_win(
            scores in proptest::collection::vec((0i64..3000, proptest::bool::ANY), 1..200),
            moves in 1u32..5,
            bound in 1i64..2000,
        ) {
            let a = rules(Some((moves, bound)), None);
            let seq: Vec<_> = scores
                .iter()
                .map(|&(cp, mate)| Some(if mate { Score::Mate(cp + 1) } else { Score::Cp(cp) }))
                .collect();
            proptest::prop_assert_eq!(run(&a, &seq), None);
        }
    }

    #[test]
    fn the_section_is_validated_naming_the_key() {
        let parse =
            |text: &str| serde_yaml::from_str::<Adjudication>(text).map_err(|e| e.to_string());
        assert!(parse("{resign: {moves: 4, score_cp: 1000}}").is_ok());
        let e = parse("{resign: {moves: 0, score_cp: 1000}}").unwrap_err();
        assert!(e.contains("resign.moves"), "{e}");
        let e = parse("{draw: {moves: 8, score_cp: -1}}").unwrap_err();
        assert!(e.contains("draw.score_cp"), "{e}");
        let e = parse("{}").unwrap_err();
        assert!(e.contains("needs"), "{e}");
        let e = parse("{draw: {moves: 8, score_cp: 1, after: 3}}").unwrap_err();
        assert!(e.contains("after"), "{e}");
        let d = parse("{draw: {moves: 8, score_cp: 10, after_ply: 40}}").unwrap();
        assert_eq!(d.draw.map(|d| d.after_ply), Some(40));
    }
}
