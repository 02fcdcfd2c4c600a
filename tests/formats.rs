//! Swiss and knockout through the binary: pairings round by round, byes, colour-swapped
//! pairs, resume after a kill, tie-breaks, `arena check` and the refusal to shard.

mod util;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use util::{Dir, arena, engine, read_games, without_timing};

/// A config of `engines` (name, binary, depth) on Awale 6 with `format` lines.
fn config(dir: &Dir, out: &str, format: &str, engines: &[(&str, &str, u32)]) -> PathBuf {
    let list: String = engines
        .iter()
        .map(|(name, bin, depth)| {
            format!(
                "  - {{ name: {name}, command: {}, time_control: {{ depth: {depth} }} }}\n",
                engine(bin)
            )
        })
        .collect();
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: {out}\nseed: 11\nconcurrency: 2\ntime_control: {{ depth: 1 }}\nboards:\n  - {{ game: awale, pits: 6, random_opening_plies: 2 }}\n{format}engines:\n{list}output: {}\n",
            dir.path(out).display()
        ),
    )
}

const NINE: [(&str, &str, u32); 9] = [
    ("ab3", "alphabeta", 3),
    ("ab2", "alphabeta", 2),
    ("ab1", "alphabeta", 1),
    ("greedy", "greedy", 1),
    ("mcts", "mcts", 1),
    ("r1", "random", 1),
    ("r2", "random", 1),
    ("r3", "random", 1),
    ("r4", "random", 1),
];

/// The rows of a CSV file as maps of column to value.

#[test]
fn a_swiss_of_9_engines_pairs_every_engine_each_round_without_rematches() {
    let dir = Dir::new();
    let path = config(&dir, "swiss", "format: swiss\nrounds: 4\n", &NINE);
    let out = arena().args(["run"]).arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("Swiss standings after 4 of 4 rounds"),
        "{stdout}"
    );
    let games = read_games(&dir.path("swiss/games.csv"));
    assert_eq!(games.len(), 4 * 4 * 2);
    let rows = util::csv_rows(&dir.path("swiss/swiss.csv"));
    let mut met = BTreeSet::new();
    let mut byes = BTreeMap::new();
    for round in 1..=4 {
        let mut seen = Vec::new();
        for row in rows.iter().filter(|r| r["round"] == round.to_string()) {
            let (a, b) = (row["engine_a"].clone(), row["engine_b"].clone());
            if row["pairing"] == "bye" {
                *byes.entry(a.clone()).or_insert(0) += 1;
                seen.push(a);
                continue;
            }
            assert!(
                met.insert(BTreeSet::from([a.clone(), b.clone()])),
                "rematch {a}-{b}"
            );
            assert_eq!(row["games"], "2");
            seen.extend([a, b]);
        }
        seen.sort();
        let mut all: Vec<String> = NINE.iter().map(|e| e.0.to_owned()).collect();
        all.sort();
        assert_eq!(seen, all, "round {round}: each engine plays or has the bye");
    }
    assert_eq!(byes.len(), 4, "four different byes: {byes:?}");
    // Every game pair: the same start, colours swapped.
    let mut pairs: BTreeMap<u64, Vec<_>> = BTreeMap::new();
    for g in &games {
        pairs.entry(g.pair).or_default().push(g);
    }
    assert_eq!(pairs.len(), 16);
    for legs in pairs.values() {
        assert_eq!(legs.len(), 2);
        assert_eq!(
            (legs[0].first.as_str(), legs[0].second.as_str()),
            (legs[1].second.as_str(), legs[1].first.as_str())
        );
        assert_eq!(legs[0].start_fen, legs[1].start_fen);
    }
    // Points after the last round add up: 4 pairings (1 point each) a round, plus a bye of 1.
    let standings = util::csv_rows(&dir.path("swiss/swiss_standings.csv"));
    assert_eq!(standings.len(), 9);
    let total: f64 = standings
        .iter()
        .map(|r| r["points"].parse::<f64>().unwrap())
        .sum();
    assert_eq!(total, 4.0 * 5.0);
    // Extending to 5 rounds appends the fifth and replays nothing.
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("rounds: 4", "rounds: 5");
    fs::write(&path, text).unwrap();
    arena().args(["run", "-q"]).arg(&path).assert().success();
    let more = read_games(&dir.path("swiss/games.csv"));
    assert_eq!(more.len(), 5 * 4 * 2);
    assert_eq!(without_timing(more[..32].to_vec()), without_timing(games));
}

