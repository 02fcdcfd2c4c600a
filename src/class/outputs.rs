//! `teams.csv`: every team of a class championship, what it ran and, once games are rated,
//! its level and grade. Written at the start of a run (from the [`Roster`]) and completed
//! from the standings whenever the result files are (after a run, a merge, `arena report`).
//!
//! `teams.csv` holds real team names and the paths of their submissions: like
//! `pseudonyms.csv`, it is the teacher's, never published.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::{Format, Plan};
use crate::record::GameRecord;
use crate::standings::{RatingRow, Standings};

use super::levels::{self, Against};
use super::pseudonyms;
use super::roster::{self, Roster};

/// The file, in the output directory.
pub const FILE: &str = "teams.csv";
/// The folder of the team pages, in the output directory.
pub const PAGES: &str = "teams";
/// The status of a team that entered, before its games say more.
const ENTERED: &str = "entered";
/// The start of the status of a team that could not enter.
const NOT_ENTERED: &str = "not entered";

/// One row of `teams.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TeamRow {
    /// The team (its folder's name, or the engine's name in a config without `submissions`).
    pub team: String,
    /// Its name in games and tables: its pseudonym with `anonymize`, else the team.
    pub name: String,
    /// The team folder (absolute; empty for an engine of the config).
    pub folder: String,
    /// The submission used: `.` (the team folder itself) or the subfolder's name.
    pub submission: String,
    /// `arena.yaml`, `library`, `program`, `python`, `node`, or `config` (an engine entry).
    pub kind: String,
    /// What runs, in one line.
    pub command: String,
    /// `entered`, `played`, `forfeited: …` or `not entered: …`.
    pub status: String,
    /// The highest rung beaten, `none`, or empty (no ladder, or not entered).
    pub level: String,
    /// The level's grade, when `grades` maps it.
    pub grade: String,
}

impl TeamRow {
    /// Whether the team entered the run (its engine was in the schedule).
    pub fn entered(&self) -> bool {
        !self.status.starts_with(NOT_ENTERED)
    }
}

/// The rows a run starts with: the roster's teams, or without `submissions` but with a
/// `ladder`, every engine that is not a rung (kind `config`); `None` for other runs.
pub fn initial_rows(plan: &Plan) -> Option<Vec<TeamRow>> {
    if let Some(roster) = &plan.roster {
        return Some(roster_rows(roster));
    }
    let ladder = plan.config.ladder.as_ref()?;
    Some(
        plan.config
            .engines
            .iter()
            .filter(|e| !ladder.contains(&e.name))
            .map(|e| TeamRow {
                team: e.name.clone(),
                name: e.name.clone(),
                submission: String::new(),
                kind: "config".into(),
                command: roster::describe(e),
                status: ENTERED.into(),
                ..TeamRow::default()
            })
            .collect(),
    )
}

fn roster_rows(roster: &Roster) -> Vec<TeamRow> {
    roster
        .teams
        .iter()
        .map(|t| TeamRow {
            team: t.team.clone(),
            name: t.name.clone(),
            folder: t.folder.display().to_string(),
            submission: t.submission.clone(),
            kind: t.kind.clone(),
            command: t.command.clone(),
            status: match &t.refused {
                None => ENTERED.into(),
                Some(why) => format!("{NOT_ENTERED}: {why}"),
            },
            ..TeamRow::default()
        })
        .collect()
}

/// Writes what a run starts with: `teams.csv` (see [`initial_rows`]) and, with `anonymize`,
/// `pseudonyms.csv`. Nothing for a run that is no championship.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write_initial(plan: &Plan) -> Result<(), String> {
    let Some(rows) = initial_rows(plan) else {
        return Ok(());
    };
    if let Some(Roster {
        salt: Some((salt, _)),
        pseudonyms: map,
        ..
    }) = &plan.roster
    {
        pseudonyms::write(&plan.output, salt, map)?;
    }
    write(&plan.output, &rows)
}

/// The rows of `dir/teams.csv`, `None` when there is none.
///
/// # Errors
/// A message naming the file and line of a malformed row.
pub fn read(dir: &Path) -> Result<Option<Vec<TeamRow>>, String> {
    let path = dir.join(FILE);
    if !path.exists() {
        return Ok(None);
    }
    let mut reader =
        csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let rows = reader
        .deserialize()
        .collect::<Result<Vec<TeamRow>, _>>()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Some(rows))
}

