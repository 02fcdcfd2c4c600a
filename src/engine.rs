//! Live engine processes: spawning, line I/O with deadlines, the `ugi` handshake, and killing.
//!
//! Each engine runs in its own process group, so killing it also kills any child it forked.
//! Its stdout is read by the thread that plays its game, with `poll` and the move's deadline:
//! no hop through another thread per line, and a slow engine stalls only its own game. Lines
//! are timestamped when read and capped at [`MAX_LINE`] bytes, so a flooding engine blocks on
//! its own pipe instead of growing the runner's memory. Stderr goes straight to a log file, so
//! a chatty engine never blocks. Knows nothing of games or scores.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command as Process, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::protocol::{Command, OptionDecl, Reply};

/// Longest accepted stdout line (bytes); a longer one is a protocol error, not a reason to
/// buffer without end.
pub const MAX_LINE: usize = 1 << 20;
/// How long an engine gets to exit after `quit` before its group is killed.
const QUIT_GRACE: Duration = Duration::from_millis(300);

/// What the reader thread saw on an engine's stdout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// A complete line, without its line end.
    Line(String),
    /// A line longer than [`MAX_LINE`] bytes (discarded up to its end).
    TooLong,
    /// A line that is not UTF-8 (its lossy text).
    NotUtf8(String),
    /// Stdout closed: the engine exited or closed it.
    Closed,
}

/// Why talking to an engine failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The program could not be started.
    #[error("cannot start `{command}`: {source}")]
    Spawn {
        /// The resolved command.
        command: String,
        /// The OS error.
        source: io::Error,
    },
    /// No answer before the deadline.
    #[error("no `{expected}` within {waited_ms} ms{hint}")]
    Timeout {
        /// What was awaited.
        expected: String,
        /// How long the runner waited (ms).
        waited_ms: u64,
        /// The likely cause, when one is known (`; …`), else empty.
        hint: &'static str,
    },
    /// The engine closed stdout or exited.
    #[error("the engine exited or closed its output{status}")]
    Closed {
        /// Exit status text, if it has exited (`: exit status 3`).
        status: String,
    },
    /// The engine printed something the protocol does not allow here.
    #[error("protocol error: {0}")]
    Protocol(String),
    /// Writing to the engine failed (its stdin is closed).
    #[error("cannot write to the engine: {0}")]
    Write(io::Error),
}

/// Why an engine may send nothing at all to `ugi`, and the fix in the usual languages.
pub const SILENT_HINT: &str = "; nothing at all came back: the usual cause is stdout not \
flushed (block-buffered into a pipe); flush after every line: Python `print(line, flush=True)` \
(or `sys.stdout.reconfigure(line_buffering=True)` once), C `setvbuf(stdout, NULL, _IOLBF, 0);` \
at start (or `fflush(stdout)`), Node.js `process.stdout.write(line + \"\\n\")` (no buffering of \
your own), Java `System.out.flush()` (or `new PrintStream(System.out, true)`)";

/// How to start an engine: a program (no shell) with arguments, in a working directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The program, resolved (absolute, or a name found on PATH).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// File that receives the engine's stderr (appended), or `None` to discard it.
    pub stderr_log: Option<PathBuf>,
    /// Resource limits applied to the process before it starts.
    pub limits: Limits,
    /// The sandbox it runs in (`None`: `sandbox: off`); see [`crate::sandbox`].
    pub sandbox: Option<crate::sandbox::Parts>,
}

/// Resource limits of an engine process, set with setrlimit between fork and exec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Address space (MiB): allocations past it fail (RLIMIT_AS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// RLIMIT_NPROC: the most processes and threads that the engine's *user* may have at
    /// once, counted over every process of that user on the machine (the engine's main thread
    /// included), checked when the engine creates a thread or process. Not a per-engine thread
    /// limit, and not enforced for root: run engines as a dedicated unprivileged user for it to
    /// mean anything. (Named `threads` before; renamed for what it is.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_processes: Option<u64>,
}

impl Limits {
    fn apply(self) -> io::Result<()> {
        use nix::sys::resource::{Resource, setrlimit};
        if let Some(mb) = self.memory_mb {
            let bytes = mb.saturating_mul(1 << 20);
            setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(io::Error::from)?;
        }
        if let Some(count) = self.user_processes {
            setrlimit(Resource::RLIMIT_NPROC, count, count).map_err(io::Error::from)?;
        }
        Ok(())
    }
}

