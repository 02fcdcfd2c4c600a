//! Command-line arguments (clap, derive). Syntax only: no files, no processes.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// arena: tournaments between board-game engines, with Elo ratings and confidence intervals.
#[derive(Debug, Parser)]
#[command(name = "arena", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Commands,
}

/// The subcommands. Each takes negative numbers as values (`--max-score -10`,
/// `--elo0 -5`), so that a value out of range gets its range error rather than clap's
/// "unexpected argument".
#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Plays a tournament and writes games.csv, ratings.csv, pairs.csv and results.pgn.
    #[command(
        after_help = "Example:\n  arena run configs/round_robin.yaml --concurrency 2\n\n\
        Running again on the same output directory resumes: only missing games are played.\n\
        Exit codes: 0 done, 1 could not complete, 2 bad usage or config, 130 interrupted."
    )]
    #[command(allow_negative_numbers = true)]
    Run(RunArgs),
    /// Validates a config, starts every engine once for the handshake, and prints who plays
    /// which board and how many games the run will have. Plays nothing.
    #[command(after_help = "Example:\n  arena check configs/round_robin.yaml")]
    #[command(allow_negative_numbers = true)]
    Check(CheckArgs),
    /// Computes ratings.csv, pairs.csv and results.pgn from a games.csv, a minimal CSV or a PGN
    /// (arena's, cutechess-cli's, fastchess's).
    #[command(
        after_help = "Examples:\n  arena ratings results/round_robin/games.csv --output rerated --anchor greedy=1500\n  \
        arena ratings cutechess.pgn --pairs consecutive --output cc"
    )]
    #[command(allow_negative_numbers = true)]
    Ratings(RatingsArgs),
    /// Prints a board: a generated start position or a position text, after optional moves.
    #[command(
        after_help = "Examples:\n  arena show --board '{game: seven_colors, size: 12, layout: diagonal}' --seed 3\n  \
        arena show --game awale --fen '4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture' --moves '3 4'"
    )]
    #[command(allow_negative_numbers = true)]
    Show(ShowArgs),
    /// Plays a game against an engine at the terminal, then appends it to a games.csv.
    #[command(after_help = "Examples:\n  \
        arena play --board '{game: awale, pits: 6}' --engine target/release/alphabeta\n  \
        arena play --config configs/round_robin.yaml --engine-name greedy --human second\n\n\
        At the prompt: a move, `moves [PREFIX]`, `undo`, `board`, `fen`, `help`, `resign`, `quit`.\n\
        Exit codes: 0 done (also after `quit`), 1 the engine could not start, 2 bad usage, \
        130 interrupted.")]
    #[command(allow_negative_numbers = true)]
    Play(PlayArgs),
    /// Steps through a recorded game of a games.csv, drawing the board after each ply.
    #[command(after_help = "Examples:\n  arena replay results/play/games.csv\n  \
        arena replay results/round_robin/games.csv --game 12 --all\n\n\
        At the prompt: Enter next ply, `b` back, a ply number to jump, `q` quit.")]
    #[command(allow_negative_numbers = true)]
    Replay(ReplayArgs),
    /// Rebuilds report.html and results.xlsx of an output directory from its games.csv (and
    /// config.resolved.yaml, moves.csv, sprt.csv when present).
    #[command(
        after_help = "Examples:\n  arena report results/round_robin\n  arena report results/round_robin --games all"
    )]
    #[command(allow_negative_numbers = true)]
    Report(ReportArgs),
    /// Serves the live page of an output directory (standings, games in progress, SPRT) until
    /// Ctrl-C, reading its files as they grow: a run in another process, a shard, a finished run.
    #[command(
        after_help = "Examples:\n  arena serve results/round_robin\n  arena serve results/class --serve 0.0.0.0:8080\n\n\
        The page is at http://ADDR/; JSON at /api/standings, /api/games/live, /api/games/ID (docs/live.md)."
    )]
    Serve(ServeArgs),
    /// The SPRT calculator: the LLR, Wald's bounds and the decision for given results of A
    /// against B.
    #[command(
        after_help = "Examples:\n  arena sprt --elo0 0 --elo1 2 --penta 365,16618,36229,16974,390\n  \
        arena sprt --elo0 0 --elo1 2 --model bayesian --wdl 68965,128429,68526\n\n\
        --penta counts game pairs in which A scored 0, 1/2, 1, 3/2 and 2 points (LL, LD, WL+DD, \
        WD, WW); --wdl A's wins, draws and losses over single games. With both, the LLR is on \
        the pairs and the draws give the bayesian model's draw elo.\n\
        Exit codes: 0 done, 2 bad usage."
    )]
    #[command(allow_negative_numbers = true)]
    Sprt(SprtArgs),
    /// Runs a conformance battery against an engine (or every engine of a config) before a
    /// tournament: handshake, isready, time limits, stop, positions of every board type,
    /// robustness, determinism.
    #[command(
        after_help = "Examples:\n  arena check-engine -- target/release/alphabeta\n  \
        arena check-engine --quick -- python3 engines/python/random_engine.py\n  \
        arena check-engine --config class.yaml --all --output checks\n\n\
        Exit codes: 0 no check failed (warnings allowed), 1 a check failed, 2 bad usage."
    )]
    #[command(allow_negative_numbers = true)]
    CheckEngine(CheckEngineArgs),
    /// Joins the output directories of a tournament's shards (`arena run --shard K/N`) into
    /// the files a single run writes, after checking they are one tournament with no game
    /// duplicated or missing.
    #[command(
        after_help = "Example:\n  arena merge results/class/shard-0 results/class/shard-1 results/class/shard-2 --output results/class/merged\n\n\
        Exit codes: 0 done, 1 shards of different configs, duplicated or missing games (the shards \
        to re-run are named), 2 bad usage."
    )]
    #[command(allow_negative_numbers = true)]
    Merge(MergeArgs),
    /// Writes Slurm batch scripts that play a tournament as a job array (one task per shard)
    /// and merge the shards afterwards; with --submit, submits them.
    #[command(
        after_help = "Example:\n  arena slurm configs/class.yaml --shards 8 --cpus-per-task 4 --time 02:00:00 --submit\n\n\
        Writes OUTPUT/slurm/shards.sbatch and merge.sbatch; shards go to OUTPUT/shard-K, the merge \
        to OUTPUT/merged. See docs/cluster.md.\n\
        Exit codes: 0 done, 1 sbatch failed, 2 bad usage or config."
    )]
    #[command(allow_negative_numbers = true)]
    Slurm(SlurmArgs),
    /// Writes an opening suite: distinct positions reached by random plies from a board's
    /// start, optionally only those an engine of a config scores close to even.
    #[command(after_help = "Examples:\n  \
        arena openings --board '{game: awale, pits: 10}' --plies 6 --count 500 --seed 1 --output openings/awale10.txt\n  \
        arena openings --board '{game: awale, pits: 6}' --plies 4 --count 100 --config configs/smoke.yaml \
        --engine alphabeta --max-score 100 --movetime 50\n\n\
        Use the file in a config: boards: [{ game: awale, pits: 10, openings: { file: openings/awale10.txt } }].\n\
        Exit codes: 0 done, 1 could not complete (too few distinct positions, an engine failed), 2 bad usage.")]
    #[command(allow_negative_numbers = true)]
    Openings(OpeningsArgs),
}

