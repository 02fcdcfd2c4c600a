//! Game ids and game pairs of the rows read: the file's ids when all are numbers, and the
//! pairs by a `pair` column or `Pair` tags, consecutive swapped games, or swapped games of one
//! round (the clusters of the rating intervals).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

use crate::record::{GameRecord, Termination};

use super::{ImportError, Imported, InputFormat, Raw, map_shrinking, plural};

/// What pairing needs of a row besides its game: its place in the file, its round and its
/// `pair` column or tag.
pub(super) struct Key {
    position: usize,
    round: Option<String>,
    pair: Option<String>,
}

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

/// Assigns game ids: the file's when every game has a numeric one (duplicates are an error),
/// else the position in the file. The players, board, game and event move into the record:
/// the row keeps only what pairing needs besides them (position, round, `pair` key).
pub(super) fn assign_ids(
    raws: Vec<Raw>,
    file: &str,
    format: InputFormat,
) -> Result<Vec<(Key, Imported)>, ImportError> {
    let numeric: Option<Vec<u64>> = raws
        .iter()
        .map(|r| r.id.as_deref().and_then(|i| i.parse().ok()))
        .collect();
    if let Some(ids) = &numeric {
        let mut seen: HashMap<u64, u64> = HashMap::new();
        for (id, raw) in ids.iter().zip(&raws) {
            if let Some(before) = seen.insert(*id, raw.line) {
                return Err(ImportError {
                    file: file.to_owned(),
                    line: Some(raw.line),
                    message: format!("game id {id} is used twice (also on line {before})"),
                });
            }
        }
    }
    // One id a row when the file's are used, else none.
    let mut ids = numeric.iter().flatten();
    Ok(map_shrinking(raws, |mut raw| {
        let game_id = ids.next().copied().unwrap_or(raw.position as u64);
        let round: u32 = raw
            .round
            .as_deref()
            .and_then(|r| r.split('.').next())
            .and_then(|r| r.parse().ok())
            .unwrap_or(0);
        let round_text = match (format, &raw.round, &numeric) {
            // CSV with numeric ids: arena's `round.game_id`.
            (InputFormat::Csv, _, Some(_)) => format!("{round}.{game_id}"),
            // Else the round as written.
            (_, Some(r), _) => r.clone(),
            (_, None, _) => "?".into(),
        };
        let imported = Imported {
            record: GameRecord {
                game_id,
                round,
                board: std::mem::take(&mut raw.board),
                game: std::mem::take(&mut raw.game),
                first: std::mem::take(&mut raw.first),
                second: std::mem::take(&mut raw.second),
                result: raw.result.to_owned(),
                termination: raw.termination.unwrap_or(Termination::Normal),
                ..GameRecord::default()
            },
            event: raw.event.take(),
            round_text,
            termination_known: raw.termination.is_some(),
            fingerprint: raw.fingerprint,
        };
        let key = Key {
            position: raw.position,
            round: raw.round,
            pair: raw.pair,
        };
        (key, imported)
    }))
}

/// A row as pairing sees it: where it was in the file (its round and `pair` key) and its
/// game.
type Row<'a> = (&'a Key, &'a GameRecord);

/// Whether two games have the same board and swapped players.
fn swapped(a: &GameRecord, b: &GameRecord) -> bool {
    a.first == b.second && a.second == b.first && a.board == b.board && a.game == b.game
}