/// Writes `dir/teams.csv`.
///
/// # Errors
/// A message naming the file.
pub fn write(dir: &Path, rows: &[TeamRow]) -> Result<(), String> {
    let path = dir.join(FILE);
    let fail = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut writer = csv::Writer::from_path(&path).map_err(|e| fail(&e))?;
    for row in rows {
        writer.serialize(row).map_err(|e| fail(&e))?;
    }
    writer.flush().map_err(|e| fail(&e))
}

/// The teams of `dir/teams.csv` for the terminal, by level (highest rung first, as the
/// ladder lists them) then name, under their public names: `team  level  grade  status`
/// lines; empty without a teams.csv.
pub fn render(dir: &Path) -> String {
    let Ok(Some(rows)) = read(dir) else {
        return String::new();
    };
    let config = crate::report::html::inputs::config(dir).ok().flatten();
    let keys = ClassKeys::of(config.as_ref());
    let height = |r: &TeamRow| keys.ladder.iter().position(|l| *l == r.level);
    let mut sorted: Vec<&TeamRow> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        (!a.entered(), std::cmp::Reverse(height(a)), &a.name).cmp(&(
            !b.entered(),
            std::cmp::Reverse(height(b)),
            &b.name,
        ))
    });
    let width = sorted
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:<width$}  {:<12} {:<6} status\n",
        "team", "level", "grade"
    );
    for r in sorted {
        // The status's reason may quote a path: the terminal may be projected.
        let status = if keys.anonymize {
            r.status.split(':').next().unwrap_or_default()
        } else {
            r.status.as_str()
        };
        out.push_str(&format!(
            "{:<width$}  {:<12} {:<6} {status}\n",
            r.name, r.level, r.grade
        ));
    }
    out
}

/// A match seen from one engine: a `pairs.csv` row of scope `all`, flipped when the engine is
/// its `engine_b`.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    /// The opponent.
    pub opponent: String,
    /// Games played.
    pub games: u64,
    /// Wins, draws, losses of the engine.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// The engine's points per game (%).
    pub score_pct: f64,
    /// Its Elo over the opponent; `None` after a 0% or 100% score.
    pub elo_diff: Option<f64>,
    /// Lower end of the interval (Elo); `None` when unbounded.
    pub ci_low: Option<f64>,
    /// Upper end; `None` when unbounded.
    pub ci_high: Option<f64>,
    /// Likelihood (%) that the engine is the stronger.
    pub los: f64,
}

/// The matches of `engine` in `standings` (scope `all`), in `pairs.csv` order.
pub fn matches(standings: &Standings, engine: &str) -> Vec<Match> {
    standings
        .pairs
        .iter()
        .filter(|p| p.scope == "all")
        .filter_map(|p| {
            let flip = |x: Option<f64>| x.map(|v| -v);
            if p.engine_a == engine {
                Some(Match {
                    opponent: p.engine_b.clone(),
                    games: p.games,
                    wins: p.wins_a,
                    draws: p.draws,
                    losses: p.losses_a,
                    score_pct: p.score_a_pct,
                    elo_diff: p.elo_diff,
                    ci_low: p.ci_low,
                    ci_high: p.ci_high,
                    los: p.los,
                })
            } else if p.engine_b == engine {
                Some(Match {
                    opponent: p.engine_a.clone(),
                    games: p.games,
                    wins: p.losses_a,
                    draws: p.draws,
                    losses: p.wins_a,
                    score_pct: 100.0 - p.score_a_pct,
                    elo_diff: flip(p.elo_diff),
                    ci_low: flip(p.ci_high),
                    ci_high: flip(p.ci_low),
                    los: 100.0 - p.los,
                })
            } else {
                None
            }
        })
        .collect()
}

/// The class keys of a resolved config (`config.resolved.yaml` as a tree).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassKeys {
    /// `ladder`, weakest first (empty without).
    pub ladder: Vec<String>,
    /// `grades`.
    pub grades: BTreeMap<String, String>,
    /// `anonymize`.
    pub anonymize: bool,
    /// Whether teams meet each other (`format` other than `ladder`).
    pub teams_meet: bool,
}

