//! `arena replay`: steps through one recorded game of a games.csv (written by `arena run` or
//! `arena play`), drawing the board after each ply with the move and the players' times.
//!
//! Owns the stepping prompt only. Every position is recomputed with arena's rules from the
//! row's start position and moves, so a row whose moves are not legal is reported, never
//! drawn; the boards come from each game's `render`. Reads files, writes none.

use std::collections::BTreeMap;
use std::io::{self, BufRead, IsTerminal, Write};
use std::process::ExitCode;

use super::{Stop, bold, finish, seconds, use_colour};
use crate::cli::ReplayArgs;
use crate::commands::{BAD_CONFIG, DONE};
use crate::games::{AnyPosition, BySide, GameKind, Side};
use crate::record::GameRecord;
use crate::record::moves;
use crate::report::files;

/// Every position of a recorded game: the start, then one per ply.
///
/// # Errors
/// A message naming the game id and, for a move, its ply and text, when the row's game, start
/// position or a move cannot be read or is illegal.
pub fn positions(record: &GameRecord) -> Result<Vec<AnyPosition>, String> {
    let id = record.game_id;
    let kind: GameKind = record.game.parse().map_err(|e| format!("game {id}: {e}"))?;
    let mut pos =
        AnyPosition::from_fen(kind, &record.start_fen).map_err(|e| format!("game {id}: {e}"))?;
    let mut all = vec![pos.clone()];
    for (i, text) in record.moves.split_whitespace().enumerate() {
        pos.play_text(text)
            .map_err(|e| format!("game {id}, ply {}: {e}", i + 1))?;
        all.push(pos.clone());
    }
    Ok(all)
}

/// The header, move line and board of ply `k` (0 = the start position); `times` holds each
/// ply's time (ms) when a moves.csv gave them.
fn frame(
    record: &GameRecord,
    positions: &[AnyPosition],
    times: &BTreeMap<usize, u64>,
    k: usize,
    ansi: bool,
) -> String {
    let last = positions.len() - 1;
    let moves: Vec<&str> = record.moves.split_whitespace().collect();
    let mut text = format!(
        "\n{} {} on {}: {} (first, 1) vs {} (second, 2)\n",
        bold("game", ansi),
        record.game_id,
        record.board,
        record.first,
        record.second
    );
    if k == 0 {
        text.push_str(&format!("start position, {last} plies to come\n"));
    } else {
        // The mover of ply k is the side to move before it.
        let mover = positions[k - 1].side_to_move();
        let name = match mover {
            Side::First => &record.first,
            Side::Second => &record.second,
        };
        let took = times
            .get(&k)
            .map_or_else(String::new, |ms| format!(" in {ms} ms"));
        text.push_str(&format!(
            "ply {k}/{last}: {name} ({mover}) played {}{took}\n",
            moves[k - 1]
        ));
    }
    if !times.is_empty() {
        // Time used so far by each side, from the plies' times.
        let mut used = BySide::new(0, 0);
        for ply in 1..=k {
            used[positions[ply - 1].side_to_move()] += times.get(&ply).copied().unwrap_or(0);
        }
        text.push_str(&format!(
            "time used: {} {}, {} {}\n",
            record.first,
            seconds(used.first),
            record.second,
            seconds(used.second)
        ));
    }
    text.push_str(&positions[k].render(ansi));
    if k == last {
        let tally = match (record.score_first, record.score_second) {
            (Some(a), Some(b)) => format!(", {a}-{b}"),
            _ => String::new(),
        };
        let detail = if record.detail.is_empty() {
            String::new()
        } else {
            format!(": {}", record.detail)
        };
        text.push_str(&format!(
            "{} {} ({}{tally}){detail}\n",
            bold("result", ansi),
            record.result,
            record.termination
        ));
        text.push_str(&format!(
            "thinking time: {} {}, {} {}; game {}\n",
            record.first,
            seconds(record.first_time_ms),
            record.second,
            seconds(record.second_time_ms),
            seconds(record.duration_ms)
        ));
    }
    text
}

