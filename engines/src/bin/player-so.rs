//! `player-so`: runs one course Amazons player library (the course's `player.h`:
//! `get_player_name`, `initialize`, `play`, `finalize`) as a UGI engine that plays `amazons`
//! only. arena starts it for config entries `{ name, library, directions }` (see
//! `arena::player_library` and `docs/course-players.md`); it owns the library's process and
//! nothing else: no rules beyond reading position texts, no clock.
//!
//! Usage: `player-so --library <path.so> --directions clockwise|west3 [--name <name>]
//! [--check]`; `--check` only loads GSL and the library, and exits 0 when both load.
//!
//! What real player libraries need, and where it is done here:
//! - the protocol runs on private duplicates of stdin and stdout at descriptor 100 or above;
//!   fd 1 points at stderr, fd 0 at /dev/null and every other descriptor is closed before the
//!   library is loaded, so its prints, reads and writes to descriptors 3–9 cannot touch the
//!   protocol ([`isolate_stdio`]);
//! - GSL is loaded at run time with `RTLD_GLOBAL` (cblas first), the player with `RTLD_LAZY`
//!   ([`Gsl::load`], [`Player::load`]);
//! - `get_player_name` is called only after the first `initialize`, and only logged;
//! - `srand`/`srandom` get the `Seed` option before each `initialize`;
//! - the player cannot be rewound, so each `position` must extend the game it knows by the
//!   opponent's move; player 0 is the side to move in the game's start position (after any
//!   random opening plies, whose arrows become vertices without edges) ([`Game`]).
//!
//! Exit status 1 (with the reason on stderr, which arena logs) when the library or GSL cannot
//! be loaded; 2 on bad arguments.

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use arena::games::{Amazons, Game as _, GameKind, Side};
use arena::player_library::Directions;
use arena::protocol::{self, BestMove, Command, Info, OptionDecl, Reply};
use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_LAZY, RTLD_NOW, Symbol};
use nix::libc;

/// `struct graph_t` of the course's `graph.h`.
#[repr(C)]
struct GraphT {
    num_vertices: c_uint,
    t: *mut c_void,
}

/// `struct move_t` of the course's `move.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct MoveT {
    queen_src: c_uint,
    queen_dst: c_uint,
    arrow_dst: c_uint,
}

/// The `previous_move` of the first `play` of the player that moves first.
const NO_MOVE: MoveT = MoveT {
    queen_src: c_uint::MAX,
    queen_dst: c_uint::MAX,
    arrow_dst: c_uint::MAX,
};

/// `GSL_SPMATRIX_CSR` of `gsl_spmatrix.h` (GSL ≥ 2.6).
const GSL_SPMATRIX_CSR: c_int = 2;

/// Sonames tried for GSL, newest first; cblas is loaded first since libgsl needs its symbols.
const CBLAS_NAMES: [&str; 2] = ["libgslcblas.so.0", "libgslcblas.so"];
const GSL_NAMES: [&str; 5] = [
    "libgsl.so.28",
    "libgsl.so.27",
    "libgsl.so.25",
    "libgsl.so.23",
    "libgsl.so",
];

type SpAlloc = unsafe extern "C" fn(usize, usize) -> *mut c_void;
type SpSet = unsafe extern "C" fn(*mut c_void, usize, usize, c_uint) -> c_int;
type SpCompress = unsafe extern "C" fn(*const c_void, c_int) -> *mut c_void;
type SpFree = unsafe extern "C" fn(*mut c_void);

/// The four GSL functions the adapter needs to build a graph; the libraries stay loaded (and
/// global) for the whole process, for the player too.
struct Gsl {
    alloc: Symbol<SpAlloc>,
    set: Symbol<SpSet>,
    compress: Symbol<SpCompress>,
    free: Symbol<SpFree>,
    _libs: Vec<Library>,
}