impl ClassKeys {
    /// The keys of `config` (missing keys: their defaults).
    pub fn of(config: Option<&serde_yaml::Value>) -> ClassKeys {
        let Some(config) = config else {
            return ClassKeys::default();
        };
        let strings = |v: Option<&serde_yaml::Value>| -> Vec<String> {
            v.and_then(serde_yaml::Value::as_sequence)
                .map(|s| {
                    s.iter()
                        .filter_map(|x| x.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let grades = config
            .get("grades")
            .and_then(serde_yaml::Value::as_mapping)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| {
                        let value = match v {
                            serde_yaml::Value::String(s) => s.clone(),
                            other => serde_yaml::to_string(other).ok()?.trim().to_owned(),
                        };
                        Some((k.as_str()?.to_owned(), value))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let format: Option<Format> = config
            .get("format")
            .and_then(|f| serde_yaml::from_value(f.clone()).ok());
        ClassKeys {
            ladder: strings(config.get("ladder")),
            grades,
            anonymize: config
                .get("anonymize")
                .and_then(serde_yaml::Value::as_bool)
                .unwrap_or(false),
            teams_meet: format != Some(Format::Ladder),
        }
    }
}

/// One team's results, for its page and the report.
#[derive(Clone, Debug, PartialEq)]
pub struct TeamResult {
    /// Its `teams.csv` row, completed.
    pub row: TeamRow,
    /// Its rating row (scope `all`), when rated.
    pub rating: Option<RatingRow>,
    /// Its matches against each rung, in ladder order (rungs it did not meet are missing).
    pub rungs: Vec<Match>,
    /// Its other matches.
    pub others: Vec<Match>,
}

/// Completes `dir/teams.csv` from `records` and `standings` (level, grade, and `played` or
/// `forfeited: …` for the teams that entered) and returns every team's results; `None` when
/// the directory has no teams.csv.
///
/// # Errors
/// A message naming the file that could not be read or written.
pub fn complete(
    dir: &Path,
    records: &[GameRecord],
    standings: &Standings,
) -> Result<Option<(ClassKeys, Vec<TeamResult>)>, String> {
    let Some(rows) = read(dir)? else {
        return Ok(None);
    };
    let config = crate::report::html::inputs::config(dir).map_err(|e| e.to_string())?;
    let keys = ClassKeys::of(config.as_ref());
    let results = evaluate(rows, &keys, records, standings);
    let rows: Vec<TeamRow> = results.iter().map(|r| r.row.clone()).collect();
    write(dir, &rows)?;
    Ok(Some((keys, results)))
}

/// Every team's results from `records` and `standings` as they stand (`rows` completed with
/// status, level and grade), without writing anything: what [`complete`] writes, and what
/// the live page shows while the games go on.
pub fn evaluate(
    rows: Vec<TeamRow>,
    keys: &ClassKeys,
    records: &[GameRecord],
    standings: &Standings,
) -> Vec<TeamResult> {
    rows.into_iter()
        .map(|row| result_of(row, keys, records, standings))
        .collect()
}

fn result_of(
    mut row: TeamRow,
    keys: &ClassKeys,
    records: &[GameRecord],
    standings: &Standings,
) -> TeamResult {
    if !row.entered() {
        row.level.clear();
        row.grade.clear();
        return TeamResult {
            row,
            rating: None,
            rungs: Vec::new(),
            others: Vec::new(),
        };
    }
    row.status = status(&row.name, records);
    let all = matches(standings, &row.name);
    // No game (none of the boards is of its games, or none played yet): no level to give.
    let played = records
        .iter()
        .any(|r| r.first == row.name || r.second == row.name);
    let (mut rungs, others): (Vec<Match>, Vec<Match>) = all
        .into_iter()
        .partition(|m| keys.ladder.contains(&m.opponent));
    rungs.sort_by_key(|m| keys.ladder.iter().position(|r| *r == m.opponent));
    row.level.clear();
    row.grade.clear();
    if !keys.ladder.is_empty() && played {
        let against: BTreeMap<String, Against> = rungs
            .iter()
            .map(|m| {
                (
                    m.opponent.clone(),
                    Against {
                        games: m.games,
                        score_pct: m.score_pct,
                        ci_low: m.ci_low,
                    },
                )
            })
            .collect();
        let level = levels::level(&keys.ladder, &against);
        row.level = level.unwrap_or(levels::NONE).to_owned();
        row.grade = levels::grade(&keys.grades, level)
            .unwrap_or_default()
            .to_owned();
    }
    let rating = standings
        .ratings
        .iter()
        .find(|r| r.scope == "all" && r.engine == row.name)
        .cloned();
    TeamResult {
        row,
        rating,
        rungs,
        others,
    }
}

/// `played` when the engine made a move in some game; else `forfeited: ` and why its first
/// game ended; `entered` when it has no game yet.
fn status(engine: &str, records: &[GameRecord]) -> String {
    let mut games = records
        .iter()
        .filter(|r| r.first == engine || r.second == engine)
        .peekable();
    let Some(first) = games.peek().copied() else {
        return ENTERED.into();
    };
    let moved = |r: &GameRecord| {
        // The engine made a move if the game reached its turn and went past it.
        let side_first = r.first == engine;
        if side_first {
            r.plies >= 1
        } else {
            r.plies >= 2
        }
    };
    if games.any(moved) {
        return "played".into();
    }
    // `NAME (second) was withdrawn: its handshake failed before the run: handshake failed: …`:
    // the why, without the who nor the same words twice.
    let why = first
        .detail
        .split_once(" was withdrawn: ")
        .map_or(first.detail.as_str(), |(_, why)| why);
    let why = why
        .strip_prefix("its handshake failed before the run: ")
        .unwrap_or(why);
    format!("forfeited: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standings::PairRow;
    use std::fs;

    fn pair(a: &str, b: &str, score: f64, low: Option<f64>, high: Option<f64>) -> PairRow {
        PairRow {
            scope: "all".into(),
            engine_a: a.into(),
            engine_b: b.into(),
            games: 20,
            wins_a: 12,
            draws: 2,
            losses_a: 6,
            score_a_pct: score,
            elo_diff: Some(70.0),
            ci_low: low,
            ci_high: high,
            los: 90.0,
            ..PairRow::default()
        }
    }

    #[test]
    fn a_match_is_flipped_for_the_second_engine() {
        let standings = Standings {
            pairs: vec![pair("random", "t", 35.0, Some(-200.0), Some(-10.0))],
            ..Standings::default()
        };
        let m = &matches(&standings, "t")[0];
        assert_eq!(m.opponent, "random");
        assert_eq!((m.wins, m.losses), (6, 12));
        assert!((m.score_pct - 65.0).abs() < 1e-9);
        assert_eq!((m.ci_low, m.ci_high), (Some(10.0), Some(200.0)));
        assert_eq!(m.elo_diff, Some(-70.0));
    }

    #[test]
    fn levels_and_grades_complete_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("config.resolved.yaml"),
            "ladder: [random, greedy]\ngrades: { greedy: B, random: C, none: F }\nformat: ladder\n",
        )
        .unwrap();
        let row = |name: &str, status: &str| TeamRow {
            team: name.into(),
            name: name.into(),
            status: status.into(),
            ..TeamRow::default()
        };
        write(
            dir.path(),
            &[
                row("t", "entered"),
                row("u", "entered"),
                row("v", "entered"),
                row("x", "not entered: empty"),
            ],
        )
        .unwrap();
        let standings = Standings {
            pairs: vec![
                // t beats random (interval above 0) but not greedy.
                pair("random", "t", 20.0, Some(-300.0), Some(-50.0)),
                pair("t", "greedy", 55.0, Some(-40.0), Some(80.0)),
                // u beats neither.
                pair("u", "random", 50.0, Some(-60.0), Some(60.0)),
            ],
            ..Standings::default()
        };
        let game = |first: &str, second: &str| GameRecord {
            first: first.into(),
            second: second.into(),
            result: "1-0".into(),
            plies: 10,
            ..GameRecord::default()
        };
        // x has no game: it gets no level.
        let records = [game("random", "t"), game("u", "greedy")];
        let (keys, results) = complete(dir.path(), &records, &standings).unwrap().unwrap();
        assert!(!keys.teams_meet);
        let rows = read(dir.path()).unwrap().unwrap();
        let got: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|r| (r.name.as_str(), r.level.as_str(), r.grade.as_str()))
            .collect();
        // v entered but played no game (none of its games is on a board): no level, no F.
        assert_eq!(
            got,
            [
                ("t", "random", "C"),
                ("u", "none", "F"),
                ("v", "", ""),
                ("x", "", "")
            ]
        );
        assert_eq!(results[0].rungs.len(), 2);
        assert_eq!(results[0].rungs[0].opponent, "random", "ladder order");
        assert_eq!(rows[2].status, "entered");
        assert!(!rows[3].entered());
    }
}
