//! Course Amazons player libraries (player.h) through the real binary: the test players of
//! `tests/players/` are compiled with gcc against GSL (Debian's `libgsl-dev`, installed by
//! `.ci/run`), then play tournaments against arena's `random` and `mobility` through the
//! `player-so` adapter. Each player stands for one pitfall of real course submissions.

mod util;

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use arena::record::{GameRecord, Termination};
use util::compile_player as compile;
use util::{Dir, arena, engine, read_games};

/// Processes whose command line contains `tag`.
fn survivors(tag: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .contains(tag)
            {
                found.push(pid);
            }
        }
    }
    found
}

/// Runs `engines` (YAML lines) on the four board shapes and returns every game; checks that
/// the run succeeds and that no process whose command line names `dir` survives it.
fn tournament(dir: &Dir, engines: &str, concurrency: u32) -> Vec<GameRecord> {
    let config = dir.write(
        "players.yaml",
        &format!(
            "name: players
seed: 11
concurrency: {concurrency}
time_control: {{ depth: 1, move_timeout_ms: 30000 }}
boards:
  - {{ game: amazons, shape: square, width: 6 }}
  - {{ game: amazons, shape: donut, width: 6 }}
  - {{ game: amazons, shape: clover, width: 5 }}
  - {{ game: amazons, shape: eight, width: 8, random_opening_plies: 3 }}
engines:
{engines}
output: {out}
",
            out = dir.path("out").display()
        ),
    );
    arena().args(["run", "-q"]).arg(&config).assert().success();
    let tag = dir.path("").display().to_string();
    assert_eq!(survivors(&tag), Vec::<u32>::new(), "processes survived");
    read_games(&dir.path("out/games.csv"))
}

fn plays(game: &GameRecord, name: &str) -> bool {
    game.first == name || game.second == name
}

/// Whether `name` lost the game and its detail names it as the side at fault.
fn lost_by(game: &GameRecord, name: &str) -> bool {
    let lost = (game.first == name && game.result == "0-1")
        || (game.second == name && game.result == "1-0");
    lost && game.detail.starts_with(name)
}

#[test]
fn course_players_play_every_shape_and_fail_only_where_expected() {
    let dir = Dir::new();
    let lib = |name: &str, source: &str, directions: &str, config: &str, gsl: bool| {
        let so = compile(&dir.path(""), name, source, directions, gsl);
        format!(
            "  - {{ name: {name}, library: {}, directions: {config} }}\n",
            so.display()
        )
    };
    let engines = [
        lib("lib-random", "random", "clockwise", "clockwise", true),
        lib("walker-cw", "walker", "clockwise", "clockwise", true),
        lib("walker-w3", "walker", "west3", "west3", true),
        lib("printer", "printer", "clockwise", "clockwise", true),
        lib("stateful", "stateful", "west3", "west3", true),
        lib("crasher", "crasher", "clockwise", "clockwise", true),
        lib("nogsl", "nogsl", "clockwise", "clockwise", false),
        format!("  - {{ name: random, command: {} }}\n", engine("random")),
        format!(
            "  - {{ name: mobility, command: {} }}\n",
            engine("mobility")
        ),
    ]
    .concat();
    let games = tournament(&dir, &engines, 2);
    // 9 engines, 36 pairs, 4 boards, 2 games a pair.
    assert_eq!(games.len(), 288);
    let boards: BTreeSet<&str> = games.iter().map(|g| g.board.as_str()).collect();
    assert_eq!(boards.len(), 4);
    for game in &games {
        let what = format!(
            "{} {} vs {}: {:?} {}",
            game.board, game.first, game.second, game.termination, game.detail
        );
        if plays(game, "crasher") && game.termination != Termination::Normal {
            assert_eq!(game.termination, Termination::Crash, "{what}");
            assert!(lost_by(game, "crasher"), "{what}");
            assert!(game.detail.contains("SIGSEGV"), "{what}");
        } else if plays(game, "crasher") {
            // Over before its third move: ply 5 as the first player, 6 as the second.
            let third = if game.first == "crasher" { 5 } else { 6 };
            assert!(game.plies < third, "{what}");
        } else {
            assert_eq!(game.termination, Termination::Normal, "{what}");
        }
    }
    assert!(games.iter().any(|g| g.termination == Termination::Crash));
    // The adapter logged each library's own name after its first initialize.
    let logs = fs::read_dir(dir.path("out/logs")).unwrap();
    let text: String = logs
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("nogsl.w"))
        .map(|e| fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(text.contains("calls itself `no-gsl test player`"), "{text}");
}

