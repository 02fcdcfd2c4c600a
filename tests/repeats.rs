//! Repeated games (issue 27): deterministic engines replay the same game pair, which must be
//! marked in games.csv and counted once by the ratings, the head-to-head estimates and the
//! SPRT.

mod util;

use std::fs;
use std::path::PathBuf;

use arena::record::{GameIds, GameRecord, Termination};
use arena::sprt::{Model, SprtSpec, Tracker};
use arena::standings::{self, PairRow, RatingRow};
use arena::{repeats, seed};
use proptest::prelude::*;
use util::{Dir, arena, python_engine, read_games};

/// A deterministic engine: the Python template with its `Seed` option hidden, so arena never
/// sends one and every game starts from the template's fixed generator (seed `fixed`).
fn deterministic_engine(dir: &Dir, name: &str, fixed: u64) -> PathBuf {
    dir.write(
        &format!("{name}.py"),
        &format!(
            "import random, runpy, sys\n\
             class Hide:\n\
             \x20   def __init__(self, out): self.out = out\n\
             \x20   def write(self, text):\n\
             \x20       if 'option name Seed' not in text: self.out.write(text)\n\
             \x20   def flush(self): self.out.flush()\n\
             sys.stdout = Hide(sys.stdout)\n\
             original = random.Random\n\
             random.Random = lambda seed=None: original({fixed})\n\
             runpy.run_path({template:?}, run_name='__main__')\n",
            template = python_engine()
        ),
    )
}

// See: issue 27, first test.
#[test]
fn deterministic_engines_restarted_per_game_are_counted_once() {
    let dir = Dir::new();
    let a = deterministic_engine(&dir, "a", 3);
    let b = deterministic_engine(&dir, "b", 8);
    let cfg = dir.write(
        "t.yaml",
        &format!(
            "name: t\nseed: 5\nconcurrency: 2\nrounds: 10\nrestart: per_game\n\
             time_control: {{ movetime_ms: 50 }}\nboards:\n  - {{ game: awale, pits: 6 }}\n\
             engines:\n  - {{ name: a, command: python3, args: [{}] }}\n  - {{ name: b, command: python3, args: [{}] }}\n\
             output: {}\n",
            a.display(),
            b.display(),
            dir.path("out").display()
        ),
    );
    let run = arena().arg("run").arg(&cfg).assert().success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 20);
    // Every game repeats game 0 or game 1 (the first pair), colour for colour.
    let first_pair: Vec<&GameRecord> = games.iter().filter(|g| g.pair == games[0].pair).collect();
    assert_eq!(first_pair.len(), 2);
    for g in &games {
        let original = first_pair
            .iter()
            .find(|o| o.first == g.first)
            .expect("a first leg with the same first engine");
        assert_eq!(g.moves, original.moves, "deterministic engines: {g:?}");
        let expected = (g.game_id != original.game_id).then_some(original.game_id);
        assert_eq!(g.repeat_of, expected, "{g:?}");
    }
    assert!(
        stdout.contains("a vs b: 18 of 20 games repeat") && stdout.contains("openings:"),
        "{stdout}"
    );
    // n_eff is one pair, and every figure is that of the first pair alone.
    let ratings = util::csv_rows(&dir.path("out/ratings.csv"));
    let pairs = util::csv_rows(&dir.path("out/pairs.csv"));
    assert!(ratings.iter().all(|r| r["n_eff"] == "1"), "{ratings:?}");
    assert!(pairs.iter().all(|r| r["n_eff"] == "1"), "{pairs:?}");
    let names = ["a".to_owned(), "b".to_owned()];
    let alone: Vec<GameRecord> = first_pair.into_iter().cloned().collect();
    let one = standings::compute(&alone, &names, None, 0.95);
    let all = standings::compute(&games, &names, None, 0.95);
    for (x, y) in one.ratings.iter().zip(&all.ratings) {
        for (u, v) in [
            (x.ci_low, y.ci_low),
            (x.ci_high, y.ci_high),
            (x.err95, y.err95),
        ] {
            assert!(
                match (u, v) {
                    (Some(u), Some(v)) => (u - v).abs() <= 0.1,
                    (u, v) => u == v,
                },
                "{x:?} {y:?}"
            );
        }
        assert!(y.los_next.unwrap_or(0.0) <= x.los_next.unwrap_or(0.0) + 1e-9);
    }
    let (p1, p20) = (&one.pairs[0], &all.pairs[0]);
    assert_eq!((p1.ci_low, p1.ci_high), (p20.ci_low, p20.ci_high));
    assert!(p20.los <= p1.los);
    assert_eq!(p20.games, 20, "the W/D/L columns still count every game");

    // `arena ratings` on the file, and on it without its repeat_of column: the same.
    let stripped = dir.path("stripped.csv");
    let text = fs::read_to_string(dir.path("out/games.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().unwrap().clone();
    let keep: Vec<usize> = (0..headers.len())
        .filter(|&i| &headers[i] != "repeat_of")
        .collect();
    let mut writer = csv::Writer::from_path(&stripped).unwrap();
    writer
        .write_record(keep.iter().map(|&i| &headers[i]))
        .unwrap();
    for row in reader.records() {
        let row = row.unwrap();
        writer.write_record(keep.iter().map(|&i| &row[i])).unwrap();
    }
    writer.flush().unwrap();
    arena()
        .arg("ratings")
        .arg(&stripped)
        .arg("--output")
        .arg(dir.path("imported"))
        .assert()
        .success();
    let imported = util::csv_rows(&dir.path("imported/ratings.csv"));
    let ours: Vec<(&String, &String, &String)> = ratings
        .iter()
        .filter(|r| r["scope"] == "all")
        .map(|r| (&r["engine"], &r["ci_low"], &r["n_eff"]))
        .collect();
    let theirs: Vec<(&String, &String, &String)> = imported
        .iter()
        .filter(|r| r["scope"] == "all")
        .map(|r| (&r["engine"], &r["ci_low"], &r["n_eff"]))
        .collect();
    assert_eq!(ours, theirs);
    // And on the run's tag-only results.pgn, through its RepeatGroup tags.
    arena()
        .arg("ratings")
        .arg(dir.path("out/results.pgn"))
        .arg("--output")
        .arg(dir.path("from-pgn"))
        .assert()
        .success();
    let from_pgn = util::csv_rows(&dir.path("from-pgn/ratings.csv"));
    let theirs: Vec<(&String, &String, &String)> = from_pgn
        .iter()
        .filter(|r| r["scope"] == "all")
        .map(|r| (&r["engine"], &r["ci_low"], &r["n_eff"]))
        .collect();
    assert_eq!(ours, theirs);
}

/// A game of a pair; its moves name the pair's outcome so that copies are equal games.
fn leg(id: u64, pair: u64, first: &str, second: &str, result: &str, moves: String) -> GameRecord {
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
        plies: 2,
        moves,
        ..GameRecord::unplayed(ids, result, Termination::Normal, String::new())
    }
}