/// What an engine declared in answer to `ugi`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// `id name`.
    pub name: Option<String>,
    /// `id author`.
    pub author: Option<String>,
    /// Every `option` line.
    pub options: Vec<OptionDecl>,
}

impl Identity {
    /// The declared option called `name` (case-insensitive, as in UCI).
    pub fn option(&self, name: &str) -> Option<&OptionDecl> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Reused output buffer.
    out: Vec<u8>,
    stdout: LineReader,
    /// Every line sent and received, when the transcript is on.
    transcript: Option<Vec<TranscriptLine>>,
    /// Where its stderr goes, for the last lines after a crash.
    stderr_log: Option<PathBuf>,
    /// Its sandbox's working directory and cgroup, removed after the process (field order:
    /// dropped after `Drop::drop` has killed the group).
    sandbox: Option<crate::sandbox::Prepared>,
    /// `suspend_idle`: its group is stopped while the opponent thinks.
    suspend: Option<crate::sandbox::suspend::Suspender>,
}

/// One line of a protocol transcript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranscriptLine {
    /// When it was written (sent) or read (received).
    pub at: Instant,
    /// `true` for a line arena sent, `false` for one the engine printed.
    pub sent: bool,
    /// The line, without its line end.
    pub text: String,
}

/// Splits an engine's stdout into lines, reading only when asked and only until a deadline.
struct LineReader {
    stdout: ChildStdout,
    buf: Vec<u8>,
    /// Where each read lands, allocated and zeroed once (zeroing 64 KiB per read was most of
    /// the runner's CPU).
    scratch: Box<[u8]>,
    /// Bytes of `buf` before this offset are consumed.
    start: usize,
    /// Inside an overlong line, already reported: drop bytes up to its newline.
    discarding: bool,
    closed: bool,
    /// When the last read returned: the time stamp of the lines it completed.
    read_at: Instant,
}

/// Bytes read per system call.
const CHUNK: usize = 64 * 1024;

impl LineReader {
    fn new(stdout: ChildStdout) -> LineReader {
        LineReader {
            stdout,
            buf: Vec::with_capacity(CHUNK),
            scratch: vec![0; CHUNK].into_boxed_slice(),
            start: 0,
            discarding: false,
            closed: false,
            read_at: Instant::now(),
        }
    }

