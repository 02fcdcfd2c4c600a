//! SPRT through the binary: an early stop with H1 for a real strength difference, never H1 for
//! an engine against itself, resume of a decided or interrupted test, config errors and the
//! `arena sprt` calculator.

mod util;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
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
        Some("pairs,games,llr,lower,upper,elo,elo_ci_low,elo_ci_high")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 8, "{l}");
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
    // Pairs counted one by one, every game recorded (also those finished after the crossing,
    // one leg of a pair at most left alone); the decision is the first crossing's.
    for (i, r) in rows.iter().enumerate() {
        assert_eq!((r.0, r.1), (i as u64 + 1, 2 * (i as u64 + 1)));
    }
    assert!(rows.last().unwrap().1 + 1 >= games.len() as u64);
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

#[test]
fn an_engine_against_itself_is_never_accepted_as_stronger() {
    let dir = Dir::new();
    let ab = engine("alphabeta");
    let engines =
        format!("  - {{ name: new, command: {ab} }}\n  - {{ name: old, command: {ab} }}\n");
    let path = config(&dir, "self", &engines, "{ elo0: 0, elo1: 20 }", 12);
    let out = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!stdout.contains("H1 accepted"), "{stdout}");
    assert!(
        stdout.contains("H0 accepted") || read_games(&dir.path("self/games.csv")).len() == 24,
        "{stdout}"
    );
    let rows = trace(&dir.path("self/sprt.csv"));
    assert!(rows.iter().all(|r| r.2 < r.4), "{rows:?}");
}

#[test]
fn an_interrupted_sprt_resumes_to_a_decision() {
    let dir = Dir::new();
    let path = config(
        &dir,
        "int",
        &strong_vs_random(),
        "{ elo0: 0, elo1: 100, model: logistic, pentanomial: false }",
        100,
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "-q"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let games = dir.path("int/games.csv");
    let started = Instant::now();
    while fs::read_to_string(&games).map_or(0, |t| t.lines().count()) < 4
        && child.try_wait().unwrap().is_none()
    {
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        thread::sleep(Duration::from_millis(20));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let status = child.wait().unwrap();
    let partial = read_games(&games).len();
    // Interrupted (130), or already decided (0): a decision can land between the 4th game and
    // the signal on a loaded machine, and the games in flight then still finish under Ctrl-C.
    assert!(matches!(status.code(), Some(0 | 130)), "{status:?}");
    let out = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("H1 accepted"), "{stdout}");
    let all = read_games(&games).len();
    assert!(all >= partial && all < 200, "{partial} then {all} games");
    // Trinomial: one row per game pair still, each counting both games (a lone leg played
    // after the decision is recorded, not counted).
    let rows = trace(&dir.path("int/sprt.csv"));
    let counted = rows.last().unwrap().1;
    assert!(
        counted == all as u64 || counted + 1 == all as u64,
        "{counted} of {all}"
    );
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
