//! Opening suites through the binary: bad suites stop a run before any game with the file and
//! line; games.csv start positions follow the suite (sequential from `start`, wrapping; random
//! reproducibly, every opening once a pass), the same for every engine pair and both legs; an
//! edited suite is a resume conflict; `arena openings` output is deterministic, reads back as a
//! suite and can be filtered by an engine's score.

mod util;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use arena::games::{AnyPosition, BoardSpec};
use util::{Dir, arena, engine, read_games};

const START6: &str = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture";

/// A config with one Awale board using `openings` and three engines (three pairs a round).
fn config(dir: &Dir, name: &str, board: &str, rounds: u32) -> std::path::PathBuf {
    dir.write(
        &format!("{name}.yaml"),
        &format!(
            "name: {name}
seed: 11
rounds: {rounds}
concurrency: 2
time_control: {{ depth: 1 }}
boards:
  - {board}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy} }}
  - {{ name: alphabeta, command: {alphabeta} }}
output: {out}
",
            random = engine("random"),
            greedy = engine("greedy"),
            alphabeta = engine("alphabeta"),
            out = dir.path(name).display(),
        ),
    )
}

fn awale6() -> BoardSpec {
    serde_yaml::from_str("{game: awale, pits: 6}").unwrap()
}

/// The position after `moves` from `fen`.
fn after(fen: &str, moves: &[&str]) -> String {
    let mut pos = AnyPosition::from_fen(arena::games::GameKind::Awale, fen).unwrap();
    for mv in moves {
        pos.play_text(mv).unwrap();
    }
    pos.fen()
}

#[test]
fn a_bad_suite_stops_the_run_before_any_game_naming_file_and_line() {
    let dir = Dir::new();
    let cases = [
        (
            format!("# suite\n{START6}\n\n4,4,4,4,4,4/4,4,4,4,4,x 0,0 1 no_capture\n"),
            ":4: invalid awale position",
        ),
        (
            format!("{START6} moves 3\n4,4,4,4/4,4,4,4 0,0 1 no_capture\n"),
            ":2: not a position of board awale-6: 4 pits a row, the board has 6",
        ),
        (
            format!("{START6} moves 3 4 9\n"),
            ":1: move 3 of the line: ",
        ),
        (
            "AB2/CDC/1FA 1 plane\n".to_owned(),
            ":1: a seven_colors position, but board awale-6 is awale",
        ),
        (
            "# nothing here\n\n   # really\n".to_owned(),
            ": no opening: every line is blank or a comment",
        ),
    ];
    for (i, (suite, message)) in cases.iter().enumerate() {
        let file = dir.write(&format!("bad{i}.txt"), suite);
        let cfg = config(
            &dir,
            &format!("bad{i}"),
            &format!(
                "{{ game: awale, pits: 6, openings: {{ file: {} }} }}",
                file.display()
            ),
            1,
        );
        let out = arena().arg("run").arg("-q").arg(&cfg).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        let expected = format!(
            "error: {}: boards[0] (awale-6): openings: {}{message}",
            cfg.display(),
            file.display()
        );
        assert!(stderr.starts_with(&expected), "{stderr}\nlacks\n{expected}");
        assert!(!dir.path(&format!("bad{i}")).join("games.csv").exists());
    }
    // Missing file, start past the suite, and openings with random opening plies.
    let good = dir.write("good.txt", &format!("{START6}\n{START6} moves 1\n"));
    let refused = [
        (
            format!(
                "{{ game: awale, pits: 6, openings: {{ file: {} }} }}",
                dir.path("none.txt").display()
            ),
            "none.txt: cannot read",
        ),
        (
            format!(
                "{{ game: awale, pits: 6, openings: {{ file: {}, start: 3 }} }}",
                good.display()
            ),
            "start 3 is not an opening number: the suite has 2 (1..=2)",
        ),
        (
            format!(
                "{{ game: awale, pits: 6, random_opening_plies: 2, openings: {{ file: {} }} }}",
                good.display()
            ),
            "openings and random_opening_plies exclude each other",
        ),
    ];
    for (i, (board, message)) in refused.iter().enumerate() {
        let cfg = config(&dir, &format!("refused{i}"), board, 1);
        let out = arena().arg("run").arg("-q").arg(&cfg).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{stderr} lacks {message}");
    }
}

/// games.csv start positions by round; asserts every game of a round (every engine pair, both
/// legs) has the same one.
fn starts_by_round(out: &Path) -> BTreeMap<u32, String> {
    let games = read_games(&out.join("games.csv"));
    let mut by_round: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    let mut legs: BTreeMap<u64, BTreeSet<String>> = BTreeMap::new();
    for g in &games {
        by_round
            .entry(g.round)
            .or_default()
            .insert(g.start_fen.clone());
        legs.entry(g.pair).or_default().insert(g.start_fen.clone());
    }
    assert!(legs.values().all(|s| s.len() == 1), "legs differ: {legs:?}");
    assert_eq!(
        games.len(),
        by_round.len() * 3 * 2,
        "3 pairs, 2 legs a round"
    );
    by_round
        .into_iter()
        .map(|(round, starts)| {
            assert_eq!(starts.len(), 1, "round {round}: {starts:?}");
            (round, starts.into_iter().next().unwrap())
        })
        .collect()
}

