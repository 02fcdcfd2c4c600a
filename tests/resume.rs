//! Kill-and-resume with nothing lost: a run killed with SIGKILL or interrupted with SIGINT
//! resumes to the same games as an uninterrupted run.

mod util;

use std::fs;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use util::{Dir, arena, engine, python_engine, read_games, without_timing};

fn config(dir: &Dir, out: &str) -> std::path::PathBuf {
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: resume
seed: 4
rounds: 3
concurrency: 2
time_control: {{ depth: 2 }}
boards:
  - {{ game: seven_colors, size: 8 }}
  - {{ game: awale, pits: 6, random_opening_plies: 2 }}
  - {{ game: amazons, width: 6, queens: 4 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: alphabeta, command: {alphabeta}, options: {{ Width: 4, RootWidth: 8 }} }}
  - {{ name: python-random, command: python3, args: [{python}] }}
output: {out}
",
            random = engine("random"),
            alphabeta = engine("alphabeta"),
            python = python_engine(),
            out = dir.path(out).display(),
        ),
    )
}

fn start(config: &std::path::Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "-q"])
        .arg(config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts")
}

/// Waits until games.csv holds at least `rows` data rows (or the run ends).
fn wait_for_rows(child: &mut Child, path: &std::path::Path, rows: usize) {
    let started = Instant::now();
    loop {
        let have = fs::read_to_string(path).map_or(0, |t| t.lines().count().saturating_sub(1));
        if have >= rows || child.try_wait().unwrap().is_some() {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn sigkill_mid_run_then_resume_equals_a_clean_run() {
    let dir = Dir::new();
    arena()
        .args(["run", "-q"])
        .arg(config(&dir, "clean"))
        .assert()
        .success();
    let clean = without_timing(read_games(&dir.path("clean/games.csv")));
    assert_eq!(clean.len(), 3 * 3 * 2 * 3);

    let killed = config(&dir, "killed");
    let mut child = start(&killed);
    wait_for_rows(&mut child, &dir.path("killed/games.csv"), 8);
    child.kill().unwrap(); // SIGKILL: no chance to flush or clean up
    child.wait().unwrap();
    let (partial, _) = arena::report::files::read_games(&dir.path("killed/games.csv")).unwrap();
    assert!(
        partial.len() < clean.len(),
        "killed too late to test anything"
    );
    arena().args(["run", "-q"]).arg(&killed).assert().success();
    assert_eq!(
        without_timing(read_games(&dir.path("killed/games.csv"))),
        clean
    );
}

#[test]
fn sigint_stops_cleanly_with_exit_130_and_resumes() {
    // Slow enough to be interrupted for sure: 10 games of about 50 plies at 30 ms a move, by
    // engines that search for their whole movetime.
    let dir = Dir::new();
    let path = dir.write(
        "int.yaml",
        &format!(
            "name: int
seed: 4
rounds: 5
concurrency: 2
time_control: {{ movetime_ms: 30 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: a, command: {alphabeta} }}
  - {{ name: b, command: {mcts} }}
output: {out}
",
            alphabeta = engine("alphabeta"),
            mcts = engine("mcts"),
            out = dir.path("int").display(),
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("run")
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arena starts");
    wait_for_rows(&mut child, &dir.path("int/games.csv"), 1);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let (partial, dropped) = arena::report::files::read_games(&dir.path("int/games.csv")).unwrap();
    assert!(
        !partial.is_empty() && partial.len() < 10,
        "{}",
        partial.len()
    );
    assert_eq!(dropped, None, "every written row is whole");
    assert!(
        stdout.starts_with("INTERRUPTED: partial results"),
        "{stdout}"
    );
    assert!(
        stderr.contains("run the same command to resume"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("restarting"),
        "engines arena killed are not restarts: {stderr}"
    );
    let ratings = fs::read_to_string(dir.path("int/ratings.csv")).unwrap();
    assert!(
        ratings.lines().count() > 1,
        "ratings rewritten from what finished"
    );
    assert!(
        dir.path("int/report.html").exists() && dir.path("int/results.xlsx").exists(),
        "report.html and results.xlsx written after the interrupt"
    );
    arena().args(["run", "-q"]).arg(&path).assert().success();
    let resumed = read_games(&dir.path("int/games.csv"));
    assert_eq!(resumed.len(), 10);
    let ids: Vec<u64> = resumed.iter().map(|g| g.game_id).collect();
    assert_eq!(ids, (0..10).collect::<Vec<u64>>());
}

#[test]
fn unwritable_output_fails_before_the_first_game() {
    let dir = Dir::new();
    fs::write(dir.path("blocker"), "a file, not a directory").unwrap();
    let text = fs::read_to_string(config(&dir, "x")).unwrap().replace(
        &dir.path("x").display().to_string(),
        &dir.path("blocker/out").display().to_string(),
    );
    let path = dir.write("blocked.yaml", &text);
    let out = arena().args(["run", "-q"]).arg(&path).assert().code(1);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("blocker/out") && stderr.contains("cannot"),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_is_reported_by_the_writer() {
    let mut writer =
        arena::report::files::GamesWriter::append(std::path::Path::new("/dev/full")).unwrap();
    let dir = Dir::new();
    arena()
        .args(["run", "-q"])
        .arg(config(&dir, "ok"))
        .assert()
        .success();
    let record = read_games(&dir.path("ok/games.csv")).remove(0);
    let err = writer.write(&record).unwrap_err();
    assert!(err.to_string().starts_with("/dev/full:"), "{err}");
}
