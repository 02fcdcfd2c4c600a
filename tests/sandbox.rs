//! The sandbox (issue 24), through the real binary: each escape of the `hostile` engine fails
//! under `sandbox: on` and succeeds under `off` (so each test can fail); reference engines,
//! the Python template, the C skeleton and a course library play whole games under `on`;
//! `suspend_idle` stops an engine on its opponent's time; one run as uid 65534.

mod util;

use std::fs;
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use arena::record::Termination;
use util::{Dir, arena, engine, read_games};

/// A one-round Awale tournament config between `engines` (YAML list items) in `dir`, with
/// `sandbox` at the top level. The margin lets an escape take its time (1000 forks) without
/// losing on time.
fn config(dir: &Dir, sandbox: &str, engines: &str, extra: &str) -> std::path::PathBuf {
    dir.write(
        "t.yaml",
        &format!(
            "seed: 5
concurrency: 2
time_control: {{ movetime_ms: 30, margin_ms: 20000 }}
boards: [{{ game: awale }}]
sandbox: {sandbox}
on_engine_failure: forfeit
output: {out}
{extra}
engines:
{engines}",
            out = dir.path("out").display()
        ),
    )
}

/// Everything the run wrote to its output directory (files of every kind, as text).
fn all_output(dir: &Path) -> String {
    let mut text = String::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            text += &all_output(&path);
        } else {
            text += &String::from_utf8_lossy(&fs::read(&path).unwrap_or_default());
        }
    }
    text
}

/// Runs `hostile --escape KIND --target TARGET` against `random` under `sandbox`, and
/// returns the line it reported (`info string escape KIND …`) and everything written.
fn escape(kind: &str, target: &str, sandbox: &str) -> (String, String) {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: random, command: {} }}
  - {{ name: hostile, command: {}, args: [--escape, {kind}, --target, '{target}', --tag, sbx-{kind}] }}
",
        engine("random"),
        engine("hostile")
    );
    let cfg = config(&dir, sandbox, &engines, "");
    arena()
        .arg("run")
        .arg("--log-protocol")
        .arg("-q")
        .arg(&cfg)
        .assert()
        .success();
    let games = read_games(&dir.path("out/games.csv"));
    assert!(
        games.iter().all(|g| g.termination == Termination::Normal),
        "{kind} under {sandbox}: the hostile engine played on: {games:?}"
    );
    let everything = all_output(&dir.path("out"));
    let line = everything
        .lines()
        .find(|l| l.contains(&format!("string escape {kind} ")))
        .unwrap_or_else(|| panic!("no escape report ({} bytes of output)", everything.len()))
        .to_owned();
    (line, everything)
}

fn assert_contained(kind: &str, target: &str) -> String {
    let (on, _) = escape(kind, target, "on");
    assert!(
        on.contains(&format!("escape {kind} failed")),
        "under on: {on}"
    );
    let (off, _) = escape(kind, target, "off");
    assert!(
        off.contains(&format!("escape {kind} ok")),
        "under off: {off}"
    );
    on
}

#[test]
fn reading_a_secret_outside_the_engine_folder_fails() {
    let secret_dir = Dir::new();
    let secret = secret_dir.write("secret.txt", "TOPSECRET-4711");
    let target = secret.display().to_string();
    let (on, everything) = escape("read", &target, "on");
    assert!(on.contains("failed"), "{on}");
    assert!(!everything.contains("TOPSECRET-4711"), "the secret leaked");
    let (off, everything) = escape("read", &target, "off");
    assert!(off.contains("ok"), "{off}");
    assert!(everything.contains("TOPSECRET-4711"));
    // Through a shell: the same.
    let (on, everything) = escape("exec", &target, "on");
    assert!(on.contains("failed"), "{on}");
    assert!(
        !everything.contains("TOPSECRET-4711"),
        "the secret leaked via sh"
    );
    let (off, _) = escape("exec", &target, "off");
    assert!(off.contains("TOPSECRET-4711"), "{off}");
}

#[test]
fn listing_another_engines_folder_fails() {
    let other = Dir::new();
    other.write("team-b-engine.py", "print()");
    assert_contained("list", &other.path("").display().to_string());
}

#[test]
fn writing_outside_the_working_directory_fails() {
    let outside = Dir::new();
    let target = outside.path("dropped.txt");
    assert_contained("write", &target.display().to_string());
    // Only the `off` run wrote it.
    assert_eq!(fs::read_to_string(&target).unwrap(), "escaped");
}

