//! The time checks: `go movetime`, `go depth 1`, `go nodes`, a low clock, `isready` during a
//! long search and `stop`.
//!
//! A single-threaded engine reads no command while it searches: `isready` and `stop` are then
//! warnings (what UGI expects, and why), and the battery goes on once the search ends.

use super::*;

/// The time checks, in order.
const NAMES: [&str; 6] = [
    "go movetime",
    "go depth 1",
    "go nodes",
    "low clock",
    "isready in search",
    "stop",
];

/// Why a library's `play` cannot pass a check (player.h has no clock and no way to stop).
const NO_CLOCK: &str =
    "n/a (library): player.h's `play` is given no clock, so a library cannot spend its time by it";
/// See [`NO_CLOCK`].
const NO_STOP: &str =
    "n/a (library): player.h's `play` cannot be interrupted, so `stop` cannot end its search";

/// What the long search of `isready in search` left for the `stop` check.
enum Search {
    /// It did not start (the reason).
    NotStarted(String),
    /// Still running: `stop` can be tried.
    Running,
    /// It ended by itself before `isready` was sent.
    EndedEarly,
    /// The engine read `isready` only after its search ended: it reads nothing while searching.
    Deaf,
}

impl Battery<'_> {
    /// The six time checks on one ordinary position ([`Battery::time_probe`]).
    pub(super) fn time_checks(&mut self) {
        let Some((game, probe)) = self.time_probe() else {
            for name in NAMES {
                self.run(name, |_, _| (Verdict::Skipped, "no game to play".into()));
            }
            return;
        };
        self.movetime_check(game, &probe);
        self.fixed_search_checks(game, &probe);
        self.low_clock_check(game, &probe);
        let search = self.isready_in_search_check(game, &probe);
        self.stop_check(search);
    }

    /// `go movetime`: answered within the movetime; with `--config`, within the config's time
    /// control, the one the engine will play under (a library is never given another); a
    /// warning under 1% of the time.
    fn movetime_check(&mut self, game: GameKind, probe: &Probe) {
        let margin = self.settings.margin;
        if let Some((go, limit)) = self.config_go() {
            self.run(NAMES[0], |b, engine| {
                match b
                    .new_game(engine, game)
                    .and_then(|()| b.ask(engine, probe, go, limit))
                {
                    Err(e) => fail(e),
                    Ok((_, took)) => pass(format!(
                        "answered in {} under the config's `{}` (limit {})",
                        ms(took),
                        Command::Go(go),
                        ms(limit)
                    )),
                }
            });
            return;
        }
        let movetime = self.settings.movetime();
        self.run(NAMES[0], |b, engine| {
            let limit = Duration::from_millis(movetime) + margin;
            let result = b
                .new_game(engine, game)
                .and_then(|()| b.ask(engine, probe, Go::MoveTime(movetime), limit));
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
    }

    /// `go depth 1` and `go nodes`: only have to be answered, within [`SEARCH_LIMIT`] (or the
    /// config's limit, when longer).
    fn fixed_search_checks(&mut self, game: GameKind, probe: &Probe) {
        let margin = self.settings.margin;
        let limit = self
            .config_go()
            .map_or(SEARCH_LIMIT + margin, |(_, l)| l.max(SEARCH_LIMIT + margin));
        for (name, go) in [(NAMES[1], Go::Depth(1)), (NAMES[2], Go::Nodes(NODES))] {
            self.run(name, |b, engine| {
                let asked = b
                    .again(engine, game)
                    .and_then(|()| b.ask(engine, probe, go, limit));
                match asked {
                    Ok((mv, took)) => pass(format!("`bestmove {mv}` in {}", ms(took))),
                    Err(e) => fail(e),
                }
            });
        }
    }

    /// `low clock`: a move within [`LOW_CLOCK_MS`] left on the clock; n/a for a library.
    fn low_clock_check(&mut self, game: GameKind, probe: &Probe) {
        if self.target.from_start {
            self.not_applicable(NAMES[3], NO_CLOCK);
            return;
        }
        let margin = self.settings.margin;
        self.run(NAMES[3], |b, engine| {
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
                .and_then(|()| b.ask(engine, probe, go, limit))
            {
                Ok((_, took)) if took > limit => fail(format!(
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
    }

    /// `isready` 100 ms into `go movetime` [`LONG_MOVETIME_MS`]: `readyok` at once passes; a
    /// `readyok` only once the search ended is a warning (a single-threaded engine), and the
    /// battery goes on.
    fn isready_in_search_check(&mut self, game: GameKind, probe: &Probe) -> Search {
        let margin = self.settings.margin;
        let handshake = self.settings.handshake;
        let mut search = Search::NotStarted("the search did not start".into());
        self.run(NAMES[4], |b, engine| {
            let go = Command::Go(Go::MoveTime(LONG_MOVETIME_MS)).to_string();
            let started = b.again(engine, game).and_then(|()| {
                engine
                    .send_lines(&[&probe.position_line(), &go])
                    .map_err(|e| describe(engine, &e))
            });
            let go_sent = match started {
                Ok(sent) => sent,
                Err(e) => {
                    search = Search::NotStarted(e.clone());
                    return fail(e);
                }
            };
            thread::sleep(Duration::from_millis(100));
            let mut ended = false;
            let asked = engine.send(&Command::IsReady);
            let ready = asked.and_then(|sent| {
                engine.recv_reply(
                    sent + STOP_LIMIT + margin,
                    "readyok",
                    |reply, _| match reply {
                        Reply::BestMove(_) => {
                            ended = true;
                            None
                        }
                        Reply::ReadyOk => Some(()),
                        _ => None,
                    },
                )
            });
            match ready {
                Ok(()) if ended => {
                    search = Search::EndedEarly;
                    (
                        Verdict::Skipped,
                        "not exercised: the search ended by itself before `isready` was sent"
                            .into(),
                    )
                }
                Ok(()) => {
                    search = Search::Running;
                    pass("`readyok` during `go movetime 10000`")
                }
                Err(EngineError::Timeout { .. }) => {
                    let end = go_sent + Duration::from_millis(LONG_MOVETIME_MS) + margin;
                    match after_the_search(engine, ended, end, handshake) {
                        Ok((waited, true)) => {
                            search = Search::Deaf;
                            (Verdict::Warn, deaf_warning(waited, STOP_LIMIT + margin))
                        }
                        Ok((waited, false)) => {
                            search = Search::EndedEarly;
                            (
                                Verdict::Warn,
                                format!(
                                    "`readyok` {} late during `go movetime {LONG_MOVETIME_MS}` \
                                     (limit {}): UGI expects it at once, even in a search",
                                    ms(waited),
                                    ms(STOP_LIMIT + margin)
                                ),
                            )
                        }
                        Err(e) => {
                            search = Search::NotStarted(e.clone());
                            fail(e)
                        }
                    }
                }
                Err(e) => {
                    search = Search::NotStarted(describe(engine, &e));
                    fail(format!(
                        "`isready` during `go movetime {LONG_MOVETIME_MS}`: {}",
                        describe(engine, &e)
                    ))
                }
            }
        });
        search
    }

    /// `stop` during the long search: `bestmove` within [`STOP_LIMIT`]; a `bestmove` only when
    /// the search ends by itself is a warning; n/a for a library.
    fn stop_check(&mut self, search: Search) {
        if self.target.from_start {
            self.not_applicable(NAMES[5], NO_STOP);
            return;
        }
        let margin = self.settings.margin;
        self.run(NAMES[5], |_, engine| match search {
            Search::NotStarted(e) => (Verdict::Skipped, e),
            Search::EndedEarly => (
                Verdict::Skipped,
                "not exercised: the search ended by itself before `stop` was sent".into(),
            ),
            Search::Deaf => (
                Verdict::Warn,
                "not exercised: the engine reads no command during its search (see `isready in \
                 search`), so `stop` would end nothing; a runner stops a search with it"
                    .into(),
            ),
            Search::Running => {
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
                    Err(EngineError::Timeout { .. }) => {
                        let end = sent + Duration::from_millis(LONG_MOVETIME_MS) + margin;
                        let late = engine.recv_reply(end, "bestmove", |reply, at| {
                            matches!(reply, Reply::BestMove(_)).then_some(at)
                        });
                        match late {
                            Ok(at) => (
                                Verdict::Warn,
                                format!(
                                    "`bestmove` only {} after `stop` (limit {}), when the search \
                                     ended by itself: UGI expects `stop` to end a search at once; \
                                     a runner sends it when a search must end",
                                    ms(at.saturating_duration_since(sent)),
                                    ms(limit)
                                ),
                            ),
                            Err(e) => fail(format!(
                                "`stop` during `go movetime {LONG_MOVETIME_MS}`: {} (limit {})",
                                describe(engine, &e),
                                ms(limit)
                            )),
                        }
                    }
                    Err(e) => fail(format!(
                        "`stop` during `go movetime {LONG_MOVETIME_MS}`: {} (limit {})",
                        describe(engine, &e),
                        ms(limit)
                    )),
                }
            }
        });
    }

    /// A move under the config's time control (`--config`), the one the engine will play
    /// under, and how long to wait for it; `None` without a config.
    pub(super) fn config_go(&self) -> Option<(Go, Duration)> {
        let tc = self.target.time_control?;
        let margin = Duration::from_millis(tc.margin_ms) + self.settings.margin;
        Some(match tc.limit {
            config::Limit::MoveTime(t) => (Go::MoveTime(t), Duration::from_millis(t) + margin),
            config::Limit::Clock { base, increment } => (
                Go::Clock {
                    p1time: base,
                    p2time: base,
                    p1inc: increment,
                    p2inc: increment,
                },
                Duration::from_millis(base) + margin,
            ),
            config::Limit::Depth(d) => (Go::Depth(d), Duration::from_millis(tc.move_timeout_ms)),
            config::Limit::Nodes(n) => (Go::Nodes(n), Duration::from_millis(tc.move_timeout_ms)),
        })
    }

    /// Records `name` as not applicable, with the reason, without touching the engine.
    fn not_applicable(&mut self, name: &str, reason: &str) {
        self.push(
            name,
            (Verdict::NotApplicable, reason.into()),
            Vec::new(),
            Instant::now(),
        );
    }
}

/// After `isready` got no `readyok` within the limit: waits for the search's `bestmove`
/// (unless `ended`) until `end`, then for the `readyok`. Returns how much later `readyok` came
/// and whether only after the search (`true`), or the failure (the engine hung, or never
/// answered `isready`).
fn after_the_search(
    engine: &mut Engine,
    ended: bool,
    end: Instant,
    handshake: Duration,
) -> Result<(Duration, bool), String> {
    let from = Instant::now();
    let mut ready = None;
    if !ended {
        engine
            .recv_reply(end, "bestmove", |reply, at| match reply {
                Reply::ReadyOk => {
                    ready = Some(at);
                    None
                }
                Reply::BestMove(_) => Some(()),
                _ => None,
            })
            .map_err(|e| {
                format!(
                    "`isready` during `go movetime {LONG_MOVETIME_MS}`: no `readyok`, and {}",
                    describe(engine, &e)
                )
            })?;
    }
    let during = ready.is_some();
    let ready = match ready {
        Some(at) => at,
        None => engine
            .recv_reply(Instant::now() + handshake, "readyok", |reply, at| {
                matches!(reply, Reply::ReadyOk).then_some(at)
            })
            .map_err(|e| {
                format!(
                    "`isready` during `go movetime {LONG_MOVETIME_MS}`, not answered even after \
                     the search: {}",
                    describe(engine, &e)
                )
            })?,
    };
    Ok((ready.saturating_duration_since(from), !during))
}

/// The warning for an engine that answered `isready` only after its search.
fn deaf_warning(waited: Duration, limit: Duration) -> String {
    format!(
        "no `readyok` within {} during `go movetime {LONG_MOVETIME_MS}`; it came {} later, once \
         the search ended: the engine reads no command while it searches (single-threaded?). \
         UGI, like UCI, expects `isready` answered at once even during a search: a runner pings \
         a long search to tell a thinking engine from a hung one. arena's games do not need it",
        ms(limit),
        ms(waited)
    )
}
