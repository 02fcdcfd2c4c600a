//! `arena ratings` on files from arena and from other tools, through the real binary: the same
//! games give the same ratings whatever file they come in, a run's files are reproduced byte
//! for byte, and bad input gets a located error (exit 2) and writes nothing.

mod util;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use arena::record::{GameRecord, Termination};
use arena::report::files::GamesWriter;
use util::{Dir, arena, engine};

/// Runs `arena ratings FILE --output DIR [extra]` and returns DIR's ratings.csv and pairs.csv.
fn rate(input: &Path, out: &Path, extra: &[&str]) -> (String, String) {
    arena()
        .arg("ratings")
        .arg(input)
        .arg("--output")
        .arg(out)
        .args(extra)
        .assert()
        .success();
    (
        fs::read_to_string(out.join("ratings.csv")).unwrap(),
        fs::read_to_string(out.join("pairs.csv")).unwrap(),
    )
}

/// Rows of scope `all` (every format can say which games were played; only some say on which
/// board).
fn all_scope(table: &str) -> Vec<&str> {
    table
        .lines()
        .filter(|l| l.starts_with("all,") || l.starts_with("scope,"))
        .collect()
}

/// One game of the synthetic match: (first, second, result).
type Game = (&'static str, &'static str, &'static str);

/// Three engines, six game pairs per engine pair, in pair order (leg 2 swaps the players).
/// Results are drawn so that the two legs of a pair are correlated (the first mover is
/// favoured), which makes the pair-clustered intervals differ from independent-game ones.
fn games() -> Vec<Game> {
    let engines = ["alpha", "beta", "gamma"];
    let results = ["1-0", "0-1", "1/2-1/2"];
    let mut state = 12345u64;
    let mut draw = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let mut games = Vec::new();
    for _ in 0..6 {
        for (i, a) in engines.iter().enumerate() {
            for b in &engines[i + 1..] {
                // alpha is strongest; two times in three both legs have the same result,
                // i.e. the first mover of each leg does as well (correlated legs).
                let bias = if *a == "alpha" { 0 } else { 1 };
                let first = results[((draw(4) + bias) % 3) as usize];
                let second = if draw(3) == 0 {
                    results[draw(3) as usize]
                } else {
                    first
                };
                games.push((*a, *b, first));
                games.push((*b, *a, second));
            }
        }
    }
    games
}

fn full_games_csv(dir: &Dir, games: &[Game]) -> std::path::PathBuf {
    let path = dir.path("full/games.csv");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut writer = GamesWriter::append(&path).unwrap();
    for (i, (first, second, result)) in games.iter().enumerate() {
        writer
            .write(&GameRecord {
                game_id: i as u64,
                round: 1 + i as u32 / 6,
                board: "awale-6".into(),
                game: "awale".into(),
                pair: i as u64 / 2,
                first: (*first).into(),
                second: (*second).into(),
                result: (*result).into(),
                termination: Termination::Normal,
                plies: 40,
                score_first: Some(20),
                score_second: Some(28),
                duration_ms: 12,
                first_time_ms: 5,
                second_time_ms: 6,
                start_fen: "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture".into(),
                // Distinct games: equal moves would make them repeats, rated once.
                moves: format!("1 2 {i}"),
                detail: String::new(),
                repeat_of: None,
            })
            .unwrap();
    }
    path
}

/// A move that differs between the games of a file (up to 40): games with equal moves, players
/// and result would be repeats, rated once.
fn distinct_move(i: usize) -> String {
    format!(
        "{}{}",
        ["a", "b", "c", "d", "e", "f", "g", "h"][i % 8],
        3 + i / 8
    )
}

/// What cutechess-cli writes with `-games 2 -repeat`: the legs of a pair one after the other,
/// moves with evaluation comments, Round = the round number.
fn cutechess_pgn(games: &[Game]) -> String {
    let mut out = String::new();
    for (i, (white, black, result)) in games.iter().enumerate() {
        let _ = write!(
            out,
            "[Event \"?\"]\n[Site \"?\"]\n[Date \"2024.05.01\"]\n[Round \"{}\"]\n\
             [White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\
             [FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n\
             [PlyCount \"3\"]\n[SetUp \"1\"]\n[TimeControl \"40/60+0.6\"]\n\n\
             1... e5 {{+0.31/12 0.52s}} 2. Nf3 {{-0.12/11 0.48s}} {}\n\
             {{book exit; game adjudicated}} {result}\n\n",
            1 + i / 2,
            distinct_move(i)
        );
    }
    out
}

/// What fastchess writes with `-repeat` at concurrency > 1: games in the order they finished
/// (the legs of a pair apart), Round = the pair's round, `?` for unfinished games.
fn fastchess_pgn(games: &[Game]) -> String {
    // Every first leg in order, then every second leg backwards, then an unfinished game.
    let mut order: Vec<usize> = (0..games.len()).step_by(2).collect();
    order.extend((1..games.len()).step_by(2).rev());
    let mut out = String::new();
    for i in order {
        let (white, black, result) = games[i];
        let _ = write!(
            out,
            "[Event \"Fastchess Tournament\"]\n[Site \"?\"]\n[Date \"2024.05.01\"]\n\
             [Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\
             [GameDuration \"00:00:02\"]\n[GameStartTime \"2024-05-01T10:00:00 +0000\"]\n\
             [GameEndTime \"2024-05-01T10:00:02 +0000\"]\n[PlyCount \"2\"]\n\
             [Termination \"adjudication\"]\n[TimeControl \"10+0.1\"]\n[ECO \"C20\"]\n\n\
             1. e4 {{+0.31/16 0.105s}} {} {{-0.12/15 0.101s, White wins by adjudication}} {result}\n\n",
            1 + i / 2,
            distinct_move(i)
        );
    }
    out.push_str(
        "[Event \"Fastchess Tournament\"]\n[Round \"999\"]\n[White \"alpha\"]\n[Black \"beta\"]\n\
         [Result \"*\"]\n\n1. d4 *\n",
    );
    out
}

fn minimal_csv(games: &[Game]) -> String {
    let short = |r: &str| match r {
        "1-0" => "1",
        "0-1" => "0",
        _ => "=",
    };
    let mut out = "first,second,result\n".to_owned();
    for (first, second, result) in games {
        let _ = writeln!(out, "{first},{second},{}", short(result));
    }
    out
}

/// What the fit depends on: each game pair (or lone game) as its sorted (first, second,
/// result) games, all sorted.
fn rated_games(path: &Path) -> Vec<Vec<(String, String, String)>> {
    let import = arena::import::read(path, arena::import::PairMode::Auto).unwrap();
    let mut clusters: std::collections::BTreeMap<u64, Vec<(String, String, String)>> =
        std::collections::BTreeMap::new();
    for g in import.games {
        let r = g.record;
        clusters
            .entry(r.pair)
            .or_default()
            .push((r.first, r.second, r.result));
    }
    let mut out: Vec<_> = clusters
        .into_values()
        .map(|mut c| {
            c.sort();
            c
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_format_gives_the_ratings_of_the_full_games_csv() {
    let dir = Dir::new();
    let games = games();
    let full = full_games_csv(&dir, &games);
    let (ratings, pairs) = rate(&full, &dir.path("r-full"), &[]);
    // The reference must depend on pairs, or the comparisons below would prove nothing.
    let (unpaired, _) = rate(&full, &dir.path("r-none"), &["--pairs", "none"]);
    assert_ne!(all_scope(&unpaired), all_scope(&ratings));
    let elo = |table: &str| -> Vec<String> {
        table
            .lines()
            .filter(|l| l.starts_with("all,"))
            .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
            .collect()
    };
    assert_eq!(
        elo(&unpaired),
        elo(&ratings),
        "pairs change intervals, not ratings"
    );

    let inputs = [
        ("cutechess.pgn", cutechess_pgn(&games), "consecutive"),
        (
            "fastchess.pgn",
            fastchess_pgn(&games),
            "games of the same round",
        ),
        ("minimal.csv", minimal_csv(&games), "consecutive"),
    ];
    for (name, text, pairing) in inputs {
        let path = dir.write(name, &text);
        let out = arena()
            .arg("ratings")
            .arg(&path)
            .arg("--output")
            .arg(dir.path(&format!("r-{name}")))
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!("game pairs: {pairing}")) && stderr.contains("; 18 pairs"),
            "{name}: {stderr}"
        );
        // The fit sees the same games and the same pairs: equal to far better than 0.01 Elo.
        assert_eq!(rated_games(&path), rated_games(&full), "{name}");
        let got = fs::read_to_string(dir.path(&format!("r-{name}/ratings.csv"))).unwrap();
        let got_pairs = fs::read_to_string(dir.path(&format!("r-{name}/pairs.csv"))).unwrap();
        assert_eq!(all_scope(&got), all_scope(&ratings), "{name}");
        assert_eq!(all_scope(&got_pairs), all_scope(&pairs), "{name}");
    }
    assert!(
        fs::read_to_string(dir.path("r-fastchess.pgn/results.pgn"))
            .unwrap()
            .matches("[White ")
            .count()
            == games.len(),
        "the unfinished game is not written"
    );

    // cutechess-cli with --pairs consecutive forced, and arena's own PGN (written by the
    // ratings above from the full games.csv) read back.
    let cc = dir.path("cutechess.pgn");
    let (forced, _) = rate(&cc, &dir.path("r-cc-forced"), &["--pairs", "consecutive"]);
    assert_eq!(all_scope(&forced), all_scope(&ratings));
    let own = dir.path("r-full/results.pgn");
    let (again, again_pairs) = rate(&own, &dir.path("r-own"), &[]);
    // arena's PGN carries board (Site), game (Variant) and pair: every scope matches.
    assert_eq!(again, ratings);
    assert_eq!(again_pairs, pairs);
    assert_eq!(
        fs::read_to_string(dir.path("r-own/results.pgn")).unwrap(),
        fs::read_to_string(&own).unwrap()
    );
}

#[test]
fn ratings_reproduces_a_runs_files_and_does_not_overwrite_them() {
    let dir = Dir::new();
    let config = dir.write(
        "t.yaml",
        &format!(
            "name: reproduce
seed: 7
rounds: 2
time_control: {{ depth: 1 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 2 }}
  - {{ game: seven_colors, size: 8, layout: random }}
engines:
  - {{ name: alphabeta, command: {alphabeta}, games: [seven_colors] }}
  - {{ name: greedy, command: {greedy} }}
  - {{ name: random, command: {random} }}
anchor: {{ engine: random, elo: 1000 }}
confidence: 0.9
output: {out}
",
            greedy = engine("greedy"),
            random = engine("random"),
            alphabeta = engine("alphabeta"),
            out = dir.path("out").display(),
        ),
    );
    arena().args(["run", "-q"]).arg(&config).assert().success();
    let run_file = |name: &str| fs::read_to_string(dir.path("out").join(name)).unwrap();
    let header = run_file("ratings.csv");
    assert!(
        header.starts_with("scope,rank,engine,elo,ci_low,ci_high,err90,games,"),
        "the half-width column follows the confidence level: {header}"
    );
    assert!(run_file("results.pgn").contains("[Event \"reproduce\"]\n"));
    assert!(run_file("results.pgn").contains("[Variant \"awale\"]\n[Pair \""));

    // From games.csv and from results.pgn, into other directories: the same bytes (name,
    // anchor, level and engine order come from config.resolved.yaml beside the input).
    for input in ["games.csv", "results.pgn"] {
        let other = dir.path(&format!("from-{input}"));
        arena()
            .arg("ratings")
            .arg(dir.path("out").join(input))
            .arg("--output")
            .arg(&other)
            .assert()
            .success();
        for name in ["ratings.csv", "pairs.csv", "results.pgn"] {
            assert_eq!(
                fs::read_to_string(other.join(name)).unwrap(),
                run_file(name),
                "{name} from {input}"
            );
        }
    }

    // The config mattered: alphabeta, listed first, plays only the second board, so without
    // the config beside games.csv the engines come in order of appearance and the Event is
    // the directory's name.
    fs::create_dir(dir.path("bare")).unwrap();
    fs::copy(dir.path("out/games.csv"), dir.path("bare/games.csv")).unwrap();
    let (_, bare_pairs) = rate(
        &dir.path("bare/games.csv"),
        &dir.path("bare/out"),
        &["--anchor", "random=1000", "--confidence", "0.9"],
    );
    assert!(run_file("pairs.csv").contains("\nall,alphabeta,greedy,"));
    assert!(bare_pairs.contains("\nall,greedy,alphabeta,"));
    assert!(
        fs::read_to_string(dir.path("bare/out/results.pgn"))
            .unwrap()
            .starts_with("[Event \"bare\"]")
    );

    // Into the run's own directory: refused unless --force; never over the input itself.
    let before = run_file("ratings.csv");
    let refused = arena()
        .arg("ratings")
        .arg(dir.path("out/games.csv"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        stderr.contains("already holds ratings.csv, pairs.csv, results.pgn")
            && stderr.contains("--output")
            && stderr.contains("--force"),
        "{stderr}"
    );
    let own_pgn = arena()
        .arg("ratings")
        .arg(dir.path("out/results.pgn"))
        .arg("--force")
        .assert()
        .code(2);
    assert!(
        String::from_utf8_lossy(&own_pgn.get_output().stderr).contains("is the input"),
        "{:?}",
        own_pgn.get_output()
    );
    // The directory stands for its games.csv.
    arena()
        .arg("ratings")
        .arg(dir.path("out"))
        .arg("--force")
        .assert()
        .success();
    assert_eq!(run_file("ratings.csv"), before);

    // Overriding the level renames the column.
    let (level, _) = rate(
        &dir.path("out/games.csv"),
        &dir.path("l99"),
        &["--confidence", "0.99"],
    );
    assert!(level.starts_with("scope,rank,engine,elo,ci_low,ci_high,err99,"));
}

#[test]
fn bad_input_is_a_located_error_and_writes_nothing() {
    let dir = Dir::new();
    let csv_head = "first,second,result\n";
    let cases: Vec<(&str, String, Vec<&str>, String)> = vec![
        (
            "banana.csv",
            format!("{csv_head}a,b,1-0\nb,a,banana\n"),
            vec![],
            "banana.csv:3: unknown result `banana`".into(),
        ),
        (
            "self.csv",
            format!("{csv_head}a,b,1-0\nc,c,0-1\n"),
            vec![],
            "self.csv:3: engine `c` plays itself".into(),
        ),
        (
            "self.pgn",
            "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n[White \"x\"]\n[Black \"x\"]\n[Result \"1-0\"]\n".into(),
            vec![],
            "self.pgn:5: engine `x` plays itself".into(),
        ),
        (
            "quote.pgn",
            "[White \"a\"]\n[Black \"b\n[Result \"1-0\"]\n".into(),
            vec![],
            "quote.pgn:2: tag Black: the value has no closing quote".into(),
        ),
        (
            "header.csv",
            "white,result\na,1\n".into(),
            vec![],
            "header.csv:1: no `second` or `black` column".into(),
        ),
        (
            "unfinished.pgn",
            "[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n".into(),
            vec![],
            "unfinished.pgn: nothing to rate: all 1 games are unfinished".into(),
        ),
        (
            "nan.csv",
            format!("{csv_head}a,b,1-0\n"),
            vec!["--anchor", "a=NaN"],
            "--anchor a=NaN: the rating must be a finite number".into(),
        ),
        (
            "inf.csv",
            format!("{csv_head}a,b,1-0\n"),
            vec!["--anchor", "a=inf"],
            "--anchor a=inf: the rating must be a finite number".into(),
        ),
        // Audit item 6: a finite anchor so large that the ratings would be `inf`.
        (
            "huge.csv",
            format!("{csv_head}a,b,1-0\n"),
            vec!["--anchor", "a=1e308"],
            "--anchor a=1e308: the rating must be a finite number within ±1000000".into(),
        ),
        // Audit item 11: an unclosed quote swallows the rows after it (was "empty result"),
        // or on the last row passed unnoticed.
        (
            "quote.csv",
            format!("{csv_head}a,b,1-0\n\"c,d,0-1\ne,f,1-0\n"),
            vec![],
            "quote.csv:3: a `\"` on this row is never closed".into(),
        ),
        (
            "last-quote.csv",
            format!("{csv_head}a,b,1-0\nc,d,\"0-1\n"),
            vec![],
            "last-quote.csv:3: a `\"` on this row is never closed".into(),
        ),
        (
            "who.csv",
            format!("{csv_head}a,b,1-0\n"),
            vec!["--anchor", "c=0"],
            "--anchor: no engine called `c`".into(),
        ),
    ];
    for (name, text, extra, message) in cases {
        let path = dir.write(name, &text);
        let out_dir = dir.path(&format!("out-{name}"));
        let out = arena()
            .arg("ratings")
            .arg(&path)
            .arg("--output")
            .arg(&out_dir)
            .args(&extra)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(&message), "{name}: {stderr}");
        assert!(!out_dir.exists(), "{name}: nothing written");
    }
}

mod round_trip {
    use super::*;
    use arena::import::{self, PairMode};
    use arena::report::files::{self, PgnGame};
    use proptest::prelude::*;
    use proptest::test_runner::FileFailurePersistence;

    /// Names with the characters that need quoting or escaping in CSV and PGN.
    fn name() -> impl Strategy<Value = String> {
        "[a-z\"\\\\,;\\[\\]{}]{1,3}( [a-z0-9]{1,3})?"
    }

    fn record() -> impl Strategy<Value = GameRecord> {
        (
            name(),
            name(),
            0..3usize,
            0..7usize,
            0..4u64,
            "[a-z_]{1,6}",
            "b[12]",
        )
            .prop_filter("two players", |(a, b, ..)| a != b)
            .prop_map(
                |(first, second, result, termination, pair, game, board)| GameRecord {
                    game_id: 0,
                    round: 1 + pair as u32,
                    board,
                    game,
                    pair,
                    first,
                    second,
                    result: ["1-0", "0-1", "1/2-1/2"][result].into(),
                    termination: Termination::ALL[termination],
                    plies: 3,
                    score_first: None,
                    score_second: Some(2),
                    duration_ms: 1,
                    first_time_ms: 0,
                    second_time_ms: 0,
                    start_fen: "x y".into(),
                    moves: "a b c".into(),
                    detail: "d, \"e\"".into(),
                    repeat_of: None,
                },
            )
    }

    fn records() -> impl Strategy<Value = Vec<GameRecord>> {
        prop::collection::vec(record(), 1..12).prop_map(|mut rs| {
            for (i, r) in rs.iter_mut().enumerate() {
                r.game_id = i as u64;
            }
            rs
        })
    }

    /// The fields a rating depends on.
    fn key(r: &GameRecord) -> (u64, &str, &str, u64, &str, &str, &str, Termination) {
        (
            r.game_id,
            &r.board,
            &r.game,
            r.pair,
            &r.first,
            &r.second,
            &r.result,
            r.termination,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 64,
            // Failures are kept beside this file (tests/import.proptest-regressions).
            failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
            ..ProptestConfig::default()
        })]

        #[test]
        fn results_pgn_reads_back(rs in records()) {
            let dir = Dir::new();
            let path = dir.path("results.pgn");
            let rounds: Vec<String> = rs.iter().map(|r| format!("{}.{}", r.round, r.game_id)).collect();
            let games: Vec<PgnGame<'_>> = rs
                .iter()
                .zip(&rounds)
                .map(|(record, round)| PgnGame { record, event: "e \"v\"", round, termination: true })
                .collect();
            files::write_pgn(&path, &games).unwrap();
            let back = import::read(&path, PairMode::Auto).unwrap();
            prop_assert_eq!(back.games.len(), rs.len());
            // Sites are boards only when no game has one of its own.
            let shared = rs.iter().all(|r| rs.iter().filter(|o| o.board == r.board).count() > 1);
            for (got, want) in back.games.iter().zip(&rs) {
                let mut want = want.clone();
                if !shared {
                    want.board.clear();
                }
                prop_assert_eq!(key(&got.record), key(&want));
                prop_assert_eq!(got.event.as_deref(), Some("e \"v\""));
                prop_assert_eq!(&got.round_text, &format!("{}.{}", want.round, want.game_id));
            }
        }

        #[test]
        fn games_csv_reads_back(rs in records()) {
            let dir = Dir::new();
            let path = dir.path("games.csv");
            let mut writer = GamesWriter::append(&path).unwrap();
            for r in &rs {
                writer.write(r).unwrap();
            }
            let back = import::read(&path, PairMode::Auto).unwrap();
            prop_assert_eq!(back.games.len(), rs.len());
            for (got, want) in back.games.iter().zip(&rs) {
                prop_assert_eq!(key(&got.record), key(want));
                prop_assert_eq!(got.record.round, want.round);
            }
        }
    }
}

