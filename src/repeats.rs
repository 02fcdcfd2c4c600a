//! Repeated games: a game that replays an earlier one move for move, and the game pairs that
//! count as one observation in the ratings.
//!
//! Deterministic engines (they ignore `Seed`) on a board whose start never changes replay the
//! same game every time they meet with the same colours; restarted for every game, they even
//! replay it from a fresh process. Such a copy carries no new evidence, so the ratings, the
//! two-player estimates and the SPRT count each distinct game pair once (docs/ratings.md,
//! "Repeated games").
//!
//! A game repeats another when both have moves and the same board, game, start position, first
//! and second engine, move list and result (the result too: identical moves that ended
//! differently, e.g. by a time forfeit, are not the same observation). `games.csv`'s
//! `repeat_of` names the smallest game id of its equal games ([`mark`]); a game without moves
//! (unplayed, or imported without them) never repeats anything, since nothing shows it is a
//! copy.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use crate::record::GameRecord;
use crate::standings::{Names, Observation};

/// What makes two games the same game; `None` for a game without moves.
#[derive(PartialEq, Eq, Hash)]
struct Key<'a> {
    board: &'a str,
    game: &'a str,
    start_fen: &'a str,
    first: &'a str,
    second: &'a str,
    moves: &'a str,
    result: &'a str,
}

fn key(r: &GameRecord) -> Option<Key<'_>> {
    (!r.moves.trim().is_empty()).then_some(Key {
        board: &r.board,
        game: &r.game,
        start_fen: &r.start_fen,
        first: &r.first,
        second: &r.second,
        moves: &r.moves,
        result: &r.result,
    })
}

/// Sets every record's `repeat_of`: the smallest game id of the equal games before it in game-id
/// order, or `None` for the first of its kind and for games without moves. Idempotent, and the
/// same whatever order `records` are in (resume renumbers games, merge joins shards: both call
/// it again). Memory: one borrowed key per distinct game.
pub fn mark(records: &mut [GameRecord]) {
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| records[i].game_id);
    let mut first: HashMap<Key<'_>, u64> = HashMap::new();
    let mut marks = vec![None; records.len()];
    for i in order {
        if let Some(k) = key(&records[i]) {
            let id = records[i].game_id;
            let original = *first.entry(k).or_insert(id);
            marks[i] = (original != id).then_some(original);
        }
    }
    drop(first);
    for (record, mark) in records.iter_mut().zip(marks) {
        record.repeat_of = mark;
    }
}

/// Finds repeats among games as they finish (a run's recorder): remembers the first game of
/// each kind by a hash of its key and compares candidates in full, so a hash collision never
/// marks a false repeat.
#[derive(Debug, Default)]
pub struct Index {
    /// Hash of the key → indices (into the caller's records) of the first game of each kind.
    originals: HashMap<u64, Vec<usize>>,
}

fn hash_of(k: &Key<'_>) -> u64 {
    let mut h = DefaultHasher::new();
    k.hash(&mut h);
    h.finish()
}

impl Index {
    /// The index of `records` (already marked: the games of earlier runs).
    pub fn of(records: &[GameRecord]) -> Index {
        let mut index = Index::default();
        for (i, r) in records.iter().enumerate() {
            if r.repeat_of.is_none() {
                if let Some(k) = key(r) {
                    index.originals.entry(hash_of(&k)).or_default().push(i);
                }
            }
        }
        index
    }

    /// Sets `record.repeat_of` to the id of the first game of its kind among `records` (the
    /// one that finished first: [`mark`] later names the smallest id), or registers it as the
    /// first of its kind, at index `records.len()` (the caller pushes it there next).
    pub fn observe(&mut self, records: &[GameRecord], record: &mut GameRecord) {
        record.repeat_of = None;
        let Some(k) = key(record) else { return };
        let slot = self.originals.entry(hash_of(&k)).or_default();
        let found = slot
            .iter()
            .map(|&i| &records[i])
            .find(|r| key(r).as_ref() == Some(&k));
        match found {
            Some(original) => record.repeat_of = Some(original.game_id),
            None => slot.push(records.len()),
        }
    }
}

