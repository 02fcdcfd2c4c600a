//! No engine's descendant outlives its engine.
//!
//! Killing an engine's process group misses what left the group: a child started with
//! `setsid`, a daemonized helper. Before its first child, arena makes itself a child subreaper
//! (`PR_SET_CHILD_SUBREAPER`, prctl(2), Linux ≥ 3.4), so every orphaned descendant of an engine
//! is reparented to arena instead of to init. Arena knows the children it started itself
//! ([`spawn`]); any other child is such an orphan.
//!
//! Each child arena starts gets a token in its environment ([`TOKEN`]), which its descendants
//! inherit. [`sweep`] ends the orphans whose engine process has ended (their token is no longer
//! one of a live child's), so an engine still playing another game keeps its helpers; it runs
//! when an engine process ends and after each game. An orphan without a token (it cleared its
//! environment) cannot be told apart: [`end_all`] ends it with everything else at the end of a
//! run and on a second Ctrl-C, and [`exit_on_signals`] does so for commands without a run.
//!
//! Spawning and sweeping share one lock: a child just started is registered before a sweep
//! can see it.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// The environment variable that carries a started child's token to its descendants.
pub const TOKEN: &str = "ARENA_PROCESS_TOKEN";

/// The children arena started and has not reaped yet: pid → token.
static STARTED: Mutex<BTreeMap<u32, u64>> = Mutex::new(BTreeMap::new());
static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);
static SUBREAPER: Once = Once::new();

/// How long a killed orphan may take to become reapable (a process in uninterruptible sleep
/// dies when it wakes); past it, it is left to the kernel.
const REAP_GRACE: Duration = Duration::from_millis(500);
/// Rounds of a sweep: each round kills the orphans the previous round's deaths reparented.
const ROUNDS: usize = 64;

fn started() -> MutexGuard<'static, BTreeMap<u32, u64>> {
    STARTED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Starts `command` as a registered child of arena, with a fresh token in its environment
/// (first making arena a child subreaper).
///
/// # Errors
/// What [`Command::spawn`] returns.
pub fn spawn(command: &mut Command) -> io::Result<Child> {
    SUBREAPER.call_once(|| {
        // Without it (not Linux, or a kernel before 3.4) orphans go to init as before.
        let _ = nix::sys::prctl::set_child_subreaper(true);
    });
    let token = NEXT_TOKEN.fetch_add(1, Ordering::Relaxed);
    command.env(TOKEN, token.to_string());
    let mut started = started();
    let child = command.spawn()?;
    started.insert(child.id(), token);
    Ok(child)
}

/// Forgets a child started by [`spawn`] once it has been waited for.
pub fn forget(pid: u32) {
    started().remove(&pid);
}

/// Kills and reaps the orphans whose engine process has ended, and then the orphans their
/// deaths create; returns how many it ended. Orphans of live engines, and orphans without a
/// token, are left (see [`end_all`]); dead ones are reaped.
pub fn sweep() -> usize {
    end_orphans(false)
}

