//! End-to-end runs of the real `arena` binary against the real reference engines and the
//! Python template engine, in temporary directories.

mod util;

use std::collections::BTreeMap;
use std::fs;

use arena::games::{AnyPosition, GameKind, Outcome};
use arena::record::{GameRecord, Termination};
use util::{Dir, arena, engine, python_engine, read_games, without_timing};

/// A tournament on all three games, small enough for a debug build.
fn all_games_config(dir: &Dir, time_control: &str, extra: &str) -> String {
    format!(
        "name: e2e
seed: 99
rounds: 1
time_control: {time_control}
boards:
  - {{ game: seven_colors, size: 8, layout: random }}
  - {{ game: seven_colors, size: 8, layout: diagonal }}
  - {{ game: amazons, shape: square, width: 6, queens: 4 }}
  - {{ game: awale, pits: 6, random_opening_plies: 2 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy} }}
  - {{ name: alphabeta, command: {alphabeta}, options: {{ Width: 6, RootWidth: 10 }} }}
  - {{ name: python-random, command: python3, args: [{python}] }}
output: {out}
{extra}",
        random = engine("random"),
        greedy = engine("greedy"),
        alphabeta = engine("alphabeta"),
        python = python_engine(),
        out = dir.path("out").display(),
    )
}

/// Replays a record through the rules library and checks its result, plies and scores.
fn replay(record: &GameRecord) {
    let game: GameKind = record.game.parse().unwrap();
    let mut pos = AnyPosition::from_fen(game, &record.start_fen).unwrap();
    let moves: Vec<&str> = record.moves.split_whitespace().collect();
    assert_eq!(moves.len() as u32, record.plies, "game {}", record.game_id);
    for mv in &moves {
        pos.play_text(mv)
            .unwrap_or_else(|e| panic!("game {}: {e}", record.game_id));
    }
    let outcome = Outcome::from_result_str(&record.result).unwrap();
    match record.termination {
        Termination::Normal => assert_eq!(pos.outcome(), Some(outcome), "game {}", record.game_id),
        Termination::MaxPlies => assert_eq!(pos.adjudicate(), outcome),
        other => panic!(
            "game {} ended by {other}: {}",
            record.game_id, record.detail
        ),
    }
    let scores = pos.scores();
    assert_eq!(scores.map(|s| s.first), record.score_first);
}

#[test]
fn a_tournament_on_all_three_games_with_python_engine() {
    let dir = Dir::new();
    let config = dir.write("t.yaml", &all_games_config(&dir, "{ nodes: 300 }", ""));
    let out = arena()
        .args(["run", "--concurrency", "2"])
        .arg(&config)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("rank  engine"), "{stdout}");

    let games = read_games(&dir.path("out/games.csv"));
    // Seven Colors and Awale: 4 engines play them (6 pairs); Amazons: random, alphabeta and
    // python (3 pairs); two legs each.
    assert_eq!(games.len(), 2 * 6 * 2 + 3 * 2 + 6 * 2);
    let ids: Vec<u64> = games.iter().map(|g| g.game_id).collect();
    assert_eq!(
        ids,
        (0..games.len() as u64).collect::<Vec<_>>(),
        "sorted by id"
    );
    let mut pairs: BTreeMap<u64, Vec<&GameRecord>> = BTreeMap::new();
    for g in &games {
        replay(g);
        pairs.entry(g.pair).or_default().push(g);
    }
    for legs in pairs.values() {
        assert_eq!(legs.len(), 2);
        assert_eq!(legs[0].start_fen, legs[1].start_fen);
        assert_eq!(
            (&legs[0].first, &legs[0].second),
            (&legs[1].second, &legs[1].first)
        );
    }
    assert!(
        games
            .iter()
            .any(|g| g.first == "python-random" && g.game == "amazons")
    );

    let ratings = fs::read_to_string(dir.path("out/ratings.csv")).unwrap();
    assert!(ratings.starts_with("scope,rank,engine,elo,ci_low,ci_high,err95,games,wins,draws,losses,points,score_pct,draw_pct,los_next,flags,n_eff\n"));
    for name in ["random", "greedy", "alphabeta", "python-random"] {
        assert!(
            ratings
                .lines()
                .any(|l| l.starts_with("all,") && l.contains(&format!(",{name},"))),
            "{name}"
        );
    }
    assert!(ratings.contains("board:amazons-square-6,"));
    assert!(ratings.contains("game:awale,"));
    let pgn = fs::read_to_string(dir.path("out/results.pgn")).unwrap();
    assert_eq!(pgn.matches("[White ").count(), games.len());
    assert!(dir.path("out/config.resolved.yaml").exists());
    assert!(
        fs::read_to_string(dir.path("out/pairs.csv"))
            .unwrap()
            .contains("penta_0")
    );

    // `arena ratings` recomputes the same files from games.csv.
    let again = dir.path("again");
    arena()
        .args(["ratings"])
        .arg(dir.path("out/games.csv"))
        .arg("--output")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        fs::read_to_string(again.join("ratings.csv")).unwrap(),
        ratings
    );
}

