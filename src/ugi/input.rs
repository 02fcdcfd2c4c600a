//! The engine loop's stdin, read by its only thread: whole lines between searches, and during
//! a search a non-blocking look (from [`super::Search::should_stop`]) that answers `isready`,
//! raises `stop` and keeps every other line for after the search.
//!
//! One thread instead of a reader thread and a channel: every command then costs one wake-up
//! of the engine, not two (the reader's and the searcher's), which is most of what an instant
//! engine spends per move. Owns no protocol knowledge beyond those three words.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// Bytes asked for per `read`.
const CHUNK: usize = 64 * 1024;
/// How often a search looks at stdin at most: `stop` is seen within this much of arriving.
const LOOK_EVERY: Duration = Duration::from_millis(1);

/// Lines of stdin, with the search-time flags.
pub(super) struct Input {
    /// Bytes read and not yet split into lines, from `start`.
    buf: Vec<u8>,
    start: usize,
    /// Where `read` writes, allocated once: growing `buf` by a zeroed chunk per read would
    /// clear 64 KiB for every line.
    scratch: Box<[u8]>,
    /// Complete lines that arrived during a search, in order.
    held: VecDeque<String>,
    /// The end of stdin (or a read error) was met.
    ended: bool,
    /// `stop` or `quit` (or the end of stdin) arrived during the search.
    stop: bool,
    last_look: Instant,
}

impl Input {
    pub(super) fn new() -> Input {
        Input {
            buf: Vec::with_capacity(CHUNK),
            start: 0,
            scratch: vec![0; CHUNK].into_boxed_slice(),
            held: VecDeque::new(),
            ended: false,
            stop: false,
            last_look: Instant::now(),
        }
    }

    /// The next line, waiting for it; `None` at the end of stdin.
    pub(super) fn next_line(&mut self) -> Option<String> {
        if let Some(line) = self.held.pop_front() {
            return Some(line);
        }
        loop {
            if let Some(line) = self.split() {
                return Some(line);
            }
            if self.ended || !self.fill() {
                return None;
            }
        }
    }

    /// Called as a search starts: clears `stop`.
    pub(super) fn start_search(&mut self) {
        self.stop = false;
        self.last_look = Instant::now();
    }

    /// Whether `stop`, `quit` or the end of stdin arrived since the search started; looks at
    /// stdin without waiting, at most every [`LOOK_EVERY`].
    pub(super) fn stopped(&mut self) -> bool {
        if !self.stop && !self.ended && self.last_look.elapsed() >= LOOK_EVERY {
            self.look();
            self.last_look = Instant::now();
        }
        self.stop
    }

    /// Handles the lines already read (they may have come with the `go`), then those the pipe
    /// holds, without waiting.
    fn look(&mut self) {
        self.take_lines();
        let stdin = io::stdin();
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        if !matches!(poll(&mut fds, PollTimeout::ZERO), Ok(n) if n > 0) {
            return;
        }
        if !self.fill() || self.ended {
            self.stop = true;
        }
        self.take_lines();
    }

    /// Answers `isready`, raises `stop` for `stop` and `quit`, holds every other line.
    fn take_lines(&mut self) {
        while let Some(line) = self.split() {
            match line.split_whitespace().next() {
                Some("isready") => {
                    let mut out = io::stdout().lock();
                    let _ = out.write_all(b"readyok\n").and_then(|()| out.flush());
                }
                Some("stop") => self.stop = true,
                Some("quit") => {
                    self.stop = true;
                    self.held.push_back(line);
                }
                _ => self.held.push_back(line),
            }
        }
    }

    /// The next complete line of the buffer, without its `\r\n` or `\n`.
    fn split(&mut self) -> Option<String> {
        let newline = self.buf[self.start..].iter().position(|&b| b == b'\n')?;
        let end = self.start + newline;
        let mut line = &self.buf[self.start..end];
        if line.last() == Some(&b'\r') {
            line = &line[..line.len() - 1];
        }
        let text = String::from_utf8_lossy(line).into_owned();
        self.start = end + 1;
        Some(text)
    }

    /// One blocking `read` into the buffer; false at the end of stdin or on an error.
    fn fill(&mut self) -> bool {
        self.buf.drain(..self.start);
        self.start = 0;
        let len = self.buf.len();
        let read = loop {
            match nix::unistd::read(io::stdin().as_fd(), &mut self.scratch) {
                Err(nix::errno::Errno::EINTR) => continue,
                other => break other,
            }
        };
        match read {
            Ok(n) if n > 0 => {
                self.buf.extend_from_slice(&self.scratch[..n]);
                true
            }
            _ => {
                // A last line without a newline still counts.
                if len > 0 && self.buf.last() != Some(&b'\n') {
                    self.buf.push(b'\n');
                }
                self.ended = true;
                len > 0
            }
        }
    }
}
