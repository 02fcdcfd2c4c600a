//! The boards the battery plays and the positions it sends: start, mid-game, forced and
//! constrained positions reached by seeded random plies.

use super::*;

/// Board types checked per game: every shape, layout, topology, pit count and grand-slam rule
/// of docs/games.md, at sizes that keep the battery fast.
const BOARDS: &[&str] = &[
    "{game: seven_colors, size: 10, layout: random}",
    "{game: seven_colors, size: 10, layout: diagonal}",
    "{game: seven_colors, size: 10, layout: random, topology: torus}",
    "{game: amazons, shape: square, width: 10}",
    "{game: amazons, shape: donut, width: 9}",
    "{game: amazons, shape: clover, width: 10}",
    "{game: amazons, shape: eight, width: 8}",
    "{game: awale, pits: 6}",
    "{game: awale, pits: 10}",
    "{game: awale, pits: 3}",
    "{game: awale, pits: 6, grand_slam: capture}",
    "{game: awale, pits: 6, grand_slam: forbidden}",
];

/// The boards of `game` that the battery plays.
pub fn boards(game: GameKind) -> Vec<BoardSpec> {
    BOARDS
        .iter()
        .map(|yaml| serde_yaml::from_str::<BoardSpec>(yaml).expect("built-in board spec"))
        .filter(|b| b.kind() == game)
        .collect()
}

/// A position sent to the engine: the start text, the moves since, and the position they make.
#[derive(Clone, Debug)]
pub struct Probe {
    /// `start` for the start position, `ply N` for a mid-game one.
    pub label: String,
    /// The start position's text.
    pub start: String,
    /// Moves played since, in canonical text.
    pub moves: Vec<String>,
    /// The position after them (not over).
    pub pos: AnyPosition,
}

impl Probe {
    /// The `position fen … moves …` line.
    pub fn position_line(&self) -> String {
        Command::Position {
            fen: self.start.clone(),
            moves: self.moves.clone(),
        }
        .to_string()
    }
}

/// The start position of `board` and mid-game positions reached by random legal plies from it
/// (fixed seed): at 1/2 of a random game (quick), or at 1/4, 1/2, 3/4, its last ply before
/// the end and its first position with a single legal move if any (full), so that move lists
/// get long and the last positions have few moves left.
///
/// # Errors
/// The spec's error (none for the built-in boards).
pub fn probes(board: &BoardSpec, quick: bool) -> Result<Vec<Probe>, String> {
    let start = board
        .start_position(POSITION_SEED)
        .map_err(|e| e.to_string())?;
    let start_text = start.fen();
    let mut rng = seed::rng(POSITION_SEED);
    // One random game; `line[i]` is the position after i plies.
    let mut line = vec![(start.clone(), Vec::<String>::new())];
    let mut pos = start.clone();
    let mut moves = Vec::new();
    while pos.outcome().is_none() && moves.len() < board.max_plies() as usize {
        let Some(mv) = pos.random_move_text(&mut rng) else {
            break;
        };
        let canonical = pos.play_text(&mv).map_err(|e| e.to_string())?;
        moves.push(canonical);
        if pos.outcome().is_none() {
            line.push((pos.clone(), moves.clone()));
        }
    }
    let last = line.len() - 1;
    let mut picks: Vec<usize> = if quick {
        vec![0, last / 2]
    } else {
        vec![0, last / 4, last / 2, 3 * last / 4, last]
    };
    // A forced move (in Awale often a must-feed position) when the random game has one.
    let forced = (!quick)
        .then(|| {
            line.iter()
                .position(|(pos, _)| pos.legal_move_texts().len() == 1)
        })
        .flatten();
    picks.extend(forced);
    let constrained = constrained_probe(&start, board.max_plies(), &mut rng)?;
    let mut seen = Vec::new();
    let mut chosen: Vec<Probe> = picks
        .into_iter()
        .filter(|&i| {
            let fresh = !seen.contains(&i);
            seen.push(i);
            fresh
        })
        .map(|i| Probe {
            label: match i {
                0 => "start".into(),
                _ if Some(i) == forced => format!("ply {i} (one legal move)"),
                _ => format!("ply {i}"),
            },
            start: start_text.clone(),
            moves: line[i].1.clone(),
            pos: line[i].0.clone(),
        })
        .collect();
    chosen.extend(constrained);
    Ok(chosen)
}

/// Random games played for a constrained position, at most (Awale's must-feed is common enough
/// that a few dozen games find one).
const CONSTRAINED_GAMES: usize = 300;

/// A position where a rule narrows the legal moves ([`AnyPosition::constraint`], e.g. Awale's
/// must-feed), reached by random games from `start`; `None` when the game has no such rule or
/// [`CONSTRAINED_GAMES`] games met none.
fn constrained_probe(
    start: &AnyPosition,
    max_plies: u32,
    rng: &mut seed::SeededRng,
) -> Result<Option<Probe>, String> {
    if !start.has_constraints() {
        return Ok(None);
    }
    for _ in 0..CONSTRAINED_GAMES {
        let mut pos = start.clone();
        let mut moves = Vec::new();
        while pos.outcome().is_none() && moves.len() < max_plies as usize {
            if let Some(rule) = pos.constraint() {
                return Ok(Some(Probe {
                    label: format!("ply {} ({rule})", moves.len()),
                    start: start.fen(),
                    moves,
                    pos,
                }));
            }
            let Some(mv) = pos.random_move_text(rng) else {
                break;
            };
            moves.push(pos.play_text(&mv).map_err(|e| e.to_string())?);
        }
        if moves.is_empty() {
            break;
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_makes_positions_in_play() {
        for game in GameKind::ALL {
            let all = boards(game);
            assert!(all.len() >= 3, "{game}: {} boards", all.len());
            for board in all {
                for quick in [true, false] {
                    let probes = probes(&board, quick).expect("probes");
                    assert!(probes.len() >= 2, "{}", board.name());
                    for probe in &probes {
                        assert!(probe.pos.outcome().is_none(), "{}", board.name());
                        // The position line replays to the same position.
                        let mut pos = AnyPosition::from_fen(game, &probe.start).expect("fen");
                        for mv in &probe.moves {
                            pos.play_text(mv).expect("replay");
                        }
                        assert_eq!(pos.fen(), probe.pos.fen());
                    }
                    assert!(probes.last().expect("probe").moves.len() > 5);
                }
            }
        }
    }
}
