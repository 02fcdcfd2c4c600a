//! `arena openings`: writes an opening suite of distinct positions reached by random plies
//! from a board's start, optionally kept only when an engine of a config scores them close to
//! even (balanced openings).
//!
//! Owns the generation (seeded, reproducible), the engine scoring (a short UGI session per
//! engine, through [`Engine`] and [`protocol`] only) and the file's header. Does not touch
//! tournaments, the referee or result files. Positions are produced through [`AnyPosition`]
//! and written as their position texts, so the file reads back with [`super::parse`].

use std::collections::HashSet;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::config::{Limit, Plan, PlanEngine};
use crate::engine::{Engine, Launch};
use crate::games::{AnyPosition, BoardSpec};
use crate::protocol::{self, BestMove, Command, Go, Reply, Score};
use crate::seed;

/// Draws that found a duplicate or a finished game in a row before generation gives up.
const MAX_MISSES: u32 = 20_000;

/// Why generation gave up, with the advice that fits: when most of the useless draws were
/// games already over after `plies` (more plies than games last), fewer plies help; when
/// they were repeats, fewer openings or more plies (more positions to reach) do.
fn too_few(found: usize, draws: u64, over: u32, plies: u32) -> String {
    let advice = if over * 2 > MAX_MISSES {
        format!(
            "{over} of them were games already over within {plies} plies: ask for fewer --plies"
        )
    } else {
        "most were repeats: ask for fewer (--count) or more --plies".to_owned()
    };
    format!(
        "found only {found} distinct openings after {draws} draws ({MAX_MISSES} useless in a row; {advice})"
    )
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Request {
    /// The board (without `openings` or `random_opening_plies`).
    pub board: BoardSpec,
    /// Random plies from the start (≥ 1).
    pub plies: u32,
    /// Openings wanted (≥ 1).
    pub count: usize,
    /// Seed of every draw.
    pub seed: u64,
}

/// What the engine filter said of a candidate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Within the bound: kept.
    Keep,
    /// Outside it (or a mate score): dropped.
    Unbalanced,
    /// The engine sent no `info … score`: dropped.
    NoScore,
}

/// Counts of what a generation saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Distinct candidates given to the filter (all kept ones without a filter).
    pub scored: usize,
    /// Candidates dropped as unbalanced.
    pub unbalanced: usize,
    /// Candidates dropped for want of a score.
    pub no_score: usize,
}

/// Generates `request.count` distinct positions, each reached by `request.plies` uniformly
/// random legal plies from a start position of the board and not over, in draw order. Draw
/// `k` uses the seed `derive(seed, [k])` for both the board (Seven Colors' random layouts) and
/// the plies, so the output depends only on the request and the filter's verdicts. `filter`
/// is asked about each new distinct candidate.
///
/// # Errors
/// A message when the board is invalid, when the filter fails, or when fewer distinct
/// positions exist than asked (after 20,000 useless draws in a row).
pub fn generate(
    request: &Request,
    mut filter: impl FnMut(&AnyPosition) -> Result<Verdict, String>,
) -> Result<(Vec<AnyPosition>, Tally), String> {
    let mut seen = HashSet::new();
    let mut kept = Vec::new();
    let mut tally = Tally::default();
    // Useless draws in a row, and how many of them ended before `plies` (or on it).
    let (mut misses, mut over) = (0, 0);
    let mut draw = 0u64;
    while kept.len() < request.count {
        if misses >= MAX_MISSES {
            return Err(too_few(kept.len(), draw, over, request.plies));
        }
        let mut rng = seed::rng(seed::derive(request.seed, &[draw]));
        draw += 1;
        let mut pos = request
            .board
            .start_position(seed::derive(request.seed, &[draw - 1, 0]))
            .map_err(|e| e.to_string())?;
        let mut complete = true;
        for _ in 0..request.plies {
            match pos.random_move_text(&mut rng) {
                Some(mv) => {
                    pos.play_text(&mv)
                        .map_err(|e| format!("a legal move was refused: {e}"))?;
                }
                None => {
                    complete = false;
                    break;
                }
            }
        }
        if !complete || pos.outcome().is_some() {
            misses += 1;
            over += 1;
            continue;
        }
        if !seen.insert(pos.fen()) {
            misses += 1;
            continue;
        }
        (misses, over) = (0, 0);
        tally.scored += 1;
        match filter(&pos)? {
            Verdict::Keep => kept.push(pos),
            Verdict::Unbalanced => tally.unbalanced += 1,
            Verdict::NoScore => tally.no_score += 1,
        }
    }
    Ok((kept, tally))
}

