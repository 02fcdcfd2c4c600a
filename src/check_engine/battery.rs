//! The live battery: starting the engine, running one check with its transcript, and the
//! exchanges every check shares (a new game, one `go` judged by the rules).

use super::*;

/// A transcript line as shown: direction, ms since `origin`, text cut to [`EXCERPT_WIDTH`].
fn show_line(line: &TranscriptLine, origin: Instant) -> String {
    let arrow = if line.sent { '>' } else { '<' };
    let at = line.at.saturating_duration_since(origin).as_millis();
    let chars: Vec<char> = line.text.chars().collect();
    let text = if chars.len() > EXCERPT_WIDTH {
        let half = EXCERPT_WIDTH / 2;
        format!(
            "{} … {}",
            chars[..half].iter().collect::<String>(),
            chars[chars.len() - half..].iter().collect::<String>()
        )
    } else {
        line.text.clone()
    };
    format!("{arrow} {at:>5} ms  {text}")
}

impl<'a> Battery<'a> {
    /// Starts the engine, runs the handshake and sends the config's options.
    /// On failure, the message and the lines exchanged.
    pub(super) fn start(&self) -> Result<(Engine, Identity), (String, Vec<TranscriptLine>)> {
        let mut engine =
            Engine::spawn(&self.target.launch).map_err(|e| (e.to_string(), Vec::new()))?;
        engine.record_transcript();
        let identity = match engine.handshake(self.settings.handshake) {
            Ok(identity) => identity,
            Err(e) => return Err((describe(&mut engine, &e), engine.take_transcript())),
        };
        for (name, value) in &self.target.options {
            let line = Command::SetOption {
                name: name.clone(),
                value: value.clone(),
            };
            if let Err(e) = engine.send(&line) {
                return Err((e.to_string(), engine.take_transcript()));
            }
        }
        Ok((engine, identity))
    }

    /// Runs `body` as the check `name` on the live engine, unless an earlier check left it
    /// unresponsive; keeps the transcript excerpt of a failure, and after one, probes the
    /// engine with `isready` to decide whether later checks can run.
    pub(super) fn run(&mut self, name: &str, body: impl FnOnce(&mut Self, &mut Engine) -> Outcome) {
        let Some(mut engine) = self.engine.take() else {
            let detail = match &self.dead {
                Some(at) if at == "handshake" => "the handshake failed".into(),
                Some(at) => format!("the engine stopped answering in `{at}`"),
                None => "the engine did not start".into(),
            };
            self.push(name, (Verdict::Skipped, detail), Vec::new(), Instant::now());
            return;
        };
        let origin = Instant::now();
        engine.drain();
        let _ = engine.take_transcript();
        let outcome = body(self, &mut engine);
        let mut lines = engine.take_transcript();
        // After a failure, an `isready` probe decides whether later checks can run; its
        // lines are shown only when it fails too.
        let alive = outcome.0 != Verdict::Fail || {
            engine.drain();
            let probe_ok = engine
                .sync(self.settings.handshake.min(Duration::from_secs(1)))
                .is_ok();
            let probe = engine.take_transcript();
            if !probe_ok {
                lines.extend(probe);
            }
            probe_ok
        };
        self.received
            .extend(lines.iter().filter(|l| !l.sent).map(|l| l.text.clone()));
        if alive {
            self.engine = Some(engine);
        } else if self.target.fresh_per_game {
            // The tournament would start a fresh process for the next game: so do the checks.
            drop(engine);
            match self.start() {
                Ok((mut fresh, _)) => {
                    let _ = fresh.take_transcript();
                    self.engine = Some(fresh);
                }
                Err(_) => self.dead = Some(name.to_owned()),
            }
        } else {
            self.dead = Some(name.to_owned());
        }
        self.push(name, outcome, lines, origin);
    }

