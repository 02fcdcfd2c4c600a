//! The live page through the real binary and a real HTTP client: `arena run --serve` and
//! `arena serve DIR` on a directory another process fills.

mod util;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use util::{Dir, engine, start_serving};

/// Three engines on Awale 6 and Amazons 6×6: 24 games of a few dozen plies each, long enough
/// to be watched several times, short enough for a test.
fn config(dir: &Dir, out: &str) -> std::path::PathBuf {
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: live
seed: 8
rounds: 2
concurrency: 2
time_control: {{ movetime_ms: 40, margin_ms: 200 }}
boards:
  - {{ game: awale, pits: 6 }}
  - {{ game: amazons, width: 6, queens: 4 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: alphabeta, command: {alphabeta} }}
  - {{ name: mcts, command: {mcts} }}
output: {out}
",
            random = engine("random"),
            alphabeta = engine("alphabeta"),
            mcts = engine("mcts"),
            out = dir.path(out).display(),
        ),
    )
}

fn get_json(url: &str) -> Option<Value> {
    let mut response = ureq::get(url).call().ok()?;
    serde_json::from_str(&response.body_mut().read_to_string().ok()?).ok()
}

/// The status line's code of a raw request (so no client normalizes the path first).
fn raw_status(url: &str, request_line: &str) -> u16 {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).expect("connect");
    write!(
        stream,
        "{request_line}\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// Asserts that `/api/standings`' ratings are ratings.csv's, figure by figure.
fn assert_same_ratings(json: &Value, dir: &Path) {
    let csv = util::csv_rows(&dir.join("ratings.csv"));
    let rows = json["ratings"].as_array().expect("ratings");
    assert_eq!(rows.len(), csv.len(), "{json}");
    assert!(!csv.is_empty());
    for (row, expected) in rows.iter().zip(&csv) {
        for (column, text) in expected {
            let value = &row[column.as_str()];
            match value {
                Value::Null => assert_eq!(text, "", "{column} of {row}"),
                Value::Number(n) => assert_eq!(
                    n.as_f64().unwrap(),
                    text.parse::<f64>().unwrap(),
                    "{column} of {row}"
                ),
                Value::String(s) => assert_eq!(s, text, "{column} of {row}"),
                other => panic!("{column}: unexpected {other}"),
            }
        }
    }
}

#[test]
fn run_with_serve_shows_the_run_as_it_goes_and_ends_with_it() {
    let dir = Dir::new();
    let cfg = config(&dir, "out");
    let out = dir.path("out");
    let (mut child, url) = start_serving(&[
        "run",
        cfg.to_str().unwrap(),
        "--serve",
        "127.0.0.1:0",
        "--quiet",
    ]);
    // A page left open for the whole run: its last update must be the finished run.
    let events = {
        let url = format!("{url}api/events");
        thread::spawn(move || {
            let response = ureq::get(&url).call().expect("update stream");
            let reader = BufReader::new(response.into_body().into_reader());
            reader
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("data: ").map(str::to_owned))
                .last()
        })
    };
    let mut done_seen = Vec::new();
    let mut growing = false;
    let mut plies: BTreeMap<u64, u64> = BTreeMap::new();
    let mut last_full = None;
    let mut checked_paths = false;
    let deadline = Instant::now() + Duration::from_secs(300);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        if let Some(s) = get_json(&format!("{url}api/standings")) {
            let p = &s["progress"];
            let (done, total) = (p["done"].as_u64().unwrap(), p["total"].as_u64().unwrap());
            if !p["running"].as_bool().unwrap() {
                // Bound before the handshakes (nothing published until the games start), or
                // after the games, while the result files are written.
                assert!((done, total) == (0, 0) || (done, total) == (24, 24), "{s}");
                if done == 24 {
                    last_full = Some(s);
                }
                thread::sleep(Duration::from_millis(30));
                continue;
            }
            assert_eq!(total, 24, "{s}");
            if done_seen.last() != Some(&done) {
                done_seen.push(done);
            }
            if done == total {
                last_full = Some(s);
            }
        }
        if let Some(Value::Array(games)) = get_json(&format!("{url}api/games/live")) {
            for g in games {
                let id = g["game_id"].as_u64().unwrap();
                let ply = g["ply"].as_u64().unwrap();
                assert_eq!(ply as usize, g["moves"].as_array().unwrap().len());
                if plies.get(&id).is_some_and(|&before| ply > before) {
                    growing = true;
                }
                plies.insert(id, ply);
            }
        }
        if !checked_paths {
            for line in [
                "GET /files/../live.yaml HTTP/1.1",
                "GET /files/%2e%2e/live.yaml HTTP/1.1",
                "GET /../../../etc/passwd HTTP/1.1",
                "GET /files//etc/passwd HTTP/1.1",
                "GET /files/logs HTTP/1.1",
                "GET /files/config.resolved.yaml HTTP/1.1",
            ] {
                assert_eq!(raw_status(&url, line), 404, "{line}");
            }
            assert_eq!(raw_status(&url, "POST /api/standings HTTP/1.1"), 405);
            assert_eq!(raw_status(&url, "DELETE /files/games.csv HTTP/1.1"), 405);
            assert_eq!(raw_status(&url, "HEAD / HTTP/1.1"), 200);
            let page = ureq::get(&url)
                .call()
                .unwrap()
                .body_mut()
                .read_to_string()
                .unwrap();
            assert!(page.contains("id=\"initial\"") && page.contains("EventSource"));
            checked_paths = true;
        }
        thread::sleep(Duration::from_millis(30));
    }
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(checked_paths, "the server was never reached");
    assert!(
        done_seen.len() >= 3 && done_seen.windows(2).all(|w| w[0] < w[1]),
        "games done, as seen: {done_seen:?}"
    );
    assert!(growing, "no game in progress was seen to grow: {plies:?}");
    // The window between the last game and the end of the run is short (the result files):
    // when a look fell in it, the figures are ratings.csv's. The next test checks them always.
    eprintln!("standings seen with every game: {}", last_full.is_some());
    if let Some(s) = last_full {
        assert_same_ratings(&s, &out);
    }
    let last = events.join().unwrap().expect("at least one update");
    let last: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(last["progress"]["running"], false, "{}", last["progress"]);
    assert_eq!(last["progress"]["done"], 24, "{}", last["progress"]);
    assert!(last["live"].as_array().unwrap().is_empty());
    // The server ended with the run; live.json went with it.
    assert!(ureq::get(&format!("{url}api/standings")).call().is_err());
    assert!(!out.join("live.json").exists());
}

