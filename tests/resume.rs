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

// Issue 23: one run per output directory. A second `arena run` (and `arena report`, `arena
// merge`) on a directory a run is filling exits 2 naming it and touches nothing; once the first
// is killed, its lock is gone and the same command resumes.
#[test]
fn a_second_process_on_the_same_output_directory_is_refused_until_the_first_ends() {
    let dir = Dir::new();
    let path = config(&dir, "locked");
    let mut first = start(&path);
    let games = dir.path("locked/games.csv");
    wait_for_rows(&mut first, &games, 2);
    assert!(first.try_wait().unwrap().is_none(), "finished too early");
    let before = fs::read(&games).unwrap();
    let pid = first.id().to_string();
    for args in [
        vec![
            "run".to_owned(),
            "-q".to_owned(),
            path.display().to_string(),
        ],
        vec![
            "report".to_owned(),
            dir.path("locked").display().to_string(),
        ],
        vec![
            "merge".to_owned(),
            dir.path("locked").display().to_string(),
            "--output".to_owned(),
            dir.path("locked").display().to_string(),
        ],
    ] {
        let out = arena().args(&args).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            err.contains("is in use by process") && err.contains(&pid),
            "{args:?}: {err}"
        );
    }
    // The refused runs wrote nothing: the first one's rows are all there (it may have added some).
    assert!(fs::read(&games).unwrap().starts_with(&before));
    first.kill().unwrap();
    first.wait().unwrap();
    arena().args(["run", "-q"]).arg(&path).assert().success();
    assert_eq!(read_games(&games).len(), 3 * 3 * 2 * 3);
}

// Issue 23, audit item 2: on a disk that fills mid-run, the first write failure is reported with
// its path, the run stops (exit 1) with its summary and says how to resume, and the games
// written before it stay readable.
#[test]
fn a_disk_that_fills_mid_run_names_the_first_failure_and_keeps_the_earlier_games() {
    if util::skip_unless_available(
        (!util::is_root()).then_some("mounting a small tmpfs needs root"),
    ) {
        return;
    }
    let dir = Dir::new();
    let out = dir.path("full");
    fs::create_dir_all(&out).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=96k", "tmpfs"])
        .arg(&out)
        .status()
        .unwrap();
    // Root without CAP_SYS_ADMIN (an unprivileged container) cannot mount.
    if util::skip_unless_available(
        (!mounted.success()).then_some("mount -t tmpfs is not permitted"),
    ) {
        return;
    }
    struct Unmount(std::path::PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _unmount = Unmount(out.clone());
    let path = dir.write(
        "full.yaml",
        &format!(
            "name: full
seed: 4
rounds: 200
concurrency: 1
record_moves: true
time_control: {{ depth: 1 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: a, command: {random} }}
  - {{ name: b, command: {random} }}
output: {out}
",
            random = engine("random"),
            out = out.display(),
        ),
    );
    let run = arena().arg("run").arg(&path).assert().code(1);
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(
        err.contains("stopped: cannot write")
            && err.contains(&out.display().to_string())
            && err.contains("No space left on device")
            && err.contains("run the same command to resume"),
        "{err}"
    );
    // Exactly one failure is the reason given, and the summary of the games played is shown.
    assert_eq!(err.matches("stopped:").count(), 1, "{err}");
    assert!(stdout.contains(" games: normal"), "{stdout}");
    let (kept, _) = arena::report::files::read_games(&out.join("games.csv")).unwrap();
    assert!(!kept.is_empty() && kept.len() < 400, "{} rows", kept.len());
}
