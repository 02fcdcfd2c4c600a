//! `arena check-engine`: a conformance battery run against one engine (or every engine of a
//! config) before a tournament: handshake, `isready`, time limits, `stop`, positions of every
//! board type of every game it declares (checked by arena's rules), robustness and
//! determinism. Each check gets a verdict and, when it fails, the protocol lines that show it.
//!
//! Owns the battery, its report (text, JSON, `check-engines.csv`) and the subcommand's body.
//! Talks to engines only through [`crate::engine::Engine`] and judges moves only through
//! [`crate::games`]; it must not use the runner, the referee or the tournament module.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cli::CheckEngineArgs;
use crate::config;
use crate::engine::{self, Engine, EngineError, Identity, Launch, TranscriptLine};
use crate::games::{AnyPosition, BoardSpec, GameKind};
use crate::protocol::{self, BestMove, Command, Go, Reply};
use crate::seed;

/// Exit code: every engine passed (warnings allowed).
const DONE: u8 = 0;
/// Exit code: a check failed.
const FAILED: u8 = 1;
/// Exit code: bad usage or config.
const BAD_USAGE: u8 = 2;

/// Protocol lines shown under a failed check.
const EXCERPT_LINES: usize = 8;
/// Longest transcript line shown (characters); long `position` lines are cut in the middle.
const EXCERPT_WIDTH: usize = 160;
/// Handshake and `isready` limit without a config (ms), as a config's default.
const DEFAULT_HANDSHAKE_MS: u64 = 10_000;
/// Limit for `go depth 1` and `go nodes` (ms): generous, these only have to be answered.
const SEARCH_LIMIT: Duration = Duration::from_secs(5);
/// How long `stop` may take to bring a `bestmove` (before the margin), as the referee's grace.
const STOP_LIMIT: Duration = Duration::from_millis(200);
/// How long an engine gets to exit after `quit` or the end of its stdin.
const EXIT_LIMIT: Duration = Duration::from_millis(1000);
/// The long search interrupted by `stop` (ms).
const LONG_MOVETIME_MS: u64 = 10_000;
/// Time left on each clock in the low-time check (ms), and the increment (ms).
const LOW_CLOCK_MS: (u64, u64) = (300, 20);
/// Node budget of `go nodes` and of the determinism check.
const NODES: u64 = 1000;
/// Seed of the generated boards and of the random plies that make mid-game positions.
const POSITION_SEED: u64 = 15;
/// `Seed` value sent in the determinism check.
const ENGINE_SEED: u64 = 4242;

/// A check's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Conforms.
    Pass,
    /// Works, but something is off (e.g. stray stdout lines, a move in under 1% of movetime).
    Warn,
    /// Would lose or forfeit games in a tournament.
    Fail,
    /// Not run: not applicable, or the engine stopped answering earlier.
    Skipped,
}

impl Verdict {
    /// `pass`, `warn`, `fail` or `skipped`, as in the CSV and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
            Verdict::Skipped => "skipped",
        }
    }
}

/// One check of the battery.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    /// Its name, e.g. `handshake`, `go movetime`, `positions amazons-donut-10`.
    pub name: String,
    /// The verdict.
    pub verdict: Verdict,
    /// One sentence: what was measured or what went wrong.
    pub detail: String,
    /// For a failure, the last protocol lines of the check (`> ` sent, `< ` received, each
    /// with ms since the check began); empty otherwise.
    pub transcript: Vec<String>,
}

/// The battery's result for one engine.
#[derive(Clone, Debug, Serialize)]
pub struct EngineReport {
    /// The engine's name (config name, or the program's file name).
    pub engine: String,
    /// Every check, in the order run.
    pub checks: Vec<Check>,
    /// Wall time of the battery (s).
    pub seconds: f64,
}

impl EngineReport {
    /// Whether any check failed.
    pub fn failed(&self) -> bool {
        self.checks.iter().any(|c| c.verdict == Verdict::Fail)
    }

    fn count(&self, verdict: Verdict) -> usize {
        self.checks.iter().filter(|c| c.verdict == verdict).count()
    }
}