#[test]
fn wrong_directions_make_a_direction_walker_play_illegal_moves() {
    let dir = Dir::new();
    let so = compile(&dir.path(""), "walker-w3", "walker", "west3", true);
    let engines = format!(
        "  - {{ name: walker-wrong, library: {so}, directions: clockwise }}
  - {{ name: random, command: {random} }}
  - {{ name: mobility, command: {mobility} }}
",
        so = so.display(),
        random = engine("random"),
        mobility = engine("mobility"),
    );
    let games = tournament(&dir, &engines, 2);
    assert_eq!(games.len(), 24);
    for game in games.iter().filter(|g| plays(g, "walker-wrong")) {
        let what = format!(
            "{} {} vs {}: {:?}",
            game.board, game.first, game.second, game.termination
        );
        // Every illegal move is the walker's. Where the walker's first steps happen to avoid
        // east and west (holes beside the 5-wide clover's side columns; some random openings
        // of the eight board), a game can stay legal.
        if game.termination == Termination::IllegalMove {
            assert!(lost_by(game, "walker-wrong"), "{what}");
        } else {
            assert!(
                matches!(game.board.as_str(), "amazons-clover-5" | "amazons-eight-8"),
                "{what}"
            );
        }
    }
    let illegal = games
        .iter()
        .filter(|g| g.termination == Termination::IllegalMove)
        .count();
    // Most of its 16 games (11 with this seed), and every one on square and donut.
    assert!(illegal >= 10, "{illegal} illegal moves");
}

#[test]
fn a_library_writing_to_inherited_descriptors_cannot_reach_the_protocol() {
    let dir = Dir::new();
    let so = compile(&dir.path(""), "fdwriter", "fdwriter", "clockwise", true);
    let engines = format!(
        "  - {{ name: fdwriter, library: {so}, directions: clockwise }}
  - {{ name: random, command: {random} }}
",
        so = so.display(),
        random = engine("random"),
    );
    let games = tournament(&dir, &engines, 2);
    assert_eq!(games.len(), 8);
    for game in &games {
        assert_eq!(
            game.termination,
            Termination::Normal,
            "{} {} vs {}: {}",
            game.board,
            game.first,
            game.second,
            game.detail
        );
    }
}

#[test]
fn check_engine_directions_tells_a_wrong_header_from_a_buggy_player() {
    let dir = Dir::new();
    let walker = compile(&dir.path(""), "walker-w3", "walker", "west3", true);
    let config = dir.write(
        "d.yaml",
        &format!(
            "time_control: {{ depth: 1, move_timeout_ms: 30000 }}
boards: [{{ game: amazons, width: 6 }}]
engines:
  - {{ name: walker, library: {}, directions: clockwise }}
  - {{ name: r, command: {} }}
",
            walker.display(),
            engine("random")
        ),
    );
    let out = arena()
        .args([
            "check-engine",
            "--quick",
            "--directions",
            "--engine",
            "walker",
        ])
        .arg("--config")
        .arg(&config)
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let line = stdout
        .lines()
        .find(|l| l.contains(" directions "))
        .unwrap_or_else(|| panic!("no directions check: {stdout}"));
    assert!(line.trim_start().starts_with("FAIL"), "{line}");
    assert!(
        line.contains(
            "only west3 plays legally, and the config says clockwise: set `directions: west3`"
        ),
        "{line}"
    );
    assert!(
        line.contains("clockwise: on amazons-square-6: illegal move"),
        "{line}"
    );
}

#[test]
fn a_player_kept_across_games_crashes_on_its_freed_state() {
    // restart: on_failure overrides the per-game restart a library engine gets by default:
    // the stateful player's second game in one process aborts in initialize.
    let dir = Dir::new();
    let so = compile(&dir.path(""), "stateful", "stateful", "clockwise", true);
    let engines = format!(
        "  - {{ name: stateful, library: {so}, directions: clockwise, restart: on_failure }}
  - {{ name: random, command: {random} }}
",
        so = so.display(),
        random = engine("random"),
    );
    let games = tournament(&dir, &engines, 1);
    assert_eq!(games.len(), 8);
    let crashes: Vec<&GameRecord> = games
        .iter()
        .filter(|g| g.termination == Termination::Crash)
        .collect();
    // A crash restarts the process, so every second game crashes.
    assert_eq!(crashes.len(), 4, "{crashes:?}");
    assert!(
        crashes
            .iter()
            .all(|g| lost_by(g, "stateful") && g.detail.contains("SIGABRT"))
    );
}

