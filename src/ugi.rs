//! The engine side of the protocol: [`run`] turns stdin/stdout into calls on an [`Engine`],
//! so that a Rust engine is only its strategy.
//!
//! The loop handles `ugi` (declaring the games and options), `setoption` (including
//! `UGI_Variant` and `Seed`), `isready` at any time (during a search, answered when the search
//! next calls [`Search::should_stop`]), `uginewgame`, `position`, `go` in every form (turned
//! into a deadline and limits), `stop` and `quit`. One thread does it all (see `input.rs`).
//!
//! ```no_run
//! use arena::games::{AnyPosition, GameKind};
//! use arena::ugi::{self, Engine, Search};
//!
//! struct FirstMove;
//!
//! impl Engine for FirstMove {
//!     fn name(&self) -> String { "first-move".into() }
//!     fn games(&self) -> Vec<GameKind> { GameKind::ALL.to_vec() }
//!     fn search(&mut self, pos: &AnyPosition, _search: &mut Search<'_>) -> Option<String> {
//!         pos.legal_move_texts().into_iter().next()
//!     }
//! }
//!
//! fn main() -> std::io::Result<()> {
//!     ugi::run(FirstMove)
//! }
//! ```

use std::cell::RefCell;
use std::io::{self, Write};
use std::time::{Duration, Instant};

use crate::games::{AnyPosition, GameKind, Side};
use crate::protocol::{self, BestMove, Command, Go, Info, OptionDecl, Reply};
use crate::seed::{self, SeededRng};

mod incremental;
mod input;
use incremental::PositionCache;
use input::Input;

/// A strategy behind the protocol loop.
pub trait Engine {
    /// The `id name` the engine reports.
    fn name(&self) -> String;

    /// The `id author` the engine reports.
    fn author(&self) -> String {
        "the arena developers".into()
    }

    /// The games it plays, declared through `UGI_Variant`.
    fn games(&self) -> Vec<GameKind>;

    /// Options beyond `UGI_Variant` and `Seed`, declared after `ugi`.
    fn options(&self) -> Vec<OptionDecl> {
        Vec::new()
    }

    /// Applies `setoption` for one of [`Engine::options`].
    ///
    /// # Errors
    /// A message (logged by the loop as `info string`) when the name or value is not accepted.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        Err(format!("unknown option `{name}` (value `{value}`)"))
    }

    /// Called on `uginewgame`.
    fn new_game(&mut self) {}

    /// Chooses a move in `pos` (its text, as in `docs/games.md`), or `None` to resign.
    /// Called only on positions that are not over.
    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String>;
}

/// What a search may use and must respect: limits, the stop signal, the seeded generator and a
/// way to print `info` lines.
pub struct Search<'a> {
    start: Instant,
    deadline: Option<Instant>,
    /// Depth limit from `go depth` (plies).
    pub depth: Option<u32>,
    /// Node limit from `go nodes`.
    pub nodes: Option<u64>,
    input: &'a RefCell<Input>,
    /// The engine's generator, seeded from the `Seed` option at each `uginewgame`.
    pub rng: &'a mut SeededRng,
}

impl Search<'_> {
    /// Whether the search must return now: `stop` or `quit` arrived, or the time is spent.
    /// Also where stdin is looked at during a search (at most every millisecond): a search
    /// should call it often, or `isready` and `stop` wait for its end.
    pub fn should_stop(&self) -> bool {
        self.input.borrow_mut().stopped() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the search has only time limits (no depth or node limit), so it should deepen
    /// until [`Search::should_stop`].
    pub fn is_timed(&self) -> bool {
        self.depth.is_none() && self.nodes.is_none()
    }

    /// Time since `go` arrived.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time left before the deadline, if there is one.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Prints an `info` line (time is filled in, and nps from the nodes when not given).
    pub fn info(&self, mut info: Info) {
        let elapsed = self.elapsed();
        info.time = Some(elapsed.as_millis() as u64);
        if let (None, Some(nodes)) = (info.nps, info.nodes) {
            let micros = elapsed.as_micros().max(1);
            info.nps =
                Some((u128::from(nodes) * 1_000_000 / micros).min(u128::from(u64::MAX)) as u64);
        }
        send(&Reply::Info(info));
    }
}

