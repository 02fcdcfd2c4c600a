//! Shards of a tournament (`arena run --shard K/N`): which game pairs shard K of N plays, and
//! the `shard.yaml` that records a shard in its output directory.
//!
//! Dealing is a pure function of the schedule's fixtures and N: game pairs are taken in
//! schedule order (round, board, engine pair) and each goes to one of the shards that have
//! the fewest games so far, preferring the shard that has seen the pair's two engines and its
//! board least (then the lowest index). So both legs of a game pair share a shard, shard sizes
//! stay within one game pair of each other, and every shard gets a mix of boards and engines.
//! Nothing here depends on concurrency or time; game ids, seeds and start positions come from
//! the schedule and do not depend on N. Owns no files but `shard.yaml`; plays nothing.

use std::fmt;
use std::fs;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::schedule::Fixture;

/// The file in a shard's output directory that records which shard it holds.
pub const FILE: &str = "shard.yaml";

/// Shard `index` of `count` (0 ≤ index < count), as `--shard K/N` writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// K, 0-based.
    pub shard: u32,
    /// N, the number of shards (≥ 1).
    pub shards: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.shard, self.shards)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with 0 ≤ K < N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("expected K/N with 0 <= K < N (e.g. 0/4), got `{text}`");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let shard: u32 = k.trim().parse().map_err(|_| bad())?;
        let shards: u32 = n.trim().parse().map_err(|_| bad())?;
        if shards == 0 || shard >= shards {
            return Err(bad());
        }
        Ok(Shard { shard, shards })
    }
}

/// For each fixture (same order as `fixtures`), the shard of `shards` (≥ 1) that plays it.
/// Fixtures of one game pair (same `pair`) get the same shard.
pub fn deal(fixtures: &[Fixture], shards: u32) -> Vec<u32> {
    let n = shards.max(1) as usize;
    let engines = fixtures
        .iter()
        .map(|f| f.players.first.max(f.players.second) + 1)
        .max()
        .unwrap_or(0);
    let boards = fixtures.iter().map(|f| f.board + 1).max().unwrap_or(0);
    let mut games = vec![0u64; n];
    let mut engine_games = vec![vec![0u64; engines]; n];
    let mut board_games = vec![vec![0u64; boards]; n];
    let mut pair_shard = std::collections::HashMap::new();
    // Games per pair, counted once up front (a pair normally has two legs).
    let mut pair_size: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for f in fixtures {
        *pair_size.entry(f.pair).or_default() += 1;
    }
    fixtures
        .iter()
        .map(|f| {
            if let Some(&s) = pair_shard.get(&f.pair) {
                return s;
            }
            let fewest = games.iter().copied().min().unwrap_or(0);
            let (a, b) = (f.players.first, f.players.second);
            let best = (0..n)
                .filter(|&s| games[s] == fewest)
                .min_by_key(|&s| {
                    (
                        engine_games[s][a] + engine_games[s][b],
                        board_games[s][f.board],
                        s,
                    )
                })
                .unwrap_or(0);
            let size = pair_size[&f.pair];
            games[best] += size;
            engine_games[best][a] += size;
            engine_games[best][b] += size;
            board_games[best][f.board] += size;
            let best = best as u32;
            pair_shard.insert(f.pair, best);
            best
        })
        .collect()
}

/// The fixtures that `shard` plays, in schedule order.
pub fn select(fixtures: &[Fixture], shard: Shard) -> Vec<Fixture> {
    deal(fixtures, shard.shards)
        .into_iter()
        .zip(fixtures)
        .filter(|(s, _)| *s == shard.shard)
        .map(|(_, f)| f.clone())
        .collect()
}