#[test]
fn library_entries_are_checked_and_shown_by_arena_check() {
    let dir = Dir::new();
    let so = compile(&dir.path(""), "random", "random", "clockwise", true);
    let config = |entry: &str, board: &str| {
        dir.write(
            "c.yaml",
            &format!(
                "seed: 1
time_control: {{ movetime_ms: 100 }}
boards:
  - {{ game: amazons, width: 6{board} }}
engines:
  - {entry}
  - {{ name: random, command: {random} }}
",
                random = engine("random")
            ),
        )
    };
    let so = so.display();
    let refused = [
        (
            format!("{{ name: t, library: {so}, command: sh, directions: clockwise }}"),
            "exclusive",
        ),
        (
            format!("{{ name: t, library: {so} }}"),
            "needs `directions: clockwise` or `directions: west3`",
        ),
        (
            format!("{{ name: t, library: {so}, directions: counterclockwise }}"),
            "unknown variant `counterclockwise`",
        ),
        (
            "{ name: t, library: no/such/player.so, directions: west3 }".to_owned(),
            "player.so` does not exist",
        ),
        (
            "{ name: t, command: sh, directions: west3 }".to_owned(),
            "only for `library` engines",
        ),
    ];
    for (entry, message) in refused {
        let out = arena()
            .current_dir(dir.path(""))
            .arg("check")
            .arg(config(&entry, ""))
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(message), "{entry}: {stderr}");
    }
    let out = arena()
        .arg("check")
        .arg(config(
            &format!("{{ name: team7, library: {so}, directions: west3 }}"),
            ", queens: 8",
        ))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        stdout.contains(&format!(
            "engine team7: library {so}, directions west3, a fresh process per game"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "warning: board amazons-square-6: 8 queens per player, not the usual 4*(m/10+1) = 4"
        ),
        "{stdout}"
    );
    // A library that does not load is named with the adapter's reason.
    let half = dir.write(
        "half.c",
        "const char *get_player_name(void) { return \"half\"; }\n",
    );
    let status = Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.path("half.so"))
        .arg(&half)
        .status()
        .expect("gcc runs");
    assert!(status.success());
    let out = arena()
        .arg("check")
        .arg(config(
            &format!(
                "{{ name: half, library: {}, directions: clockwise }}",
                dir.path("half.so").display()
            ),
            "",
        ))
        .assert()
        .code(1);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // Listed once, with the adapter's reason first and the runner's view after it.
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("engine half"))
        .collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    let line = lines[0];
    let reason = line
        .find("half.so has no `initialize`")
        .expect("the adapter's reason");
    assert!(line.contains("FAILED to load: "), "{stdout}");
    assert!(
        line.find("handshake failed")
            .is_none_or(|runner| runner > reason),
        "{stdout}"
    );
    assert_eq!(stdout.matches("has no `initialize`").count(), 1, "{stdout}");
}

#[test]
fn the_seed_option_seeds_rand_so_rounds_differ_and_replays_match() {
    // On a square board without random opening every round starts from the same position, and
    // a fresh process of an unseeded rand() player would open the same way every time.
    let dir = Dir::new();
    let so = compile(&dir.path(""), "random", "random", "clockwise", true);
    let config = |out: &str| {
        dir.write(
            &format!("{out}.yaml"),
            &format!(
                "seed: 5
rounds: 4
time_control: {{ depth: 1, move_timeout_ms: 30000 }}
boards:
  - {{ game: amazons, width: 6 }}
engines:
  - {{ name: lib-random, library: {so}, directions: clockwise }}
  - {{ name: mobility, command: {mobility} }}
output: {out}
",
                so = so.display(),
                mobility = engine("mobility"),
                out = dir.path(out).display()
            ),
        )
    };
    let first_moves = |out: &str| -> Vec<String> {
        arena()
            .args(["run", "-q"])
            .arg(config(out))
            .assert()
            .success();
        let mut games = read_games(&dir.path(&format!("{out}/games.csv")));
        games.sort_by_key(|g| g.game_id);
        games
            .iter()
            .filter(|g| g.first == "lib-random")
            .map(|g| g.moves.split_whitespace().next().unwrap_or("").to_owned())
            .collect()
    };
    let once = first_moves("a");
    assert_eq!(once.len(), 4);
    let distinct: BTreeSet<&String> = once.iter().collect();
    assert!(distinct.len() > 1, "every round opened with {once:?}");
    assert_eq!(
        first_moves("b"),
        once,
        "the same seed replays the same games"
    );
}