    /// The next output, waiting until `deadline` at most; `None` when it passes first.
    fn next(&mut self, deadline: Instant) -> Option<(Output, Instant)> {
        loop {
            if let Some(newline) = self.buf[self.start..].iter().position(|&b| b == b'\n') {
                let (begin, end) = (self.start, self.start + newline);
                self.start = end + 1;
                if std::mem::take(&mut self.discarding) {
                    continue;
                }
                let mut bytes = &self.buf[begin..end];
                if bytes.last() == Some(&b'\r') {
                    bytes = &bytes[..bytes.len() - 1];
                }
                let output = match std::str::from_utf8(bytes) {
                    Ok(text) => Output::Line(text.to_owned()),
                    Err(_) => Output::NotUtf8(String::from_utf8_lossy(bytes).into_owned()),
                };
                return Some((output, self.read_at));
            }
            // No complete line: drop what is consumed, and an overlong partial line.
            self.buf.drain(..self.start);
            self.start = 0;
            if self.discarding {
                self.buf.clear();
            } else if self.buf.len() > MAX_LINE {
                self.buf.clear();
                self.discarding = true;
                return Some((Output::TooLong, self.read_at));
            }
            if self.closed {
                return Some((Output::Closed, Instant::now()));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            // Rounded up, so a deadline is never missed by a millisecond's truncation.
            let timeout =
                PollTimeout::try_from(left.as_micros().div_ceil(1000)).unwrap_or(PollTimeout::MAX);
            let mut fds = [PollFd::new(self.stdout.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, timeout) {
                Ok(0) if Instant::now() >= deadline => return None,
                Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
                Ok(_) => {}
                Err(_) => self.closed = true,
            }
            let read = loop {
                match self.stdout.read(&mut self.scratch) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            self.read_at = Instant::now();
            match read {
                Ok(n) if n > 0 => self.buf.extend_from_slice(&self.scratch[..n]),
                _ => self.closed = true,
            }
        }
    }
}

impl Engine {
    /// Starts the program in a new process group with piped stdin/stdout.
    ///
    /// # Errors
    /// [`EngineError::Spawn`] when the program cannot be executed.
    pub fn spawn(launch: &Launch) -> Result<Engine, EngineError> {
        let stderr = match &launch.stderr_log {
            Some(path) => File::options()
                .create(true)
                .append(true)
                .open(path)
                .map(Stdio::from)
                .unwrap_or_else(|_| Stdio::null()),
            None => Stdio::null(),
        };
        let mut process = Process::new(&launch.program);
        process
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .process_group(0);
        if launch.limits != Limits::default() {
            let limits = launch.limits;
            // SAFETY: between fork and exec the closure only calls setrlimit, a plain system
            // call that is async-signal-safe; it allocates nothing and takes no lock.
            unsafe {
                process.pre_exec(move || limits.apply());
            }
        }
        let spawn_error = |source| EngineError::Spawn {
            command: launch.program.display().to_string(),
            source,
        };
        // The sandbox's hook runs after the limits' (both between fork and exec).
        let sandbox = match &launch.sandbox {
            Some(parts) => {
                let on_path = std::env::var_os("PATH").is_some_and(|path| {
                    std::env::split_paths(&path).any(|dir| launch.program.parent() == Some(&dir))
                });
                let prepared = crate::sandbox::Prepared::new(
                    parts,
                    &launch.program,
                    on_path,
                    &launch.args,
                    &mut process,
                )
                .map_err(spawn_error)?;
                Some(prepared)
            }
            None => {
                process.args(&launch.args);
                None
            }
        };
        let mut child = crate::reaper::spawn(&mut process).map_err(spawn_error)?;
        let pid = child.id();
        let stdout = LineReader::new(child.stdout.take().expect("stdout is piped"));
        Ok(Engine {
            stdin: child.stdin.take(),
            out: Vec::new(),
            child,
            stdout,
            transcript: None,
            stderr_log: launch.stderr_log.clone(),
            suspend: sandbox
                .as_ref()
                .filter(|s| s.parts.suspend_idle)
                .map(|_| crate::sandbox::suspend::Suspender::new(pid)),
            sandbox,
        })
    }

    /// Starts keeping a transcript of every line (see [`Engine::take_transcript`]).
    pub fn record_transcript(&mut self) {
        self.transcript = Some(Vec::new());
    }

    /// The lines exchanged since the transcript was started or last taken, in order, each
    /// with the instant it was sent or read (so two engines' lines can be merged on one clock).
    pub fn take_transcript(&mut self) -> Vec<TranscriptLine> {
        self.transcript
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn note(&mut self, direction: char, text: &str) {
        if let Some(transcript) = &mut self.transcript {
            transcript.push(TranscriptLine {
                at: Instant::now(),
                sent: direction == '>',
                text: text.to_owned(),
            });
        }
    }

    /// The last `lines` non-empty lines of the engine's stderr log (empty when stderr is not
    /// logged or says nothing).
    pub fn stderr_lines(&self, lines: usize) -> Vec<String> {
        self.stderr_log
            .as_ref()
            .and_then(|path| tail_lines(path, lines))
            .unwrap_or_default()
    }

    /// `last stderr: `…`; log: PATH` with the last `lines` non-empty lines of the engine's
    /// stderr log (read from its last 8 KiB), or `None` when stderr is not logged. The log is
    /// appended across restarts of the same worker, so the lines are the latest process's.
    pub fn stderr_tail(&self, lines: usize) -> Option<String> {
        let path = self.stderr_log.as_ref()?;
        // A denial is the likely cause of a sandboxed engine's failure: said first.
        let sandboxed = if self.sandbox.is_some() {
            "sandbox on; "
        } else {
            ""
        };
        Some(match tail_lines(path, lines) {
            Some(tail) if !tail.is_empty() => {
                format!(
                    "{sandboxed}last stderr: `{}`; log: {}",
                    tail.join(" | "),
                    path.display()
                )
            }
            _ => format!("{sandboxed}nothing on stderr; log: {}", path.display()),
        })
    }

    /// Sends one command line and flushes it; returns the instant the write completed.
    ///
    /// # Errors
    /// [`EngineError::Write`] when the engine's stdin is closed.
    pub fn send(&mut self, command: &Command) -> Result<Instant, EngineError> {
        self.send_line(&command.to_string())
    }

    /// Sends lines already formatted as commands in one write (the referee keeps its
    /// `position` line and appends each move, and sends it with `go`); returns the instant the
    /// write completed.
    ///
    /// # Errors
    /// [`EngineError::Write`] when the engine's stdin is closed.
    pub fn send_lines(&mut self, lines: &[&str]) -> Result<Instant, EngineError> {
        let mut text = std::mem::take(&mut self.out);
        text.clear();
        for line in lines {
            self.note('>', line);
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
        if let Some(suspend) = &self.suspend {
            suspend.wake();
        }
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            EngineError::Write(io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))
        })?;
        let written = stdin.write_all(&text).and_then(|()| stdin.flush());
        // Kept for the next move: one buffer per engine, not an allocation per line.
        self.out = text;
        written.map_err(EngineError::Write)?;
        Ok(Instant::now())
    }

    /// Sends one line already formatted as a command.
    ///
    /// # Errors
    /// [`EngineError::Write`] when the engine's stdin is closed.
    pub fn send_line(&mut self, text: &str) -> Result<Instant, EngineError> {
        self.send_lines(&[text])
    }

    /// The next stdout line before `deadline`, with the instant it was read.
    ///
    /// # Errors
    /// [`EngineError::Timeout`] (naming `expected`) when the deadline passes,
    /// [`EngineError::Closed`] when stdout closed, [`EngineError::Protocol`] for an overlong or
    /// non-UTF-8 line.
    pub fn recv(
        &mut self,
        deadline: Instant,
        expected: &str,
    ) -> Result<(String, Instant), EngineError> {
        let waited_from = Instant::now();
        let next = if crate::sandbox::suspend::any_pending() {
            // The opponent's idle engine is stopped once this one has thought a moment.
            let grace = Instant::now() + crate::sandbox::suspend::GRACE;
            match self.stdout.next(deadline.min(grace)) {
                None if Instant::now() < deadline => {
                    crate::sandbox::suspend::stop_pending();
                    self.stdout.next(deadline)
                }
                next => next,
            }
        } else {
            self.stdout.next(deadline)
        };
        match next {
            Some((Output::Line(text), at)) => {
                self.note('<', &text);
                // No thinking on the opponent's time: stopped until arena writes again.
                if let Some(suspend) = &self.suspend {
                    if text.starts_with("bestmove") {
                        suspend.idle();
                    }
                }
                Ok((text, at))
            }
            Some((Output::TooLong, _)) => {
                self.note('<', "[line over the length limit]");
                Err(EngineError::Protocol(format!(
                    "a line longer than {MAX_LINE} bytes"
                )))
            }
            Some((Output::NotUtf8(text), _)) => {
                self.note('<', &text);
                Err(EngineError::Protocol(format!(
                    "a line that is not UTF-8: `{}`",
                    text.chars().take(80).collect::<String>()
                )))
            }
            Some((Output::Closed, _)) => {
                // Give a dying process a moment so its exit status can be reported.
                let status = self.wait_exit(Duration::from_millis(50));
                Err(EngineError::Closed { status })
            }
            None => Err(EngineError::Timeout {
                expected: expected.to_owned(),
                waited_ms: waited_from.elapsed().as_millis() as u64,
                hint: "",
            }),
        }
    }

    /// Reads lines until one parses as a reply accepted by `want`, ignoring (and noting) other
    /// lines, before `deadline`.
    ///
    /// # Errors
    /// As [`Engine::recv`], and [`EngineError::Protocol`] for a malformed line whose keyword is
    /// `expected`; other lines the protocol cannot parse are skipped.
    pub fn recv_reply<T>(
        &mut self,
        deadline: Instant,
        expected: &str,
        mut want: impl FnMut(Reply, Instant) -> Option<T>,
    ) -> Result<T, EngineError> {
        loop {
            let (line, at) = self.recv(deadline, expected)?;
            match Reply::parse(&line) {
                Ok(reply) => {
                    if let Some(value) = want(reply, at) {
                        return Ok(value);
                    }
                }
                // A malformed line of the very reply awaited (`bestmove` without a move) cannot
                // be skipped: nothing else will come.
                Err(e) if e.keyword == expected => {
                    return Err(EngineError::Protocol(e.to_string()));
                }
                Err(_) => {}
            }
        }
    }

    /// Sends `ugi` and collects the identity until `ugiok`.
    ///
    /// # Errors
    /// [`EngineError`] when `ugiok` does not come before `timeout`.
    pub fn handshake(&mut self, timeout: Duration) -> Result<Identity, EngineError> {
        let deadline = Instant::now() + timeout;
        self.send(&Command::Ugi)?;
        let mut identity = Identity::default();
        let mut heard = false;
        let answer = self.recv_reply(deadline, "ugiok", |reply, _| {
            heard = true;
            match reply {
                Reply::Id { field, value } if field == "name" => {
                    identity.name = Some(value);
                    None
                }
                Reply::Id { field, value } if field == "author" => {
                    identity.author = Some(value);
                    None
                }
                Reply::Option(decl) => {
                    identity.options.push(decl);
                    None
                }
                Reply::UgiOk => Some(()),
                _ => None,
            }
        });
        match answer {
            // Not a line back: almost always output that sits in the engine's buffer.
            Err(EngineError::Timeout {
                expected,
                waited_ms,
                ..
            }) if !heard => Err(EngineError::Timeout {
                expected,
                waited_ms,
                hint: SILENT_HINT,
            }),
            Err(e) => Err(e),
            Ok(()) => Ok(identity),
        }
    }

    /// Sends `isready` and waits for `readyok`.
    ///
    /// # Errors
    /// [`EngineError`] when `readyok` does not come before `timeout`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let deadline = Instant::now() + timeout;
        self.send(&Command::IsReady)?;
        self.recv_reply(deadline, "readyok", |reply, _| {
            (reply == Reply::ReadyOk).then_some(())
        })
    }

    /// Drops every line already sent by the engine (e.g. a late `bestmove` after a forfeit),
    /// without waiting.
    pub fn drain(&mut self) {
        while let Some((output, _)) = self.stdout.next(Instant::now()) {
            match output {
                Output::Line(text) => self.note('<', &text),
                Output::Closed => break,
                Output::TooLong | Output::NotUtf8(_) => {}
            }
        }
    }

    fn wait_exit(&mut self, grace: Duration) -> String {
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!(": {status}"),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => return String::new(),
            }
        }
    }

    /// Closes the engine's stdin (its end of input, as when the runner goes away), then waits
    /// up to `grace` for it to exit; `Some(status text)` when it did.
    pub fn close_stdin(&mut self, grace: Duration) -> Option<String> {
        if let Some(suspend) = &self.suspend {
            suspend.wake();
        }
        self.stdin = None;
        let status = self.wait_exit(grace);
        (!status.is_empty()).then(|| status.trim_start_matches(": ").to_owned())
    }

    /// Asks the engine to quit, then kills its process group (children included) whatever it
    /// did, and reaps it.
    pub fn quit(mut self) {
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let _ = self.wait_exit(QUIT_GRACE);
        // Drop kills the group and reaps.
    }

    /// `Some(status text)` when the engine's main process has exited (its output may still be
    /// open, held by a process it forked); `None` while it runs.
    pub fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.to_string()),
            _ => None,
        }
    }

    /// The engine's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stdin = None;
        // The group outlives the leader when the engine forked: kill it in any case.
        let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
        let _ = self.child.kill();
        let _ = self.child.wait();
        crate::reaper::forget(self.child.id());
        // What left the group (`setsid`, a daemon) is orphaned now, and arena's to end.
        crate::reaper::sweep();
    }
}

