//! Properties of every game on every board type, checked on random playouts.

use arena::games::{AnyPosition, BoardSpec, Game, GameKind, MoveError};
use arena::seed;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// One small board of every type the rules know.
const BOARDS: &[&str] = &[
    "{game: seven_colors, size: 7, layout: random}",
    "{game: seven_colors, size: 8, layout: diagonal}",
    "{game: seven_colors, size: 7, topology: torus}",
    "{game: amazons, shape: square, width: 6, queens: 4}",
    "{game: amazons, shape: donut, width: 6}",
    "{game: amazons, shape: clover, width: 10}",
    "{game: amazons, shape: eight, width: 8}",
    "{game: awale, pits: 6}",
    "{game: awale, pits: 10, grand_slam: capture}",
    "{game: awale, pits: 4, seeds: 3, grand_slam: forbidden}",
];

fn spec(yaml: &str) -> BoardSpec {
    serde_yaml::from_str(yaml).expect("test board parses")
}

/// Cells or seeds, counted from the position text, that must stay constant over a game.
fn conserved(pos: &AnyPosition) -> u64 {
    let fen = pos.fen();
    let board = fen.split(' ').next().unwrap_or_default();
    match pos.kind() {
        GameKind::SevenColors | GameKind::Amazons => {
            board.chars().filter(|&c| c != '/').count() as u64
        }
        GameKind::Awale => {
            let mut fields = fen.split(' ');
            let pits: u64 = fields
                .next()
                .unwrap_or_default()
                .split(['/', ','])
                .map(|n| n.parse::<u64>().unwrap())
                .sum();
            let scores: u64 = fields
                .next()
                .unwrap_or_default()
                .split(',')
                .map(|n| n.parse::<u64>().unwrap())
                .sum();
            pits + scores
        }
    }
}

/// Every move text with the right syntax for this position's board, legal or not.
fn candidate_texts(pos: &AnyPosition, rng: &mut seed::SeededRng) -> Vec<String> {
    match pos {
        AnyPosition::SevenColors(_) => ('A'..='G').map(String::from).collect(),
        AnyPosition::Awale(p) => (1..=p.pits_per_row()).map(|k| k.to_string()).collect(),
        AnyPosition::Amazons(p) => {
            let n = p.grid_len();
            let mut texts: Vec<String> = (0..20)
                .map(|_| {
                    let q = p.queens(p.side_to_move());
                    let from = q[seed::below(rng, q.len())];
                    format!("{from}-{}-{}", seed::below(rng, n), seed::below(rng, n))
                })
                .collect();
            texts.extend(pos.legal_move_texts().into_iter().take(5));
            texts
        }
    }
}