/// Share of the remaining clock spent on one move, and the floor kept for overheads.
const CLOCK_SHARE: u32 = 25;
const SAFETY: Duration = Duration::from_millis(8);

/// The time a move may take under `go` for the side to move, or `None` when untimed.
///
/// Clock: a 1/25 share of the time left plus ¾ of the increment, never more than half of what
/// is left. Movetime: the whole movetime less an 8 ms (or 10%) margin for process overheads.
pub fn budget(go: &Go, side: Side) -> Option<Duration> {
    match *go {
        Go::Clock {
            p1time,
            p2time,
            p1inc,
            p2inc,
        } => {
            let (left, inc) = match side {
                Side::First => (p1time, p1inc),
                Side::Second => (p2time, p2inc),
            };
            let left = Duration::from_millis(left);
            let share = left / CLOCK_SHARE + Duration::from_millis(inc) * 3 / 4;
            Some(share.min(left / 2).saturating_sub(SAFETY / 2))
        }
        Go::MoveTime(ms) => {
            let ms = Duration::from_millis(ms);
            Some(ms.saturating_sub(SAFETY.max(ms / 10)))
        }
        Go::Depth(_) | Go::Nodes(_) | Go::Infinite => None,
    }
}

fn send(reply: &Reply) {
    // A closed stdout means the runner is gone; the next read of stdin will end the loop.
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{reply}");
    let _ = out.flush();
}

fn log(text: &str) {
    send(&Reply::Info(Info {
        string: Some(text.to_owned()),
        ..Info::default()
    }));
}

/// Runs the protocol loop on stdin/stdout until `quit` or the end of stdin.
///
/// # Errors
/// None at present: a read error on stdin ends the loop like the end of stdin (the runner is
/// gone). The `Result` lets `main` return it directly.
pub fn run<E: Engine>(engine: E) -> io::Result<()> {
    let input = RefCell::new(Input::new());
    let mut session = Session::new(engine);
    loop {
        // Not held across the search, which borrows the input itself.
        let Some(line) = input.borrow_mut().next_line() else {
            break;
        };
        let command = match Command::parse(&line) {
            Ok(command) => command,
            Err(e) => {
                log(&e.to_string());
                continue;
            }
        };
        match command {
            Command::Ugi => session.declare(),
            Command::SetOption { name, value } => session.set_option(&name, &value),
            Command::NewGame => session.new_game(),
            Command::Position { fen, moves } => session.set_position(&fen, &moves),
            Command::Go(go) => {
                let best = session.go(&go, &input);
                send(&Reply::BestMove(
                    best.map_or(BestMove::Resign, BestMove::Move),
                ));
            }
            Command::IsReady => send(&Reply::ReadyOk),
            Command::Quit => break,
            Command::Stop | Command::Unknown(_) => {}
        }
    }
    Ok(())
}

/// The engine's state between commands: the game chosen by `UGI_Variant`, the seed and the
/// generator it gives, and the last position set.
struct Session<E> {
    engine: E,
    games: Vec<GameKind>,
    variant: GameKind,
    seed_value: u64,
    rng: SeededRng,
    position: PositionCache,
}

impl<E: Engine> Session<E> {
    fn new(engine: E) -> Self {
        let games = engine.games();
        let variant = games.first().copied().unwrap_or(GameKind::SevenColors);
        Session {
            engine,
            games,
            variant,
            seed_value: 0,
            rng: seed::rng(0),
            position: PositionCache::default(),
        }
    }

