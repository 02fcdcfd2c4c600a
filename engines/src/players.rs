//! The [`Engine`] implementations behind the binaries: each maps a position to its game's
//! strategy and declares its options.

use arena::games::{AnyPosition, Game, GameKind};
use arena::protocol::OptionDecl;
use arena::ugi::{Engine, Search};

use crate::{alphabeta, amazons, awale, mcts, parse_spin, seven_colors, spin};

/// `mcts`: UCT with random playouts on every game.
pub struct Mcts;

impl Engine for Mcts {
    fn name(&self) -> String {
        "mcts".into()
    }

    fn games(&self) -> Vec<GameKind> {
        GameKind::ALL.to_vec()
    }

    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String> {
        match pos {
            AnyPosition::SevenColors(p) => mcts::best_move(p, search).map(|m| p.move_text(m)),
            AnyPosition::Amazons(p) => mcts::best_move(p, search).map(|m| p.move_text(m)),
            AnyPosition::Awale(p) => mcts::best_move(p, search).map(|m| p.move_text(m)),
        }
    }
}

/// One of the Seven Colors ladder strategies (and greedy Awale, under the same name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ladder {
    /// `random-available`.
    RandomAvailable,
    /// `greedy`.
    Greedy,
    /// `hegemonic`.
    Hegemonic,
    /// `foresight`, with its depth in own moves (option `Depth`, default 3).
    Foresight(u32),
    /// `hybrid`, switching to greedy below this % of neutral cells (option `SwitchPercent`,
    /// default 85: greedy once 15% of the board is taken, which measured best against greedy).
    Hybrid(u32),
}

impl Engine for Ladder {
    fn name(&self) -> String {
        match self {
            Ladder::RandomAvailable => "random-available",
            Ladder::Greedy => "greedy",
            Ladder::Hegemonic => "hegemonic",
            Ladder::Foresight(_) => "foresight",
            Ladder::Hybrid(_) => "hybrid",
        }
        .into()
    }

    fn games(&self) -> Vec<GameKind> {
        match self {
            Ladder::Greedy => vec![GameKind::SevenColors, GameKind::Awale],
            _ => vec![GameKind::SevenColors],
        }
    }

    fn options(&self) -> Vec<OptionDecl> {
        match self {
            Ladder::Foresight(depth) => vec![spin("Depth", i64::from(*depth), 1, 8)],
            Ladder::Hybrid(percent) => vec![spin("SwitchPercent", i64::from(*percent), 0, 100)],
            _ => Vec::new(),
        }
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        match self {
            Ladder::Foresight(depth) if name.eq_ignore_ascii_case("depth") => {
                *depth = parse_spin(name, value, 1, 8)? as u32;
                Ok(())
            }
            Ladder::Hybrid(percent) if name.eq_ignore_ascii_case("switchpercent") => {
                *percent = parse_spin(name, value, 0, 100)? as u32;
                Ok(())
            }
            _ => Err(format!("unknown option `{name}`")),
        }
    }

    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String> {
        let rng = &mut *search.rng;
        match (pos, *self) {
            (AnyPosition::SevenColors(p), ladder) => {
                let colour = match ladder {
                    Ladder::RandomAvailable => seven_colors::random_available(p, rng),
                    Ladder::Greedy => seven_colors::greedy(p, rng),
                    Ladder::Hegemonic => seven_colors::hegemonic(p, rng),
                    Ladder::Foresight(depth) => seven_colors::foresight(p, depth, rng),
                    Ladder::Hybrid(percent) => seven_colors::hybrid(p, percent, rng),
                };
                Some(p.move_text(colour))
            }
            (AnyPosition::Awale(p), Ladder::Greedy) => {
                awale::greedy(p, rng).map(|m| p.move_text(m))
            }
            _ => None,
        }
    }
}

/// `mobility`: one-ply Amazons mobility.
pub struct Mobility;

impl Engine for Mobility {
    fn name(&self) -> String {
        "mobility".into()
    }

    fn games(&self) -> Vec<GameKind> {
        vec![GameKind::Amazons]
    }

    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String> {
        match pos {
            AnyPosition::Amazons(p) => amazons::mobility(p, search.rng).map(|m| p.move_text(m)),
            _ => None,
        }
    }
}

/// `alphabeta`: iterative-deepening alpha-beta on every game.
///
/// Options: `Depth` (deepest iteration, 0 = no limit but the clock), `Width` and `RootWidth`
/// (Amazons moves kept below and at the root), and the Awale feature weights
/// (`CaptureWeight`, `VulnerableWeight`, `EmptyWeight`, `ReachWeight`, `LapWeight`).
pub struct AlphaBeta {
    depth: u32,
    width: usize,
    root_width: usize,
    weights: awale::Weights,
}

impl Default for AlphaBeta {
    fn default() -> Self {
        AlphaBeta {
            depth: 0,
            width: 12,
            root_width: 40,
            weights: awale::Weights::default(),
        }
    }
}

impl Engine for AlphaBeta {
    fn name(&self) -> String {
        "alphabeta".into()
    }

    fn games(&self) -> Vec<GameKind> {
        GameKind::ALL.to_vec()
    }

    fn options(&self) -> Vec<OptionDecl> {
        let mut options = vec![
            spin("Depth", i64::from(self.depth), 0, 64),
            spin("Width", self.width as i64, 1, 10_000),
            spin("RootWidth", self.root_width as i64, 1, 10_000),
        ];
        let mut weights = self.weights;
        for (name, value) in weights.named() {
            options.push(spin(name, i64::from(*value), -10_000, 10_000));
        }
        options
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        if name.eq_ignore_ascii_case("depth") {
            self.depth = parse_spin(name, value, 0, 64)? as u32;
        } else if name.eq_ignore_ascii_case("width") {
            self.width = parse_spin(name, value, 1, 10_000)? as usize;
        } else if name.eq_ignore_ascii_case("rootwidth") {
            self.root_width = parse_spin(name, value, 1, 10_000)? as usize;
        } else {
            let slot = self
                .weights
                .named()
                .into_iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, slot)| slot)
                .ok_or_else(|| format!("unknown option `{name}`"))?;
            *slot = parse_spin(name, value, -10_000, 10_000)? as i32;
        }
        Ok(())
    }

    fn search(&mut self, pos: &AnyPosition, search: &mut Search<'_>) -> Option<String> {
        if self.depth > 0 {
            search.depth = Some(search.depth.map_or(self.depth, |d| d.min(self.depth)));
        }
        match pos {
            AnyPosition::SevenColors(p) => {
                alphabeta::best_move(p, seven_colors::Eval, search).map(|m| p.move_text(m))
            }
            AnyPosition::Amazons(p) => {
                let eval = amazons::Eval::new(self.root_width, self.width);
                alphabeta::best_move(p, eval, search).map(|m| p.move_text(m))
            }
            AnyPosition::Awale(p) => {
                alphabeta::best_move(p, awale::Eval(self.weights), search).map(|m| p.move_text(m))
            }
        }
    }
}
