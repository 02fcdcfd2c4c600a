//! The end-of-run summary: standings of scope `all`, terminations by reason, and the
//! two-engine line.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::record::{GameRecord, Termination};
use crate::standings::{self, Standings};

/// The text printed after a run: a standings table (rank, engine, Elo ± interval, games,
/// score), the count of terminations by reason, and for two engines the fastchess-style line.
///
/// When the engines did not all play the same games (one plays only Seven Colors, say), the
/// pooled `all` ranking compares results on different games: then one table per game is shown
/// instead, and ratings.csv keeps the pooled one under scope `all`.
pub fn render(standings: &Standings, records: &[GameRecord], level: f64) -> String {
    render_with(standings, records, level, true)
}

/// As [`render`]; without the termination counts when `terminations` is false (games imported
/// from a file that does not say how they ended).
pub fn render_with(
    standings: &Standings,
    records: &[GameRecord],
    level: f64,
    terminations: bool,
) -> String {
    let mut out = String::new();
    let mut games_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for r in records {
        for engine in [&r.first, &r.second] {
            games_of.entry(engine).or_default().insert(&r.game);
        }
    }
    let uniform = games_of.values().collect::<BTreeSet<_>>().len() <= 1;
    if uniform {
        table(&mut out, standings, "all");
    } else {
        let _ = writeln!(
            out,
            "engines played different games, so the rankings are per game (the pooled one is scope `all` in ratings.csv):"
        );
        let games: BTreeSet<&str> = records.iter().map(|r| r.game.as_str()).collect();
        for game in games {
            let _ = writeln!(out, "{game}:");
            table(&mut out, standings, &format!("game:{game}"));
        }
    }
    let counts: Vec<String> = Termination::ALL
        .iter()
        .map(|t| (t, records.iter().filter(|r| r.termination == *t).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(t, n)| format!("{t} {n}"))
        .collect();
    if terminations && !counts.is_empty() {
        let _ = writeln!(out, "{} games: {}", records.len(), counts.join(", "));
    } else {
        let _ = writeln!(out, "{} games", records.len());
    }
    if let Some(line) = standings::two_engine_line(records, level) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Engines charged with failures (crash, time forfeit, protocol error, illegal move,
/// withdrawal), with counts and where their stderr logs are; empty when there were none.
pub fn failures(records: &[GameRecord], log_dir: &Path) -> String {
    let mut by_engine: BTreeMap<&str, BTreeMap<Termination, u64>> = BTreeMap::new();
    for r in records {
        let faulty = match r.termination {
            Termination::Normal
            | Termination::MaxPlies
            | Termination::Resign
            | Termination::AdjudicatedWin
            | Termination::AdjudicatedDraw => continue,
            _ => match r.result.as_str() {
                "1-0" => vec![&r.second],
                "0-1" => vec![&r.first],
                _ => vec![&r.first, &r.second],
            },
        };
        for engine in faulty {
            *by_engine
                .entry(engine)
                .or_default()
                .entry(r.termination)
                .or_default() += 1;
        }
    }
    let mut out = String::new();
    for (engine, counts) in by_engine {
        let list: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
        let _ = writeln!(
            out,
            "failures of {engine}: {}; stderr: {}",
            list.join(", "),
            log_dir.join(format!("{engine}.*.stderr.log")).display()
        );
    }
    out
}

fn table(out: &mut String, standings: &Standings, scope: &str) {
    let rows: Vec<_> = standings
        .ratings
        .iter()
        .filter(|r| r.scope == scope)
        .collect();
    let width = rows
        .iter()
        .map(|r| r.engine.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>8}  {:>7}  {:>6}  {:>7}  flags",
        "rank", "engine", "elo", "+/-", "games", "score"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>8.1}  {:>7}  {:>6}  {:>6.1}%  {}",
            r.rank,
            r.engine,
            r.elo,
            r.err95
                .map_or_else(|| "open".to_owned(), |e| format!("{e:.1}")),
            r.games,
            r.score_pct,
            r.flags
        );
    }
}

/// CPU time (user + system) this process has used so far.
pub fn own_cpu() -> std::time::Duration {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(std::time::Duration::ZERO, |u| {
        let us = |t: nix::sys::time::TimeVal| t.tv_sec() as u64 * 1_000_000 + t.tv_usec() as u64;
        std::time::Duration::from_micros(us(u.user_time()) + us(u.system_time()))
    })
}

/// Peak resident memory of this process (MiB): `VmHWM` of `/proc/self/status`. Not
/// `ru_maxrss`, which survives `execve` and so reports the launching program's peak when that
/// was larger (a Python harness, say).
pub fn own_peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The runner's own cost: `runner: 12 games, 840 moves in 3.2 s; runner CPU 0.210 s (250.0 us
/// a move); peak RSS 9.1 MiB`. CPU and memory exclude the engines: they are what arena adds on
/// top of them.
pub fn runner_cost(
    games: usize,
    plies: u64,
    wall: std::time::Duration,
    cpu: std::time::Duration,
) -> String {
    let per_move = if plies == 0 {
        0.0
    } else {
        cpu.as_secs_f64() * 1e6 / plies as f64
    };
    format!(
        "runner: {games} games, {plies} moves in {:.2} s; runner CPU {:.3} s ({per_move:.1} us a move); peak RSS {:.1} MiB",
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        own_peak_rss_mib()
    )
}
