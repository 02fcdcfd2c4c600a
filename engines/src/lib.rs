//! Reference engines for arena, built on the same rules library as the runner.
//!
//! Each binary in `src/bin/` is one strategy and speaks UGI through [`arena::ugi::run`]:
//!
//! | binary | games | strategy |
//! |---|---|---|
//! | `random` | all | uniform over legal moves |
//! | `mcts` | all | UCT with random playouts ([`mcts`]) |
//! | `random-available` | seven_colors | uniform over colours that capture |
//! | `greedy` | seven_colors, awale | most cells (seeds) now |
//! | `hegemonic` | seven_colors | largest perimeter after the move |
//! | `foresight` | seven_colors | depth-n greedy over own moves |
//! | `hybrid` | seven_colors | hegemonic early, greedy late |
//! | `mobility` | amazons | one ply, own minus opponent's queen mobility |
//! | `alphabeta` | all | iterative-deepening alpha-beta ([`alphabeta`]) with per-game evaluations |
//!
//! `player-so` runs a course Amazons player library (`player.h`) as a UGI engine; arena starts it
//! for config entries with `library:` (see `docs/course-players.md`).
//!
//! Three more binaries serve tests and benchmarks: `instant` (the first legal move at once),
//! `hostile` (misbehaves on purpose, one flag per fault) and `pingpong` (the pipe floor of the
//! runner-overhead benchmark).
//!
//! Randomised engines draw from the generator seeded by the `Seed` option, so a game replays
//! identically under `go depth`/`go nodes`.

pub mod alphabeta;
pub mod amazons;
pub mod awale;
pub mod mcts;
pub mod players;
pub mod seven_colors;
pub mod simple;

use arena::protocol::OptionDecl;
use arena::seed::{self, SeededRng};

/// A `spin` option declaration.
pub fn spin(name: &str, default: i64, min: i64, max: i64) -> OptionDecl {
    OptionDecl {
        name: name.into(),
        kind: "spin".into(),
        default: Some(default.to_string()),
        min: Some(min),
        max: Some(max),
        vars: Vec::new(),
    }
}

/// Parses a `spin` value within `min..=max`.
///
/// # Errors
/// A message naming the option when the value is not an integer in range.
pub fn parse_spin(name: &str, value: &str, min: i64, max: i64) -> Result<i64, String> {
    match value.trim().parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!(
            "option {name} takes an integer in {min}..={max}, got `{value}`"
        )),
    }
}

/// The move with the largest `key`, ties broken uniformly by the generator; `None` for no moves.
pub fn best_by<M: Copy, K: Ord>(
    moves: &[M],
    mut key: impl FnMut(M) -> K,
    rng: &mut SeededRng,
) -> Option<M> {
    let keys: Vec<K> = moves.iter().map(|&m| key(m)).collect();
    let best = keys.iter().max()?;
    let top: Vec<M> = moves
        .iter()
        .zip(&keys)
        .filter(|&(_, k)| k == best)
        .map(|(&m, _)| m)
        .collect();
    seed::choose(rng, &top).copied()
}
