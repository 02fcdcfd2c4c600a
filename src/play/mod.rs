//! `arena play`: a person plays an engine at the terminal; the finished game is appended to a
//! games.csv in arena's own format, so `arena replay`, `arena ratings` and reports read it.
//!
//! Owns the prompt and its commands, the person's clock and the record of a played game. The
//! engine moves through [`referee::engine_move`], the path of every tournament game (same
//! `position`/`go` lines, deadlines and forfeits); boards are drawn by each game's `render` and
//! moves explained by its `move_help`. Knows no game's rules and must not: everything
//! game-specific goes through [`AnyPosition`]. [`replay`] steps through recorded games.

pub mod replay;

use std::collections::BTreeMap;
use std::io::{self, BufRead, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cli::{HumanSide, PlayArgs};
use crate::commands::{BAD_CONFIG, DONE, FAILED};
use crate::config::{self, Limit, TimeControl, TimeControlSpec};
use crate::engine::{self, Engine, Identity, Launch};
use crate::games::{AnyPosition, BoardSpec, BySide, GameKind, Outcome, Side};
use crate::protocol::{self, Command};
use crate::record::moves::{self, MoveRow};
use crate::record::{GameRecord, Termination};
use crate::referee::{self, Fault, Seat, Setup, SideClock};
use crate::report::files;
use crate::schedule::Fixture;

/// The engine's time per move without `--config` or `--movetime` (ms).
pub const DEFAULT_MOVETIME_MS: u64 = 1000;
/// Time for the engine's `ugiok` and `readyok` (ms).
const HANDSHAKE_MS: u64 = 10_000;
/// `moves` lists at most this many moves; a prefix narrows a longer list.
const MOVES_SHOWN: usize = 200;

/// An error that ends a command, with its exit code.
pub(crate) struct Stop(pub u8, pub String);

pub(crate) fn finish(result: Result<u8, Stop>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(Stop(code, message)) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

/// Whether to draw in ANSI colours: not with `--no-color`, not when `NO_COLOR` is set
/// (no-color.org), and only when stdout is a terminal.
pub(crate) fn use_colour(no_color: bool) -> bool {
    !no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && {
        io::stdout().is_terminal()
    }
}

/// Bold text when colouring.
pub(crate) fn bold(text: &str, ansi: bool) -> String {
    if ansi {
        format!("\x1b[1m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// Seconds with one decimal, for times given in ms.
pub(crate) fn seconds(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// `text` broken into lines of at most `width` characters at spaces (a longer word keeps its
/// own line).
pub(crate) fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

/// Width of wrapped help text (characters).
const WIDTH: usize = 96;

/// What the person typed at the prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    /// Nothing (an empty line): prompt again.
    Empty,
    /// Anything that is not a command: tried as a move text.
    Move(String),
    /// `moves [PREFIX]`: the legal moves, those starting with PREFIX when given.
    Moves(String),
    /// `undo`: take back the person's last move and the engine's reply.
    Undo,
    /// `board`: draw the board again.
    Board,
    /// `fen`: print the position text.
    Fen,
    /// `help` or `?`.
    Help,
    /// `resign`: lose the game (it is recorded).
    Resign,
    /// `quit` or `exit`: leave without recording the unfinished game.
    Quit,
}

impl Input {
    /// Reads one line; commands are case-insensitive, a move keeps its case.
    pub fn parse(line: &str) -> Input {
        let line = line.trim();
        let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        match word.to_ascii_lowercase().as_str() {
            "" => Input::Empty,
            "moves" => Input::Moves(rest.trim().to_owned()),
            "undo" if rest.is_empty() => Input::Undo,
            "board" if rest.is_empty() => Input::Board,
            "fen" if rest.is_empty() => Input::Fen,
            "help" | "?" if rest.is_empty() => Input::Help,
            "resign" if rest.is_empty() => Input::Resign,
            "quit" | "exit" if rest.is_empty() => Input::Quit,
            _ => Input::Move(line.to_owned()),
        }
    }
}

/// The commands, for `help` and the first prompt.
const COMMANDS: &str = "\
Commands: a move (see below), `moves [PREFIX]` lists the legal moves (those starting with
PREFIX), `undo` takes back your last move and the engine's reply, `board` draws the board,
`fen` prints the position text, `help`, `resign` ends the game as a loss (recorded), `quit`
leaves without recording it.";

/// The engine to play and how.
struct Opponent {
    /// The name recorded: the config's or --engine-name, else the engine's `id name` once
    /// it has answered (the program's file name until then, and for the stderr log).
    name: String,
    /// Whether the name was given (config, --engine-name) rather than taken from the engine.
    named: bool,
    launch: Launch,
    /// `setoption` pairs sent after the handshake, from the config.
    options: BTreeMap<String, String>,
    time_control: TimeControl,
    /// The config's first board, used when `--board` is absent.
    board: Option<BoardSpec>,
}

/// Checks a name the way configs do: it goes into CSV and PGN files.
fn check_name(what: &str, name: &str) -> Result<(), Stop> {
    if name.trim().is_empty() || name.contains(['/', '\\', ',', '"']) {
        return Err(Stop(
            BAD_CONFIG,
            format!("{what} `{name}`: a name must be non-empty without / \\ , or \""),
        ));
    }
    Ok(())
}

fn opponent(args: &PlayArgs, cwd: &Path) -> Result<Opponent, Stop> {
    let movetime = |margin_ms: Option<u64>| {
        TimeControlSpec {
            movetime_ms: args.movetime,
            margin_ms,
            ..TimeControlSpec::default()
        }
        .validate()
        .map_err(|e| Stop(BAD_CONFIG, format!("--movetime: {e}")))
    };
    if let Some(path) = &args.config {
        let wanted = args.engine_name.as_deref().unwrap_or_default();
        let config = config::read(path).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
        let file = path.display();
        let Some(spec) = config.engines.iter().find(|e| e.name == wanted) else {
            let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
            return Err(Stop(
                BAD_CONFIG,
                format!(
                    "{file}: no engine called `{wanted}` (it has {})",
                    names.join(", ")
                ),
            ));
        };
        let tc_spec = spec.time_control.as_ref().unwrap_or(&config.time_control);
        let time_control = if args.movetime.is_some() {
            movetime(tc_spec.margin_ms)?
        } else {
            tc_spec
                .validate()
                .map_err(|e| Stop(BAD_CONFIG, format!("{file}: time_control: {e}")))?
        };
        let program = engine::resolve_program(&spec.command, cwd)
            .map_err(|e| Stop(BAD_CONFIG, format!("{file}: engine {wanted}: {e}")))?;
        return Ok(Opponent {
            name: spec.name.clone(),
            named: true,
            launch: Launch {
                program,
                args: spec.args.clone(),
                stderr_log: None,
                limits: spec.limits.unwrap_or_default(),
                sandbox: crate::sandbox::of(spec),
            },
            options: spec
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect(),
            time_control,
            board: config.boards.first().cloned(),
        });
    }
    let Some((command, engine_args)) = args.engine.split_first() else {
        return Err(Stop(
            BAD_CONFIG,
            "give the engine with --engine CMD [ARGS…] or --config FILE --engine-name NAME".into(),
        ));
    };
    let program = engine::resolve_program(command, cwd)
        .map_err(|e| Stop(BAD_CONFIG, format!("--engine: {e}")))?;
    let name = match &args.engine_name {
        Some(name) => name.clone(),
        None => Path::new(command)
            .file_name()
            .map_or_else(|| command.clone(), |n| n.to_string_lossy().into_owned()),
    };
    let time_control = if args.movetime.is_some() {
        movetime(None)?
    } else {
        TimeControlSpec {
            movetime_ms: Some(DEFAULT_MOVETIME_MS),
            ..TimeControlSpec::default()
        }
        .validate()
        .map_err(|e| Stop(BAD_CONFIG, e))?
    };
    Ok(Opponent {
        name,
        named: args.engine_name.is_some(),
        launch: Launch {
            program,
            args: engine_args.to_vec(),
            stderr_log: None,
            limits: engine::Limits::default(),
            sandbox: None,
        },
        options: BTreeMap::new(),
        time_control,
        board: None,
    })
}

/// One ply played: the move text, who played it, the time it took, and the engine's last
/// `info` (none for a person's move).
#[derive(Clone, Debug)]
struct Ply {
    text: String,
    side: Side,
    elapsed: Duration,
    info: Option<protocol::Info>,
}

/// A duration to the nearest whole ms, as the referee writes times in records.
fn round_ms(d: Duration) -> u64 {
    (d.as_micros() as u64 + 500) / 1000
}

/// The game as it stands: the start, the plies, and what follows from them.
struct Game {
    start: AnyPosition,
    pos: AnyPosition,
    plies: Vec<Ply>,
    time_control: TimeControl,
}

impl Game {
    /// The position after every ply, replayed from the start (Awale's repetition rule needs
    /// the whole history, so an undo cannot just restore a position text).
    fn rebuild(&mut self) {
        let mut pos = self.start.clone();
        for ply in &self.plies {
            pos.play_text(&ply.text)
                .expect("a move already played is legal");
        }
        self.pos = pos;
    }

    /// Both sides' clocks and time used after the plies, both on the engine's time control
    /// (the `go` line carries both clocks); the person's clock runs but never forfeits.
    fn clocks(&self) -> (BySide<SideClock>, BySide<Duration>) {
        let mut used = BySide::new(Duration::ZERO, Duration::ZERO);
        let mut clocks = BySide::new(
            SideClock::new(self.time_control),
            SideClock::new(self.time_control),
        );
        for ply in &self.plies {
            used[ply.side] += ply.elapsed;
            clocks[ply.side].charge(ply.elapsed);
        }
        (clocks, used)
    }

    fn position_line(&self) -> String {
        Command::Position {
            fen: self.start.fen(),
            moves: self.plies.iter().map(|p| p.text.clone()).collect(),
        }
        .to_string()
    }

    /// Takes back the person's last move and every engine move after it; false when the person
    /// has not moved yet.
    fn undo(&mut self, human: Side) -> bool {
        let Some(last) = self.plies.iter().rposition(|p| p.side == human) else {
            return false;
        };
        self.plies.truncate(last);
        self.rebuild();
        true
    }
}

/// How the game ended.
enum End {
    /// The rules ended it ([`Termination::Normal`]) or the ply cap did ([`Termination::MaxPlies`]).
    Rules(Termination),
    /// The engine failed, forfeited or resigned.
    Engine(Fault),
    /// The person resigned.
    Resigned,
    /// The person left (or input ended): nothing is recorded.
    Quit,
}

/// A seed when none is given: the clock's nanoseconds mixed with the process id.
fn drawn_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ u64::from(std::process::id()).rotate_left(32)) >> 1
}

/// The next free game id of a games.csv (0 for a new file).
fn next_id(path: &Path) -> Result<u64, Stop> {
    if !path.exists() {
        return Ok(0);
    }
    let (records, _) = files::read_games(path).map_err(|e| Stop(FAILED, e.to_string()))?;
    Ok(records.iter().map(|r| r.game_id + 1).max().unwrap_or(0))
}

/// `arena play`.
pub fn play(args: &PlayArgs) -> ExitCode {
    finish(play_game(args))
}

/// `arena play`'s story: the board, the output directory, the engine started and named, the
/// game played at the prompt, its result shown and recorded.
fn play_game(args: &PlayArgs) -> Result<u8, Stop> {
    let cwd = std::env::current_dir()
        .map_err(|e| Stop(FAILED, format!("cannot read the current directory: {e}")))?;
    let mut opponent = opponent(args, &cwd)?;
    let (spec, seed, start) = board(args, &opponent)?;
    check_name("--name", &args.name)?;
    if opponent.named {
        check_names(&args.name, &opponent.name)?;
    }
    // One process at a time on the output directory, as for `arena run`.
    let _lock =
        crate::tournament::lock::acquire(&args.output).map_err(|s| Stop(s.code, s.message))?;
    let games_path = prepare_output(args, &mut opponent)?;
    let ansi = use_colour(args.no_color);
    let human = match args.human {
        HumanSide::First => Side::First,
        HumanSide::Second => Side::Second,
    };

    // An interrupt ends the engine and whatever it started, and exits with 130.
    crate::reaper::exit_on_signals(None);
    let mut engine = Engine::spawn(&opponent.launch)
        .map_err(|e| Stop(FAILED, format!("engine {}: {e}", opponent.name)))?;
    let started = start_engine(&mut engine, &mut opponent, spec.kind(), &args.name);
    let identity = match started {
        Ok(identity) => identity,
        Err(stop) => {
            engine.quit();
            return Err(stop);
        }
    };
    let names = BySide::from_fn(|side| {
        if side == human {
            args.name.clone()
        } else {
            opponent.name.clone()
        }
    });
    println!(
        "{} on {} (seed {seed}): {} (first, 1) vs {} (second, 2); {} plays at {}",
        bold("arena play", ansi),
        spec.name(),
        names.first,
        names.second,
        opponent.name,
        opponent.time_control
    );
    println!("{COMMANDS}");
    println!("{}", wrap(&format!("Moves: {}", start.move_help()), WIDTH));

    let table = Table {
        spec: &spec,
        seed,
        start: &start,
        human,
        names: &names,
        ansi,
    };
    let clock = Instant::now();
    let (game, end) = play_at_prompt(&table, &mut engine, &opponent, &identity, &games_path)?;
    engine.quit();

    let Some(record) = game_record(&game, end, human, &names) else {
        println!("game left unfinished: not recorded (`resign` records a loss)");
        return Ok(DONE);
    };
    show_result(&game, &record, &table);
    save(args, &games_path, record, &game, &table, clock.elapsed())?;
    Ok(DONE)
}

/// The board, its seed (given or drawn) and its start position: `--board`, else the config's
/// first board.
fn board(args: &PlayArgs, opponent: &Opponent) -> Result<(BoardSpec, u64, AnyPosition), Stop> {
    let spec: BoardSpec = match (&args.board, &opponent.board) {
        (Some(yaml), _) => {
            serde_yaml::from_str(yaml).map_err(|e| Stop(BAD_CONFIG, format!("--board: {e}")))?
        }
        (None, Some(board)) => board.clone(),
        (None, None) => return Err(Stop(BAD_CONFIG, "give the board with --board".into())),
    };
    let seed = args.seed.unwrap_or_else(drawn_seed);
    let start = spec
        .start_position(seed)
        .map_err(|e| Stop(BAD_CONFIG, format!("--board: {e}")))?;
    Ok((spec, seed, start))
}

/// Checks that the output's games.csv can be read (now, not after the game) and creates the
/// logs folder, where the engine's stderr goes; returns the games.csv path.
fn prepare_output(args: &PlayArgs, opponent: &mut Opponent) -> Result<std::path::PathBuf, Stop> {
    let games_path = args.output.join(files::GAMES);
    next_id(&games_path)?;
    let logs = args.output.join("logs");
    std::fs::create_dir_all(&logs)
        .map_err(|e| Stop(FAILED, format!("{}: cannot create: {e}", logs.display())))?;
    opponent.launch.stderr_log = Some(logs.join(format!("{}.stderr.log", opponent.name)));
    Ok(games_path)
}

/// What the game at the terminal is played with (set once it starts).
struct Table<'a> {
    spec: &'a BoardSpec,
    seed: u64,
    start: &'a AnyPosition,
    human: Side,
    names: &'a BySide<String>,
    ansi: bool,
}

/// Plays the game: the engine's side through the referee's path, the person's at the prompt
/// on stdin; returns the game and how it ended.
fn play_at_prompt(
    table: &Table<'_>,
    engine: &mut Engine,
    opponent: &Opponent,
    identity: &Identity,
    games_path: &Path,
) -> Result<(Game, End), Stop> {
    let game_id = next_id(games_path)?;
    let fixture = Fixture {
        id: game_id,
        board: 0,
        round: 1,
        pair: game_id,
        leg: 0,
        players: BySide::from_fn(|side| usize::from(side != table.human)),
        engine_seed: table.seed >> 1,
    };
    let board_name = table.spec.name();
    let setup = Setup {
        fixture: &fixture,
        board_name: &board_name,
        game: table.spec.kind(),
        start: table.start,
        max_plies: table.spec.max_plies(),
        ready_timeout: Duration::from_millis(HANDSHAKE_MS),
        record_moves: false,
        adjudication: None,
        live: None,
    };
    let mut seat = Seat {
        engine,
        name: &opponent.name,
        identity,
        time_control: opponent.time_control,
    };
    let mut game = Game {
        pos: table.start.clone(),
        start: table.start.clone(),
        plies: Vec::new(),
        time_control: opponent.time_control,
    };
    let end = match referee::prepare(&mut seat, table.human.other(), &setup) {
        Err(fault) => End::Engine(fault),
        Ok(()) => {
            let stdin = io::stdin();
            let mut input = stdin.lock();
            drive(
                &mut game,
                &mut seat,
                &setup,
                table.human,
                table.names,
                &mut input,
                table.ansi,
            )
        }
    };
    Ok((game, end))
}

/// Prints the final board and `game over: you win (normal, 25-23)` with the detail.
fn show_result(game: &Game, record: &GameRecord, table: &Table<'_>) {
    print!("{}", game.pos.render(table.ansi));
    let verdict = match Outcome::from_result_str(&record.result) {
        Some(Outcome::Decisive { winner }) if winner == table.human => "you win".to_owned(),
        Some(Outcome::Decisive { winner }) => format!("{} wins", table.names[winner]),
        _ => "a draw".to_owned(),
    };
    let tally = match (record.score_first, record.score_second) {
        (Some(a), Some(b)) => format!(", {a}-{b}"),
        _ => String::new(),
    };
    let detail = if record.detail.is_empty() {
        String::new()
    } else {
        format!(": {}", record.detail)
    };
    println!(
        "{}: {verdict} ({}{tally}){detail}",
        bold("game over", table.ansi),
        record.termination
    );
}

/// Appends the game to games.csv (under the next free id: another `arena play` may have
/// written meanwhile) and its plies to moves.csv, and says how to replay it.
fn save(
    args: &PlayArgs,
    games_path: &Path,
    mut record: GameRecord,
    game: &Game,
    table: &Table<'_>,
    duration: Duration,
) -> Result<(), Stop> {
    let game_id = next_id(games_path)?;
    record.game_id = game_id;
    record.pair = game_id;
    record.board = table.spec.name();
    record.duration_ms = round_ms(duration);
    files::GamesWriter::append(games_path)
        .and_then(|mut w| w.write(&record))
        .map_err(|e| Stop(FAILED, e.to_string()))?;
    let rows: Vec<MoveRow<'_>> = game
        .plies
        .iter()
        .enumerate()
        .map(|(i, p)| MoveRow {
            ply: i + 1,
            side: p.side,
            player: &table.names[p.side],
            text: &p.text,
            time_ms: round_ms(p.elapsed),
            info: p.info.as_ref(),
        })
        .collect();
    moves::append(&args.output.join(moves::MOVES), game_id, &rows).map_err(|e| Stop(FAILED, e))?;
    println!(
        "game {game_id} recorded in {}; replay it with: arena replay {} --game {game_id}",
        games_path.display(),
        games_path.display()
    );
    Ok(())
}

/// The games.csv row of a game that ended with `end`, as the referee would write it (result
/// and scores by the rules, adjudicated at the ply cap, lost by the side at fault); `None`
/// when the person quit. Id, pair, board and duration are left for the caller (0, empty).
fn game_record(game: &Game, end: End, human: Side, names: &BySide<String>) -> Option<GameRecord> {
    let pos = &game.pos;
    let (outcome, termination, detail, scores) = match end {
        End::Quit => return None,
        End::Rules(Termination::MaxPlies) => (
            pos.adjudicate(),
            Termination::MaxPlies,
            format!("adjudicated after {} plies", game.plies.len()),
            pos.final_scores(),
        ),
        End::Rules(termination) => (
            pos.outcome().unwrap_or(Outcome::Draw),
            termination,
            String::new(),
            pos.scores(),
        ),
        End::Engine(fault) => (
            Outcome::Decisive {
                winner: fault.side.other(),
            },
            fault.termination,
            fault.detail,
            pos.scores(),
        ),
        End::Resigned => (
            Outcome::Decisive {
                winner: human.other(),
            },
            Termination::Resign,
            format!(
                "{} ({human}) resigned at ply {}",
                names[human],
                game.plies.len() + 1
            ),
            pos.scores(),
        ),
    };
    let (_, used) = game.clocks();
    Some(GameRecord {
        game_id: 0,
        round: 1,
        board: String::new(),
        game: game.start.kind().name().to_owned(),
        pair: 0,
        first: names.first.clone(),
        second: names.second.clone(),
        result: outcome.result_str().to_owned(),
        termination,
        plies: game.plies.len() as u32,
        score_first: scores.map(|s| s.first),
        score_second: scores.map(|s| s.second),
        duration_ms: 0,
        first_time_ms: round_ms(used.first),
        second_time_ms: round_ms(used.second),
        start_fen: game.start.fen(),
        moves: game
            .plies
            .iter()
            .map(|p| p.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        detail,
        repeat_of: None,
    })
}

/// Handshake, the engine's name (its `id name` unless one was given), the config's options,
/// and a check that the engine plays the game.
fn start_engine(
    engine: &mut Engine,
    opponent: &mut Opponent,
    game: GameKind,
    person: &str,
) -> Result<Identity, Stop> {
    let identity = engine
        .handshake(Duration::from_millis(HANDSHAKE_MS))
        .map_err(|e| {
            Stop(
                FAILED,
                format!("engine {}: handshake failed: {e}", opponent.name),
            )
        })?;
    if !opponent.named {
        if let Some(id) = identity.name.as_deref().and_then(usable_name) {
            opponent.name = id;
        }
        check_names(person, &opponent.name)?;
    }
    let name = &opponent.name;
    if let Some(decl) = identity.option(protocol::VARIANT_OPTION) {
        if !decl.vars.iter().any(|v| v == game.name()) {
            return Err(Stop(
                BAD_CONFIG,
                format!(
                    "engine {name} does not play {game} (it declares {})",
                    decl.vars.join(", ")
                ),
            ));
        }
    }
    for (option, value) in &opponent.options {
        engine
            .send(&Command::SetOption {
                name: option.clone(),
                value: value.clone(),
            })
            .map_err(|e| Stop(FAILED, format!("engine {name}: {e}")))?;
    }
    Ok(identity)
}

/// The engine's name is one games.csv can hold and is not the person's.
fn check_names(person: &str, engine: &str) -> Result<(), Stop> {
    check_name("engine name", engine)?;
    if person == engine {
        return Err(Stop(
            BAD_CONFIG,
            format!("you and the engine are both called `{person}`: give --name"),
        ));
    }
    Ok(())
}

/// An engine's `id name` as a name for games.csv: trimmed, the characters a name may not
/// hold (`/ \\ , "`) replaced by `-`; `None` when nothing is left.
fn usable_name(id: &str) -> Option<String> {
    let name: String = id
        .trim()
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ',' | '"') {
                '-'
            } else {
                c
            }
        })
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Plays until the game ends, the person resigns or leaves.
fn drive(
    game: &mut Game,
    seat: &mut Seat<'_>,
    setup: &Setup<'_>,
    human: Side,
    names: &BySide<String>,
    input: &mut dyn BufRead,
    ansi: bool,
) -> End {
    let echo = !io::stdin().is_terminal();
    let mut show_board = true;
    loop {
        if game.pos.outcome().is_some() {
            return End::Rules(Termination::Normal);
        }
        if game.plies.len() as u32 >= setup.max_plies {
            return End::Rules(Termination::MaxPlies);
        }
        if game.pos.side_to_move() != human {
            if let Err(fault) = engine_turn(game, seat, names, ansi) {
                return End::Engine(fault);
            }
            show_board = true;
            continue;
        }
        if show_board {
            print_status(game, names, human, ansi);
            show_board = false;
        }
        let asked = Instant::now();
        let side = game.pos.side_to_move();
        match person_turn(game, names, human, input, ansi, echo) {
            Turn::Moved(text) => game.plies.push(Ply {
                text,
                side,
                elapsed: asked.elapsed(),
                info: None,
            }),
            Turn::Undone => {}
            Turn::Over(end) => return end,
        }
    }
}

