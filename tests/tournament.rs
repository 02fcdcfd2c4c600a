//! End-to-end runs of `arena run` for what a tournament does around the games: engines that
//! never work (preflight, withdrawal), resume and extension of an output directory, clocks and
//! time odds, transcripts, formats and restarts, anchors, option typos, limits.

mod util;

use std::fs;
use std::path::{Path, PathBuf};

use arena::record::{GameRecord, Termination};
use util::{Dir, arena, engine, read_games, without_timing};

/// A config with `engines` (YAML lines of the engines list) and `extra` top-level keys, on
/// Awale 6, output `out/`.
fn config(dir: &Dir, name: &str, time_control: &str, engines: &str, extra: &str) -> PathBuf {
    dir.write(
        &format!("{name}.yaml"),
        &format!(
            "name: {name}
seed: 11
concurrency: 1
handshake_timeout_ms: 2000
time_control: {time_control}
boards:
  - {{ game: awale, pits: 6 }}
engines:
{engines}
output: {out}
{extra}",
            out = dir.path("out").display()
        ),
    )
}

fn entry(name: &str, command: &str) -> String {
    format!("  - {{ name: {name}, command: {command} }}\n")
}

/// A shell script engine: `body` then `exec` of a reference engine.
fn script(dir: &Dir, file: &str, body: &str, then: &str) -> String {
    let path = dir.write(file, &format!("#!/bin/sh\n{body}\nexec {then}\n"));
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

fn stderr_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&out.get_output().stderr).into_owned()
}

fn count(games: &[GameRecord], termination: Termination) -> usize {
    games
        .iter()
        .filter(|g| g.termination == termination)
        .count()
}

// See: issue 18, item 1.
#[test]
fn an_engine_that_cannot_start_stops_the_run_before_any_game() {
    let dir = Dir::new();
    let engines = entry("random", &engine("random"))
        + "  - { name: typo, command: python3, args: [no_such_script.py] }\n";
    let cfg = config(&dir, "t", "{ movetime_ms: 20 }", &engines, "rounds: 2");
    let out = arena().arg("run").arg(&cfg).assert().code(1);
    let err = stderr_of(&out);
    assert!(err.contains("typo"), "{err}");
    assert!(err.contains("can't open file"), "Python's own words: {err}");
    assert!(err.contains("on_engine_failure: forfeit"), "{err}");
    assert!(!dir.path("out/games.csv").exists(), "no game was played");
}

// See: issue 18, item 1.
#[test]
fn forfeit_mode_withdraws_a_broken_engine_and_plays_the_rest() {
    let dir = Dir::new();
    let engines = entry("random", &engine("random"))
        + &entry("greedy", &engine("greedy"))
        + "  - { name: typo, command: python3, args: [no_such_script.py] }\n";
    let cfg = config(
        &dir,
        "t",
        "{ movetime_ms: 20 }",
        &engines,
        "on_engine_failure: forfeit",
    );
    let out = arena().arg("run").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 6);
    for g in &games {
        let broken = g.first == "typo" || g.second == "typo";
        if broken {
            assert_eq!(g.termination, Termination::Withdrawn, "{g:?}");
            assert_eq!(g.plies, 0);
            assert_eq!(g.result, if g.first == "typo" { "0-1" } else { "1-0" });
            assert!(g.detail.contains("handshake failed"), "{}", g.detail);
        } else {
            assert_eq!(g.termination, Termination::Normal, "{g:?}");
        }
    }
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("failures of typo: withdrawn 4; stderr:"),
        "the summary lists the failing engine and its log: {stdout}"
    );
}

