//! Which games a Swiss or knockout has so far, replayed from its results: a pure function of
//! the settings and the results of the games already played, so a run, a resume after a kill
//! and `arena check` all see the same pairings, slots and order of games.
//!
//! The tournament is a sequence of *stages*: a Swiss round; a knockout round's regular games,
//! then each of its tie-break pairs (played only by the matches still tied). [`expand`] plays
//! the stages through in order while every game of a stage has a result, and stops at the
//! first stage that lacks one: that stage's games are the ones to play next.

use std::collections::{BTreeMap, BTreeSet};

use super::knockout::{self, Match};
use super::settings::{Kind, Paired};
use super::swiss::{self, Entrant};

/// One game to play: its start-position slot (the `round` column of games.csv), its game
/// pair (numbered in order from 0) and its engines (config indices) by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Game {
    /// Start-position slot, 1-based (see [`Paired::slots`]).
    pub slot: u32,
    /// Game pair number; both legs share it.
    pub pair: u64,
    /// 0 for the pair's first game, 1 for the colour-swapped one.
    pub leg: u8,
    /// Engine that moves first.
    pub first: usize,
    /// Engine that moves second.
    pub second: usize,
}

/// The points of a finished game, by side: (first, second); a game neither engine could
/// play (`*`) is (0, 0).
pub type Points = (f64, f64);

/// Results so far: by (slot, first, second), the game's points.
pub type Results = BTreeMap<(u32, usize, usize), Points>;

/// One pairing (Swiss) or match (knockout) of a round.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// The two engines, higher-ranked (or higher seed) first; the first moves first in each
    /// pair's first game.
    pub engines: [usize; 2],
    /// Game points over its games so far (tie-breaks included).
    pub score: [f64; 2],
    /// Games of it with a result.
    pub games: u32,
    /// Tie-break pairs played (knockout).
    pub tiebreaks: u32,
    /// Once decided: 0 or 1, the winning side (Swiss: `None` for a drawn pairing).
    pub winner: Option<usize>,
}

/// One round as played so far.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundLog {
    /// Round number, 1-based.
    pub round: u32,
    /// Its pairings or matches, in order (Swiss: rank order; knockout: bracket order).
    pub pairings: Vec<Pairing>,
    /// Engines that advance or score without playing: the Swiss bye, knockout byes.
    pub byes: Vec<usize>,
    /// Swiss: each engine's points after the round (config order); knockout: empty.
    pub points_after: Vec<f64>,
    /// Knockout: the round's bracket positions in order, each a match (its index in
    /// `pairings`) or an engine advancing on a bye; Swiss: empty.
    pub bracket: Vec<Position>,
    /// Whether every game of the round has a result.
    pub complete: bool,
}

/// A bracket position of a knockout round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// A match: its index in [`RoundLog::pairings`].
    Match(usize),
    /// An engine that advances without playing.
    Bye(usize),
}

/// The tournament as far as its results go.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expansion {
    /// Every game of the stages reached, in order: those played and the next stage's.
    pub games: Vec<Game>,
    /// The rounds reached; the last may be incomplete.
    pub rounds: Vec<RoundLog>,
    /// Whether the whole tournament is played.
    pub complete: bool,
}

/// Game pairs of `engines` [a, b] on slots `slots`, appended to `games`: a first in each
/// pair's first leg, b in its second (same start position).
fn push_pairs(
    games: &mut Vec<Game>,
    pair: &mut u64,
    slots: impl Iterator<Item = u32>,
    a: usize,
    b: usize,
) {
    for slot in slots {
        games.push(Game {
            slot,
            pair: *pair,
            leg: 0,
            first: a,
            second: b,
        });
        games.push(Game {
            slot,
            pair: *pair,
            leg: 1,
            first: b,
            second: a,
        });
        *pair += 1;
    }
}

