//! `arena play` and `arena replay` through the real binary, with the person's input piped in:
//! whole games against `random`, every prompt command, bad input answered, engine faults
//! ending the game with the right termination, and the recorded row replayed.

mod util;

use std::path::Path;

use arena::games::{AnyPosition, GameKind};
use arena::record::{GameRecord, Termination};
use util::{Dir, arena, engine, read_games};

/// Runs `arena play` with `args` and the person's `input`, writing into `dir`; returns the exit
/// code and stdout.
fn play(dir: &Dir, args: &[&str], input: &str) -> (i32, String) {
    play_bytes(dir, args, input.as_bytes().to_vec())
}

/// [`play`] with input that need not be text.
fn play_bytes(dir: &Dir, args: &[&str], input: Vec<u8>) -> (i32, String) {
    let out = arena()
        .arg("play")
        .args(args)
        .args(["--output", &dir.path("play").display().to_string()])
        .write_stdin(input)
        .timeout(std::time::Duration::from_secs(120))
        .output()
        .expect("arena play runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), format!("{stdout}{stderr}"))
}

fn games(dir: &Dir) -> Vec<GameRecord> {
    read_games(&dir.path("play/games.csv"))
}

/// Every position of `record`, replayed with the rules: the row is a legal game.
fn replay_with_rules(record: &GameRecord) -> AnyPosition {
    let kind: GameKind = record.game.parse().unwrap();
    let mut pos = AnyPosition::from_fen(kind, &record.start_fen).unwrap();
    for mv in record.moves.split_whitespace() {
        pos.play_text(mv).unwrap();
    }
    pos
}

/// `lines` repeated `times` times, one per line.
fn cycle(lines: &[&str], times: usize) -> String {
    let mut text = String::new();
    for _ in 0..times {
        for line in lines {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

fn replay_all(games_csv: &Path, id: u64) -> String {
    let out = arena()
        .args(["replay", &games_csv.display().to_string(), "--all"])
        .args(["--game", &id.to_string()])
        .assert()
        .success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

#[test]
fn a_whole_awale_game_against_random_is_recorded_and_replays() {
    let dir = Dir::new();
    let random = engine("random");
    // Trying pits 1..6 in turn always finds a legal one; the refused ones are answered.
    let (code, out) = play(
        &dir,
        &[
            "--board",
            "{game: awale, pits: 6}",
            "--engine",
            &random,
            "--seed",
            "11",
            "--movetime",
            "200",
        ],
        &cycle(&["1", "2", "3", "4", "5", "6"], 400),
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("game over"), "{out}");
    let rows = games(&dir);
    assert_eq!(rows.len(), 1);
    let g = &rows[0];
    assert_eq!(
        (g.game_id, g.first.as_str(), g.second.as_str()),
        (0, "human", "random")
    );
    assert_eq!((g.game.as_str(), g.board.as_str()), ("awale", "awale-6"));
    assert!(
        matches!(g.termination, Termination::Normal | Termination::MaxPlies),
        "{g:?}"
    );
    let end = replay_with_rules(g);
    assert_eq!(g.plies as usize, g.moves.split_whitespace().count());
    if g.termination == Termination::Normal {
        assert_eq!(
            end.outcome().map(|o| o.result_str()),
            Some(g.result.as_str())
        );
        let scores = end.scores().unwrap();
        assert_eq!(
            (g.score_first, g.score_second),
            (Some(scores.first), Some(scores.second))
        );
    }
    // The prompt saw the refusals of empty pits, with the reason.
    assert!(out.contains("illegal move"), "{out}");

    let shown = replay_all(&dir.path("play/games.csv"), 0);
    assert!(shown.contains(&format!("ply {0}/{0}:", g.plies)), "{shown}");
    assert!(shown.contains(&format!("result {}", g.result)), "{shown}");
    assert_eq!(shown.matches(" to move\n").count(), g.plies as usize + 1);
    assert!(shown.contains(&end.render(false)), "{shown}");
    assert!(!shown.contains('\x1b'), "no colour when not a terminal");
    // moves.csv has every ply's time; the replay shows them and the time used at the end
    // matches the game's totals.
    let moves = std::fs::read_to_string(dir.path("play/moves.csv")).unwrap();
    assert_eq!(moves.lines().count(), g.plies as usize + 1, "{moves}");
    assert!(shown.contains("ply 1/"), "{shown}");
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("ply 2/") && l.ends_with(" ms")),
        "{shown}"
    );
    let seconds = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    let totals = format!(
        "time used: human {}, random {}",
        seconds(g.first_time_ms),
        seconds(g.second_time_ms)
    );
    assert!(shown.contains(&totals), "{totals} in {shown}");
}

#[test]
fn a_seven_colors_game_as_second_player_and_ids_that_follow() {
    let dir = Dir::new();
    let random = engine("random");
    let args = [
        "--board",
        "{game: seven_colors, size: 6, layout: diagonal}",
        "--engine",
        &random,
        "--human",
        "second",
        "--seed",
        "3",
        "--movetime",
        "200",
    ];
    // Every colour is always legal: this plays A, B, C, … to the end.
    let input = cycle(&["A", "B", "C", "D", "E", "F", "G"], 60);
    for _ in 0..2 {
        let (code, out) = play(&dir, &args, &input);
        assert_eq!(code, 0, "{out}");
    }
    let rows = games(&dir);
    assert_eq!(rows.iter().map(|g| g.game_id).collect::<Vec<_>>(), [0, 1]);
    for g in &rows {
        assert_eq!((g.first.as_str(), g.second.as_str()), ("random", "human"));
        assert_eq!(g.termination, Termination::Normal, "{g:?}");
        let end = replay_with_rules(g);
        assert_eq!(
            end.outcome().map(|o| o.result_str()),
            Some(g.result.as_str())
        );
        // The person's moves are the cycle, in order.
        let human: Vec<&str> = g.moves.split_whitespace().skip(1).step_by(2).collect();
        let expected: Vec<&str> = ["A", "B", "C", "D", "E", "F", "G"]
            .iter()
            .cycle()
            .take(human.len())
            .copied()
            .collect();
        assert_eq!(human, expected);
    }
    // The same seed gives the same board and the same engine moves.
    assert_eq!(rows[0].moves, rows[1].moves);
    assert!(replay_all(&dir.path("play/games.csv"), 1).contains("result"));
}

#[test]
fn bad_input_is_answered_and_resign_is_recorded() {
    let dir = Dir::new();
    let random = engine("random");
    let input = "undo\nhello\n0-1-2\n100-1-2\nmoves 93-\nfen\nhelp\n93-33-93\nundo\nresign\n";
    let (code, out) = play(
        &dir,
        &[
            "--board",
            "{game: amazons, shape: square, width: 10}",
            "--engine",
            &random,
            "--seed",
            "1",
            "--name",
            "ada",
        ],
        input,
    );
    assert_eq!(code, 0, "{out}");
    for expected in [
        "nothing to undo: you have not moved yet",
        "cannot parse move `hello`",
        "illegal move `0-1-2`",
        "cannot parse move `100-1-2`: vertex 100 is off",
        "legal moves: 93-",
        ".2.2..2.2./",
        "A move is src-dst-arrow",
        "random (second) plays",
        "took back your last move and the reply",
        "game over: random wins (resign)",
    ] {
        assert!(out.contains(expected), "missing `{expected}` in:\n{out}");
    }
    // Every input line got a new prompt, none ended the game early.
    assert_eq!(out.matches("your move (first)>").count(), 10, "{out}");
    let rows = games(&dir);
    let g = &rows[0];
    assert_eq!((g.first.as_str(), g.result.as_str()), ("ada", "0-1"));
    assert_eq!(g.termination, Termination::Resign);
    assert_eq!(
        (g.plies, g.moves.as_str()),
        (0, ""),
        "the undo took both plies back"
    );
    assert!(g.detail.contains("ada (first) resigned at ply 1"), "{g:?}");
}

// See: issue 23, audit item 9: a non-UTF-8 line was taken as the end of input, and a long
// line was echoed back whole.
#[test]
fn a_line_that_is_not_text_or_too_long_is_refused_and_play_goes_on() {
    let dir = Dir::new();
    let random = engine("random");
    let mut input = b"\xff\xfe bad bytes\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', 1 << 20));
    input.push(b'\n');
    input.extend(b"resign\n");
    let (code, out) = play_bytes(
        &dir,
        &[
            "--board",
            "{game: awale, pits: 4}",
            "--engine",
            &random,
            "--seed",
            "2",
        ],
        input,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("that line is not UTF-8 text: ignored"),
        "{out}"
    );
    assert!(
        out.contains("a line of 1048576 bytes is not a move or a command"),
        "{out}"
    );
    assert!(
        out.len() < 10_000,
        "the long line is not echoed: {} bytes",
        out.len()
    );
    // The lines after them were read: the resign is recorded.
    let rows = games(&dir);
    assert_eq!(rows.len(), 1, "{out}");
    assert_eq!(rows[0].termination, Termination::Resign);
}

// See: issue 23, item 13 of "what a newcomer and a teacher tripped over".
#[test]
fn the_engine_is_named_after_its_id_name_not_its_program() {
    let dir = Dir::new();
    let random = engine("random");
    // The program is `sh`: the engine says `id name random`.
    let script = dir.write("bot.sh", &format!("exec {random}\n"));
    let args = |extra: &[&str]| {
        let mut all = vec![
            "--board".to_owned(),
            "{game: awale, pits: 4}".to_owned(),
            "--seed".to_owned(),
            "2".to_owned(),
        ];
        all.extend(extra.iter().map(|s| (*s).to_owned()));
        all
    };
    let script = script.display().to_string();
    let with = args(&["--engine", "sh", &script]);
    let refs: Vec<&str> = with.iter().map(String::as_str).collect();
    let (code, out) = play(&dir, &refs, "resign\n");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("human (first, 1) vs random (second, 2)"),
        "{out}"
    );
    assert_eq!(games(&dir)[0].second, "random");
    // --engine-name still decides.
    let with = args(&["--engine-name", "bot", "--engine", "sh", &script]);
    let refs: Vec<&str> = with.iter().map(String::as_str).collect();
    let (code, out) = play(&dir, &refs, "resign\n");
    assert_eq!(code, 0, "{out}");
    assert_eq!(games(&dir)[1].second, "bot");
}

#[test]
fn quit_and_end_of_input_record_nothing() {
    let dir = Dir::new();
    let random = engine("random");
    let args = [
        "--board",
        "{game: awale, pits: 4}",
        "--engine",
        &random,
        "--seed",
        "2",
    ];
    let (code, out) = play(&dir, &args, "2\nquit\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("not recorded"), "{out}");
    let (code, _) = play(&dir, &args, "2\n");
    assert_eq!(code, 0);
    assert!(!dir.path("play/games.csv").exists());
}

#[test]
fn an_engine_that_crashes_or_plays_illegally_loses_the_game() {
    let dir = Dir::new();
    let hostile = engine("hostile");
    let config = dir.write(
        "engines.yaml",
        &format!(
            "time_control: {{ movetime_ms: 500 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: crasher, command: {hostile}, args: [--crash, --at, 2] }}
  - {{ name: cheat, command: {hostile}, args: [--illegal] }}
  - {{ name: mute, command: {hostile}, args: [--exit-in-handshake] }}
"
        ),
    );
    let config = config.display().to_string();
    let input = cycle(&["1", "2", "3", "4", "5", "6"], 10);
    let (code, out) = play(
        &dir,
        &[
            "--config",
            &config,
            "--engine-name",
            "crasher",
            "--seed",
            "4",
        ],
        &input,
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = play(
        &dir,
        &[
            "--config",
            &config,
            "--engine-name",
            "cheat",
            "--human",
            "second",
        ],
        &input,
    );
    assert_eq!(code, 0, "{out}");
    // An engine that never starts is an error before any game: nothing is recorded.
    let (code, out) = play(
        &dir,
        &["--config", &config, "--engine-name", "mute"],
        &input,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("engine mute: handshake failed"), "{out}");
    let rows = games(&dir);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].termination, Termination::Crash, "{:?}", rows[0]);
    assert_eq!((rows[0].result.as_str(), rows[0].plies), ("1-0", 3));
    assert!(rows[0].detail.contains("crasher (second)"), "{:?}", rows[0]);
    assert_eq!(
        rows[1].termination,
        Termination::IllegalMove,
        "{:?}",
        rows[1]
    );
    assert_eq!(rows[1].result.as_str(), "0-1");
    assert!(rows[1].detail.contains("cheat (first)"), "{:?}", rows[1]);
    // Both rows replay: a game that ended on a fault is still a legal prefix.
    let shown = replay_all(&dir.path("play/games.csv"), 0);
    assert!(
        shown.contains("result 1-0 (crash, 0-0): crasher (second) failed at ply 4"),
        "{shown}"
    );
}

#[test]
fn usage_errors_exit_2_and_name_the_problem() {
    let dir = Dir::new();
    let random = engine("random");
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "--board",
                "{game: awale, pits: 6}",
                "--engine",
                "./no-such-engine",
            ],
            "does not exist",
        ),
        (
            &["--board", "{game: chess}", "--engine", &random],
            "--board",
        ),
        (&["--engine", &random], "give the board with --board"),
        (
            &[
                "--board",
                "{game: awale}",
                "--engine",
                &random,
                "--engine-name",
                "human",
            ],
            "both called `human`",
        ),
    ];
    for (args, message) in cases {
        let (code, out) = play(&dir, args, "");
        assert_eq!(code, 2, "{args:?}: {out}");
        assert!(out.contains(message), "{args:?}: {out}");
    }
    // An engine that does not play the game is refused before any move.
    let (code, out) = play(
        &dir,
        &[
            "--board",
            "{game: amazons, width: 10}",
            "--engine",
            &engine("greedy"),
        ],
        "",
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("greedy does not play amazons"), "{out}");
}

