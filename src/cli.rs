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

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Plays a tournament and writes games.csv, ratings.csv, pairs.csv and results.pgn.
    #[command(
        after_help = "Example:\n  arena run configs/round_robin.yaml --concurrency 2\n\n\
        Running again on the same output directory resumes: only missing games are played.\n\
        Exit codes: 0 done, 1 could not complete, 2 bad usage or config, 130 interrupted."
    )]
    Run(RunArgs),
    /// Validates a config, starts every engine once for the handshake, and prints who plays
    /// which board and how many games the run will have. Plays nothing.
    #[command(after_help = "Example:\n  arena check configs/round_robin.yaml")]
    Check(CheckArgs),
    /// Recomputes ratings.csv, pairs.csv and results.pgn from a games.csv.
    #[command(
        after_help = "Example:\n  arena ratings results/round_robin/games.csv --anchor greedy=1500"
    )]
    Ratings(RatingsArgs),
    /// Prints a board: a generated start position or a position text, after optional moves.
    #[command(
        after_help = "Examples:\n  arena show --board '{game: seven_colors, size: 12, layout: diagonal}' --seed 3\n  \
        arena show --game awale --fen '4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture' --moves '3 4'"
    )]
    Show(ShowArgs),
    /// Rebuilds report.html and results.xlsx of an output directory from its games.csv (and
    /// config.resolved.yaml, moves.csv, sprt.csv when present).
    #[command(
        after_help = "Examples:\n  arena report results/round_robin\n  arena report results/round_robin --games all"
    )]
    Report(ReportArgs),
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
    /// Write the full protocol transcript of every game to OUTPUT/logs/games/<id>.log.
    #[arg(long)]
    pub log_protocol: bool,
    /// Delete the results of a different config in the output directory and start fresh.
    #[arg(long)]
    pub force: bool,
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
    /// A games.csv written by `arena run`.
    pub games: PathBuf,
    /// Directory for the rating files (default: the directory of games.csv).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Fix one engine's rating, as NAME=ELO (default: mean 0).
    #[arg(long)]
    pub anchor: Option<String>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub confidence: f64,
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
