//! `instant`: answers the first legal move at once, on every game. A benchmark and test
//! engine: it costs the runner nothing but the protocol.

use arena::games::{AnyPosition, GameKind};
use arena::ugi::{self, Engine, Search};

struct Instant;

impl Engine for Instant {
    fn name(&self) -> String {
        "instant".into()
    }

    fn games(&self) -> Vec<GameKind> {
        GameKind::ALL.to_vec()
    }

    fn search(&mut self, pos: &AnyPosition, _search: &mut Search<'_>) -> Option<String> {
        pos.legal_move_texts().into_iter().next()
    }
}

fn main() -> std::io::Result<()> {
    ugi::run(Instant)
}