/// An engine of a config, started once, that scores positions.
pub struct Scorer {
    engine: Engine,
    name: String,
    go: Go,
    /// How long one `go` may take before the engine is given up (its limit plus margins).
    wait: Duration,
    ready: Duration,
    /// The bound on |score| (cp).
    pub max_score: i64,
}

impl Scorer {
    /// Starts `engine` of `plan` for `board`'s game: handshake, the config's options,
    /// `UGI_Variant`. Each position is searched with `movetime_ms` or `depth` when given,
    /// else with the engine's time control (a clock is given whole to both sides).
    ///
    /// # Errors
    /// A message naming the engine when it cannot start or fails the handshake.
    pub fn start(
        plan: &Plan,
        engine: &PlanEngine,
        board: &BoardSpec,
        movetime_ms: Option<u64>,
        depth: Option<u32>,
        max_score: i64,
    ) -> Result<Scorer, String> {
        let name = engine.spec.name.clone();
        let fail = |e: String| format!("engine {name}: {e}");
        let ready = Duration::from_millis(plan.handshake_timeout_ms);
        let mut live = Engine::spawn(&Launch {
            program: engine.program.clone(),
            args: engine.spec.args.clone(),
            stderr_log: None,
            limits: engine.spec.limits.unwrap_or_default(),
            sandbox: crate::sandbox::of(&engine.spec),
        })
        .map_err(|e| fail(e.to_string()))?;
        live.handshake(ready)
            .map_err(|e| fail(format!("handshake failed: {e}")))?;
        let mut lines: Vec<Command> = engine
            .spec
            .options
            .iter()
            .map(|(name, value)| Command::SetOption {
                name: name.clone(),
                value: value.to_string(),
            })
            .collect();
        lines.push(Command::SetOption {
            name: protocol::VARIANT_OPTION.into(),
            value: board.kind().name().into(),
        });
        for line in &lines {
            live.send(line).map_err(|e| fail(e.to_string()))?;
        }
        let tc = engine.time_control;
        let grace = Duration::from_millis(tc.margin_ms + 1000);
        let (go, wait) = match (movetime_ms, depth, tc.limit) {
            (Some(ms), _, _) | (None, None, Limit::MoveTime(ms)) => {
                (Go::MoveTime(ms), Duration::from_millis(ms) + grace)
            }
            (None, Some(d), _) | (None, None, Limit::Depth(d)) => (
                Go::Depth(d),
                Duration::from_millis(tc.move_timeout_ms) + grace,
            ),
            (None, None, Limit::Nodes(n)) => (
                Go::Nodes(n),
                Duration::from_millis(tc.move_timeout_ms) + grace,
            ),
            (None, None, Limit::Clock { base, increment }) => (
                Go::Clock {
                    p1time: base,
                    p2time: base,
                    p1inc: increment,
                    p2inc: increment,
                },
                Duration::from_millis(base) + grace,
            ),
        };
        Ok(Scorer {
            engine: live,
            name,
            go,
            wait,
            ready,
            max_score,
        })
    }

    /// The search limit each position gets, as sent (`movetime 100`, `depth 6`, …).
    pub fn limit_text(&self) -> String {
        Command::Go(self.go)
            .to_string()
            .trim_start_matches("go ")
            .to_owned()
    }

