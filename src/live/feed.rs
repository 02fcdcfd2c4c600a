//! The games in progress of a run, as the referee plays them: one short lock a ply, no I/O on
//! the game's thread. [`Publisher`] copies the state into `live.json` a few times a second,
//! which is all `arena serve` reads of a running tournament besides its result files.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::games::{BySide, Side};

/// File name of the snapshot in the output directory, present while a run plays.
pub const LIVE: &str = "live.json";

/// Time between two writes of `live.json` (ms): 4 a second at most, so a browser follows a
/// 10 ms-a-move game without being flooded, and the disk sees almost nothing.
pub const PUBLISH_EVERY_MS: u64 = 250;

/// `live.json` is rewritten at least this often (ms), changed or not, so a reader can tell a
/// running run from a file left behind (see [`STALE_AFTER_MS`]).
pub const HEARTBEAT_MS: u64 = 5_000;

/// A `live.json` older than this (ms) is a run that is gone, whatever its pid now names (a
/// reused pid, another machine's shard).
pub const STALE_AFTER_MS: u64 = 30_000;

/// One game in progress.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveGame {
    /// Game id, as in games.csv.
    pub game_id: u64,
    /// Round of the schedule.
    pub round: u32,
    /// Board name (`awale-6`…).
    pub board: String,
    /// Game name (`awale`…).
    pub game: String,
    /// First player's engine.
    pub first: String,
    /// Second player's engine.
    pub second: String,
    /// Start position text.
    pub start_fen: String,
    /// Moves played so far, canonical text, ply 1 first.
    pub moves: Vec<String>,
    /// Time left on each side's clock (ms) under a clock time control; `None` otherwise.
    pub clock_ms: [Option<u64>; 2],
    /// Thinking time used so far by each side (ms).
    pub used_ms: [u64; 2],
    /// Each side's last search `info` line before its last `bestmove` (empty before its first
    /// move or when it sends none).
    pub info: [String; 2],
    /// When the game started (ms since the Unix epoch).
    pub started_unix_ms: u64,
}

/// The state `live.json` holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Process id of the run writing it (a file left by a killed run names a dead process).
    pub pid: u32,
    /// Games of the schedule (this shard's with `--shard`).
    pub total: u64,
    /// Games already in the directory when the run started.
    pub done_before: u64,
    /// When the run started playing (ms since the Unix epoch).
    pub started_unix_ms: u64,
    /// When this snapshot was taken (ms since the Unix epoch).
    pub updated_unix_ms: u64,
    /// The SPRT's one-line status, empty without `sprt:`.
    pub sprt: String,
    /// Games in progress, by id.
    pub games: Vec<LiveGame>,
}

#[derive(Default)]
struct State {
    version: u64,
    snapshot: Snapshot,
    games: BTreeMap<u64, LiveGame>,
}

