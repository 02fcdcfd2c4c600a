//! Every reference engine, driven over its real stdin/stdout: answers a legal move from
//! hand-picked positions of every board type, and replays identically under `go depth` or
//! `go nodes` with a fixed seed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use arena::games::{AnyPosition, GameKind};

/// (binary, games it plays)
const ENGINES: &[(&str, &str, &[GameKind])] = &[
    ("random", env!("CARGO_BIN_EXE_random"), &GameKind::ALL),
    ("mcts", env!("CARGO_BIN_EXE_mcts"), &GameKind::ALL),
    ("alphabeta", env!("CARGO_BIN_EXE_alphabeta"), &GameKind::ALL),
    (
        "greedy",
        env!("CARGO_BIN_EXE_greedy"),
        &[GameKind::SevenColors, GameKind::Awale],
    ),
    (
        "random-available",
        env!("CARGO_BIN_EXE_random-available"),
        &[GameKind::SevenColors],
    ),
    (
        "hegemonic",
        env!("CARGO_BIN_EXE_hegemonic"),
        &[GameKind::SevenColors],
    ),
    (
        "foresight",
        env!("CARGO_BIN_EXE_foresight"),
        &[GameKind::SevenColors],
    ),
    (
        "hybrid",
        env!("CARGO_BIN_EXE_hybrid"),
        &[GameKind::SevenColors],
    ),
    (
        "mobility",
        env!("CARGO_BIN_EXE_mobility"),
        &[GameKind::Amazons],
    ),
];

/// Hand-picked positions: starts, mid-games, a must-feed Awale, an Amazons queen almost walled
/// in, a torus, a diagonal board, holes.
const POSITIONS: &[(GameKind, &str, &str)] = &[
    (GameKind::SevenColors, "AB2/CDE/1FA 1 plane", ""),
    (
        GameKind::SevenColors,
        "CAEBB2/DBGEDE/ABDBGG/GACDCA/ABDBAA/1EAEFE 1 plane",
        "A E",
    ),
    (
        GameKind::SevenColors,
        "GDBAC2/DGDBAC/BDGDBA/ABDGDB/CABDGD/1CABDG 1 plane",
        "",
    ),
    (
        GameKind::SevenColors,
        "EACAEF/BBCB2G/CFFBBE/GGEEDE/C1EFCD/CCCAGF 1 torus",
        "C",
    ),
    (
        GameKind::Amazons,
        "...2..2.../........../........../2........2/........../........../1........1/........../........../...1..1... 1",
        "",
    ),
    (
        GameKind::Amazons,
        "..x.2./2.2..2/..##../..##../1.x..1/...11. 1",
        "",
    ),
    (GameKind::Amazons, "1x.../x..../...../...../....2 1", ""),
    (
        GameKind::Amazons,
        "1......./......../....##../....##../..##..../..##..../......../.......2 2",
        "",
    ),
    (
        GameKind::Awale,
        "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture",
        "3 4",
    ),
    (
        GameKind::Awale,
        "0,0,0,3,1,0/0,0,0,0,0,0 10,10 1 no_capture",
        "",
    ),
    (
        GameKind::Awale,
        "1,0,0,0,0,2/1,1,0,0,0,0 0,0 1 forbidden",
        "",
    ),
    (
        GameKind::Awale,
        "5,5,0,5,5,5,5,4,0,5/5,5,5,4,4,4,4,0,5,5 0,0 2 no_capture",
        "",
    ),
];

/// Plays a session with the engine as the runner would: one `go` at a time, reading up to its
/// `bestmove` before sending more. Returns the answers.
fn converse(
    binary: &str,
    game: GameKind,
    seed: u64,
    go: &str,
    positions: &[(&str, &str)],
) -> Vec<String> {
    let mut child = Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("engine starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok);
    let mut say = |line: String| stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
    say(format!(
        "ugi\nsetoption name UGI_Variant value {game}\nsetoption name Seed value {seed}\nuginewgame\nisready"
    ));
    assert!(out.by_ref().any(|l| l == "readyok"));
    let mut answers = Vec::new();
    for (fen, moves) in positions {
        let moves = if moves.is_empty() {
            String::new()
        } else {
            format!(" moves {moves}")
        };
        say(format!("position fen {fen}{moves}\n{go}"));
        let answer = out
            .by_ref()
            .find_map(|l| l.strip_prefix("bestmove ").map(str::to_owned));
        answers.push(answer.expect("a bestmove"));
    }
    say("quit".into());
    child.wait().unwrap();
    answers
}

#[test]
fn every_engine_answers_a_legal_move_on_every_board_type() {
    for &(name, binary, games) in ENGINES {
        for &game in games {
            let positions: Vec<(&str, &str)> = POSITIONS
                .iter()
                .filter(|p| p.0 == game)
                .map(|p| (p.1, p.2))
                .collect();
            let answers = converse(binary, game, 7, "go nodes 300", &positions);
            assert_eq!(answers.len(), positions.len(), "{name} on {game}");
            for ((fen, moves), answer) in positions.iter().zip(&answers) {
                let mut pos = AnyPosition::from_fen(game, fen).unwrap();
                for mv in moves.split_whitespace() {
                    pos.play_text(mv).unwrap();
                }
                if pos.outcome().is_some() {
                    assert_eq!(answer, "resign", "{name}: game over at {fen}");
                } else {
                    assert!(
                        pos.clone().play_text(answer).is_ok(),
                        "{name} answered illegal `{answer}` at {fen} moves {moves}"
                    );
                }
            }
        }
    }
}

#[test]
fn engines_replay_identically_under_depth_and_nodes() {
    for &(name, binary, games) in ENGINES {
        for &game in games {
            let positions: Vec<(&str, &str)> = POSITIONS
                .iter()
                .filter(|p| p.0 == game)
                .map(|p| (p.1, p.2))
                .collect();
            for go in ["go depth 2", "go nodes 200"] {
                let a = converse(binary, game, 11, go, &positions);
                let b = converse(binary, game, 11, go, &positions);
                assert_eq!(a, b, "{name} on {game} with {go}");
            }
        }
    }
}

#[test]
fn engines_refuse_games_they_do_not_play_by_resigning() {
    let start = [("4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture", "")];
    let answers = converse(
        env!("CARGO_BIN_EXE_mobility"),
        GameKind::Awale,
        1,
        "go movetime 10",
        &start,
    );
    assert_eq!(answers, vec!["resign"]);
}
