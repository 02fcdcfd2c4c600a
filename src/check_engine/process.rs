//! The process checks at the end: every stdout line a protocol reply, and exit on `quit` or
//! when stdin closes.

use super::*;

impl Battery<'_> {
    /// Judges every line printed outside the handshake: protocol replies only.
    pub(super) fn stdout(&mut self) {
        let stray: Vec<String> = self
            .received
            .iter()
            .filter(|line| {
                !line.trim().is_empty()
                    && !matches!(
                        Reply::parse(line),
                        Ok(Reply::Info(_) | Reply::BestMove(_) | Reply::ReadyOk)
                    )
            })
            .cloned()
            .collect();
        let outcome = if self.dead.as_deref() == Some("handshake") {
            (
                Verdict::Skipped,
                "the engine did not complete the handshake".into(),
            )
        } else if stray.is_empty() {
            pass(format!(
                "{} lines, all protocol replies",
                self.received.len()
            ))
        } else {
            let shown: Vec<String> = stray.iter().take(4).map(|l| format!("`{l}`")).collect();
            (
                Verdict::Warn,
                format!(
                    "{} of {} lines are not protocol replies here (ignored by the runner): {}",
                    stray.len(),
                    self.received.len(),
                    shown.join(", ")
                ),
            )
        };
        self.push("stdout", outcome, Vec::new(), Instant::now());
    }

    /// `quit` ends the process; so does closing its stdin (checked on a fresh process).
    pub(super) fn quit(&mut self) {
        self.run("quit", |b, engine| {
            if let Err(e) = engine.send(&Command::Quit) {
                return fail(describe(engine, &e));
            }
            let until = Instant::now() + EXIT_LIMIT;
            while engine.exited().is_none() && Instant::now() < until {
                thread::sleep(Duration::from_millis(5));
            }
            if engine.exited().is_none() {
                return fail(format!("still running {} after `quit`", ms(EXIT_LIMIT)));
            }
            let (mut fresh, _) = match b.start() {
                Ok(started) => started,
                Err((e, _)) => return fail(format!("restarting it: {e}")),
            };
            let exited = fresh.close_stdin(EXIT_LIMIT);
            let mut lines = fresh.take_transcript();
            lines.retain(|l| !l.sent);
            match exited {
                Some(_) => pass("exits on `quit` and when its stdin closes"),
                None => fail(format!(
                    "exits on `quit`, but still running {} after its stdin closed",
                    ms(EXIT_LIMIT)
                )),
            }
        });
        // The process has exited (or is killed when dropped).
        self.engine = None;
    }
}
