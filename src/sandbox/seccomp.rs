//! A small seccomp filter (classic BPF, seccomp(2)) for what namespaces and Landlock leave
//! open:
//!
//! - `socket(AF_UNIX, …)` is refused (EPERM): a Unix socket named by a path (tmux's, D-Bus's,
//!   a database's) is reached by `connect`, which Landlock does not govern and a network
//!   namespace does not hide, and the peer would see the engine's real uid (root's, when arena
//!   runs as root). `socketpair` stays allowed: its two ends reach nothing outside.
//! - with `suspend_idle`, `setsid` and `setpgid` are refused: a child that left the engine's
//!   process group would go on thinking while the group is stopped.
//!
//! Built before the fork (no allocation in the child); installed last in the child, after
//! `no_new_privs` (which Landlock's `restrict_self` sets, and the sandbox sets otherwise).

use std::io;

/// `AUDIT_ARCH_*` of this build's system-call table (linux/audit.h); the filter refuses
/// nothing on another architecture's calls (none run here) but checks that it reads this one.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7;

/// x32 system calls on x86_64 carry this bit; refused, so the table above cannot be bypassed.
const X32_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data`: nr, arch, args[0] (low 32 bits on little-endian).
const NR: u32 = 0;
const ARCH_OFFSET: u32 = 4;
const ARG0: u32 = 16;

const LD_W_ABS: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
const JEQ_K: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
const JGE_K: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
const RET_K: u16 = (libc::BPF_RET | libc::BPF_K) as u16;

fn op(code: u16, jt: u8, jf: u8, k: u32) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter: refuse `socket(AF_UNIX)` when `unix_sockets`, `setsid`/`setpgid` when
/// `new_groups`.
pub(super) struct Filter {
    program: Vec<libc::sock_filter>,
}

impl Filter {
    /// Builds the program (in the parent); `None` when it would refuse nothing.
    pub(super) fn new(unix_sockets: bool, new_groups: bool) -> Option<Filter> {
        if !unix_sockets && !new_groups {
            return None;
        }
        let groups: &[i64] = if new_groups {
            &[libc::SYS_setsid, libc::SYS_setpgid]
        } else {
            &[]
        };
        let s = groups.len();
        // Layout: 0 load arch, 1 check it, 2 load nr, 3 refuse x32, 4.. the group calls,
        // then (unix_sockets) socket → load arg0 → AF_UNIX?, then ALLOW and DENY.
        let allow = 4 + s + if unix_sockets { 3 } else { 0 };
        let deny = allow + 1;
        let to = |from: usize, target: usize| (target - from - 1) as u8;
        let mut p = vec![
            op(LD_W_ABS, 0, 0, ARCH_OFFSET),
            op(JEQ_K, 0, to(1, allow), ARCH),
            op(LD_W_ABS, 0, 0, NR),
            op(JGE_K, to(3, deny), 0, X32_BIT),
        ];
        for (i, &nr) in groups.iter().enumerate() {
            p.push(op(JEQ_K, to(4 + i, deny), 0, nr as u32));
        }
        if unix_sockets {
            let socket = 4 + s;
            p.push(op(JEQ_K, 0, to(socket, allow), libc::SYS_socket as u32));
            p.push(op(LD_W_ABS, 0, 0, ARG0));
            p.push(op(
                JEQ_K,
                to(socket + 2, deny),
                to(socket + 2, allow),
                libc::AF_UNIX as u32,
            ));
        }
        p.push(op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW));
        p.push(op(
            RET_K,
            0,
            0,
            libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
        ));
        debug_assert_eq!(p.len(), deny + 1);
        Some(Filter { program: p })
    }

    /// Installs the filter on the calling thread (in the child, after `no_new_privs`).
    pub(super) fn install(&self) -> io::Result<()> {
        let prog = libc::sock_fprog {
            len: self.program.len() as u16,
            filter: self.program.as_ptr().cast_mut(),
        };
        // SAFETY: `prog` points to a valid, live program for the duration of the call; the
        // kernel copies it.
        let rc = unsafe {
            libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER as libc::c_ulong,
                &prog as *const libc::sock_fprog as libc::c_ulong,
                0,
                0,
            )
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` in a forked child with the filter installed; returns its exit code.
    fn in_child(unix_sockets: bool, new_groups: bool, f: fn() -> i32) -> i32 {
        let filter = Filter::new(unix_sockets, new_groups).unwrap();
        // SAFETY: the child only makes system calls and exits.
        match unsafe { libc::fork() } {
            0 => {
                let code = (|| {
                    nix::sys::prctl::set_no_new_privs().ok()?;
                    filter.install().ok()?;
                    Some(f())
                })()
                .unwrap_or(100);
                unsafe { libc::_exit(code) }
            }
            pid => {
                let mut status = 0;
                unsafe { libc::waitpid(pid, &mut status, 0) };
                libc::WEXITSTATUS(status)
            }
        }
    }

    fn errno() -> i32 {
        io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    #[test]
    fn unix_sockets_are_refused_and_the_rest_allowed() {
        let code = in_child(true, false, || {
            let unix = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) };
            if unix >= 0 || errno() != libc::EPERM {
                return 1;
            }
            let inet = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) };
            if inet < 0 {
                return 2;
            }
            let mut pair = [0; 2];
            if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) }
                != 0
            {
                return 3;
            }
            // Without suspend_idle a child may start its own session.
            if unsafe { libc::setsid() } < 0 {
                return 4;
            }
            0
        });
        assert_eq!(code, 0);
    }

    #[test]
    fn leaving_the_process_group_is_refused_with_suspend_idle() {
        let code = in_child(false, true, || {
            if unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) } < 0 {
                return 3;
            }
            if unsafe { libc::setpgid(0, 0) } == 0 || errno() != libc::EPERM {
                return 1;
            }
            if unsafe { libc::setsid() } >= 0 || errno() != libc::EPERM {
                return 2;
            }
            0
        });
        assert_eq!(code, 0);
        assert!(Filter::new(false, false).is_none());
    }
}