/// What was typed at the replay prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Enter (or `n`): the next ply.
    Next,
    /// `b` (or `p`): the previous ply.
    Back,
    /// A number: that ply (0 = the start).
    Go(usize),
    /// `q`, or the end of input.
    Quit,
    /// Anything else.
    Unknown,
}

impl Step {
    /// Reads one line of the prompt.
    pub fn parse(line: &str) -> Step {
        match line.trim().to_ascii_lowercase().as_str() {
            "" | "n" | "next" => Step::Next,
            "b" | "p" | "back" => Step::Back,
            "q" | "quit" | "exit" => Step::Quit,
            number => number.parse().map_or(Step::Unknown, Step::Go),
        }
    }
}

/// `arena replay`.
pub fn replay(args: &ReplayArgs) -> ExitCode {
    finish(run(args))
}

fn run(args: &ReplayArgs) -> Result<u8, Stop> {
    let file = args.games.display();
    let (records, dropped) =
        files::read_games(&args.games).map_err(|e| Stop(BAD_CONFIG, e.to_string()))?;
    if let Some(note) = dropped {
        eprintln!("note: {file}: {note}");
    }
    let record = match args.game {
        Some(id) => records.iter().find(|r| r.game_id == id).ok_or_else(|| {
            let ids = match (records.first(), records.last()) {
                (Some(a), Some(b)) => format!("its ids run from {} to {}", a.game_id, b.game_id),
                _ => "it has no games".to_owned(),
            };
            Stop(BAD_CONFIG, format!("{file}: no game {id} ({ids})"))
        })?,
        None => records
            .last()
            .ok_or_else(|| Stop(BAD_CONFIG, format!("{file}: no games")))?,
    };
    let positions = positions(record).map_err(|e| Stop(BAD_CONFIG, format!("{file}: {e}")))?;
    let times = moves::ply_times(&args.games.with_file_name(moves::MOVES), record.game_id);
    let ansi = use_colour(args.no_color);
    let last = positions.len() - 1;
    if args.all {
        for k in 0..=last {
            print!("{}", frame(record, &positions, &times, k, ansi));
        }
        return Ok(DONE);
    }
    let stdin = io::stdin();
    let mut input = stdin.lock();
    // Piped input is not echoed by a terminal: show it, so the transcript reads.
    let echo = !io::stdin().is_terminal();
    let mut k = 0;
    loop {
        if ansi {
            // On a terminal each ply replaces the last one: clear the screen, cursor home.
            print!("\x1b[2J\x1b[H");
        }
        print!("{}", frame(record, &positions, &times, k, ansi));
        loop {
            print!("[Enter] next, b back, a ply number, q quit> ");
            let _ = io::stdout().flush();
            let mut line = String::new();
            let step = match input.read_line(&mut line) {
                Ok(0) | Err(_) => Step::Quit,
                Ok(_) => Step::parse(&line),
            };
            if echo && step != Step::Quit {
                println!("{}", line.trim_end());
            }
            match step {
                Step::Quit => {
                    println!();
                    return Ok(DONE);
                }
                Step::Next if k < last => k += 1,
                Step::Next => {
                    println!("that was the last ply (b goes back, q quits)");
                    continue;
                }
                Step::Back if k > 0 => k -= 1,
                Step::Back => {
                    println!("this is the start position");
                    continue;
                }
                Step::Go(ply) if ply <= last => k = ply,
                Step::Go(ply) => {
                    println!("no ply {ply}: the game has {last}");
                    continue;
                }
                Step::Unknown => {
                    println!("type Enter, b, a ply number (0..{last}) or q");
                    continue;
                }
            }
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_read_from_lines() {
        assert_eq!(Step::parse("\n"), Step::Next);
        assert_eq!(Step::parse("B\n"), Step::Back);
        assert_eq!(Step::parse(" 12 "), Step::Go(12));
        assert_eq!(Step::parse("q"), Step::Quit);
        assert_eq!(Step::parse("forward"), Step::Unknown);
    }
}