/// Pairs (indices into `raws`) by consecutive file positions 2k, 2k+1. The flag says whether
/// every such pair with both games rated swaps players.
fn consecutive_pairs(raws: &[Row<'_>]) -> (Vec<(usize, usize)>, bool) {
    let by_position: BTreeMap<usize, usize> = raws
        .iter()
        .enumerate()
        .map(|(i, (r, _))| (r.position, i))
        .collect();
    let mut pairs = Vec::new();
    let mut consistent = true;
    for (&position, &i) in &by_position {
        if position % 2 == 1 {
            continue;
        }
        if let Some(&j) = by_position.get(&(position + 1)) {
            if swapped(raws[i].1, raws[j].1) {
                pairs.push((i, j));
            } else {
                consistent = false;
            }
        }
    }
    (pairs, consistent)
}

/// Pairs by (round, board, players): groups of exactly two swapped games. The flag says
/// whether every group fits (has a round, at most two games, swapped when two).
fn round_pairs(raws: &[Row<'_>]) -> (Vec<(usize, usize)>, bool) {
    let mut groups: BTreeMap<(&str, &str, &str, &str, &str), Vec<usize>> = BTreeMap::new();
    let mut consistent = true;
    for (i, (raw, r)) in raws.iter().enumerate() {
        let Some(round) = raw.round.as_deref() else {
            consistent = false;
            continue;
        };
        let (lo, hi) = if r.first < r.second {
            (&r.first, &r.second)
        } else {
            (&r.second, &r.first)
        };
        groups
            .entry((round, &r.game, &r.board, lo, hi))
            .or_default()
            .push(i);
    }
    let mut pairs = Vec::new();
    for members in groups.values() {
        match members[..] {
            [i, j] if swapped(raws[i].1, raws[j].1) => pairs.push((i, j)),
            [_] => {}
            _ => consistent = false,
        }
    }
    pairs.sort_unstable();
    (pairs, consistent)
}

/// Sets every record's `pair` (cluster id) and says how.
pub(super) fn assign_pairs(
    games: Vec<(Key, Imported)>,
    mode: PairMode,
    notes: &mut Vec<String>,
) -> (Vec<Imported>, Pairing) {
    let raws: Vec<Row<'_>> = games.iter().map(|(r, g)| (r, &g.record)).collect();
    let given = raws.iter().any(|(r, _)| r.pair.is_some());
    let pairing = match mode {
        PairMode::Auto if given => Pairing::Given,
        PairMode::Auto => {
            let (pairs, consistent) = consecutive_pairs(&raws);
            let (round, round_consistent) = round_pairs(&raws);
            if consistent && !pairs.is_empty() {
                Pairing::Consecutive
            } else if round_consistent && !round.is_empty() {
                Pairing::Round
            } else {
                Pairing::None
            }
        }
        PairMode::Consecutive => Pairing::Consecutive,
        PairMode::Round => Pairing::Round,
        PairMode::None => Pairing::None,
    };
    let mut cluster: Vec<Option<u64>> = vec![None; raws.len()];
    let how = match pairing {
        Pairing::Given => {
            let keys: Vec<Option<&str>> = raws.iter().map(|(r, _)| r.pair.as_deref()).collect();
            let numeric: Option<Vec<u64>> = keys
                .iter()
                .flatten()
                .map(|k| k.parse::<u64>().ok())
                .collect();
            let mut text_ids: BTreeMap<&str, u64> = BTreeMap::new();
            for (i, key) in keys.iter().enumerate() {
                if let Some(key) = key {
                    cluster[i] = Some(match &numeric {
                        Some(_) => key.parse().unwrap_or_default(),
                        None => {
                            let next = text_ids.len() as u64;
                            *text_ids.entry(key).or_insert(next)
                        }
                    });
                }
            }
            "from the file's pair column or Pair tags"
        }
        Pairing::Consecutive | Pairing::Round => {
            let (pairs, _) = if pairing == Pairing::Consecutive {
                consecutive_pairs(&raws)
            } else {
                round_pairs(&raws)
            };
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
    let mut unpaired = 0;
    let mut sizes: BTreeMap<u64, usize> = BTreeMap::new();
    for c in cluster.iter().flatten() {
        *sizes.entry(*c).or_default() += 1;
    }
    let pairs = sizes.values().filter(|&&n| n == 2).count();
    let mut cluster = cluster.into_iter();
    let games: Vec<Imported> = map_shrinking(games, |(_, mut imported)| {
        imported.record.pair = cluster.next().flatten().unwrap_or_else(|| {
            unpaired += 1;
            next += 1;
            next - 1
        });
        imported
    });
    let mut note = format!("game pairs: {how}");
    if pairing != Pairing::None {
        note.push_str(&format!("; {pairs} pair{}", plural(pairs)));
        if unpaired > 0 {
            note.push_str(&format!(", {unpaired} game{} unpaired", plural(unpaired)));
        }
    }
    notes.push(note);
    (games, pairing)
}
