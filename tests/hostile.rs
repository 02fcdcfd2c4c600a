//! Misbehaving engines really misbehave: each fault of the `hostile` test engine must end its
//! game against it with the right termination, leave no process behind, keep the runner's
//! memory bounded, and let the tournament finish with every game recorded.

mod util;

use std::fs;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use arena::record::{GameRecord, Termination};
use util::{Dir, engine, read_games};

/// Processes whose command line contains `tag`.
fn survivors(tag: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmdline) = fs::read(entry.path().join("cmdline")) {
            let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            // Zombies have an empty cmdline and are gone once reaped.
            if text.contains(tag) {
                found.push(pid);
            }
        }
    }
    found
}

struct Outcome {
    games: Vec<GameRecord>,
    peak_rss_kb: u64,
    /// arena's exit code and stderr.
    code: Option<i32>,
    stderr: String,
}

/// Runs hostile (with `flags`, and `entry` as extra keys of its engine entry) against `random`
/// on Awale 6, one game pair, and returns the records and the runner's peak resident memory.
fn tournament(name: &str, flags: &str, entry: &str) -> Outcome {
    let out = run_hostile(name, flags, entry, "");
    assert_eq!(out.code, Some(0), "{name}: arena failed\n{}", out.stderr);
    assert_eq!(out.games.len(), 2, "{name}: every game is recorded");
    out
}

