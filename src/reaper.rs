//! No engine's descendant outlives its engine.
//!
//! Killing an engine's process group misses what left the group: a child started with
//! `setsid`, a daemonized helper. Before its first child, arena makes itself a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`, prctl(2), Linux ≥ 3.4), so every orphaned descendant of an engine
//! is reparented to arena instead of to init. Arena knows the children it started itself
//! ([`spawn`]); any other child is such an orphan, and [`sweep`] kills and reaps it. Sweeps run
//! when an engine process ends and when a game ends, so a detached child lives at most as long
//! as the game that started it.
//!
//! Spawning and sweeping share one lock: a child just started is registered before a sweep
//! can see it.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::process::{Child, Command};
use std::sync::{Mutex, MutexGuard, Once};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// Process ids of the children arena started and has not reaped yet.
static STARTED: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
static SUBREAPER: Once = Once::new();

/// How long a killed orphan may take to become reapable (a process in uninterruptible sleep
/// dies when it wakes); past it, it is left to the kernel.
const REAP_GRACE: Duration = Duration::from_millis(500);
/// Rounds of a sweep: each round kills the orphans the previous round's deaths reparented.
const ROUNDS: usize = 64;

fn started() -> MutexGuard<'static, BTreeSet<u32>> {
    STARTED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts `command` as a registered child of arena (first making arena a child subreaper).
///
/// # Errors
/// What [`Command::spawn`] returns.
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    SUBREAPER.call_once(|| {
        // Without it (not Linux, or a kernel before 3.4) orphans go to init as before.
        let _ = nix::sys::prctl::set_child_subreaper(true);
    });
    let mut started = started();
    let child = command.spawn()?;
    started.insert(child.id());
    Ok(child)
}

/// Forgets a child started by [`spawn`] once it has been waited for.
pub fn forget(pid: u32) {
    started().remove(&pid);
}

/// Kills and reaps every child of arena that [`spawn`] did not start (orphaned descendants of
/// engines), and then the orphans their deaths create; returns how many it ended.
pub fn sweep() -> usize {
    let mut ended = 0;
    for _ in 0..ROUNDS {
        let started = started();
        let orphans: Vec<u32> = children()
            .into_iter()
            .filter(|pid| !started.contains(pid))
            .collect();
        if orphans.is_empty() {
            break;
        }
        for &pid in &orphans {
            let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
        }
        for &pid in &orphans {
            reap(pid);
        }
        ended += orphans.len();
    }
    ended
}

/// Waits (up to [`REAP_GRACE`]) for a killed orphan to exit.
fn reap(pid: u32) {
    let until = Instant::now() + REAP_GRACE;
    loop {
        match waitpid(Pid::from_raw(pid as i32), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) if Instant::now() < until => {
                thread::sleep(Duration::from_millis(1));
            }
            _ => return,
        }
    }
}

/// Every child of this process, from each thread's `/proc/self/task/TID/children` (an orphan
/// is reparented to one thread of the subreaper).
fn children() -> BTreeSet<u32> {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return BTreeSet::new();
    };
    tasks
        .flatten()
        .filter_map(|task| fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Runs in the test process, which becomes a subreaper: the detached grandchild of a
    // registered shell is reparented here and swept, the shell itself is not.
    #[test]
    fn a_detached_grandchild_is_swept_and_a_registered_child_is_not() {
        let mut shell = spawn(
            Command::new("sh")
                .args(["-c", "setsid sleep 30 & echo $! ; exec sleep 30"])
                .stdout(std::process::Stdio::piped()),
        )
        .unwrap();
        let mut line = String::new();
        io::BufRead::read_line(
            &mut io::BufReader::new(shell.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        // The grandchild is the shell's child until the shell dies: not an orphan yet.
        sweep();
        assert!(kill(Pid::from_raw(grandchild), None).is_ok());
        shell.kill().unwrap();
        shell.wait().unwrap();
        forget(shell.id());
        // Reparenting happens as the shell exits; give it a moment.
        let until = Instant::now() + Duration::from_secs(5);
        while !children().contains(&(grandchild as u32)) && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        assert!(sweep() >= 1);
        assert!(
            kill(Pid::from_raw(grandchild), None).is_err(),
            "the detached sleeper still runs"
        );
    }
}