#[test]
fn games_start_from_the_suite_in_order_or_shuffled_reproducibly() {
    let dir = Dir::new();
    let suite = dir.write(
        "suite.txt",
        &format!(
            "# three openings\n{START6} moves 1 1\n\n{START6} moves 2 3 # a comment\n{START6} moves 6 6 1\n"
        ),
    );
    let openings = [
        after(START6, &["1", "1"]),
        after(START6, &["2", "3"]),
        after(START6, &["6", "6", "1"]),
    ];
    // Sequential from opening 2, wrapping: 2, 3, 1, 2, 3.
    let cfg = config(
        &dir,
        "seq",
        &format!(
            "{{ game: awale, pits: 6, openings: {{ file: {}, start: 2 }} }}",
            suite.display()
        ),
        5,
    );
    let check = arena().arg("check").arg(&cfg).assert().code(0);
    let shown = String::from_utf8_lossy(&check.get_output().stdout).into_owned();
    let line = format!(
        "; openings {} (3 openings, sequential from 2)",
        suite.display()
    );
    assert!(shown.contains(&line), "{shown}");
    arena().arg("run").arg("-q").arg(&cfg).assert().code(0);
    let starts = starts_by_round(&dir.path("seq"));
    let expected: Vec<&String> = [1, 2, 0, 1, 2].iter().map(|&i| &openings[i]).collect();
    assert_eq!(starts.values().collect::<Vec<_>>(), expected);
    let resolved = fs::read_to_string(dir.path("seq").join("config.resolved.yaml")).unwrap();
    assert!(resolved.contains("digest: fnv1a64:"), "{resolved}");

    // Random: each pass of 3 rounds plays every opening once; the same seed, the same order.
    let board = format!(
        "{{ game: awale, pits: 6, openings: {{ file: {}, order: random }} }}",
        suite.display()
    );
    let mut runs = Vec::new();
    for name in ["rand1", "rand2"] {
        arena()
            .arg("run")
            .arg("-q")
            .arg(config(&dir, name, &board, 6))
            .assert()
            .code(0);
        runs.push(starts_by_round(&dir.path(name)));
    }
    assert_eq!(runs[0], runs[1]);
    let order: Vec<&String> = runs[0].values().collect();
    for pass in order.chunks(3) {
        let set: BTreeSet<&String> = pass.iter().copied().collect();
        assert_eq!(set, openings.iter().collect(), "{order:?}");
    }

    // Editing the suite makes the finished run's directory a conflict, not a silent mix.
    fs::write(&suite, format!("{START6} moves 1 1\n{START6} moves 2 3\n")).unwrap();
    let out = arena().arg("run").arg("-q").arg(&cfg).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("boards: `awale-6` changed"), "{stderr}");
}

#[test]
fn arena_openings_is_deterministic_and_reads_back_as_a_suite() {
    let generate = |seed: &str| {
        let out = arena()
            .args([
                "openings",
                "--board",
                "{game: awale, pits: 6}",
                "--plies",
                "5",
                "--count",
                "40",
                "--seed",
                seed,
            ])
            .assert()
            .code(0);
        String::from_utf8(out.get_output().stdout.clone()).unwrap()
    };
    let text = generate("7");
    assert_eq!(text, generate("7"), "same seed, same file");
    assert_ne!(text, generate("8"));
    assert!(text.starts_with("# arena opening suite for board awale-6: 40 positions"));
    assert!(text.contains(
        "# made by: arena openings --board '{game: awale, pits: 6}' --plies 5 --count 40 --seed 7\n"
    ));
    let suite = arena::openings::parse(&text, "out", &awale6()).unwrap();
    assert_eq!(suite.openings.len(), 40);
    let distinct: BTreeSet<String> = suite.openings.iter().map(|o| o.position.fen()).collect();
    assert_eq!(distinct.len(), 40);

    // To a file, then used by a run.
    let dir = Dir::new();
    let file = dir.path("gen.txt");
    arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "5",
            "--count",
            "40",
            "--seed",
            "7",
            "--output",
        ])
        .arg(&file)
        .assert()
        .code(0);
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    let cfg = config(
        &dir,
        "gen",
        &format!(
            "{{ game: awale, pits: 6, openings: {{ file: {} }} }}",
            file.display()
        ),
        2,
    );
    arena().arg("run").arg("-q").arg(&cfg).assert().code(0);
    let starts = starts_by_round(&dir.path("gen"));
    assert_eq!(starts[&1], suite.openings[0].position.fen());
    assert_eq!(starts[&2], suite.openings[1].position.fen());

    // Impossible requests and bad usage.
    let out = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "1",
            "--count",
            "7",
            "--seed",
            "1",
        ])
        .assert()
        .code(1);
    assert!(
        stderr(&out).contains("found only 6 distinct openings"),
        "{}",
        stderr(&out)
    );
    arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6, random_opening_plies: 2}",
            "--plies",
            "1",
            "--count",
            "2",
        ])
        .assert()
        .code(2);
    arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "1",
            "--count",
            "2",
            "--engine",
            "x",
        ])
        .assert()
        .code(2);
}

