//! Game ids and game pairs of the rows read: the file's ids when all are numbers, and the
//! pairs by a `pair` column or `Pair` tags, consecutive swapped games, or swapped games of one
//! round (the clusters of the rating intervals).

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use crate::standings::observed::Interner;

use super::plural;
use super::scan::{Key, Row};

/// How games are grouped into game pairs (the clusters of the rating intervals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairMode {
    /// A `pair` column or `Pair` tag if the file has one, else `consecutive` if every game
    /// 2k and 2k+1 swap players, else `round` if that structure holds, else `none`.
    #[default]
    Auto,
    /// Game 2k with game 2k+1 (file order, 0-based, unfinished games keep their place) when
    /// their players are swapped: what cutechess-cli and fastchess `-repeat` write.
    Consecutive,
    /// Games with the same `Round` (or `round` column), board and two players, when there are
    /// exactly two of them with the players swapped.
    Round,
    /// Every game on its own.
    None,
}

impl PairMode {
    /// The spelling on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PairMode::Auto => "auto",
            PairMode::Consecutive => "consecutive",
            PairMode::Round => "round",
            PairMode::None => "none",
        }
    }
}

impl fmt::Display for PairMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PairMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        [
            PairMode::Auto,
            PairMode::Consecutive,
            PairMode::Round,
            PairMode::None,
        ]
        .into_iter()
        .find(|m| m.name() == text)
        .ok_or_else(|| format!("`{text}`: expected auto, consecutive, round or none"))
    }
}

/// Where the game pairs of an import came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// The file's `pair` column or `Pair` tags.
    Given,
    /// Consecutive games with swapped players.
    Consecutive,
    /// Games sharing a round and players, swapped.
    Round,
    /// No pairs: every game is its own cluster.
    None,
}

/// Whether two games have the same board and swapped players.
fn swapped(a: &Row, b: &Row) -> bool {
    a.first == b.second && a.second == b.first && a.board == b.board && a.game == b.game
}

/// Pairs (indices into `rows`) by consecutive file positions 2k, 2k+1. The flag says whether
/// every such pair with both games rated swaps players.
fn consecutive_pairs(rows: &[Row]) -> (Vec<(usize, usize)>, bool) {
    let mut pairs = Vec::new();
    let mut consistent = true;
    // Rows are in file order: the game at position 2k + 1, if rated, is the next row.
    for (i, r) in rows.iter().enumerate() {
        if r.position % 2 == 1 {
            continue;
        }
        if let Some(next) = rows.get(i + 1).filter(|n| n.position == r.position + 1) {
            if swapped(r, next) {
                pairs.push((i, i + 1));
            } else {
                consistent = false;
            }
        }
    }
    (pairs, consistent)
}

/// The games of one (round, board, players) group, as far as pairing cares.
#[derive(Clone, Copy)]
enum Group {
    One(u32),
    Two(u32, u32),
    More,
}

/// Pairs by (round, board, players): groups of exactly two swapped games. The flag says
/// whether every group fits (has a round, at most two games, swapped when two).
fn round_pairs(rows: &[Row]) -> (Vec<(usize, usize)>, bool) {
    let mut groups: HashMap<(Key, u32, u32, u32, u32), Group> = HashMap::new();
    let mut consistent = true;
    for (i, r) in rows.iter().enumerate() {
        let Some(round) = r.round else {
            consistent = false;
            continue;
        };
        let (lo, hi) = (r.first.min(r.second), r.first.max(r.second));
        let i = i as u32;
        groups
            .entry((round, r.game, r.board, lo, hi))
            .and_modify(|g| {
                *g = match *g {
                    Group::One(j) => Group::Two(j, i),
                    _ => Group::More,
                }
            })
            .or_insert(Group::One(i));
    }
    let mut pairs = Vec::new();
    for group in groups.into_values() {
        match group {
            Group::Two(i, j) if swapped(&rows[i as usize], &rows[j as usize]) => {
                pairs.push((i as usize, j as usize));
            }
            Group::One(_) => {}
            _ => consistent = false,
        }
    }
    pairs.sort_unstable();
    (pairs, consistent)
}

/// Every row's game pair (cluster id), and how the pairs were found; the note says so.
/// `long` holds the long `Pair` and `Round` texts of the rows' keys.
pub(super) fn assign_pairs(
    rows: &[Row],
    mode: PairMode,
    long: &Interner,
    notes: &mut Vec<String>,
) -> (Vec<u64>, Pairing) {
    let given = rows.iter().any(|r| r.pair.is_some());
    let mut found = None;
    let pairing = match mode {
        PairMode::Auto if given => Pairing::Given,
        PairMode::Auto => {
            let (pairs, consistent) = consecutive_pairs(rows);
            if consistent && !pairs.is_empty() {
                found = Some(pairs);
                Pairing::Consecutive
            } else {
                let (round, round_consistent) = round_pairs(rows);
                if round_consistent && !round.is_empty() {
                    found = Some(round);
                    Pairing::Round
                } else {
                    Pairing::None
                }
            }
        }
        PairMode::Consecutive => Pairing::Consecutive,
        PairMode::Round => Pairing::Round,
        PairMode::None => Pairing::None,
    };
    let mut cluster: Vec<Option<u64>> = vec![None; rows.len()];
    let how = match pairing {
        Pairing::Given => {
            let numeric = rows
                .iter()
                .filter_map(|r| r.pair)
                .all(|k| k.text(long).parse::<u64>().is_ok());
            // Text keys are numbered in order of first appearance.
            let mut text_ids: HashMap<Key, u64> = HashMap::new();
            for (i, r) in rows.iter().enumerate() {
                if let Some(key) = r.pair {
                    cluster[i] = Some(if numeric {
                        key.text(long).parse().unwrap_or_default()
                    } else {
                        let next = text_ids.len() as u64;
                        *text_ids.entry(key).or_insert(next)
                    });
                }
            }
            "from the file's pair column or Pair tags"
        }
        Pairing::Consecutive | Pairing::Round => {
            let pairs = found.unwrap_or_else(|| {
                if pairing == Pairing::Consecutive {
                    consecutive_pairs(rows).0
                } else {
                    round_pairs(rows).0
                }
            });
            for (k, (i, j)) in pairs.into_iter().enumerate() {
                cluster[i] = Some(k as u64);
                cluster[j] = Some(k as u64);
            }
            if pairing == Pairing::Consecutive {
                "consecutive games with swapped players"
            } else {
                "games of the same round with swapped players"
            }
        }
        Pairing::None => "none: every game counts on its own",
    };
    // Unpaired games get their own clusters after every pair's.
    let mut next = cluster.iter().flatten().max().map_or(0, |m| m + 1);
    let mut sorted: Vec<u64> = cluster.iter().flatten().copied().collect();
    sorted.sort_unstable();
    let pairs = sorted
        .chunk_by(|a, b| a == b)
        .filter(|c| c.len() == 2)
        .count();
    drop(sorted);
    let mut unpaired = 0;
    let clusters: Vec<u64> = cluster
        .into_iter()
        .map(|c| {
            c.unwrap_or_else(|| {
                unpaired += 1;
                next += 1;
                next - 1
            })
        })
        .collect();
    let mut note = format!("game pairs: {how}");
    if pairing != Pairing::None {
        note.push_str(&format!("; {pairs} pair{}", plural(pairs)));
        if unpaired > 0 {
            note.push_str(&format!(", {unpaired} game{} unpaired", plural(unpaired)));
        }
    }
    notes.push(note);
    (clusters, pairing)
}