/// The engine's move through the referee (clock, deadline, legality), printed and added to
/// the game; its fault when it fails.
fn engine_turn(
    game: &mut Game,
    seat: &mut Seat<'_>,
    names: &BySide<String>,
    ansi: bool,
) -> Result<(), Fault> {
    let ply = game.plies.len() + 1;
    let side = game.pos.side_to_move();
    let (mut clocks, mut used) = game.clocks();
    let before = used[side];
    if ansi {
        // Overwritten by the move once it comes (terminals only).
        print!("{} ({side}) is thinking…\r", names[side]);
        let _ = io::stdout().flush();
    }
    let mut info_line = String::new();
    let text = referee::engine_move_keeping_info(
        seat,
        &mut clocks,
        &mut used,
        &game.position_line(),
        &mut game.pos,
        ply,
        Some(&mut info_line),
    )?;
    let elapsed = used[side] - before;
    let clear = if ansi { "\x1b[2K" } else { "" };
    println!(
        "{clear}{} ({side}) plays {text} ({} ms)",
        names[side],
        round_ms(elapsed)
    );
    game.plies.push(Ply {
        text,
        side,
        elapsed,
        info: referee::parse_info(&info_line),
    });
    Ok(())
}

/// What the person's turn came to.
enum Turn {
    /// A legal move, in its canonical text (the position is already past it).
    Moved(String),
    /// `undo` took moves back: the person is to move again.
    Undone,
    /// The person resigned or left.
    Over(End),
}

