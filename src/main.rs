//! The `arena` binary: parses arguments and hands over to [`arena::commands`].

use std::panic;
use std::process::ExitCode;

use clap::Parser;

use arena::cli::{Cli, Commands};
use arena::commands;

fn main() -> ExitCode {
    let cli = Cli::parse();
    quiet_on_closed_stdout();
    match panic::catch_unwind(|| dispatch(&cli)) {
        Ok(code) => code,
        Err(payload) if is_closed_stdout(payload.as_ref()) => end_as_by_sigpipe(),
        Err(payload) => panic::resume_unwind(payload),
    }
}

/// Runs the subcommand.
fn dispatch(cli: &Cli) -> ExitCode {
    match &cli.command {
        Commands::Run(args) => commands::run(args),
        Commands::Check(args) => commands::check(args),
        Commands::Ratings(args) => commands::ratings(args),
        Commands::Show(args) => commands::show(args),
        Commands::Play(args) => arena::play::play(args),
        Commands::Replay(args) => arena::play::replay::replay(args),
        Commands::Report(args) => commands::report(args),
        Commands::Serve(args) => commands::serve(args),
        Commands::Sprt(args) => commands::sprt(args),
        Commands::CheckEngine(args) => arena::check_engine::command(args),
        Commands::Merge(args) => commands::merge(args),
        Commands::Slurm(args) => commands::slurm(args),
        Commands::Openings(args) => arena::openings::generate::command(args),
    }
}

/// Whether a panic is `print!`'s on a stdout whose reader has gone (`arena … | head -3`).
/// Rust ignores SIGPIPE, so such a write fails with EPIPE and `print!` panics; the standard
/// library's message is the only way to tell that panic from a bug.
fn is_closed_stdout(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or_default();
    text.starts_with("failed printing to stdout") && text.contains("Broken pipe")
}

/// Keeps the default panic message for everything but a closed stdout, which ends the
/// command quietly (see [`end_as_by_sigpipe`]).
fn quiet_on_closed_stdout() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !is_closed_stdout(info.payload()) {
            default(info);
        }
    }));
}

/// Ends as command-line tools do when their reader goes away: killed by SIGPIPE, with no
/// message (a shell's `pipefail` still sees it). Reached after unwinding, so engines and
/// temporary files were already cleaned up by their destructors. SIGPIPE is restored to its
/// default only here: while engines run, a write to a dead engine must stay an error.
fn end_as_by_sigpipe() -> ExitCode {
    use nix::sys::signal::{SigHandler, Signal, raise, signal};
    // SAFETY: SIG_DFL installs no handler code; nothing else changes SIGPIPE at this point.
    let _ = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
    let _ = raise(Signal::SIGPIPE);
    // Not reached unless SIGPIPE is blocked: the shell's code for it.
    ExitCode::from(141)
}