#[test]
fn serve_follows_a_run_of_another_process_then_shows_its_final_standings() {
    let dir = Dir::new();
    let cfg = config(&dir, "out");
    let out = dir.path("out");
    let mut run = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", cfg.to_str().unwrap(), "--quiet"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The directory exists once the run has started.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !out.join("config.resolved.yaml").exists() {
        assert!(Instant::now() < deadline, "the run did not start");
        thread::sleep(Duration::from_millis(20));
    }
    let (mut serve, url) =
        start_serving(&["serve", out.to_str().unwrap(), "--serve", "127.0.0.1:0"]);
    let mut running_seen = false;
    let mut live_seen = false;
    let mut done_seen = Vec::new();
    while run.try_wait().unwrap().is_none() {
        if let Some(s) = get_json(&format!("{url}api/standings")) {
            running_seen |= s["progress"]["running"].as_bool().unwrap();
            let done = s["progress"]["done"].as_u64().unwrap();
            if done_seen.last() != Some(&done) {
                done_seen.push(done);
            }
        }
        if let Some(Value::Array(games)) = get_json(&format!("{url}api/games/live")) {
            live_seen |= !games.is_empty();
        }
        thread::sleep(Duration::from_millis(30));
    }
    assert!(run.wait().unwrap().success());
    assert!(
        running_seen && live_seen,
        "running {running_seen}, live {live_seen}"
    );
    assert!(done_seen.len() >= 3, "games done, as seen: {done_seen:?}");
    // Finished: not running, every game, exactly ratings.csv.
    let deadline = Instant::now() + Duration::from_secs(30);
    let last = loop {
        let s = get_json(&format!("{url}api/standings")).unwrap();
        if !s["progress"]["running"].as_bool().unwrap() && s["progress"]["done"] == 24 {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the server never saw the end: {s}"
        );
        thread::sleep(Duration::from_millis(100));
    };
    assert_same_ratings(&last, &out);
    let live: Value = get_json(&format!("{url}api/games/live")).unwrap();
    assert_eq!(live, Value::Array(Vec::new()));
    // A finished game by id, and its viewer page.
    let game = get_json(&format!("{url}api/games/3")).unwrap();
    assert_eq!(game["game_id"], 3);
    let page = ureq::get(&format!("{url}game/3"))
        .call()
        .unwrap()
        .body_mut()
        .read_to_string()
        .unwrap();
    assert!(
        page.contains("game-data"),
        "the viewer page embeds the game"
    );
    assert_eq!(raw_status(&url, "GET /api/games/999 HTTP/1.1"), 404);
    assert_eq!(raw_status(&url, "GET /files/games.csv HTTP/1.1"), 200);
    serve.kill().unwrap();
    let _ = serve.wait();
}

#[test]
fn serve_refuses_a_missing_directory_and_a_bad_address() {
    let dir = Dir::new();
    let stderr = |args: &[&str]| {
        let output = util::arena().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let missing = dir.path("nothing");
    assert!(stderr(&["serve", missing.to_str().unwrap()]).contains("no such directory"));
    let here = dir.path("");
    let not_output = stderr(&["serve", here.to_str().unwrap()]);
    assert!(
        not_output.contains("not an output directory"),
        "{not_output}"
    );
    dir.write("games.csv", "");
    let bad = stderr(&["serve", here.to_str().unwrap(), "--serve", "localhost"]);
    assert!(bad.contains("expected HOST:PORT"), "{bad}");
    // A port in use, for `serve` and for `run --serve` (which then leaves no output behind).
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = format!("127.0.0.1:{}", taken.local_addr().unwrap().port());
    let in_use = stderr(&["serve", here.to_str().unwrap(), "--serve", &port]);
    assert!(in_use.contains("cannot listen"), "{in_use}");
    let cfg = config(&dir, "never");
    let in_use = stderr(&["run", cfg.to_str().unwrap(), "--serve", &port]);
    assert!(in_use.contains("cannot listen"), "{in_use}");
    assert!(
        !dir.path("never").exists(),
        "a refused run left its output directory"
    );
}
