//! Fuzz targets: arbitrary bytes into every text parser a user or an engine can reach. Each
//! must return an error value, never panic. The number of cases is set by PROPTEST_CASES
//! (`scripts/fuzz.sh` runs them with a large budget); failures proptest finds are kept in
//! `tests/fuzz.proptest-regressions` and replayed first on every run.

use arena::games::{AnyPosition, GameKind};
use arena::protocol::{Command, Reply};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Bytes biased towards the protocol's and formats' alphabet, with arbitrary bytes mixed in.
fn protocolish() -> impl Strategy<Value = Vec<u8>> {
    let words = prop::sample::select(vec![
        "ugi ",
        "ugiok",
        "isready",
        "readyok",
        "bestmove ",
        "info ",
        "depth ",
        "score ",
        "cp ",
        "mate ",
        "pv ",
        "string ",
        "option ",
        "name ",
        "type ",
        "var ",
        "default ",
        "min ",
        "max ",
        "position ",
        "fen ",
        "moves ",
        "go ",
        "movetime ",
        "p1time ",
        "wtime ",
        "nodes ",
        "setoption ",
        "value ",
        "-1",
        "18446744073709551616",
        "9",
        " ",
        "\t",
        "\r",
        "\n",
        "resign",
    ]);
    let piece = prop_oneof![
        words.prop_map(|w| w.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..4)
    ];
    prop::collection::vec(piece, 0..24).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        // Failures are kept beside this file (tests/<name>.proptest-regressions) and replayed
        // first on every run; the default looks for lib.rs and keeps nothing here.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn protocol_lines_never_panic(bytes in protocolish()) {
        let line = String::from_utf8_lossy(&bytes);
        if let Ok(command) = Command::parse(&line) {
            // What was understood prints back to a line that parses to the same command.
            if !matches!(command, Command::Unknown(_)) {
                prop_assert_eq!(Command::parse(&command.to_string()).unwrap(), command);
            }
        }
        let _ = Reply::parse(&line);
    }

    #[test]
    fn position_texts_never_panic(game in 0..3usize, bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = AnyPosition::from_fen(GameKind::ALL[game], &text);
    }

    #[test]
    fn games_csv_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..600), keep_header: bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.csv");
        let mut content = if keep_header {
            b"game_id,round,board,game,pair,first,second,result,termination,plies,score_first,score_second,duration_ms,first_time_ms,second_time_ms,start_fen,moves,detail\n".to_vec()
        } else {
            Vec::new()
        };
        content.extend(bytes);
        std::fs::write(&path, content).unwrap();
        if let Ok((records, _)) = arena::report::files::read_games(&path) {
            let _ = arena::standings::compute(&records, &[], None, 0.95);
        }
    }

    #[test]
    fn configs_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = arena::config::parse(&text, "fuzz.yaml");
    }
}

/// Text biased towards PGN and CSV: tags, quotes, comments, variations, results, separators.
fn importish() -> impl Strategy<Value = Vec<u8>> {
    let words = prop::sample::select(vec![
        "[",
        "]",
        "\"",
        "\\",
        "{",
        "}",
        "(",
        ")",
        ";",
        "%",
        "\n",
        "\r\n",
        " ",
        ",",
        "\t",
        "[White \"",
        "[Black \"",
        "[Result \"",
        "[Site \"",
        "[Round \"",
        "[Pair \"",
        "\"]\n",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "=",
        "0.5",
        "1. e4 ",
        "a",
        "b",
        "7",
        "first,second,result\n",
        "white;black;result;game;pair\n",
        "\u{feff}",
    ]);
    let piece = prop_oneof![
        words.prop_map(|w| w.as_bytes().to_vec()),
        prop::collection::vec(any::<u8>(), 0..3)
    ];
    prop::collection::vec(piece, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    /// `arena ratings` inputs: any text, either format, any pairing mode.
    #[test]
    fn imports_never_panic(bytes in importish(), pgn: bool, mode in 0..4usize) {
        use arena::import::{self, InputFormat, PairMode};
        let text = String::from_utf8_lossy(&bytes);
        let format = if pgn { InputFormat::Pgn } else { InputFormat::Csv };
        let mode = [PairMode::Auto, PairMode::Consecutive, PairMode::Round, PairMode::None][mode];
        if let Ok(imported) = import::parse(&text, "fuzz", format, mode) {
            prop_assert!(!imported.games.is_empty());
            let records: Vec<_> = imported.games.into_iter().map(|g| g.record).collect();
            let _ = arena::standings::compute(&records, &[], None, 0.95);
        }
    }
}
