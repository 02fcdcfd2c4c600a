//! SPRT through the binary: an early stop with H1 for a real strength difference, H0 at a known
//! pair for an engine against itself, resume of a decided or interrupted test (interruptions
//! written from a full run's rows, so nothing depends on timing), config errors and the `arena
//! sprt` calculator.

mod util;

use std::fs;
use std::path::{Path, PathBuf};

use util::{Dir, arena, engine, read_games};

/// A match of `first` against `second` on Awale 6 with an SPRT.
fn config(dir: &Dir, out: &str, engines: &str, sprt: &str, rounds: u32) -> PathBuf {
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: sprt
seed: 11
rounds: {rounds}
concurrency: 2
time_control: {{ depth: 2 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 4 }}
engines:
{engines}sprt: {sprt}
output: {out}
",
            out = dir.path(out).display(),
        ),
    )
}

fn strong_vs_random() -> String {
    format!(
        "  - {{ name: alphabeta, command: {} }}\n  - {{ name: random, command: {} }}\n",
        engine("alphabeta"),
        engine("random")
    )
}

/// sprt.csv's rows as (pairs, games, llr, lower, upper).
fn trace(path: &Path) -> Vec<(u64, u64, f64, f64, f64)> {
    let text = fs::read_to_string(path).expect("sprt.csv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("pairs,games,llr,lower,upper,elo,elo_ci_low,elo_ci_high,repeated_pairs")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 9, "{l}");
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_strong_engine_is_accepted_early_and_a_resume_stops_at_once() {
    let dir = Dir::new();
    let path = config(
        &dir,
        "h1",
        &strong_vs_random(),
        "{ elo0: 0, elo1: 100, model: logistic }",
        100,
    );
    let out = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("SPRT [0, 100] logistic: LLR") && stdout.contains("H1 accepted after"),
        "{stdout}"
    );
    let games = read_games(&dir.path("h1/games.csv"));
    assert!(games.len() < 100, "{} games of at most 200", games.len());
    let rows = trace(&dir.path("h1/sprt.csv"));
    let crossing = rows
        .iter()
        .position(|r| r.2 >= r.4)
        .expect("a row crosses the upper bound");
    // The bounds are Wald's for alpha = beta = 0.05.
    assert!((rows[0].4 - 19f64.ln()).abs() < 1e-3 && (rows[0].3 + 19f64.ln()).abs() < 1e-3);
    // Pairs counted one by one up to the decision, which ends the trace: the games in flight
    // then are recorded but not counted.
    for (i, r) in rows.iter().enumerate() {
        assert_eq!((r.0, r.1), (i as u64 + 1, 2 * (i as u64 + 1)));
    }
    assert_eq!(crossing, rows.len() - 1, "{rows:?}");
    assert!(rows[crossing].1 <= games.len() as u64);
    assert!(
        stdout.contains(&format!("H1 accepted after {} games", rows[crossing].1)),
        "{stdout}"
    );

    // Run again: the test is decided, no game is played, the trace is the same.
    let again = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&again.get_output().stdout).into_owned();
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    assert_eq!(read_games(&dir.path("h1/games.csv")).len(), games.len());
    assert_eq!(trace(&dir.path("h1/sprt.csv")), rows);
}

/// Two copies of the deterministic `alphabeta` (depth 2) on Awale 6 from 4-ply random
/// openings, 12 rounds: both legs of a pair are the same game with the names swapped, so
/// every pair scores exactly 1–1, whatever order the games finish in. Under `[0, 120]`
/// logistic the LLR after n such pairs is about −0.40·n: −2.82 after 7, −3.22 after 8, so the
/// test accepts H0 at exactly the 8th pair (16 games). `sprt` is `None` for the same
/// tournament without the test (every game played).
fn self_play(dir: &Dir, out: &str, sprt: Option<&str>, concurrency: u32) -> PathBuf {
    let ab = engine("alphabeta");
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: sprt
seed: 11
rounds: 12
concurrency: {concurrency}
time_control: {{ depth: 2 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 4 }}
engines:
  - {{ name: new, command: {ab} }}
  - {{ name: old, command: {ab} }}
{sprt}output: {out}
",
            sprt = sprt.map_or_else(String::new, |s| format!("sprt: {s}\n")),
            out = dir.path(out).display(),
        ),
    )
}

const SELF_SPRT: &str = "{ elo0: 0, elo1: 120, model: logistic }";

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// Lines of a games.csv: the header and the rows, as text.
fn csv_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

// See: issue 23, audit item 13 (it accepted "H0, or all 24 games played").
#[test]
fn an_engine_against_itself_is_rejected_at_a_known_pair() {
    let dir = Dir::new();
    let path = self_play(&dir, "self", Some(SELF_SPRT), 2);
    let out = arena().arg("run").arg(&path).assert().success();
    let stdout = stdout_of(&out);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stdout
            .contains("SPRT [0, 120] logistic: LLR -3.22 (-2.94, 2.94) H0 accepted after 16 games"),
        "{stdout}"
    );
    // One decision line in all (issue 23, item 10): not on stderr as well.
    assert_eq!(stdout.matches("accepted").count(), 1, "{stdout}");
    assert!(!stderr.contains("accepted"), "{stderr}");
    // The test stops counting at its decision: sprt.csv ends there, whatever was in flight.
    let rows = trace(&dir.path("self/sprt.csv"));
    assert_eq!(rows.len(), 8, "{rows:?}");
    assert_eq!((rows[7].0, rows[7].1), (8, 16));
    assert!(rows[7].2 <= rows[7].3 && rows[6].2 > rows[6].3, "{rows:?}");
    // The report gives the same count.
    let html = fs::read_to_string(dir.path("self/report.html")).unwrap();
    assert!(
        html.contains("H0 accepted after 16 games (8 pairs)"),
        "report.html"
    );
    // More games may be recorded (in flight, or finished before the run saw the decision).
    assert!(read_games(&dir.path("self/games.csv")).len() >= 16);
}