// See: issue 18, item 1.
#[test]
fn an_engine_failing_every_game_without_a_move_is_withdrawn() {
    let dir = Dir::new();
    let hostile = format!("{}, args: [--crash, --at, '1']", engine("hostile"));
    let engines = entry("random", &engine("random")) + &entry("crasher", &hostile);
    let cfg = config(&dir, "t", "{ movetime_ms: 20 }", &engines, "rounds: 4");
    let out = arena().arg("run").arg(&cfg).assert().code(1);
    let err = stderr_of(&out);
    assert!(err.contains("WITHDRAWN: engine crasher"), "{err}");
    // A withdrawn engine is not restarted, so it is not announced as restarting (issue 23).
    let after = &err[err.find("WITHDRAWN").unwrap()..];
    assert!(!after.contains("restarting crasher"), "{err}");
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 8, "every game has a row");
    // Concurrency 1: the first three games crash, the other five are forfeited unplayed.
    assert_eq!(count(&games, Termination::Crash), 3, "{games:?}");
    assert_eq!(count(&games, Termination::Withdrawn), 5);
    assert!(
        games
            .iter()
            .all(|g| (g.first == "crasher") == (g.result == "0-1"))
    );
    assert!(
        games[0].detail.contains("exit status: 3"),
        "{}",
        games[0].detail
    );
    // A resumed run plays the forfeits again (and withdraws it again).
    let out = arena().arg("run").arg(&cfg).assert().code(1);
    assert!(
        stderr_of(&out).contains("playing again 5 game(s) forfeited"),
        "{}",
        stderr_of(&out)
    );
}

// See: issue 19, item 5 (the last sentence).
#[test]
fn a_game_neither_engine_could_start_is_nobody_s_win() {
    let dir = Dir::new();
    // Each works once (the preflight handshake), then exits at every start.
    let once = |name: &str| {
        let marker = dir.path(&format!("{name}.started"));
        script(
            &dir,
            &format!("{name}.sh"),
            &format!(
                "if [ -e {m} ]; then echo 'refusing to start' >&2; exit 7; fi\ntouch {m}",
                m = marker.display()
            ),
            &engine("random"),
        )
    };
    let engines = entry("a", &once("a")) + &entry("b", &once("b"));
    let cfg = config(&dir, "t", "{ movetime_ms: 20 }", &engines, "");
    let out = arena().arg("run").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(
            (g.result.as_str(), g.termination),
            ("*", Termination::Crash)
        );
        assert!(
            g.detail.contains("a (") && g.detail.contains("b ("),
            "{}",
            g.detail
        );
        assert!(
            g.detail.contains("refusing to start"),
            "last stderr line: {}",
            g.detail
        );
    }
    let ratings = fs::read_to_string(dir.path("out/ratings.csv")).unwrap();
    for row in ratings.lines().skip(1) {
        // games, wins, draws, losses
        let counts: Vec<&str> = row.split(',').skip(7).take(4).collect();
        assert_eq!(counts, ["0", "0", "0", "0"], "no game was rated: {ratings}");
    }
    assert!(stdout_of(&out).contains("2 games: crash 2"));
    // Games without a result are played again on resume (issue 23), not kept as they are:
    // with engines that now start, they get results.
    for name in ["a", "b"] {
        script(&dir, &format!("{name}.sh"), "", &engine("random"));
    }
    let out = arena().arg("run").arg(&cfg).assert().success();
    assert!(
        stderr_of(&out).contains("playing again 2 game(s) without a result"),
        "{}",
        stderr_of(&out)
    );
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 2);
    assert!(
        games
            .iter()
            .all(|g| g.result != "*" && g.termination == Termination::Normal),
        "{games:?}"
    );
}

/// Games with a deterministic time control, keyed and without timing, for comparisons.
fn games_of(path: &Path) -> Vec<GameRecord> {
    let mut games = without_timing(read_games(path));
    games.sort_by_key(|g| g.game_id);
    games
}