/// Adds the results of `a` and `b`'s games on `slots` to `pairing`; false when one lacks a
/// result.
fn score(pairing: &mut Pairing, results: &Results, slots: impl Iterator<Item = u32>) -> bool {
    let [a, b] = pairing.engines;
    let mut all = true;
    for slot in slots {
        for (first, second) in [(a, b), (b, a)] {
            match results.get(&(slot, first, second)) {
                Some(&(p, q)) => {
                    let (pa, pb) = if first == a { (p, q) } else { (q, p) };
                    pairing.score[0] += pa;
                    pairing.score[1] += pb;
                    pairing.games += 1;
                }
                None => all = false,
            }
        }
    }
    all
}

/// The games and rounds of the tournament `settings` among `engines` engines, as far as
/// `results` go.
pub fn expand(settings: &Paired, engines: usize, results: &Results) -> Expansion {
    match settings.kind {
        Kind::Swiss { rounds, bye_score } => {
            swiss_rounds(settings, engines, rounds, bye_score, results)
        }
        Kind::Knockout { tiebreak_pairs } => bracket(settings, engines, tiebreak_pairs, results),
    }
}

/// Swiss points of a pairing's sides: 1 for more game points, ½ each when equal.
fn pairing_points(score: [f64; 2]) -> [f64; 2] {
    if score[0] > score[1] {
        [1.0, 0.0]
    } else if score[1] > score[0] {
        [0.0, 1.0]
    } else {
        [0.5, 0.5]
    }
}

fn swiss_rounds(
    settings: &Paired,
    n: usize,
    rounds: u32,
    bye_score: f64,
    results: &Results,
) -> Expansion {
    let k = settings.games_per_pairing;
    let mut seed_rank = vec![0; n];
    for (rank, &e) in settings.seeds.iter().enumerate() {
        seed_rank[e] = rank;
    }
    let mut points = vec![0.0; n];
    let mut met: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut opponents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut byes = vec![0u32; n];
    let mut out = Expansion::default();
    let mut pair = 0;
    for round in 1..=rounds {
        let entrants: Vec<Entrant> = (0..n)
            .map(|e| Entrant {
                engine: e,
                points: points[e],
                buchholz: opponents[e].iter().map(|&o| points[o]).sum(),
                seed_rank: seed_rank[e],
                met: met[e].clone(),
                byes: byes[e],
            })
            .collect();
        let paired = swiss::pair(&entrants);
        let slots = || (round - 1) * k + 1..=round * k;
        let mut log = RoundLog {
            round,
            pairings: Vec::new(),
            byes: paired.bye.into_iter().collect(),
            points_after: Vec::new(),
            bracket: Vec::new(),
            complete: true,
        };
        for &(a, b) in &paired.pairs {
            push_pairs(&mut out.games, &mut pair, slots(), a, b);
            let mut p = Pairing {
                engines: [a, b],
                score: [0.0; 2],
                games: 0,
                tiebreaks: 0,
                winner: None,
            };
            log.complete &= score(&mut p, results, slots());
            log.pairings.push(p);
        }
        if !log.complete {
            out.rounds.push(log);
            return out;
        }
        for p in &mut log.pairings {
            let [a, b] = p.engines;
            let won = pairing_points(p.score);
            points[a] += won[0];
            points[b] += won[1];
            p.winner = match won {
                [1.0, _] => Some(0),
                [_, 1.0] => Some(1),
                _ => None,
            };
            met[a].insert(b);
            met[b].insert(a);
            opponents[a].push(b);
            opponents[b].push(a);
        }
        if let Some(b) = paired.bye {
            points[b] += bye_score;
            byes[b] += 1;
        }
        log.points_after = points.clone();
        out.rounds.push(log);
    }
    out.complete = true;
    out
}

/// A knockout round's entry: a match between two engines or one that advances alone.
#[derive(Clone, Copy)]
enum Entry {
    Play(usize, usize),
    Bye(usize),
}

