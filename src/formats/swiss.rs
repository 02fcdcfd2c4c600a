//! Swiss pairing: who meets whom in the next round, from the rounds played so far.
//!
//! A pure function of its input (standings, previous opponents, byes), so a resumed or
//! extended tournament gets the same pairings. The rule, after the Dutch system of the FIDE
//! Handbook (C.04.3), simplified for engines, whose games are colour-swapped pairs and so need
//! no colour allocation:
//!
//! 1. Rank the engines by points, then Buchholz (the sum of the opponents' points), then the
//!    seeded order (lower first).
//! 2. With an odd count, the lowest-ranked engine that has not had a bye gets it. When the
//!    others cannot then be paired without a rematch, the next one up gets it instead, and
//!    when every engine had a bye, the lowest-ranked gets a second one: a second bye is
//!    preferred over a rematch.
//! 3. Pair the highest-ranked unpaired engine first. Its score group is the unpaired engines
//!    with its points; with `g` of them left (itself included) its preferred opponent is the
//!    one at index ⌊g/2⌋ of the group, i.e. the top half meets the bottom half in order (1–5,
//!    2–6, 3–7, 4–8 in a group of 8). Then the group's other members below that index in rank
//!    order, then those above it from the nearest up (for engine 1 of a group of 8: 5, 6, 7,
//!    8, 4, 3, 2), then the engines of lower groups in rank order. An engine left alone in its
//!    group (the last of an odd group) *floats down*: it joins the next group, on top, and is
//!    paired as one of it.
//! 4. Never a rematch while a pairing of the whole round without one exists: the choice of
//!    step 3 backtracks; only when no rematch-free round exists are rematches allowed (then the
//!    same order, fewest rematches first by construction of the search).

use std::collections::BTreeSet;

/// One engine's standing before a round.
#[derive(Clone, Debug, PartialEq)]
pub struct Entrant {
    /// Index of the engine (config order).
    pub engine: usize,
    /// Points so far (a game pair won counts 1, drawn ½, per the caller's scoring).
    pub points: f64,
    /// Sum of the points of the opponents met so far.
    pub buchholz: f64,
    /// Place in the seeded order (0 first): the initial ranking and the last tie-break.
    pub seed_rank: usize,
    /// Engines met in earlier rounds.
    pub met: BTreeSet<usize>,
    /// Byes it already had: the bye goes to the lowest-ranked of those with the fewest.
    pub byes: u32,
}

/// One round's pairings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Round {
    /// The pairings, higher-ranked engine first, in rank order of that engine.
    pub pairs: Vec<(usize, usize)>,
    /// The engine with the bye, when the field is odd.
    pub bye: Option<usize>,
    /// How many pairings repeat an earlier one (0 unless no other round was possible).
    pub rematches: usize,
}

/// Search nodes before a search gives up (and the next, looser pass runs): far above what
/// fields of a few hundred engines need, a bound for pathological inputs.
const BUDGET: usize = 1_000_000;

/// The engines' order of rank: points, Buchholz (both higher first), seed rank.
pub fn ranking(entrants: &[Entrant]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..entrants.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&entrants[a], &entrants[b]);
        y.points
            .total_cmp(&x.points)
            .then(y.buchholz.total_cmp(&x.buchholz))
            .then(x.seed_rank.cmp(&y.seed_rank))
    });
    order
}

/// The next round's pairings for `entrants` (engine indices in [`Entrant::engine`]).
pub fn pair(entrants: &[Entrant]) -> Round {
    let order = ranking(entrants);
    // Bye candidates: fewest byes first, then lowest rank (a stable sort of the reversed order).
    let mut byes: Vec<Option<usize>> = if order.len() % 2 == 1 {
        let mut c: Vec<usize> = order.iter().rev().copied().collect();
        c.sort_by_key(|&i| entrants[i].byes);
        c.into_iter().map(Some).collect()
    } else {
        vec![None]
    };
    byes.dedup();
    for allow_rematches in [false, true] {
        for &bye in &byes {
            let field: Vec<usize> = order.iter().copied().filter(|&i| Some(i) != bye).collect();
            let mut search = Search {
                entrants,
                allow_rematches,
                budget: BUDGET,
                best: None,
            };
            let mut paired = Vec::new();
            search.run(&field, &mut paired, 0);
            if let Some((pairs, rematches)) = search.best {
                return Round {
                    pairs: pairs
                        .into_iter()
                        .map(|(a, b)| (entrants[a].engine, entrants[b].engine))
                        .collect(),
                    bye: bye.map(|i| entrants[i].engine),
                    rematches,
                };
            }
        }
    }
    Round::default()
}

