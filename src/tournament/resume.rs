//! What an output directory already holds, and whether a run may continue it.
//!
//! A run leaves `config.resolved.yaml` (the config with its seed), `plays.yaml` (the games each
//! engine plays, fixed by the first run's handshakes) and `games.csv`. Running again compares
//! the new config and plays with those: identical, or a compatible *extension* (more rounds,
//! more boards, more engines, nothing else changed), continues; anything else is refused with
//! the keys that differ. Kept rows are then checked one by one against the new schedule (board,
//! round, engines, start position): rows of games the schedule does not have are set aside in
//! `games.dropped.csv`, never silently kept or lost. Reads files only; deletes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use serde_yaml::Value;

use crate::config::Config;
use crate::games::GameKind;
use crate::record::{GameRecord, Termination};
use crate::report::files;
use crate::schedule::{GameKey, Schedule};

/// The config as resolved by the run that wrote a directory.
pub const RESOLVED: &str = "config.resolved.yaml";
/// The games each engine plays, as fixed by the first run.
pub const PLAYS: &str = "plays.yaml";
/// Rows of games.csv that the schedule does not have, set aside on resume.
pub const DROPPED: &str = "games.dropped.csv";

/// The games each engine plays, by engine name.
pub type Plays = BTreeMap<String, Vec<GameKind>>;

/// What an output directory holds from an earlier run.
#[derive(Debug, Default)]
pub struct Previous {
    /// Its resolved config, if readable.
    pub config: Option<Config>,
    /// Why `config.resolved.yaml` could not be used, when it exists but does not parse.
    pub config_error: Option<String>,
    /// Its plays, if recorded.
    pub plays: Option<Plays>,
    /// Whether it has a games.csv.
    pub has_games: bool,
}

impl Previous {
    /// Reads what `dir` holds; missing or unreadable files are simply absent.
    pub fn read(dir: &Path) -> Previous {
        let (config, config_error) = match fs::read_to_string(dir.join(RESOLVED)) {
            Ok(text) => match serde_yaml::from_str(&text) {
                Ok(config) => (Some(config), None),
                Err(e) => (None, Some(format!("{}: {e}", dir.join(RESOLVED).display()))),
            },
            Err(_) => (None, None),
        };
        let plays = fs::read_to_string(dir.join(PLAYS))
            .ok()
            .and_then(|t| serde_yaml::from_str(&t).ok());
        Previous {
            config,
            config_error,
            plays,
            has_games: dir.join(files::GAMES).exists(),
        }
    }
}

/// How a new config relates to the one that wrote the output directory.
#[derive(Debug, PartialEq, Eq)]
pub enum Compatibility {
    /// The same tournament.
    Same,
    /// The same games and more: what was added, in words.
    Extension(Vec<String>),
    /// Something that changes games already played: the keys that differ.
    Conflict(Vec<String>),
}

/// The config without what never changes a game already played: how many at once, where the
/// files go, what the rating tables are computed with (`name`, `anchor`, `confidence`), and
/// how failures are handled from now on (`on_engine_failure`, `withdraw_after`,
/// `strict_options`, `handshake_timeout_ms`), and `record_moves`. Changing those continues
/// the run.
fn comparable(config: &Config) -> Value {
    let mut config = config.clone();
    config.concurrency = None;
    config.output = None;
    config.name = None;
    config.anchor = None;
    config.confidence = None;
    config.on_engine_failure = Default::default();
    config.withdraw_after = None;
    config.strict_options = false;
    config.handshake_timeout_ms = None;
    // Recording moves changes no game: it can be switched on or off between runs.
    config.record_moves = false;
    serde_yaml::to_value(&config).unwrap_or(Value::Null)
}

