//! Per-board fairness: the first player's advantage as an Elo offset and the draw rate, each
//! with its interval (`boards.csv`, report.html's boards table). Pure.
//!
//! **Estimator: the paired one.** In a game pair the engines swap colours, so the first
//! player's points summed over both legs (0, ½, 1, 1½ or 2) measure the first move's worth with
//! the engines' strengths cancelled by design, without a model of the engines: the advantage is
//! the pentanomial estimate ([`rating::pentanomial`]) with "the first player" as side A, i.e.
//! fishtest's formulas and the same small-sample variance floor. A first-player term in the
//! Bradley–Terry fit would need the model to be right about the engines too, and its interval
//! would rest on the sandwich of every game; the paired estimate is also what the legs of a
//! pair were built for, and the pair is the cluster in which a start position's own bias (shared
//! by both legs) shows. Its limit: between engines of very different strength, ½[F(Δ+a) +
//! F(−Δ+a)] < F(a) for a > 0 (F the logistic score), so the estimate leans towards 0 — it never
//! overstates an advantage. Games outside complete pairs, and pairs that repeat an earlier
//! one ([`crate::repeats`]), are left out.
//!
//! **Draw rate**: the mean over the same pairs of the pair's share of drawn games (0, ½ or 1),
//! ± z·σ/√n with σ the spread across pairs (so a start that draws both legs counts as one
//! sample), the variance floored as the ratings' is (one virtual pair spread over 0, ½, 1:
//! v₀ = 1/6 over n + 1 pairs), clamped to [0, 100]%.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::games::{Outcome, Side};
use crate::rating;
use crate::record::GameRecord;
use crate::repeats;
use crate::standings::{Names, Observation, round1};

/// The file name in the output directory.
pub const FILE: &str = "boards.csv";

/// One row of `boards.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BoardRow {
    /// `board:<board>`, as ratings.csv's scopes.
    pub scope: String,
    /// Game name.
    pub game: String,
    /// Games on the board (all of them, repeats included).
    pub games: u64,
    /// Distinct complete game pairs behind the estimates.
    pub n_eff: u64,
    /// The first player's score per game over those pairs (%).
    pub first_score_pct: Option<f64>,
    /// The first player's advantage (Elo); empty at a 0% or 100% score, or without pairs.
    pub first_elo: Option<f64>,
    /// Lower end of its interval (Elo); empty when unbounded or without pairs.
    pub first_elo_ci_low: Option<f64>,
    /// Upper end of its interval (Elo); empty when unbounded or without pairs.
    pub first_elo_ci_high: Option<f64>,
    /// Draws per game over those pairs (%); empty without pairs.
    pub draw_pct: Option<f64>,
    /// Lower end of the draw rate's interval (%).
    pub draw_ci_low: Option<f64>,
    /// Upper end of the draw rate's interval (%).
    pub draw_ci_high: Option<f64>,
}

/// One row per board (in board-name order) of `records`, at confidence `level`. Games without a
/// board (imports that do not say) are left out.
pub fn compute(records: &[GameRecord], level: f64) -> Vec<BoardRow> {
    let (games, names) = crate::standings::observed::of_records(records);
    compute_observed(&games, &names, level)
}

/// [`compute`] on observations.
pub fn compute_observed(games: &[Observation], names: &Names, level: f64) -> Vec<BoardRow> {
    let mut by_board: BTreeMap<&str, Vec<&Observation>> = BTreeMap::new();
    for g in games {
        let board = names.board(g.place);
        if !board.is_empty() {
            by_board.entry(board).or_default().push(g);
        }
    }
    by_board
        .into_iter()
        .map(|(board, games)| row(board, &games, names, level))
        .collect()
}