/// The depth-first search of step 3 and 4 over positions in `entrants`.
struct Search<'a> {
    entrants: &'a [Entrant],
    allow_rematches: bool,
    budget: usize,
    /// The first complete round found (the preferred one, by the order of the search), with
    /// its rematch count; with rematches allowed, the one with fewest.
    best: Option<(Vec<(usize, usize)>, usize)>,
}

impl Search<'_> {
    fn rematch(&self, a: usize, b: usize) -> bool {
        self.entrants[a].met.contains(&self.entrants[b].engine)
    }

    /// Pairs `left` (in rank order) after `paired`, which holds `rematches` rematches.
    fn run(&mut self, left: &[usize], paired: &mut Vec<(usize, usize)>, rematches: usize) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        if let Some((_, fewest)) = &self.best {
            if rematches >= *fewest {
                return;
            }
        }
        let Some((&top, rest)) = left.split_first() else {
            self.best = Some((paired.clone(), rematches));
            return;
        };
        for candidate in preferences(self.entrants, top, rest) {
            let again = self.rematch(top, rest[candidate]);
            if again && !self.allow_rematches {
                continue;
            }
            let opponent = rest[candidate];
            let remaining: Vec<usize> = rest
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != candidate)
                .map(|(_, &e)| e)
                .collect();
            paired.push((top, opponent));
            self.run(&remaining, paired, rematches + usize::from(again));
            paired.pop();
            // Without rematches the first complete round is the preferred one.
            if self.best.as_ref().is_some_and(|(_, r)| *r == 0) {
                return;
            }
        }
    }
}