#[test]
fn connecting_to_a_local_listener_fails() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let target = listener.local_addr().unwrap().to_string();
    let (on, _) = escape("connect", &target, "on");
    assert!(on.contains("failed"), "{on}");
    assert!(
        listener.accept().is_err(),
        "the listener got a connection under on"
    );
    let (off, _) = escape("connect", &target, "off");
    assert!(off.contains("ok"), "{off}");
    assert!(listener.accept().is_ok());
}

#[test]
fn connecting_to_a_unix_socket_outside_fails() {
    // A path-named socket (tmux's, D-Bus's): Landlock does not govern `connect` to it and the
    // network namespace does not hide it; the seccomp filter refuses the socket itself.
    let dir = Dir::new();
    let path = dir.path("server.sock");
    let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let target = path.display().to_string();
    let (on, _) = escape("unix", &target, "on");
    assert!(on.contains("failed"), "{on}");
    assert!(
        listener.accept().is_err(),
        "the socket got a connection under on"
    );
    let (off, _) = escape("unix", &target, "off");
    assert!(off.contains("ok"), "{off}");
    assert!(listener.accept().is_ok());
}

#[test]
fn a_fork_bomb_stops_at_the_process_cap() {
    let on = assert_contained("fork", "");
    assert!(on.contains("started"), "{on}");
    // No sleeper survives either run.
    let survivors: Vec<String> = fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|p| {
            fs::read(p.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("sbx-fork"))
        })
        .map(|p| p.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(survivors.is_empty(), "left behind: {survivors:?}");
}

#[test]
fn allocating_8_gib_fails() {
    assert_contained("alloc", "");
}

/// `hostile --burn` against `mcts` thinking 200 ms a move (all of it): the most CPU time the hostile
/// engine used between its `bestmove` and its next `go`, per `suspend_idle`.
fn idle_cpu(suspend: bool) -> u64 {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: thinker, command: {} }}
  - {{ name: burner, command: {}, args: [--burn] }}
",
        engine("mcts"),
        engine("hostile")
    );
    let sandbox = format!("{{ suspend_idle: {suspend} }}");
    let cfg = config(&dir, &sandbox, &engines, "rounds: 1");
    let cfg_text = fs::read_to_string(&cfg)
        .unwrap()
        .replace("movetime_ms: 30", "movetime_ms: 200");
    fs::write(&cfg, cfg_text).unwrap();
    arena()
        .arg("run")
        .arg("--log-protocol")
        .arg("-q")
        .arg(&cfg)
        .assert()
        .success();
    let everything = all_output(&dir.path("out"));
    let idle: Vec<u64> = everything
        .lines()
        .filter_map(|l| l.split("idle_cpu_ms ").nth(1))
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    assert!(idle.len() > 5, "too few reports: {idle:?}");
    // The median: one tick of scheduling noise is not thinking.
    let mut sorted = idle.clone();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

#[test]
fn suspend_idle_stops_thinking_on_the_opponents_time() {
    let on = idle_cpu(true);
    let off = idle_cpu(false);
    assert!(on <= 10, "suspended: {on} ms of CPU on the opponent's time");
    assert!(off >= 30, "not suspended: only {off} ms");
}

#[test]
fn reference_engines_and_the_python_template_play_whole_games_under_on() {
    let dir = Dir::new();
    let mut engines = String::new();
    // Each against `random` (a gauntlet), on a board of each game.
    for name in [
        "random",
        "alphabeta",
        "mcts",
        "greedy",
        "foresight",
        "hegemonic",
        "hybrid",
        "mobility",
        "random-available",
        "instant",
    ] {
        engines += &format!("  - {{ name: {name}, command: {} }}\n", engine(name));
    }
    // As a user writes it: the interpreter found on PATH (a pyenv shim on some machines).
    engines += &format!(
        "  - {{ name: python, command: python3, args: [{}] }}\n",
        util::python_engine()
    );
    let cfg = dir.write(
        "t.yaml",
        &format!(
            "seed: 3
concurrency: 2
time_control: {{ movetime_ms: 20 }}
format: gauntlet
gauntlet_engine: random
boards:
  - {{ game: awale }}
  - {{ game: amazons, shape: square, width: 6 }}
  - {{ game: seven_colors, size: 8 }}
sandbox: on
output: {}
engines:
{engines}",
            dir.path("out").display()
        ),
    );
    arena().arg("run").arg("-q").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    // Each engine on each board it declares: every one played.
    let played: std::collections::BTreeSet<&str> = games
        .iter()
        .flat_map(|g| [g.first.as_str(), g.second.as_str()])
        .collect();
    assert_eq!(played.len(), 11, "{played:?}");
    assert!(
        games.iter().all(|g| g.termination == Termination::Normal),
        "{games:?}"
    );
}