/// Arguments of `arena merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' output directories.
    #[arg(required = true, value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
    /// Directory for the merged files.
    #[arg(long, short)]
    pub output: PathBuf,
    /// Replace results in the output directory that no `arena merge` wrote.
    #[arg(long)]
    pub force: bool,
    /// No summary.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Arguments of `arena slurm`.
#[derive(Debug, Args)]
pub struct SlurmArgs {
    /// The tournament config (YAML).
    pub config: PathBuf,
    /// Number of shards: array tasks `0..N-1`.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub shards: u32,
    /// Slurm partition of the jobs (default: the cluster's).
    #[arg(long)]
    pub partition: Option<String>,
    /// Time limit of each task and of the merge, `HH:MM:SS` (default: the partition's).
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs of each task, and its games at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub cpus_per_task: u32,
    /// Output directory, overriding the config's (shards in OUTPUT/shard-K, merge in
    /// OUTPUT/merged, scripts and logs in OUTPUT/slurm).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Master seed, overriding the config's (default: the config's, else drawn now, so every
    /// shard uses the same).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Submit the array and the merge with sbatch.
    #[arg(long)]
    pub submit: bool,
}

/// Arguments of `arena openings`.
#[derive(Debug, Args)]
pub struct OpeningsArgs {
    /// The board, in YAML as in a config's `boards:` list (without `openings` or
    /// `random_opening_plies`).
    #[arg(long)]
    pub board: String,
    /// Random plies played from the start position.
    #[arg(long)]
    pub plies: u32,
    /// Openings to write.
    #[arg(long)]
    pub count: usize,
    /// Seed of every draw (default: drawn, and written in the file's header).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Config whose engine scores the candidates (with --engine and --max-score).
    #[arg(long, requires_all = ["engine", "max_score"])]
    pub config: Option<PathBuf>,
    /// Name of the engine of --config that scores each candidate.
    #[arg(long, requires = "config")]
    pub engine: Option<String>,
    /// Keep only candidates the engine scores within ±this many centipawns.
    #[arg(long, requires = "config")]
    pub max_score: Option<i64>,
    /// Search each candidate this long (ms) instead of the engine's time control.
    #[arg(long, requires = "config", conflicts_with = "depth")]
    pub movetime: Option<u64>,
    /// Search each candidate to this depth (plies) instead of the engine's time control.
    #[arg(long, requires = "config")]
    pub depth: Option<u32>,
    /// The suite file to write (default: stdout).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Arguments of `arena sprt`.
#[derive(Debug, Args)]
pub struct SprtArgs {
    /// Elo of H0 (A over B, in the model's units).
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: f64,
    /// Elo of H1 (above elo0).
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: f64,
    /// `normalized` (nElo), `logistic` or `bayesian` (BayesElo).
    #[arg(long, default_value = "normalized")]
    pub model: String,
    /// Type I error, in (0, 0.5).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Type II error, in (0, 0.5).
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// Pentanomial counts `LL,LD,WL+DD,WD,WW` (A's game pairs scoring 0 … 2 points).
    #[arg(long, value_name = "LL,LD,WL+DD,WD,WW", allow_hyphen_values = true)]
    pub penta: Option<String>,
    /// Trinomial counts `W,D,L` (A's wins, draws, losses).
    #[arg(long, value_name = "W,D,L", allow_hyphen_values = true)]
    pub wdl: Option<String>,
}

/// Arguments of `arena run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The tournament config (YAML).
    pub config: PathBuf,
    /// Games played at once (default: the config's `concurrency`, else the number of cores).
    #[arg(long, short = 'j')]
    pub concurrency: Option<usize>,
    /// Master seed, overriding the config's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Output directory, overriding the config's.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// No progress and no summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Write the full protocol transcript of every game to `OUTPUT/logs/games/<id>.log`.
    #[arg(long)]
    pub log_protocol: bool,
    /// Write OUTPUT/moves.csv: every ply with the engine's depth, score, nodes, nps and pv
    /// (config `record_moves: true`).
    #[arg(long)]
    pub record_moves: bool,
    /// Delete the results of a different config in the output directory and start fresh.
    #[arg(long)]
    pub force: bool,
    /// Play only shard K of N (0 <= K < N): its game pairs, dealt evenly; join the shards with
    /// `arena merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::tournament::shard::Shard>,
    /// Serve a live page of the run (standings, games in progress) on ADDR, default
    /// 127.0.0.1:8080; port 0 lets the system choose (the URL is printed).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = crate::live::server::DEFAULT_ADDR)]
    pub serve: Option<String>,
    /// Run every engine without its sandbox, whatever the config says (for debugging; printed
    /// as a warning).
    #[arg(long)]
    pub no_sandbox: bool,
}