    /// The engine's score of `pos` (from the side to move), from the last `info` line with a
    /// score before `bestmove`; `None` when no `info` line had one.
    ///
    /// # Errors
    /// A message naming the engine when it fails, hangs or exits.
    pub fn score(&mut self, pos: &AnyPosition) -> Result<Option<Score>, String> {
        let name = &self.name;
        let fail = |e: String| format!("engine {name} scoring `{}`: {e}", pos.fen());
        self.engine
            .send(&Command::NewGame)
            .and_then(|_| self.engine.sync(self.ready))
            .and_then(|()| {
                self.engine.send(&Command::Position {
                    fen: pos.fen(),
                    moves: Vec::new(),
                })
            })
            .and_then(|_| self.engine.send(&Command::Go(self.go)))
            .map_err(|e| fail(e.to_string()))?;
        let mut last = None;
        self.engine
            .recv_reply(
                Instant::now() + self.wait,
                "bestmove",
                |reply, _| match reply {
                    Reply::Info(info) => {
                        if info.score.is_some() {
                            last = info.score;
                        }
                        None
                    }
                    Reply::BestMove(BestMove::Move(_) | BestMove::Resign) => Some(()),
                    _ => None,
                },
            )
            .map_err(|e| fail(e.to_string()))?;
        Ok(last)
    }

    /// Scores `pos` and judges it against [`Scorer::max_score`]: a mate score is unbalanced.
    ///
    /// # Errors
    /// As [`Scorer::score`].
    pub fn judge(&mut self, pos: &AnyPosition) -> Result<Verdict, String> {
        Ok(match self.score(pos)? {
            Some(Score::Cp(cp)) if cp.abs() <= self.max_score => Verdict::Keep,
            Some(_) => Verdict::Unbalanced,
            None => Verdict::NoScore,
        })
    }

    /// Sends `quit` and ends the process.
    pub fn quit(self) {
        self.engine.quit();
    }
}

/// The suite file: `header` lines as `#` comments, then one position text a line.
pub fn render(header: &[String], openings: &[AnyPosition]) -> String {
    let mut text = String::new();
    for line in header {
        let _ = writeln!(text, "# {line}");
    }
    for pos in openings {
        let _ = writeln!(text, "{}", pos.fen());
    }
    text
}

/// Exit code: done.
const DONE: u8 = 0;
/// Exit code: could not complete.
const FAILED: u8 = 1;
/// Exit code: bad usage.
const BAD_USAGE: u8 = 2;

/// Candidates in a row without a score after which the engine is judged unable to score.
const NO_SCORE_LIMIT: usize = 20;

/// `arena openings`: checks the arguments (exit 2), generates (exit 1 when too few distinct
/// positions exist or the engine fails), writes the suite to `--output` or stdout (exit 0).
pub fn command(args: &crate::cli::OpeningsArgs) -> std::process::ExitCode {
    // An interrupt ends the scoring engine and whatever it started.
    crate::reaper::exit_on_signals(None);
    match run(args) {
        Ok(()) => std::process::ExitCode::from(DONE),
        Err((code, message)) => {
            eprintln!("error: {message}");
            std::process::ExitCode::from(code)
        }
    }
}

/// A failure of `arena openings`: the exit code and the message.
type Failure = (u8, String);

/// `arena openings`, as a sequence of steps: the board and sizes (usage errors first, before
/// any engine starts), the seed, the scoring engine, the generation, the header, the file.
fn run(args: &crate::cli::OpeningsArgs) -> Result<(), Failure> {
    let board = board_of(args)?;
    check_sizes(args, &board)?;
    let seed = args.seed.unwrap_or_else(drawn_seed);
    let mut scorer = start_scorer(args, &board)?;
    let request = Request {
        board: board.clone(),
        plies: args.plies,
        count: args.count,
        seed,
    };
    let generated = generate_scored(&request, scorer.as_mut(), args.engine.as_deref());
    let limit = scorer.as_ref().map(Scorer::limit_text);
    if let Some(scorer) = scorer {
        scorer.quit();
    }
    let (openings, tally) = generated.map_err(|e| (FAILED, e))?;
    let header = header(args, &board, seed, openings.len(), &tally, limit.as_deref());
    write_suite(
        args.output.as_deref(),
        &render(&header, &openings),
        openings.len(),
    )
}

/// Step 1: `--board`, parsed and validated, without openings of its own.
fn board_of(args: &crate::cli::OpeningsArgs) -> Result<BoardSpec, Failure> {
    let usage = |m: String| (BAD_USAGE, m);
    let board: BoardSpec =
        serde_yaml::from_str(&args.board).map_err(|e| usage(format!("--board: {e}")))?;
    board
        .validate()
        .map_err(|e| usage(format!("--board: {e}")))?;
    if board.openings().is_some() || board.random_opening_plies() > 0 {
        return Err(usage(
            "--board: give the plies with --plies, not openings or random_opening_plies".into(),
        ));
    }
    Ok(board)
}

