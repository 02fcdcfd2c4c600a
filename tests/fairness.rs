//! First-player advantage per board (boards.csv, report.html) and rank probabilities
//! (ranks.csv) from real runs (issue 27).

mod util;

use std::collections::BTreeMap;
use std::fs;

use util::{Dir, arena, engine};

fn run(dir: &Dir, board: &str, engine_name: &str) -> Vec<BTreeMap<String, String>> {
    let cfg = dir.write(
        "t.yaml",
        &format!(
            "name: t\nseed: 3\nconcurrency: 2\nrounds: 100\ntime_control: {{ movetime_ms: 20 }}\n\
             boards:\n  - {board}\nengines:\n  - {{ name: a, command: {e} }}\n  - {{ name: b, command: {e} }}\n\
             output: {}\n",
            dir.path("out").display(),
            e = engine(engine_name)
        ),
    );
    arena().arg("run").arg(&cfg).assert().success();
    util::csv_rows(&dir.path("out/boards.csv"))
}

fn number(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column}: {row:?}"))
}

// See: issue 27, first-player advantage.
#[test]
fn the_diagonal_board_gives_the_first_player_a_large_advantage() {
    let dir = Dir::new();
    let rows = run(
        &dir,
        "{ game: seven_colors, size: 10, layout: diagonal }",
        "greedy",
    );
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["n_eff"], "100", "{row:?}");
    assert!(number(row, "first_elo_ci_low") > 400.0, "{row:?}");
    let html = fs::read_to_string(dir.path("out/report.html")).unwrap();
    assert!(
        html.contains("first-player advantage (Elo)") && html.contains("863.4"),
        "the boards table shows it"
    );
    // Rank probabilities: one row per engine and scope, each summing to 100% (0.1 rounding).
    let ranks = fs::read_to_string(dir.path("out/ranks.csv")).unwrap();
    let mut lines = ranks.lines();
    assert_eq!(lines.next(), Some("scope,engine,p1,p2,expected_rank"));
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let sum: f64 = cells[2..4].iter().map(|c| c.parse::<f64>().unwrap()).sum();
        assert!((sum - 100.0).abs() <= 0.1 + 1e-9, "{line}");
    }
    assert!(html.contains("Rank probabilities"));
}

// See: issue 27, first-player advantage.
#[test]
fn a_colour_symmetric_random_pair_on_awale_shows_no_advantage() {
    let dir = Dir::new();
    let rows = run(&dir, "{ game: awale, pits: 6 }", "random");
    let row = &rows[0];
    assert_eq!(row["n_eff"], "100", "{row:?}");
    assert!(
        number(row, "first_elo_ci_low") < 0.0 && number(row, "first_elo_ci_high") > 0.0,
        "{row:?}"
    );
    let draws = (
        number(row, "draw_ci_low"),
        number(row, "draw_pct"),
        number(row, "draw_ci_high"),
    );
    assert!(draws.0 <= draws.1 && draws.1 <= draws.2, "{row:?}");
}