#[test]
fn results_do_not_depend_on_concurrency() {
    let dir = Dir::new();
    let config = dir.write("t.yaml", &all_games_config(&dir, "{ depth: 2 }", ""));
    arena()
        .args(["run", "-q", "--concurrency", "1"])
        .arg(&config)
        .assert()
        .success();
    let one = read_games(&dir.path("out/games.csv"));
    arena()
        .args(["run", "-q", "--concurrency", "2", "--output"])
        .arg(dir.path("two"))
        .arg(&config)
        .assert()
        .success();
    let two = read_games(&dir.path("two/games.csv"));
    assert_eq!(without_timing(one), without_timing(two));
    assert_eq!(
        fs::read_to_string(dir.path("out/ratings.csv")).unwrap(),
        fs::read_to_string(dir.path("two/ratings.csv")).unwrap()
    );
}

#[test]
fn an_interrupted_run_resumes_to_the_same_result() {
    let dir = Dir::new();
    let config = dir.write("t.yaml", &all_games_config(&dir, "{ depth: 1 }", ""));
    arena().args(["run", "-q"]).arg(&config).assert().success();
    let full = read_games(&dir.path("out/games.csv"));
    // Keep the header, ten rows and half of the next one, as a crash mid-write would.
    let text = fs::read_to_string(dir.path("out/games.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!(
        "{}\n{}",
        lines[..11].join("\n"),
        &lines[11][..lines[11].len() / 2]
    );
    fs::write(dir.path("out/games.csv"), cut).unwrap();
    let out = arena().args(["run", "-q"]).arg(&config).assert().success();
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("dropped"));
    assert_eq!(
        without_timing(read_games(&dir.path("out/games.csv"))),
        without_timing(full)
    );

    // Another config on the same directory is refused, and --force starts afresh.
    let other = dir.write(
        "o.yaml",
        &all_games_config(&dir, "{ depth: 1 }", "").replace("seed: 99", "seed: 100"),
    );
    let refused = arena().args(["run", "-q"]).arg(&other).assert().code(2);
    assert!(String::from_utf8_lossy(&refused.get_output().stderr).contains("--force"));
    arena()
        .args(["run", "-q", "--force"])
        .arg(&other)
        .assert()
        .success();
}

#[test]
fn check_reports_the_plan_and_catches_bad_configs() {
    let dir = Dir::new();
    let good = dir.write(
        "good.yaml",
        &all_games_config(&dir, "{ movetime_ms: 20 }", ""),
    );
    let out = arena().arg("check").arg(&good).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains("board amazons-square-6: 6 games; alphabeta, python-random, random"),
        "{stdout}"
    );
    assert!(stdout.contains("42 games in all"), "{stdout}");
    assert!(!dir.path("out").exists(), "check plays and writes nothing");

    let text = all_games_config(&dir, "{ movetime_ms: 20 }", "");
    let cases = [
        (
            text.replace("layout: diagonal", "layuot: diagonal"),
            "line 7 column 36: boards[1]: unknown field `layuot`",
        ),
        (
            text.replace(&engine("greedy"), "/no/such/greedy"),
            "`/no/such/greedy` does not exist",
        ),
        (
            text.replace(
                &format!("command: {} }}", engine("greedy")),
                &format!("command: {}, games: [amazons] }}", engine("greedy")),
            ),
            "engine greedy: does not play amazons (it declares seven_colors, awale)",
        ),
    ];
    for (config, message) in cases {
        let path = dir.write("bad.yaml", &config);
        let out = arena().arg("check").arg(&path).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{stderr} lacks {message}");
        assert!(
            stderr.contains("bad.yaml") || message.starts_with("engine"),
            "{stderr}"
        );
    }
}