#[test]
fn the_c_skeleton_and_a_course_library_play_under_on() {
    let dir = Dir::new();
    let binary = dir.path("c_engine");
    let status = Command::new("make")
        .arg("-C")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/c"))
        .arg(format!("OUT={}", binary.display()))
        .status()
        .expect("make runs");
    assert!(status.success());
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/players");
    let so = dir.path("librandom.so");
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&so)
        .arg(players.join("random.c"))
        .arg(format!("-I{}", players.join("dir-clockwise").display()))
        .arg(format!("-I{}", players.display()))
        .status()
        .expect("cc runs");
    assert!(status.success(), "compiling the course player failed");
    let cfg = dir.write(
        "t.yaml",
        &format!(
            "seed: 3
concurrency: 2
rounds: 2
time_control: {{ movetime_ms: 50 }}
boards:
  - {{ game: amazons, shape: square, width: 8 }}
sandbox: on
output: {}
engines:
  - {{ name: c, command: {} }}
  - {{ name: lib, library: {}, directions: clockwise }}
  - {{ name: random, command: {} }}
",
            dir.path("out").display(),
            binary.display(),
            so.display(),
            engine("random")
        ),
    );
    arena().arg("run").arg("-q").arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    assert_eq!(games.len(), 3 * 2 * 2);
    assert!(
        games.iter().all(|g| g.termination == Termination::Normal),
        "{games:?}"
    );
}

#[test]
fn an_unprivileged_user_gets_the_same_sandbox() {
    let why = if !Path::new("/usr/bin/setpriv").exists() {
        Some("setpriv (util-linux) is missing")
    } else if !util::is_root() {
        Some("setpriv changes the user only as root")
    } else {
        None
    };
    if util::skip_unless_available(why) {
        return;
    }
    // arena itself as uid 65534: engines in world-readable folders, output in a folder it owns.
    let dir = tempfile::Builder::new()
        .prefix("sbx-nobody")
        .tempdir()
        .unwrap();
    Command::new("chown")
        .args(["65534:65534"])
        .arg(dir.path())
        .status()
        .unwrap();
    let secret_dir = Dir::new();
    let secret = secret_dir.write("secret.txt", "NOBODY-SECRET");
    Command::new("chmod")
        .arg("755")
        .arg(secret_dir.path(""))
        .status()
        .unwrap();
    Command::new("chmod")
        .arg("644")
        .arg(&secret)
        .status()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let engines = format!(
        "  - {{ name: random, command: {} }}
  - {{ name: reader, command: {h}, args: [--escape, read, --target, '{}'] }}
  - {{ name: bomber, command: {h}, args: [--escape, fork, --tag, sbx-nobody] }}
  - {{ name: caller, command: {h}, args: [--escape, connect, --target, '{}'] }}
",
        engine("random"),
        secret.display(),
        listener.local_addr().unwrap(),
        h = engine("hostile")
    );
    let cfg = dir.path().join("t.yaml");
    fs::write(
        &cfg,
        format!(
            "seed: 5\nconcurrency: 2\ntime_control: {{ movetime_ms: 30 }}\nboards: [{{ game: awale }}]\nsandbox: on\noutput: {}\nengines:\n{engines}",
            dir.path().join("out").display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("644").arg(&cfg).status().unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "--log-protocol", "-q"])
        .arg(&cfg)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let everything = all_output(&dir.path().join("out"));
    for kind in ["read", "fork", "connect"] {
        assert!(
            everything.contains(&format!("escape {kind} failed")),
            "{kind} was not stopped"
        );
    }
    assert!(!everything.contains("NOBODY-SECRET"));
    assert!(listener.accept().is_err());
}

#[test]
fn check_shows_each_engines_sandbox_and_what_the_machine_enforces() {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: random, command: {}, sandbox: off }}
  - {{ name: boxed, command: {}, sandbox: {{ network: true, memory_mb: 512 }} }}
  - {{ name: plain, command: {} }}
",
        engine("random"),
        engine("random"),
        engine("random")
    );
    let cfg = config(&dir, "on", &engines, "");
    let out = arena().arg("check").arg(&cfg).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    for want in [
        "sandbox of random: OFF",
        "sandbox of boxed: network yes, filesystem confined, memory 512 MiB, processes 16",
        "sandbox of plain: network no, filesystem confined, memory 1024 MiB",
        "sandbox on this machine: filesystem (Landlock): yes",
        "sandbox on this machine: network (user + network namespace): yes",
    ] {
        assert!(text.contains(want), "missing `{want}` in:\n{text}");
    }
}