/// A PGN of `pairs` game pairs among 8 engines, tags only, as cutechess-cli writes them.
fn pgn_of_pairs(pairs: usize) -> String {
    let mut text = String::new();
    let names = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for pair in 0..pairs {
        let (x, y) = (names[pair % 8], names[(pair / 8 + pair + 1) % 8]);
        let (x, y) = if x == y {
            (x, names[(pair + 3) % 8])
        } else {
            (x, y)
        };
        for (white, black, result) in [(x, y, "1-0"), (y, x, ["0-1", "1/2-1/2"][pair % 2])] {
            let _ = write!(
                text,
                "[Event \"e\"]\n[Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n\n{result}\n\n",
                pair + 1
            );
        }
    }
    text
}

/// Rates `input` into `out` and returns the process's peak resident memory (kB), from
/// `wait4`, so that no other process counts.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std's wait cannot replace
fn peak_kb_of_ratings(input: &Path, out: &Path) -> i64 {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("ratings")
        .arg(input)
        .arg("--output")
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("arena starts");
    let (mut status, mut usage) = (0, std::mem::MaybeUninit::<nix::libc::rusage>::zeroed());
    // SAFETY: waits once for our own child; `usage` is written by the call.
    let pid = unsafe { nix::libc::wait4(child.id() as i32, &mut status, 0, usage.as_mut_ptr()) };
    assert_eq!(pid, child.id() as i32, "wait4");
    assert_eq!(status, 0, "arena ratings succeeded");
    // SAFETY: wait4 succeeded, so it filled `usage`.
    unsafe { usage.assume_init() }.ru_maxrss
}