#[test]
fn show_prints_boards_and_errors_exit_2() {
    let out = arena()
        .args([
            "show",
            "--board",
            "{game: awale, pits: 6}",
            "--moves",
            "3",
            "--plain",
        ])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.starts_with("4,4,0,5,5,5/5,4,4,4,4,4 0,0 2 no_capture\n"),
        "{stdout}"
    );
    arena()
        .args([
            "show",
            "--board",
            "{game: amazons, shape: clover, width: 12}",
        ])
        .assert()
        .code(2);
    arena().args(["run"]).assert().code(2);
}

#[test]
fn run_refuses_bad_configs_before_starting_anything() {
    let dir = Dir::new();
    let good = all_games_config(&dir, "{ movetime_ms: 20 }", "");
    let cases = [
        (
            good.replace("rounds: 1", "rounds: two"),
            "line 3 column 1: rounds: invalid type",
        ),
        (
            good.replace("seed: 99", "seed: 99\nsurprise: 1"),
            "line 3 column 1: unknown field `surprise`",
        ),
        (
            good.replace("rounds: 1", "rounds: 1\nconcurrency: 0"),
            "concurrency must be in 1..=1024, got 0",
        ),
        (
            // The key, not the value: `time_control: { movetime_ms: -20 }` column 17.
            good.replace("{ movetime_ms: 20 }", "{ movetime_ms: -20 }"),
            "line 4 column 17: time_control.movetime_ms: invalid type: integer `-20`",
        ),
        (
            good.replace("size: 8, layout: diagonal", "size: 8, colour: 3"),
            "line 7 column 36: boards[1]: unknown field `colour`",
        ),
        (
            good.replace(
                "{ movetime_ms: 20 }",
                "{ base_ms: 1000, increment_ms: 18446744073709551615 }",
            ),
            "increment_ms of 18446744073709551615 ms is more than a week",
        ),
        (
            good.replace("rounds: 1", "rounds: 4294967295"),
            "rounds must be in 1..=100000, got 4294967295",
        ),
        (
            good.replace("rounds: 1", "rounds: 1\nhandshake_timeout_ms: 0"),
            "handshake_timeout_ms must be between 1 ms and a week, got 0",
        ),
        (
            good.replace(
                "rounds: 1",
                "rounds: 1\nanchor: { engine: random, elo: .nan }",
            ),
            "anchor: elo must be a finite number, got NaN",
        ),
        (
            good.replace("rounds: 1", "rounds: 1\nwithdraw_after: 0"),
            "withdraw_after must be at least 1",
        ),
        (
            good.replace(&engine("greedy"), "engines/no_such_engine"),
            "is resolved against",
        ),
        (
            good.replace("{ movetime_ms: 20 }", "{ movetime_ms: 999999999999 }"),
            "more than a week",
        ),
        (
            good.replace("name: greedy,", "name: random,"),
            "the name `random` is used twice",
        ),
        (
            good.replace(
                "shape: square, width: 6, queens: 4",
                "shape: eight, width: 6",
            ),
            "eight needs a width divisible by 4, got 6",
        ),
        (
            good.split("boards:").next().unwrap().to_owned() + "boards: []\nengines: []\n",
            "engines: a tournament needs at least 2 engines, got 0",
        ),
    ];
    for (config, message) in cases {
        let path = dir.write("bad.yaml", &config);
        let out = arena().args(["run"]).arg(&path).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.starts_with(&format!("error: {}", path.display())),
            "{stderr}"
        );
        assert!(stderr.contains(message), "{stderr} lacks {message}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert!(!dir.path("out").exists(), "nothing started for {message}");
    }
}

