//! The checks that play: every board's positions, a second game in the same process, and
//! determinism under a fixed `Seed`.

use super::*;

impl Battery<'_> {
    pub(super) fn positions(&mut self, board: &BoardSpec) {
        let name = format!("positions {}", board.name());
        let quick = self.settings.quick;
        let movetime = self.settings.position_movetime();
        let limit = Duration::from_millis(movetime) + self.settings.margin;
        self.run(&name, |b, engine| {
            if b.target.from_start {
                // Full battery: whole games; quick: 12 moves a side.
                let own = if quick { 12 } else { usize::MAX };
                return match b.play_from_start(engine, board, &[true, false], own) {
                    Ok((plies, longest)) => pass(format!(
                        "{plies} legal moves in 2 games from the start against random moves, \
                         as first and second player (longest move list {longest} plies)"
                    )),
                    Err(e) => fail(e),
                };
            }
            let probes = match probes(board, quick) {
                Ok(probes) => probes,
                Err(e) => return (Verdict::Skipped, e),
            };
            let mut longest = 0;
            for probe in &probes {
                let result = b
                    .new_game(engine, board.kind())
                    .and_then(|()| b.ask(engine, probe, Go::MoveTime(movetime), limit));
                if let Err(e) = result {
                    return fail(e);
                }
                longest = longest.max(probe.moves.len());
            }
            pass(format!(
                "{} positions answered with legal moves (longest move list {longest} plies)",
                probes.len()
            ))
        });
    }

    /// Two short games in a row in the same process, the engine playing both sides.
    pub(super) fn second_game(&mut self) {
        let Some(&game) = self.games.first() else {
            self.run("second game", |_, _| {
                (Verdict::Skipped, "no game to play".into())
            });
            return;
        };
        let movetime = self.settings.position_movetime();
        let limit = Duration::from_millis(movetime) + self.settings.margin;
        let all = self.settings.boards(game);
        self.run("second game", |b, engine| {
            if let (true, Some(board)) = (b.target.from_start, all.first()) {
                return match b.play_from_start(engine, board, &[false, true], 10) {
                    Ok((plies, _)) => pass(format!(
                        "{plies} legal moves over two games against random moves"
                    )),
                    Err(e) => fail(e),
                };
            }
            let mut plies = 0;
            for (round, board) in all.iter().cycle().take(2).enumerate() {
                let Ok(start) = board.start_position(POSITION_SEED + round as u64) else {
                    continue;
                };
                if let Err(e) = b.new_game(engine, game) {
                    return fail(format!("game {}: {e}", round + 1));
                }
                let mut probe = Probe {
                    label: "start".into(),
                    start: start.fen(),
                    moves: Vec::new(),
                    pos: start,
                };
                for ply in 1..=10 {
                    if probe.pos.outcome().is_some() {
                        break;
                    }
                    probe.label = format!("ply {ply} of game {}", round + 1);
                    match b.ask(engine, &probe, Go::MoveTime(movetime), limit) {
                        Ok((mv, _)) => {
                            let canonical = probe.pos.play_text(&mv).unwrap_or(mv);
                            probe.moves.push(canonical);
                            plies += 1;
                        }
                        Err(e) => return fail(e),
                    }
                }
            }
            pass(format!("{plies} legal plies over two games"))
        });
    }

    pub(super) fn determinism(&mut self) {
        let probe = self.time_probe();
        let seeded = self.identity.option(protocol::SEED_OPTION).is_some();
        self.run("determinism", |b, engine| {
            let Some((game, probe)) = probe else {
                return (Verdict::Skipped, "no game to play".into());
            };
            if !seeded {
                return (Verdict::Skipped, "no `Seed` option declared".into());
            }
            let mut answers = Vec::new();
            for _ in 0..2 {
                let seed = Command::SetOption {
                    name: protocol::SEED_OPTION.into(),
                    value: ENGINE_SEED.to_string(),
                };
                if let Err(e) = engine.send(&seed) {
                    return fail(describe(engine, &e));
                }
                let asked = b.new_game(engine, game).and_then(|()| {
                    b.ask(
                        engine,
                        &probe,
                        Go::Nodes(NODES),
                        SEARCH_LIMIT + b.settings.margin,
                    )
                });
                match asked {
                    Ok((mv, _)) => answers.push(mv),
                    Err(e) => return fail(e),
                }
            }
            if answers[0] == answers[1] {
                pass(format!(
                    "`Seed {ENGINE_SEED}`, `go nodes {NODES}`: `{}` twice",
                    answers[0]
                ))
            } else {
                (
                    Verdict::Warn,
                    format!(
                        "`Seed {ENGINE_SEED}`, `go nodes {NODES}`: `{}` then `{}`",
                        answers[0], answers[1]
                    ),
                )
            }
        });
    }
}
