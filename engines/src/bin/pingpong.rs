//! `pingpong`: the physical floor of a runner, for the per-move overhead benchmark.
//!
//! `pingpong drive ROUNDS POSITION_BYTES REPLY_BYTES` starts `pingpong serve` as a child and
//! does ROUNDS round trips over pipes shaped like a runner's move: it writes a `position` line
//! of POSITION_BYTES and a `go` line in one write, then reads one reply line of REPLY_BYTES. It prints the
//! wall time and its own CPU time per round trip, in µs. Nothing else happens: no parsing, no
//! rules, no clock.
//!
//! `pingpong engine MOVE` is the matching engine: a minimal UGI engine for every game that
//! answers `bestmove MOVE` to every `go` without reading the position (Seven Colors accepts any
//! colour, so `A` is always legal there). With it, a tournament's wall time is the runner's
//! own cost plus the same pipe round trips as `drive`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

fn serve(reply_bytes: usize) {
    let reply = format!(
        "bestmove {}\n",
        "1".repeat(reply_bytes.saturating_sub(10).max(1))
    );
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.starts_with("go") {
            if out
                .write_all(reply.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                break;
            }
        } else if line == "quit" {
            break;
        }
    }
}

fn engine(mv: &str) {
    let reply = format!("bestmove {mv}\n");
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let answer = if line.starts_with("go") {
            reply.as_str()
        } else if line == "isready" {
            "readyok\n"
        } else if line == "ugi" {
            "id name pingpong\noption name UGI_Variant type combo default seven_colors \
             var seven_colors var amazons var awale\nugiok\n"
        } else if line == "quit" {
            break;
        } else {
            continue;
        };
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
}

fn cpu_us() -> f64 {
    use nix::sys::resource::{UsageWho, getrusage};
    getrusage(UsageWho::RUSAGE_SELF).map_or(0.0, |u| {
        let us = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 * 1e6 + t.tv_usec() as f64;
        us(u.user_time()) + us(u.system_time())
    })
}

fn drive(rounds: usize, position_bytes: usize, reply_bytes: usize) {
    let mut child = Command::new(std::env::current_exe().expect("own path"))
        .args(["serve", &reply_bytes.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("server starts");
    let mut to = child.stdin.take().expect("piped");
    let mut from = BufReader::new(child.stdout.take().expect("piped"));
    // Both lines in one write, as the runner sends them.
    let message = format!(
        "position fen {}\ngo movetime 1000\n",
        "x".repeat(position_bytes.saturating_sub(14).max(1))
    );
    let mut reply = String::new();
    let (start, cpu) = (Instant::now(), cpu_us());
    for _ in 0..rounds {
        to.write_all(message.as_bytes()).expect("write");
        to.flush().expect("flush");
        reply.clear();
        from.read_line(&mut reply).expect("read");
    }
    let wall = start.elapsed().as_secs_f64() * 1e6 / rounds as f64;
    let own = (cpu_us() - cpu) / rounds as f64;
    let _ = to.write_all(b"quit\n");
    drop(to);
    let _ = child.wait();
    println!(
        "pingpong: {rounds} round trips, {wall:.2} us wall, {own:.2} us driver CPU per round trip"
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number =
        |i: usize, default: usize| args.get(i).and_then(|v| v.parse().ok()).unwrap_or(default);
    match args.first().map(String::as_str) {
        Some("serve") => serve(number(1, 16)),
        Some("drive") => drive(number(1, 10_000), number(2, 100), number(3, 16)),
        Some("engine") => engine(args.get(1).map_or("A", String::as_str)),
        _ => eprintln!(
            "usage: pingpong drive ROUNDS POSITION_BYTES REPLY_BYTES | pingpong engine MOVE"
        ),
    }
}