/// Arguments of `arena check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The tournament config (YAML).
    pub config: PathBuf,
}

/// Arguments of `arena ratings`.
#[derive(Debug, Args)]
pub struct RatingsArgs {
    /// The games: arena's games.csv or results.pgn, a CSV with at least first (or white), second
    /// (or black) and result columns, or a PGN from cutechess-cli, fastchess or another tool;
    /// a run's output directory stands for its games.csv.
    #[arg(value_name = "FILE")]
    pub games: PathBuf,
    /// Directory for the rating files (default: the directory of FILE; files already there are
    /// kept unless --force).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Replace ratings.csv, pairs.csv and results.pgn already in the output directory.
    #[arg(long)]
    pub force: bool,
    /// Fix one engine's rating, as NAME=ELO (default: the run's config beside FILE, else mean 0).
    #[arg(long)]
    pub anchor: Option<String>,
    /// Confidence level of the intervals, in (0, 1) (default: the run's config, else 0.95).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// Game pairs for the intervals: auto, consecutive (games 2k and 2k+1 with players swapped,
    /// as cutechess-cli/fastchess -repeat write), round (same Round and players) or none.
    #[arg(long, default_value = "auto")]
    pub pairs: crate::import::PairMode,
}

/// Arguments of `arena show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// A board spec in YAML, as in a config's `boards:` list.
    #[arg(long, conflicts_with = "fen")]
    pub board: Option<String>,
    /// Seed of the generated board.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// A position text (see docs/games.md); needs --game.
    #[arg(long, requires = "game")]
    pub fen: Option<String>,
    /// The game of --fen: seven_colors, amazons or awale.
    #[arg(long)]
    pub game: Option<String>,
    /// Moves to play first, space-separated.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// No ANSI colours even on a terminal.
    #[arg(long)]
    pub plain: bool,
}

