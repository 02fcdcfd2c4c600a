//! Per-move engine info and adjudication through the binary: `--record-moves` writes a
//! moves.csv whose rows are exactly games.csv's moves, engines.csv sums them per engine, a
//! resume never duplicates or keeps rows of games that are not kept, and scripted engine scores
//! end games by adjudication with the right termination and winner.

mod util;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use arena::record::{GameRecord, Termination};
use util::{Dir, arena, engine, read_games};

/// A moves.csv as rows of named fields.
fn read_moves(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("moves.csv");
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        header.iter().collect::<Vec<_>>().join(","),
        "game_id,ply,side,engine,move,time_ms,depth,seldepth,score_cp,score_mate,nodes,nps,pv"
    );
    reader
        .records()
        .map(|r| {
            let r = r.expect("a whole row");
            header
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// Every game of games.csv, in its order, has its plies in moves.csv, in the same order, with
/// the same moves and the engine of the side that played each.
fn assert_rows_match(games: &[GameRecord], moves: &[BTreeMap<String, String>]) {
    let mut expected = Vec::new();
    for g in games {
        for (i, mv) in g.moves.split(' ').filter(|m| !m.is_empty()).enumerate() {
            expected.push((g.game_id.to_string(), (i + 1).to_string(), mv.to_owned()));
        }
    }
    let got: Vec<_> = moves
        .iter()
        .map(|r| (r["game_id"].clone(), r["ply"].clone(), r["move"].clone()))
        .collect();
    assert_eq!(got, expected);
    let by_id: BTreeMap<String, &GameRecord> =
        games.iter().map(|g| (g.game_id.to_string(), g)).collect();
    for r in moves {
        let g = by_id[&r["game_id"]];
        let engine = if r["side"] == "first" {
            &g.first
        } else {
            &g.second
        };
        assert_eq!(&r["engine"], engine, "{r:?}");
        assert!(r["time_ms"].parse::<u64>().is_ok(), "{r:?}");
    }
}

fn match_config(dir: &Dir, out: &str, extra: &str) -> std::path::PathBuf {
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: moves
seed: 5
rounds: 2
concurrency: 2
time_control: {{ depth: 2 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 3 }}
  - {{ game: seven_colors, size: 6 }}
engines:
  - {{ name: alphabeta, command: {alphabeta} }}
  - {{ name: random, command: {random} }}
output: {out}
{extra}",
            alphabeta = engine("alphabeta"),
            random = engine("random"),
            out = dir.path(out).display(),
        ),
    )
}

#[test]
fn record_moves_rows_match_games_csv_and_engines_csv_sums_them() {
    let dir = Dir::new();
    let path = match_config(&dir, "rec", "");
    let run = arena()
        .args(["run", "--record-moves"])
        .arg(&path)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    let games = read_games(&dir.path("rec/games.csv"));
    assert_eq!(games.len(), 8);
    let moves = read_moves(&dir.path("rec/moves.csv"));
    assert_rows_match(&games, &moves);
    // alphabeta reports depth, score, nodes and pv on every move; random reports nothing.
    for r in &moves {
        if r["engine"] == "alphabeta" {
            assert!(!r["depth"].is_empty() && !r["score_cp"].is_empty(), "{r:?}");
            assert!(!r["nodes"].is_empty() && !r["pv"].is_empty(), "{r:?}");
        } else {
            assert!(r["depth"].is_empty() && r["pv"].is_empty(), "{r:?}");
        }
    }
    let engines = fs::read_to_string(dir.path("rec/engines.csv")).unwrap();
    let lines: Vec<&str> = engines.lines().collect();
    assert_eq!(
        lines[0],
        "engine,games,moves,mean_time_ms,mean_depth,mean_nps,time_forfeits,crashes,illegal_moves,protocol_errors"
    );
    let alphabeta: Vec<&str> = lines[1].split(',').collect();
    let own_moves = moves.iter().filter(|r| r["engine"] == "alphabeta").count();
    assert_eq!(alphabeta[0], "alphabeta");
    assert_eq!(alphabeta[1], "8");
    assert_eq!(alphabeta[2], own_moves.to_string());
    assert!(
        !alphabeta[4].is_empty() && !alphabeta[5].is_empty(),
        "{engines}"
    );
    let random: Vec<&str> = lines[2].split(',').collect();
    assert_eq!((random[4], random[5]), ("", ""), "{engines}");
    assert!(stdout.contains("ms/move"), "{stdout}");

    // Without the flag: no moves.csv, and engines.csv leaves depth and nodes/s empty.
    let path = match_config(&dir, "plain", "");
    arena().args(["run", "-q"]).arg(&path).assert().success();
    assert!(!dir.path("plain/moves.csv").exists());
    let engines = fs::read_to_string(dir.path("plain/engines.csv")).unwrap();
    let alphabeta: Vec<&str> = engines.lines().nth(1).unwrap().split(',').collect();
    assert_eq!((alphabeta[4], alphabeta[5]), ("", ""), "{engines}");
}

