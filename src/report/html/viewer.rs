//! The game viewer's data: which games are embedded (a bounded sample of a large run), and
//! for each the picture frames after every ply, computed by replaying `start_fen` and `moves`
//! with arena's own rules. The page applies these frames and does no rules itself.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::games::{AnyPosition, GameKind, Side};
use crate::record::GameRecord;

use super::board::{self, Frame};
use super::{esc, inputs};

/// How many games the viewer embeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Games {
    /// Every game (`--games all`).
    All,
    /// At most this many (a sample when the run has more).
    AtMost(usize),
}

/// Games embedded by default: enough to browse, small enough that a 100,000-game run's report
/// opens within seconds.
pub const DEFAULT_GAMES: usize = 200;

impl Default for Games {
    fn default() -> Self {
        Games::AtMost(DEFAULT_GAMES)
    }
}

impl std::str::FromStr for Games {
    type Err = String;
    fn from_str(text: &str) -> Result<Games, String> {
        match text {
            "all" => Ok(Games::All),
            n => n
                .parse()
                .map(Games::AtMost)
                .map_err(|_| format!("--games: expected `all` or a number of games, got `{n}`")),
        }
    }
}

/// Indices into `records` (sorted by game id) of the games to embed: all of them when they fit;
/// else the first game of every (board, termination), so every kind of ending can be seen,
/// then games spread evenly over the run.
pub fn sample(records: &[GameRecord], games: Games) -> Vec<usize> {
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| records[i].game_id);
    let limit = match games {
        Games::All => return order,
        Games::AtMost(n) if n >= records.len() => return order,
        Games::AtMost(n) => n,
    };
    let mut chosen = BTreeSet::new();
    let mut kinds = BTreeSet::new();
    for &i in &order {
        let r = &records[i];
        if chosen.len() < limit && kinds.insert((r.board.as_str(), r.termination)) {
            chosen.insert(i);
        }
    }
    let spread = limit - chosen.len();
    for k in 0..spread {
        if chosen.len() >= limit {
            break;
        }
        let mut j = k * order.len() / spread;
        while chosen.contains(&order[j]) && j + 1 < order.len() {
            j += 1;
        }
        chosen.insert(order[j]);
    }
    // Collisions at the very end can leave places free: take the first games not yet chosen.
    for &i in &order {
        if chosen.len() >= limit {
            break;
        }
        chosen.insert(i);
    }
    let mut out: Vec<usize> = chosen.into_iter().collect();
    out.sort_by_key(|&i| records[i].game_id);
    out
}

/// One embedded game, as the page reads it (short keys keep large reports small).
#[derive(Serialize)]
struct GameData {
    /// Game id.
    id: u64,
    /// Skeleton template key.
    k: String,
    /// Game name (the class table's key).
    g: &'static str,
    /// Slot values at the start.
    s0: Vec<u32>,
    /// Per ply, the changed slots as `[slot, value, slot, value, …]`.
    d: Vec<Vec<u32>>,
    /// Per ply, the overlay markup.
    o: Vec<String>,
    /// Move texts.
    m: Vec<String>,
    /// Who made each ply: `1` or `2`.
    w: String,
    /// Scores (cells or seeds captured) at the start and after each ply; empty for Amazons.
    sc: Vec<[u32; 2]>,
    /// Per ply notes from moves.csv (time, depth, score), when present.
    n: Option<Vec<String>>,
    /// Why the replay stopped early, if it did.
    e: Option<String>,
}

/// What the page embeds for the viewer.
pub(crate) struct Embedded {
    /// Game ids embedded, ascending.
    pub ids: BTreeSet<u64>,
    /// `<template>` elements, one per board geometry.
    pub templates: String,
    /// The JSON array of games (safe inside a `<script>` element).
    pub json: String,
    /// Games whose replay failed, with the reason.
    pub failures: Vec<String>,
    /// Class tables per game name, as JSON.
    pub classes: String,
}

fn diff(before: &Frame, after: &Frame) -> Vec<u32> {
    let mut out = Vec::new();
    for (k, (a, b)) in before.slots.iter().zip(&after.slots).enumerate() {
        if a != b {
            out.push(k as u32);
            out.push(*b);
        }
    }
    out
}

fn scores(pos: &AnyPosition) -> Option<[u32; 2]> {
    pos.scores().map(|s| [s.first, s.second])
}

