//! The end-of-run summary: standings of scope `all`, terminations by reason, the two-engine
//! line, and the games that repeat earlier ones per engine pair.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::record::{GameRecord, Termination};
use crate::standings::{self, Names, Observation, Standings};

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
    let (games, names) = standings::observed::of_records(records);
    render_observed(standings, &games, &names, level, terminations)
}

/// [`render_with`] on observations (`arena ratings` on a large file).
pub fn render_observed(
    standings: &Standings,
    records: &[Observation],
    names: &Names,
    level: f64,
    terminations: bool,
) -> String {
    let mut out = String::new();
    let mut games_of: BTreeMap<u32, BTreeSet<&str>> = BTreeMap::new();
    for r in records {
        for engine in [r.first, r.second] {
            games_of
                .entry(engine)
                .or_default()
                .insert(names.game(r.place));
        }
    }
    let uniform = games_of.values().collect::<BTreeSet<_>>().len() <= 1;
    let mut explained = BTreeSet::new();
    if uniform {
        table(&mut out, standings, "all", &mut explained);
    } else {
        let _ = writeln!(
            out,
            "engines played different games, so the rankings are per game (the pooled one is scope `all` in ratings.csv):"
        );
        let games: BTreeSet<&str> = records.iter().map(|r| names.game(r.place)).collect();
        for game in games {
            let _ = writeln!(out, "{game}:");
            table(&mut out, standings, &format!("game:{game}"), &mut explained);
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
    if let Some(line) = standings::two_engine_line_observed(records, names, level) {
        // Its interval and the table's come from different models: say which is which.
        let _ = writeln!(
            out,
            "{line} (head to head over game pairs, pentanomial; the table's +/- is the Bradley–Terry fit of all games)"
        );
    }
    if uniform {
        out.push_str(&crate::ranks::table(&standings.ranks, "all"));
    }
    for line in crate::repeats::summary_lines_observed(records, names) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// Longest failure detail quoted in the summary (characters); games.csv has it whole.
const DETAIL_SHOWN: usize = 240;

/// Engines charged with failures (crash, time forfeit, protocol error, illegal move,
/// withdrawal): counts, where the stderr logs are when they say anything, and the first
/// failure's detail (rule broken, ply) with its game id; empty when there were none.
pub fn failures(records: &[GameRecord], log_dir: &Path) -> String {
    let mut by_engine: BTreeMap<&str, (BTreeMap<Termination, u64>, &GameRecord)> = BTreeMap::new();
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
            let (counts, _) = by_engine
                .entry(engine)
                .or_insert_with(|| (BTreeMap::new(), r));
            *counts.entry(r.termination).or_default() += 1;
        }
    }
    let mut out = String::new();
    for (engine, (counts, first)) in by_engine {
        let list: Vec<String> = counts.iter().map(|(t, n)| format!("{t} {n}")).collect();
        let _ = write!(out, "failures of {engine}: {}", list.join(", "));
        let detail = shorten(first.detail.trim(), DETAIL_SHOWN);
        // A crash's detail already names the worker's log.
        let named = detail.contains(&*log_dir.to_string_lossy());
        if !named && stderr_has_lines(log_dir, engine) {
            let _ = write!(
                out,
                "; stderr: {}",
                log_dir.join(format!("{engine}.*.stderr.log")).display()
            );
        }
        if detail.is_empty() {
            let _ = write!(
                out,
                "; first in game {} ({})",
                first.game_id, first.termination
            );
        } else {
            let _ = write!(out, "; first in game {}: {detail}", first.game_id);
        }
        out.push('\n');
    }
    out
}

/// `text` cut to `max` characters, with `…` when cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Whether any of `engine`'s stderr logs in `log_dir` (`ENGINE.WHICH.stderr.log`: a worker's,
/// the preflight's) has a non-blank line.
fn stderr_has_lines(log_dir: &Path, engine: &str) -> bool {
    let Ok(entries) = std::fs::read_dir(log_dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        let name = entry.file_name();
        let which = name
            .to_str()
            .and_then(|n| n.strip_prefix(engine))
            .and_then(|n| n.strip_prefix('.'))
            .and_then(|n| n.strip_suffix(".stderr.log"));
        which.is_some_and(|w| !w.is_empty() && !w.contains('.')) && says_something(&entry.path())
    })
}

/// Whether the file has a byte other than white space; reads only up to the first one (a
/// chatty engine's log can be large).
fn says_something(path: &Path) -> bool {
    use std::io::Read as _;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut chunk = [0u8; 8192];
    loop {
        match file.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) if chunk[..n].iter().any(|b| !b.is_ascii_whitespace()) => return true,
            Ok(_) => {}
        }
    }
}

/// What each flag of the standings means, in the order the legend lists them.
const FLAG_MEANINGS: [(&str, &str); 6] = [
    (
        "open",
        "no bound on one side of the interval (a 0% or 100% score)",
    ),
    ("perfect_score", "won or lost everything"),
    (
        "prior",
        "the scope needed the one-virtual-draw prior (someone won or lost everything)",
    ),
    (
        "floor",
        "the small-sample variance floor widens the interval by over 10% (results barely spread)",
    ),
    (
        "pool",
        "engines that never met, directly or through others, are rated apart",
    ),
    ("unrated", "no rated game"),
];

/// The flag words of a table row, `open` included when its interval has no half-width.
fn flag_words(row: &crate::standings::RatingRow) -> Vec<&str> {
    let mut words: Vec<&str> = row.flags.split_whitespace().collect();
    if row.err95.is_none() {
        words.push("open");
    }
    words
}

/// One standings table; then a legend line for the flags it shows that `explained` has not
/// seen yet (so each flag is explained once, under the first table showing it).
fn table(out: &mut String, standings: &Standings, scope: &str, explained: &mut BTreeSet<String>) {
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
    let mut shown = BTreeSet::new();
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
        for word in flag_words(r) {
            // `pool1`, `pool2`… share one meaning.
            let word = if word.starts_with("pool") {
                "pool"
            } else {
                word
            };
            shown.insert(word.to_owned());
        }
    }
    let legend: Vec<String> = FLAG_MEANINGS
        .iter()
        .filter(|(word, _)| shown.contains(*word) && !explained.contains(*word))
        .map(|(word, meaning)| {
            let word = if *word == "pool" { "poolN" } else { word };
            format!("{word}: {meaning}")
        })
        .collect();
    if !legend.is_empty() {
        let _ = writeln!(out, "flags: {}", legend.join("; "));
    }
    explained.extend(shown);
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