/// The shard recorded in `dir` (None without `shard.yaml`).
///
/// # Errors
/// A message naming the file when it exists but cannot be read or parsed.
pub fn recorded(dir: &Path) -> Result<Option<Shard>, String> {
    let path = dir.join(FILE);
    match fs::read_to_string(&path) {
        Ok(text) => serde_yaml::from_str::<Shard>(&text)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|s| {
                if s.shards == 0 || s.shard >= s.shards {
                    Err(format!(
                        "{}: shard {} of {} is not a shard (0 <= shard < shards)",
                        path.display(),
                        s.shard,
                        s.shards
                    ))
                } else {
                    Ok(Some(s))
                }
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Writes `shard.yaml` into `dir` for `Some(shard)`, removes it for a full run.
///
/// # Errors
/// The I/O error when the file cannot be written.
pub fn record(dir: &Path, shard: Option<Shard>) -> std::io::Result<()> {
    let path = dir.join(FILE);
    match shard {
        Some(s) => fs::write(
            &path,
            format!(
                "# Written by `arena run --shard {s}`: this directory holds shard {} of {} (0-based).\n{}",
                s.shard,
                s.shards,
                serde_yaml::to_string(&s).unwrap_or_default()
            ),
        ),
        None => match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        },
    }
}

/// Why `dir`, holding games of `recorded`, cannot be resumed as `wanted` (None = a full run);
/// None when they are the same.
pub fn resume_conflict(
    dir: &Path,
    recorded: Option<Shard>,
    wanted: Option<Shard>,
) -> Option<String> {
    let holds = match recorded {
        Some(s) => format!("shard {s} of a tournament (its {FILE})"),
        None => format!("the games of a full run (no {FILE})"),
    };
    let asked = match wanted {
        Some(s) => format!("shard {s}"),
        None => "a full run".to_owned(),
    };
    let hint = match recorded {
        Some(s) => format!("run it with --shard {s} to resume it, merge it with `arena merge`"),
        None => "run it without --shard to resume it".to_owned(),
    };
    (recorded != wanted).then(|| {
        format!(
            "{} holds {holds}; it cannot be resumed as {asked} ({hint}, choose another --output, or start fresh with --force)",
            dir.display()
        )
    })
}

/// Game ids as compact ranges: `0-3, 7, 9-12`; at most `limit` ranges, then `… (N more)`.
pub fn ranges(ids: &[u64], limit: usize) -> String {
    let mut spans: Vec<(u64, u64)> = Vec::new();
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    for id in sorted {
        match spans.last_mut() {
            Some((_, end)) if *end + 1 == id => *end = id,
            _ => spans.push((id, id)),
        }
    }
    let shown: Vec<String> = spans
        .iter()
        .take(limit)
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let mut text = shown.join(", ");
    if spans.len() > limit {
        text.push_str(&format!(" … ({} more ranges)", spans.len() - limit));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{BoardSpec, GameKind};
    use crate::schedule::{self, Entrants, Schedule};
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    fn schedule(boards: usize, engines: usize, rounds: u32, gauntlet: bool) -> Schedule {
        let specs: Vec<BoardSpec> = [
            "{game: awale, pits: 6}",
            "{game: seven_colors, size: 8}",
            "{game: awale, pits: 4}",
        ]
        .iter()
        .take(boards)
        .map(|y| serde_yaml::from_str(y).unwrap())
        .collect();
        let board_names: Vec<String> = specs.iter().map(BoardSpec::name).collect();
        let engine_names: Vec<String> = (0..engines).map(|e| format!("e{e}")).collect();
        let plays = vec![GameKind::ALL.to_vec(); engines];
        schedule::build(
            &Entrants {
                boards: &specs,
                board_names: &board_names,
                engine_names: &engine_names,
                plays: &plays,
            },
            rounds,
            7,
            &if gauntlet {
                schedule::Pairing::Hub(0)
            } else {
                schedule::Pairing::All
            },
        )
        .unwrap()
    }

    #[test]
    fn parses_k_of_n() {
        assert_eq!(
            "2/5".parse::<Shard>(),
            Ok(Shard {
                shard: 2,
                shards: 5
            })
        );
        for bad in ["5/5", "0/0", "1", "-1/3", "a/b", "1/3/4"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        assert_eq!(
            Shard {
                shard: 0,
                shards: 3
            }
            .to_string(),
            "0/3"
        );
    }

    #[test]
    fn every_shard_sees_every_engine_when_rounds_repeat_the_same_pairs() {
        // One board, three engines: three game pairs per round. Plain round-robin dealing
        // would give shard 0 the pair (e0, e1) in every round and never e2.
        let s = schedule(1, 3, 6, false);
        let shards = deal(&s.fixtures, 3);
        for k in 0..3 {
            let seen: BTreeSet<usize> = s
                .fixtures
                .iter()
                .zip(&shards)
                .filter(|&(_, &sh)| sh == k)
                .flat_map(|(f, _)| [f.players.first, f.players.second])
                .collect();
            assert_eq!(seen.len(), 3, "shard {k} sees {seen:?}");
        }
    }

    #[test]
    fn ranges_are_compact() {
        assert_eq!(ranges(&[9, 0, 1, 2, 3, 7, 10, 11, 12], 10), "0-3, 7, 9-12");
        assert_eq!(ranges(&[1, 3, 5, 7], 2), "1, 3 … (2 more ranges)");
        assert_eq!(ranges(&[], 3), "");
    }

    #[test]
    fn shard_yaml_round_trips_and_conflicts_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(recorded(dir.path()), Ok(None));
        let s = Shard {
            shard: 1,
            shards: 3,
        };
        record(dir.path(), Some(s)).unwrap();
        assert_eq!(recorded(dir.path()), Ok(Some(s)));
        assert!(resume_conflict(dir.path(), Some(s), Some(s)).is_none());
        let other = Shard {
            shard: 2,
            shards: 3,
        };
        let why = resume_conflict(dir.path(), Some(s), Some(other)).unwrap();
        assert!(
            why.contains("shard 1/3") && why.contains("as shard 2/3"),
            "{why}"
        );
        let why = resume_conflict(dir.path(), Some(s), None).unwrap();
        assert!(why.contains("as a full run"), "{why}");
        let why = resume_conflict(dir.path(), None, Some(s)).unwrap();
        assert!(
            why.contains("full run") && why.contains("as shard 1/3"),
            "{why}"
        );
        record(dir.path(), None).unwrap();
        assert_eq!(recorded(dir.path()), Ok(None));
        fs::write(dir.path().join(FILE), "shard: 3\nshards: 3\n").unwrap();
        assert!(recorded(dir.path()).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Disjoint and complete, legs together, sizes within one game pair, independent of
        /// anything but the fixtures and N.
        #[test]
        fn dealing_is_a_balanced_partition_of_game_pairs(
            boards in 1usize..=3,
            engines in 2usize..=7,
            rounds in 1u32..=4,
            gauntlet in any::<bool>(),
            n in 1u32..=9,
        ) {
            let s = schedule(boards, engines, rounds, gauntlet);
            let shards = deal(&s.fixtures, n);
            prop_assert_eq!(shards.len(), s.fixtures.len());
            prop_assert_eq!(&deal(&s.fixtures, n), &shards);
            let mut by_pair: BTreeMap<u64, u32> = BTreeMap::new();
            for (f, &k) in s.fixtures.iter().zip(&shards) {
                prop_assert!(k < n);
                let first = *by_pair.entry(f.pair).or_insert(k);
                prop_assert_eq!(first, k, "legs of pair {} split", f.pair);
            }
            let mut union = Vec::new();
            let mut sizes = Vec::new();
            for k in 0..n {
                let part = select(&s.fixtures, Shard { shard: k, shards: n });
                sizes.push(part.len());
                union.extend(part.into_iter().map(|f| f.id));
            }
            union.sort_unstable();
            let all: Vec<u64> = s.fixtures.iter().map(|f| f.id).collect();
            prop_assert_eq!(union, all, "disjoint and complete");
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            prop_assert!(hi - lo <= 2, "sizes {:?}", sizes);
        }
    }
}