/// Runs the tournament with `top` as extra top-level config keys, whatever its exit code; checks
/// that no engine process survives.
fn run_hostile(name: &str, flags: &str, entry: &str, top: &str) -> Outcome {
    let dir = Dir::new();
    let tag = format!("hostile-test-{name}-{}", std::process::id());
    let config = dir.write(
        "h.yaml",
        &format!(
            "name: {name}
seed: 5
concurrency: 1
handshake_timeout_ms: 500
time_control: {{ movetime_ms: 50, margin_ms: 50, move_timeout_ms: 2000 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: hostile, command: {hostile}, args: [--tag, {tag}, {flags}], {entry} }}
  - {{ name: random, command: {random} }}
output: {out}
{top}
",
            hostile = engine("hostile"),
            random = engine("random"),
            flags = flags.split_whitespace().collect::<Vec<_>>().join(", "),
            out = dir.path("out").display(),
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "-q"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_rss_kb = 0;
    let started = Instant::now();
    let status = loop {
        if let Ok(text) = fs::read_to_string(&status_path) {
            for line in text.lines().filter(|l| l.starts_with("VmHWM:")) {
                let kb: u64 = line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
                peak_rss_kb = peak_rss_kb.max(kb);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{name}: the tournament did not finish"
        );
        thread::sleep(Duration::from_millis(20));
    };
    let stderr = std::io::read_to_string(child.stderr.take().unwrap()).unwrap_or_default();
    // Give the kernel a moment to reap what was killed.
    let deadline = Instant::now() + Duration::from_secs(3);
    while !survivors(&tag).is_empty() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        survivors(&tag),
        Vec::<u32>::new(),
        "{name}: engine processes survived"
    );
    let path = dir.path("out/games.csv");
    let games = if path.exists() {
        read_games(&path)
    } else {
        Vec::new()
    };
    Outcome {
        games,
        peak_rss_kb,
        code: status.code(),
        stderr,
    }
}

/// An engine that fails its handshake: the run stops before the first game with exit 1 and
/// the reason; with `on_engine_failure: forfeit` its games are forfeited and the run goes on.
fn fails_the_handshake(name: &str, flags: &str, entry: &str, reason: &str) {
    let stopped = run_hostile(name, flags, entry, "");
    assert_eq!(stopped.code, Some(1), "{name}: {}", stopped.stderr);
    assert!(
        stopped.stderr.contains(reason),
        "{name}: {}",
        stopped.stderr
    );
    assert!(stopped.games.is_empty(), "{name}: no game is played");
    let forfeited = run_hostile(name, flags, entry, "on_engine_failure: forfeit");
    assert_eq!(forfeited.code, Some(0), "{name}: {}", forfeited.stderr);
    assert_eq!(forfeited.games.len(), 2);
    for g in &forfeited.games {
        assert_eq!(g.termination, Termination::Withdrawn, "{name}: {g:?}");
        assert!(
            hostile_lost(g) && g.detail.contains(reason),
            "{name}: {}",
            g.detail
        );
    }
}

fn hostile_lost(game: &GameRecord) -> bool {
    (game.first == "hostile" && game.result == "0-1")
        || (game.second == "hostile" && game.result == "1-0")
}

/// Every game ends with `expected` (or normally, where the fault did not strike that game),
/// and at least one with `expected`, lost by hostile.
fn check(name: &str, flags: &str, expected: Termination) -> Outcome {
    let outcome = tournament(
        name,
        flags,
        "time_control: { movetime_ms: 50, margin_ms: 50, move_timeout_ms: 2000 }",
    );
    let mut struck = 0;
    for g in &outcome.games {
        if g.termination == expected {
            assert!(
                hostile_lost(g),
                "{name}: hostile should lose game {}: {g:?}",
                g.game_id
            );
            assert!(
                g.detail.contains("hostile"),
                "{name}: detail names the engine: {}",
                g.detail
            );
            struck += 1;
        } else {
            assert_eq!(g.termination, Termination::Normal, "{name}: {}", g.detail);
        }
    }
    assert!(
        struck > 0,
        "{name}: no game ended by {expected}: {:?}",
        outcome.games
    );
    outcome
}

#[test]
fn never_answers_ugi() {
    fails_the_handshake("no_ugi", "--no-ugi", "", "no `ugiok` within");
}

#[test]
fn exits_during_the_handshake() {
    fails_the_handshake(
        "exit_handshake",
        "--exit-in-handshake",
        "",
        "exit status: 2",
    );
}

#[test]
fn crashes_mid_game() {
    let out = check("crash", "--crash --at 2", Termination::Crash);
    assert!(
        out.games
            .iter()
            .any(|g| g.detail.contains("exit status: 3")),
        "{:?}",
        out.games
    );
}

#[test]
fn never_answers_go() {
    check("hang", "--hang --at 2", Termination::TimeForfeit);
}

#[test]
fn answers_after_the_deadline() {
    check("late", "--late --at 2", Termination::TimeForfeit);
}

#[test]
fn prints_garbage_between_lines() {
    let out = tournament(
        "garbage",
        "--garbage --at 2",
        "time_control: { movetime_ms: 50 }",
    );
    assert!(
        out.games
            .iter()
            .all(|g| g.termination == Termination::Normal),
        "{:?}",
        out.games
    );
}

#[test]
fn makes_an_illegal_move() {
    let out = check("illegal", "--illegal --at 2", Termination::IllegalMove);
    assert!(
        out.games.iter().any(|g| g.detail.contains("illegal move")),
        "{:?}",
        out.games
    );
}

#[test]
fn sends_a_move_of_the_wrong_game() {
    let out = check(
        "wrong_game",
        "--wrong-game --at 2",
        Termination::IllegalMove,
    );
    assert!(out.games.iter().any(|g| g.detail.contains("93-33-30")));
}

#[test]
fn sends_bestmove_without_a_move() {
    check(
        "empty_bestmove",
        "--empty-bestmove --at 2",
        Termination::ProtocolError,
    );
}

#[test]
fn floods_stdout_with_100_mb_of_info() {
    let out = tournament(
        "flood_info",
        "--flood-info --mb 100",
        "time_control: { movetime_ms: 60000 }",
    );
    assert!(
        out.games
            .iter()
            .all(|g| g.termination == Termination::Normal),
        "{:?}",
        out.games
    );
    assert!(
        out.peak_rss_kb < 100_000,
        "runner peak RSS {} kB",
        out.peak_rss_kb
    );
}

#[test]
fn floods_stderr() {
    let out = tournament(
        "flood_stderr",
        "--flood-stderr --mb 30",
        "time_control: { movetime_ms: 60000 }",
    );
    assert!(
        out.games
            .iter()
            .all(|g| g.termination == Termination::Normal),
        "{:?}",
        out.games
    );
}

#[test]
fn prints_a_20_mb_line_without_newline() {
    let out = check(
        "long_line",
        "--long-line --mb 20",
        Termination::ProtocolError,
    );
    assert!(
        out.peak_rss_kb < 100_000,
        "runner peak RSS {} kB",
        out.peak_rss_kb
    );
    assert!(out.games.iter().any(|g| g.detail.contains("longer than")));
}

#[test]
fn prints_bytes_that_are_not_utf8() {
    check("non_utf8", "--non-utf8 --at 2", Termination::ProtocolError);
}

#[test]
fn ignores_quit() {
    let out = tournament(
        "ignore_quit",
        "--ignore-quit",
        "time_control: { movetime_ms: 50 }",
    );
    assert!(
        out.games
            .iter()
            .all(|g| g.termination == Termination::Normal)
    );
}

#[test]
fn forks_a_child_that_keeps_the_pipes_open() {
    // The engine itself exited (status 4); only its child holds the pipe: a crash, not slowness.
    let out = check("fork_child", "--fork-child --at 2", Termination::Crash);
    assert!(
        out.games
            .iter()
            .any(|g| g.detail.contains("exit status: 4")
                && g.detail.contains("kept its output open")),
        "{:?}",
        out.games
    );
}

#[test]
fn closes_stdout_but_keeps_running() {
    check("close_stdout", "--close-stdout --at 2", Termination::Crash);
}

#[test]
fn cannot_start_under_its_memory_limit() {
    fails_the_handshake("memory", "", "limits: { memory_mb: 1 }", "hostile");
}

// Issue 23: a child in a session of its own escapes the process-group kill; arena, a child
// subreaper, adopts it when the engine ends and kills it. `run_hostile` fails the test when a
// process carrying the tag survives the run.
#[test]
fn a_detached_child_does_not_outlive_the_run() {
    for restart in ["", "restart: per_game"] {
        let out = tournament("detach", "--detach --at 2", restart);
        assert!(
            out.games
                .iter()
                .all(|g| g.termination == Termination::Normal),
            "{restart}: {:?}",
            out.games
        );
    }
}

/// Starts `arena ARGS` on a hostile engine that detaches a sleeper tagged `tag` at its first
/// `go`, waits until the sleeper runs, interrupts arena `signals` times (SIGINT) and returns
/// its exit code once every process carrying the tag is gone (or the wait is over).
fn interrupted(args: &[String], tag: &str, signals: usize) -> Option<i32> {
    let mut arena = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts");
    let started = Instant::now();
    // The sleeper, not the engine: both carry the tag, the sleeper has `--child`.
    while survivors(&format!("--child --tag {tag}")).is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "no sleeper");
        thread::sleep(Duration::from_millis(10));
    }
    let pid = nix::unistd::Pid::from_raw(arena.id() as i32);
    for _ in 0..signals {
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
        thread::sleep(Duration::from_millis(20));
    }
    let status = arena.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    while !survivors(tag).is_empty() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(survivors(tag), Vec::<u32>::new(), "{args:?}: survived");
    status.code()
}