/// Where each game of a scope stands in the ratings: its cluster (the distinct game pair it
/// belongs to, a dense number) and whether it is counted (false for every game of a pair that
/// repeats an earlier pair).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clusters {
    /// Cluster of each game (same order as the input), numbered 0, 1, … in the order of the
    /// pairs' ids, so that with no repeat the numbering follows the pair ids.
    pub cluster: Vec<u32>,
    /// Whether each game counts in the estimates.
    pub counted: Vec<bool>,
}

impl Clusters {
    /// Distinct clusters among the counted games selected by `keep` (an engine's, a match's):
    /// the `n_eff` of ratings.csv and pairs.csv.
    pub fn n_eff(&self, keep: impl Fn(usize) -> bool) -> u64 {
        let mut seen: Vec<u32> = (0..self.cluster.len())
            .filter(|&i| self.counted[i] && keep(i))
            .map(|i| self.cluster[i])
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len() as u64
    }
}

/// The clusters of `records` (see [`clusters`]). Without any `repeat_of` (the common case, and
/// large imports) they are the game pairs numbered in pair-id order, found without the maps
/// [`clusters`] needs.
pub fn of_records(records: &[&GameRecord]) -> Clusters {
    of_games(records.len(), |i| {
        let r = records[i];
        (
            r.pair,
            r.repeat_of.unwrap_or(r.game_id),
            r.repeat_of.is_some(),
        )
    })
}

/// [`of_records`] on observations.
pub fn of_observations(games: &[&Observation]) -> Clusters {
    of_games(games.len(), |i| {
        let g = games[i];
        (g.pair, g.canonical, g.repeat_of().is_some())
    })
}

/// The clusters of `n` games given by `game(i)` = (pair id, canonical id, whether it repeats
/// another).
fn of_games(n: usize, game: impl Fn(usize) -> (u64, u64, bool)) -> Clusters {
    if (0..n).any(|i| game(i).2) {
        return clusters_by(n, |i| {
            let (pair, canonical, _) = game(i);
            (pair, canonical)
        });
    }
    let mut ids: Vec<u64> = (0..n).map(|i| game(i).0).collect();
    ids.sort_unstable();
    ids.dedup();
    Clusters {
        cluster: (0..n)
            .map(|i| ids.binary_search(&game(i).0).expect("listed") as u32)
            .collect(),
        counted: vec![true; n],
    }
}

/// Clusters of games given as `(pair id, canonical id)`: the canonical id is the game's
/// `repeat_of`, else its own id.
///
/// A pair whose games are (as a multiset of canonical ids) those of an earlier pair, in
/// pair-id order, repeats it: none of its games is counted. Counted pairs that share a
/// canonical game (one leg replayed, the other not) are correlated through it, so they join
/// one cluster (union–find). With no repeats, every pair is its own cluster and nothing
/// changes.
pub fn clusters(games: &[(u64, u64)]) -> Clusters {
    clusters_by(games.len(), |i| games[i])
}