fn row(board: &str, games: &[&Observation], names: &Names, level: f64) -> BoardRow {
    let clusters = repeats::of_observations(games);
    // Per counted game: its pair, the first player's points doubled and whether it was drawn;
    // sorted, the legs of a pair are adjacent.
    let mut legs: Vec<(u64, u8, bool)> = Vec::new();
    for (i, g) in games.iter().enumerate() {
        let Some(outcome) = g.outcome else {
            continue;
        };
        if clusters.counted[i] {
            let points = outcome.points(Side::First);
            legs.push((g.pair, (2.0 * points) as u8, outcome == Outcome::Draw));
        }
    }
    legs.sort_unstable();
    let mut penta = [0u64; 5];
    let mut draws = [0u64; 3];
    for pair in legs.chunk_by(|x, y| x.0 == y.0) {
        if let [x, y] = pair {
            penta[usize::from(x.1 + y.1)] += 1;
            draws[usize::from(x.2) + usize::from(y.2)] += 1;
        }
    }
    drop(legs);
    let n: u64 = penta.iter().sum();
    let advantage = rating::pentanomial(penta, level);
    let draw = draw_rate(draws, level);
    BoardRow {
        scope: format!("board:{board}"),
        game: games
            .first()
            .map(|g| names.game(g.place).to_owned())
            .unwrap_or_default(),
        games: games.len() as u64,
        n_eff: n,
        first_score_pct: advantage.map(|e| round1(100.0 * e.score)),
        first_elo: advantage.and_then(|e| e.elo).map(round1),
        first_elo_ci_low: advantage.and_then(|e| e.lower).map(round1),
        first_elo_ci_high: advantage.and_then(|e| e.upper).map(round1),
        draw_pct: draw.map(|d| round1(100.0 * d.0)),
        draw_ci_low: draw.map(|d| round1(100.0 * d.1)),
        draw_ci_high: draw.map(|d| round1(100.0 * d.2)),
    }
}

/// Mean draw share per pair and its interval, from the counts of pairs with 0, 1 and 2 draws;
/// `None` without pairs. See the module documentation.
fn draw_rate(counts: [u64; 3], level: f64) -> Option<(f64, f64, f64)> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let values = [0.0, 0.5, 1.0];
    let mean = values
        .iter()
        .zip(counts)
        .map(|(v, c)| v * c as f64)
        .sum::<f64>()
        / nf;
    let var = values
        .iter()
        .zip(counts)
        .map(|(v, c)| c as f64 * (v - mean).powi(2))
        .sum::<f64>()
        / nf;
    let floor = (1.0 / 6.0) / (nf + 1.0);
    let half = rating::z_for(level) * (var.max(floor) / nf).sqrt();
    Some((mean, (mean - half).max(0.0), (mean + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameIds, Termination};

    fn leg(id: u64, first: &str, second: &str, result: &str) -> GameRecord {
        let ids = GameIds {
            game_id: id,
            round: 1,
            pair: id / 2,
            board: "diag",
            game: "seven_colors",
            first,
            second,
        };
        GameRecord {
            moves: format!("m{id}"),
            plies: 1,
            ..GameRecord::unplayed(ids, result, Termination::Normal, String::new())
        }
    }

    #[test]
    fn a_first_player_that_always_wins_has_a_large_advantage_and_no_draws() {
        let games: Vec<GameRecord> = (0..200)
            .map(|i| {
                let (a, b) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
                leg(i, a, b, "1-0")
            })
            .collect();
        let rows = compute(&games, 0.95);
        let row = &rows[0];
        assert_eq!(
            (row.scope.as_str(), row.n_eff, row.games),
            ("board:diag", 100, 200)
        );
        assert_eq!((row.first_score_pct, row.first_elo), (Some(100.0), None));
        assert!(row.first_elo_ci_low.unwrap() > 400.0, "{row:?}");
        assert_eq!(row.first_elo_ci_high, None);
        assert_eq!((row.draw_pct, row.draw_ci_low), (Some(0.0), Some(0.0)));
        assert!(row.draw_ci_high.unwrap() > 0.0);
    }

    #[test]
    fn balanced_pairs_give_an_interval_around_zero() {
        // Pairs alternate: first player wins both, second wins both, one each, both drawn.
        let results = [
            ["1-0", "1-0"],
            ["0-1", "0-1"],
            ["1-0", "0-1"],
            ["1/2-1/2", "1/2-1/2"],
        ];
        let games: Vec<GameRecord> = (0..80u64)
            .map(|i| {
                let (a, b) = if i % 2 == 0 { ("a", "b") } else { ("b", "a") };
                leg(i, a, b, results[(i / 2 % 4) as usize][(i % 2) as usize])
            })
            .collect();
        let row = &compute(&games, 0.95)[0];
        assert_eq!(row.first_elo, Some(0.0));
        assert!(row.first_elo_ci_low.unwrap() < 0.0 && row.first_elo_ci_high.unwrap() > 0.0);
        assert_eq!(row.draw_pct, Some(25.0));
        assert!(row.draw_ci_low.unwrap() < 25.0 && row.draw_ci_high.unwrap() > 25.0);
    }
}
