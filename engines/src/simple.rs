//! Engines without search: `random` for every game.

use arena::games::{AnyPosition, GameKind};
use arena::ugi::{Engine, Search};

/// Uniform over the legal moves, from the `Seed`-seeded generator.
pub struct Random;

impl Engine for Random {
    fn name(&self) -> String {
        "random".into()
    }

    fn games(&self) -> Vec<GameKind> {
        GameKind::ALL.to_vec()
    }

    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String> {
        pos.random_move_text(search.rng)
    }
}