/// Runs `arena ARGS` with its stdout a pipe whose reader is already gone, as under
/// `arena … | true` once `true` has exited: every write to it fails with EPIPE.
fn with_closed_stdout(args: &[&str]) -> std::process::Output {
    let (reader, writer) = nix::unistd::pipe().expect("pipe");
    drop(reader);
    std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .stdout(std::process::Stdio::from(writer))
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("arena runs")
}

/// Audit item 15: a closed stdout ends every command quietly, as by SIGPIPE, instead of
/// panicking with "failed printing to stdout: Broken pipe" (exit 101).
#[test]
fn a_closed_stdout_is_a_quiet_end() {
    use std::os::unix::process::ExitStatusExt;
    let dir = Dir::new();
    let pgn = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples/cutechess.pgn");
    let out = dir.path("rated").display().to_string();
    let cases: [&[&str]; 4] = [
        &["ratings", pgn, "--output", &out],
        &["sprt", "--elo0", "0", "--elo1", "2", "--wdl", "10,10,10"],
        &["show", "--board", "{game: awale, pits: 6}"],
        &[
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "2",
            "--count",
            "3",
            "--seed",
            "1",
        ],
    ];
    for args in cases {
        let output = with_closed_stdout(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.signal(),
            Some(nix::sys::signal::Signal::SIGPIPE as i32),
            "{args:?}: {:?} {stderr}",
            output.status
        );
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
    }
    // The files were written before the summary that found stdout closed.
    assert!(dir.path("rated/ratings.csv").is_file());
}

/// Audit items 6, 7 and 17: the SPRT calculator answers out-of-range numbers (negative ones
/// included, which clap took for flags) and counts the bayesian model cannot judge with a
/// range error (exit 2), never an overflow, a NaN LLR or an endless "continue".
#[test]
fn sprt_calculator_refuses_numbers_out_of_range() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["--penta", "18446744073709551615,1,0,0,0"],
            "--penta: the counts add up to more than 1000000000000",
        ),
        (
            &["--penta", "-1,0,0,0,0"],
            "--penta: counts must be ≥ 0, got -1",
        ),
        (&["--wdl", "-3,0,0"], "--wdl: counts must be ≥ 0, got -3"),
        (
            &["--elo0", "-1e308", "--elo1", "1e308", "--wdl", "1,2,3"],
            "--elo0 must be within ±1000 Elo, got -1e308",
        ),
        (
            &["--model", "bayesian", "--wdl", "1000,0,0"],
            "the draw Elo is undefined without wins, draws and losses (W,D,L = 1000,0,0: no draws, no losses)",
        ),
        (
            &["--model", "bayesian", "--wdl", "10,0,3"],
            "no draws), so the LLR would stay 0 forever; use --model normalized",
        ),
        (
            &[
                "--model",
                "bayesian",
                "--penta",
                "1,2,3,4,5",
                "--wdl",
                "0,9,0",
            ],
            "(W,D,L = 0,9,0: no wins, no losses)",
        ),
    ];
    for (args, message) in cases {
        let mut command = arena();
        command.arg("sprt");
        if !args.contains(&"--elo0") {
            command.args(["--elo0", "0", "--elo1", "2"]);
        }
        let out = command.args(args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
    // Negative Elo bounds and a bayesian test with wins, draws and losses still work.
    let out = arena()
        .args(["sprt", "--elo0", "-5", "--elo1", "0", "--model", "bayesian"])
        .args(["--wdl", "100,50,30"])
        .assert()
        .code(0);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.starts_with("SPRT [-5, 0] bayesian: LLR "),
        "{stdout}"
    );
}

/// Audit item 7: a negative value of a numeric option is taken as a number and gets the
/// option's range error, not clap's "unexpected argument '-10'".
#[test]
fn negative_numbers_get_range_errors() {
    let out = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "2",
        ])
        .args(["--count", "3", "--config", "none.yaml", "--engine", "a"])
        .args(["--max-score", "-10"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(stderr, "error: --max-score must be ≥ 0, got -10\n");
    let out = arena()
        .args([
            "openings",
            "--board",
            "{game: awale, pits: 6}",
            "--plies",
            "-2",
        ])
        .args(["--count", "3"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("invalid value '-2' for '--plies <PLIES>'")
            && !stderr.contains("unexpected argument"),
        "{stderr}"
    );
}