#[test]
fn replay_steps_back_and_forth_and_reports_bad_rows() {
    let dir = Dir::new();
    let games_csv = dir.write(
        "games.csv",
        "game_id,round,board,game,pair,first,second,result,termination,plies,score_first,score_second,duration_ms,first_time_ms,second_time_ms,start_fen,moves,detail
4,1,awale-6,awale,4,a,b,1/2-1/2,max_plies,2,0,0,10,1200,3400,\"4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture\",3 4,adjudicated after 2 plies
5,1,awale-6,awale,5,a,b,1-0,normal,2,0,0,10,0,0,\"4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture\",3 7,
",
    );
    let path = games_csv.display().to_string();
    let out = arena()
        .args(["replay", &path, "--game", "4"])
        .write_stdin("\n\nb\nb\nb\n2\nnonsense\n9\nq\n")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let plies: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("ply ") || l.starts_with("start position"))
        .collect();
    assert_eq!(
        plies,
        [
            "start position, 2 plies to come",
            "ply 1/2: a (first) played 3",
            "ply 2/2: b (second) played 4",
            "ply 1/2: a (first) played 3",
            "start position, 2 plies to come",
            "ply 2/2: b (second) played 4",
        ],
        "{stdout}"
    );
    assert!(stdout.contains("this is the start position"), "{stdout}");
    assert!(
        stdout.contains("type Enter, b, a ply number (0..2) or q"),
        "{stdout}"
    );
    assert!(stdout.contains("no ply 9: the game has 2"), "{stdout}");
    assert!(
        stdout.contains("thinking time: a 1.2 s, b 3.4 s"),
        "{stdout}"
    );
    assert!(stdout.contains("result 1/2-1/2 (max_plies, 0-0): adjudicated after 2 plies"));

    let bad = arena()
        .args(["replay", &path, "--game", "5", "--all"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(
        stderr.contains("game 5, ply 2: cannot parse move `7`"),
        "{stderr}"
    );
    let missing = arena()
        .args(["replay", &path, "--game", "6"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&missing.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no game 6 (its ids run from 4 to 5)"),
        "{stderr}"
    );
}