/// Audit item 14: `arena ratings` streams a large PGN and keeps a few numbers a game (40-byte
/// observations; results.pgn is written from a second pass over the file), never the games:
/// 50,000 more games cost under 200 bytes of peak memory each (the difference of two runs, so
/// the program's own size does not count). Holding the games cost 1.3 kB a game, holding rows
/// of strings 0.7 kB; streaming measures about 50 bytes here (debug build, tags only).
#[test]
fn a_large_pgn_is_rated_in_bounded_memory() {
    let dir = Dir::new();
    let small = dir.write("small.pgn", &pgn_of_pairs(25_000));
    let large = dir.write("large.pgn", &pgn_of_pairs(50_000));
    let base = peak_kb_of_ratings(&small, &dir.path("small"));
    let peak = peak_kb_of_ratings(&large, &dir.path("large"));
    let per_game = (peak - base) as f64 * 1024.0 / 50_000.0;
    assert!(
        per_game < 200.0,
        "{per_game:.0} bytes a game ({base} kB for 50,000 games, {peak} kB for 100,000)"
    );
    assert_eq!(
        fs::read_to_string(dir.path("large/results.pgn"))
            .unwrap()
            .matches("[Result ")
            .count(),
        100_000
    );
}

/// Input that cannot be read twice (a pipe: `… | arena ratings /dev/stdin`) is rated like the
/// same file: the two passes read a temporary copy.
#[test]
fn a_pipe_is_rated_like_the_file() {
    let dir = Dir::new();
    let pgn = dir.write("games.pgn", &pgn_of_pairs(200));
    arena()
        .args(["ratings", pgn.to_str().unwrap(), "--output"])
        .arg(dir.path("from-file"))
        .assert()
        .success();
    arena()
        .args(["ratings", "/dev/stdin", "--output"])
        .arg(dir.path("from-pipe"))
        .write_stdin(fs::read(&pgn).unwrap())
        .assert()
        .success();
    for file in ["ratings.csv", "pairs.csv", "results.pgn"] {
        assert_eq!(
            fs::read_to_string(dir.path("from-pipe").join(file)).unwrap(),
            fs::read_to_string(dir.path("from-file").join(file)).unwrap(),
            "{file}"
        );
    }
}