// Issue 23: Ctrl-C (once, twice) of a run, and of check-engine, ends what the engines detached.
#[test]
fn an_interrupt_ends_what_engines_detached() {
    let dir = Dir::new();
    for signals in [1, 2] {
        let tag = format!("hostile-int-{signals}-{}", std::process::id());
        let config = dir.write(
            &format!("int{signals}.yaml"),
            &format!(
                "name: int
seed: 5
rounds: 50
concurrency: 1
time_control: {{ movetime_ms: 100 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: hostile, command: {hostile}, args: [--tag, {tag}, --detach, --at, '1'] }}
  - {{ name: mcts, command: {mcts} }}
output: {out}
",
                hostile = engine("hostile"),
                mcts = engine("mcts"),
                out = dir.path(&format!("int{signals}")).display(),
            ),
        );
        let args = vec![
            "run".to_owned(),
            "-q".to_owned(),
            config.display().to_string(),
        ];
        assert_eq!(
            interrupted(&args, &tag, signals),
            Some(130),
            "{signals} SIGINT"
        );
    }
    // check-engine on a script that detaches a sleeper at start and then searches (mcts uses
    // its whole movetime, so the battery lasts seconds).
    let tag = format!("hostile-int-check-{}", std::process::id());
    let script = dir.write(
        "detaching.sh",
        &format!(
            "#!/bin/sh\nsetsid {hostile} --child --tag {tag} </dev/null >/dev/null 2>&1 &\nexec {mcts}\n",
            hostile = engine("hostile"),
            mcts = engine("mcts"),
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let args = vec![
        "check-engine".to_owned(),
        "--".to_owned(),
        script.display().to_string(),
    ];
    assert_eq!(interrupted(&args, &tag, 1), Some(130), "check-engine");
}
