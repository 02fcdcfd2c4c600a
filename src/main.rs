//! The `arena` binary: parses arguments and hands over to [`arena::commands`].

use std::process::ExitCode;

use clap::Parser;

use arena::cli::{Cli, Commands};
use arena::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match &cli.command {
        Commands::Run(args) => commands::run(args),
        Commands::Check(args) => commands::check(args),
        Commands::Ratings(args) => commands::ratings(args),
        Commands::Show(args) => commands::show(args),
        Commands::Play(args) => arena::play::play(args),
        Commands::Replay(args) => arena::play::replay::replay(args),
        Commands::Report(args) => commands::report(args),
        Commands::Sprt(args) => commands::sprt(args),
        Commands::CheckEngine(args) => arena::check_engine::command(args),
        Commands::Merge(args) => commands::merge(args),
        Commands::Slurm(args) => commands::slurm(args),
        Commands::Openings(args) => arena::openings::generate::command(args),
    }
}
