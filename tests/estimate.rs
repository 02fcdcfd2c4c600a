//! `arena check`'s time estimate against the real run: depth-limited engines, whose time per
//! move `check` measures, so the estimate must land within a factor 3 of the run's duration.
//! The assertion compares the two numbers (the estimate printed, the run measured), never a
//! duration against a fixed threshold.

mod util;

use std::time::Instant;

use util::{Dir, arena, engine};

/// The seconds of the first `(S s)` in `text`, as in `estimated time: about 6 s (6.2 s) …`.
fn seconds(text: &str) -> f64 {
    text.split('(')
        .find_map(|part| part.split_once(" s)")?.0.parse().ok())
        .unwrap_or_else(|| panic!("no seconds in {text}"))
}

/// The seconds of `check`'s estimate line.
fn estimate(stdout: &str) -> f64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("estimated time: about "))
        .unwrap_or_else(|| panic!("no estimate in {stdout}"));
    seconds(line)
}

#[test]
fn the_estimate_of_check_is_within_a_factor_3_of_the_run() {
    let dir = Dir::new();
    let config = dir.write(
        "t.yaml",
        &format!(
            "seed: 3
rounds: 6
concurrency: 2
time_control: {{ depth: 7 }}
boards:
  - {{ game: awale, pits: 6 }}
  - {{ game: seven_colors, size: 10 }}
engines:
  - {{ name: alphabeta, command: {ab} }}
  - {{ name: greedy, command: {greedy} }}
output: {out}
",
            ab = engine("alphabeta"),
            greedy = engine("greedy"),
            out = dir.path("out").display()
        ),
    );
    let out = arena().arg("check").arg(&config).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let estimated = estimate(&stdout);
    assert!(stdout.contains("24 games in all"), "{stdout}");
    let started = Instant::now();
    arena().args(["run", "-q"]).arg(&config).assert().success();
    let took = started.elapsed().as_secs_f64();
    let ratio = estimated / took;
    assert!(
        (1.0 / 3.0..=3.0).contains(&ratio),
        "estimated {estimated:.2} s, ran {took:.2} s: {stdout}"
    );
}

#[test]
fn an_sprt_estimate_gives_the_expected_games_at_elo0_and_elo1_and_the_maximum() {
    let dir = Dir::new();
    let config = dir.write(
        "s.yaml",
        &format!(
            "seed: 1
rounds: 20000
time_control: {{ depth: 2 }}
boards: [{{ game: awale, pits: 6 }}]
engines:
  - {{ name: a, command: {a} }}
  - {{ name: b, command: {b} }}
sprt: {{ elo0: 0, elo1: 5, model: normalized }}
output: {out}
",
            a = engine("alphabeta"),
            b = engine("greedy"),
            out = dir.path("out").display()
        ),
    );
    let out = arena().arg("check").arg(&config).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("estimated time: "))
        .expect("estimate");
    // Wald at [0, 5] nElo, α = β = 0.05: about 25,600 games, more than the 40,000 maximum's
    // 64%; the maximum is named beside them.
    assert!(
        line.contains("if the difference is elo0 (25")
            && line.contains("if it is elo1 (25")
            && line.contains("for all 40000 games"),
        "{line}"
    );
    let expected = estimate(&stdout);
    let max = seconds(line.split("at most ").nth(1).expect("maximum"));
    let share = expected / max;
    assert!((0.6..0.7).contains(&share), "{share}: {line}");
}