/// The shared state of the games in progress. Cheap to update from the workers' threads: a
/// ply appends one move under a mutex held for microseconds.
#[derive(Default)]
pub struct Feed {
    state: Mutex<State>,
}

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Feed {
    /// A feed for a run of `total` games of which `done_before` were already played.
    pub fn new(total: u64, done_before: u64) -> Feed {
        let feed = Feed::default();
        {
            let mut s = feed.lock();
            s.snapshot = Snapshot {
                pid: std::process::id(),
                total,
                done_before,
                started_unix_ms: unix_ms(),
                ..Snapshot::default()
            };
        }
        feed
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker that panicked mid-update leaves a state that is still worth showing.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A game starts (its engines are ready, no move played yet).
    pub fn begin(&self, game: LiveGame) {
        let mut s = self.lock();
        s.version += 1;
        s.games.insert(game.game_id, game);
    }

    /// `side` played `text` in game `id`; `clock_ms` and `used_ms` are both sides' clocks
    /// after the move, `info` the mover's last search `info` line (empty for none).
    pub fn ply(
        &self,
        id: u64,
        side: Side,
        text: &str,
        clock_ms: BySide<Option<u64>>,
        used_ms: BySide<u64>,
        info: &str,
    ) {
        let mut s = self.lock();
        s.version += 1;
        if let Some(g) = s.games.get_mut(&id) {
            g.moves.push(text.to_owned());
            g.clock_ms = [clock_ms.first, clock_ms.second];
            g.used_ms = [used_ms.first, used_ms.second];
            let i = side.index();
            g.info[i].clear();
            g.info[i].push_str(info);
        }
    }

    /// Game `id` is over (finished or cancelled): no longer in progress.
    pub fn end(&self, id: u64) {
        let mut s = self.lock();
        s.version += 1;
        s.games.remove(&id);
    }

    /// Sets the SPRT's status line.
    pub fn set_sprt(&self, status: &str) {
        let mut s = self.lock();
        if s.snapshot.sprt != status {
            s.version += 1;
            s.snapshot.sprt = status.to_owned();
        }
    }

    /// The state now and its version (which grows with every change).
    pub fn snapshot(&self) -> (u64, Snapshot) {
        let s = self.lock();
        let mut snapshot = s.snapshot.clone();
        snapshot.games = s.games.values().cloned().collect();
        snapshot.updated_unix_ms = unix_ms();
        (s.version, snapshot)
    }
}

/// Writes a [`Feed`]'s snapshot to `live.json` whenever it changed, at most every
/// [`PUBLISH_EVERY_MS`], on its own thread; removes the file when stopped.
pub struct Publisher {
    /// Dropped to stop the thread at once, not at its next tick.
    stop: Option<crossbeam_channel::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    path: PathBuf,
}

impl Publisher {
    /// Starts publishing `feed` into `dir/live.json`. A write that fails is tried again at the
    /// next change: watching is a courtesy, never a reason to stop a run.
    pub fn start(feed: Arc<Feed>, dir: &Path) -> Publisher {
        let path = dir.join(LIVE);
        let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
        let thread = {
            let path = path.clone();
            thread::Builder::new()
                .name("live-publisher".into())
                .spawn(move || {
                    let mut written = None;
                    let mut last_write = std::time::Instant::now();
                    let tick = Duration::from_millis(PUBLISH_EVERY_MS);
                    let heartbeat = Duration::from_millis(HEARTBEAT_MS);
                    loop {
                        let (version, snapshot) = feed.snapshot();
                        let due = written != Some(version) || last_write.elapsed() >= heartbeat;
                        if due && write_snapshot(&path, &snapshot).is_ok() {
                            written = Some(version);
                            last_write = std::time::Instant::now();
                        }
                        if stopped.recv_timeout(tick)
                            != Err(crossbeam_channel::RecvTimeoutError::Timeout)
                        {
                            break;
                        }
                    }
                })
                .ok()
        };
        Publisher {
            stop: Some(stop),
            thread,
            path,
        }
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // No game is in progress any more; a reader then shows the result files alone.
        let _ = fs::remove_file(&self.path);
    }
}

/// Writes `snapshot` through a temporary file and a rename, so a reader never sees half a file.
fn write_snapshot(path: &Path, snapshot: &Snapshot) -> std::io::Result<()> {
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec(snapshot).map_err(std::io::Error::other)?;
    fs::write(&tmp, text)?;
    fs::rename(&tmp, path)
}

/// Reads `dir/live.json` when a running process wrote it: `None` when there is none, it does
/// not parse, or its writer is gone (a run killed before it could remove it): the file is
/// older than [`STALE_AFTER_MS`] (the writer rewrites it every [`HEARTBEAT_MS`]), or its pid
/// is not a live process of this machine.
pub fn read_snapshot(dir: &Path) -> Option<Snapshot> {
    let text = fs::read(dir.join(LIVE)).ok()?;
    let snapshot: Snapshot = serde_json::from_slice(&text).ok()?;
    let fresh = unix_ms().saturating_sub(snapshot.updated_unix_ms) < STALE_AFTER_MS;
    let alive = snapshot.pid == std::process::id()
        || Path::new(&format!("/proc/{}", snapshot.pid)).exists();
    (fresh && alive).then_some(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: u64) -> LiveGame {
        LiveGame {
            game_id: id,
            board: "awale-6".into(),
            game: "awale".into(),
            first: "a".into(),
            second: "b".into(),
            ..LiveGame::default()
        }
    }

    #[test]
    fn plies_accumulate_and_finished_games_leave() {
        let feed = Feed::new(10, 2);
        feed.begin(game(3));
        feed.begin(game(4));
        let clocks = BySide::new(Some(900), None);
        feed.ply(
            3,
            Side::First,
            "1",
            clocks,
            BySide::new(5, 0),
            "info depth 2",
        );
        feed.ply(3, Side::Second, "2", clocks, BySide::new(5, 7), "");
        feed.ply(99, Side::First, "1", clocks, BySide::new(0, 0), "");
        let (v1, s) = feed.snapshot();
        assert_eq!(s.games.len(), 2);
        assert_eq!(s.games[0].moves, ["1", "2"]);
        assert_eq!(s.games[0].clock_ms, [Some(900), None]);
        assert_eq!(s.games[0].used_ms, [5, 7]);
        assert_eq!(s.games[0].info, ["info depth 2".to_owned(), String::new()]);
        feed.end(3);
        feed.end(3);
        let (v2, s) = feed.snapshot();
        assert!(v2 > v1);
        assert_eq!((s.total, s.done_before), (10, 2));
        assert_eq!(s.games.iter().map(|g| g.game_id).collect::<Vec<_>>(), [4]);
    }

    #[test]
    fn the_snapshot_is_published_and_removed_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let feed = Arc::new(Feed::new(4, 0));
        feed.begin(game(0));
        let publisher = Publisher::start(Arc::clone(&feed), dir.path());
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let seen = loop {
            if let Some(s) = read_snapshot(dir.path()) {
                break s;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "live.json never appeared"
            );
            thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(seen.games.len(), 1);
        assert_eq!(seen.pid, std::process::id());
        drop(publisher);
        assert!(!dir.path().join(LIVE).exists());
    }

    #[test]
    fn a_snapshot_of_a_dead_process_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let dead = Snapshot {
            pid: u32::MAX - 1,
            updated_unix_ms: unix_ms(),
            ..Snapshot::default()
        };
        write_snapshot(&dir.path().join(LIVE), &dead).unwrap();
        assert_eq!(read_snapshot(dir.path()), None);
        // A live pid (a reused one, say) but an old file: gone too.
        let old = Snapshot {
            pid: std::process::id(),
            updated_unix_ms: unix_ms() - STALE_AFTER_MS - 1,
            ..Snapshot::default()
        };
        write_snapshot(&dir.path().join(LIVE), &old).unwrap();
        assert_eq!(read_snapshot(dir.path()), None);
        let fresh = Snapshot {
            updated_unix_ms: unix_ms(),
            ..old
        };
        write_snapshot(&dir.path().join(LIVE), &fresh).unwrap();
        assert!(read_snapshot(dir.path()).is_some());
        fs::write(dir.path().join(LIVE), "{not json").unwrap();
        assert_eq!(read_snapshot(dir.path()), None);
    }
}