/// Replays `record` and builds its frames; the error names the game, ply and move.
fn replay(
    record: &GameRecord,
    notes: Option<Vec<String>>,
    templates: &mut BTreeMap<String, String>,
) -> Result<GameData, String> {
    let kind: GameKind = record
        .game
        .parse()
        .map_err(|e| format!("game {}: {e}", record.game_id))?;
    let start = AnyPosition::from_fen(kind, &record.start_fen)
        .map_err(|e| format!("game {}: {e}", record.game_id))?;
    let skeleton = board::skeleton(&start);
    let key = board::geometry_key(&skeleton);
    let first = board::frame(&start, None);
    templates
        .entry(key.clone())
        .or_insert_with(|| board::render(&skeleton, board::classes(&start), &first));
    let mut data = GameData {
        id: record.game_id,
        k: key,
        g: kind.name(),
        s0: first.slots.clone(),
        d: Vec::new(),
        o: Vec::new(),
        m: Vec::new(),
        w: String::new(),
        sc: scores(&start).into_iter().collect(),
        n: notes,
        e: None,
    };
    let mut pos = start;
    let mut frame = first;
    for (ply, text) in record.moves.split_whitespace().enumerate() {
        let before = pos.clone();
        let mover = before.side_to_move();
        if let Err(e) = pos.play_text(text) {
            data.e = Some(format!("ply {}: {e}; the replay stops here", ply + 1));
            break;
        }
        let next = board::frame(&pos, Some((&before, text)));
        data.d.push(diff(&frame, &next));
        data.o.push(next.overlay.clone());
        data.m.push(text.to_owned());
        data.w.push(if mover == Side::First { '1' } else { '2' });
        if let Some(s) = scores(&pos) {
            data.sc.push(s);
        }
        frame = next;
    }
    Ok(data)
}

/// Replays the games `chosen` (indices into `records`) into the viewer's data.
pub(crate) fn embed(
    records: &[GameRecord],
    chosen: &[usize],
    moves: Option<&inputs::Moves>,
) -> Embedded {
    let mut templates = BTreeMap::new();
    let mut games = Vec::with_capacity(chosen.len());
    let mut failures = Vec::new();
    let mut ids = BTreeSet::new();
    for &i in chosen {
        let r = &records[i];
        let notes = moves.and_then(|m| m.notes.get(&r.game_id).cloned());
        match replay(r, notes, &mut templates) {
            Ok(data) => {
                if let Some(e) = &data.e {
                    failures.push(format!("game {}: {e}", r.game_id));
                }
                ids.insert(r.game_id);
                games.push(data);
            }
            Err(e) => failures.push(e),
        }
    }
    let mut template_html = String::new();
    for (key, svg) in &templates {
        let _ = write!(
            template_html,
            "<template id=\"sk-{}\">{svg}</template>",
            esc(key)
        );
    }
    let json = serde_json::to_string(&games)
        .unwrap_or_else(|_| "[]".to_owned())
        .replace("</", "<\\/");
    let mut classes = serde_json::Map::new();
    for (name, table) in [
        ("seven_colors", super::board_seven_colors::CLASSES),
        ("amazons", super::board_amazons::CLASSES),
        ("awale", super::board_awale::CLASSES),
    ] {
        classes.insert(name.to_owned(), serde_json::json!(table));
    }
    Embedded {
        ids,
        templates: template_html,
        json,
        failures,
        classes: serde_json::Value::Object(classes).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::record::Termination;

    fn record(id: u64, board: usize, termination: Termination) -> GameRecord {
        GameRecord {
            game_id: id,
            round: 1,
            board: format!("b{board}"),
            game: "awale".into(),
            pair: id / 2,
            first: "a".into(),
            second: "b".into(),
            result: "1-0".into(),
            termination,
            ..GameRecord::default()
        }
    }

    proptest! {
        /// The sample has min(limit, games) distinct games in id order, and holds one game of
        /// every (board, termination) whenever the limit allows.
        #[test]
        fn sample_is_bounded_distinct_ordered_and_covers_every_ending(
            kinds in prop::collection::vec((0usize..3, 0usize..7), 1..300),
            limit in 1usize..120,
        ) {
            let records: Vec<GameRecord> = kinds
                .iter()
                .enumerate()
                .rev() // records in any order: the sample sorts by id
                .map(|(id, &(b, t))| record(id as u64, b, Termination::ALL[t]))
                .collect();
            let chosen = sample(&records, Games::AtMost(limit));
            prop_assert_eq!(chosen.len(), limit.min(records.len()));
            let ids: Vec<u64> = chosen.iter().map(|&i| records[i].game_id).collect();
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            let all: BTreeSet<_> = records.iter().map(|r| (&r.board, r.termination)).collect();
            if limit >= all.len() {
                let got: BTreeSet<_> =
                    chosen.iter().map(|&i| (&records[i].board, records[i].termination)).collect();
                prop_assert_eq!(got, all);
            }
            prop_assert_eq!(sample(&records, Games::All).len(), records.len());
        }
    }

    #[test]
    fn games_parse_all_or_a_count() {
        assert_eq!("all".parse(), Ok(Games::All));
        assert_eq!("7".parse(), Ok(Games::AtMost(7)));
        assert!("seven".parse::<Games>().is_err());
    }
}
