//! One engine process's sandbox: prepared in arena before the fork (the private working
//! directory, the Landlock ruleset with its path descriptors, the pids cgroup, the reduced
//! environment), then applied between fork and exec with system calls only.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};
use nix::sched::{CloneFlags, unshare};
use nix::sys::resource::{Resource, setrlimit};

use super::{Filesystem, Parts, paths, probe};

/// A sandboxed engine process's resources in arena: its private working directory and its
/// pids cgroup, removed when dropped (after the process is gone).
#[derive(Debug)]
pub struct Prepared {
    workdir: tempfile::TempDir,
    cgroup: Option<PathBuf>,
    /// The parts in force, for messages.
    pub parts: Parts,
}

/// What the child applies to itself between fork and exec: everything allocated already.
struct InChild {
    cgroup_procs: Option<File>,
    rlimits: Vec<(Resource, u64)>,
    unshare: bool,
    nproc: Option<u64>,
    ruleset: Option<RulesetCreated>,
    seccomp: Option<super::seccomp::Filter>,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

/// The pids cgroup hierarchy's root (`/sys/fs/cgroup/pids` for cgroup v1, the unified mount
/// for v2 with the pids controller), from `/proc/self/mounts`.
///
/// # Errors
/// A message when neither is mounted.
pub(super) fn pids_cgroup_root() -> Result<PathBuf, String> {
    let mounts = fs::read_to_string("/proc/self/mounts").map_err(|e| e.to_string())?;
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 4 {
            continue;
        }
        let dir = PathBuf::from(f[1]);
        let v1 = f[2] == "cgroup" && f[3].split(',').any(|o| o == "pids");
        let v2 = f[2] == "cgroup2"
            && fs::read_to_string(dir.join("cgroup.subtree_control"))
                .is_ok_and(|c| c.split_whitespace().any(|c| c == "pids"));
        // Mounted read-write (the folder's own mode is r-x, yet root may create in it).
        if (v1 || v2) && f[3].split(',').any(|o| o == "rw") {
            return Ok(dir);
        }
    }
    Err("no writable pids cgroup controller is mounted".into())
}

/// Removes the empty cgroups a killed arena left behind (`arena-PID-N` whose PID is gone).
pub(super) fn remove_stale_cgroups(root: &Path) {
    for entry in fs::read_dir(root).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("arena-")
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            // Fails, harmlessly, while a process is still in it.
            let _ = fs::remove_dir(entry.path());
        }
    }
}

