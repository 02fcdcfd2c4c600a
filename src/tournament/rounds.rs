//! Swiss and knockout runs: played round by round, each round paired from the results of the
//! last (see [`crate::formats`]).
//!
//! The games of a stage (a Swiss round; a knockout round's regular games, then each of its
//! tie-break pairs) run in parallel on the worker pool; the next stage is paired when the
//! stage is complete. Game ids, pairs, start positions and engine seeds come from
//! [`driver::expand`], a pure function of the config, the seed and the results so far, so a
//! resumed run rebuilds the same schedule from games.csv and plays only what is missing, and
//! raising a Swiss's `rounds` appends rounds.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::sync::atomic::AtomicBool;

use crate::config::{OnEngineFailure, Plan};
use crate::formats::driver::{self, Expansion, Position, Results};
use crate::formats::settings::{self, Kind, Paired};
use crate::games::{BySide, GameKind};
use crate::record::GameRecord;
use crate::report::files;
use crate::runner::{self, Tournament};
use crate::schedule::{self, Fixture, Schedule};

use super::recorder::Recorder;
use super::resume::{self, Plays};
use super::{BAD_CONFIG, FAILED, RunOptions, Stop, engine_names};

/// Per pairing of a Swiss: round, pairing, engines, game points and points after the round.
pub const SWISS: &str = "swiss.csv";
/// The Swiss standings (points, Buchholz, Sonneborn–Berger), rewritten after each round.
pub const SWISS_STANDINGS: &str = "swiss_standings.csv";
/// Per match of a knockout: round, match, engines, score, winner, tie-breaks.
pub const KNOCKOUT: &str = "knockout.csv";

/// A Swiss or knockout of a plan: its settings and what its games are made of.
pub struct Driver {
    /// The format's settings.
    pub settings: Paired,
    /// Engine names, config order.
    pub names: Vec<String>,
    /// The one board's name.
    board: String,
    /// The master seed.
    seed: u64,
}

impl Driver {
    /// The driver of `plan`, `None` for a round robin or gauntlet.
    pub fn of(plan: &Plan) -> Option<Driver> {
        Some(Driver {
            settings: Paired::of(&plan.config)?,
            names: engine_names(plan),
            board: plan.board_names.first().cloned().unwrap_or_default(),
            seed: plan.seed,
        })
    }

    /// The schedule before any result: the start positions of every slot and the first
    /// stage's games. Every engine must play the board's game.
    ///
    /// # Errors
    /// [`Stop`] with [`BAD_CONFIG`] naming an engine that does not play the board's game, or
    /// a board that cannot produce a start position.
    pub fn first_schedule(&self, plan: &Plan, plays: &Plays) -> Result<Schedule, Stop> {
        let kind: GameKind = plan.config.boards[0].kind();
        if let Some((name, _)) = plays.iter().find(|(_, games)| !games.contains(&kind)) {
            return Err(Stop::new(
                BAD_CONFIG,
                format!(
                    "{}: engine {name} does not play {kind}: in a {} every engine plays the one board",
                    plan.file.display(),
                    settings::format_name(plan.config.format)
                ),
            ));
        }
        let starts = schedule::start_positions(
            &plan.config.boards,
            &plan.board_names,
            self.settings.slots(self.names.len()),
            self.seed,
        )
        .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", plan.file.display())))?;
        let mut schedule = Schedule {
            fixtures: Vec::new(),
            starts,
        };
        schedule.fixtures = self.fixtures(&self.expand(&[]));
        Ok(schedule)
    }

    /// The results of `records` (rows of this board between known engines).
    pub fn results(&self, records: &[GameRecord]) -> Results {
        let index = |name: &str| self.names.iter().position(|n| n == name);
        records
            .iter()
            .filter(|r| r.board == self.board)
            .filter_map(|r| {
                let points = match r.result.as_str() {
                    "1-0" => (1.0, 0.0),
                    "0-1" => (0.0, 1.0),
                    "1/2-1/2" => (0.5, 0.5),
                    "*" => (0.0, 0.0),
                    _ => return None,
                };
                Some(((r.round, index(&r.first)?, index(&r.second)?), points))
            })
            .collect()
    }

    /// The tournament as far as `records` go.
    pub fn expand(&self, records: &[GameRecord]) -> Expansion {
        driver::expand(&self.settings, self.names.len(), &self.results(records))
    }