#[test]
fn a_resume_keeps_no_row_of_a_game_that_is_played_again() {
    let dir = Dir::new();
    let path = match_config(&dir, "res", "record_moves: true\n");
    arena().args(["run", "-q"]).arg(&path).assert().success();
    let games_path = dir.path("res/games.csv");
    let moves_path = dir.path("res/moves.csv");
    let full = read_games(&games_path);
    // As if killed after writing a game's moves but before its games.csv row, in the middle
    // of a further game's rows: the last game's row is gone and a half row follows.
    let text = fs::read_to_string(&games_path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    fs::write(&games_path, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let lost = full.last().unwrap().game_id;
    let mut moves_text = fs::read_to_string(&moves_path).unwrap();
    moves_text.push_str("99,1,first,random,");
    fs::write(&moves_path, moves_text).unwrap();

    arena().args(["run", "-q"]).arg(&path).assert().success();
    let games = read_games(&games_path);
    assert_eq!(games.len(), full.len());
    let moves = read_moves(&moves_path);
    assert_rows_match(&games, &moves);
    let replayed = games.iter().find(|g| g.game_id == lost).unwrap();
    let plies = moves.iter().filter(|r| r["game_id"] == lost.to_string());
    assert_eq!(plies.count(), replayed.plies as usize, "no duplicate rows");
    let dropped = fs::read_to_string(dir.path("res/moves.dropped.csv")).unwrap();
    let orphan = full.last().unwrap().plies as usize;
    // Header, the orphan game's rows, the half row.
    assert_eq!(dropped.lines().count(), 1 + orphan + 1, "{dropped}");
    assert!(
        dropped
            .lines()
            .last()
            .unwrap()
            .starts_with("99,1,first,random")
    );
}

#[test]
fn ctrl_c_then_resume_with_record_moves_keeps_every_game_once() {
    // Slow enough to be interrupted: 6 games at 20 ms a move, engines that use their movetime.
    let dir = Dir::new();
    let path = dir.write(
        "int.yaml",
        &format!(
            "name: int
seed: 4
rounds: 3
concurrency: 2
time_control: {{ movetime_ms: 20 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: a, command: {alphabeta} }}
  - {{ name: b, command: {mcts} }}
record_moves: true
output: {out}
",
            alphabeta = engine("alphabeta"),
            mcts = engine("mcts"),
            out = dir.path("int").display(),
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["run", "-q"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena starts");
    let games_path = dir.path("int/games.csv");
    let started = Instant::now();
    while fs::read_to_string(&games_path).map_or(0, |t| t.lines().count()) < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "finished before the interrupt"
        );
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        thread::sleep(Duration::from_millis(5));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let partial = read_games(&games_path);
    assert!(partial.len() < 6, "{}", partial.len());
    assert_rows_match(&partial, &read_moves(&dir.path("int/moves.csv")));

    arena().args(["run", "-q"]).arg(&path).assert().success();
    let games = read_games(&games_path);
    assert_eq!(games.len(), 6);
    assert_rows_match(&games, &read_moves(&dir.path("int/moves.csv")));
}

/// Two `hostile` engines sending scripted scores, with `adjudication`.
fn scripted(dir: &Dir, out: &str, a: &str, b: &str, adjudication: &str) -> std::path::PathBuf {
    let hostile = engine("hostile");
    dir.write(
        &format!("{out}.yaml"),
        &format!(
            "name: adj
seed: 3
rounds: 1
concurrency: 1
restart: per_game
time_control: {{ movetime_ms: 1000 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: a, command: {hostile}, args: [--scores, '{a}'] }}
  - {{ name: b, command: {hostile}, args: [--scores, '{b}'] }}
adjudication: {adjudication}
output: {out}
",
            out = dir.path(out).display(),
        ),
    )
}

#[test]
fn scripted_scores_end_games_by_adjudication() {
    let dir = Dir::new();
    // a always sees itself 15 pawns up, b sees itself 15 down: a wins at ply 6 (3 moves each).
    let path = scripted(
        &dir,
        "win",
        "cp:1500",
        "cp:-1500",
        "{ resign: { moves: 3, score_cp: 1000 } }",
    );
    let run = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).into_owned();
    assert!(!stdout.contains("failures of"), "not a failure: {stdout}");
    let games = read_games(&dir.path("win/games.csv"));
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.termination, Termination::AdjudicatedWin, "{g:?}");
        assert_eq!(g.plies, 6, "{g:?}");
        let expected = if g.first == "a" { "1-0" } else { "0-1" };
        assert_eq!(g.result, expected, "{g:?}");
        assert!(
            g.detail.contains("cp 1500") && g.detail.contains("cp -1500"),
            "{}",
            g.detail
        );
    }

    // Level scores after ply 4, two moves each, would draw at ply 8; a's mate score at its
    // third move (ply 5 as first player, 6 as second) puts the draw at ply 9 or 10.
    let path = scripted(
        &dir,
        "draw",
        "cp:3,cp:0,mate:5,cp:0",
        "cp:0",
        "{ draw: { moves: 2, score_cp: 10, after_ply: 4 } }",
    );
    arena().args(["run", "-q"]).arg(&path).assert().success();
    for g in read_games(&dir.path("draw/games.csv")) {
        assert_eq!(g.termination, Termination::AdjudicatedDraw, "{g:?}");
        assert_eq!(g.result, "1/2-1/2");
        let expected = if g.first == "a" { 9 } else { 10 };
        assert_eq!(g.plies, expected, "{g:?}");
    }

    // Engines that each think they win are never adjudicated: the game goes on.
    let path = scripted(
        &dir,
        "disagree",
        "cp:1500",
        "cp:1500",
        "{ resign: { moves: 1, score_cp: 100 } }",
    );
    arena().args(["run", "-q"]).arg(&path).assert().success();
    for g in read_games(&dir.path("disagree/games.csv")) {
        assert_ne!(g.termination, Termination::AdjudicatedWin, "{g:?}");
        assert!(g.plies > 6, "{g:?}");
    }
}

#[test]
fn a_bad_adjudication_section_is_a_config_error_naming_the_key() {
    let dir = Dir::new();
    let path = scripted(
        &dir,
        "bad",
        "cp:0",
        "cp:0",
        "{ resign: { moves: 0, score_cp: 1000 } }",
    );
    let out = arena().arg("run").arg(&path).assert().code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("adjudication: resign.moves"), "{stderr}");
    assert!(stderr.contains("bad.yaml"), "{stderr}");
}

