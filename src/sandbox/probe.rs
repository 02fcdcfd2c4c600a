//! What this machine can enforce: Landlock, user and network namespaces, and (for root) the
//! pids cgroup. Probed once per arena process.

use std::io;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use nix::sched::{CloneFlags, unshare};

/// The sandbox parts this machine supports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Support {
    /// Whether arena runs as root (the process cap then uses the pids cgroup).
    pub root: bool,
    /// The Landlock ABI version (`landlock_create_ruleset` with
    /// `LANDLOCK_CREATE_RULESET_VERSION`, landlock(7)), `None` without Landlock.
    pub landlock_abi: Option<i32>,
    /// Whether a child can `unshare(CLONE_NEWUSER | CLONE_NEWNET)`; the error otherwise.
    pub namespaces: Result<(), String>,
    /// Whether arena can create a pids cgroup (as root: the process cap); the error otherwise.
    pub pids_cgroup: Result<(), String>,
}

impl Support {
    /// One line per part for `arena check`: `enforced` or why not.
    pub fn describe(&self) -> Vec<String> {
        let state = |r: &Result<(), String>| match r {
            Ok(()) => "yes".to_owned(),
            Err(e) => format!("NO ({e})"),
        };
        vec![
            format!(
                "filesystem (Landlock): {}",
                self.landlock_abi.map_or_else(
                    || "NO (not in this kernel)".to_owned(),
                    |v| format!("yes, ABI {v}")
                )
            ),
            format!(
                "network (user + network namespace): {}",
                state(&self.namespaces)
            ),
            format!(
                "processes: {}",
                if self.root {
                    format!("pids cgroup: {}", state(&self.pids_cgroup))
                } else {
                    format!(
                        "RLIMIT_NPROC in a user namespace: {}",
                        state(&self.namespaces)
                    )
                }
            ),
            "memory, file size, no core dumps, no_new_privs (setrlimit, prctl): yes".to_owned(),
        ]
    }
}

/// Whether arena runs as root (effective uid 0).
pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// What this machine supports (probed on first call).
pub fn probe() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| Support {
        root: is_root(),
        landlock_abi: landlock_abi(),
        namespaces: namespaces(),
        pids_cgroup: if is_root() {
            super::child::pids_cgroup_root().map(|root| super::child::remove_stale_cgroups(&root))
        } else {
            Err("needs root".into())
        },
    })
}

/// The Landlock ABI version of the running kernel.
pub(super) fn landlock_abi() -> Option<i32> {
    // LANDLOCK_CREATE_RULESET_VERSION = 1 << 0 (include/uapi/linux/landlock.h).
    // SAFETY: with a null attribute pointer and size 0 the call only returns a number.
    let version = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    (version > 0).then_some(version as i32)
}

/// Starts `true` in new user and network namespaces, as an engine would be.
fn namespaces() -> Result<(), String> {
    let program = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .ok_or("no /usr/bin/true to probe with")?;
    let mut command = Command::new(program);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: unshare is a plain system call: no allocation, no lock.
    unsafe {
        command.pre_exec(|| {
            unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET).map_err(io::Error::from)
        });
    }
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("the probe exited with {status}")),
        Err(e) => Err(format!("unshare(CLONE_NEWUSER|CLONE_NEWNET): {e}")),
    }
}