/// Kills every child arena started (its process group) and every orphan, and reaps the
/// orphans: nothing started by arena survives. For the end of a run and for an interrupt.
pub fn end_all() -> usize {
    let pids: Vec<u32> = started().keys().copied().collect();
    for &pid in &pids {
        // Its group (engines lead one) and itself (a child that does not).
        let _ = killpg(Pid::from_raw(pid as i32), Signal::SIGKILL);
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
    // Their detached descendants are reparented as they exit (before they become zombies).
    let until = Instant::now() + REAP_GRACE;
    while pids.iter().any(|&pid| running(pid)) && Instant::now() < until {
        thread::sleep(Duration::from_millis(1));
    }
    end_orphans(true)
}

/// Installs SIGINT, SIGTERM and SIGHUP handling for the process's life: with `cancel`, the
/// first signal sets it (the run stops starting games and ends its engines) and a second ends
/// everything at once; without, the first does. Ending everything is [`end_all`], then exit
/// with status 130.
pub fn exit_on_signals(cancel: Option<Arc<AtomicBool>>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    thread::spawn(move || {
        for _ in signals.forever() {
            if let Some(cancel) = &cancel {
                if !cancel.swap(true, Ordering::SeqCst) {
                    continue;
                }
            }
            end_all();
            // 130: interrupted, arena's exit code for SIGINT and SIGTERM alike.
            std::process::exit(130);
        }
    });
}

/// The orphans to end (all, or those whose token is not a live child's) are killed under the
/// lock, so no child can be started and taken for an orphan meanwhile, and reaped outside it.
fn end_orphans(all: bool) -> usize {
    let mut ended = 0;
    for _ in 0..ROUNDS {
        let doomed: Vec<u32> = {
            let started = started();
            let orphans = children()
                .into_iter()
                .filter(|pid| !started.contains_key(pid));
            let doomed: Vec<u32> = orphans
                .filter(|&pid| {
                    all || match token_of(pid) {
                        Some(token) => !started.values().any(|&t| t == token),
                        None => zombie(pid),
                    }
                })
                .collect();
            for &pid in &doomed {
                let _ = kill(Pid::from_raw(pid as i32), Signal::SIGKILL);
            }
            doomed
        };
        if doomed.is_empty() {
            break;
        }
        for &pid in &doomed {
            reap(pid);
        }
        ended += doomed.len();
    }
    ended
}

/// The token in a process's environment, if it has one.
fn token_of(pid: u32) -> Option<u64> {
    let environ = fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{TOKEN}=");
    environ
        .split(|&b| b == 0)
        .find_map(|entry| entry.strip_prefix(prefix.as_bytes()))
        .and_then(|value| std::str::from_utf8(value).ok()?.parse().ok())
}

/// A process's state letter in `/proc/PID/stat` (`R`, `S`, `Z`…), `None` when it is gone.
fn state(pid: u32) -> Option<String> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().next().map(str::to_owned)
}

/// Whether a process has exited and waits to be reaped.
fn zombie(pid: u32) -> bool {
    state(pid).is_some_and(|s| s == "Z")
}

/// Whether a process exists and has not exited.
fn running(pid: u32) -> bool {
    state(pid).is_some_and(|s| s != "Z" && s != "X")
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
fn children() -> Vec<u32> {
    let Ok(tasks) = fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = tasks
        .flatten()
        .filter_map(|task| fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|pid| pid.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufRead;
    use std::process::Stdio;

    /// A registered shell that starts a daemon (a sleeper in a session of its own, whose parent
    /// subshell exits at once, so it is orphaned while the shell lives) and prints its pid.
    fn shell_with_detached_sleeper() -> (Child, i32) {
        let mut shell = spawn(
            Command::new("sh")
                .args(["-c", "(setsid sleep 30 & echo $!) ; exec sleep 30"])
                .stdout(Stdio::piped()),
        )
        .unwrap();
        let mut line = String::new();
        io::BufReader::new(shell.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        (shell, line.trim().parse().unwrap())
    }

    fn alive(pid: i32) -> bool {
        running(pid as u32)
    }

    /// Waits until `pid` has been reparented to this process.
    fn adopted(pid: i32) {
        let until = Instant::now() + Duration::from_secs(5);
        while !children().contains(&(pid as u32)) && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
    }

    fn end(mut child: Child) {
        child.kill().unwrap();
        child.wait().unwrap();
        forget(child.id());
    }

    // Runs in the test process, which becomes a subreaper. Two registered shells, each with a
    // daemon already adopted by this process: when the first shell ends, a sweep ends its
    // daemon and not the second shell's (whose engine is still live); `end_all` ends the rest.
    #[test]
    fn a_sweep_ends_the_orphans_of_ended_children_only() {
        let (first, first_sleeper) = shell_with_detached_sleeper();
        let (second, second_sleeper) = shell_with_detached_sleeper();
        adopted(first_sleeper);
        adopted(second_sleeper);
        // Counts are not compared: other tests' engines sweep this process's orphans too,
        // concurrently, so what matters is who is still alive.
        sweep();
        assert!(
            alive(first_sleeper) && alive(second_sleeper),
            "both shells are live"
        );
        end(first);
        sweep();
        assert!(
            !alive(first_sleeper),
            "the ended shell's sleeper still runs"
        );
        assert!(alive(second_sleeper), "a live shell's sleeper was killed");
        let second_pid = second.id() as i32;
        end_all();
        assert!(!alive(second_sleeper));
        let mut second = second;
        second.wait().unwrap();
        forget(second_pid as u32);
    }
}