/// The engine to check: how to start it and the options a config sets.
#[derive(Clone, Debug)]
pub struct Target {
    /// Name in messages and reports.
    pub name: String,
    /// How to start it.
    pub launch: Launch,
    /// `setoption` pairs sent after every handshake (from the config).
    pub options: Vec<(String, String)>,
    /// Games to check (the config's `games:`); `None`: every game it declares.
    pub games: Option<Vec<GameKind>>,
    /// Plays only whole games from their start, one side, each position extending the last by
    /// the opponent's move: a course player library behind the `player-so` adapter, which
    /// cannot be given an arbitrary position. Mid-game probes become games against random moves.
    pub from_start: bool,
    /// A fresh process for every game, as the tournament would give it (a library engine's
    /// default; its `restart` key decides).
    pub fresh_per_game: bool,
}

/// How the battery runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Fewer positions and shorter movetimes (about 5 s instead of 30 s).
    pub quick: bool,
    /// Slack added to every time limit (ms): movetime, low clock, `stop`.
    pub margin: Duration,
    /// Handshake and `isready` limit.
    pub handshake: Duration,
    /// Boards to play instead of the built-in ones (`--boards`); the games checked are then
    /// those of these boards.
    pub boards: Option<Vec<BoardSpec>>,
}

impl Settings {
    /// `movetime` of each position (ms).
    fn position_movetime(&self) -> u64 {
        if self.quick { 50 } else { 100 }
    }

    /// `movetime` of the `go movetime` check (ms).
    fn movetime(&self) -> u64 {
        if self.quick { 100 } else { 500 }
    }

    /// The boards of `game` that the battery plays: `--boards` when given, else [`boards`].
    fn boards(&self, game: GameKind) -> Vec<BoardSpec> {
        match &self.boards {
            Some(chosen) => chosen
                .iter()
                .filter(|b| b.kind() == game)
                .cloned()
                .collect(),
            None => boards(game),
        }
    }
}

/// Parses one `--boards` value: a board spec as in a config's `boards:` list (YAML), checked by
/// making its start position.
///
/// # Errors
/// The YAML or spec error, naming the value.
pub fn parse_board(text: &str) -> Result<BoardSpec, String> {
    let spec: BoardSpec =
        serde_yaml::from_str(text).map_err(|e| format!("--boards `{text}`: {e}"))?;
    spec.start_position(POSITION_SEED)
        .map_err(|e| format!("--boards `{text}`: {e}"))?;
    Ok(spec)
}

/// Board types checked per game: every shape, layout, topology, pit count and grand-slam rule
/// of docs/games.md, at sizes that keep the battery fast.
const BOARDS: &[&str] = &[
    "{game: seven_colors, size: 10, layout: random}",
    "{game: seven_colors, size: 10, layout: diagonal}",
    "{game: seven_colors, size: 10, layout: random, topology: torus}",
    "{game: amazons, shape: square, width: 10}",
    "{game: amazons, shape: donut, width: 9}",
    "{game: amazons, shape: clover, width: 10}",
    "{game: amazons, shape: eight, width: 8}",
    "{game: awale, pits: 6}",
    "{game: awale, pits: 10}",
    "{game: awale, pits: 3}",
    "{game: awale, pits: 6, grand_slam: capture}",
    "{game: awale, pits: 6, grand_slam: forbidden}",
];

/// The boards of `game` that the battery plays.
pub fn boards(game: GameKind) -> Vec<BoardSpec> {
    BOARDS
        .iter()
        .map(|yaml| serde_yaml::from_str::<BoardSpec>(yaml).expect("built-in board spec"))
        .filter(|b| b.kind() == game)
        .collect()
}

/// A position sent to the engine: the start text, the moves since, and the position they make.
#[derive(Clone, Debug)]
pub struct Probe {
    /// `start` for the start position, `ply N` for a mid-game one.
    pub label: String,
    /// The start position's text.
    pub start: String,
    /// Moves played since, in canonical text.
    pub moves: Vec<String>,
    /// The position after them (not over).
    pub pos: AnyPosition,
}

impl Probe {
    /// The `position fen … moves …` line.
    pub fn position_line(&self) -> String {
        Command::Position {
            fen: self.start.clone(),
            moves: self.moves.clone(),
        }
        .to_string()
    }
}