/// The last `count` non-empty lines of a text file, read from its last 8 KiB; `None` when it
/// cannot be read.
pub fn tail_lines(path: &Path, count: usize) -> Option<Vec<String>> {
    use std::io::{Seek, SeekFrom};
    let mut file = File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(8192))).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().take(300).collect())
        .collect();
    let skip = lines.len().saturating_sub(count);
    lines.drain(..skip);
    Some(lines)
}

/// Resolves a configured command: a name without `/` is searched on PATH; a path is taken
/// relative to `base` (the directory arena runs in). The file must exist and be executable.
///
/// # Errors
/// A message naming the resolved path (or the PATH search) when nothing runnable is found.
pub fn resolve_program(command: &str, base: &Path) -> Result<PathBuf, String> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |path: &Path| {
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if command.contains('/') {
        let path = base.join(command);
        return if runnable(&path) {
            Ok(path)
        } else if path.exists() {
            Err(format!("`{}` is not an executable file", path.display()))
        } else if Path::new(command).is_relative() {
            Err(format!(
                "`{}` does not exist (`{command}` is resolved against {}, the directory arena runs in)",
                path.display(),
                base.display()
            ))
        } else {
            Err(format!("`{}` does not exist", path.display()))
        };
    }
    let search = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&search)
        .map(|dir| dir.join(command))
        .find(|path| runnable(path))
        .ok_or_else(|| format!("`{command}` is not found on PATH"))
}