// See: issue 19, item 1.
#[test]
fn resume_sets_aside_rows_that_are_not_games_of_the_schedule() {
    let dir = Dir::new();
    // Greedy plays Seven Colors and Awale only; this one fails its first start, then is greedy.
    let marker = dir.path("flaky.started");
    let flaky = script(
        &dir,
        "flaky.sh",
        &format!(
            "if [ ! -e {m} ]; then touch {m}; exit 1; fi",
            m = marker.display()
        ),
        &engine("greedy"),
    );
    let engines = entry("random", &engine("random"))
        + &entry("mobility", &engine("mobility"))
        + &entry("flaky", &flaky);
    let body = |out: &str, mode: &str| {
        format!(
            "name: flaky
seed: 4
concurrency: 1
time_control: {{ nodes: 200 }}
on_engine_failure: {mode}
boards:
  - {{ game: awale, pits: 6 }}
  - {{ game: amazons, shape: square, width: 5, queens: 4 }}
engines:
{engines}output: {out}
"
        )
    };
    let out_dir = dir.path("out").display().to_string();
    let cfg = dir.write("flaky.yaml", &body(&out_dir, "forfeit"));
    arena().arg("run").arg(&cfg).assert().success();
    let first = read_games(&dir.path("out/games.csv"));
    // Run 1 assumed flaky plays every game: Amazons games against it exist, all forfeited.
    assert!(
        first
            .iter()
            .any(|g| g.game == "amazons" && g.first == "flaky")
    );
    // A row that belongs to no schedule (as a hand edit or another tool would leave).
    let mut foreign = first
        .iter()
        .find(|g| g.termination == Termination::Normal)
        .unwrap()
        .clone();
    foreign.round = 99;
    let mut all = first.clone();
    all.push(foreign);
    arena::report::files::rewrite_games(&dir.path("out/games.csv"), &all).unwrap();

    // Under `stop` (a change that continues the run) the forfeits are played again.
    let cfg = dir.write("flaky.yaml", &body(&out_dir, "stop"));
    let out = arena().arg("run").arg(&cfg).assert().success();
    let err = stderr_of(&out);
    assert!(err.contains("set aside 1 row(s)"), "{err}");
    assert!(err.contains("playing again"), "{err}");
    let dropped = read_games(&dir.path("out/games.dropped.csv"));
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].round, 99);
    // Now flaky declares its games: no Amazons game of it is left, and the result equals a
    // clean run in which it worked from the start.
    let resumed = games_of(&dir.path("out/games.csv"));
    assert!(
        !resumed
            .iter()
            .any(|g| g.game == "amazons" && (g.first == "flaky" || g.second == "flaky"))
    );
    let clean_cfg = dir.write(
        "clean.yaml",
        &body(&dir.path("clean").display().to_string(), "stop"),
    );
    arena().arg("run").arg(&clean_cfg).assert().success();
    assert_eq!(resumed, games_of(&dir.path("clean/games.csv")));
}

// See: issue 18, item 3.
#[test]
fn raising_rounds_or_adding_an_engine_extends_a_finished_tournament() {
    let dir = Dir::new();
    let two = entry("random", &engine("random")) + &entry("greedy", &engine("greedy"));
    let three = two.clone() + &entry("alphabeta", &engine("alphabeta"));
    let tc = "{ depth: 2 }";
    let cfg = config(&dir, "t", tc, &two, "rounds: 1");
    arena().arg("run").arg(&cfg).assert().success();
    assert_eq!(read_games(&dir.path("out/games.csv")).len(), 2);
    let cfg = config(&dir, "t", tc, &three, "rounds: 2");
    let out = arena().arg("run").arg(&cfg).assert().success();
    let err = stderr_of(&out);
    assert!(err.contains("extending the tournament"), "{err}");
    assert!(
        err.contains("rounds 1 → 2") && err.contains("engine alphabeta"),
        "{err}"
    );
    assert!(err.contains("resuming: 2 of 12 games"), "{err}");
    // The same games as a tournament configured that way from the start.
    let clean = Dir::new();
    let clean_cfg = config(&clean, "t", tc, &three, "rounds: 2");
    arena().arg("run").arg(&clean_cfg).assert().success();
    assert_eq!(
        games_of(&dir.path("out/games.csv")),
        games_of(&clean.path("out/games.csv"))
    );
    // A change that alters played games is refused, naming the keys.
    let cfg = config(&dir, "t", "{ depth: 3 }", &three, "rounds: 2");
    let out = arena().arg("run").arg(&cfg).assert().code(2);
    assert!(
        stderr_of(&out).contains("differs in: time_control"),
        "{}",
        stderr_of(&out)
    );
    let cfg = config(&dir, "t", tc, &two, "rounds: 2");
    let out = arena().arg("run").arg(&cfg).assert().code(2);
    assert!(
        stderr_of(&out).contains("engines: `alphabeta` removed"),
        "{}",
        stderr_of(&out)
    );
}