impl Gsl {
    fn load() -> Result<Gsl, String> {
        let mut libs = Vec::new();
        // SAFETY: loading the system's GSL runs only its (trusted) initialisers.
        let open = |name: &str| unsafe { Library::open(Some(name), RTLD_NOW | RTLD_GLOBAL) };
        if let Some(cblas) = CBLAS_NAMES.iter().find_map(|n| open(n).ok()) {
            libs.push(cblas);
        }
        let mut errors = Vec::new();
        let gsl = GSL_NAMES
            .iter()
            .find_map(|n| open(n).map_err(|e| errors.push(format!("{n}: {e}"))).ok());
        let Some(gsl) = gsl else {
            return Err(format!(
                "cannot load GSL, which course players use for their graph (tried {}); install \
                 Debian's libgsl27 (or libgsl-dev), or your system's GSL >= 2.6",
                errors.join("; ")
            ));
        };
        fn get<T>(gsl: &Library, name: &str) -> Result<Symbol<T>, String> {
            // SAFETY: each caller names a function of gsl_spmatrix_uint.h with its C type.
            unsafe { gsl.get::<T>(format!("{name}\0").as_bytes()) }
                .map_err(|e| format!("GSL has no {name} (GSL >= 2.6 is needed): {e}"))
        }
        let loaded = Gsl {
            alloc: get(&gsl, "gsl_spmatrix_uint_alloc")?,
            set: get(&gsl, "gsl_spmatrix_uint_set")?,
            compress: get(&gsl, "gsl_spmatrix_uint_compress")?,
            free: get(&gsl, "gsl_spmatrix_uint_free")?,
            _libs: Vec::new(),
        };
        libs.push(gsl);
        Ok(Gsl {
            _libs: libs,
            ..loaded
        })
    }

    /// The board of `pos` as the course's graph, heap-allocated for the player (which frees it):
    /// an n×n CSR matrix, n = width², `t[i][j]` the direction code of the step i→j between
    /// 8-neighbours that are both vertices without hole or arrow, 0 elsewhere.
    fn graph(&self, pos: &Amazons, directions: Directions) -> Result<*mut GraphT, String> {
        let n = pos.grid_len();
        let blocked = |v: usize| {
            pos.is_hole(v)
                || (!pos.is_empty(v)
                    && !Side::BOTH
                        .iter()
                        .any(|&s| pos.queens(s).contains(&(v as u16))))
        };
        // SAFETY: GSL calls with valid sizes and indices below n; the COO matrix is freed once
        // compressed; the graph struct is malloc'd so that the player may free() it.
        unsafe {
            let coo = (self.alloc)(n, n);
            if coo.is_null() {
                return Err("gsl_spmatrix_uint_alloc failed".into());
            }
            for v in (0..n).filter(|&v| !blocked(v)) {
                for dir in 0..8 {
                    if let Some(u) = pos.neighbour(v, dir).filter(|&u| !blocked(u)) {
                        (self.set)(coo, v, u, directions.code(dir));
                    }
                }
            }
            let csr = (self.compress)(coo, GSL_SPMATRIX_CSR);
            (self.free)(coo);
            if csr.is_null() {
                return Err("gsl_spmatrix_uint_compress failed".into());
            }
            let graph = libc::malloc(std::mem::size_of::<GraphT>()).cast::<GraphT>();
            if graph.is_null() {
                return Err("out of memory".into());
            }
            graph.write(GraphT {
                num_vertices: n as c_uint,
                t: csr,
            });
            Ok(graph)
        }
    }
}

type GetName = unsafe extern "C" fn() -> *const c_char;
type Initialize = unsafe extern "C" fn(c_uint, *mut GraphT, c_uint, *mut *mut c_uint);
type Play = unsafe extern "C" fn(MoveT) -> MoveT;
type Finalize = unsafe extern "C" fn();

/// The player library's four entry points.
struct Player {
    get_player_name: Symbol<GetName>,
    initialize: Symbol<Initialize>,
    play: Symbol<Play>,
    finalize: Symbol<Finalize>,
    _lib: Library,
}