/// Positions in `rest` in the order `top` prefers them as opponents (step 3).
fn preferences(entrants: &[Entrant], top: usize, rest: &[usize]) -> Vec<usize> {
    // Its score group; alone in it, it floats down and joins the next one, on top.
    let own = entrants[top].points;
    let level = if rest.iter().any(|&e| entrants[e].points == own) {
        own
    } else {
        rest.iter()
            .map(|&e| entrants[e].points)
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let group: Vec<usize> = (0..rest.len())
        .filter(|&i| entrants[rest[i]].points == level)
        .collect();
    // `top` and its group: g engines, the ideal opponent at index ⌊g/2⌋ of it, i.e. at
    // ⌊g/2⌋ - 1 of `group` (which lacks `top`).
    let g = group.len() + 1;
    let ideal = g / 2;
    let mut in_group: Vec<usize> = (0..group.len()).collect();
    in_group.sort_by_key(|&k| {
        let at = k + 1;
        // Below the ideal first (bottom half, in order), then above it, nearest first.
        if at >= ideal {
            (0, at - ideal)
        } else {
            (1, ideal - at)
        }
    });
    let mut order: Vec<usize> = in_group.into_iter().map(|k| group[k]).collect();
    order.extend((0..rest.len()).filter(|&i| entrants[rest[i]].points != level));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entrants 0..n in seed order with `points`, no history.
    fn field(points: &[f64]) -> Vec<Entrant> {
        points
            .iter()
            .enumerate()
            .map(|(i, &p)| Entrant {
                engine: i,
                points: p,
                buchholz: 0.0,
                seed_rank: i,
                met: BTreeSet::new(),
                byes: 0,
            })
            .collect()
    }

    fn meet(entrants: &mut [Entrant], a: usize, b: usize) {
        entrants[a].met.insert(b);
        entrants[b].met.insert(a);
    }

    #[test]
    fn the_first_round_pairs_top_half_against_bottom_half_in_seed_order() {
        let round = pair(&field(&[0.0; 8]));
        assert_eq!(round.pairs, [(0, 4), (1, 5), (2, 6), (3, 7)]);
        assert_eq!((round.bye, round.rematches), (None, 0));
    }

    #[test]
    fn score_groups_pair_within_themselves_and_an_odd_group_floats_its_last_down() {
        // Group 2.0: 0,1,2 (3 engines); group 1.0: 3,4,5; group 0.0: 6,7.
        let round = pair(&field(&[2.0, 2.0, 2.0, 1.0, 1.0, 1.0, 0.0, 0.0]));
        // 0–1 (g = 3: index 1); 2 floats down and tops the next group, which pairs top half
        // against bottom half: 2–4, 3–5.
        assert_eq!(round.pairs, [(0, 1), (2, 4), (3, 5), (6, 7)]);
    }

    #[test]
    fn ranking_is_points_then_buchholz_then_seed() {
        let mut f = field(&[1.0, 2.0, 2.0, 1.0]);
        f[2].buchholz = 3.0;
        f[1].buchholz = 1.0;
        assert_eq!(ranking(&f), [2, 1, 0, 3]);
    }

    #[test]
    fn no_rematch_while_another_round_exists() {
        // Dutch would pair 0–2 and 1–3; 0–2 already met, so 0–3 and 1–2.
        let mut f = field(&[0.0; 4]);
        meet(&mut f, 0, 2);
        let round = pair(&f);
        assert_eq!(round.pairs, [(0, 3), (1, 2)]);
        assert_eq!(round.rematches, 0);
    }

    #[test]
    fn backtracks_when_a_greedy_choice_leaves_only_a_rematch() {
        // 0 prefers 2 (ideal), then 3, then 1; after 0–2 the rest (1, 3) already met; after
        // 0–3 the rest (1, 2) already met: only 0–1 with 2–3 is free of rematches.
        let mut f = field(&[0.0; 4]);
        meet(&mut f, 1, 3);
        meet(&mut f, 1, 2);
        let round = pair(&f);
        assert_eq!(round.pairs, [(0, 1), (2, 3)]);
        assert_eq!(round.rematches, 0);
    }

    #[test]
    fn rematches_only_when_every_round_needs_one_and_then_as_few_as_possible() {
        // Four engines; every pairing but 2–3 has been played.
        let mut f = field(&[1.0, 1.0, 1.0, 1.0]);
        for (a, b) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)] {
            meet(&mut f, a, b);
        }
        // 2–3 has not met: 0 and 1 must meet again, once.
        let round = pair(&f);
        assert_eq!(round.rematches, 1);
        assert!(round.pairs.contains(&(2, 3)), "{round:?}");
    }

    #[test]
    fn the_bye_goes_to_the_lowest_ranked_without_one_and_rotates() {
        let mut f = field(&[0.0; 5]);
        let first = pair(&f);
        assert_eq!(first.bye, Some(4));
        f[4].byes = 1;
        f[4].points = 1.0;
        let second = pair(&f);
        // 4 now ranks first (1 point); of the rest, 3 is the lowest without a bye.
        assert_eq!(second.bye, Some(3));
        f[3].byes = 1;
        let third = pair(&f);
        assert_eq!(third.bye, Some(2));
    }

    #[test]
    fn when_every_engine_had_a_bye_the_lowest_ranked_gets_a_second() {
        let mut f = field(&[0.0; 3]);
        for e in &mut f {
            e.byes = 1;
        }
        assert_eq!(pair(&f).bye, Some(2));
        // 0 and 1 met: a bye for 2 would force the rematch 0–1, so the next one up, 1, sits
        // out and 0 meets 2.
        meet(&mut f, 0, 1);
        let round = pair(&f);
        assert_eq!((round.bye, round.rematches), (Some(1), 0));
        assert_eq!(round.pairs, [(0, 2)]);
    }

    #[test]
    fn the_preferred_opponents_follow_the_documented_order() {
        let f = field(&[0.0; 8]);
        let rest: Vec<usize> = (1..8).collect();
        let order: Vec<usize> = preferences(&f, 0, &rest).iter().map(|&i| rest[i]).collect();
        assert_eq!(order, [4, 5, 6, 7, 3, 2, 1]);
    }

    #[test]
    fn every_engine_is_paired_once_or_has_the_bye() {
        for n in 2..=17 {
            let round = pair(&field(&vec![0.0; n]));
            let mut seen: Vec<usize> = round.pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            seen.extend(round.bye);
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
            assert_eq!(round.bye.is_some(), n % 2 == 1);
        }
    }

    #[test]
    fn a_whole_swiss_never_repeats_a_pairing_while_it_can_avoid_it() {
        // 9 engines, 6 rounds; results: the lower engine index wins each pair.
        let mut f = field(&[0.0; 9]);
        let mut all = BTreeSet::new();
        for _ in 0..6 {
            let round = pair(&f);
            assert_eq!(round.rematches, 0);
            for &(a, b) in &round.pairs {
                assert!(all.insert((a.min(b), a.max(b))), "rematch {a}-{b}");
                meet(&mut f, a, b);
                f[a.min(b)].points += 1.0;
            }
            if let Some(b) = round.bye {
                f[b].byes += 1;
                f[b].points += 1.0;
            }
        }
    }

    #[test]
    fn a_third_bye_waits_until_everyone_had_a_second() {
        // 3 engines, many rounds, a bye worth nothing (so the ranking stays the seeded
        // order): the byes go round, never two ahead of anyone.
        let mut f = field(&[0.0; 3]);
        for round in 0..9 {
            let b = pair(&f).bye.unwrap();
            f[b].byes += 1;
            let (most, least) = (
                f.iter().map(|e| e.byes).max().unwrap(),
                f.iter().map(|e| e.byes).min().unwrap(),
            );
            assert!(
                most - least <= 1,
                "round {round}: byes {:?}",
                f.iter().map(|e| e.byes).collect::<Vec<_>>()
            );
        }
    }
}
