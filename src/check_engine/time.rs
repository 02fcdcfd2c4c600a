//! The time checks: `go movetime`, `go depth 1`, `go nodes`, a low clock, `isready` during a
//! long search and `stop`.

use super::*;

impl Battery<'_> {
    pub(super) fn time_checks(&mut self) {
        let probe = self.time_probe();
        let margin = self.settings.margin;
        let movetime = self.settings.movetime();
        let names = [
            "go movetime",
            "go depth 1",
            "go nodes",
            "low clock",
            "isready in search",
            "stop",
        ];
        let Some((game, probe)) = probe else {
            for name in names {
                self.run(name, |_, _| (Verdict::Skipped, "no game to play".into()));
            }
            return;
        };
        self.run("go movetime", |b, engine| {
            let limit = Duration::from_millis(movetime) + margin;
            let result = b
                .new_game(engine, game)
                .and_then(|()| b.ask(engine, &probe, Go::MoveTime(movetime), limit));
            match result {
                Err(e) => fail(e),
                Ok((_, took)) if took > limit => fail(format!(
                    "took {} for movetime {movetime} ms (margin {})",
                    ms(took),
                    ms(margin)
                )),
                Ok((_, took)) if took.as_secs_f64() * 1e3 < movetime as f64 / 100.0 => (
                    Verdict::Warn,
                    format!(
                        "answered in {} of {movetime} ms: under 1% of its time",
                        ms(took)
                    ),
                ),
                Ok((_, took)) => pass(format!("answered in {} of {movetime} ms", ms(took))),
            }
        });
        for (name, go) in [("go depth 1", Go::Depth(1)), ("go nodes", Go::Nodes(NODES))] {
            self.run(name, |b, engine| {
                let asked = b
                    .again(engine, game)
                    .and_then(|()| b.ask(engine, &probe, go, SEARCH_LIMIT + margin));
                match asked {
                    Ok((mv, took)) => pass(format!("`bestmove {mv}` in {}", ms(took))),
                    Err(e) => fail(e),
                }
            });
        }
        self.run("low clock", |b, engine| {
            let (left, inc) = LOW_CLOCK_MS;
            let go = Go::Clock {
                p1time: left,
                p2time: left,
                p1inc: inc,
                p2inc: inc,
            };
            let limit = Duration::from_millis(left) + margin;
            match b
                .again(engine, game)
                .and_then(|()| b.ask(engine, &probe, go, limit))
            {
                Ok((_, took)) if took > Duration::from_millis(left) + margin => fail(format!(
                    "took {} with {left} ms on its clock (+{inc} ms increment)",
                    ms(took)
                )),
                Ok((_, took)) => pass(format!(
                    "answered in {} with {left} ms on its clock",
                    ms(took)
                )),
                Err(e) => fail(e),
            }
        });
        // One long search serves both checks: `isready` during it, then `stop`.
        let mut search: Option<Result<(Instant, bool), String>> = None;
        self.run("isready in search", |b, engine| {
            let go = Command::Go(Go::MoveTime(LONG_MOVETIME_MS)).to_string();
            let started = b.again(engine, game).and_then(|()| {
                engine
                    .send_lines(&[&probe.position_line(), &go])
                    .map_err(|e| describe(engine, &e))
            });
            if let Err(e) = started {
                search = Some(Err(e.clone()));
                return fail(e);
            }
            thread::sleep(Duration::from_millis(100));
            let mut answered = false;
            let asked = engine.send(&Command::IsReady);
            let ready = asked.and_then(|sent| {
                engine.recv_reply(
                    sent + STOP_LIMIT + margin,
                    "readyok",
                    |reply, _| match reply {
                        Reply::BestMove(_) => {
                            answered = true;
                            None
                        }
                        Reply::ReadyOk => Some(()),
                        _ => None,
                    },
                )
            });
            match ready {
                Ok(()) => {
                    search = Some(Ok((Instant::now(), answered)));
                    if answered {
                        (
                            Verdict::Skipped,
                            "not exercised: the search ended by itself before `isready` was sent"
                                .into(),
                        )
                    } else {
                        pass("`readyok` during `go movetime 10000`")
                    }
                }
                Err(e) => {
                    search = Some(Ok((Instant::now(), answered)));
                    fail(format!(
                        "`isready` during `go movetime {LONG_MOVETIME_MS}`: {}",
                        describe(engine, &e)
                    ))
                }
            }
        });
        self.run("stop", |_, engine| match search {
            None => (Verdict::Skipped, "the search did not start".into()),
            Some(Err(e)) => (Verdict::Skipped, e),
            Some(Ok((_, true))) => (
                Verdict::Skipped,
                "not exercised: the search ended by itself before `stop` was sent".into(),
            ),
            Some(Ok(_)) => {
                let sent = match engine.send(&Command::Stop) {
                    Ok(sent) => sent,
                    Err(e) => return fail(describe(engine, &e)),
                };
                let limit = STOP_LIMIT + margin;
                let best = engine.recv_reply(sent + limit, "bestmove", |reply, at| {
                    matches!(reply, Reply::BestMove(_)).then_some(at)
                });
                match best {
                    Ok(at) => pass(format!(
                        "`bestmove` {} after `stop`",
                        ms(at.saturating_duration_since(sent))
                    )),
                    Err(e) => fail(format!(
                        "`stop` during `go movetime {LONG_MOVETIME_MS}`: {} (limit {})",
                        describe(engine, &e),
                        ms(limit)
                    )),
                }
            }
        });
    }
}