/// Step 2: `--count` and `--plies` within their ranges (`--plies` at most the board's
/// `max_plies`), and `--max-score` not negative.
fn check_sizes(args: &crate::cli::OpeningsArgs, board: &BoardSpec) -> Result<(), Failure> {
    let usage = |m: String| Err((BAD_USAGE, m));
    if args.count == 0 || args.count > 1_000_000 {
        return usage(format!(
            "--count must be in 1..=1000000, got {}",
            args.count
        ));
    }
    if args.plies > board.max_plies() {
        return usage(format!(
            "--plies {} is more than the board's max_plies {}",
            args.plies,
            board.max_plies()
        ));
    }
    if let Some(max_score) = args.max_score.filter(|m| *m < 0) {
        return usage(format!("--max-score must be ≥ 0, got {max_score}"));
    }
    Ok(())
}

/// Step 3 without `--seed`: a seed from the clock and the process id (the header records it).
fn drawn_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    seed::mix(nanos ^ u64::from(std::process::id()))
}

/// Step 4: with `--config`, `--engine` and `--max-score`, the engine that scores candidates,
/// started and through its handshake; `None` without them.
fn start_scorer(
    args: &crate::cli::OpeningsArgs,
    board: &BoardSpec,
) -> Result<Option<Scorer>, Failure> {
    let usage = |m: String| (BAD_USAGE, m);
    let (path, name, max_score) = match (&args.config, &args.engine, args.max_score) {
        (Some(path), Some(name), Some(max_score)) => (path, name, max_score),
        (None, None, None) => return Ok(None),
        _ => {
            return Err(usage(
                "--config, --engine and --max-score go together".into(),
            ));
        }
    };
    let config = crate::config::read(path).map_err(|e| usage(e.to_string()))?;
    let base = std::env::current_dir()
        .map_err(|e| (FAILED, format!("cannot read the current directory: {e}")))?;
    let plan = config
        .plan(path, &base, &crate::config::Overrides::default())
        .map_err(|e| usage(e.to_string()))?;
    let engine = plan
        .engines
        .iter()
        .find(|e| &e.spec.name == name)
        .ok_or_else(|| {
            usage(format!(
                "--engine: {} has no engine called `{name}` (it has: {})",
                path.display(),
                plan.engines
                    .iter()
                    .map(|e| e.spec.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    Scorer::start(&plan, engine, board, args.movetime, args.depth, max_score)
        .map(Some)
        .map_err(|e| (FAILED, e))
}

/// Step 5: [`generate`], each candidate judged by `scorer` when there is one; an engine that
/// sends no score for the first [`NO_SCORE_LIMIT`] candidates cannot judge balance.
fn generate_scored(
    request: &Request,
    mut scorer: Option<&mut Scorer>,
    engine: Option<&str>,
) -> Result<(Vec<AnyPosition>, Tally), String> {
    let (mut scored, mut without) = (0usize, 0usize);
    generate(request, |pos| match scorer.as_mut() {
        None => Ok(Verdict::Keep),
        Some(scorer) => {
            let verdict = scorer.judge(pos)?;
            scored += 1;
            if verdict == Verdict::NoScore {
                without += 1;
            }
            if scored == NO_SCORE_LIMIT && without == scored {
                return Err(format!(
                    "engine {} sent no `info … score cp` for {NO_SCORE_LIMIT} positions: it cannot judge balance (run without --engine, or use an engine that reports scores)",
                    engine.unwrap_or_default()
                ));
            }
            Ok(verdict)
        }
    })
}

/// Step 6: the file's `#` header: what the suite is, the command that makes it again, and
/// the engine filter's counts when there was one.
fn header(
    args: &crate::cli::OpeningsArgs,
    board: &BoardSpec,
    seed: u64,
    found: usize,
    tally: &Tally,
    limit: Option<&str>,
) -> Vec<String> {
    let mut made_by = format!(
        "arena openings --board '{}' --plies {} --count {} --seed {seed}",
        args.board.trim(),
        args.plies,
        args.count
    );
    if let (Some(config), Some(engine), Some(max)) = (&args.config, &args.engine, args.max_score) {
        let _ = write!(
            made_by,
            " --config {} --engine {engine} --max-score {max}",
            config.display()
        );
        if let Some(ms) = args.movetime {
            let _ = write!(made_by, " --movetime {ms}");
        }
        if let Some(d) = args.depth {
            let _ = write!(made_by, " --depth {d}");
        }
    }
    let mut header = vec![
        format!(
            "arena opening suite for board {}: {found} positions, each after {} uniformly random legal plies from the start; distinct, none over.",
            board.name(),
            args.plies
        ),
        format!("made by: {made_by}"),
    ];
    if let (Some(engine), Some(max), Some(limit)) = (&args.engine, args.max_score, limit) {
        header.push(format!(
            "kept when engine {engine} ({limit}) scored the position within ±{max} cp (its last `info … score cp`, side to move's view; mate scores and positions without a score dropped): {} scored, {} unbalanced, {} without a score.",
            tally.scored, tally.unbalanced, tally.no_score
        ));
    }
    header.push("one opening a line: a position text (docs/games.md), optionally followed by `moves m1 m2 …`; `#` at the start of a line or after a space starts a comment.".into());
    header
}

/// Step 7: the suite to `--output` (saying so on stderr) or to stdout.
fn write_suite(output: Option<&std::path::Path>, text: &str, found: usize) -> Result<(), Failure> {
    match output {
        Some(path) => {
            std::fs::write(path, text)
                .map_err(|e| (FAILED, format!("cannot write {}: {e}", path.display())))?;
            eprintln!("wrote {found} openings to {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn board(yaml: &str) -> BoardSpec {
        serde_yaml::from_str(yaml).unwrap()
    }

    const BOARDS: [&str; 6] = [
        "{game: awale, pits: 6}",
        "{game: awale, pits: 4, seeds: 2, grand_slam: capture}",
        "{game: amazons, shape: square, width: 6, queens: 4}",
        "{game: amazons, shape: donut, width: 6, queens: 4}",
        "{game: seven_colors, size: 6, layout: random}",
        "{game: seven_colors, size: 7, topology: torus}",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Every generated opening reads back as an opening of its board (legal, right board,
        /// not over), at the ply count asked, and no two are the same. (Counts stay below the
        /// 16 positions the smallest board has after 2 plies.)
        #[test]
        fn generated_openings_are_legal_and_not_over(
            which in 0..BOARDS.len(),
            plies in 2u32..9,
            count in 1usize..8,
            seed in any::<u64>(),
        ) {
            let request = Request { board: board(BOARDS[which]), plies, count, seed };
            let (openings, tally) = generate(&request, |_| Ok(Verdict::Keep)).unwrap();
            prop_assert_eq!(openings.len(), count);
            prop_assert_eq!(tally.scored, count);
            let text = render(&["test".into()], &openings);
            let suite = super::super::parse(&text, "g.txt", &request.board).unwrap();
            prop_assert_eq!(suite.openings.len(), count);
            let distinct: HashSet<String> = openings.iter().map(AnyPosition::fen).collect();
            prop_assert_eq!(distinct.len(), count);
            for pos in &openings {
                prop_assert!(pos.outcome().is_none());
            }
        }
    }

    #[test]
    fn too_few_distinct_positions_is_an_error_not_a_hang() {
        // Awale with 6 pits has 6 first moves: 7 distinct positions after one ply cannot exist.
        let request = Request {
            board: board("{game: awale, pits: 6}"),
            plies: 1,
            count: 7,
            seed: 3,
        };
        let err = generate(&request, |_| Ok(Verdict::Keep)).unwrap_err();
        assert!(err.starts_with("found only 6 distinct openings"), "{err}");
    }

    #[test]
    fn the_filter_decides_and_is_counted() {
        let request = Request {
            board: board("{game: awale, pits: 6}"),
            plies: 3,
            count: 5,
            seed: 9,
        };
        let mut n = 0;
        let (kept, tally) = generate(&request, |_| {
            n += 1;
            Ok(match n % 3 {
                0 => Verdict::Keep,
                1 => Verdict::Unbalanced,
                _ => Verdict::NoScore,
            })
        })
        .unwrap();
        assert_eq!(kept.len(), 5);
        assert_eq!((tally.scored, tally.unbalanced, tally.no_score), (15, 5, 5));
    }
}