impl Player {
    fn load(path: &Path) -> Result<Player, String> {
        // SAFETY: running a player's initialisers is the point; lazy binding as course servers
        // do, so an unused unresolved symbol does not stop it.
        let lib = unsafe { Library::open(Some(path), RTLD_LAZY) }
            .map_err(|e| format!("cannot load the player library {}: {e}", path.display()))?;
        // SAFETY: the types are those of the course's player.h.
        unsafe {
            let missing = |name: &str, e: libloading::Error| {
                format!("{} has no `{name}` (player.h): {e}", path.display())
            };
            let get_player_name = lib
                .get::<GetName>(b"get_player_name\0")
                .map_err(|e| missing("get_player_name", e))?;
            let initialize = lib
                .get::<Initialize>(b"initialize\0")
                .map_err(|e| missing("initialize", e))?;
            let play = lib.get::<Play>(b"play\0").map_err(|e| missing("play", e))?;
            let finalize = lib
                .get::<Finalize>(b"finalize\0")
                .map_err(|e| missing("finalize", e))?;
            Ok(Player {
                get_player_name,
                initialize,
                play,
                finalize,
                _lib: lib,
            })
        }
    }
}

/// The game the player is in: the start position it was initialised with and every move it
/// has seen or played since, as move texts.
struct Game {
    start_fen: String,
    known: Vec<String>,
}

/// The lowest descriptor of the protocol's private copies: far above the 3–9 a library may
/// write to by habit (or through a descriptor it inherited).
const PRIVATE_FD_MIN: RawFd = 100;

/// A private copy of fd 0 and fd 1 for the protocol, at [`PRIVATE_FD_MIN`] or above; then fd 1
/// → stderr, fd 0 → /dev/null, and every other descriptor above 2 closed, so that the
/// library's `printf`, `scanf` and writes to inherited descriptors all miss the protocol.
fn isolate_stdio() -> std::io::Result<(File, File)> {
    let private = |fd: RawFd| -> std::io::Result<OwnedFd> {
        use nix::fcntl::{FcntlArg, fcntl};
        // SAFETY: `fd` is 0 or 1, open for the whole process.
        let source = unsafe { BorrowedFd::borrow_raw(fd) };
        // Under a descriptor limit below PRIVATE_FD_MIN, the lowest free one.
        let copy = fcntl(source, FcntlArg::F_DUPFD_CLOEXEC(PRIVATE_FD_MIN))
            .or_else(|_| fcntl(source, FcntlArg::F_DUPFD_CLOEXEC(3)))?;
        // SAFETY: the new descriptor belongs to nothing else; it is owned from here.
        Ok(unsafe { OwnedFd::from_raw_fd(copy) })
    };
    let input = private(0)?;
    let output = private(1)?;
    let null = File::open("/dev/null")?;
    // SAFETY: dup2 onto the process's own fds 0 and 1, which Rust's std keeps no other handle of.
    unsafe {
        if libc::dup2(null.as_raw_fd(), 0) < 0 || libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    drop(null);
    close_others(&[input.as_raw_fd(), output.as_raw_fd()])?;
    Ok((File::from(input), File::from(output)))
}

/// Closes every descriptor above 2 but `keep` (listed from /proc/self/fd first: closing while
/// reading the directory would close its own descriptor).
fn close_others(keep: &[RawFd]) -> std::io::Result<()> {
    let open: Vec<RawFd> = std::fs::read_dir("/proc/self/fd")?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    for fd in open.into_iter().filter(|fd| *fd > 2 && !keep.contains(fd)) {
        // SAFETY: nothing in this process uses these descriptors: they were inherited, or were
        // the directory listing's own (already closed: EBADF is ignored).
        unsafe { libc::close(fd) };
    }
    Ok(())
}

/// The protocol output, shared with the input thread (which answers `isready` during `play`).
#[derive(Clone)]
struct Out(Arc<Mutex<File>>);

impl Out {
    fn send(&self, reply: &Reply) {
        let mut out = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // A closed output means arena is gone; the end of the input ends the loop.
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }

    fn info(&self, text: &str) {
        eprintln!("player-so: {text}");
        self.send(&Reply::Info(Info {
            string: Some(text.to_owned()),
            ..Info::default()
        }));
    }
}

struct Args {
    library: PathBuf,
    directions: Directions,
    name: Option<String>,
    /// Load GSL and the library, then exit 0: a load test by hand.
    check: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let (mut library, mut directions, mut name, mut check) = (None, None, None, false);
    while let Some(flag) = args.next() {
        if flag == "--check" {
            check = true;
            continue;
        }
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--library" => library = Some(PathBuf::from(value()?)),
            "--directions" => directions = Some(value()?.parse::<Directions>()?),
            "--name" => name = Some(value()?),
            _ => return Err(format!("unknown argument `{flag}`")),
        }
    }
    Ok(Args {
        library: library.ok_or("--library is required")?,
        directions: directions.ok_or("--directions is required (clockwise or west3)")?,
        name,
        check,
    })
}

fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(e) => {
            eprintln!(
                "player-so: {e}\nusage: player-so --library <path.so> --directions clockwise|west3 [--name <name>] [--check]"
            );
            std::process::exit(2);
        }
    };
    let loaded = isolate_stdio()
        .map_err(|e| format!("cannot set up stdin/stdout: {e}"))
        .and_then(|io| Ok((io, Gsl::load()?, Player::load(&args.library)?)));
    let ((input, output), gsl, player) = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("player-so: {e}");
            std::process::exit(1);
        }
    };
    if args.check {
        // SAFETY: as below; the library's exit handlers are not run.
        unsafe { libc::_exit(0) }
    }
    run(
        &args,
        input,
        Out(Arc::new(Mutex::new(output))),
        &gsl,
        &player,
    );
    // Not a normal return: the player's atexit handlers and static destructors may be as
    // fragile as its `finalize`, and everything the protocol needs is flushed.
    // SAFETY: _exit ends the process at once, which is all that is left to do.
    unsafe { libc::_exit(0) }
}

unsafe extern "C" {
    /// The C library's `srandom` (POSIX), which the `libc` crate does not bind on every target.
    fn srandom(seed: c_uint);
}

/// Folds the 64-bit `Seed` option into the `unsigned int` of `srand`.
fn seed32(seed: u64) -> c_uint {
    (seed ^ (seed >> 32)) as c_uint
}

/// Runs the protocol until `quit` or the end of the input: a short sequence of named steps,
/// the input read by its own thread ([`spawn_input`]), each command handled by [`Session`].
fn run(args: &Args, input: File, out: Out, gsl: &Gsl, player: &Player) {
    let playing = Arc::new(AtomicBool::new(false));
    let lines = spawn_input(input, out.clone(), Arc::clone(&playing));
    let mut session = Session {
        args,
        out,
        gsl,
        player,
        playing,
        name: args.name.clone().unwrap_or_else(|| {
            args.library
                .file_stem()
                .map_or("player".into(), |s| s.to_string_lossy().into_owned())
        }),
        seed: 0,
        position: None,
        game: None,
        named: false,
    };
    for line in lines {
        match Command::parse(&line) {
            Ok(command) => {
                if !session.handle(command) {
                    break;
                }
            }
            Err(e) => session.out.info(&e.to_string()),
        }
    }
}

/// Reads the protocol input on its own thread and passes lines on; while the player is in
/// `play` (`playing`), it answers `isready` itself, ignores `stop` (arena's clock applies from
/// outside) and ends the process on `quit`. The end of the input becomes `quit`.
fn spawn_input(input: File, out: Out, playing: Arc<AtomicBool>) -> mpsc::Receiver<String> {
    let (lines_tx, lines) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(input).lines() {
            let Ok(line) = line else { break };
            if playing.load(Ordering::SeqCst) {
                match line.split_whitespace().next() {
                    Some("isready") => {
                        out.send(&Reply::ReadyOk);
                        continue;
                    }
                    Some("stop") => continue,
                    // SAFETY: ends the process while the player runs; nothing to keep.
                    Some("quit") => unsafe { libc::_exit(0) },
                    _ => {}
                }
            }
            if lines_tx.send(line).is_err() {
                return;
            }
        }
        let _ = lines_tx.send("quit".to_owned());
    });
    lines
}