/// Longest input line taken as a move or command (bytes); moves and commands are far shorter.
const LINE_MAX: usize = 200;

/// One line of the person's input.
enum Line {
    /// Text to parse.
    Text(String),
    /// Not a move or a command, with what to say about it.
    Refused(String),
    /// End of input (or a read error): the person left.
    End,
}

/// Reads a line of input. A line that is not UTF-8, or longer than [`LINE_MAX`], is refused
/// with a short message (not echoed back whole): the input goes on after it.
fn read_line(input: &mut dyn BufRead) -> Line {
    let mut bytes = Vec::new();
    match input.read_until(b'\n', &mut bytes) {
        Ok(0) | Err(_) => return Line::End,
        Ok(_) => {}
    }
    let len = bytes.trim_ascii_end().len();
    if len > LINE_MAX {
        return Line::Refused(format!(
            "a line of {len} bytes is not a move or a command (those are at most {LINE_MAX}): ignored"
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Line::Text(text),
        Err(_) => Line::Refused("that line is not UTF-8 text: ignored".to_owned()),
    }
}

/// Prompts until the person moves, takes moves back, resigns or leaves; answers the other
/// commands and refused moves with the reason.
fn person_turn(
    game: &mut Game,
    names: &BySide<String>,
    human: Side,
    input: &mut dyn BufRead,
    ansi: bool,
    echo: bool,
) -> Turn {
    let ply = game.plies.len() + 1;
    let side = game.pos.side_to_move();
    loop {
        print!("ply {ply}, your move ({side})> ");
        let _ = io::stdout().flush();
        let line = match read_line(input) {
            Line::End => {
                println!();
                return Turn::Over(End::Quit);
            }
            Line::Refused(why) => {
                if echo {
                    println!();
                }
                println!("{why} (`help` lists the commands)");
                continue;
            }
            Line::Text(line) => line,
        };
        // Piped input is not echoed by a terminal: show it, so the transcript reads.
        if echo {
            println!("{}", line.trim_end());
        }
        match Input::parse(&line) {
            Input::Empty => {}
            Input::Quit => return Turn::Over(End::Quit),
            Input::Resign => return Turn::Over(End::Resigned),
            Input::Help => {
                println!("{COMMANDS}");
                println!(
                    "{}",
                    wrap(&format!("Moves: {}", game.pos.move_help()), WIDTH)
                );
            }
            Input::Fen => println!("{}", game.pos.fen()),
            Input::Board => print_status(game, names, human, ansi),
            Input::Moves(prefix) => println!("{}", list_moves(&game.pos, &prefix)),
            Input::Undo => {
                if game.undo(human) {
                    println!("took back your last move and the reply");
                    print_status(game, names, human, ansi);
                    return Turn::Undone;
                }
                println!("nothing to undo: you have not moved yet");
            }
            Input::Move(text) => {
                let mut pos = game.pos.clone();
                match pos.play_text(&text) {
                    Ok(canonical) => {
                        game.pos = pos;
                        return Turn::Moved(canonical);
                    }
                    Err(e) => println!("{e} (`moves` lists the legal moves, `help` explains)"),
                }
            }
        }
    }
}

/// The players, clocks, and board.
fn print_status(game: &Game, names: &BySide<String>, human: Side, ansi: bool) {
    let (clocks, used) = game.clocks();
    let who = |side: Side| {
        let you = if side == human { " (you)" } else { "" };
        let clock = match game.time_control.limit {
            Limit::Clock { .. } => format!(", {} left", seconds(clocks[side].left_ms())),
            _ => String::new(),
        };
        format!(
            "{}{you} {} used{clock}",
            names[side],
            seconds(round_ms(used[side]))
        )
    };
    let last = game.plies.last().map_or_else(String::new, |p| {
        format!(", last move {} by {}", p.text, p.side)
    });
    println!(
        "\n{} {}: first (1) {}; second (2) {}{last}",
        bold("ply", ansi),
        game.plies.len() + 1,
        who(Side::First),
        who(Side::Second),
    );
    print!("{}", game.pos.render(ansi));
}

/// The legal moves starting with `prefix`, each with what it adds to the mover's score when
/// the game keeps one (cells, seeds).
fn list_moves(pos: &AnyPosition, prefix: &str) -> String {
    let side = pos.side_to_move();
    let moves: Vec<String> = pos
        .legal_move_texts()
        .into_iter()
        .filter(|m| m.starts_with(prefix))
        .collect();
    if moves.is_empty() {
        return if prefix.is_empty() {
            "no legal move".to_owned()
        } else {
            format!("no legal move starts with `{prefix}`")
        };
    }
    let before = pos.scores().map(|s| s[side]);
    let shown: Vec<String> = moves
        .iter()
        .take(MOVES_SHOWN)
        .map(|m| match before {
            Some(before) => {
                let mut after = pos.clone();
                let _ = after.play_text(m);
                let gain = after.scores().map_or(0, |s| s[side]).saturating_sub(before);
                format!("{m}(+{gain})")
            }
            None => m.clone(),
        })
        .collect();
    let mut text = format!("{} legal moves: {}", moves.len(), shown.join(" "));
    if before.is_some() {
        text.push_str("\n(+n: what the move adds to your score)");
    }
    if moves.len() > MOVES_SHOWN {
        text.push_str(&format!(
            "\n… and {} more; `moves PREFIX` lists those starting with PREFIX",
            moves.len() - MOVES_SHOWN
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_whole_and_lines_short() {
        let text = "one two three four five six seven eight nine ten";
        let wrapped = wrap(text, 14);
        assert_eq!(
            wrapped,
            "one two three\nfour five six\nseven eight\nnine ten"
        );
        assert_eq!(wrap("a verylongword b", 4), "a\nverylongword\nb");
        assert_eq!(
            wrapped.split_whitespace().collect::<Vec<_>>().join(" "),
            text
        );
    }

    proptest::proptest! {
        #[test]
        fn wrapped_lines_fit_and_keep_every_word(
            words in proptest::collection::vec("[a-z]{1,12}", 0..40),
            width in 8usize..40,
        ) {
            let text = words.join(" ");
            let wrapped = wrap(&text, width);
            for line in wrapped.lines() {
                // A word longer than the width keeps a line of its own.
                proptest::prop_assert!(line.chars().count() <= width || !line.contains(' '));
            }
            proptest::prop_assert_eq!(wrapped.split_whitespace().collect::<Vec<_>>(), words);
        }

        #[test]
        fn undo_returns_to_the_position_before_the_persons_last_move(
            picks in proptest::collection::vec(0usize..64, 0..30),
            human_first in proptest::bool::ANY,
        ) {
            let human = if human_first { Side::First } else { Side::Second };
            let mut game = awale_game(&[]);
            let mut before = Vec::new();
            for pick in picks {
                let moves = game.pos.legal_move_texts();
                if moves.is_empty() {
                    break;
                }
                before.push(game.pos.fen());
                let side = game.pos.side_to_move();
                let text = game.pos.play_text(&moves[pick % moves.len()]).unwrap();
                game.plies.push(Ply {
                    text,
                    side,
                    elapsed: Duration::from_millis(1),
                    info: None,
                });
            }
            let last_human = game.plies.iter().rposition(|p| p.side == human);
            proptest::prop_assert_eq!(game.undo(human), last_human.is_some());
            if let Some(i) = last_human {
                proptest::prop_assert_eq!(game.plies.len(), i);
                proptest::prop_assert_eq!(game.pos.fen(), before[i].clone());
                proptest::prop_assert_eq!(game.pos.side_to_move(), human);
            }
        }
    }

    #[test]
    fn commands_are_recognised_and_everything_else_is_a_move() {
        assert_eq!(Input::parse("  \n"), Input::Empty);
        assert_eq!(Input::parse("UNDO\n"), Input::Undo);
        assert_eq!(Input::parse("moves 93-"), Input::Moves("93-".into()));
        assert_eq!(Input::parse("moves"), Input::Moves(String::new()));
        assert_eq!(Input::parse("quit"), Input::Quit);
        assert_eq!(Input::parse("?"), Input::Help);
        assert_eq!(Input::parse("93-33-93\n"), Input::Move("93-33-93".into()));
        assert_eq!(Input::parse("C"), Input::Move("C".into()));
        // A command with trailing words is not that command: the rules get to say why.
        assert_eq!(Input::parse("undo 3"), Input::Move("undo 3".into()));
    }

    fn awale_game(moves: &[&str]) -> Game {
        let start =
            AnyPosition::from_fen(GameKind::Awale, "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture")
                .unwrap();
        let mut game = Game {
            pos: start.clone(),
            start,
            plies: Vec::new(),
            time_control: TimeControl {
                limit: Limit::Clock {
                    base: 1000,
                    increment: 100,
                },
                margin_ms: 0,
                move_timeout_ms: 1,
            },
        };
        for (i, m) in moves.iter().enumerate() {
            let side = game.pos.side_to_move();
            game.pos.play_text(m).unwrap();
            game.plies.push(Ply {
                text: (*m).to_owned(),
                side,
                elapsed: Duration::from_millis(300 * (i as u64 + 1)),
                info: None,
            });
        }
        game
    }

    #[test]
    fn undo_takes_back_the_persons_move_and_the_reply() {
        let mut game = awale_game(&["3", "4", "1", "2"]);
        assert!(game.undo(Side::First));
        assert_eq!(game.plies.len(), 2);
        assert_eq!(game.pos.fen(), "5,5,0,5,5,5/5,4,4,0,5,5 0,0 1 no_capture");
        assert!(game.undo(Side::First));
        assert!(game.plies.is_empty());
        assert_eq!(game.pos.fen(), game.start.fen());
        assert!(!game.undo(Side::First));
        // The second player, after the engine's first move only, has nothing to undo.
        let mut game = awale_game(&["3"]);
        assert!(!game.undo(Side::Second));
        assert_eq!(game.plies.len(), 1);
    }

    #[test]
    fn records_follow_the_referees_rules() {
        let names = BySide::new("ada".to_owned(), "bot".to_owned());
        let game = awale_game(&["3", "4", "1"]);
        let resigned = game_record(&game, End::Resigned, Side::Second, &names).unwrap();
        assert_eq!(resigned.result, "1-0");
        assert_eq!(resigned.termination, Termination::Resign);
        assert_eq!(resigned.detail, "bot (second) resigned at ply 4");
        assert_eq!((resigned.plies, resigned.moves.as_str()), (3, "3 4 1"));
        assert_eq!(
            (resigned.first_time_ms, resigned.second_time_ms),
            (1200, 600)
        );
        let fault = Fault {
            side: Side::First,
            termination: Termination::TimeForfeit,
            detail: "late".into(),
            restart: false,
        };
        let forfeit = game_record(&game, End::Engine(fault), Side::Second, &names).unwrap();
        assert_eq!(
            (forfeit.result.as_str(), forfeit.detail.as_str()),
            ("0-1", "late")
        );
        // At the ply cap each row's seeds go to its owner: 25 on the first row, 23 on the second.
        let capped = game_record(
            &game,
            End::Rules(Termination::MaxPlies),
            Side::First,
            &names,
        );
        let capped = capped.unwrap();
        assert_eq!(capped.result, "1-0");
        assert_eq!(
            (capped.score_first, capped.score_second),
            (Some(25), Some(23))
        );
        assert!(game_record(&game, End::Quit, Side::First, &names).is_none());
    }

    #[test]
    fn clocks_charge_each_side_and_add_the_increment() {
        let game = awale_game(&["3", "4", "1"]);
        let (clocks, used) = game.clocks();
        assert_eq!(used.map(round_ms), BySide::new(300 + 900, 600));
        // First: 1000 − 300 + 100 = 800, then 800 − 900 stops at 0, + 100.
        assert_eq!(
            clocks.map(|c| c.left_ms()),
            BySide::new(100, 1000 - 600 + 100)
        );
    }

    #[test]
    fn listed_moves_carry_their_gain_and_filter_by_prefix() {
        let pos =
            AnyPosition::from_fen(GameKind::Awale, "0,0,0,0,2,3/1,2,1,5,0,0 0,0 1 no_capture")
                .unwrap();
        let text = list_moves(&pos, "");
        assert!(text.starts_with("2 legal moves: 5(+2) 6(+7)"), "{text}");
        assert_eq!(list_moves(&pos, "1"), "no legal move starts with `1`");
    }
}