// See: issue 18, item 6.
#[test]
fn undeclared_options_are_warned_about_or_refused() {
    let dir = Dir::new();
    let engines = entry("random", &engine("random"))
        + &format!(
            "  - {{ name: ab, command: {}, options: {{ Dpth: 3 }} }}\n",
            engine("alphabeta")
        );
    let cfg = config(&dir, "t", "{ depth: 1 }", &engines, "");
    let out = arena().arg("check").arg(&cfg).assert().success();
    let text = stdout_of(&out);
    assert!(text.contains("option `Dpth` is not declared"), "{text}");
    assert!(text.contains("Depth"), "lists the declared ones: {text}");
    let out = arena().arg("run").arg(&cfg).assert().success();
    assert!(stderr_of(&out).contains("option `Dpth`"));
    let strict = config(&dir, "s", "{ depth: 1 }", &engines, "strict_options: true");
    let out = arena().arg("run").arg(&strict).assert().code(2);
    assert!(
        stderr_of(&out).contains("strict_options"),
        "{}",
        stderr_of(&out)
    );
    // Into a fresh directory, the refusal leaves no preflight log behind (issue 23); into a
    // directory whose logs/ exists, it leaves that directory's files alone.
    let fresh = dir.path("fresh");
    arena()
        .arg("run")
        .arg("--output")
        .arg(&fresh)
        .arg(&strict)
        .assert()
        .code(2);
    assert!(!fresh.join("logs").exists(), "preflight logs were left");
    let kept = dir.path("kept");
    fs::create_dir_all(kept.join("logs")).unwrap();
    fs::write(kept.join("logs/notes.txt"), "precious").unwrap();
    arena()
        .arg("run")
        .arg("--output")
        .arg(&kept)
        .arg(&strict)
        .assert()
        .code(2);
    assert_eq!(
        fs::read_to_string(kept.join("logs/notes.txt")).unwrap(),
        "precious"
    );
}

/// The `go` lines sent to one side in a transcript, as (p1time, p2time, p1inc, p2inc) or the
/// raw line.
fn go_lines(transcript: &str, side: &str) -> Vec<String> {
    transcript
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some(side) && l.contains("> go "))
        .map(|l| l[l.find("go ").unwrap()..].to_owned())
        .collect()
}

fn clock_of(go: &str, key: &str) -> u64 {
    let words: Vec<&str> = go.split_whitespace().collect();
    let i = words.iter().position(|w| *w == key).unwrap();
    words[i + 1].parse().unwrap()
}

// See: issue 19, items 2 and 3.
#[test]
fn clocks_are_charged_with_increments_and_sent_by_player() {
    let dir = Dir::new();
    // First player on a 2 s + 50 ms clock; the second plays at a fixed movetime (time odds).
    let engines = entry("clocked", &engine("random"))
        + &format!(
            "  - {{ name: fixed, command: {}, time_control: {{ movetime_ms: 30 }} }}\n",
            engine("random")
        );
    let cfg = config(
        &dir,
        "t",
        "{ base_ms: 2000, increment_ms: 50 }",
        &engines,
        "",
    );
    arena()
        .args(["run", "--log-protocol"])
        .arg(&cfg)
        .assert()
        .success();
    let games = read_games(&dir.path("out/games.csv"));
    let g = games.iter().find(|g| g.first == "clocked").unwrap();
    let transcript =
        fs::read_to_string(dir.path(&format!("out/logs/games/{}.log", g.game_id))).unwrap();
    let mine = go_lines(&transcript, "first");
    assert!(mine.len() > 5, "{transcript}");
    assert_eq!(mine[0], "go p1time 2000 p2time 0 p1inc 50 p2inc 0");
    for (k, go) in mine.iter().enumerate() {
        let left = clock_of(go, "p1time");
        // Each move is charged (sub-ms moves too) and the increment is added after it.
        let ceiling = 2000 + 50 * k as u64;
        assert!(left <= ceiling, "move {k}: {go}");
        assert!(
            left + g.first_time_ms + 2 >= ceiling,
            "move {k}: {go}, used {}",
            g.first_time_ms
        );
    }
    let last = clock_of(mine.last().unwrap(), "p1time");
    assert!(
        last < 2000 + 50 * (mine.len() as u64 - 1),
        "time used is charged: {}",
        mine.last().unwrap()
    );
    // The other engine keeps its own time control.
    assert!(
        go_lines(&transcript, "second")
            .iter()
            .all(|l| l == "go movetime 30")
    );
}

