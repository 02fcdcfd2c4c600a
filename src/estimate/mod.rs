//! Run-time estimates for `arena check`: from what check measured (each engine's time for one
//! `go`, its process start-up) and a typical game length per board, and for an SPRT from the
//! expected number of games at `elo0` and at `elo1` (Wald's approximation).
//!
//! This file is pure arithmetic; [`measure`] plays the playouts and times the engines.

pub mod measure;

use crate::sprt::{Model, SprtSpec};

/// nElo per unit of normalized t-value (`800/ln 10`), as in [`crate::sprt`].
const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// Per-game work of the runner besides the engines' moves (new game, `isready`, writing the
/// game's row), in seconds.
pub const GAME_OVERHEAD_S: f64 = 0.005;

/// What one game costs: its expected plies and, per side, the time of one move and the
/// start-up paid for the game (a fresh process per game), all in seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GameCost {
    /// Plies of a typical game on its board.
    pub plies: f64,
    /// Seconds per move of the first and the second player.
    pub move_s: [f64; 2],
    /// Start-up seconds paid for this game by the first and the second player.
    pub startup_s: [f64; 2],
}

impl GameCost {
    /// Seconds for the game: half the plies by each side, their start-ups, and
    /// [`GAME_OVERHEAD_S`].
    pub fn seconds(&self) -> f64 {
        self.plies / 2.0 * (self.move_s[0] + self.move_s[1])
            + self.startup_s[0]
            + self.startup_s[1]
            + GAME_OVERHEAD_S
    }
}

/// The run's fixed cost in seconds besides its engines' start-ups: reading the config,
/// scheduling, writing the result files (about 0.1 s measured for a one-game run).
pub const RUN_OVERHEAD_S: f64 = 0.1;

/// Wall time of a run: [`RUN_OVERHEAD_S`], each engine's start-up twice (the handshake before
/// the first game, then its first process in the workers, which start theirs side by side),
/// and the games ([`wall_seconds`]).
pub fn run_seconds(games: &[GameCost], parallel: usize, startups: &[f64]) -> f64 {
    RUN_OVERHEAD_S + 2.0 * startups.iter().sum::<f64>() + wall_seconds(games, parallel)
}

/// Wall time of `games` played `parallel` at once: their total over `parallel`, and never
/// less than the longest game.
pub fn wall_seconds(games: &[GameCost], parallel: usize) -> f64 {
    let each: Vec<f64> = games.iter().map(GameCost::seconds).collect();
    let total: f64 = each.iter().sum();
    let longest = each.iter().copied().fold(0.0, f64::max);
    (total / parallel.max(1) as f64).max(longest)
}

/// Expected number of games of an SPRT (Wald's approximation) when the true difference is
/// `elo0` and when it is `elo1`, from the drift of the LLR per game; the draw rate is taken as
/// zero for the logistic and bayesian models (the normalized model does not depend on it).
pub fn sprt_expected_games(spec: &SprtSpec) -> (f64, f64) {
    let (lower, upper) = spec.bounds();
    let (alpha, beta) = (spec.alpha, spec.beta);
    // The LLR drifts by ∓d per game under H0/H1: d = Δt²/2 in t-values per game.
    let delta_t = match spec.model {
        Model::Normalized => (spec.elo1 - spec.elo0) / NELO_PER_T,
        Model::Logistic | Model::Bayesian => {
            let score = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
            // A game's score has standard deviation 1/2 without draws.
            (score(spec.elo1) - score(spec.elo0)) / 0.5
        }
    };
    let drift = delta_t * delta_t / 2.0;
    if drift <= 0.0 || !drift.is_finite() {
        return (f64::INFINITY, f64::INFINITY);
    }
    let at_elo0 = ((1.0 - alpha) * lower + alpha * upper) / -drift;
    let at_elo1 = (beta * lower + (1.0 - beta) * upper) / drift;
    (at_elo0.max(1.0), at_elo1.max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(model: Model, elo0: f64, elo1: f64) -> SprtSpec {
        SprtSpec::new(elo0, elo1, 0.05, 0.05, model, true).expect("spec")
    }

    #[test]
    fn a_game_costs_its_moves_and_start_ups() {
        let game = GameCost {
            plies: 40.0,
            move_s: [0.01, 0.03],
            startup_s: [0.1, 0.0],
        };
        let expected = 20.0 * 0.04 + 0.1 + GAME_OVERHEAD_S;
        assert!((game.seconds() - expected).abs() < 1e-12);
        // Four such games on two workers: two each; one game alone: its own length.
        let four = wall_seconds(&[game; 4], 2);
        assert!((four - 2.0 * expected).abs() < 1e-12);
        assert!((wall_seconds(&[game], 8) - expected).abs() < 1e-12);
        // The run adds its fixed cost and every engine's start-up twice.
        let run = run_seconds(&[game; 4], 2, &[0.1, 0.05]);
        assert!((run - (RUN_OVERHEAD_S + 0.3 + four)).abs() < 1e-12, "{run}");
    }

    #[test]
    fn wald_expected_games_shrink_with_a_wider_interval_and_match_the_formula() {
        // [0, 5] nElo: Δt = 5/347.4, drift 1.036e-4 a game; with α = β = 0.05, ln 19 = 2.944:
        // 0.9·2.944/1.036e-4 ≈ 25,600 games at either end.
        let (h0, h1) = sprt_expected_games(&spec(Model::Normalized, 0.0, 5.0));
        let d = (5.0 / NELO_PER_T).powi(2) / 2.0;
        let expected = 0.9 * 19f64.ln() / d;
        assert!(
            (h0 - expected).abs() < 1.0 && (h1 - expected).abs() < 1.0,
            "{h0} {h1}"
        );
        assert!((20_000.0..30_000.0).contains(&h0), "{h0}");
        let (wide0, wide1) = sprt_expected_games(&spec(Model::Normalized, 0.0, 50.0));
        assert!(wide0 < h0 / 50.0 && wide1 < h1 / 50.0, "{wide0} {wide1}");
        // Logistic [0, 10]: score 0.5 → 0.5144, Δt = 0.0288, ≈ 6,400 games.
        let (l0, _) = sprt_expected_games(&spec(Model::Logistic, 0.0, 10.0));
        assert!((5_000.0..8_000.0).contains(&l0), "{l0}");
    }
}
