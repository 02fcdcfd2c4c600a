//! `arena slurm --submit` against a real single-node Slurm (scripts/slurm-local.sh): a 3-shard
//! job array and its dependent merge give the files of a single-machine `arena run`, and a
//! requeued task resumes its shard without playing a game again.
//!
//! Needs slurm-wlm and munge (Debian, installed by scripts/test.sh) and root (slurmd). Without
//! them the test fails, unless `ARENA_SKIP_ROOT_TESTS=1` skips it knowingly.

mod util;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use util::{Dir, arena, engine, read_games, without_timing};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-local.sh");

/// A running local Slurm; stopped (daemons killed, state removed) when dropped, also when
/// the test fails.
struct Cluster {
    state: PathBuf,
    port: String,
    conf: PathBuf,
}

impl Cluster {
    fn script(&self, action: &str) -> std::process::Output {
        Command::new("bash")
            .arg(SCRIPT)
            .arg(action)
            .env("ARENA_SLURM_DIR", &self.state)
            .env("ARENA_SLURM_PORT", &self.port)
            .output()
            .expect("bash runs")
    }

    fn start(state: PathBuf) -> Cluster {
        // A port of this process's own, so two test runs on one machine do not meet.
        let port = (20_000 + std::process::id() % 20_000 * 2).to_string();
        let conf = state.join("slurm.conf");
        let cluster = Cluster { state, port, conf };
        let out = cluster.script("start");
        assert!(
            out.status.success(),
            "scripts/slurm-local.sh start failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster
    }

    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn text(&self, program: &str, args: &[&str]) -> String {
        self.command(program)
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// The daemons' logs, the job's state and its stdout/stderr files, for a failure message.
    fn diagnosis(&self, jobs: &[u64], logs: &Path) -> String {
        let mut text = String::new();
        for job in jobs {
            text += &self.text("scontrol", &["show", "job", &job.to_string()]);
        }
        if let Ok(entries) = fs::read_dir(logs) {
            for e in entries.flatten() {
                text += &format!(
                    "=== {}\n{}\n",
                    e.path().display(),
                    fs::read_to_string(e.path()).unwrap_or_default()
                );
            }
        }
        text + &String::from_utf8_lossy(&self.script("logs").stdout)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.script("stop");
    }
}

/// Why the local Slurm cannot run here, if it cannot: packages missing, or not root (slurmd).
fn unavailable() -> Option<&'static str> {
    let installed = ["slurmctld", "slurmd", "sbatch", "munged"].iter().all(|p| {
        ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
            .iter()
            .any(|d| Path::new(d).join(p).exists())
    });
    let root = util::is_root();
    if !installed {
        Some("Slurm is not installed (apt-get install -y slurm-wlm munge)")
    } else if !root {
        Some("slurmd needs root")
    } else {
        None
    }
}

fn config(dir: &Dir) -> PathBuf {
    dir.write(
        "class.yaml",
        &format!(
            "name: class
seed: 11
rounds: 2
time_control: {{ depth: 2 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 2 }}
  - {{ game: seven_colors, size: 7 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy} }}
  - {{ name: alphabeta, command: {alphabeta}, options: {{ Width: 4, RootWidth: 8 }} }}
",
            random = engine("random"),
            greedy = engine("greedy"),
            alphabeta = engine("alphabeta"),
        ),
    )
}

/// Waits until `job` has ended; its final state (`COMPLETED`, `FAILED`, …).
fn wait_for(cluster: &Cluster, job: u64, logs: &Path, limit: Duration) -> String {
    let started = Instant::now();
    loop {
        let info = cluster.text("scontrol", &["show", "job", &job.to_string(), "-o"]);
        let field = |name: &str| {
            info.split_whitespace()
                .find_map(|f| f.strip_prefix(name))
                .unwrap_or_default()
                .to_owned()
        };
        let (state, reason) = (field("JobState="), field("Reason="));
        match state.as_str() {
            "COMPLETED" | "FAILED" | "CANCELLED" | "TIMEOUT" | "NODE_FAIL" | "OUT_OF_MEMORY" => {
                return state;
            }
            _ if reason.contains("DependencyNeverSatisfied") => {
                panic!(
                    "job {job} can never run (a shard failed):\n{}",
                    cluster.diagnosis(&[job], logs)
                )
            }
            _ => {}
        }
        assert!(
            started.elapsed() < limit,
            "job {job} not done after {limit:?} (state `{state}`, reason `{reason}`):\n{}",
            cluster.diagnosis(&[job], logs)
        );
        thread::sleep(Duration::from_millis(300));
    }
}