// See: issue 19, item 2.
#[test]
fn a_slow_engine_loses_on_time_under_a_clock() {
    let dir = Dir::new();
    let slow = format!("{}, args: [--late, --at, '2']", engine("hostile"));
    let engines = entry("random", &engine("random")) + &entry("slow", &slow);
    let cfg = config(
        &dir,
        "t",
        "{ base_ms: 300, increment_ms: 10, margin_ms: 20 }",
        &engines,
        // A fresh process per game, so its second `go` comes in both games.
        "restart: per_game",
    );
    arena().arg("run").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert!(
        games
            .iter()
            .all(|g| g.termination == Termination::TimeForfeit),
        "{games:?}"
    );
    for g in &games {
        assert!(
            g.detail.contains("slow") && g.detail.contains("lost on time"),
            "{}",
            g.detail
        );
        assert_eq!(g.result, if g.first == "slow" { "0-1" } else { "1-0" });
        let used = if g.first == "slow" {
            g.first_time_ms
        } else {
            g.second_time_ms
        };
        assert!(used >= 300, "the forfeited move is charged: {g:?}");
    }
}

// See: issue 19 ("tests that prove less than they say"), issue 18 (transcripts) and issue 10.
#[test]
fn transcripts_merge_both_engines_on_one_clock_in_protocol_order() {
    let dir = Dir::new();
    let engines = entry("random", &engine("random")) + &entry("greedy", &engine("greedy"));
    let cfg = config(&dir, "t", "{ movetime_ms: 20 }", &engines, "");
    arena()
        .args(["run", "--log-protocol"])
        .arg(&cfg)
        .assert()
        .success();
    let games = read_games(&dir.path("out/games.csv"));
    let g = &games[0];
    let text = fs::read_to_string(dir.path("out/logs/games/0.log")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("# game 0: random (first) vs greedy (second)"),
        "{text}"
    );
    let last = lines.last().unwrap();
    assert_eq!(*last, format!("# result {} {}", g.result, g.termination));
    let body = &lines[1..lines.len() - 1];
    let times: Vec<f64> = body
        .iter()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] <= w[1]),
        "one clock, in time order"
    );
    for side in ["first", "second"] {
        let mine: Vec<String> = body
            .iter()
            .filter(|l| l.split_whitespace().nth(1) == Some(side))
            .map(|l| l.split_whitespace().skip(3).collect::<Vec<_>>().join(" "))
            .collect();
        let at = |prefix: &str| {
            mine.iter()
                .position(|l| l.starts_with(prefix))
                .unwrap_or(usize::MAX)
        };
        // docs/protocol.md: handshake, variant, seed, new game, isready, then positions.
        let order = [
            at("> ugi"),
            at("< ugiok"),
            at("> setoption name UGI_Variant value awale"),
            at("> setoption name Seed value "),
            at("> uginewgame"),
            at("> isready"),
            at("< readyok"),
            at("> position fen"),
            at("< bestmove"),
        ];
        assert!(order.iter().all(|&i| i != usize::MAX), "{side}: {mine:?}");
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "{side}: {order:?} {mine:?}"
        );
    }
    // Both engines' moves appear, and the moves in the record are the bestmoves sent.
    let sent: Vec<String> = body
        .iter()
        .filter(|l| l.contains("< bestmove "))
        .map(|l| l.rsplit(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(sent.join(" "), g.moves);
}

// See: issue 19 (no end-to-end test of gauntlet, per_game restarts, anchor).
#[test]
fn gauntlet_plays_only_the_hub_s_pairs() {
    let dir = Dir::new();
    let engines = entry("hub", &engine("greedy"))
        + &entry("a", &engine("random"))
        + &entry("b", &engine("random"));
    let cfg = config(
        &dir,
        "t",
        "{ movetime_ms: 10 }",
        &engines,
        "format: gauntlet\ngauntlet_engine: hub\nrounds: 2",
    );
    arena().arg("run").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 2 * 2 * 2);
    assert!(games.iter().all(|g| g.first == "hub" || g.second == "hub"));
}