fn bracket(settings: &Paired, n: usize, tiebreak_pairs: u32, results: &Results) -> Expansion {
    let k = settings.games_per_pairing;
    let seeds = &settings.seeds;
    let mut seed_of = vec![0; n];
    for (rank, &e) in seeds.iter().enumerate() {
        seed_of[e] = rank;
    }
    let mut entries: Vec<Entry> = knockout::first_round(n)
        .into_iter()
        .map(|m| match m {
            Match::Play(a, b) => Entry::Play(seeds[a], seeds[b]),
            Match::Bye(a) => Entry::Bye(seeds[a]),
        })
        .collect();
    let mut out = Expansion::default();
    let mut pair = 0;
    for round in 1..=knockout::rounds(n) {
        let base = (round - 1) * (k + tiebreak_pairs);
        let mut log = RoundLog {
            round,
            pairings: Vec::new(),
            byes: Vec::new(),
            points_after: Vec::new(),
            bracket: Vec::new(),
            complete: true,
        };
        // Knockout entries by position in `entries`: the match index in `log.pairings`.
        let mut at: Vec<Option<usize>> = Vec::new();
        for entry in &entries {
            match *entry {
                Entry::Play(a, b) => {
                    at.push(Some(log.pairings.len()));
                    log.bracket.push(Position::Match(log.pairings.len()));
                    push_pairs(&mut out.games, &mut pair, base + 1..=base + k, a, b);
                    let mut p = Pairing {
                        engines: [a, b],
                        score: [0.0; 2],
                        games: 0,
                        tiebreaks: 0,
                        winner: None,
                    };
                    log.complete &= score(&mut p, results, base + 1..=base + k);
                    log.pairings.push(p);
                }
                Entry::Bye(a) => {
                    at.push(None);
                    log.bracket.push(Position::Bye(a));
                    log.byes.push(a);
                }
            }
        }
        // Tie-break stages: every match still tied plays its next pair, together.
        for t in 1..=tiebreak_pairs {
            if !log.complete {
                break;
            }
            let slot = base + k + t;
            for p in log.pairings.iter_mut().filter(|p| p.score[0] == p.score[1]) {
                let [a, b] = p.engines;
                push_pairs(&mut out.games, &mut pair, slot..=slot, a, b);
                p.tiebreaks += 1;
                log.complete &= score(p, results, slot..=slot);
            }
        }
        if !log.complete {
            out.rounds.push(log);
            return out;
        }
        for p in &mut log.pairings {
            let [a, b] = p.engines;
            p.winner = Some(knockout::winner(p.score, [seed_of[a], seed_of[b]]));
        }
        let advancing: Vec<usize> = entries
            .iter()
            .zip(&at)
            .map(|(entry, at)| match (*entry, at) {
                (Entry::Bye(a), _) => a,
                (Entry::Play(..), Some(m)) => {
                    let p = &log.pairings[*m];
                    p.engines[p.winner.unwrap_or(0)]
                }
                (Entry::Play(a, _), None) => a,
            })
            .collect();
        out.rounds.push(log);
        entries = advancing
            .chunks(2)
            .map(|c| match *c {
                [a, b] => Entry::Play(a, b),
                [a] => Entry::Bye(a),
                _ => unreachable!("chunks of one or two"),
            })
            .collect();
    }
    out.complete = true;
    out
}

/// Final Swiss standings of an expansion: per engine (config order) points, Buchholz (sum of
/// the opponents' final points) and Sonneborn–Berger (the final points of the opponents
/// beaten plus half those of the opponents drawn; pairings, not games, decide beaten and
/// drawn), over the complete rounds; byes add points and no opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct SwissStanding {
    /// Engine index (config order).
    pub engine: usize,
    /// Points.
    pub points: f64,
    /// Buchholz.
    pub buchholz: f64,
    /// Sonneborn–Berger.
    pub sonneborn_berger: f64,
    /// Byes had.
    pub byes: u32,
}

