//! Fuzz targets: arbitrary bytes into every text parser a user or an engine can reach. Each
//! must return an error value, never panic. The number of cases is set by PROPTEST_CASES
//! (`scripts/fuzz.sh` runs them with a large budget); failures proptest finds are kept in
//! `tests/fuzz.proptest-regressions` and replayed first on every run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use arena::games::{AnyPosition, GameKind};
use arena::protocol::{Command, Reply};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// The system allocator, counting the bytes each thread asks for, so that a target can bound
/// what one call allocates (see [`allocated_by`]).
struct Counting;

thread_local! {
    /// Bytes allocated by this thread so far (a plain counter: no destructor, no allocation).
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to `System`; the counter only reads the layout.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|n| n.set(n.get().saturating_add(layout.size())));
        // SAFETY: the caller's guarantees on `layout` are passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Runs `f` and returns its value with the bytes it allocated on this thread (growth by
/// `realloc` counts the new size in full, so this is an upper bound).
fn allocated_by<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATED.with(Cell::get);
    let value = f();
    (value, ALLOCATED.with(Cell::get) - before)
}

/// Parses a position text (`None` when it is refused), checking that it allocates in proportion to the text: at most
/// 64 bytes a character (Amazons keeps a 16-byte neighbour row a vertex) plus a constant. A
/// parser that sized a board from a count before checking it would fail here.
fn parse_bounded(kind: GameKind, text: &str) -> Result<Option<AnyPosition>, TestCaseError> {
    let (parsed, bytes) = allocated_by(|| AnyPosition::from_fen(kind, text));
    prop_assert!(
        bytes <= 64 * text.len() + 4096,
        "{} bytes allocated to read {} characters of {}",
        bytes,
        text.len(),
        kind
    );
    Ok(parsed.ok())
}

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

/// Awale texts around the bounds: rows of 0..=300 pits (the limit is 30; now and then the two
/// rows differ by one), seed counts whose sum crosses the 3000 limit now and then, and in some
/// texts one number replaced by one past `u16` or misspelt (`04`, `+1`, ``).
fn awale_text() -> impl Strategy<Value = String> {
    let pits = prop_oneof![4 => 0usize..=34, 1 => 0usize..=300];
    let odd = prop::sample::select(vec![
        "3001",
        "65535",
        "65536",
        "200000",
        "18446744073709551616",
        "04",
        "00",
        "+1",
        "-1",
        "",
    ]);
    (pits, 0u8..8)
        .prop_flat_map(move |(n, skew)| {
            let second = match skew {
                0 => n + 1,
                1 => n.saturating_sub(1),
                _ => n,
            };
            (
                prop::collection::vec(0u32..=60, n + second + 2),
                Just(n),
                prop::option::weighted(0.2, (any::<prop::sample::Index>(), odd.clone())),
                prop::sample::select(vec!["1", "2", "3"]),
                prop::sample::select(vec!["no_capture", "capture", "forbidden"]),
            )
        })
        .prop_map(|(counts, n, odd, side, rule)| {
            let mut counts: Vec<String> = counts.iter().map(u32::to_string).collect();
            if let Some((at, text)) = odd {
                let i = at.index(counts.len());
                counts[i] = text.to_owned();
            }
            let (scores, rows) = counts.split_at(2);
            let (first, second) = rows.split_at(n);
            format!(
                "{}/{} {},{} {side} {rule}",
                first.join(","),
                second.join(","),
                scores[0],
                scores[1]
            )
        })
}

/// Square-ish grid texts around the size bounds (n rows of n cells, one row one off, or n rows
/// of one cell), cells drawn from `alphabet`, then `suffix`.
fn grid_text(
    max_rows: usize,
    alphabet: &'static str,
    suffix: &'static str,
) -> impl Strategy<Value = String> {
    (0..=max_rows, any::<u64>(), 0u8..8).prop_map(move |(n, seed, skew)| {
        let letters: Vec<char> = alphabet.chars().collect();
        let mut rng = arena::seed::rng(seed);
        let mut rows = Vec::with_capacity(n);
        for r in 0..n {
            // Now and then a row one cell short or long, or every row a single cell: many
            // rows in a short text, which must not make the parser size a board by rows².
            let len = match (r, skew) {
                (0, 0) => n.saturating_sub(1),
                (0, 1) => n + 1,
                (_, 2) => 1,
                _ => n,
            };
            rows.push(
                (0..len)
                    .map(|_| letters[arena::seed::below(&mut rng, letters.len())])
                    .collect::<String>(),
            );
        }
        rows.join("/") + suffix
    })
}

