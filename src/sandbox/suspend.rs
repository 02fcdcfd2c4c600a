//! `suspend_idle`: an engine's process group is stopped (SIGSTOP) while its opponent thinks,
//! and continued (SIGCONT) before arena writes to it again.
//!
//! The stop is lazy: after an engine's `bestmove` it is only marked pending, and the game's
//! thread stops the pending engines once it has waited [`GRACE`] for the opponent's answer. An
//! opponent that answers sooner (a fast engine, most moves of `instant`) costs no signal at all,
//! so two signals and four context switches a move are paid only where they buy something; an
//! engine gets at most [`GRACE`] of its opponent's time. Every engine of a game is read by that
//! game's thread, so the pending list is per thread.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How long the opponent may answer before the idle engines are stopped.
pub const GRACE: Duration = Duration::from_millis(1);

const RUNNING: u8 = 0;
const PENDING: u8 = 1;
const STOPPED: u8 = 2;
/// The engine is gone: its process group id may be reused, so it is never signalled again.
const ENDED: u8 = 3;

thread_local! {
    /// Process groups of this thread's engines marked pending, with their states.
    static WAITING: RefCell<Vec<(i32, Arc<AtomicU8>)>> = const { RefCell::new(Vec::new()) };
}

/// One engine's suspension state.
#[derive(Debug)]
pub struct Suspender {
    group: i32,
    state: Arc<AtomicU8>,
}

impl Suspender {
    /// For the engine whose process group id is `group`.
    pub fn new(group: u32) -> Suspender {
        Suspender {
            group: group as i32,
            state: Arc::new(AtomicU8::new(RUNNING)),
        }
    }

    /// After the engine's `bestmove`: stopped once the opponent has thought [`GRACE`].
    pub fn idle(&self) {
        if self
            .state
            .compare_exchange(RUNNING, PENDING, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            WAITING.with(|w| {
                let mut waiting = w.borrow_mut();
                // Engines woken since no longer wait: the list stays as short as a game.
                waiting.retain(|(_, state)| state.load(Ordering::SeqCst) == PENDING);
                waiting.push((self.group, Arc::clone(&self.state)));
            });
        }
    }

    /// Before arena writes to the engine: continued if stopped, no longer pending.
    pub fn wake(&self) {
        if self.state.swap(RUNNING, Ordering::SeqCst) == STOPPED {
            let _ = killpg(Pid::from_raw(self.group), Signal::SIGCONT);
        }
    }
}

impl Drop for Suspender {
    fn drop(&mut self) {
        self.state.store(ENDED, Ordering::SeqCst);
    }
}

/// Whether an engine of this thread waits to be stopped.
pub fn any_pending() -> bool {
    WAITING.with(|w| {
        w.borrow()
            .iter()
            .any(|(_, state)| state.load(Ordering::SeqCst) == PENDING)
    })
}

/// Stops every pending engine of this thread.
pub fn stop_pending() {
    WAITING.with(|w| {
        for (group, state) in w.borrow_mut().drain(..) {
            if state
                .compare_exchange(PENDING, STOPPED, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                let _ = killpg(Pid::from_raw(group), Signal::SIGSTOP);
            }
        }
    });
}
