//! One process at a time per output directory.
//!
//! `arena run`, `arena merge`, `arena report`, `arena ratings --output` and `arena play` rewrite
//! games.csv and the result files through fixed temporary names; two of them on one directory
//! would delete each other's games. Each holds an exclusive `flock(2)` on `OUTPUT/.arena.lock` for its whole life. The kernel drops the
//! lock when the process ends, however it ends, so a killed run never blocks the next one; the
//! file itself stays (removing it would let a third process lock a new file beside a holder of
//! the old one) and names the holder for the message a second process prints.

use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use super::{BAD_CONFIG, FAILED, Stop};

/// The lock file's name inside the output directory.
pub const FILE: &str = ".arena.lock";

/// Temporary files that arena's atomic writes leave behind when killed between writing and
/// renaming; only ever removed while holding the lock.
const TEMPORARIES: [&str; 8] = [
    "games.tmp",
    "ratings.tmp",
    "pairs.tmp",
    "results.tmp",
    "engines.tmp",
    "moves.csv.tmp",
    "report.html.tmp",
    "results.xlsx.tmp",
];

/// The held lock of an output directory; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct DirLock {
    _lock: Flock<File>,
    dir: PathBuf,
}

impl DirLock {
    /// The locked directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Creates `dir` if needed and locks it for this process, writing this process's id and
/// command line (e.g. `arena run configs/x.yaml`) into the lock file; then removes temporary
/// files a killed run left.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] when another process holds the lock (naming its pid and
/// command), [`FAILED`] when the directory or the lock file cannot be created.
pub fn acquire(dir: &Path) -> Result<DirLock, Stop> {
    let io = |e: std::io::Error| {
        Stop::new(
            FAILED,
            format!("{}: cannot lock the output directory: {e}", dir.display()),
        )
    };
    fs::create_dir_all(dir).map_err(io)?;
    let path = dir.join(FILE);
    let file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => lock,
        Err((mut file, Errno::EWOULDBLOCK)) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(Stop::new(BAD_CONFIG, in_use(dir, &holder)));
        }
        Err((_, errno)) => return Err(io(std::io::Error::from(errno))),
    };
    let command: Vec<String> = std::env::args().collect();
    let owner = format!("{}\n{}\n", std::process::id(), command.join(" "));
    let _ = lock
        .set_len(0)
        .and_then(|()| lock.rewind())
        .and_then(|()| lock.write_all(owner.as_bytes()));
    remove_temporaries(dir);
    Ok(DirLock {
        _lock: lock,
        dir: dir.to_path_buf(),
    })
}

/// The message for a directory locked by another process, from its lock file's text (pid on the
/// first line, command on the second).
fn in_use(dir: &Path, holder: &str) -> String {
    let mut lines = holder.lines();
    let who = match (lines.next(), lines.next()) {
        (Some(pid), Some(command)) => format!("process {pid} (`{command}`)"),
        (Some(pid), None) => format!("process {pid}"),
        _ => "another process".to_owned(),
    };
    format!(
        "{} is in use by {who}; wait for it to end or stop it, or use another output directory",
        dir.display()
    )
}

/// Removes the temporary files of an atomic write that never got renamed.
fn remove_temporaries(dir: &Path) {
    for name in TEMPORARIES {
        let _ = fs::remove_file(dir.join(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let first = acquire(dir.path()).unwrap();
        let second = acquire(dir.path()).unwrap_err();
        assert_eq!(second.code, BAD_CONFIG);
        let pid = format!("process {} (`", std::process::id());
        assert!(second.message.contains(&pid), "{}", second.message);
        drop(first);
        acquire(dir.path()).expect("free once dropped");
    }

    #[test]
    fn stale_temporaries_go_and_other_files_stay() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("pairs.tmp"), "x").unwrap();
        fs::write(dir.path().join("mine.tmp"), "x").unwrap();
        let _lock = acquire(dir.path()).unwrap();
        assert!(!dir.path().join("pairs.tmp").exists());
        assert!(dir.path().join("mine.tmp").exists());
    }

    #[test]
    fn the_holder_line_reads_without_a_command() {
        assert!(in_use(Path::new("o"), "17\n").contains("process 17;"));
        assert!(in_use(Path::new("o"), "").contains("another process"));
    }
}