/// The protocol state of one adapter process.
struct Session<'a> {
    args: &'a Args,
    out: Out,
    gsl: &'a Gsl,
    player: &'a Player,
    /// Set while the player is in `play`, for the input thread.
    playing: Arc<AtomicBool>,
    /// The `id name` sent.
    name: String,
    /// The `Seed` option, given to `srand` before each `initialize`.
    seed: u64,
    /// The last `position`: start text and moves.
    position: Option<(String, Vec<String>)>,
    /// The game the player is in, if initialised.
    game: Option<Game>,
    /// Whether the library's own name was logged.
    named: bool,
}

impl Session<'_> {
    /// Handles one command; `false` once the session ends (`quit`).
    fn handle(&mut self, command: Command) -> bool {
        match command {
            Command::Ugi => self.identify(),
            Command::SetOption { name, value } => self.set_option(&name, &value),
            Command::NewGame => {
                self.finalize();
                self.position = None;
            }
            Command::Position { fen, moves } => self.position = Some((fen, moves)),
            Command::Go(_) => {
                let best = self.best_move();
                self.out.send(&Reply::BestMove(
                    best.map_or(BestMove::Resign, BestMove::Move),
                ));
            }
            Command::IsReady => self.out.send(&Reply::ReadyOk),
            Command::Quit => {
                self.finalize();
                return false;
            }
            Command::Stop | Command::Unknown(_) => {}
        }
        true
    }

    /// The answer to `ugi`: names, `UGI_Variant` (amazons only), `Seed`, `ugiok`.
    fn identify(&self) {
        let out = &self.out;
        out.send(&Reply::Id {
            field: "name".into(),
            value: self.name.clone(),
        });
        out.send(&Reply::Id {
            field: "author".into(),
            value: format!("player library {}", self.args.library.display()),
        });
        out.send(&Reply::Option(OptionDecl {
            name: protocol::VARIANT_OPTION.into(),
            kind: "combo".into(),
            default: Some(GameKind::Amazons.name().into()),
            vars: vec![GameKind::Amazons.name().into()],
            ..OptionDecl::default()
        }));
        out.send(&Reply::Option(OptionDecl::seed()));
        out.send(&Reply::UgiOk);
    }

    /// `Seed` is kept for `srand`; `UGI_Variant` must be amazons; others are reported.
    fn set_option(&mut self, name: &str, value: &str) {
        if name.eq_ignore_ascii_case(protocol::SEED_OPTION) {
            match value.parse() {
                Ok(v) => self.seed = v,
                Err(_) => self.out.info(&format!("seed `{value}` is not a number")),
            }
        } else if name.eq_ignore_ascii_case(protocol::VARIANT_OPTION) {
            if value != GameKind::Amazons.name() {
                self.out
                    .info(&format!("a player library plays amazons only, not {value}"));
            }
        } else {
            self.out.info(&format!("unknown option `{name}`"));
        }
    }

    /// The player's move in the last position ([`choose`]), and after its first `initialize`
    /// the name the library gives itself (logged only).
    fn best_move(&mut self) -> Option<String> {
        let Some((fen, moves)) = &self.position else {
            self.out.info("go without a position");
            return None;
        };
        self.playing.store(true, Ordering::SeqCst);
        let best = choose(
            self.player,
            self.gsl,
            self.args.directions,
            self.seed,
            &mut self.game,
            fen,
            moves,
            &self.out,
        );
        self.playing.store(false, Ordering::SeqCst);
        if !self.named && self.game.is_some() {
            self.named = true;
            // SAFETY: called only after `initialize`, as course servers do.
            let own = unsafe { (self.player.get_player_name)() };
            let own = if own.is_null() {
                "(NULL)".into()
            } else {
                // SAFETY: a non-null name is a C string owned by the player.
                unsafe { CStr::from_ptr(own) }
                    .to_string_lossy()
                    .into_owned()
            };
            self.out.info(&format!("the library calls itself `{own}`"));
        }
        best
    }

    /// Ends the player's game, if it is in one.
    fn finalize(&mut self) {
        if self.game.take().is_some() {
            // SAFETY: the player was initialised and not yet finalised.
            unsafe { (self.player.finalize)() };
        }
    }
}