/// Swiss standings after the complete rounds of `expansion`, best first: points, Buchholz,
/// Sonneborn–Berger, then the seeded order (`seeds`).
pub fn swiss_standings(expansion: &Expansion, n: usize, seeds: &[usize]) -> Vec<SwissStanding> {
    let done: Vec<&RoundLog> = expansion.rounds.iter().filter(|r| r.complete).collect();
    let points = done
        .last()
        .map_or_else(|| vec![0.0; n], |r| r.points_after.clone());
    let mut rows: Vec<SwissStanding> = (0..n)
        .map(|e| SwissStanding {
            engine: e,
            points: points[e],
            buchholz: 0.0,
            sonneborn_berger: 0.0,
            byes: 0,
        })
        .collect();
    for round in &done {
        for &b in &round.byes {
            rows[b].byes += 1;
        }
        for p in &round.pairings {
            let won = pairing_points(p.score);
            for (side, won) in won.iter().enumerate() {
                let (me, them) = (p.engines[side], p.engines[1 - side]);
                rows[me].buchholz += points[them];
                rows[me].sonneborn_berger += won * points[them];
            }
        }
    }
    let mut rank = vec![0; n];
    for (r, &e) in seeds.iter().enumerate() {
        rank[e] = r;
    }
    rows.sort_by(|x, y| {
        y.points
            .total_cmp(&x.points)
            .then(y.buchholz.total_cmp(&x.buchholz))
            .then(y.sonneborn_berger.total_cmp(&x.sonneborn_berger))
            .then(rank[x.engine].cmp(&rank[y.engine]))
    });
    rows
}

