//! Live engine processes: spawning, line I/O with deadlines, the `ugi` handshake, and killing.
//!
//! Each engine runs in its own process group, so killing it also kills any child it forked.
//! One reader thread per engine turns stdout into timestamped lines on a bounded channel (a
//! flooding engine blocks on its own pipe instead of growing the runner's memory), with lines
//! capped at [`MAX_LINE`] bytes; another thread copies stderr to a log file, so a chatty engine
//! never blocks. Knows nothing of games or scores.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, bounded};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use crate::protocol::{Command, OptionDecl, Reply};

/// Longest accepted stdout line (bytes); a longer one is a protocol error, not a reason to
/// buffer without end.
pub const MAX_LINE: usize = 1 << 20;
/// Stdout lines buffered between the reader thread and the referee.
const CHANNEL_LINES: usize = 1024;
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
    #[error("no `{expected}` within {waited_ms} ms")]
    Timeout {
        /// What was awaited.
        expected: String,
        /// How long the runner waited (ms).
        waited_ms: u64,
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
}

/// Resource limits of an engine process, set with setrlimit between fork and exec.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Address space (MiB): allocations past it fail (RLIMIT_AS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// Processes and threads of the engine's user (RLIMIT_NPROC). The kernel does not apply
    /// this limit to root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u64>,
}

impl Limits {
    fn apply(self) -> io::Result<()> {
        use nix::sys::resource::{Resource, setrlimit};
        if let Some(mb) = self.memory_mb {
            let bytes = mb.saturating_mul(1 << 20);
            setrlimit(Resource::RLIMIT_AS, bytes, bytes).map_err(io::Error::from)?;
        }
        if let Some(threads) = self.threads {
            setrlimit(Resource::RLIMIT_NPROC, threads, threads).map_err(io::Error::from)?;
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
    lines: Receiver<(Output, Instant)>,
    /// Every line sent and received, when the transcript is on.
    transcript: Option<Vec<String>>,
    start: Instant,
}

fn read_lines(stdout: impl Read, sink: crossbeam_channel::Sender<(Output, Instant)>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    // Inside an overlong line: reported once, the rest discarded up to its newline.
    let mut too_long = false;
    loop {
        let (consumed, done) = match reader.fill_buf() {
            Ok([]) | Err(_) => {
                let _ = sink.send((Output::Closed, Instant::now()));
                return;
            }
            Ok(buf) => {
                let end = buf.iter().position(|&b| b == b'\n');
                let part = &buf[..end.unwrap_or(buf.len())];
                if !too_long && line.len() + part.len() > MAX_LINE {
                    too_long = true;
                    line.clear();
                    if sink.send((Output::TooLong, Instant::now())).is_err() {
                        return;
                    }
                } else if !too_long {
                    line.extend_from_slice(part);
                }
                (end.map_or(buf.len(), |e| e + 1), end.is_some())
            }
        };
        reader.consume(consumed);
        if done {
            let now = Instant::now();
            if std::mem::take(&mut too_long) {
                continue;
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let output = match String::from_utf8(std::mem::take(&mut line)) {
                Ok(text) => Output::Line(text),
                Err(e) => Output::NotUtf8(String::from_utf8_lossy(e.as_bytes()).into_owned()),
            };
            if sink.send((output, now)).is_err() {
                return;
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
            .args(&launch.args)
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
        let mut child = process.spawn().map_err(|source| EngineError::Spawn {
            command: launch.program.display().to_string(),
            source,
        })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (sink, lines) = bounded(CHANNEL_LINES);
        thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || read_lines(stdout, sink))
            .map_err(|source| EngineError::Spawn {
                command: launch.program.display().to_string(),
                source,
            })?;
        Ok(Engine {
            stdin: child.stdin.take(),
            child,
            lines,
            transcript: None,
            start: Instant::now(),
        })
    }

    /// Starts keeping a transcript of every line (see [`Engine::take_transcript`]).
    pub fn record_transcript(&mut self) {
        self.transcript = Some(Vec::new());
    }

    /// The lines exchanged since the transcript was started or last taken, each prefixed with
    /// the ms since spawn and `>` (sent) or `<` (received).
    pub fn take_transcript(&mut self) -> Vec<String> {
        self.transcript
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn note(&mut self, direction: char, text: &str) {
        if let Some(transcript) = &mut self.transcript {
            let ms = self.start.elapsed().as_millis();
            transcript.push(format!("{ms} {direction} {text}"));
        }
    }

    /// Sends one command line and flushes it; returns the instant the write completed.
    ///
    /// # Errors
    /// [`EngineError::Write`] when the engine's stdin is closed.
    pub fn send(&mut self, command: &Command) -> Result<Instant, EngineError> {
        self.send_line(&command.to_string())
    }

    /// Sends a line already formatted as a command (the referee keeps its `position` line and
    /// appends each move, rather than formatting the whole game again every move).
    ///
    /// # Errors
    /// [`EngineError::Write`] when the engine's stdin is closed.
    pub fn send_line(&mut self, text: &str) -> Result<Instant, EngineError> {
        self.note('>', text);
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            EngineError::Write(io::Error::new(io::ErrorKind::BrokenPipe, "stdin closed"))
        })?;
        stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.write_all(b"\n"))
            .and_then(|()| stdin.flush())
            .map_err(EngineError::Write)?;
        Ok(Instant::now())
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
        match self.lines.recv_deadline(deadline) {
            Ok((Output::Line(text), at)) => {
                self.note('<', &text);
                Ok((text, at))
            }
            Ok((Output::TooLong, _)) => {
                self.note('<', "[line over the length limit]");
                Err(EngineError::Protocol(format!(
                    "a line longer than {MAX_LINE} bytes"
                )))
            }
            Ok((Output::NotUtf8(text), _)) => {
                self.note('<', &text);
                Err(EngineError::Protocol(format!(
                    "a line that is not UTF-8: `{}`",
                    text.chars().take(80).collect::<String>()
                )))
            }
            Ok((Output::Closed, _)) | Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                // Give a dying process a moment so its exit status can be reported.
                let status = self.wait_exit(Duration::from_millis(50));
                Err(EngineError::Closed { status })
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                expected: expected.to_owned(),
                waited_ms: waited_from.elapsed().as_millis() as u64,
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
        self.recv_reply(deadline, "ugiok", |reply, _| match reply {
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
        })?;
        Ok(identity)
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

    /// Drops every line already received (e.g. a late `bestmove` after a forfeit).
    pub fn drain(&mut self) {
        while let Ok((output, _)) = self.lines.try_recv() {
            if let Output::Line(text) = output {
                self.note('<', &text);
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

    /// Asks the engine to quit, then kills its process group (children included) whatever it
    /// did, and reaps it.
    pub fn quit(mut self) {
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let _ = self.wait_exit(QUIT_GRACE);
        // Drop kills the group and reaps.
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
    }
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