    /// `ugi`: identity, the `UGI_Variant` and `Seed` options, the engine's own, `ugiok`.
    fn declare(&self) {
        send(&Reply::Id {
            field: "name".into(),
            value: self.engine.name(),
        });
        send(&Reply::Id {
            field: "author".into(),
            value: self.engine.author(),
        });
        let names: Vec<String> = self.games.iter().map(|g| g.name().to_owned()).collect();
        send(&Reply::Option(OptionDecl {
            name: protocol::VARIANT_OPTION.into(),
            kind: "combo".into(),
            default: names.first().cloned(),
            vars: names,
            ..OptionDecl::default()
        }));
        send(&Reply::Option(OptionDecl::seed()));
        for decl in self.engine.options() {
            send(&Reply::Option(decl));
        }
        send(&Reply::UgiOk);
    }

    /// `setoption`: the variant and seed here, anything else to the engine; refusals are
    /// logged as `info string`.
    fn set_option(&mut self, name: &str, value: &str) {
        if name == protocol::VARIANT_OPTION {
            match value.parse::<GameKind>() {
                Ok(kind) if self.games.contains(&kind) => self.variant = kind,
                _ => log(&format!("variant `{value}` is not played by this engine")),
            }
        } else if name == protocol::SEED_OPTION {
            match value.parse() {
                Ok(v) => {
                    self.seed_value = v;
                    self.rng = seed::rng(v);
                }
                Err(_) => log(&format!("seed `{value}` is not a number")),
            }
        } else if let Err(message) = self.engine.set_option(name, value) {
            log(&message);
        }
    }

    /// `uginewgame`: the generator restarts from the seed and the position is forgotten.
    fn new_game(&mut self) {
        self.rng = seed::rng(self.seed_value);
        self.position.forget();
        self.engine.new_game();
    }

    /// `position`: the start text and the moves since, played incrementally when the list
    /// extends the previous one; on an error (logged) no position is set, so the next `go`
    /// resigns.
    fn set_position(&mut self, fen: &str, moves: &[String]) {
        if let Err(e) = self.position.set(self.variant, fen, moves) {
            log(&e);
        }
    }

    /// `go`: searches the position under the command's limits; `None` (resign) without a
    /// playable position.
    fn go(&mut self, go: &Go, input: &RefCell<Input>) -> Option<String> {
        let start = Instant::now();
        match self.position.position() {
            Some(pos) if pos.outcome().is_none() => {
                let mut search = Search {
                    start,
                    deadline: budget(go, pos.side_to_move()).map(|b| start + b),
                    depth: if let Go::Depth(d) = *go {
                        Some(d)
                    } else {
                        None
                    },
                    nodes: if let Go::Nodes(n) = *go {
                        Some(n)
                    } else {
                        None
                    },
                    input,
                    rng: &mut self.rng,
                };
                input.borrow_mut().start_search();
                self.engine.search(pos, &mut search)
            }
            _ => {
                log("no playable position was set");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets() {
        let clock = Go::Clock {
            p1time: 10_000,
            p2time: 2_000,
            p1inc: 100,
            p2inc: 0,
        };
        assert_eq!(
            budget(&clock, Side::First),
            Some(Duration::from_millis(400 + 75 - 4))
        );
        assert_eq!(
            budget(&clock, Side::Second),
            Some(Duration::from_millis(80 - 4))
        );
        assert_eq!(
            budget(&Go::MoveTime(100), Side::First),
            Some(Duration::from_millis(90))
        );
        assert_eq!(
            budget(&Go::MoveTime(50), Side::First),
            Some(Duration::from_millis(42))
        );
        assert_eq!(budget(&Go::Depth(3), Side::First), None);
        // Never more than half of a nearly empty clock.
        let short = Go::Clock {
            p1time: 10,
            p2time: 10,
            p1inc: 1000,
            p2inc: 0,
        };
        assert!(budget(&short, Side::First).unwrap() <= Duration::from_millis(5));
    }
}