/// Brings the player to `fen` + `moves` and asks it for a move: initialises it at the first
/// `go` of a game, then feeds it the opponent's last move. `None` (resign, with the reason
/// sent as `info string`) when the position cannot be reached without rewinding the player.
#[allow(clippy::too_many_arguments)]
fn choose(
    player: &Player,
    gsl: &Gsl,
    directions: Directions,
    seed: u64,
    game: &mut Option<Game>,
    fen: &str,
    moves: &[String],
    out: &Out,
) -> Option<String> {
    if game.as_ref().is_some_and(|g| g.start_fen != fen) {
        out.info("a new start position without uginewgame: finalizing the old game");
        // SAFETY: the player was initialised and not yet finalised.
        unsafe { (player.finalize)() };
        *game = None;
    }
    if game.is_none() {
        let start = match Amazons::from_fen(fen) {
            Ok(pos) => pos,
            Err(e) => {
                out.info(&e.to_string());
                return None;
            }
        };
        // Player 0 moves first from the start position as given (after any random opening);
        // the adapter's side is the side to move now.
        let first = start.side_to_move();
        let player_id: c_uint = if moves.len() % 2 == 0 { 0 } else { 1 };
        let sides = [first, first.other()];
        let num_queens = start.queens(first).len();
        if start.queens(first.other()).len() != num_queens {
            out.info("the two sides have different queen counts; player.h cannot say so");
            return None;
        }
        let graph = match gsl.graph(&start, directions) {
            Ok(graph) => graph,
            Err(e) => {
                out.info(&e);
                return None;
            }
        };
        // SAFETY: malloc'd arrays of num_queens vertex ids, handed over to the player (which
        // frees them), as player.h specifies; srand/srandom before initialize.
        unsafe {
            let mut queens: [*mut c_uint; 2] = [std::ptr::null_mut(); 2];
            for (slot, side) in queens.iter_mut().zip(sides) {
                let array = libc::malloc(num_queens.max(1) * std::mem::size_of::<c_uint>())
                    .cast::<c_uint>();
                if array.is_null() {
                    out.info("out of memory");
                    return None;
                }
                for (i, &q) in start.queens(side).iter().enumerate() {
                    array.add(i).write(c_uint::from(q));
                }
                *slot = array;
            }
            libc::srand(seed32(seed));
            srandom(seed32(seed));
            (player.initialize)(player_id, graph, num_queens as c_uint, queens.as_mut_ptr());
        }
        *game = Some(Game {
            start_fen: fen.to_owned(),
            known: Vec::new(),
        });
    }
    let g = game.as_mut()?;
    let known = g.known.len();
    let new = match moves.get(known..) {
        Some(new) if moves[..known] == g.known[..] => new,
        _ => &[][..],
    };
    let previous = match new {
        // The first `play` of player 0.
        [] if known == 0 && moves.is_empty() => NO_MOVE,
        [last] => match parse_move(last) {
            Some(mv) => mv,
            None => {
                out.info(&format!("cannot read the move `{last}`"));
                return None;
            }
        },
        _ => {
            out.info(&format!(
                "the position does not extend the game the player knows ({known} moves) by one \
                 move, and a player library cannot be rewound"
            ));
            return None;
        }
    };
    // SAFETY: the player is initialised; play gets the opponent's move or NO_MOVE.
    let mv = unsafe { (player.play)(previous) };
    let text = format!("{}-{}-{}", mv.queen_src, mv.queen_dst, mv.arrow_dst);
    g.known = moves.to_vec();
    g.known.push(text.clone());
    Some(text)
}

/// `src-dst-arrow` → `move_t`.
fn parse_move(text: &str) -> Option<MoveT> {
    let mut parts = text.split('-').map(|p| p.parse::<c_uint>().ok());
    let mv = MoveT {
        queen_src: parts.next()??,
        queen_dst: parts.next()??,
        arrow_dst: parts.next()??,
    };
    parts.next().is_none().then_some(mv)
}