#[test]
fn restart_per_game_starts_every_game_with_a_handshake() {
    for (restart, expect_fresh) in [("per_game", true), ("on_failure", false)] {
        let dir = Dir::new();
        let engines = entry("random", &engine("random")) + &entry("greedy", &engine("greedy"));
        let cfg = config(
            &dir,
            "t",
            "{ movetime_ms: 10 }",
            &engines,
            &format!("restart: {restart}\nrounds: 2"),
        );
        arena()
            .args(["run", "--log-protocol"])
            .arg(&cfg)
            .assert()
            .success();
        for id in 1..4 {
            let text = fs::read_to_string(dir.path(&format!("out/logs/games/{id}.log"))).unwrap();
            let handshakes = text.lines().filter(|l| l.ends_with("> ugi")).count();
            assert_eq!(
                handshakes,
                if expect_fresh { 2 } else { 0 },
                "{restart}, game {id}"
            );
        }
    }
}

#[test]
fn an_anchor_pins_the_named_engine() {
    let dir = Dir::new();
    let engines = entry("random", &engine("random")) + &entry("greedy", &engine("greedy"));
    let cfg = config(
        &dir,
        "t",
        "{ movetime_ms: 10 }",
        &engines,
        "rounds: 2\nanchor: { engine: random, elo: 1234.5 }",
    );
    arena().arg("run").arg(&cfg).assert().success();
    let ratings = fs::read_to_string(dir.path("out/ratings.csv")).unwrap();
    let row = ratings
        .lines()
        .find(|l| l.starts_with("all,") && l.contains(",random,"))
        .unwrap();
    assert_eq!(row.split(',').nth(3), Some("1234.5"), "{ratings}");
    // NaN is refused before anything runs.
    let bad = config(
        &dir,
        "n",
        "{ movetime_ms: 10 }",
        &engines,
        "anchor: { engine: random, elo: .nan }",
    );
    let out = arena().arg("run").arg(&bad).assert().code(2);
    assert!(stderr_of(&out).contains("anchor: elo must be a finite number"));
}

// See: issue 19, "the memory-limit test only shows an engine failing to start".
#[test]
fn an_engine_dies_of_its_memory_limit_mid_game() {
    let dir = Dir::new();
    let grow = format!(
        "{}, args: [--grow, --at, '3', --mb, '400'], limits: {{ memory_mb: 200 }}",
        engine("hostile")
    );
    let engines = entry("random", &engine("random")) + &entry("grower", &grow);
    // A generous margin: dying (and printing a backtrace) must not be mistaken for slowness.
    let cfg = config(
        &dir,
        "t",
        "{ movetime_ms: 50, margin_ms: 5000 }",
        &engines,
        "",
    );
    arena().arg("run").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    let struck: Vec<_> = games
        .iter()
        .filter(|g| g.termination == Termination::Crash)
        .collect();
    assert!(!struck.is_empty(), "{games:?}");
    for g in struck {
        assert!(g.plies >= 4, "it played moves first: {g:?}");
        assert!(
            g.detail.contains("grower") && g.detail.contains("signal"),
            "{}",
            g.detail
        );
    }
}

