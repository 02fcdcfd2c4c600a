//! Knockout brackets: the first round's matches from a seeded field, and how a match is
//! decided.
//!
//! The bracket has P = the smallest power of two ≥ N slots. Seeds are placed in the standard
//! order of seeded brackets (1 meets P, 2 meets P−1, and seeds 1 and 2 can meet only in the
//! final); a slot whose seed exceeds N is a bye, so byes go to the top seeds. Pure functions.

/// Seed numbers (1-based) in bracket order for a bracket of `slots` (a power of two): slots
/// 2k and 2k+1 meet in the first round. For 8: 1 8 4 5 2 7 3 6.
///
/// # Panics
/// When `slots` is not a power of two.
pub fn seed_order(slots: usize) -> Vec<usize> {
    assert!(slots.is_power_of_two(), "{slots} slots");
    let mut order = vec![1];
    // Each doubling replaces seed s by s and (size + 1 - s), keeping 1 and 2 apart.
    while order.len() < slots {
        let size = order.len() * 2;
        order = order.iter().flat_map(|&s| [s, size + 1 - s]).collect();
    }
    order
}

/// A first-round slot pair: two seeds (0-based positions in the seeded field), or one seed and
/// a bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// Both seeds play.
    Play(usize, usize),
    /// The seed advances without playing.
    Bye(usize),
}

/// The first round of a knockout of `field` engines (seeded 0 = strongest), in bracket order.
pub fn first_round(field: usize) -> Vec<Match> {
    if field < 2 {
        return (0..field).map(Match::Bye).collect();
    }
    let slots = field.next_power_of_two();
    seed_order(slots)
        .chunks(2)
        .map(|pair| {
            let (a, b) = (pair[0] - 1, pair[1] - 1);
            match (a < field, b < field) {
                (true, true) => Match::Play(a.min(b), a.max(b)),
                (true, false) => Match::Bye(a),
                (false, true) => Match::Bye(b),
                (false, false) => unreachable!("a slot pair of two byes: more byes than seeds"),
            }
        })
        .collect()
}

/// Who wins a match: more points over its game pairs (regular and tie-break) wins; a match
/// still tied after every tie-break pair goes to the higher seed (the lower seed number), a
/// rule known before the match starts. Returns the winner: 0 for `a`, 1 for `b`.
pub fn winner(points: [f64; 2], seeds: [usize; 2]) -> usize {
    if points[0] > points[1] {
        0
    } else if points[1] > points[0] {
        1
    } else {
        usize::from(seeds[1] < seeds[0])
    }
}

/// Rounds of a knockout of `field` engines: ⌈log2 N⌉.
pub fn rounds(field: usize) -> u32 {
    field.next_power_of_two().trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_order_keeps_the_top_seeds_apart() {
        assert_eq!(seed_order(2), [1, 2]);
        assert_eq!(seed_order(4), [1, 4, 2, 3]);
        assert_eq!(seed_order(8), [1, 8, 4, 5, 2, 7, 3, 6]);
        // Seeds 1 and 2 are in different halves at every size.
        for slots in [2, 4, 8, 16, 32] {
            let order = seed_order(slots);
            let half = slots / 2;
            let one = order.iter().position(|&s| s == 1).unwrap();
            let two = order.iter().position(|&s| s == 2).unwrap();
            assert_ne!(one < half, two < half, "{slots}");
        }
    }

    #[test]
    fn brackets_of_2_to_17_hold_every_engine_once_with_byes_for_the_top_seeds() {
        for n in 2..=17 {
            let round = first_round(n);
            let slots = n.next_power_of_two();
            assert_eq!(round.len(), slots / 2, "n = {n}");
            let mut seen = Vec::new();
            let mut byes = Vec::new();
            for m in &round {
                match *m {
                    Match::Play(a, b) => seen.extend([a, b]),
                    Match::Bye(a) => {
                        seen.push(a);
                        byes.push(a);
                    }
                }
            }
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
            byes.sort_unstable();
            assert_eq!(
                byes,
                (0..slots - n).collect::<Vec<_>>(),
                "n = {n}: top seeds"
            );
            assert_eq!(rounds(n), slots.trailing_zeros());
        }
    }

    #[test]
    fn six_engines_give_the_two_top_seeds_a_bye() {
        assert_eq!(
            first_round(6),
            [
                Match::Bye(0),
                Match::Play(3, 4),
                Match::Bye(1),
                Match::Play(2, 5)
            ]
        );
    }

    #[test]
    fn a_tied_match_goes_to_the_higher_seed() {
        assert_eq!(winner([1.5, 0.5], [3, 0]), 0);
        assert_eq!(winner([0.5, 1.5], [0, 3]), 1);
        assert_eq!(winner([1.0, 1.0], [3, 0]), 1);
        assert_eq!(winner([1.0, 1.0], [0, 3]), 0);
    }
}