/// An output directory of the SPRT tournament whose games.csv holds `rows` (of the same
/// schedule), as a run interrupted with those games finished leaves it.
fn interrupted_at(dir: &Dir, name: &str, header: &str, rows: &[&String]) -> PathBuf {
    let path = self_play(dir, name, Some(SELF_SPRT), 1);
    // The other files of a run of this config (config.resolved.yaml, plays.yaml…).
    arena().args(["run", "-q"]).arg(&path).assert().success();
    let mut text = format!("{header}\n");
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    fs::write(dir.path(&format!("{name}/games.csv")), text).unwrap();
    fs::remove_file(dir.path(&format!("{name}/moves.csv"))).ok();
    path
}

// See: issue 23, audit item 5: Ctrl-C after the decision, with a game in flight, left a
// sprt.csv without the pair that game completed in a run that was not interrupted.
// Deterministic: the interrupted directories are written from the rows of a full run.
#[test]
fn an_interrupted_sprt_resumes_to_the_uninterrupted_trace() {
    let dir = Dir::new();
    // Every game of the schedule, in order: pair p is rows 2p and 2p + 1.
    let full = self_play(&dir, "full", None, 1);
    arena().args(["run", "-q"]).arg(&full).assert().success();
    let lines = csv_lines(&dir.path("full/games.csv"));
    let (header, rows) = (&lines[0], &lines[1..]);
    assert_eq!(rows.len(), 24);
    let pair = |p: usize| [&rows[2 * p], &rows[2 * p + 1]];

    // Uninterrupted: pair 8's first leg finished early, pair 7 decided (the 8th pair), and
    // pair 8's second leg was in flight then and finished after the decision.
    let mut finished: Vec<&String> = (0..7).flat_map(pair).collect();
    finished.push(pair(8)[0]);
    finished.extend(pair(7));
    finished.push(pair(8)[1]);
    let whole = interrupted_at(&dir, "whole", header, &finished);
    // Interrupted: Ctrl-C killed that last game in flight.
    let cut = interrupted_at(&dir, "cut", header, &finished[..finished.len() - 1]);
    // Interrupted long before the decision: the resume plays on to it.
    let early = interrupted_at(&dir, "early", header, &finished[..5]);

    let mut traces = Vec::new();
    for (path, name, games) in [(&whole, "whole", 18), (&cut, "cut", 17)] {
        let out = arena().arg("run").arg(path).assert().success();
        assert!(
            stdout_of(&out).contains("H0 accepted after 16 games"),
            "{name}"
        );
        // A decided test starts no game.
        assert_eq!(
            read_games(&dir.path(&format!("{name}/games.csv"))).len(),
            games
        );
        traces.push(fs::read_to_string(dir.path(&format!("{name}/sprt.csv"))).unwrap());
    }
    let out = arena().arg("run").arg(&early).assert().success();
    assert!(stdout_of(&out).contains("H0 accepted after 16 games"));
    traces.push(fs::read_to_string(dir.path("early/sprt.csv")).unwrap());
    assert_eq!(traces[0].lines().count(), 1 + 8, "{}", traces[0]);
    assert_eq!(
        traces[0], traces[1],
        "the cut game's pair is not in the test either"
    );
    assert_eq!(traces[0], traces[2]);
}

#[test]
fn sprt_config_errors_name_the_key() {
    let dir = Dir::new();
    let three = format!(
        "{}  - {{ name: greedy, command: {} }}\n",
        strong_vs_random(),
        engine("greedy")
    );
    let path = config(&dir, "three", &three, "{ elo0: 0, elo1: 5 }", 2);
    let out = arena().arg("check").arg(&path).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("sprt: needs exactly two engines"),
        "{stderr}"
    );

    for (sprt, want) in [
        ("{ elo0: 5, elo1: 0 }", "elo0 (5) must be below elo1 (0)"),
        (
            "{ elo0: 0, elo1: 5, alpha: 0.5 }",
            "alpha must be in (0, 0.5)",
        ),
        ("{ elo0: 0, elo1: 5, beta: 0 }", "beta must be in (0, 0.5)"),
        ("{ elo0: 0, elo1: 5, model: elo }", "unknown variant `elo`"),
    ] {
        let path = config(&dir, "bad", &strong_vs_random(), sprt, 2);
        let out = arena().arg("check").arg(&path).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(want) && stderr.contains("bad.yaml: line 11"),
            "{sprt}: {stderr}"
        );
    }
}

#[test]
fn the_calculator_prints_llr_bounds_and_decision() {
    let out = arena()
        .args(["sprt", "--elo0", "-1.75", "--elo1", "0.25"])
        .args(["--penta", "127,4883,10712,5150,104"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "SPRT [-1.75, 0.25] normalized: LLR 3.01 (-2.94, 2.94) H1 accepted after 20976 game pairs\n"
    );
    let out = arena()
        .args(["sprt", "--elo0", "0", "--elo1", "2", "--model", "bayesian"])
        .args(["--wdl", "68965,128429,68526"])
        .assert()
        .success();
    assert!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .contains("bayesian: LLR -1.26 (-2.94, 2.94) continue after 265920 games")
    );
    arena()
        .args(["sprt", "--elo0", "0", "--elo1", "2", "--model", "bayesian"])
        .args(["--penta", "1,2,3,4,5"])
        .assert()
        .code(2);
    arena()
        .args(["sprt", "--elo0", "0", "--elo1", "2", "--wdl", "1,2"])
        .assert()
        .code(2);
}