    pub(super) fn push(
        &mut self,
        name: &str,
        outcome: Outcome,
        lines: Vec<TranscriptLine>,
        origin: Instant,
    ) {
        let transcript = if outcome.0 == Verdict::Fail {
            let from = lines.len().saturating_sub(EXCERPT_LINES);
            lines[from..].iter().map(|l| show_line(l, origin)).collect()
        } else {
            Vec::new()
        };
        self.checks.push(Check {
            name: name.to_owned(),
            verdict: outcome.0,
            detail: outcome.1,
            transcript,
        });
    }

    /// Sets up a new game of `game`: `UGI_Variant`, `uginewgame`, `isready`; in a fresh process
    /// first for a [`Target::fresh_per_game`] engine.
    pub(super) fn new_game(&self, engine: &mut Engine, game: GameKind) -> Result<(), String> {
        if self.target.fresh_per_game {
            let (fresh, _) = self
                .start()
                .map_err(|(message, _)| format!("restarting for a new game: {message}"))?;
            *engine = fresh;
            // Its handshake is not what the stdout check judges.
            let _ = engine.take_transcript();
        }
        let lines = [
            Command::SetOption {
                name: protocol::VARIANT_OPTION.into(),
                value: game.name().into(),
            }
            .to_string(),
            Command::NewGame.to_string(),
        ];
        engine
            .send_lines(&[&lines[0], &lines[1]])
            .and_then(|_| engine.sync(self.settings.handshake))
            .map_err(|e| describe(engine, &e))
    }

    /// Sends `probe` and `go`, waits for `bestmove` until `limit` after sending, and checks
    /// the move with the rules. Returns the move and the time it took.
    pub(super) fn ask(
        &self,
        engine: &mut Engine,
        probe: &Probe,
        go: Go,
        limit: Duration,
    ) -> Result<(String, Duration), String> {
        let sent = engine
            .send_lines(&[&probe.position_line(), &Command::Go(go).to_string()])
            .map_err(|e| describe(engine, &e))?;
        let answer = engine.recv_reply(sent + limit, "bestmove", |reply, at| match reply {
            Reply::BestMove(best) => Some((best, at)),
            _ => None,
        });
        let (best, at) = match answer {
            Ok(answer) => answer,
            Err(EngineError::Timeout { .. }) => {
                let _ = engine.send(&Command::Stop);
                let late = engine.recv_reply(
                    Instant::now() + STOP_LIMIT + self.settings.margin,
                    "bestmove",
                    |reply, _| matches!(reply, Reply::BestMove(_)).then_some(()),
                );
                return Err(format!(
                    "no bestmove within {} after `{}`{}",
                    ms(limit),
                    Command::Go(go),
                    if late.is_ok() {
                        " (it came after `stop`)"
                    } else {
                        ", nor after `stop`"
                    }
                ));
            }
            Err(e) => return Err(describe(engine, &e)),
        };
        let elapsed = at.saturating_duration_since(sent);
        let text = match best {
            BestMove::Resign => {
                return Err(format!(
                    "resigned in {} at {} with legal moves left",
                    probe.pos.kind(),
                    probe.label
                ));
            }
            BestMove::Move(text) => text,
        };
        let mut pos = probe.pos.clone();
        pos.play_text(&text).map_err(|e| {
            format!(
                "illegal move `{text}` in {} at {} ({} moves since the start): {e}",
                pos.kind(),
                probe.label,
                probe.moves.len()
            )
        })?;
        Ok((text, elapsed))
    }

    /// A position for the time checks: mid-game on the first board of the first game (the
    /// start position for a [`Target::from_start`] engine).
    pub(super) fn time_probe(&self) -> Option<(GameKind, Probe)> {
        let game = *self.games.first()?;
        let board = self.settings.boards(game).into_iter().next()?;
        // Quick probes: the start, mid-game, then a constrained position if the game has one
        // (which the positions checks try; the time checks want an ordinary one).
        let mut probes = probes(&board, true).ok()?;
        let at = if self.target.from_start || probes.len() < 2 {
            0
        } else {
            1
        };
        let probe = probes.swap_remove(at);
        Some((game, probe))
    }

