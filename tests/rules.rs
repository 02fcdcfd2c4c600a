//! Properties of every game on every board type, checked on random playouts.

use arena::games::{AnyPosition, BoardSpec, Game, GameKind, MoveError, Side};
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

/// The board part of a position text, one char a cell or pit (Awale: one number a pit).
fn board_cells(pos: &AnyPosition) -> Vec<String> {
    let fen = pos.fen();
    let board = fen.split(' ').next().unwrap_or_default();
    match pos.kind() {
        GameKind::Awale => board.split(['/', ',']).map(str::to_owned).collect(),
        _ => board
            .chars()
            .filter(|&c| c != '/')
            .map(String::from)
            .collect(),
    }
}

/// The 4-neighbours of cell `i` on an `n`×`n` board, by coordinates (independent of the
/// rules library's own neighbour code).
fn grid_neighbours(n: usize, torus: bool, i: usize) -> Vec<usize> {
    let (r, c) = ((i / n) as isize, (i % n) as isize);
    let n = n as isize;
    [(-1, 0), (1, 0), (0, -1), (0, 1)]
        .into_iter()
        .filter_map(|(dr, dc)| {
            let (mut r, mut c) = (r + dr, c + dc);
            if torus {
                r = r.rem_euclid(n);
                c = c.rem_euclid(n);
            }
            ((0..n).contains(&r) && (0..n).contains(&c)).then_some((r * n + c) as usize)
        })
        .collect()
}