    /// The fixtures of an expansion, ids in its order.
    pub fn fixtures(&self, expansion: &Expansion) -> Vec<Fixture> {
        expansion
            .games
            .iter()
            .enumerate()
            .map(|(id, g)| Fixture {
                id: id as u64,
                board: 0,
                round: g.slot,
                pair: g.pair,
                leg: g.leg,
                players: BySide::new(g.first, g.second),
                engine_seed: schedule::engine_seed(
                    self.seed,
                    &self.board,
                    g.slot,
                    &self.names[g.first],
                    &self.names[g.second],
                ),
            })
            .collect()
    }

    /// Extends `schedule` as far as the rows of games.csv in `out` go: each pass keeps the
    /// rows of the stages reached (as a resume keeps them, `retry` as there) and pairs the
    /// next stage from them, until no more rows fit.
    ///
    /// # Errors
    /// [`Stop`] with [`FAILED`] when games.csv cannot be read.
    pub fn replay(&self, schedule: &mut Schedule, plan: &Plan, retry: bool) -> Result<(), Stop> {
        let path = plan.output.join(files::GAMES);
        if !path.exists() {
            return Ok(());
        }
        let (rows, _) = files::read_games(&path).map_err(|e| Stop::new(FAILED, e.to_string()))?;
        let mut kept = 0;
        loop {
            let sorted = resume::sort_rows(
                rows.clone(),
                schedule,
                &plan.board_names,
                &self.names,
                retry,
            );
            if sorted.kept.len() == kept {
                return Ok(());
            }
            kept = sorted.kept.len();
            schedule.fixtures = self.fixtures(&self.expand(&sorted.kept));
        }
    }

    /// Games the progress bar counts: a Swiss's games, a knockout's regular games (and the
    /// tie-breaks already scheduled).
    pub fn expected_games(&self, plan: &Plan, scheduled: usize) -> u64 {
        settings::regular_games(&plan.config, self.names.len()).max(scheduled as u64)
    }
}

/// `--shard` splits a schedule known in advance; a Swiss or knockout pairs each round from the
/// last, so it is refused.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] for a sharded Swiss or knockout.
pub fn refuse_shard(plan: &Plan, options: &RunOptions) -> Result<(), Stop> {
    match options.shard {
        Some(s) if plan.config.format.pairs_by_results() => Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: format: {} cannot be split into shards (--shard {s}): each round is paired from the results of the last; run it without --shard",
                plan.file.display(),
                settings::format_name(plan.config.format)
            ),
        )),
        _ => Ok(()),
    }
}

/// Plays the stages from `todo` (the current stage's missing games) on: after each, pairs the
/// next from every result in `recorder`, until the tournament is complete, Ctrl-C, a write
/// failure, or (with `on_engine_failure: stop`) an engine withdrawn: its forfeits are played
/// again on resume, so no round is paired from them. Returns whether nothing was cut short.
pub(super) fn play(
    driver: &Driver,
    base: &Tournament<'_>,
    plan: &Plan,
    mut todo: Vec<Fixture>,
    cancel: &AtomicBool,
    no_new_games: &AtomicBool,
    recorder: &mut Recorder,
) -> bool {
    let mut schedule = base.schedule.clone();
    let mut withdrawn = base.withdrawn.clone();
    loop {
        if !todo.is_empty() {
            let stage = Tournament {
                boards: base.boards,
                board_names: base.board_names,
                engines: base.engines,
                schedule: &schedule,
                handshake_timeout_ms: base.handshake_timeout_ms,
                log_dir: base.log_dir.clone(),
                log_protocol: base.log_protocol,
                restart_per_game: base.restart_per_game,
                withdraw_after: base.withdraw_after,
                withdrawn: withdrawn.clone(),
                record_moves: base.record_moves,
                adjudication: base.adjudication,
                live: base.live,
            };
            let log_dir = base.log_dir.clone();
            let completed = runner::run_until(
                &stage,
                todo,
                plan.concurrency,
                cancel,
                no_new_games,
                |event| recorder.on_event(event, cancel, no_new_games, &log_dir),
            );
            if !completed || recorder.write_error.is_some() {
                return false;
            }
            // The standings after each round, for whoever watches (`arena serve`); a failure
            // here is reported by the final write, which tries again.
            let _ = write_files(plan, &recorder.records);
        }
        if !recorder.withdrawals.is_empty() {
            if plan.config.on_engine_failure == OnEngineFailure::Stop {
                return true;
            }
            // Withdrawn engines stay withdrawn in later stages: their games are forfeited.
            for name in &recorder.withdrawals {
                if let Some(e) = driver.names.iter().position(|n| n == name) {
                    withdrawn[e].get_or_insert_with(|| "withdrawn in an earlier round".into());
                }
            }
        }
        let expansion = driver.expand(&recorder.records);
        if expansion.complete {
            return true;
        }
        schedule.fixtures = driver.fixtures(&expansion);
        let done: BTreeSet<u64> = recorder.records.iter().map(|r| r.game_id).collect();
        todo = schedule
            .fixtures
            .iter()
            .filter(|f| !done.contains(&f.id))
            .cloned()
            .collect();
        if todo.is_empty() {
            return true;
        }
    }
}