/// The start position of `board` and mid-game positions reached by random legal plies from it
/// (fixed seed): at 1/2 of a random game (quick), or at 1/4, 1/2, 3/4, its last ply before
/// the end and its first position with a single legal move if any (full), so that move lists
/// get long and the last positions have few moves left.
///
/// # Errors
/// The spec's error (none for the built-in boards).
pub fn probes(board: &BoardSpec, quick: bool) -> Result<Vec<Probe>, String> {
    let start = board
        .start_position(POSITION_SEED)
        .map_err(|e| e.to_string())?;
    let start_text = start.fen();
    let mut rng = seed::rng(POSITION_SEED);
    // One random game; `line[i]` is the position after i plies.
    let mut line = vec![(start.clone(), Vec::<String>::new())];
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while pos.outcome().is_none() && moves.len() < board.max_plies() as usize {
        let Some(mv) = pos.random_move_text(&mut rng) else {
            break;
        };
        let canonical = pos.play_text(&mv).map_err(|e| e.to_string())?;
        moves.push(canonical);
        if pos.outcome().is_none() {
            line.push((pos.clone(), moves.clone()));
        }
    }
    let last = line.len() - 1;
    let mut picks: Vec<usize> = if quick {
        vec![0, last / 2]
    } else {
        vec![0, last / 4, last / 2, 3 * last / 4, last]
    };
    // A forced move (in Awale often a must-feed position) when the random game has one.
    let forced = (!quick)
        .then(|| {
            line.iter()
                .position(|(pos, _)| pos.legal_move_texts().len() == 1)
        })
        .flatten();
    picks.extend(forced);
    let constrained = constrained_probe(&start, board.max_plies(), &mut rng)?;
    let mut seen = Vec::new();
    let mut chosen: Vec<Probe> = picks
        .into_iter()
        .filter(|&i| {
            let fresh = !seen.contains(&i);
            seen.push(i);
            fresh
        })
        .map(|i| Probe {
            label: match i {
                0 => "start".into(),
                _ if Some(i) == forced => format!("ply {i} (one legal move)"),
                _ => format!("ply {i}"),
            },
            start: start_text.clone(),
            moves: line[i].1.clone(),
            pos: line[i].0.clone(),
        })
        .collect();
    chosen.extend(constrained);
    Ok(chosen)
}

/// Random games played for a constrained position, at most (Awale's must-feed is common enough
/// that a few dozen games find one).
const CONSTRAINED_GAMES: usize = 300;

/// A position where a rule narrows the legal moves ([`AnyPosition::constraint`], e.g. Awale's
/// must-feed), reached by random games from `start`; `None` when the game has no such rule or
/// [`CONSTRAINED_GAMES`] games met none.
fn constrained_probe(
    start: &AnyPosition,
    max_plies: u32,
    rng: &mut seed::SeededRng,
) -> Result<Option<Probe>, String> {
    if !start.has_constraints() {
        return Ok(None);
    }
    for _ in 0..CONSTRAINED_GAMES {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        while pos.outcome().is_none() && moves.len() < max_plies as usize {
            if let Some(rule) = pos.constraint() {
                return Ok(Some(Probe {
                    label: format!("ply {} ({rule})", moves.len()),
                    start: start.fen(),
                    moves,
                    pos,
                }));
            }
            let Some(mv) = pos.random_move_text(rng) else {
                break;
            };
            moves.push(pos.play_text(&mv).map_err(|e| e.to_string())?);
        }
        if moves.is_empty() {
            break;
        }
    }
    Ok(None)
}

/// What a check function returns: its verdict and detail.
type Outcome = (Verdict, String);

/// A live battery against one engine.
struct Battery<'a> {
    target: &'a Target,
    settings: Settings,
    engine: Option<Engine>,
    identity: Identity,
    /// Declared games that arena knows (and the config allows), in [`GameKind::ALL`] order.
    games: Vec<GameKind>,
    checks: Vec<Check>,
    /// Lines the engine printed outside the handshake, for the stdout check.
    received: Vec<String>,
    /// The check after which the engine stopped answering.
    dead: Option<String>,
}

fn fail(detail: impl Into<String>) -> Outcome {
    (Verdict::Fail, detail.into())
}