// See: issue 19, item 4: `user_processes` is RLIMIT_NPROC, which counts the user's threads.
#[test]
fn user_processes_limits_the_threads_of_an_unprivileged_engine() {
    let root = util::is_root();
    let why = if !Path::new("/usr/bin/setpriv").exists() {
        Some("setpriv (util-linux) is missing")
    } else if !root {
        Some("setpriv changes the user only as root")
    } else {
        None
    };
    if util::skip_unless_available(why) {
        return;
    }
    for (limit, expected) in [(64, Termination::Normal), (2, Termination::Crash)] {
        let dir = Dir::new();
        let threaded = format!(
            "setpriv, args: [--reuid=65534, --regid=65534, --clear-groups, {}, --threads, '2'], limits: {{ user_processes: {limit} }}",
            engine("hostile")
        );
        let engines = entry("random", &engine("random")) + &entry("threaded", &threaded);
        let cfg = config(
            &dir,
            "t",
            "{ movetime_ms: 20 }",
            &engines,
            "on_engine_failure: forfeit",
        );
        arena().arg("run").arg(&cfg).assert().success();
        let games = read_games(&dir.path("out/games.csv"));
        let want = if expected == Termination::Normal {
            Termination::Normal
        } else {
            // It cannot even answer the preflight handshake: forfeited.
            Termination::Withdrawn
        };
        assert!(
            games.iter().all(|g| g.termination == want),
            "limit {limit}: {games:?}"
        );
    }
}

// See: issue 18 (smaller): `check` sends one `go` per game an engine plays.
#[test]
fn check_asks_every_engine_for_a_first_move() {
    let dir = Dir::new();
    let hang = format!("{}, args: [--hang, --at, '1']", engine("hostile"));
    let engines = entry("random", &engine("random")) + &entry("mute", &hang);
    let cfg = config(&dir, "t", "{ movetime_ms: 30 }", &engines, "rounds: 3");
    let out = arena().arg("check").arg(&cfg).assert().code(1);
    let text = stdout_of(&out);
    assert!(
        text.contains("engine random on awale-6: `go` answered `bestmove "),
        "{text}"
    );
    assert!(
        text.contains("engine mute on awale-6: FAILED its first move: mute (first) lost on time"),
        "{text}"
    );
    assert!(text.contains("(3 rounds, seed 11"), "plural rounds: {text}");
    assert!(text.contains("estimated time: about"), "{text}");
    assert!(!dir.path("out").exists(), "check writes nothing");
}

// See: the review of issues 18/19: keys that change no played game continue a run; a finished
// forfeit-mode run does nothing when run again; a row with an invalid result is set aside.
#[test]
fn settings_that_change_no_played_game_continue_the_run() {
    let dir = Dir::new();
    let hostile = format!("{}, args: [--crash, --at, '1']", engine("hostile"));
    let engines = entry("random", &engine("random")) + &entry("crasher", &hostile);
    let cfg = config(&dir, "t", "{ movetime_ms: 20 }", &engines, "rounds: 4");
    arena().arg("run").arg(&cfg).assert().code(1);
    // As the error message advises: accept the forfeits (and rate at another level).
    let cfg = config(
        &dir,
        "t",
        "{ movetime_ms: 20 }",
        &engines,
        "rounds: 4\non_engine_failure: forfeit\nconfidence: 0.9\nwithdraw_after: 5",
    );
    let out = arena().arg("run").arg(&cfg).assert().success();
    assert!(!stderr_of(&out).contains("differs"), "{}", stderr_of(&out));
    let first = read_games(&dir.path("out/games.csv"));
    assert_eq!(first.len(), 8);
    let out = arena().arg("run").arg(&cfg).assert().success();
    assert!(
        !stderr_of(&out).contains("playing again"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        read_games(&dir.path("out/games.csv")),
        first,
        "nothing replayed"
    );
    // A hand-edited result is set aside and the game played again.
    let mut edited = first.clone();
    let i = edited
        .iter()
        .position(|g| g.termination == Termination::Crash)
        .unwrap();
    edited[i].result = "banana".into();
    arena::report::files::rewrite_games(&dir.path("out/games.csv"), &edited).unwrap();
    let out = arena().arg("run").arg(&cfg).assert().success();
    assert!(
        stderr_of(&out).contains("its result is not 1-0, 0-1, 1/2-1/2 or *"),
        "{}",
        stderr_of(&out)
    );
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 8);
    assert!(games.iter().all(|g| g.result != "banana"));
    assert_eq!(read_games(&dir.path("out/games.dropped.csv")).len(), 1);
    let pairs = fs::read_to_string(dir.path("out/pairs.csv")).unwrap();
    assert!(pairs.starts_with("scope,engine_a,engine_b"), "{pairs}");
}