#[test]
fn no_sandbox_overrides_the_config_loudly() {
    let dir = Dir::new();
    let secret_dir = Dir::new();
    let secret = secret_dir.write("secret.txt", "OVERRIDDEN-SECRET");
    let engines = format!(
        "  - {{ name: random, command: {} }}
  - {{ name: hostile, command: {}, args: [--escape, read, --target, '{}'] }}
",
        engine("random"),
        engine("hostile"),
        secret.display()
    );
    let cfg = config(&dir, "on", &engines, "");
    let out = arena()
        .args(["run", "-q", "--log-protocol", "--no-sandbox"])
        .arg(&cfg)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--no-sandbox: every engine runs UNCONFINED"),
        "{stderr}"
    );
    assert!(all_output(&dir.path("out")).contains("OVERRIDDEN-SECRET"));
}

#[test]
fn a_read_path_that_does_not_exist_is_a_config_error() {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: random, command: {} }}\n  - {{ name: r2, command: {} }}\n",
        engine("random"),
        engine("random")
    );
    let cfg = config(&dir, "{ read: [no/such/book.bin] }", &engines, "");
    let out = arena().arg("check").arg(&cfg).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("engines[0] (random): sandbox.read:")
            && stderr.contains("no/such/book.bin"),
        "{stderr}"
    );
}

/// `arena check-engine --json` on `command`: each check's name, verdict and detail.
fn check_engine(command: &[String]) -> Vec<(String, String, String)> {
    let output = arena()
        .args([
            "check-engine",
            "--quick",
            "--json",
            "--margin",
            "1000",
            "--",
        ])
        .args(command)
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    json[0]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (text("name"), text("verdict"), text("detail"))
        })
        .collect()
}

#[test]
fn check_engine_names_the_path_the_sandbox_refused() {
    let book_dir = Dir::new();
    let book = book_dir.write("book.txt", "opening book");
    let team = Dir::new();
    // Reads a book outside its folder at start, then becomes the random engine.
    let script = team.write(
        "engine.sh",
        &format!(
            "#!/bin/sh\ncat {} > /dev/null || exit 1\nexec {}\n",
            book.display(),
            engine("random")
        ),
    );
    Command::new("chmod")
        .arg("755")
        .arg(&script)
        .status()
        .unwrap();
    let checks = check_engine(&[script.display().to_string()]);
    let sandbox = checks
        .iter()
        .find(|c| c.0 == "sandbox")
        .expect("a sandbox check");
    // A warning: nothing asked for the sandbox (a config's `sandbox: on` makes it a failure).
    assert_eq!(sandbox.1, "warn", "{sandbox:?}");
    assert!(
        sandbox
            .2
            .contains(&format!("{}: Permission denied", book.display()))
            && sandbox.2.contains("sandbox.read"),
        "{sandbox:?}"
    );
    // Everything else passed: it plays unconfined.
    assert!(
        checks.iter().all(|c| c.0 == "sandbox" || c.1 != "fail"),
        "{checks:?}"
    );
    let fine = check_engine(&[engine("random")]);
    let sandbox = fine
        .iter()
        .find(|c| c.0 == "sandbox")
        .expect("a sandbox check");
    assert_eq!(sandbox.1, "pass", "{sandbox:?}");
    assert!(sandbox.2.contains("plays under network no"), "{sandbox:?}");
}

#[test]
fn a_crash_under_the_sandbox_says_so_with_the_last_stderr_line() {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: random, command: {} }}
  - {{ name: grower, command: {}, args: [--grow, --mb, '2048'] }}
",
        engine("random"),
        engine("hostile")
    );
    let cfg = config(&dir, "on", &engines, "");
    arena().args(["run", "-q"]).arg(&cfg).assert().success();
    let games = read_games(&dir.path("out/games.csv"));
    let crashed: Vec<_> = games
        .iter()
        .filter(|g| g.termination == Termination::Crash)
        .collect();
    assert!(!crashed.is_empty(), "{games:?}");
    for g in crashed {
        assert!(
            g.detail.contains("(SIGABRT); sandbox on; last stderr: `"),
            "{}",
            g.detail
        );
    }
}

#[test]
fn no_child_outlives_a_sandboxed_engine() {
    let dir = Dir::new();
    let engines = format!(
        "  - {{ name: random, command: {} }}
  - {{ name: daemon, command: {}, args: [--detach, --tag, sbx-detach] }}
",
        engine("random"),
        engine("hostile")
    );
    let cfg = config(&dir, "on", &engines, "");
    arena().args(["run", "-q"]).arg(&cfg).assert().success();
    let survivors: Vec<String> = fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|p| {
            fs::read(p.path().join("cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("sbx-detach"))
        })
        .map(|p| p.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(survivors.is_empty(), "left behind: {survivors:?}");
}