fn check_playout(yaml: &str, board_seed: u64, play_seed: u64) -> Result<(), TestCaseError> {
    let spec = spec(yaml);
    let mut pos = spec.start_position(board_seed).unwrap();
    let mut rng = seed::rng(play_seed);
    let total = conserved(&pos);
    let mut plies = 0;
    while pos.outcome().is_none() && plies < spec.max_plies() {
        // Position text round trip.
        let fen = pos.fen();
        prop_assert_eq!(
            AnyPosition::from_fen(pos.kind(), &fen).unwrap().fen(),
            fen.clone()
        );
        // Legal moves are accepted, others are rejected with the position unchanged.
        let legal = pos.legal_move_texts();
        prop_assert!(!legal.is_empty());
        for text in candidate_texts(&pos, &mut rng) {
            let mut probe = pos.clone();
            match probe.play_text(&text) {
                Ok(canonical) => prop_assert!(legal.contains(&canonical), "{} not listed", text),
                Err(MoveError::Illegal { .. }) => {
                    prop_assert!(!legal.contains(&text), "legal {} rejected", text);
                    prop_assert_eq!(probe.fen(), fen.clone());
                }
                Err(e) => return Err(TestCaseError::fail(format!("{text}: {e}"))),
            }
        }
        let mv = pos.random_move_text(&mut rng).unwrap();
        pos.play_text(&mv).unwrap();
        plies += 1;
        prop_assert_eq!(conserved(&pos), total);
    }
    match pos.kind() {
        // Every Amazons move blocks a vertex, and random colours keep growing a zone: both
        // end by the rules well within the cap.
        GameKind::Amazons | GameKind::SevenColors => prop_assert!(pos.outcome().is_some()),
        GameKind::Awale => prop_assert!(pos.outcome().is_some() || plies == spec.max_plies()),
    }
    if pos.outcome().is_some() {
        prop_assert!(pos.legal_move_texts().is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        // Failures are kept beside this file (tests/<name>.proptest-regressions) and replayed
        // first on every run; the default looks for lib.rs and keeps nothing here.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_playouts_keep_every_rule(board in 0..BOARDS.len(), board_seed: u64, play_seed: u64) {
        check_playout(BOARDS[board], board_seed, play_seed)?;
    }

    #[test]
    fn arbitrary_texts_never_panic(kind in 0..3usize, text in "\\PC{0,80}") {
        let kind = GameKind::ALL[kind];
        let _ = AnyPosition::from_fen(kind, &text);
        let mut pos = spec(BOARDS[[0, 3, 7][GameKind::ALL.iter().position(|&k| k == kind).unwrap()]])
            .start_position(1)
            .unwrap();
        let before = pos.fen();
        if pos.play_text(&text).is_err() {
            prop_assert_eq!(pos.fen(), before);
        }
    }

    #[test]
    fn mutated_position_texts_never_panic(board in 0..BOARDS.len(), cut in 0..200usize, insert in "[ ,/0-9A-Hx.#12-]{0,3}") {
        let pos = spec(BOARDS[board]).start_position(9).unwrap();
        let mut fen = pos.fen();
        let at = (0..=fen.len()).rev().find(|&i| i <= cut && fen.is_char_boundary(i)).unwrap_or(0);
        fen.insert_str(at, &insert);
        if let Ok(parsed) = AnyPosition::from_fen(pos.kind(), &fen) {
            prop_assert_eq!(AnyPosition::from_fen(pos.kind(), &parsed.fen()).unwrap().fen(), parsed.fen());
        }
    }
}

#[test]
fn same_seed_same_start_position() {
    // Pinned: a change here changes every tournament's boards; bump it only on purpose.
    let pinned = [
        (
            "{game: seven_colors, size: 6, layout: random}",
            1,
            "CAEBB2/DBGEDE/ABDBGG/GACDCA/ABDBAA/1EAEFE 1 plane",
        ),
        (
            "{game: seven_colors, size: 6, layout: diagonal}",
            2,
            "GDBAC2/DGDBAC/BDGDBA/ABDGDB/CABDGD/1CABDG 1 plane",
        ),
        (
            "{game: seven_colors, size: 6, topology: torus}",
            3,
            "EACAEF/BBCB2G/CFFBBE/GGEEDE/C1EFCD/CCCAGF 1 torus",
        ),
        (
            "{game: amazons, shape: donut, width: 6, random_opening_plies: 2}",
            4,
            "..x.2./2.2..2/..##../..##../1.x..1/...11. 1",
        ),
        (
            "{game: awale, pits: 10, random_opening_plies: 3}",
            5,
            "5,5,0,5,5,5,5,4,0,5/5,5,5,4,4,4,4,0,5,5 0,0 2 no_capture",
        ),
    ];
    for (yaml, board_seed, fen) in pinned {
        assert_eq!(
            spec(yaml).start_position(board_seed).unwrap().fen(),
            fen,
            "{yaml}"
        );
    }
    let a = spec(BOARDS[0]).start_position(77).unwrap().fen();
    let b = spec(BOARDS[0]).start_position(78).unwrap().fen();
    assert_ne!(a, b);
}

#[test]
fn spec_errors_are_clear() {
    let cases = [
        (
            "{game: amazons, shape: clover, width: 12}",
            "clover needs a width divisible by 5, got 12",
        ),
        (
            "{game: amazons, shape: donut, width: 10}",
            "donut needs a width divisible by 3, got 10",
        ),
        (
            "{game: awale, pits: 1}",
            "awale pits must be in 2..=30, got 1",
        ),
        (
            "{game: seven_colors, size: 101}",
            "seven_colors size must be in 5..=100, got 101",
        ),
        (
            "{game: awale, max_plies: 0}",
            "max_plies must be at least 1",
        ),
    ];
    for (yaml, message) in cases {
        assert_eq!(spec(yaml).validate().unwrap_err().to_string(), message);
    }
    let unknown = serde_yaml::from_str::<BoardSpec>("{game: awale, pitz: 6}").unwrap_err();
    assert!(
        unknown.to_string().contains("unknown field `pitz`"),
        "{unknown}"
    );
}

#[test]
fn default_names_are_readable() {
    for (yaml, name) in [
        ("{game: amazons, shape: donut, width: 9}", "amazons-donut-9"),
        (
            "{game: seven_colors, size: 20, layout: diagonal}",
            "seven_colors-diagonal-20",
        ),
        (
            "{game: seven_colors, size: 20, topology: torus}",
            "seven_colors-torus-20",
        ),
        ("{game: awale, pits: 10}", "awale-10"),
        ("{game: awale, name: classic}", "classic"),
    ] {
        assert_eq!(spec(yaml).name(), name);
    }
}

#[test]
fn typed_and_text_moves_agree() {
    let mut pos = arena::games::Amazons::from_fen(
        "...2..2.../........../........../2........2/........../........../\
         1........1/........../........../...1..1... 1",
    )
    .unwrap();
    for mv in pos.legal_moves() {
        assert_eq!(pos.parse_move(&pos.move_text(mv)).unwrap(), mv);
    }
    pos.play_text("93-33-31").unwrap();
    assert_eq!(pos.side_to_move(), arena::games::Side::Second);
    assert!(pos.play_text("93-33-31").is_err(), "the queen has left 93");
}
