//! The checks of one row of a `games.csv` that `arena merge` joins (and `arena report`
//! reads): its result spelled as a run writes it (what a resume also requires), and its moves
//! replayed by the rules, with the result the replay implies. Pure apart from reading the
//! row's lines from the file; refuses, never repairs.

use std::path::Path;

use crate::games::{AnyPosition, GameKind, Outcome};
use crate::record::{GameRecord, Termination};

/// The results a run writes (first player's view); `*` when neither engine could play.
pub const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The 1-based line on which each row of a CSV file starts, in file order (a quoted field
/// may span lines, so the row index is not enough). A row the csv reader refuses still gets
/// its line, so the list stays aligned with what [`crate::report::files::read_games`] keeps.
///
/// # Errors
/// A message naming the file when it cannot be opened.
pub fn row_lines(path: &Path) -> Result<Vec<u64>, String> {
    let mut reader =
        csv::Reader::from_path(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(reader
        .records()
        .map(|row| match row {
            Ok(row) => row.position().map_or(0, csv::Position::line),
            Err(e) => e.position().map_or(0, csv::Position::line),
        })
        .collect())
}

/// Refuses a result a run never writes (`2-0`, say), as a resume sets such a row aside.
///
/// # Errors
/// A message quoting the result.
pub fn check_result(record: &GameRecord) -> Result<(), String> {
    if RESULTS.contains(&record.result.as_str()) {
        Ok(())
    } else {
        Err(format!(
            "result `{}` is not 1-0, 0-1, 1/2-1/2 or *",
            record.result
        ))
    }
}

/// Replays a row from its start position and checks its result against the replay: every
/// move legal and none after the game was over; a `normal` ending is the rules' result of the
/// final position, a `max_plies` ending its adjudication; an adjudicated win is decisive and
/// an adjudicated draw a draw; a fault (crash, time, illegal move…) is never a draw.
///
/// # Errors
/// A message naming the ply and move, or the result and what the replay gives.
pub fn check_replay(record: &GameRecord) -> Result<(), String> {
    let kind: GameKind = record.game.parse().map_err(|e| format!("game: {e}"))?;
    let mut pos = AnyPosition::from_fen(kind, &record.start_fen)
        .map_err(|e| format!("start position: {e}"))?;
    for (ply, text) in record.moves.split_whitespace().enumerate() {
        if pos.outcome().is_some() {
            return Err(format!(
                "ply {}: move `{text}` after the game was over",
                ply + 1
            ));
        }
        pos.play_text(text)
            .map_err(|e| format!("ply {}: move `{text}` is illegal: {e}", ply + 1))?;
    }
    let plies = record.moves.split_whitespace().count();
    let implied = match record.termination {
        Termination::Normal => Some(pos.outcome().ok_or_else(|| {
            format!("termination normal, but the game is not over after its {plies} plies")
        })?),
        Termination::MaxPlies => Some(pos.adjudicate()),
        _ => None,
    };
    let wrong = match (implied, record.termination) {
        (Some(outcome), _) => (outcome.result_str() != record.result)
            .then(|| format!("the replay of its {plies} plies gives {outcome}")),
        (None, Termination::AdjudicatedWin) => (!matches!(record.result.as_str(), "1-0" | "0-1"))
            .then(|| "an adjudicated win is 1-0 or 0-1".to_owned()),
        (None, Termination::AdjudicatedDraw) => {
            (record.result != "1/2-1/2").then(|| "an adjudicated draw is 1/2-1/2".to_owned())
        }
        (None, _) => (Outcome::from_result_str(&record.result) == Some(Outcome::Draw))
            .then(|| format!("a game lost by {} is not a draw", record.termination)),
    };
    match wrong {
        Some(why) => Err(format!(
            "result {} with termination {}, but {why}",
            record.result, record.termination
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::BoardSpec;

    /// A finished Awale game played by random moves: its record as a run writes it.
    fn finished_game() -> GameRecord {
        let board: BoardSpec = serde_yaml::from_str("{game: awale, pits: 4, seeds: 2}").unwrap();
        let mut pos = board.start_position(1).unwrap();
        let start = pos.fen();
        let mut rng = crate::seed::rng(7);
        let mut moves = Vec::new();
        while pos.outcome().is_none() {
            let mv = pos.random_move_text(&mut rng).unwrap();
            pos.play_text(&mv).unwrap();
            moves.push(mv);
        }
        GameRecord {
            game_id: 0,
            round: 1,
            board: board.name(),
            game: "awale".into(),
            first: "a".into(),
            second: "b".into(),
            result: pos.outcome().unwrap().result_str().into(),
            plies: moves.len() as u32,
            start_fen: start,
            moves: moves.join(" "),
            ..GameRecord::default()
        }
    }

    #[test]
    fn a_row_agrees_with_its_replay_or_is_refused() {
        let good = finished_game();
        assert_eq!(check_replay(&good), Ok(()));
        assert_eq!(check_result(&good), Ok(()));
        let mut bad = good.clone();
        bad.result = "2-0".into();
        assert!(check_result(&bad).unwrap_err().contains("`2-0`"));
        // The other result than the rules' (a flipped 1-0 ↔ 0-1, or a draw).
        bad.result = if good.result == "1-0" { "0-1" } else { "1-0" }.into();
        let err = check_replay(&bad).unwrap_err();
        assert!(err.contains("but the replay of its"), "{err}");
        // A move that is not legal there.
        let mut bad = good.clone();
        bad.moves = format!("9 {}", good.moves);
        let err = check_replay(&bad).unwrap_err();
        assert!(err.starts_with("ply 1: move `9` is illegal"), "{err}");
        // A move after the end, and an end the moves do not reach.
        let mut bad = good.clone();
        bad.moves.push_str(" 1");
        assert!(
            check_replay(&bad)
                .unwrap_err()
                .contains("after the game was over")
        );
        let mut bad = good.clone();
        bad.moves = good.moves.rsplit_once(' ').unwrap().0.to_owned();
        assert!(check_replay(&bad).unwrap_err().contains("is not over"));
        // A crash is never a draw; it may be either side's.
        let mut crash = bad.clone();
        crash.termination = Termination::Crash;
        for (result, ok) in [
            ("1-0", true),
            ("0-1", true),
            ("*", true),
            ("1/2-1/2", false),
        ] {
            crash.result = result.into();
            assert_eq!(check_replay(&crash).is_ok(), ok, "{result}");
        }
    }
}