// Issue 23, audit item 8: a run with no game (a shard past the last game pair) writes files
// with their header rows and says "0 games", not "0 games: ".
#[test]
fn a_run_with_no_game_writes_headers_and_says_so() {
    let dir = Dir::new();
    let engines = entry("a", &engine("random")) + &entry("b", &engine("random"));
    let cfg = config(&dir, "t", "{ depth: 1 }", &engines, "");
    let out = arena()
        .args(["run", "--shard", "99/100"])
        .arg(&cfg)
        .assert()
        .success();
    let games = fs::read_to_string(dir.path("out/games.csv")).unwrap();
    assert!(games.starts_with("game_id,round,board,"), "{games:?}");
    assert_eq!(games.lines().count(), 1, "{games}");
    let ratings = fs::read_to_string(dir.path("out/ratings.csv")).unwrap();
    assert!(ratings.starts_with("scope,"), "{ratings:?}");
    assert_eq!(ratings.lines().count(), 1, "{ratings}");
    let stdout = stdout_of(&out);
    assert!(stdout.lines().any(|l| l == "0 games"), "{stdout}");
    // And arena report reads the empty games.csv.
    arena()
        .arg("report")
        .arg(dir.path("out"))
        .assert()
        .success();
}

// Issue 23: a result file that cannot be written at the end of a run (here report.html, a
// directory in the way) stops the run naming it, after the summary, with how to resume; the
// games stay in games.csv.
#[test]
fn a_result_file_that_cannot_be_written_is_named_after_the_summary() {
    let dir = Dir::new();
    let engines = entry("a", &engine("random")) + &entry("b", &engine("random"));
    let cfg = config(&dir, "t", "{ depth: 1 }", &engines, "rounds: 2");
    fs::create_dir_all(dir.path("out/report.html/in-the-way")).unwrap();
    let out = arena().arg("run").arg(&cfg).assert().code(1);
    let err = stderr_of(&out);
    assert!(
        err.contains("stopped: cannot write")
            && err.contains("report.html")
            && err.contains("games.csv holds 4 of the 4 games finished")
            && err.contains("run the same command to resume"),
        "{err}"
    );
    assert!(
        stdout_of(&out).contains("4 games: normal 4"),
        "{}",
        stdout_of(&out)
    );
    assert_eq!(read_games(&dir.path("out/games.csv")).len(), 4);
    assert!(
        !dir.path("out/report.html.tmp").exists(),
        "a partial page was left"
    );
    fs::remove_dir_all(dir.path("out/report.html")).unwrap();
    arena().arg("run").arg(&cfg).assert().success();
    assert!(dir.path("out/report.html").is_file());
}

// Issue 23, audit item 6: a config's anchor is bounded as `--anchor` is (1e308 wrote `inf`).
#[test]
fn a_config_anchor_out_of_range_is_refused() {
    let dir = Dir::new();
    let engines = entry("a", &engine("random")) + &entry("b", &engine("random"));
    let cfg = config(
        &dir,
        "t",
        "{ depth: 1 }",
        &engines,
        "anchor: { engine: a, elo: 1e308 }",
    );
    let out = arena().arg("run").arg(&cfg).assert().code(2);
    assert!(
        stderr_of(&out).contains("anchor: elo must be within ±1000000, got 1e308"),
        "{}",
        stderr_of(&out)
    );
}