fn pass(detail: impl Into<String>) -> Outcome {
    (Verdict::Pass, detail.into())
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

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
    fn start(&self) -> Result<(Engine, Identity), (String, Vec<TranscriptLine>)> {
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
    fn run(&mut self, name: &str, body: impl FnOnce(&mut Self, &mut Engine) -> Outcome) {
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

    fn push(&mut self, name: &str, outcome: Outcome, lines: Vec<TranscriptLine>, origin: Instant) {
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
    fn new_game(&self, engine: &mut Engine, game: GameKind) -> Result<(), String> {
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
    fn ask(
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
    fn time_probe(&self) -> Option<(GameKind, Probe)> {
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
    fn again(&self, engine: &mut Engine, game: GameKind) -> Result<(), String> {
        if self.target.from_start {
            self.new_game(engine, game)
        } else {
            Ok(())
        }
    }

    /// Games of `board` from the start, the engine playing `sides` (true: first player) and
    /// random legal moves (fixed seed) the other side, at most `own_plies` engine moves each.
    /// Returns the engine's plies and the longest move list it was given.
    fn play_from_start(
        &self,
        engine: &mut Engine,
        board: &BoardSpec,
        sides: &[bool],
        own_plies: usize,
    ) -> Result<(usize, usize), String> {
        let movetime = self.settings.position_movetime();
        let limit = Duration::from_millis(movetime) + self.settings.margin;
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
                    self.ask(engine, &probe, Go::MoveTime(movetime), limit)?.0
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

    fn handshake(&mut self) {
        let origin = Instant::now();
        match self.start() {
            Err((detail, lines)) => {
                self.push("handshake", fail(detail), lines, origin);
                self.dead = Some("handshake".into());
            }
            Ok((mut engine, identity)) => {
                let lines = engine.take_transcript();
                let options_bad: Vec<String> = lines
                    .iter()
                    .filter(|l| !l.sent && l.text.split_whitespace().next() == Some("option"))
                    .filter(|l| Reply::parse(&l.text).is_err())
                    .map(|l| l.text.clone())
                    .collect();
                let declared: Vec<String> = identity
                    .option(protocol::VARIANT_OPTION)
                    .map(|o| {
                        let mut v = o.vars.clone();
                        v.extend(o.default.clone());
                        v
                    })
                    .unwrap_or_default();
                let arena_knows: Vec<GameKind> = GameKind::ALL
                    .into_iter()
                    .filter(|g| declared.iter().any(|d| d == g.name()))
                    .collect();
                let known: Vec<GameKind> = arena_knows
                    .iter()
                    .copied()
                    .filter(|g| self.target.games.as_ref().is_none_or(|w| w.contains(g)))
                    .collect();
                let unknown: Vec<&String> = declared
                    .iter()
                    .filter(|d| d.parse::<GameKind>().is_err())
                    .collect();
                let undeclared: Vec<&str> = self
                    .target
                    .options
                    .iter()
                    .filter(|(name, _)| identity.option(name).is_none())
                    .map(|(name, _)| name.as_str())
                    .collect();
                let extra: Vec<String> = identity
                    .options
                    .iter()
                    .map(|o| o.name.clone())
                    .filter(|n| {
                        !n.eq_ignore_ascii_case(protocol::VARIANT_OPTION)
                            && !n.eq_ignore_ascii_case(protocol::SEED_OPTION)
                    })
                    .collect();
                let name = identity.name.clone();
                self.games = known.clone();
                self.identity = identity;
                let games: Vec<&str> = known.iter().map(|g| g.name()).collect();
                let mut detail = format!(
                    "`ugiok` received; id name {}; games {}",
                    name.as_deref().unwrap_or("(none)"),
                    if games.is_empty() {
                        "(none)".into()
                    } else {
                        games.join(", ")
                    }
                );
                if !extra.is_empty() {
                    let _ = write!(detail, "; other options: {}", extra.join(", "));
                }
                let outcome = if !options_bad.is_empty() {
                    fail(format!(
                        "option lines that do not parse: {}",
                        options_bad.join(" | ")
                    ))
                } else if known.is_empty() && !arena_knows.is_empty() {
                    let names: Vec<&str> = arena_knows.iter().map(|g| g.name()).collect();
                    fail(format!(
                        "declares {}, none of the games to check (--games, --boards or the config's `games`)",
                        names.join(", ")
                    ))
                } else if known.is_empty() {
                    fail(format!(
                        "option UGI_Variant declares no game arena knows (declared: {}; known: seven_colors, amazons, awale)",
                        if declared.is_empty() {
                            "nothing".into()
                        } else {
                            declared.join(", ")
                        }
                    ))
                } else if name.is_none() {
                    (Verdict::Warn, format!("no `id name`; {detail}"))
                } else if !unknown.is_empty() || !undeclared.is_empty() {
                    let mut warn = detail.clone();
                    if !unknown.is_empty() {
                        let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
                        let _ = write!(warn, "; unknown games declared: {}", list.join(", "));
                    }
                    if !undeclared.is_empty() {
                        let _ = write!(
                            warn,
                            "; config options the engine does not declare: {}",
                            undeclared.join(", ")
                        );
                    }
                    (Verdict::Warn, warn)
                } else {
                    pass(detail)
                };
                let failed = outcome.0 == Verdict::Fail;
                self.push("handshake", outcome, lines, origin);
                if !failed {
                    self.engine = Some(engine);
                } else {
                    self.dead = Some("handshake".into());
                }
                // Games asked for (boards, `--games`, the config) that the engine does not
                // declare: it would not play them, which a teacher wants to see, not guess.
                if let Some(wanted) = &self.target.games {
                    let missing: Vec<&str> = wanted
                        .iter()
                        .filter(|g| !arena_knows.contains(g))
                        .map(|g| g.name())
                        .collect();
                    let outcome = if missing.is_empty() {
                        pass("declares every game to check")
                    } else {
                        (
                            Verdict::Warn,
                            format!(
                                "does not declare {}: it would not play those boards (UGI_Variant)",
                                missing.join(", ")
                            ),
                        )
                    };
                    self.push("games", outcome, Vec::new(), Instant::now());
                }
            }
        }
    }

    fn all(&mut self) {
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
    }

    fn time_checks(&mut self) {
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

    fn positions(&mut self, board: &BoardSpec) {
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
    fn second_game(&mut self) {
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

    fn determinism(&mut self) {
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

    /// Judges every line printed outside the handshake: protocol replies only.
    fn stdout(&mut self) {
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
    fn quit(&mut self) {
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

/// A message for a failed exchange: the error, and the exit status when the engine died.
fn describe(engine: &mut Engine, error: &EngineError) -> String {
    let text = match (error, engine.exited()) {
        (EngineError::Closed { .. }, _) => error.to_string(),
        (_, Some(status)) => format!("{error} (the engine exited: {status})"),
        _ => error.to_string(),
    };
    // What the engine said on its way out (a Python traceback, a loader error) is the cause.
    let said = engine.stderr_lines(3);
    if said.is_empty() {
        text
    } else {
        format!("{text}; last stderr: `{}`", said.join(" | "))
    }
}

/// Runs the whole battery against `target`.
pub fn check(target: &Target, settings: Settings) -> EngineReport {
    let started = Instant::now();
    // Stderr goes to a scratch log, so that failures can quote it; removed afterwards.
    let mut logged = target.clone();
    let scratch = logged.launch.stderr_log.is_none().then(|| {
        let safe: String = target
            .name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        std::env::temp_dir().join(format!(
            "arena-check-engine-{}-{safe}.stderr.log",
            std::process::id()
        ))
    });
    if let Some(path) = &scratch {
        let _ = std::fs::remove_file(path);
        logged.launch.stderr_log = Some(path.clone());
    }
    let target = &logged;
    let mut battery = Battery {
        target,
        settings,
        engine: None,
        identity: Identity::default(),
        games: Vec::new(),
        checks: Vec::new(),
        received: Vec::new(),
        dead: None,
    };
    battery.all();
    drop(battery.engine.take());
    if let Some(path) = &scratch {
        let _ = std::fs::remove_file(path);
    }
    EngineReport {
        engine: target.name.clone(),
        checks: battery.checks,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// The report of one engine as text: one line per check, the transcript under failures.
pub fn render(report: &EngineReport) -> String {
    let mut out = format!("check-engine: {}\n", report.engine);
    let width = report
        .checks
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    for check in &report.checks {
        let verdict = match check.verdict {
            Verdict::Fail => "FAIL",
            v => v.name(),
        };
        let _ = writeln!(
            out,
            "  {verdict:<7}  {:<width$}  {}",
            check.name, check.detail
        );
        for line in &check.transcript {
            let _ = writeln!(out, "             {line}");
        }
    }
    let _ = writeln!(
        out,
        "{}: {} pass, {} warn, {} fail, {} skipped in {:.1} s",
        report.engine,
        report.count(Verdict::Pass),
        report.count(Verdict::Warn),
        report.count(Verdict::Fail),
        report.count(Verdict::Skipped),
        report.seconds
    );
    out
}

/// One row of `check-engines.csv`.
#[derive(Serialize)]
struct Row<'a> {
    engine: &'a str,
    check: &'a str,
    verdict: &'static str,
    detail: String,
}

/// Writes `check-engines.csv` (engine, check, verdict, detail; the failure's transcript is
/// appended to its detail, lines joined by ` | `) into `dir`, creating it.
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn write_csv(dir: &Path, reports: &[EngineReport]) -> Result<PathBuf, String> {
    let path = dir.join("check-engines.csv");
    let write = || -> Result<(), Box<dyn std::error::Error>> {
        std::fs::create_dir_all(dir)?;
        let mut csv = csv::Writer::from_path(&path)?;
        for report in reports {
            for check in &report.checks {
                let mut detail = check.detail.clone();
                if !check.transcript.is_empty() {
                    let _ = write!(detail, " | {}", check.transcript.join(" | "));
                }
                csv.serialize(Row {
                    engine: &report.engine,
                    check: &check.name,
                    verdict: check.verdict.name(),
                    detail,
                })?;
            }
        }
        csv.flush()?;
        Ok(())
    };
    write().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The summary table of a folder run: one row per engine with its counts and failed checks.
pub fn summary(reports: &[EngineReport]) -> String {
    let width = reports
        .iter()
        .map(|r| r.engine.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:<width$}  pass  warn  fail  skip  failed checks\n",
        "engine"
    );
    for r in reports {
        let failed: Vec<&str> = r
            .checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .map(|c| c.name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "{:<width$}  {:>4}  {:>4}  {:>4}  {:>4}  {}",
            r.engine,
            r.count(Verdict::Pass),
            r.count(Verdict::Warn),
            r.count(Verdict::Fail),
            r.count(Verdict::Skipped),
            if failed.is_empty() {
                "-".into()
            } else {
                failed.join(", ")
            }
        );
    }
    out
}

/// The engines to check and the output directory, from the arguments.
fn targets(args: &CheckEngineArgs) -> Result<(Vec<Target>, Option<PathBuf>, Duration), String> {
    let cwd = std::env::current_dir().map_err(|e| format!("current directory: {e}"))?;
    if let Some(path) = &args.config {
        let config = config::read(path).map_err(|e| e.to_string())?;
        let overrides = config::Overrides {
            output: args.output.clone(),
            ..config::Overrides::default()
        };
        let plan = config
            .plan(path, &cwd, &overrides)
            .map_err(|e| e.to_string())?;
        let mut targets: Vec<Target> = plan
            .engines
            .iter()
            .map(|e| Target {
                name: e.spec.name.clone(),
                launch: Launch {
                    program: e.program.clone(),
                    args: e.spec.args.clone(),
                    stderr_log: None,
                    limits: e.spec.limits.unwrap_or_default(),
                },
                options: e
                    .spec
                    .options
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_string()))
                    .collect(),
                games: e.spec.games.clone(),
                from_start: e.spec.library.is_some(),
                fresh_per_game: e.spec.library.is_some() && e.restarts_per_game(true),
            })
            .collect();
        if let Some(wanted) = &args.engine {
            let names: Vec<String> = targets.iter().map(|t| t.name.clone()).collect();
            targets.retain(|t| &t.name == wanted);
            if targets.is_empty() {
                return Err(format!(
                    "{}: no engine called `{wanted}` (it has {})",
                    path.display(),
                    names.join(", ")
                ));
            }
        } else if !args.all {
            return Err("with --config, give --engine NAME or --all".into());
        }
        let handshake =
            Duration::from_millis(args.handshake_ms.unwrap_or(plan.handshake_timeout_ms));
        let output = args
            .all
            .then(|| plan.output.clone())
            .or(args.output.clone());
        return Ok((targets, output, handshake));
    }
    // clap's `requires` does not see through `-- CMD`: say it here.
    if args.all || args.engine.is_some() {
        return Err("--all and --engine name engines of a config: give --config FILE".into());
    }
    let Some((command, rest)) = args.command.split_first() else {
        return Err(
            "give the engine: arena check-engine -- CMD [ARGS…], or --config FILE --engine NAME | --all"
                .into(),
        );
    };
    let program = engine::resolve_program(command, &cwd).map_err(|e| format!("engine: {e}"))?;
    // `python3 engine.py` is named after its script.
    let file_name = |text: &String| {
        Path::new(text)
            .file_name()
            .map_or_else(|| text.clone(), |n| n.to_string_lossy().into_owned())
    };
    let name = match rest.first() {
        Some(script) if Path::new(script).is_file() => {
            format!("{} {}", file_name(command), file_name(script))
        }
        _ => file_name(command),
    };
    let target = Target {
        name,
        launch: Launch {
            program,
            args: rest.to_vec(),
            stderr_log: None,
            limits: engine::Limits::default(),
        },
        options: Vec::new(),
        games: None,
        from_start: false,
        fresh_per_game: false,
    };
    Ok((
        vec![target],
        args.output.clone(),
        Duration::from_millis(args.handshake_ms.unwrap_or(DEFAULT_HANDSHAKE_MS)),
    ))
}

/// The boards of `--boards` (`config`: those of `--config`; default with `--config`: its boards),
/// or `None` for the built-in ones (`builtin`, default without `--config`).
fn chosen_boards(args: &CheckEngineArgs) -> Result<Option<Vec<BoardSpec>>, String> {
    if args.boards.iter().any(|b| b == "builtin") {
        if args.boards.len() > 1 {
            return Err("--boards builtin stands alone".into());
        }
        return Ok(None);
    }
    if args.boards.is_empty() {
        // With a config, the boards it plays; else every built-in board type.
        return match &args.config {
            Some(path) => Ok(Some(config::read(path).map_err(|e| e.to_string())?.boards)),
            None => Ok(None),
        };
    }
    let mut chosen = Vec::new();
    for text in &args.boards {
        if text == "config" {
            let Some(path) = &args.config else {
                return Err("--boards config needs --config FILE".into());
            };
            let config = config::read(path).map_err(|e| e.to_string())?;
            chosen.extend(config.boards.iter().cloned());
        } else {
            chosen.push(parse_board(text)?);
        }
    }
    Ok(Some(chosen))
}

/// `arena check-engine`: exit 0 when no check failed, 1 when one did, 2 for bad usage.
pub fn command(args: &CheckEngineArgs) -> ExitCode {
    let (mut targets, output, handshake) = match targets(args) {
        Ok(found) => found,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    if !args.games.is_empty() {
        for target in &mut targets {
            let allowed = target
                .games
                .take()
                .unwrap_or_else(|| GameKind::ALL.to_vec());
            target.games = Some(
                allowed
                    .into_iter()
                    .filter(|g| args.games.contains(g))
                    .collect(),
            );
        }
    }
    let chosen = match chosen_boards(args) {
        Ok(chosen) => chosen,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(BAD_USAGE);
        }
    };
    if let Some(chosen) = &chosen {
        for target in &mut targets {
            let allowed = target
                .games
                .take()
                .unwrap_or_else(|| GameKind::ALL.to_vec());
            target.games = Some(
                allowed
                    .into_iter()
                    .filter(|g| chosen.iter().any(|b| b.kind() == *g))
                    .collect(),
            );
        }
    }
    let settings = Settings {
        quick: args.quick,
        margin: Duration::from_millis(args.margin),
        handshake,
        boards: chosen,
    };
    let mut reports = Vec::new();
    for target in &targets {
        let report = check(target, settings.clone());
        if !args.json {
            print!("{}", render(&report));
        }
        reports.push(report);
    }
    if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(FAILED);
            }
        }
    } else if reports.len() > 1 {
        print!("\n{}", summary(&reports));
    }
    if let Some(dir) = output {
        match write_csv(&dir, &reports) {
            Ok(path) if !args.json => println!("wrote {}", path.display()),
            Ok(_) => {}
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(FAILED);
            }
        }
    }
    ExitCode::from(if reports.iter().any(EngineReport::failed) {
        FAILED
    } else {
        DONE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_makes_positions_in_play() {
        for game in GameKind::ALL {
            let all = boards(game);
            assert!(all.len() >= 3, "{game}: {} boards", all.len());
            for board in all {
                for quick in [true, false] {
                    let probes = probes(&board, quick).expect("probes");
                    assert!(probes.len() >= 2, "{}", board.name());
                    for probe in &probes {
                        assert!(probe.pos.outcome().is_none(), "{}", board.name());
                        // The position line replays to the same position.
                        let mut pos = AnyPosition::from_fen(game, &probe.start).expect("fen");
                        for mv in &probe.moves {
                            pos.play_text(mv).expect("replay");
                        }
                        assert_eq!(pos.fen(), probe.pos.fen());
                    }
                    assert!(probes.last().expect("probe").moves.len() > 5);
                }
            }
        }
    }

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