impl Prepared {
    /// Prepares the sandbox of one process of `program` (`found_on_path`: a bare name found
    /// on PATH, taken for an interpreter) with `args`, and installs it on `command`: the
    /// working directory, the environment, and the pre-exec hook. Arguments that name
    /// existing files relative to arena's directory are made absolute, since the engine
    /// starts in its private directory.
    ///
    /// # Errors
    /// When the working directory, the cgroup or the Landlock ruleset cannot be made.
    pub fn new(
        parts: &Parts,
        program: &Path,
        found_on_path: bool,
        args: &[String],
        command: &mut Command,
    ) -> io::Result<Prepared> {
        let workdir = tempfile::Builder::new()
            .prefix("arena-sandbox-")
            .tempdir()?;
        let root = probe::is_root();
        let cwd = std::env::current_dir()?;
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                let path = Path::new(a);
                if path.is_relative() && !a.starts_with('-') && cwd.join(path).exists() {
                    cwd.join(path).display().to_string()
                } else {
                    a.clone()
                }
            })
            .collect();
        command.args(&args);
        command.current_dir(workdir.path());
        command.env_clear();
        for (key, value) in environment(workdir.path(), program) {
            command.env(key, value);
        }
        let mut cgroup = None;
        let mut cgroup_procs = None;
        if let (Some(max), true) = (parts.processes.0, root) {
            let dir = pids_cgroup_root().map_err(io::Error::other)?.join(format!(
                "arena-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            fs::create_dir(&dir)?;
            fs::write(dir.join("pids.max"), max.to_string())?;
            cgroup_procs = Some(File::options().write(true).open(dir.join("cgroup.procs"))?);
            cgroup = Some(dir);
        }
        let mb = |l: super::Limit| l.0.map(|n| n.saturating_mul(1 << 20));
        let mut rlimits = vec![(Resource::RLIMIT_CORE, 0)];
        if let Some(bytes) = mb(parts.memory_mb) {
            rlimits.push((Resource::RLIMIT_AS, bytes));
        }
        if let Some(bytes) = mb(parts.file_size_mb) {
            rlimits.push((Resource::RLIMIT_FSIZE, bytes));
        }
        let ruleset = match parts.filesystem {
            Filesystem::Confined => {
                let mut allowed = paths::read_only_paths(program, found_on_path, &args);
                allowed.extend(paths::SYSTEM.iter().map(PathBuf::from));
                allowed.extend(parts.read.iter().cloned());
                Some(ruleset(&allowed, workdir.path(), !parts.network).map_err(io::Error::other)?)
            }
            Filesystem::Open => None,
        };
        let mut child = InChild {
            cgroup_procs,
            rlimits,
            unshare: root || !parts.network || parts.processes.0.is_some(),
            nproc: parts.processes.0.filter(|_| !root),
            ruleset,
            seccomp: super::seccomp::Filter::new(
                !parts.network || parts.filesystem == Filesystem::Confined,
                parts.suspend_idle,
            ),
        };
        // SAFETY: `apply` makes system calls only (write, setrlimit, unshare, prctl, the
        // Landlock calls) on values prepared here; it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(move || child.apply());
        }
        Ok(Prepared {
            workdir,
            cgroup,
            parts: parts.clone(),
        })
    }

    /// The engine process's private working directory (also its `HOME` and `TMPDIR`).
    pub fn workdir(&self) -> &Path {
        self.workdir.path()
    }

    /// Kills every process left in the sandbox's pids cgroup (what escaped the process
    /// group), so the cgroup can be removed.
    pub fn kill_all(&self) {
        let Some(dir) = &self.cgroup else { return };
        for _ in 0..16 {
            let Ok(procs) = fs::read_to_string(dir.join("cgroup.procs")) else {
                return;
            };
            let pids: Vec<i32> = procs
                .lines()
                .filter_map(|l| l.trim().parse().ok())
                .collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        self.kill_all();
        if let Some(dir) = &self.cgroup {
            // Its last processes may take a moment to be reaped.
            for _ in 0..100 {
                if fs::remove_dir(dir).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }
}

impl InChild {
    fn apply(&mut self) -> io::Result<()> {
        if let Some(procs) = &mut self.cgroup_procs {
            // "0": the writing process itself (cgroups(7)).
            procs.write_all(b"0")?;
        }
        for &(resource, value) in &self.rlimits {
            setrlimit(resource, value, value)?;
        }
        if self.unshare {
            unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET)?;
        }
        // After the unshare: counted per (user namespace, user) since Linux 5.14 (ucounts),
        // so the cap is this sandbox's own.
        if let Some(count) = self.nproc {
            setrlimit(Resource::RLIMIT_NPROC, count, count)?;
        }
        match self.ruleset.take() {
            Some(ruleset) => {
                ruleset.restrict_self().map_err(|_| {
                    io::Error::new(io::ErrorKind::PermissionDenied, "landlock_restrict_self")
                })?;
            }
            None => nix::sys::prctl::set_no_new_privs()?,
        }
        if let Some(filter) = &self.seccomp {
            filter.install()?;
        }
        Ok(())
    }
}

/// The Landlock ruleset: read-only beneath `read`, everything beneath `workdir`; TCP
/// connect and bind denied too when `no_network` (ABI ≥ 4); signals and abstract sockets
/// scoped to the sandbox (ABI ≥ 6). Handled rights the kernel lacks are dropped (best
/// effort), so an older kernel with Landlock still confines files.
fn ruleset(read: &[PathBuf], workdir: &Path, no_network: bool) -> Result<RulesetCreated, String> {
    let abi = ABI::V6;
    let fail = |e: landlock::RulesetError| format!("Landlock ruleset: {e}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?
        .scope(Scope::from_all(abi))
        .map_err(fail)?;
    if no_network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(fail)?;
    }
    let mut created = ruleset.create().map_err(fail)?;
    let rules = read
        .iter()
        .map(|path| (path.as_path(), read_access(path, abi)))
        .chain([(workdir, AccessFs::from_all(abi))]);
    for (path, access) in rules {
        // A path that vanished since it was listed is simply not allowed.
        let Ok(fd) = PathFd::new(path) else { continue };
        created = created
            .add_rule(PathBeneath::new(fd, access))
            .map_err(fail)?;
    }
    Ok(created)
}

/// Read-only rights on `path` (a folder: also listing it); `/dev/null` is written as well.
fn read_access(path: &Path, abi: ABI) -> landlock::BitFlags<AccessFs> {
    if path == Path::new("/dev/null") {
        AccessFs::from_file(abi)
    } else if path.is_dir() {
        AccessFs::from_read(abi)
    } else {
        AccessFs::from_file(abi) & AccessFs::from_read(abi)
    }
}

/// The reduced environment: `PATH` and `LANG` from arena's, `HOME` and `TMPDIR` the private
/// directory, and for a version manager's shim (pyenv) its root and selected version.
fn environment(workdir: &Path, program: &Path) -> Vec<(String, OsString)> {
    let mut env = vec![
        ("HOME".to_owned(), workdir.as_os_str().to_owned()),
        ("TMPDIR".to_owned(), workdir.as_os_str().to_owned()),
    ];
    for key in ["PATH", "LANG", "PYENV_VERSION", "PYENV_ROOT"] {
        if let Some(value) = std::env::var_os(key) {
            env.push((key.to_owned(), value));
        }
    }
    if !env.iter().any(|(k, _)| k == "PYENV_ROOT") {
        // A pyenv shim looks for its root under HOME, which is the private directory now.
        let mut chain = vec![program.to_path_buf()];
        if let Some(home) = std::env::var_os("HOME") {
            chain.push(PathBuf::from(home).join(".pyenv/shims/x"));
        }
        if let Some(root) = chain
            .iter()
            .filter_map(|p| p.parent()?.parent())
            .find(|root| root.join("libexec/pyenv").exists())
        {
            env.push(("PYENV_ROOT".to_owned(), root.as_os_str().to_owned()));
        }
    }
    env
}