#[test]
fn the_adapter_names_what_it_cannot_load() {
    let dir = Dir::new();
    let source = dir.write(
        "half.c",
        "const char *get_player_name(void) { return \"half\"; }\n",
    );
    let so = dir.path("half.so");
    let status = Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&source)
        .status()
        .expect("gcc runs");
    assert!(status.success());
    let adapter = || assert_cmd::Command::new(engine("player-so"));
    let out = adapter()
        .arg("--library")
        .arg(&so)
        .args(["--directions", "clockwise"])
        .write_stdin("ugi\n")
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("half.so has no `initialize` (player.h)"),
        "{stderr}"
    );
    assert!(
        out.get_output().stdout.is_empty(),
        "no handshake without a player"
    );
    let out = adapter()
        .arg("--library")
        .arg(dir.path("none.so"))
        .args(["--directions", "clockwise"])
        .assert()
        .code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("cannot load the player library"),
        "{stderr}"
    );
    let out = adapter()
        .arg("--library")
        .arg(&so)
        .args(["--directions", "east"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("unknown directions `east`"), "{stderr}");
}

#[test]
fn check_engine_plays_library_players_from_the_start_with_a_process_per_game() {
    let dir = Dir::new();
    let random = compile(&dir.path(""), "random", "random", "clockwise", true);
    let crasher = compile(&dir.path(""), "crasher", "crasher", "clockwise", true);
    let stateful = compile(&dir.path(""), "stateful", "stateful", "west3", true);
    let config = dir.write(
        "class.yaml",
        &format!(
            "time_control: {{ movetime_ms: 100 }}
boards: [{{ game: amazons, width: 6 }}]
engines:
  - {{ name: lib-random, library: {random}, directions: clockwise }}
  - {{ name: crasher, library: {crasher}, directions: clockwise }}
  - {{ name: stateful, library: {stateful}, directions: west3 }}
  - {{ name: stateful-kept, library: {stateful}, directions: west3, restart: on_failure }}
output: {out}
",
            random = random.display(),
            crasher = crasher.display(),
            stateful = stateful.display(),
            out = dir.path("out").display()
        ),
    );
    let out = arena()
        .args([
            "check-engine",
            "--all",
            "--quick",
            "--json",
            "--margin",
            "1000",
            "--boards",
            "builtin",
        ])
        .arg("--config")
        .arg(&config)
        .output()
        .expect("run arena check-engine");
    assert_eq!(out.status.code(), Some(1), "crasher fails");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let verdicts = |engine: &str| -> Vec<(String, String)> {
        let report = json
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["engine"] == engine)
            .unwrap_or_else(|| panic!("no report for {engine}"));
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_owned(),
                    c["verdict"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let failed = |engine: &str| -> Vec<String> {
        verdicts(engine)
            .into_iter()
            .filter(|(_, v)| v == "fail")
            .map(|(n, _)| n)
            .collect()
    };
    // A library cannot be given a mid-game position: the battery plays it whole games from the
    // start, and a correct player passes every check on every shape.
    assert_eq!(failed("lib-random"), Vec::<String>::new());
    let random_checks = verdicts("lib-random");
    for shape in ["square-10", "donut-9", "clover-10", "eight-8"] {
        let name = format!("positions amazons-{shape}");
        assert!(
            random_checks.contains(&(name.clone(), "pass".into())),
            "{name}: {random_checks:?}"
        );
    }
    // Crashing on its third move, in a fresh process per game: the checks that play games fail,
    // and none is skipped for a dead engine, since each game gets a new process as in a
    // tournament.
    let crashed = failed("crasher");
    assert!(
        crashed.contains(&"positions amazons-eight-8".to_owned()),
        "{crashed:?}"
    );
    assert!(crashed.contains(&"second game".to_owned()), "{crashed:?}");
    // (Only the search checks are skipped: a library answers at once, nothing to stop.)
    let skipped: Vec<String> = verdicts("crasher")
        .into_iter()
        .filter(|(_, v)| v == "skipped")
        .map(|(n, _)| n)
        .collect();
    // (And `sandbox`, which runs only for an engine that passes unconfined.)
    assert!(
        skipped
            .iter()
            .all(|n| n == "stop" || n == "isready in search" || n == "sandbox"),
        "{skipped:?}"
    );
    // State kept across games is harmless with the default fresh process per game, and fatal
    // when the config keeps the process (`restart: on_failure`).
    assert_eq!(failed("stateful"), Vec::<String>::new());
    assert_eq!(
        failed("stateful-kept").len(),
        1,
        "{:?}",
        verdicts("stateful-kept")
    );
    let csv = fs::read_to_string(dir.path("out/check-engines.csv")).unwrap();
    assert_eq!(
        csv.lines()
            .filter(|l| l.starts_with("stateful-kept,"))
            .count(),
        verdicts("stateful-kept").len()
    );
}