/// [`clusters`] of `n` games given by `game(i)` = (pair id, canonical id).
fn clusters_by(n: usize, game: impl Fn(usize) -> (u64, u64)) -> Clusters {
    // Sorting, not maps: a few bytes a game, so 500,000 imported games with a handful of
    // repeats cost tens of megabytes less. Games by (pair, canonical): each pair's games are
    // a run, its canonical ids (its signature) sorted.
    let len = n;
    let n = u32::try_from(len).expect("fewer than 2^32 games");
    let mut order: Vec<u32> = (0..n).collect();
    order.sort_unstable_by_key(|&i| game(i as usize));
    // Where each pair's run starts in `order`, pairs in id order, then the end.
    let mut starts: Vec<u32> = (0..n)
        .filter(|&k| {
            k == 0 || game(order[k as usize - 1] as usize).0 != game(order[k as usize] as usize).0
        })
        .collect();
    starts.push(n);
    let pairs = starts.len() - 1;
    let members = |p: usize| &order[starts[p] as usize..starts[p + 1] as usize];
    let signature = |p: usize| members(p).iter().map(|&i| game(i as usize).1);
    let mut pair_of_game = vec![0u32; len];
    for p in 0..pairs {
        for &i in members(p) {
            pair_of_game[i as usize] = p as u32;
        }
    }
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    let mut parent: Vec<u32> = (0..pairs as u32).collect();
    let mut counted = vec![true; len];
    // A pair whose signature an earlier pair has is a copy: its games join the earlier pair's
    // cluster and are not counted.
    let mut by_signature: Vec<u32> = (0..pairs as u32).collect();
    by_signature.sort_unstable_by(|&a, &b| {
        signature(a as usize)
            .cmp(signature(b as usize))
            .then(a.cmp(&b))
    });
    for same in by_signature.chunk_by(|&a, &b| signature(a as usize).eq(signature(b as usize))) {
        for &p in &same[1..] {
            parent[p as usize] = same[0];
            for &i in members(p as usize) {
                counted[i as usize] = false;
            }
        }
    }
    drop(by_signature);
    // Counted pairs that share a canonical game are correlated through it: one cluster.
    let mut shared: Vec<u32> = (0..n).filter(|&i| counted[i as usize]).collect();
    shared.sort_unstable_by_key(|&i| game(i as usize).1);
    for same in shared.chunk_by(|&a, &b| game(a as usize).1 == game(b as usize).1) {
        for &i in &same[1..] {
            let a = find(&mut parent, pair_of_game[same[0] as usize]);
            let b = find(&mut parent, pair_of_game[i as usize]);
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    drop(shared);
    drop(order);
    // Clusters numbered in the order of their first pair.
    let mut number = vec![u32::MAX; pairs];
    let mut next = 0u32;
    let mut cluster_of_pair = vec![0u32; pairs];
    for (p, slot) in cluster_of_pair.iter_mut().enumerate() {
        let root = find(&mut parent, p as u32) as usize;
        if number[root] == u32::MAX {
            number[root] = next;
            next += 1;
        }
        *slot = number[root];
    }
    Clusters {
        cluster: pair_of_game
            .iter()
            .map(|&p| cluster_of_pair[p as usize])
            .collect(),
        counted,
    }
}

/// Repeats between two engines: games played and games that repeat an earlier one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PairRepeats {
    /// The two engines, in the order they first met.
    pub engines: (String, String),
    /// Games between them.
    pub games: u64,
    /// Of those, games marked `repeat_of`.
    pub repeats: u64,
}

/// The engine pairs that have at least one repeated game, in the order they first met.
pub fn per_pair(records: &[GameRecord]) -> Vec<PairRepeats> {
    let (games, names) = crate::standings::observed::of_records(records);
    per_pair_observed(&games, &names)
}

/// [`per_pair`] on observations.
pub fn per_pair_observed(games: &[Observation], names: &Names) -> Vec<PairRepeats> {
    // Indexed by the unordered pair, so 500,000 imported games of many engines stay linear.
    let mut at: HashMap<(u32, u32), usize> = HashMap::new();
    let mut rows: Vec<PairRepeats> = Vec::new();
    for g in games {
        let key = (g.first.min(g.second), g.first.max(g.second));
        let i = *at.entry(key).or_insert_with(|| {
            rows.push(PairRepeats {
                engines: (
                    names.engine(g.first).to_owned(),
                    names.engine(g.second).to_owned(),
                ),
                ..PairRepeats::default()
            });
            rows.len() - 1
        });
        rows[i].games += 1;
        rows[i].repeats += u64::from(g.repeat_of().is_some());
    }
    rows.retain(|p| p.repeats > 0);
    rows
}

/// The hint for engine pairs most of whose games are repeats, the same words in the terminal
/// and report.html.
pub const HINT: &str = "most games repeat earlier ones: the engines ignore `Seed` and the board \
     has one start; add an opening suite (`openings:`) or `random_opening_plies`, or play fewer \
     rounds";

/// One line per engine pair with repeats (`a vs b: 18 of 20 games repeat earlier ones (counted
/// once)`), and [`HINT`] when more than half of some pair's games are repeats; empty when no
/// game repeats.
pub fn summary_lines(records: &[GameRecord]) -> Vec<String> {
    lines_of(&per_pair(records))
}

/// [`summary_lines`] on observations.
pub fn summary_lines_observed(games: &[Observation], names: &Names) -> Vec<String> {
    lines_of(&per_pair_observed(games, names))
}

fn lines_of(rows: &[PairRepeats]) -> Vec<String> {
    let mut lines: Vec<String> = rows
        .iter()
        .map(|p| {
            format!(
                "{} vs {}: {} of {} games repeat earlier ones (each distinct game pair counted once)",
                p.engines.0, p.engines.1, p.repeats, p.games
            )
        })
        .collect();
    if rows.iter().any(|p| 2 * p.repeats > p.games) {
        lines.push(format!("hint: {HINT}"));
    }
    lines
}

/// A 64-bit fingerprint of a start position and a move list, for imported games whose move
/// text is not kept (memory): equal inputs give equal fingerprints within one process.
pub fn fingerprint<'a>(start: &str, moves: impl IntoIterator<Item = &'a str>) -> u64 {
    let mut h = DefaultHasher::new();
    start.hash(&mut h);
    for m in moves {
        m.hash(&mut h);
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::record::{GameIds, Termination};

    fn game(id: u64, pair: u64, first: &str, second: &str, moves: &str) -> GameRecord {
        let ids = GameIds {
            game_id: id,
            round: 1,
            pair,
            board: "awale-6",
            game: "awale",
            first,
            second,
        };
        GameRecord {
            moves: moves.into(),
            plies: 1,
            ..GameRecord::unplayed(ids, "1-0", Termination::Normal, String::new())
        }
    }

    #[test]
    fn mark_names_the_smallest_equal_id_in_any_order() {
        let mut records = vec![
            game(5, 2, "a", "b", "x y"),
            game(1, 0, "a", "b", "x y"),
            game(2, 1, "b", "a", "x y"),
            game(3, 1, "a", "b", "x y"),
            game(4, 2, "a", "b", ""),
            game(0, 0, "a", "b", ""),
        ];
        mark(&mut records);
        let marks: Vec<Option<u64>> = records.iter().map(|r| r.repeat_of).collect();
        assert_eq!(marks, [Some(1), None, None, Some(1), None, None]);
        let mut again = records.clone();
        mark(&mut again);
        assert_eq!(again, records);
    }

    #[test]
    fn the_live_index_agrees_with_mark_for_games_in_id_order() {
        let mut records: Vec<GameRecord> = Vec::new();
        let mut index = Index::of(&records);
        for (i, moves) in ["a", "b", "a", "c", "b", "a"].into_iter().enumerate() {
            let mut r = game(i as u64, i as u64 / 2, "p", "q", moves);
            index.observe(&records, &mut r);
            records.push(r);
        }
        let live: Vec<Option<u64>> = records.iter().map(|r| r.repeat_of).collect();
        assert_eq!(live, [None, None, Some(0), None, Some(1), Some(0)]);
        mark(&mut records);
        assert_eq!(
            live,
            records.iter().map(|r| r.repeat_of).collect::<Vec<_>>()
        );
        // Resumed: the index of marked records finds the same originals.
        let mut index = Index::of(&records);
        let mut r = game(9, 9, "p", "q", "c");
        index.observe(&records, &mut r);
        assert_eq!(r.repeat_of, Some(3));
    }

    #[test]
    fn copies_of_a_pair_are_not_counted_and_partial_repeats_share_a_cluster() {
        // Pairs 10, 11 distinct; 12 copies 10; 13 replays one leg of 11.
        let games = [
            (10, 0),
            (10, 1),
            (11, 2),
            (11, 3),
            (12, 0),
            (12, 1),
            (13, 2),
            (13, 7),
        ];
        let c = clusters(&games);
        assert_eq!(
            c.counted,
            [true, true, true, true, false, false, true, true]
        );
        assert_eq!(c.cluster, [0, 0, 1, 1, 0, 0, 1, 1]);
        assert_eq!(c.n_eff(|_| true), 2);
        // No repeat: one cluster per pair, numbered in pair-id order, the same by the fast path.
        let c = clusters(&[(7, 0), (3, 1), (7, 2), (3, 3)]);
        assert_eq!(c.cluster, [1, 0, 1, 0]);
        assert!(c.counted.iter().all(|&x| x));
        let records: Vec<GameRecord> = [(0, 7), (1, 3), (2, 7), (3, 3)]
            .into_iter()
            .map(|(id, pair)| game(id, pair, "a", "b", "m"))
            .collect();
        assert_eq!(of_records(&records.iter().collect::<Vec<_>>()), c);
    }

    /// The map-based implementation [`clusters`] had before it sorted instead, as the
    /// reference it must agree with.
    #[allow(clippy::items_after_statements)]
    fn reference(games: &[(u64, u64)]) -> Clusters {
        let mut pairs: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for (i, &(pair, _)) in games.iter().enumerate() {
            pairs.entry(pair).or_default().push(i);
        }
        let n = pairs.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let mut signatures: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut owner_of_game: HashMap<u64, usize> = HashMap::new();
        let mut pair_of_game = vec![0usize; games.len()];
        let mut counted = vec![true; games.len()];
        for (p, members) in pairs.values().enumerate() {
            let mut signature: Vec<u64> = members.iter().map(|&i| games[i].1).collect();
            signature.sort_unstable();
            for &i in members {
                pair_of_game[i] = p;
            }
            if let Some(&earlier) = signatures.get(&signature) {
                // A copy: its games belong to the earlier pair's cluster and are not counted.
                parent[p] = earlier;
                for &i in members {
                    counted[i] = false;
                }
                continue;
            }
            signatures.insert(signature.clone(), p);
            for canonical in signature {
                match owner_of_game.get(&canonical) {
                    Some(&q) => {
                        let (a, b) = (find(&mut parent, p), find(&mut parent, q));
                        parent[a.max(b)] = a.min(b);
                    }
                    None => {
                        owner_of_game.insert(canonical, p);
                    }
                }
            }
        }
        let mut number = vec![u32::MAX; n];
        let mut next = 0u32;
        let mut cluster_of_pair = vec![0u32; n];
        for (p, slot) in cluster_of_pair.iter_mut().enumerate() {
            let root = find(&mut parent, p);
            if number[root] == u32::MAX {
                number[root] = next;
                next += 1;
            }
            *slot = number[root];
        }
        Clusters {
            cluster: pair_of_game.iter().map(|&p| cluster_of_pair[p]).collect(),
            counted,
        }
    }

    #[test]
    fn clusters_agree_with_the_map_based_reference() {
        // Seeded pseudo-random files: pairs of one to three games, canonical ids drawn from a
        // small range so that copies, partial repeats and shared games all occur.
        let mut state = 7u64;
        let mut draw = |n: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % n
        };
        for round in 0..300 {
            let mut games = Vec::new();
            for _ in 0..draw(40) {
                let pair = draw(25) * 3;
                for _ in 0..=draw(3) {
                    let id = games.len() as u64 + 100;
                    let canonical = if draw(3) == 0 { draw(12) + 100 } else { id };
                    games.push((pair, canonical));
                }
            }
            assert_eq!(
                clusters(&games),
                reference(&games),
                "round {round}: {games:?}"
            );
        }
    }

    #[test]
    fn summary_lines_count_per_pair_and_hint_when_most_repeat() {
        let leg = |i: u64| {
            let (first, second) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
            game(i, i / 2, first, second, "m")
        };
        let mut records: Vec<GameRecord> = (0..4).map(leg).collect();
        assert!(summary_lines(&records).is_empty());
        mark(&mut records);
        // Half repeat: counted, no hint.
        let lines = summary_lines(&records);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("a vs b: 2 of 4 games repeat"),
            "{lines:?}"
        );
        records.extend((4..6).map(leg));
        mark(&mut records);
        let lines = summary_lines(&records);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].contains("openings:"));
    }
}
