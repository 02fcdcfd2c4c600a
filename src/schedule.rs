//! The schedule: every game of a tournament, expanded up front from the config and the seed.
//!
//! For each board and round one start position is drawn from (seed, board, round); every pair
//! of engines that both play the board's game plays it twice with colours swapped (a game
//! pair). Game ids number the games in (board, round, engine pair, leg) order, so they, the
//! boards and the engine seeds depend only on the config and the seed, never on threads.

use crate::games::{AnyPosition, BoardSpec, BySide, GameKind, SpecError};
use crate::seed;

/// One game to play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixture {
    /// Stable id, 0-based, in schedule order.
    pub id: u64,
    /// Board index in the config.
    pub board: usize,
    /// Round, 1-based.
    pub round: u32,
    /// Game pair id (both legs share it).
    pub pair: u64,
    /// 0 for the first leg, 1 for the colour-swapped one.
    pub leg: u8,
    /// Engine indices by side.
    pub players: BySide<usize>,
    /// Seed sent to randomised engines (`Seed` option), below 2⁶³.
    pub engine_seed: u64,
}

/// The whole tournament: fixtures and the start position of each (board, round).
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Every game, ordered by id.
    pub fixtures: Vec<Fixture>,
    /// `starts[board][round - 1]`.
    pub starts: Vec<Vec<AnyPosition>>,
}

impl Schedule {
    /// The start position of a fixture.
    pub fn start(&self, fixture: &Fixture) -> &AnyPosition {
        &self.starts[fixture.board][fixture.round as usize - 1]
    }
}

/// Seed-path tags, so board and engine seeds come from independent streams.
const BOARD_TAG: u64 = 1;
const ENGINE_TAG: u64 = 2;

/// Expands the schedule.
///
/// `plays[e]` lists the games engine `e` plays; `hub` restricts pairs to those including that
/// engine (a gauntlet).
///
/// # Errors
/// [`SpecError`] when a board cannot produce a start position.
pub fn build(
    boards: &[BoardSpec],
    plays: &[Vec<GameKind>],
    rounds: u32,
    master_seed: u64,
    hub: Option<usize>,
) -> Result<Schedule, SpecError> {
    let mut fixtures = Vec::new();
    let mut starts = Vec::new();
    let mut pair_id = 0;
    for (b, board) in boards.iter().enumerate() {
        let kind = board.kind();
        let entrants: Vec<usize> = (0..plays.len())
            .filter(|&e| plays[e].contains(&kind))
            .collect();
        let mut board_starts = Vec::new();
        for round in 1..=rounds {
            board_starts.push(board.start_position(seed::derive(
                master_seed,
                &[BOARD_TAG, b as u64, u64::from(round)],
            ))?);
            for (k, &a) in entrants.iter().enumerate() {
                for &c in &entrants[k + 1..] {
                    if hub.is_some_and(|h| a != h && c != h) {
                        continue;
                    }
                    for leg in 0..2u8 {
                        let id = fixtures.len() as u64;
                        let players = if leg == 0 {
                            BySide::new(a, c)
                        } else {
                            BySide::new(c, a)
                        };
                        fixtures.push(Fixture {
                            id,
                            board: b,
                            round,
                            pair: pair_id,
                            leg,
                            players,
                            engine_seed: seed::derive(master_seed, &[ENGINE_TAG, id]) >> 1,
                        });
                    }
                    pair_id += 1;
                }
            }
        }
        starts.push(board_starts);
    }
    Ok(Schedule { fixtures, starts })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boards() -> Vec<BoardSpec> {
        [
            "{game: awale, pits: 6, random_opening_plies: 2}",
            "{game: seven_colors, size: 8}",
        ]
        .iter()
        .map(|y| serde_yaml::from_str(y).unwrap())
        .collect()
    }

    #[test]
    fn pairs_swap_colours_and_share_the_start() {
        let plays = vec![
            GameKind::ALL.to_vec(),
            GameKind::ALL.to_vec(),
            vec![GameKind::SevenColors],
        ];
        let s = build(&boards(), &plays, 2, 42, None).unwrap();
        // Awale: engines 0,1 only: 1 pair x 2 rounds x 2 legs. Seven Colors: 3 pairs x 2 x 2.
        assert_eq!(s.fixtures.len(), 4 + 12);
        for legs in s.fixtures.chunks(2) {
            assert_eq!(legs[0].pair, legs[1].pair);
            assert_eq!(legs[0].players.first, legs[1].players.second);
            assert_eq!(s.start(&legs[0]).fen(), s.start(&legs[1]).fen());
        }
        assert_ne!(
            s.starts[0][0].fen(),
            s.starts[0][1].fen(),
            "rounds get new openings"
        );
        let again = build(&boards(), &plays, 2, 42, None).unwrap();
        assert_eq!(s.fixtures, again.fixtures);
        assert_eq!(s.starts[1][1].fen(), again.starts[1][1].fen());
        assert!(s.fixtures.iter().all(|f| f.engine_seed < 1 << 63));
    }

    #[test]
    fn gauntlet_keeps_only_the_hub_s_pairs() {
        let plays = vec![GameKind::ALL.to_vec(); 4];
        let s = build(&boards()[1..], &plays, 1, 1, Some(2)).unwrap();
        assert_eq!(s.fixtures.len(), 3 * 2);
        assert!(
            s.fixtures
                .iter()
                .all(|f| f.players.first == 2 || f.players.second == 2)
        );
    }
}