/// Waits until `path` holds at least `rows` data rows, or the run ends.
fn wait_for_rows(child: &mut std::process::Child, path: &Path, rows: usize) {
    let started = Instant::now();
    loop {
        let have = fs::read_to_string(path).map_or(0, |t| t.lines().count().saturating_sub(1));
        if have >= rows || child.try_wait().unwrap().is_some() {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_swiss_killed_after_round_2_resumes_to_the_uninterrupted_run() {
    let dir = Dir::new();
    let field: Vec<(&str, &str, u32)> = vec![
        ("a4", "alphabeta", 4),
        ("a3", "alphabeta", 3),
        ("a2", "alphabeta", 2),
        ("a1", "alphabeta", 1),
        ("b3", "alphabeta", 3),
        ("b2", "alphabeta", 2),
    ];
    let format = "format: swiss\nrounds: 4\n";
    let clean = config(&dir, "clean", format, &field);
    arena().args(["run", "-q"]).arg(&clean).assert().success();
    let clean_games = without_timing(read_games(&dir.path("clean/games.csv")));
    assert_eq!(clean_games.len(), 4 * 3 * 2);

    let killed = config(&dir, "killed", format, &field);
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "-q"])
        .arg(&killed)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Two rounds of 6 games, then the kill (in round 3).
    wait_for_rows(&mut child, &dir.path("killed/games.csv"), 12);
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = read_games(&dir.path("killed/games.csv"));
    assert!(
        partial.len() >= 12 && partial.len() < 24,
        "{} rows",
        partial.len()
    );
    let out = arena().args(["run"]).arg(&killed).assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!("resuming: {} of", partial.len())),
        "{stderr}"
    );
    assert!(
        !dir.path("killed/games.dropped.csv").exists(),
        "nothing set aside"
    );
    assert_eq!(
        without_timing(read_games(&dir.path("killed/games.csv"))),
        clean_games
    );
    assert_eq!(
        fs::read_to_string(dir.path("killed/swiss.csv")).unwrap(),
        fs::read_to_string(dir.path("clean/swiss.csv")).unwrap()
    );
}

#[test]
fn a_knockout_of_equal_engines_plays_every_tiebreak_and_seeds_decide() {
    let dir = Dir::new();
    // One deterministic engine six times: both games of a pair are the same game with the
    // names swapped, so every match is tied after each pair.
    let field: Vec<(&str, &str, u32)> = ["s1", "s2", "s3", "s4", "s5", "s6"]
        .iter()
        .map(|n| (*n, "alphabeta", 1))
        .collect();
    let path = config(&dir, "ko", "format: knockout\ntiebreak_pairs: 2\n", &field);
    let out = arena().args(["run"]).arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("winner: s1"), "{stdout}");
    // 5 matches of 1 + 2 pairs.
    assert_eq!(read_games(&dir.path("ko/games.csv")).len(), 5 * 3 * 2);
    let rows = util::csv_rows(&dir.path("ko/knockout.csv"));
    let matches: Vec<_> = rows.iter().filter(|r| !r["engine_b"].is_empty()).collect();
    assert_eq!(matches.len(), 5);
    for m in &matches {
        assert_eq!(m["tiebreak_pairs"], "2", "{m:?}");
        assert_eq!(m["score_a"], m["score_b"]);
        assert_eq!(m["winner"], m["engine_a"], "the higher seed: {m:?}");
    }
    let byes: Vec<&str> = rows
        .iter()
        .filter(|r| r["engine_b"].is_empty())
        .map(|r| r["engine_a"].as_str())
        .collect();
    assert_eq!(byes, ["s1", "s2"]);
    let html = fs::read_to_string(dir.path("ko/report.html")).unwrap();
    assert!(
        html.contains("class=\"bracket\""),
        "no bracket in report.html"
    );
    // Inside the drawing itself: every engine by seed and name, and the champion's box.
    let start = html.find("class=\"bracket\"").unwrap();
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    for seed in 1..=6 {
        assert!(
            svg.contains(&format!(">{seed}. s{seed}<")),
            "bracket lacks s{seed}"
        );
    }
}

#[test]
fn check_prints_round_1_and_shards_are_refused() {
    let dir = Dir::new();
    let field = &NINE[..5];
    let path = config(&dir, "chk", "format: swiss\nrounds: 3\n", field);
    let out = arena().arg("check").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("swiss: 3 round(s) of 2 pairing(s), 1 game pair(s) each: 12 games"),
        "{stdout}"
    );
    // Top half against bottom half of the seeded order; the bye to the last seed.
    assert!(stdout.contains("1. ab3 – ab1"), "{stdout}");
    assert!(stdout.contains("2. ab2 – greedy"), "{stdout}");
    assert!(stdout.contains("bye: mcts"), "{stdout}");
    let ko = config(&dir, "kochk", "format: knockout\n", field);
    let out = arena().arg("check").arg(&ko).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("knockout: bracket of 8 (3 bye(s)), 3 round(s)"),
        "{stdout}"
    );
    assert!(stdout.contains("8 to 32 games"), "{stdout}");
    let out = arena()
        .args(["run", "--shard", "1/2"])
        .arg(&path)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("format: swiss cannot be split into shards"),
        "{stderr}"
    );
    assert!(!dir.path("chk/games.csv").exists());
    let out = arena()
        .args(["slurm", "--shards", "2", "--output"])
        .arg(dir.path("slurm"))
        .arg(&ko)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("format: knockout cannot be split into shards"),
        "{stderr}"
    );
}