#[test]
fn arena_play_writes_the_engines_info_in_the_same_columns() {
    let dir = Dir::new();
    let alphabeta = engine("alphabeta");
    let out = dir.path("play").display().to_string();
    // The person cycles through the colours (an illegal one is refused and the next tried).
    let input = ["A", "B", "C", "D", "E", "F", "G"].repeat(60).join("\n") + "\n";
    arena()
        .args(["play", "--board", "{game: seven_colors, size: 6}"])
        .args(["--engine", &alphabeta, "--human", "second", "--seed", "3"])
        .args(["--movetime", "30", "--output", &out])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .success();
    let games = read_games(&dir.path("play/games.csv"));
    let moves = read_moves(&dir.path("play/moves.csv"));
    assert_rows_match(&games, &moves);
    // A person sends no info; alphabeta sends depth and score on every move it searches (a
    // forced move, the only legal one, it plays without a search).
    let (engine_rows, person_rows): (Vec<_>, Vec<_>) =
        moves.iter().partition(|r| r["side"] == "first");
    assert!(
        person_rows
            .iter()
            .all(|r| r["depth"].is_empty() && r["pv"].is_empty())
    );
    let searched = engine_rows
        .iter()
        .filter(|r| !r["depth"].is_empty() && !r["score_cp"].is_empty())
        .count();
    assert!(searched * 2 > engine_rows.len(), "{engine_rows:?}");
}