/// Which side the person plays in `arena play`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HumanSide {
    /// Moves first from the start position.
    First,
    /// Moves second.
    Second,
}

/// Arguments of `arena play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The board, a spec in YAML as in a config's `boards:` list (default with --config: its
    /// first board).
    #[arg(long)]
    pub board: Option<String>,
    /// The engine's program and its arguments (arguments starting with `-` need --config).
    #[arg(long, num_args = 1.., value_name = "CMD [ARGS]", conflicts_with = "config")]
    pub engine: Vec<String>,
    /// A tournament config to take the engine from (command, options, time control, limits).
    #[arg(long, requires = "engine_name")]
    pub config: Option<PathBuf>,
    /// The engine's name: which engine of --config, or the name recorded for --engine (default:
    /// the engine's `id name`, else the program's file name).
    #[arg(long)]
    pub engine_name: Option<String>,
    /// The side you play.
    #[arg(long, value_enum, default_value = "first")]
    pub human: HumanSide,
    /// Your name in games.csv.
    #[arg(long, default_value = "human")]
    pub name: String,
    /// The engine's time per move (ms), overriding --config's time control (default without
    /// --config: 1000).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Seed of the board (and of the engine's `Seed` option); default: drawn and printed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Directory of the games.csv the game is appended to.
    #[arg(long, short, default_value = "results/play")]
    pub output: PathBuf,
    /// No ANSI colours even on a terminal (also when NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,
}

/// Arguments of `arena replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A games.csv written by `arena run` or `arena play`.
    pub games: PathBuf,
    /// The `game_id` to replay (default: the last row).
    #[arg(long)]
    pub game: Option<u64>,
    /// Print every position at once instead of waiting for Enter.
    #[arg(long)]
    pub all: bool,
    /// No ANSI colours even on a terminal (also when NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,
}

/// Arguments of `arena serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// An output directory of `arena run`, `--shard` or `arena merge`: finished, or being
    /// written by a run in another process.
    pub dir: PathBuf,
    /// Address to listen on (port 0: the system chooses; the URL is printed).
    #[arg(long, value_name = "ADDR", default_value = crate::live::server::DEFAULT_ADDR)]
    pub serve: String,
}

/// Arguments of `arena report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// An output directory of `arena run` (holding games.csv).
    pub dir: PathBuf,
    /// Games the viewer embeds: `all`, or at most this many (default 200; a larger run gets an
    /// evenly spread sample).
    #[arg(long, value_name = "all|N")]
    pub games: Option<String>,
}

/// Arguments of `arena check-engine`.
#[derive(Debug, Args)]
pub struct CheckEngineArgs {
    /// A tournament config whose engines to check (with --engine NAME or --all).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The config's engine to check.
    #[arg(long, requires = "config", conflicts_with = "all")]
    pub engine: Option<String>,
    /// Check every engine of the config and write check-engines.csv.
    #[arg(long, requires = "config")]
    pub all: bool,
    /// Directory for check-engines.csv (default with --all: the config's output directory).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Fewer positions and shorter movetimes (about 5 s instead of 30 s).
    #[arg(long)]
    pub quick: bool,
    /// Print the results as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Check only these games (comma-separated: seven_colors, amazons, awale).
    #[arg(long, value_delimiter = ',')]
    pub games: Vec<crate::games::GameKind>,
    /// The boards to play: board specs as in a config's `boards:` list, e.g.
    /// `'{game: awale, pits: 10}'`; `config` for the boards of --config (the default with
    /// --config); `builtin` for every board type of each game (the default without --config).
    /// Only the games of these boards are checked.
    #[arg(long, num_args = 1.., value_name = "BOARD")]
    pub boards: Vec<String>,
    /// Slack added to every time limit (ms): movetime, the low clock, `stop`.
    #[arg(long, default_value_t = 100)]
    pub margin: u64,
    /// Handshake and `isready` limit (ms) (default: the config's `handshake_timeout_ms`, else
    /// 10000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub handshake_ms: Option<u64>,
    /// For `library:` engines of --config: also play games against random moves under each
    /// `directions` convention, and say which one never plays an illegal move.
    #[arg(long, requires = "config")]
    pub directions: bool,
    /// The engine's command and arguments, after `--`.
    #[arg(last = true, value_name = "CMD [ARGS]", conflicts_with = "config")]
    pub command: Vec<String>,
}