/// Plays up to `plies` random moves from a parsed position: the rules must not panic (debug
/// builds check every addition) and each position must print back as it reads.
fn play_some(mut pos: AnyPosition, plies: usize, seed: u64) -> Result<(), TestCaseError> {
    let mut rng = arena::seed::rng(seed);
    for _ in 0..plies {
        let Some(mv) = pos.random_move_text(&mut rng) else {
            break;
        };
        pos.play_text(&mv)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let fen = pos.fen();
        prop_assert_eq!(AnyPosition::from_fen(pos.kind(), &fen).unwrap().fen(), fen);
    }
    Ok(())
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
        if let Some(pos) = parse_bounded(GameKind::ALL[game], &text)? {
            prop_assert_eq!(pos.fen(), text.into_owned());
        }
    }

    #[test]
    fn awale_texts_past_the_bounds_never_panic(text in awale_text(), seed: u64) {
        if let Some(pos) = parse_bounded(GameKind::Awale, &text)? {
            prop_assert_eq!(pos.fen(), text.clone());
            play_some(pos, 200, seed)?;
        }
    }

    #[test]
    fn seven_colors_texts_past_the_bounds_never_panic(text in grid_text(110, "ABCDEFG12", " 1 torus"), seed: u64) {
        if let Some(pos) = parse_bounded(GameKind::SevenColors, &text)? {
            prop_assert_eq!(pos.fen(), text.clone());
            play_some(pos, 20, seed)?;
        }
    }

    #[test]
    fn amazons_texts_past_the_bounds_never_panic(text in grid_text(210, "......#x12", " 2"), seed: u64) {
        if let Some(pos) = parse_bounded(GameKind::Amazons, &text)? {
            prop_assert_eq!(pos.fen(), text.clone());
            // Move lists of crowded wide boards are long: play on the small ones only.
            if text.len() < 2_000 {
                play_some(pos, 10, seed)?;
            }
        }
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

    /// Well-formed YAML with hostile numbers, through parsing, validation and scheduling: where
    /// issue 19's overflows lived (`increment_ms` near u64::MAX, `rounds` near u32::MAX, huge
    /// boards). Whatever validation accepts must schedule without panicking, within a bounded
    /// allocation.
    #[test]
    fn configs_validate_and_schedule_without_panics(config in structured_config()) {
        let plan = arena::config::parse(&config, "fuzz.yaml").and_then(|c| {
            c.plan(std::path::Path::new("fuzz.yaml"), std::path::Path::new("/"), &Default::default())
        });
        if let Ok(plan) = plan {
            let names: Vec<String> = plan.engines.iter().map(|e| e.spec.name.clone()).collect();
            let plays = vec![GameKind::ALL.to_vec(); names.len()];
            let games = plan.config.boards.len() as u64 * u64::from(plan.config.rounds) * (names.len() * names.len()) as u64;
            // Scheduling cost grows with games and board size; keep each case small.
            if games <= 20_000 {
                let (built, bytes) = allocated_by(|| {
                    arena::schedule::build(
                        &arena::schedule::Entrants {
                            boards: &plan.config.boards,
                            board_names: &plan.board_names,
                            engine_names: &names,
                            plays: &plays,
                        },
                        plan.config.rounds,
                        plan.seed,
                        &arena::schedule::Pairing::All,
                    )
                });
                prop_assert!(bytes < 256 << 20, "{bytes} bytes to schedule {config}");
                if let Ok(schedule) = built {
                    prop_assert!(schedule.fixtures.len() as u64 <= games);
                }
            }
        }
    }
}

/// A config whose numbers are drawn from edge values (0, 1, small, u32::MAX, u64::MAX, ...).
fn structured_config() -> impl Strategy<Value = String> {
    let big = prop::sample::select(vec![
        "0".to_owned(),
        "1".to_owned(),
        "2".to_owned(),
        "7".to_owned(),
        "40".to_owned(),
        "255".to_owned(),
        "256".to_owned(),
        "100000".to_owned(),
        "4294967295".to_owned(),
        "4294967296".to_owned(),
        "18446744073709551615".to_owned(),
        "-1".to_owned(),
        ".nan".to_owned(),
        "1e300".to_owned(),
    ]);
    let board = (0..6usize, big.clone(), big.clone()).prop_map(|(kind, a, b)| match kind {
        0 => format!("{{ game: awale, pits: {a} }}"),
        1 => format!("{{ game: awale, pits: 6, random_opening_plies: {a} }}"),
        2 => format!("{{ game: seven_colors, size: {a} }}"),
        3 => format!("{{ game: amazons, shape: square, width: {a}, queens: {b} }}"),
        4 => format!("{{ game: amazons, shape: eight, width: {a} }}"),
        _ => {
            format!("{{ game: seven_colors, size: 8, max_plies: {a}, random_opening_plies: {b} }}")
        }
    });
    let limit = (0..5usize, big.clone(), big.clone()).prop_map(|(kind, a, b)| match kind {
        0 => format!("{{ movetime_ms: {a} }}"),
        1 => format!("{{ base_ms: {a}, increment_ms: {b} }}"),
        2 => format!("{{ depth: {a}, move_timeout_ms: {b} }}"),
        3 => format!("{{ nodes: {a}, margin_ms: {b} }}"),
        _ => format!("{{ movetime_ms: 5, margin_ms: {a}, move_timeout_ms: {b} }}"),
    });
    (
        big.clone(),
        big.clone(),
        big.clone(),
        big,
        limit,
        prop::collection::vec(board, 1..3),
        1..5usize,
    )
        .prop_map(|(rounds, hs, withdraw, anchor, tc, boards, engines)| {
            let boards: String = boards.iter().map(|b| format!("  - {b}\n")).collect();
            let engines: String = (0..engines)
                .map(|i| format!("  - {{ name: e{i}, command: sh, limits: {{ memory_mb: {hs} }} }}\n"))
                .collect();
            format!(
                "seed: 1\nrounds: {rounds}\nhandshake_timeout_ms: {hs}\nwithdraw_after: {withdraw}\nanchor: {{ engine: e0, elo: {anchor} }}\ntime_control: {tc}\nboards:\n{boards}engines:\n{engines}"
            )
        })
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