/// Cells reachable from `from` through cells satisfying `inside` (all of `from` included).
fn flood(n: usize, torus: bool, from: &[usize], inside: impl Fn(usize) -> bool) -> Vec<bool> {
    let mut seen = vec![false; n * n];
    let mut stack: Vec<usize> = from.to_vec();
    for &i in from {
        seen[i] = true;
    }
    while let Some(i) = stack.pop() {
        for j in grid_neighbours(n, torus, i) {
            if !seen[j] && inside(j) {
                seen[j] = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// What every position of a game must satisfy on its own.
fn check_position(pos: &AnyPosition) -> Result<(), TestCaseError> {
    let cells = board_cells(pos);
    match pos {
        AnyPosition::SevenColors(p) => {
            let n = p.size();
            prop_assert_eq!(cells.len(), n * n);
            for (i, cell) in cells.iter().enumerate() {
                // Each cell is exactly one of: neutral of one colour, or owned by one side.
                let expected = match (p.owner(i), p.colour(i)) {
                    (Some(side), None) => side.digit().to_string(),
                    (None, Some(colour)) => colour.letter().to_string(),
                    other => return Err(TestCaseError::fail(format!("cell {i}: {other:?}"))),
                };
                prop_assert_eq!(cell, &expected);
            }
            for side in Side::BOTH {
                let zone: Vec<usize> = (0..n * n).filter(|&i| p.owner(i) == Some(side)).collect();
                prop_assert_eq!(p.owned(side) as usize, zone.len());
                prop_assert!(!zone.is_empty());
                let reached = flood(n, p.is_torus(), &zone[..1], |j| p.owner(j) == Some(side));
                prop_assert!(
                    zone.iter().all(|&i| reached[i]),
                    "the {} zone is not connected in {}",
                    side,
                    pos.fen()
                );
            }
            let owned = p.owned(Side::First) + p.owned(Side::Second);
            prop_assert_eq!((owned + p.neutral()) as usize, n * n);
        }
        AnyPosition::Amazons(p) => {
            let vertices = (0..p.grid_len()).filter(|&v| !p.is_hole(v)).count();
            let empty = (0..p.grid_len()).filter(|&v| p.is_empty(v)).count();
            let arrows = cells.iter().filter(|c| *c == "x").count();
            let queens = p.queens(Side::First).len() + p.queens(Side::Second).len();
            prop_assert_eq!(arrows + queens + empty, vertices);
            for side in Side::BOTH {
                let listed: Vec<usize> = p.queens(side).iter().map(|&q| usize::from(q)).collect();
                let drawn: Vec<usize> = (0..cells.len())
                    .filter(|&v| cells[v] == side.digit().to_string())
                    .collect();
                prop_assert_eq!(listed, drawn);
            }
        }
        AnyPosition::Awale(p) => {
            let pits: u32 = cells.iter().map(|c| c.parse::<u32>().unwrap()).sum();
            prop_assert_eq!(pits, p.pits().iter().map(|&s| u32::from(s)).sum::<u32>());
            prop_assert_eq!(
                pits + p.captured(Side::First) + p.captured(Side::Second),
                p.total_seeds()
            );
        }
    }
    Ok(())
}

/// What every ply must keep, `before` → `after` (`before` had the move).
fn check_ply(before: &AnyPosition, after: &AnyPosition, mv: &str) -> Result<(), TestCaseError> {
    let (was, now) = (board_cells(before), board_cells(after));
    prop_assert_eq!(was.len(), now.len(), "the board changed size");
    let mover = before.side_to_move();
    prop_assert_eq!(after.side_to_move(), mover.other());
    match (before, after) {
        (AnyPosition::SevenColors(b), AnyPosition::SevenColors(a)) => {
            let (n, torus) = (b.size(), b.is_torus());
            // The captured cells are exactly the named colour's cells connected, through that
            // colour, to the mover's zone: flooded here from the zone, by coordinates.
            let zone: Vec<usize> = (0..n * n).filter(|&i| b.owner(i) == Some(mover)).collect();
            let captured = flood(n, torus, &zone, |j| {
                b.colour(j).map(|c| c.letter().to_string()).as_deref() == Some(mv)
            });
            for (i, &flooded) in captured.iter().enumerate() {
                let expected = match b.owner(i) {
                    // Zones only grow: an owned cell keeps its owner.
                    Some(side) => Some(side),
                    None if flooded => Some(mover),
                    None => None,
                };
                prop_assert_eq!(a.owner(i), expected, "cell {} after {}", i, mv);
                if expected.is_none() {
                    prop_assert_eq!(a.colour(i), b.colour(i));
                }
            }
            prop_assert_eq!(a.owned(mover.other()), b.owned(mover.other()));
        }
        (AnyPosition::Amazons(b), AnyPosition::Amazons(a)) => {
            let count = |cells: &[String], what: &str| cells.iter().filter(|c| *c == what).count();
            // One arrow more, every old arrow and hole still there.
            prop_assert_eq!(count(&now, "x"), count(&was, "x") + 1);
            for (old, new) in was.iter().zip(&now) {
                if old == "x" || old == "#" {
                    prop_assert_eq!(old, new);
                }
                prop_assert_eq!(old == "#", new == "#");
            }
            // The queen count of each side is constant; the opponent's queens do not move, the
            // mover's move by one vertex.
            let opponent = mover.other();
            prop_assert_eq!(a.queens(opponent), b.queens(opponent));
            prop_assert_eq!(a.queens(mover).len(), b.queens(mover).len());
            let moved = b
                .queens(mover)
                .iter()
                .filter(|q| !a.queens(mover).contains(q))
                .count();
            prop_assert_eq!(moved, 1, "after {}", mv);
        }
        (AnyPosition::Awale(b), AnyPosition::Awale(a)) => {
            prop_assert_eq!(a.total_seeds(), b.total_seeds());
            // Stores never decrease, and only the mover's can grow.
            prop_assert!(a.captured(mover) >= b.captured(mover));
            prop_assert_eq!(a.captured(mover.other()), b.captured(mover.other()));
        }
        _ => return Err(TestCaseError::fail("the game changed")),
    }
    Ok(())
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
    check_position(&pos)?;
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
        let before = pos.clone();
        pos.play_text(&mv).unwrap();
        plies += 1;
        check_position(&pos)?;
        check_ply(&before, &pos, &mv)?;
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
        // 256 random games over the ten boards (about 25 each): a few seconds in all.
        cases: 256,
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
        // Only the printed spelling is read (docs/games.md): whatever parses prints back as is.
        if let Ok(parsed) = AnyPosition::from_fen(kind, &text) {
            prop_assert_eq!(parsed.fen(), text.clone());
        }
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
        // Only the printed spelling is read (docs/games.md): a text that parses prints back
        // unchanged, so `04`, `00`, doubled or trailing spaces are refused, never normalised.
        if let Ok(parsed) = AnyPosition::from_fen(pos.kind(), &fen) {
            prop_assert_eq!(parsed.fen(), fen);
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

#[test]
fn show_refuses_texts_it_would_not_print() {
    // Through the binary: `arena show --fen` is where a person types position texts.
    let show = |game: &str, fen: &str| {
        assert_cmd::Command::cargo_bin("arena")
            .expect("arena binary")
            .args(["show", "--plain", "--game", game, "--fen", fen])
            .assert()
    };
    let canonical = "4,4,0,5/5,4,4,4 0,10 2 no_capture";
    let out = show("awale", canonical).success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.starts_with(&format!("{canonical}\n")), "{stdout}");
    let pits = |n: usize| vec!["1"; n].join(",");
    for (game, fen, reason) in [
        (
            "awale",
            "4,04,0,5/5,4,4,4 0,10 2 no_capture",
            "`04` has a leading zero",
        ),
        (
            "awale",
            "4,4,0,5/5,4,4,4 0,10  2 no_capture",
            "single spaces",
        ),
        (
            "awale",
            &format!("{0}/{0} 0,0 1 capture", pits(256)),
            "rows of 256 and 256 pits",
        ),
        ("awale", "3000,1/0,0 0,0 1 capture", "3001 seeds in all"),
        ("seven_colors", "AB2/CDE/1FA 1 plane ", "single spaces"),
        (
            "amazons",
            "1..../...../...../...../....2 01",
            "side to move `01`",
        ),
    ] {
        let out = show(game, fen).code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains(reason), "{fen}: {stderr}");
    }
}