/// A round robin of three engines with `pairs` random game pairs per engine pair; each pair
/// then appears `copies` times (same moves, new ids), as deterministic engines would replay it.
fn round_robin(pairs: usize, copies: usize, random_seed: u64) -> Vec<GameRecord> {
    let names = ["x", "y", "z"];
    let mut rng = seed::rng(random_seed);
    let mut distinct = Vec::new();
    for a in 0..3 {
        for b in a + 1..3 {
            for _ in 0..pairs {
                let results: Vec<&str> = (0..2)
                    .map(|_| ["1-0", "1/2-1/2", "0-1"][seed::below(&mut rng, 3) as usize])
                    .collect();
                let tag = seed::below(&mut rng, usize::MAX);
                distinct.push((a, b, results, tag));
            }
        }
    }
    let mut records = Vec::new();
    for copy in 0..copies {
        for (p, (a, b, results, tag)) in distinct.iter().enumerate() {
            let pair = (copy * distinct.len() + p) as u64;
            let (a, b) = (names[*a], names[*b]);
            records.push(leg(2 * pair, pair, a, b, results[0], format!("m{tag} 1")));
            records.push(leg(
                2 * pair + 1,
                pair,
                b,
                a,
                results[1],
                format!("m{tag} 2"),
            ));
        }
    }
    repeats::mark(&mut records);
    records
}

/// A rating row's scope and engine, interval ends, LOS and n_eff.
type Interval = (String, Option<f64>, Option<f64>, Option<f64>, u64);

fn intervals(rows: &[RatingRow]) -> Vec<Interval> {
    rows.iter()
        .map(|r| {
            (
                r.scope.clone() + &r.engine,
                r.ci_low,
                r.ci_high,
                r.los_next,
                r.n_eff,
            )
        })
        .collect()
}

fn pair_figures(rows: &[PairRow]) -> Vec<(Option<f64>, Option<f64>, f64, u64)> {
    rows.iter()
        .map(|r| (r.ci_low, r.ci_high, r.los, r.n_eff))
        .collect()
}

fn llr_of(records: &[GameRecord]) -> (f64, u64) {
    let spec = SprtSpec::new(0.0, 10.0, 0.05, 0.05, Model::Normalized, true).unwrap();
    // Bounds far away for this size: the test never stops, so every pair is seen.
    let mut tracker = Tracker::new(spec, "x", "y", 0.95);
    let mut last = None;
    for r in records {
        if let Some(row) = tracker.add(r) {
            last = Some(row);
        }
    }
    let row = last.expect("x and y met");
    (row.llr, row.pairs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    // See: issue 27, the property test.
    #[test]
    fn duplicating_every_pair_changes_no_interval_los_or_llr(
        pairs in 1usize..6,
        copies in 2usize..5,
        random_seed in 0u64..1_000_000,
    ) {
        let names: Vec<String> = ["x", "y", "z"].iter().map(|s| s.to_string()).collect();
        let once = round_robin(pairs, 1, random_seed);
        let many = round_robin(pairs, copies, random_seed);
        prop_assert_eq!(
            many.iter().filter(|r| r.repeat_of.is_some()).count(),
            once.len() * (copies - 1)
        );
        let a = standings::compute(&once, &names, None, 0.95);
        let b = standings::compute(&many, &names, None, 0.95);
        prop_assert_eq!(intervals(&a.ratings), intervals(&b.ratings));
        prop_assert_eq!(pair_figures(&a.pairs), pair_figures(&b.pairs));
        prop_assert_eq!(llr_of(&once), llr_of(&many));
    }
}

// See: issue 27, coverage. The script at small size: intervals hold the true Elo about as
// often as they say, with and without every pair written five times (without counting each
// distinct pair once, ×5 falls to about 60%).
#[test]
fn the_coverage_simulation_runs_and_holds_at_small_size() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/coverage.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(["--arena", env!("CARGO_BIN_EXE_arena")])
        .args(["--replicates", "12", "--pairs", "10", "--repeats", "1,5"])
        .args(["--seed", "4"])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let cells: Vec<(u32, f64, u32)> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(cells.len(), 2, "{text}");
    for (repeats, coverage, intervals) in cells {
        assert_eq!(intervals, 72, "{text}");
        // 72 intervals at a true 95%: below 85% has probability under 0.1%.
        assert!(coverage >= 0.85, "×{repeats}: {coverage} ({text})");
    }
}