/// A knockout's final order: the champion, the runner-up, then by the round lost in (later
/// first), within a round by seed. Engines of rounds not yet decided come last, by seed.
pub fn knockout_order(expansion: &Expansion, n: usize, seeds: &[usize]) -> Vec<(usize, u32)> {
    // Per engine, the round it went out in (u32::MAX for the winner of the last round).
    let mut out_in = vec![0u32; n];
    for round in expansion.rounds.iter().filter(|r| r.complete) {
        for p in &round.pairings {
            if let Some(w) = p.winner {
                out_in[p.engines[1 - w]] = round.round;
                out_in[p.engines[w]] = round.round + 1;
            }
        }
        for &b in &round.byes {
            out_in[b] = out_in[b].max(round.round + 1);
        }
    }
    let mut rank = vec![0; n];
    for (r, &e) in seeds.iter().enumerate() {
        rank[e] = r;
    }
    let mut order: Vec<(usize, u32)> = (0..n).map(|e| (e, out_in[e])).collect();
    order.sort_by(|x, y| y.1.cmp(&x.1).then(rank[x.0].cmp(&rank[y.0])));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swiss(n: usize, rounds: u32, k: u32) -> Paired {
        Paired {
            kind: Kind::Swiss {
                rounds,
                bye_score: 1.0,
            },
            games_per_pairing: k,
            seeds: (0..n).collect(),
        }
    }

    /// Plays every game of the next stage: the lower engine index wins, or draws when `draw`.
    fn play(e: &Expansion, results: &mut Results, draw: bool) {
        for g in &e.games {
            let p = if draw {
                (0.5, 0.5)
            } else if g.first < g.second {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            };
            results.entry((g.slot, g.first, g.second)).or_insert(p);
        }
    }

    #[test]
    fn a_swiss_expands_round_by_round_and_replays_identically() {
        let s = swiss(5, 3, 2);
        let mut results = Results::new();
        let first = expand(&s, 5, &results);
        // Round 1 only: 2 pairings x 2 pairs x 2 games, slots 1 and 2.
        assert_eq!(first.games.len(), 8);
        assert!(first.games.iter().all(|g| g.slot <= 2));
        assert_eq!(first.rounds[0].byes, [4]);
        assert!(!first.complete);
        play(&first, &mut results, false);
        let second = expand(&s, 5, &results);
        assert_eq!(second.games[..8], first.games[..]);
        assert_eq!(second.games.len(), 16);
        assert!(second.games[8..].iter().all(|g| (3..=4).contains(&g.slot)));
        play(&second, &mut results, false);
        play(&expand(&s, 5, &results), &mut results, false);
        let done = expand(&s, 5, &results);
        assert!(done.complete);
        assert_eq!(done.games.len(), 24);
        // Three different byes, each pairing once.
        let byes: BTreeSet<usize> = done.rounds.iter().flat_map(|r| r.byes.clone()).collect();
        assert_eq!(byes.len(), 3);
        // Engine 0 won all: 3 points (or 2 and a bye).
        let table = swiss_standings(&done, 5, &s.seeds);
        assert_eq!(table[0].engine, 0);
        assert_eq!(table[0].points, 3.0);
    }

    #[test]
    fn a_missing_result_stops_the_expansion_at_its_round() {
        let s = swiss(4, 2, 1);
        let mut results = Results::new();
        let e = expand(&s, 4, &results);
        play(&e, &mut results, false);
        let g = e.games[1];
        results.remove(&(g.slot, g.first, g.second));
        let again = expand(&s, 4, &results);
        assert_eq!(again.games, e.games);
        assert!(!again.rounds[0].complete);
    }

    #[test]
    fn sonneborn_berger_counts_beaten_opponents_fully_and_drawn_ones_half() {
        let s = swiss(4, 1, 1);
        let mut results = Results::new();
        let e = expand(&s, 4, &results);
        // 0–2: 0 wins; 1–3: drawn.
        for g in &e.games {
            let p = if g.first == 1 || g.first == 3 {
                (0.5, 0.5)
            } else if g.first == 0 {
                (1.0, 0.0)
            } else {
                (0.0, 1.0)
            };
            results.insert((g.slot, g.first, g.second), p);
        }
        let done = expand(&s, 4, &results);
        let table = swiss_standings(&done, 4, &s.seeds);
        let row = |e: usize| table.iter().find(|r| r.engine == e).unwrap().clone();
        assert_eq!(
            (row(0).points, row(0).buchholz, row(0).sonneborn_berger),
            (1.0, 0.0, 0.0)
        );
        assert_eq!(
            (row(1).points, row(1).buchholz, row(1).sonneborn_berger),
            (0.5, 0.5, 0.25)
        );
        assert_eq!(row(2).buchholz, 1.0);
        assert_eq!(
            table.iter().map(|r| r.engine).collect::<Vec<_>>(),
            [0, 1, 3, 2]
        );
    }

    fn knockout(n: usize, t: u32) -> Paired {
        Paired {
            kind: Kind::Knockout { tiebreak_pairs: t },
            games_per_pairing: 1,
            seeds: (0..n).collect(),
        }
    }

    #[test]
    fn a_knockout_of_6_gives_byes_to_the_top_seeds_and_ends_with_the_best() {
        let s = knockout(6, 2);
        let mut results = Results::new();
        loop {
            let e = expand(&s, 6, &results);
            if e.complete {
                assert_eq!(e.rounds.len(), 3);
                assert_eq!(e.rounds[0].byes, [0, 1]);
                // 5 matches, no tie-break: 10 games.
                assert_eq!(e.games.len(), 10);
                assert_eq!(knockout_order(&e, 6, &s.seeds)[0], (0, 4));
                break;
            }
            play(&e, &mut results, false);
        }
    }

    #[test]
    fn a_tied_match_plays_its_tiebreaks_then_goes_to_the_higher_seed() {
        let s = knockout(2, 2);
        let mut results = Results::new();
        let mut stages = 0;
        loop {
            let e = expand(&s, 2, &results);
            if e.complete {
                let m = &e.rounds[0].pairings[0];
                assert_eq!((m.tiebreaks, m.games, m.winner), (2, 6, Some(0)));
                // Slots 1 (regular), 2 and 3 (tie-breaks).
                let slots: BTreeSet<u32> = e.games.iter().map(|g| g.slot).collect();
                assert_eq!(slots, BTreeSet::from([1, 2, 3]));
                break;
            }
            stages += 1;
            play(&e, &mut results, true);
        }
        assert_eq!(stages, 3);
        // A decisive tie-break ends the match there.
        let mut results = Results::new();
        play(&expand(&s, 2, &results), &mut results, true);
        play(&expand(&s, 2, &results), &mut results, false);
        let e = expand(&s, 2, &results);
        assert!(e.complete);
        assert_eq!(e.rounds[0].pairings[0].tiebreaks, 1);
    }
}