fn stderr(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

/// Audit item 11: too few openings get the advice that fits: more plies than the games last
/// (every draw ends early) asks for fewer plies, never more; more positions than exist
/// (every draw a repeat) asks for fewer openings or more plies.
#[test]
fn too_few_openings_get_the_advice_that_fits() {
    let openings = |plies: &str, count: &str| {
        let out = arena()
            .args(["openings", "--board", "{game: awale, pits: 6}"])
            .args(["--plies", plies, "--count", count, "--seed", "1"])
            .assert()
            .code(1);
        stderr(&out)
    };
    let long = openings("1000", "2");
    assert!(
        long.contains("found only 0 distinct openings")
            && long.contains("over within 1000 plies: ask for fewer --plies")
            && !long.contains("more --plies"),
        "{long}"
    );
    let many = openings("1", "7");
    assert!(
        many.contains("found only 6 distinct openings")
            && many.contains("ask for fewer (--count) or more --plies")
            && !many.contains("fewer --plies"),
        "{many}"
    );
}

#[test]
fn an_engine_filter_keeps_positions_within_the_bound() {
    let dir = Dir::new();
    let cfg = config(&dir, "filter", "{ game: awale, pits: 6 }", 1);
    let out = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "6",
            "--count",
            "8",
            "--seed",
            "3",
            "--config",
        ])
        .arg(&cfg)
        .args([
            "--engine",
            "alphabeta",
            "--max-score",
            "100",
            "--depth",
            "3",
        ])
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("# kept when engine alphabeta (depth 3) scored the position within ±100 cp"),
        "{text}"
    );
    assert_eq!(
        arena::openings::parse(&text, "f", &awale6())
            .unwrap()
            .openings
            .len(),
        8
    );
    // Same seed, tighter bound: fewer candidates pass, so more are scored.
    let scored = |text: &str| -> usize {
        let line = text.lines().find(|l| l.starts_with("# kept when")).unwrap();
        line.split("): ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let tight = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "6",
            "--count",
            "8",
            "--seed",
            "3",
            "--config",
        ])
        .arg(&cfg)
        .args(["--engine", "alphabeta", "--max-score", "10", "--depth", "3"])
        .assert()
        .code(0);
    let tight = String::from_utf8(tight.get_output().stdout.clone()).unwrap();
    assert!(scored(&tight) > scored(&text), "{tight}\n{text}");
    // An engine that reports no score cannot judge balance.
    let out = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "6",
            "--count",
            "8",
            "--seed",
            "3",
            "--config",
        ])
        .arg(&cfg)
        .args(["--engine", "random", "--max-score", "100"])
        .assert()
        .code(1);
    assert!(
        stderr(&out).contains("sent no `info … score cp`"),
        "{}",
        stderr(&out)
    );
}

/// The suites shipped in `openings/`, one per default board of configs/round_robin.yaml and
/// configs/smoke.yaml: each reads as a suite of its board, 500 distinct openings, and says in
/// its header which command made it.
#[test]
fn shipped_suites_belong_to_their_boards() {
    let suites = [
        ("awale-6", "{game: awale, pits: 6}"),
        ("awale-10", "{game: awale, pits: 10}"),
        (
            "seven_colors-random-15",
            "{game: seven_colors, size: 15, layout: random}",
        ),
        (
            "seven_colors-diagonal-15",
            "{game: seven_colors, size: 15, layout: diagonal}",
        ),
        ("seven_colors-random-10", "{game: seven_colors, size: 10}"),
        (
            "amazons-square-6",
            "{game: amazons, shape: square, width: 6, queens: 4}",
        ),
        ("amazons-donut-9", "{game: amazons, shape: donut, width: 9}"),
    ];
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings");
    assert_eq!(
        fs::read_dir(&dir).unwrap().count(),
        suites.len(),
        "a suite without a test"
    );
    for (name, board) in suites {
        let file = dir.join(format!("{name}.txt"));
        let text = fs::read_to_string(&file).unwrap();
        let board: BoardSpec = serde_yaml::from_str(board).unwrap();
        assert_eq!(board.name(), name);
        let suite = arena::openings::parse(&text, name, &board).unwrap();
        let distinct: BTreeSet<String> = suite.openings.iter().map(|o| o.position.fen()).collect();
        assert_eq!(distinct.len(), 500, "{name}");
        assert!(
            text.contains("# made by: arena openings --board '"),
            "{name}"
        );
    }
}