#[test]
fn a_job_array_of_three_shards_merges_to_the_single_run() {
    if util::skip_unless_available(unavailable()) {
        return;
    }
    let dir = Dir::new();
    let cfg = config(&dir);
    let cluster = Cluster::start(dir.path("slurm-state"));
    let out = dir.path("cluster");
    let logs = out.join("slurm");

    let started = Instant::now();
    let submitted = arena()
        .arg("slurm")
        .arg(&cfg)
        .args(["--shards", "3", "--submit", "--output"])
        .arg(&out)
        .env("SLURM_CONF", &cluster.conf)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&submitted.get_output().stdout).into_owned();
    let job = |label: &str| -> u64 {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(label))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("no `{label}` in:\n{stdout}"))
    };
    let (array, merge) = (job("submitted shards: job "), job("submitted merge: job "));
    let state = wait_for(&cluster, merge, &logs, Duration::from_secs(120));
    let slurm_wall = started.elapsed();
    assert_eq!(
        state,
        "COMPLETED",
        "merge job {merge}:\n{}",
        cluster.diagnosis(&[array, merge], &logs)
    );

    let single = dir.path("single");
    let started = Instant::now();
    arena()
        .arg("run")
        .arg(&cfg)
        .args(["-q", "-j", "2", "--output"])
        .arg(&single)
        .assert()
        .success();
    eprintln!(
        "3-shard job array + merge on the local Slurm: {:.1} s; single run (-j 2): {:.1} s",
        slurm_wall.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    let merged = out.join("merged");
    for file in ["ratings.csv", "pairs.csv", "results.pgn"] {
        assert_eq!(
            fs::read_to_string(merged.join(file)).unwrap(),
            fs::read_to_string(single.join(file)).unwrap(),
            "{file} differs"
        );
    }
    // Played twice, the games differ only in how long they took.
    assert_eq!(
        without_timing(read_games(&merged.join("games.csv"))),
        without_timing(read_games(&single.join("games.csv")))
    );

    // A requeued task runs its shard again: it resumes and plays nothing.
    let shard1 = fs::read(out.join("shard-1/games.csv")).unwrap();
    let task = format!("{array}_1");
    let requeue = cluster
        .command("scontrol")
        .args(["requeue", &task])
        .output()
        .unwrap();
    assert!(
        requeue.status.success(),
        "scontrol requeue {task}: {}",
        String::from_utf8_lossy(&requeue.stderr)
    );
    // Slurm holds a requeued job back for two minutes (its begin time); let it start now.
    let begin = cluster
        .command("scontrol")
        .args(["update", &format!("JobId={task}"), "StartTime=now"])
        .output()
        .unwrap();
    assert!(
        begin.status.success(),
        "scontrol update {task} StartTime=now: {}",
        String::from_utf8_lossy(&begin.stderr)
    );
    // The requeued task keeps its array id; wait until it has run again.
    let log = logs.join("shard-1.log");
    let started = Instant::now();
    loop {
        let text = fs::read_to_string(&log).unwrap_or_default();
        let again = text.contains("resuming: 8 of 8 games");
        let state = cluster.text("squeue", &["-h", "-j", &task, "-o", "%T"]);
        if again && state.trim().is_empty() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "requeued task {task} did not resume its shard:\n{}",
            cluster.diagnosis(&[array], &logs)
        );
        thread::sleep(Duration::from_millis(300));
    }
    assert_eq!(fs::read(out.join("shard-1/games.csv")).unwrap(), shard1);
}

// Issue 23: more shards than game pairs leaves shards without a game; `arena slurm` says so
// (the scripts are still written). Needs no Slurm: nothing is submitted.
#[test]
fn more_shards_than_game_pairs_is_warned_about() {
    let dir = Dir::new();
    let cfg = config(&dir);
    // 2 rounds × 2 boards × 3 engine pairs.
    for (shards, warned) in [(13, true), (12, false)] {
        let out = util::arena()
            .current_dir(dir.path(""))
            .args(["slurm", "--shards", &shards.to_string(), "--output"])
            .arg(dir.path(&format!("out{shards}")))
            .arg(&cfg)
            .assert()
            .success();
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(
            err.contains(
                "exceeds the tournament's 12 game pair(s) at most: 1 shard(s) will play no game"
            ),
            warned,
            "--shards {shards}: {err}"
        );
    }
}