fn named(list: &Value, key: &str) -> Vec<(String, Value)> {
    list.as_sequence()
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    let name = item
                        .get(key)
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_default();
                    (name, item.clone())
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The engine a [`Compatibility::Conflict`] entry of [`compare`] is about when it says that
/// the engine's entry or the games it plays changed, or that it is gone (`None` for any other
/// difference): what a class championship reads as a team's new submission, or a team gone.
pub fn changed_engine(conflict: &str) -> Option<&str> {
    conflict
        .strip_prefix("engines: `")
        .and_then(|rest| {
            rest.strip_suffix("` changed")
                .or_else(|| rest.strip_suffix("` removed"))
        })
        .or_else(|| {
            conflict
                .strip_prefix("engine `")?
                .split_once("` played [")
                .map(|(name, _)| name)
        })
}

/// Compares configs and plays. Boards are compared by name (`board_names`, in the order of
/// each config's `boards`), engines by name.
pub fn compare(
    old: &Config,
    old_board_names: &[String],
    old_plays: &Plays,
    new: &Config,
    new_board_names: &[String],
    new_plays: &Plays,
) -> Compatibility {
    let (o, n) = (comparable(old), comparable(new));
    let (Some(om), Some(nm)) = (o.as_mapping(), n.as_mapping()) else {
        return Compatibility::Conflict(vec!["the whole config".into()]);
    };
    let mut conflicts = Vec::new();
    let mut added = Vec::new();
    let keys: BTreeSet<String> = om
        .keys()
        .chain(nm.keys())
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    for key in keys {
        let (ov, nv) = (om.get(key.as_str()), nm.get(key.as_str()));
        if ov == nv {
            continue;
        }
        match key.as_str() {
            "rounds" => {
                let (a, b) = (old.rounds, new.rounds);
                if b > a {
                    added.push(format!("rounds {a} → {b}"));
                } else {
                    conflicts.push(format!(
                        "rounds ({a} → {b}: fewer rounds drop played games)"
                    ));
                }
            }
            "boards" => {
                let old_boards: Vec<(String, Value)> = old_board_names
                    .iter()
                    .cloned()
                    .zip(ov.and_then(Value::as_sequence).cloned().unwrap_or_default())
                    .collect();
                let new_boards: BTreeMap<String, Value> = new_board_names
                    .iter()
                    .cloned()
                    .zip(nv.and_then(Value::as_sequence).cloned().unwrap_or_default())
                    .collect();
                for (name, spec) in &old_boards {
                    match new_boards.get(name) {
                        Some(s) if s == spec => {}
                        Some(_) => conflicts.push(format!("boards: `{name}` changed")),
                        None => conflicts.push(format!("boards: `{name}` removed")),
                    }
                }
                for name in new_boards.keys() {
                    if !old_boards.iter().any(|(n, _)| n == name) {
                        added.push(format!("board {name}"));
                    }
                }
            }
            "engines" => {
                let old_engines = named(ov.unwrap_or(&Value::Null), "name");
                let new_engines: BTreeMap<String, Value> =
                    named(nv.unwrap_or(&Value::Null), "name")
                        .into_iter()
                        .collect();
                for (name, spec) in &old_engines {
                    match new_engines.get(name) {
                        Some(s) if s == spec => {}
                        Some(_) => conflicts.push(format!("engines: `{name}` changed")),
                        None => conflicts.push(format!("engines: `{name}` removed")),
                    }
                }
                for name in new_engines.keys() {
                    if !old_engines.iter().any(|(n, _)| n == name) {
                        added.push(format!("engine {name}"));
                    }
                }
            }
            other => conflicts.push(other.to_owned()),
        }
    }
    for (engine, games) in old_plays {
        if let Some(now) = new_plays.get(engine) {
            if now != games {
                let list =
                    |g: &[GameKind]| g.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
                conflicts.push(format!(
                    "engine `{engine}` played [{}] and now plays [{}] (its UGI_Variant or `games` changed)",
                    list(games),
                    list(now)
                ));
            }
        }
    }
    if new.format.pairs_by_results() {
        // A new engine or board changes every pairing from round 1: only rounds append.
        let (rounds, others): (Vec<String>, Vec<String>) =
            added.into_iter().partition(|a| a.starts_with("rounds "));
        conflicts.extend(others.into_iter().map(|a| {
            format!("{a} added (a Swiss or knockout is paired from round 1 with its field)")
        }));
        added = rounds;
    }
    if !conflicts.is_empty() {
        Compatibility::Conflict(conflicts)
    } else if !added.is_empty() {
        Compatibility::Extension(added)
    } else {
        Compatibility::Same
    }
}

/// The rows of an earlier run sorted into what the new schedule keeps and what it does not.
#[derive(Debug, Default)]
pub struct Sorted {
    /// Rows of scheduled games, renumbered to the new schedule's ids and pairs.
    pub kept: Vec<GameRecord>,
    /// Rows the schedule does not have (or whose start position differs), or repeats.
    pub dropped: Vec<(GameRecord, String)>,
    /// Forfeits of withdrawn engines, which are played again.
    pub retried: usize,
    /// Games without a result (`*`: neither engine could start), played again like `retried`.
    pub unfinished: usize,
    /// Kept rows whose id changed (old, new), so their transcripts can follow.
    pub renumbered: Vec<(u64, u64)>,
}

/// Checks every row against the schedule by [`GameKey`] and start position, and its result;
/// rows that match take the fixture's id and pair (which move when a tournament is extended).
/// Forfeits of withdrawn engines and games without a result (`*`, neither engine could start)
/// are played again when `retry_withdrawn`, else kept; a `*` row the schedule does not have is
/// set aside like any other.
pub fn sort_rows(
    records: Vec<GameRecord>,
    schedule: &Schedule,
    board_names: &[String],
    engine_names: &[String],
    retry_withdrawn: bool,
) -> Sorted {
    let by_key: BTreeMap<GameKey, usize> = schedule
        .fixtures
        .iter()
        .enumerate()
        .map(|(i, f)| (f.key(board_names, engine_names), i))
        .collect();
    let mut seen = BTreeSet::new();
    let mut sorted = Sorted::default();
    for mut record in records {
        // Forfeits of a withdrawn engine are played again wherever the schedule now puts its
        // games (it may declare fewer games than it was assumed to play).
        if retry_withdrawn && record.termination == Termination::Withdrawn {
            sorted.retried += 1;
            continue;
        }
        if !matches!(record.result.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            sorted
                .dropped
                .push((record, "its result is not 1-0, 0-1, 1/2-1/2 or *".into()));
            continue;
        }
        let key = (
            record.board.clone(),
            record.round,
            record.first.clone(),
            record.second.clone(),
        );
        let Some(&i) = by_key.get(&key) else {
            sorted
                .dropped
                .push((record, "not a game of this schedule".into()));
            continue;
        };
        let fixture = &schedule.fixtures[i];
        if schedule.start(fixture).fen() != record.start_fen {
            sorted
                .dropped
                .push((record, "its start position is not the schedule's".into()));
            continue;
        }
        // Unless forfeits stand (`on_engine_failure: forfeit`), games neither engine could
        // start are played again (forfeits of withdrawn engines too, counted above).
        if retry_withdrawn && record.result == "*" {
            sorted.unfinished += 1;
            continue;
        }
        if !seen.insert(i) {
            sorted
                .dropped
                .push((record, "a second row of the same game".into()));
            continue;
        }
        if record.game_id != fixture.id {
            sorted.renumbered.push((record.game_id, fixture.id));
        }
        record.game_id = fixture.id;
        record.pair = fixture.pair;
        sorted.kept.push(record);
    }
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_engine_is_named_from_the_conflicts_compare_writes() {
        let text = |command: &str| {
            format!(
                "time_control: {{ movetime_ms: 5 }}\nboards: [{{ game: awale }}]\n\
                 engines:\n  - {{ name: a, command: sh }}\n  - {{ name: b, command: {command} }}\n"
            )
        };
        let old = crate::config::parse(&text("sh"), "c.yaml").unwrap();
        let new = crate::config::parse(&text("bash"), "c.yaml").unwrap();
        let boards = ["awale-6".to_owned()];
        let plays = |games: Vec<GameKind>| -> Plays { [("a".to_owned(), games)].into() };
        let Compatibility::Conflict(keys) = compare(
            &old,
            &boards,
            &plays(vec![GameKind::Awale]),
            &new,
            &boards,
            &plays(GameKind::ALL.to_vec()),
        ) else {
            panic!("a changed command is a conflict");
        };
        let named: Vec<Option<&str>> = keys.iter().map(|k| changed_engine(k)).collect();
        assert_eq!(named, [Some("b"), Some("a")], "{keys:?}");
        assert_eq!(
            changed_engine("rounds (3 → 2: fewer rounds drop played games)"),
            None
        );
        assert_eq!(changed_engine("engines: `c` removed"), Some("c"));
    }
}