    /// Before asking `probe` again: a [`Target::from_start`] engine needs a new game each time.
    pub(super) fn again(&self, engine: &mut Engine, game: GameKind) -> Result<(), String> {
        if self.target.from_start {
            self.new_game(engine, game)
        } else {
            Ok(())
        }
    }

    /// Games of `board` from the start, the engine playing `sides` (true: first player) and
    /// random legal moves (fixed seed) the other side, at most `own_plies` engine moves each.
    /// Returns the engine's plies and the longest move list it was given.
    pub(super) fn play_from_start(
        &self,
        engine: &mut Engine,
        board: &BoardSpec,
        sides: &[bool],
        own_plies: usize,
    ) -> Result<(usize, usize), String> {
        let movetime = self.settings.position_movetime();
        // A library is checked under the config's time control, the only one it plays under.
        let (go, limit) = self.config_go().unwrap_or((
            Go::MoveTime(movetime),
            Duration::from_millis(movetime) + self.settings.margin,
        ));
        let mut rng = seed::rng(POSITION_SEED);
        let (mut plies, mut longest) = (0, 0);
        for (round, &first) in sides.iter().enumerate() {
            let start = board
                .start_position(POSITION_SEED + round as u64)
                .map_err(|e| e.to_string())?;
            self.new_game(engine, board.kind())?;
            let side = if first { "first" } else { "second" };
            let mut probe = Probe {
                label: String::new(),
                start: start.fen(),
                moves: Vec::new(),
                pos: start,
            };
            let mut own = 0;
            while probe.pos.outcome().is_none() && own < own_plies {
                let ours = (probe.moves.len() % 2 == 0) == first;
                let mv = if ours {
                    probe.label = format!(
                        "ply {} of game {} (as the {side} player)",
                        probe.moves.len() + 1,
                        round + 1
                    );
                    longest = longest.max(probe.moves.len());
                    own += 1;
                    self.ask(engine, &probe, go, limit)?.0
                } else {
                    match probe.pos.random_move_text(&mut rng) {
                        Some(mv) => mv,
                        None => break,
                    }
                };
                let canonical = probe.pos.play_text(&mv).map_err(|e| e.to_string())?;
                probe.moves.push(canonical);
                plies += usize::from(ours);
            }
        }
        Ok((plies, longest))
    }

    pub(super) fn all(&mut self) {
        self.handshake();
        let limit = self.settings.handshake;
        self.run("isready", |_, engine| match engine.sync(limit) {
            Ok(()) => pass("`readyok` when idle"),
            Err(e) => fail(describe(engine, &e)),
        });
        let first = self.games.first().copied();
        self.run("uginewgame", |b, engine| match first {
            None => (Verdict::Skipped, "no game to play".into()),
            Some(game) => match b.new_game(engine, game) {
                Ok(()) => pass("`readyok` after `uginewgame`"),
                Err(e) => fail(e),
            },
        });
        self.time_checks();
        self.run("unknown command", |_, engine| {
            let sent = engine
                .send_line("arena-check-unknown-command 1 2")
                .and_then(|_| engine.sync(limit));
            match sent {
                Ok(()) => pass("ignored; `isready` still answered"),
                Err(e) => fail(format!(
                    "after an unknown command: {}",
                    describe(engine, &e)
                )),
            }
        });
        for game in self.games.clone() {
            for board in self.settings.boards(game) {
                self.positions(&board);
            }
        }
        self.second_game();
        self.determinism();
        self.stdout();
        self.quit();
        self.sandboxed();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_lines_are_cut_in_the_middle() {
        let origin = Instant::now();
        let line = TranscriptLine {
            at: origin,
            sent: true,
            text: format!("position fen x moves {}", "1 ".repeat(200)),
        };
        let shown = show_line(&line, origin);
        assert!(shown.starts_with(">     0 ms  position fen x"));
        assert!(shown.contains(" … "));
        assert!(shown.chars().count() < EXCERPT_WIDTH + 20);
    }
}