/// Writes swiss.csv and swiss_standings.csv, or knockout.csv, from `records` (nothing for a
/// round robin or gauntlet).
///
/// # Errors
/// `path: error` of the first file that cannot be written.
pub fn write_files(plan: &Plan, records: &[GameRecord]) -> Result<(), String> {
    let Some(driver) = Driver::of(plan) else {
        return Ok(());
    };
    let expansion = driver.expand(records);
    let files: Vec<(&str, String)> = match driver.settings.kind {
        Kind::Swiss { .. } => vec![
            (SWISS, swiss_csv(&driver, &expansion)),
            (SWISS_STANDINGS, swiss_standings_csv(&driver, &expansion)),
        ],
        Kind::Knockout { .. } => vec![(KNOCKOUT, knockout_csv(&driver, &expansion))],
    };
    for (name, text) in files {
        let path = plan.output.join(name);
        fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// A number of points as written in the files: shortest form (`1`, `0.5`, `2.25`).
fn num(x: f64) -> String {
    format!("{x}")
}

/// swiss.csv: one row per pairing and one per bye, in round order; `points_a`/`points_b` are
/// the points after the round, empty while it is incomplete.
fn swiss_csv(driver: &Driver, expansion: &Expansion) -> String {
    let mut out =
        String::from("round,pairing,engine_a,engine_b,games,score_a,score_b,points_a,points_b\n");
    let name = |e: usize| driver.names[e].as_str();
    for round in &expansion.rounds {
        let after = |e: usize| {
            round
                .points_after
                .get(e)
                .map_or_else(String::new, |&p| num(p))
        };
        for (i, p) in round.pairings.iter().enumerate() {
            let [a, b] = p.engines;
            let _ = writeln!(
                out,
                "{},{},{},{},{},{},{},{},{}",
                round.round,
                i + 1,
                name(a),
                name(b),
                p.games,
                num(p.score[0]),
                num(p.score[1]),
                after(a),
                after(b)
            );
        }
        for &b in &round.byes {
            let _ = writeln!(out, "{},bye,{},,0,,,{},", round.round, name(b), after(b));
        }
    }
    out
}

/// swiss_standings.csv: rank, engine, points, Buchholz, Sonneborn–Berger, byes.
fn swiss_standings_csv(driver: &Driver, expansion: &Expansion) -> String {
    let mut out = String::from("rank,engine,points,buchholz,sonneborn_berger,byes\n");
    let n = driver.names.len();
    for (i, row) in driver::swiss_standings(expansion, n, &driver.settings.seeds)
        .iter()
        .enumerate()
    {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{}",
            i + 1,
            driver.names[row.engine],
            num(row.points),
            num(row.buchholz),
            num(row.sonneborn_berger),
            row.byes
        );
    }
    out
}

/// The 1-based seed of each engine (config order).
fn seed_numbers(driver: &Driver) -> Vec<usize> {
    let mut seed = vec![0; driver.names.len()];
    for (rank, &e) in driver.settings.seeds.iter().enumerate() {
        seed[e] = rank + 1;
    }
    seed
}

/// knockout.csv: one row per bracket position (a match, or an engine advancing on a bye,
/// with `engine_b` empty), in round and bracket order; score in game points over regular and
/// tie-break games; `winner` empty while undecided.
fn knockout_csv(driver: &Driver, expansion: &Expansion) -> String {
    let mut out = String::from(
        "round,match,engine_a,engine_b,seed_a,seed_b,games,score_a,score_b,tiebreak_pairs,winner\n",
    );
    let seed = seed_numbers(driver);
    let name = |e: usize| driver.names[e].as_str();
    for round in &expansion.rounds {
        for (i, position) in round.bracket.iter().enumerate() {
            match *position {
                Position::Match(m) => {
                    let p = &round.pairings[m];
                    let [a, b] = p.engines;
                    let _ = writeln!(
                        out,
                        "{},{},{},{},{},{},{},{},{},{},{}",
                        round.round,
                        i + 1,
                        name(a),
                        name(b),
                        seed[a],
                        seed[b],
                        p.games,
                        num(p.score[0]),
                        num(p.score[1]),
                        p.tiebreaks,
                        p.winner.map_or("", |w| name(p.engines[w]))
                    );
                }
                Position::Bye(a) => {
                    let _ = writeln!(
                        out,
                        "{},{},{},,{},,0,,,0,{}",
                        round.round,
                        i + 1,
                        name(a),
                        seed[a],
                        name(a)
                    );
                }
            }
        }
    }
    out
}

/// The format's own standings for the terminal: Swiss points, Buchholz and
/// Sonneborn–Berger, or the knockout's bracket result; empty for other formats.
pub fn render(plan: &Plan, records: &[GameRecord]) -> String {
    let Some(driver) = Driver::of(plan) else {
        return String::new();
    };
    let expansion = driver.expand(records);
    let n = driver.names.len();
    let width = driver
        .names
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = String::new();
    match driver.settings.kind {
        Kind::Swiss { rounds, .. } => {
            let played = expansion.rounds.iter().filter(|r| r.complete).count();
            let _ = writeln!(out, "Swiss standings after {played} of {rounds} rounds:");
            let _ = writeln!(
                out,
                "{:>4}  {:<width$}  {:>6}  {:>8}  {:>8}",
                "rank", "engine", "points", "Buchholz", "S-B"
            );
            for (i, row) in driver::swiss_standings(&expansion, n, &driver.settings.seeds)
                .iter()
                .enumerate()
            {
                let _ = writeln!(
                    out,
                    "{:>4}  {:<width$}  {:>6}  {:>8}  {:>8}{}",
                    i + 1,
                    driver.names[row.engine],
                    num(row.points),
                    num(row.buchholz),
                    num(row.sonneborn_berger),
                    if row.byes > 0 { "  (bye)" } else { "" }
                );
            }
        }
        Kind::Knockout { .. } => {
            let seed = seed_numbers(&driver);
            let rounds = crate::formats::knockout::rounds(n);
            let _ = writeln!(out, "Knockout bracket ({n} engines, {rounds} rounds):");
            for round in &expansion.rounds {
                for p in &round.pairings {
                    let [a, b] = p.engines;
                    let _ = writeln!(
                        out,
                        "  round {}: {} (seed {}) {}-{} {} (seed {}){}{}",
                        round.round,
                        driver.names[a],
                        seed[a],
                        num(p.score[0]),
                        num(p.score[1]),
                        driver.names[b],
                        seed[b],
                        if p.tiebreaks > 0 {
                            format!(", {} tie-break pair(s)", p.tiebreaks)
                        } else {
                            String::new()
                        },
                        p.winner.map_or_else(
                            || ", undecided".to_owned(),
                            |w| format!(" → {}", driver.names[p.engines[w]])
                        )
                    );
                }
            }
            if expansion.complete {
                if let Some(&(champion, _)) =
                    driver::knockout_order(&expansion, n, &driver.settings.seeds).first()
                {
                    let _ = writeln!(out, "winner: {}", driver.names[champion]);
                }
            }
        }
    }
    out
}

/// For `arena check`: round 1's pairings and the game count (knockout: bracket size and the
/// most games, every tie-break played).
pub fn describe_first_round(plan: &Plan) -> String {
    let Some(driver) = Driver::of(plan) else {
        return String::new();
    };
    let expansion = driver.expand(&[]);
    let n = driver.names.len();
    let mut out = String::new();
    let name = |e: usize| driver.names[e].as_str();
    let k = driver.settings.games_per_pairing;
    match driver.settings.kind {
        Kind::Swiss { rounds, .. } => {
            let _ = writeln!(
                out,
                "swiss: {rounds} round(s) of {} pairing(s), {k} game pair(s) each: {} games",
                n / 2,
                settings::max_games(&plan.config, n)
            );
        }
        Kind::Knockout { tiebreak_pairs } => {
            let slots = n.next_power_of_two();
            let _ = writeln!(
                out,
                "knockout: bracket of {slots} ({} bye(s)), {} round(s), {k} game pair(s) a match and up to {tiebreak_pairs} tie-break pair(s): {} to {} games",
                slots - n,
                crate::formats::knockout::rounds(n),
                settings::regular_games(&plan.config, n),
                settings::max_games(&plan.config, n)
            );
        }
    }
    let _ = writeln!(
        out,
        "board {}, seed {}, concurrency {}, output {}",
        driver.board,
        plan.seed,
        plan.concurrency,
        plan.output.display()
    );
    if let Some(round) = expansion.rounds.first() {
        let _ = writeln!(
            out,
            "round 1 ({} games):",
            round.pairings.len() as u32 * 2 * k
        );
        for (i, p) in round.pairings.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {}. {} – {}",
                i + 1,
                name(p.engines[0]),
                name(p.engines[1])
            );
        }
        for &b in &round.byes {
            let _ = writeln!(out, "  bye: {}", name(b));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::tournament::resume::Compatibility;

    fn config(extra: &str, engines: &[&str]) -> Config {
        let list: String = engines
            .iter()
            .map(|e| format!("  - {{ name: {e}, command: sh }}\n"))
            .collect();
        serde_yaml::from_str(&format!(
            "seed: 3\ntime_control: {{ depth: 1 }}\nboards:\n  - {{ game: awale, pits: 6 }}\n{extra}engines:\n{list}"
        ))
        .unwrap()
    }

    fn compare(old: &Config, new: &Config) -> Compatibility {
        let boards = vec!["awale-6".to_owned()];
        resume::compare(old, &boards, &Plays::new(), new, &boards, &Plays::new())
    }

    #[test]
    fn a_swiss_extends_by_rounds_only() {
        let old = config("format: swiss\nrounds: 3\n", &["a", "b", "c"]);
        let more = config("format: swiss\nrounds: 5\n", &["a", "b", "c"]);
        assert!(matches!(compare(&old, &more), Compatibility::Extension(_)));
        let added = config("format: swiss\nrounds: 3\n", &["a", "b", "c", "d"]);
        match compare(&old, &added) {
            Compatibility::Conflict(keys) => {
                assert!(keys[0].contains("engine d added"), "{keys:?}");
            }
            other => panic!("{other:?}"),
        }
        // A round robin still takes a new engine.
        let (rr, rr_added) = (config("", &["a", "b"]), config("", &["a", "b", "c"]));
        assert!(matches!(
            compare(&rr, &rr_added),
            Compatibility::Extension(_)
        ));
    }

    #[test]
    fn knockout_csv_lists_the_bracket_in_order_with_byes() {
        let driver = Driver {
            settings: Paired::of(&config("format: knockout\n", &["a", "b", "c"])).unwrap(),
            names: vec!["a".into(), "b".into(), "c".into()],
            board: "awale-6".into(),
            seed: 3,
        };
        // b–c: c wins both games; then a–c drawn through every tie-break: a, the higher seed.
        let mut results = Results::new();
        results.insert((1, 1, 2), (0.0, 1.0));
        results.insert((1, 2, 1), (1.0, 0.0));
        for slot in 5..=8 {
            results.insert((slot, 0, 2), (0.5, 0.5));
            results.insert((slot, 2, 0), (0.5, 0.5));
        }
        let expansion = driver::expand(&driver.settings, 3, &results);
        assert!(expansion.complete);
        assert_eq!(
            knockout_csv(&driver, &expansion),
            "round,match,engine_a,engine_b,seed_a,seed_b,games,score_a,score_b,tiebreak_pairs,winner\n\
             1,1,a,,1,,0,,,0,a\n\
             1,2,b,c,2,3,2,0,2,0,c\n\
             2,1,a,c,1,3,8,4,4,3,a\n"
        );
    }
}
