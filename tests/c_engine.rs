//! The C engine skeleton (`engines/c/`), built with its own Makefile and warnings as errors, plays
//! every board type of the three games through the real binary without a single illegal move, and
//! passes `arena check-engine`.

mod util;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use arena::record::Termination;
use util::{Dir, arena, engine, read_games};

#[test]
fn the_c_engine_plays_every_game_and_board_type_legally() {
    let dir = Dir::new();
    let binary = dir.path("c_engine");
    let status = Command::new("make")
        .arg("-C")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/c"))
        .arg(format!("OUT={}", binary.display()))
        .arg("CFLAGS=-std=c99 -O2 -Wall -Wextra -pedantic -Werror")
        .status()
        .expect("make runs (install make and gcc; .ci/run does)");
    assert!(status.success(), "make -C engines/c failed");
    let config = dir.write(
        "c.yaml",
        &format!(
            "seed: 7
concurrency: 2
rounds: 3
time_control: {{ depth: 1, move_timeout_ms: 20000 }}
boards:
  - {{ game: seven_colors, size: 8, layout: random }}
  - {{ game: seven_colors, size: 9, layout: diagonal }}
  - {{ game: seven_colors, size: 8, topology: torus, random_opening_plies: 3 }}
  - {{ game: amazons, shape: square, width: 6 }}
  - {{ game: amazons, shape: donut, width: 9, random_opening_plies: 3 }}
  - {{ game: amazons, shape: clover, width: 10 }}
  - {{ game: amazons, shape: eight, width: 8, random_opening_plies: 1 }}
  - {{ game: awale, pits: 6 }}
  - {{ game: awale, pits: 3, seeds: 2, grand_slam: capture }}
  - {{ game: awale, pits: 4, seeds: 3, grand_slam: forbidden, random_opening_plies: 3 }}
  - {{ game: awale, pits: 10, seeds: 1, random_opening_plies: 2 }}
engines:
  - {{ name: c, command: {c} }}
  - {{ name: random, command: {random} }}
output: {out}
",
            c = binary.display(),
            random = engine("random"),
            out = dir.path("out").display()
        ),
    );
    let out = arena().arg("check").arg(&config).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("(c-random) by arena C template"),
        "{stdout}"
    );
    arena().args(["run", "-q"]).arg(&config).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 11 * 3 * 2);
    for game in &games {
        assert!(
            matches!(
                game.termination,
                Termination::Normal | Termination::MaxPlies
            ),
            "{} {} vs {}: {:?} {}",
            game.board,
            game.first,
            game.second,
            game.termination,
            game.detail
        );
    }
    let played: BTreeSet<&str> = games.iter().map(|g| g.game.as_str()).collect();
    assert_eq!(played.len(), 3);

    // The template an author copies passes the conformance battery with no failure.
    let out = arena()
        .args(["check-engine", "--quick", "--json", "--margin", "1000"])
        .arg("--config")
        .arg(&config)
        .args(["--engine", "c", "--boards", "builtin"])
        .output()
        .expect("run arena check-engine");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let checks = json[0]["checks"].as_array().expect("checks");
    let failed: Vec<&serde_json::Value> =
        checks.iter().filter(|c| c["verdict"] == "fail").collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(out.status.code(), Some(0));
    let positions = checks
        .iter()
        .filter(|c| {
            c["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("positions "))
        })
        .count();
    assert_eq!(
        positions, 12,
        "every built-in board type of the three games"
    );
}
