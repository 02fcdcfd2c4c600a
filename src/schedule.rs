//! The schedule: every game of a tournament, expanded up front from the config and the seed.
//!
//! For each board and round one start position is drawn from (seed, board name, round), or
//! taken from the board's opening suite (in turn, or shuffled per pass from (seed, board name,
//! pass); see [`crate::openings`]); every pair of engines that both play the board's game plays
//! it twice with colours swapped (a game pair). Game ids number the games in (round, board, engine pair, leg) order, so a run plays
//! every board in round 1 before round 2, and raising `rounds` only appends games.
//!
//! What a game *is* never depends on its id: start positions derive from the board's name and
//! the round, engine seeds from the board, round and the two engines' names. So adding a
//! board, an engine or rounds to a finished tournament leaves every game already played
//! exactly as the new schedule would play it; only ids may move, and a resumed run maps its
//! rows to the new schedule by [`Fixture::key`]. Nothing here depends on threads.

use crate::config::{Config, Format};
use crate::games::{AnyPosition, BoardSpec, BySide, GameKind, SpecError};
use crate::openings::Picker;
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

/// What identifies a game across schedules of compatible configs: board name, round, and the
/// first and second players' names.
pub type GameKey = (String, u32, String, String);

impl Fixture {
    /// This fixture's [`GameKey`], given the board and engine names in config order.
    pub fn key(&self, board_names: &[String], engine_names: &[String]) -> GameKey {
        (
            board_names[self.board].clone(),
            self.round,
            engine_names[self.players.first].clone(),
            engine_names[self.players.second].clone(),
        )
    }
}

/// FNV-1a of a name: how names enter seed paths.
fn name_key(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
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
/// The shuffles of `order: random` opening suites (per board and pass through the suite).
const OPENING_TAG: u64 = 3;

/// Who takes part, by config order: boards with their names, engines' names and the games
/// each plays.
pub struct Entrants<'a> {
    /// Boards in config order.
    pub boards: &'a [BoardSpec],
    /// Their unique names.
    pub board_names: &'a [String],
    /// Engine names in config order.
    pub engine_names: &'a [String],
    /// `plays[e]`: the games engine `e` plays.
    pub plays: &'a [Vec<GameKind>],
}

/// The start position of every board and round 1..=`rounds` (`starts[board][round - 1]`),
/// drawn from (seed, board name, round) or taken from the board's opening suite: the same
/// positions whatever the engines, so formats that pair round by round (Swiss, knockout) share
/// them with the round robin.
///
/// # Errors
/// [`SpecError`] when a board cannot produce a start position.
pub fn start_positions(
    boards: &[BoardSpec],
    board_names: &[String],
    rounds: u32,
    master_seed: u64,
) -> Result<Vec<Vec<AnyPosition>>, SpecError> {
    let mut starts: Vec<Vec<AnyPosition>> = vec![Vec::new(); boards.len()];
    let mut pickers = boards
        .iter()
        .map(|b| b.openings().map(|o| Picker::new(o, b)).transpose())
        .collect::<Result<Vec<_>, _>>()?;
    // Round-major: an opening suite taken in turn hands out its positions in round order.
    for round in 1..=rounds {
        for (b, board) in boards.iter().enumerate() {
            let board_key = name_key(&board_names[b]);
            let start = match &mut pickers[b] {
                Some(picker) => picker
                    .pick(round, |pass| {
                        seed::derive(master_seed, &[OPENING_TAG, board_key, pass])
                    })
                    .position
                    .clone(),
                None => board.start_position(seed::derive(
                    master_seed,
                    &[BOARD_TAG, board_key, u64::from(round)],
                ))?,
            };
            starts[b].push(start);
        }
    }
    Ok(starts)
}

/// The `Seed` sent to the engines of one game, below 2⁶³: from the master seed, the board's
/// name, the round and the two engines' names (first, second), never from the game's id.
pub fn engine_seed(master_seed: u64, board: &str, round: u32, first: &str, second: &str) -> u64 {
    seed::derive(
        master_seed,
        &[
            ENGINE_TAG,
            name_key(board),
            u64::from(round),
            name_key(first),
            name_key(second),
        ],
    ) >> 1
}

/// Which engine pairs meet in a schedule fixed up front.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// Every pair (a round robin).
    All,
    /// Only the pairs of this engine (a gauntlet's `gauntlet_engine`).
    Hub(usize),
    /// A ladder: each rung (engine index) meets every other engine each round; two rungs meet
    /// in round 1 only, and only with `calibration`; two non-rungs never meet.
    Ladder {
        /// The rungs' engine indices.
        rungs: Vec<usize>,
        /// Whether the rungs play each other (once).
        calibration: bool,
    },
}

impl Pairing {
    /// The pairing of `config` for its engines named `names` (config order).
    ///
    /// # Errors
    /// For a Swiss or knockout (paired round by round, not up front), or when
    /// `gauntlet_engine` or a rung of `ladder` names no engine.
    pub fn of(config: &Config, names: &[String]) -> Result<Pairing, String> {
        let index = |key: &str, name: &String| {
            names
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| format!("{key}: no engine is called `{name}`"))
        };
        match config.format {
            Format::RoundRobin => Ok(Pairing::All),
            Format::Gauntlet => match &config.gauntlet_engine {
                Some(hub) => index("gauntlet_engine", hub).map(Pairing::Hub),
                None => Err("format gauntlet needs gauntlet_engine".into()),
            },
            Format::Ladder => Ok(Pairing::Ladder {
                rungs: config
                    .ladder
                    .iter()
                    .flatten()
                    .map(|rung| index("ladder", rung))
                    .collect::<Result<_, _>>()?,
                calibration: config.ladder_calibration.unwrap_or(true),
            }),
            Format::Swiss | Format::Knockout => {
                Err("a Swiss or knockout is paired round by round, not scheduled up front".into())
            }
        }
    }

    /// Whether engines `a` and `b` meet in `round` (1-based).
    pub fn meets(&self, a: usize, b: usize, round: u32) -> bool {
        match self {
            Pairing::All => true,
            Pairing::Hub(h) => a == *h || b == *h,
            Pairing::Ladder { rungs, calibration } => {
                match (rungs.contains(&a), rungs.contains(&b)) {
                    (true, true) => *calibration && round == 1,
                    (false, false) => false,
                    _ => true,
                }
            }
        }
    }
}

/// Expands the schedule: `rounds` rounds from `master_seed`, the pairs that `pairing` lets
/// meet.
///
/// # Errors
/// [`SpecError`] when a board cannot produce a start position.
pub fn build(
    entrants: &Entrants<'_>,
    rounds: u32,
    master_seed: u64,
    pairing: &Pairing,
) -> Result<Schedule, SpecError> {
    let Entrants {
        boards,
        board_names,
        engine_names,
        plays,
    } = *entrants;
    let starts = start_positions(boards, board_names, rounds, master_seed)?;
    let mut fixtures = Vec::new();
    let mut pair_id = 0;
    for round in 1..=rounds {
        for (b, board) in boards.iter().enumerate() {
            let kind = board.kind();
            let entrants: Vec<usize> = (0..plays.len())
                .filter(|&e| plays[e].contains(&kind))
                .collect();
            for (k, &a) in entrants.iter().enumerate() {
                for &c in &entrants[k + 1..] {
                    if !pairing.meets(a, c, round) {
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
                            engine_seed: engine_seed(
                                master_seed,
                                &board_names[b],
                                round,
                                &engine_names[players.first],
                                &engine_names[players.second],
                            ),
                        });
                    }
                    pair_id += 1;
                }
            }
        }
    }
    Ok(Schedule { fixtures, starts })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn boards() -> Vec<BoardSpec> {
        [
            "{game: awale, pits: 6, random_opening_plies: 2}",
            "{game: seven_colors, size: 8}",
        ]
        .iter()
        .map(|y| serde_yaml::from_str(y).unwrap())
        .collect()
    }

    fn names(prefix: &str, n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{prefix}{i}")).collect()
    }

    fn schedule(
        boards: &[BoardSpec],
        plays: &[Vec<GameKind>],
        rounds: u32,
        pairing: &Pairing,
    ) -> Schedule {
        build(
            &Entrants {
                boards,
                board_names: &names("b", boards.len()),
                engine_names: &names("e", plays.len()),
                plays,
            },
            rounds,
            42,
            pairing,
        )
        .unwrap()
    }

    #[test]
    fn pairs_swap_colours_and_share_the_start() {
        let plays = vec![
            GameKind::ALL.to_vec(),
            GameKind::ALL.to_vec(),
            vec![GameKind::SevenColors],
        ];
        let s = schedule(&boards(), &plays, 2, &Pairing::All);
        // Awale: engines 0,1 only: 1 pair x 2 rounds x 2 legs. Seven Colors: 3 pairs x 2 x 2.
        assert_eq!(s.fixtures.len(), 4 + 12);
        for legs in s.fixtures.chunks(2) {
            assert_eq!(legs[0].pair, legs[1].pair);
            assert_eq!(legs[0].players.first, legs[1].players.second);
            assert_eq!(s.start(&legs[0]).fen(), s.start(&legs[1]).fen());
        }
        assert!(
            s.fixtures.windows(2).all(|w| w[0].round <= w[1].round),
            "round-major"
        );
        assert_ne!(
            s.starts[0][0].fen(),
            s.starts[0][1].fen(),
            "rounds get new openings"
        );
        let again = schedule(&boards(), &plays, 2, &Pairing::All);
        assert_eq!(s.fixtures, again.fixtures);
        assert_eq!(s.starts[1][1].fen(), again.starts[1][1].fen());
        assert!(s.fixtures.iter().all(|f| f.engine_seed < 1 << 63));
    }

    /// Every game by key: its start position and engine seed.
    fn games(s: &Schedule, plays: usize) -> BTreeMap<GameKey, (String, u64)> {
        let (b, e) = (names("b", s.starts.len()), names("e", plays));
        s.fixtures
            .iter()
            .map(|f| (f.key(&b, &e), (s.start(f).fen(), f.engine_seed)))
            .collect()
    }

    #[test]
    fn extending_a_tournament_keeps_every_game_it_had() {
        let plays = vec![GameKind::ALL.to_vec(); 3];
        let base = schedule(&boards()[..1], &plays[..2], 2, &Pairing::All);
        let old = games(&base, 2);
        // More rounds only append: same ids too.
        let longer = schedule(&boards()[..1], &plays[..2], 5, &Pairing::All);
        assert_eq!(longer.fixtures[..base.fixtures.len()], base.fixtures[..]);
        // Another board and another engine: every old game is still there, identical.
        let wider = schedule(&boards(), &plays, 2, &Pairing::All);
        let new = games(&wider, 3);
        assert!(new.len() > old.len());
        for (key, game) in &old {
            assert_eq!(new.get(key), Some(game), "{key:?}");
        }
    }

    #[test]
    fn gauntlet_keeps_only_the_hub_s_pairs() {
        let plays = vec![GameKind::ALL.to_vec(); 4];
        let s = schedule(&boards()[1..], &plays, 1, &Pairing::Hub(2));
        assert_eq!(s.fixtures.len(), 3 * 2);
        assert!(
            s.fixtures
                .iter()
                .all(|f| f.players.first == 2 || f.players.second == 2)
        );
    }

    #[test]
    fn a_ladder_pairs_rungs_with_teams_and_rungs_once() {
        // Engines 0 and 1 are rungs, 2..5 teams, on one board over 3 rounds.
        let plays = vec![GameKind::ALL.to_vec(); 5];
        let ladder = |calibration| Pairing::Ladder {
            rungs: vec![0, 1],
            calibration,
        };
        let s = schedule(&boards()[1..], &plays, 3, &ladder(true));
        // Rung × team: 2 × 3 pairs × 3 rounds; rung × rung: 1 pair in round 1; 2 legs each.
        assert_eq!(s.fixtures.len(), (2 * 3 * 3 + 1) * 2);
        for f in &s.fixtures {
            let (a, b) = (f.players.first, f.players.second);
            assert!(a < 2 || b < 2, "two teams never meet: {f:?}");
            if a < 2 && b < 2 {
                assert_eq!(f.round, 1, "rungs meet once");
            }
        }
        let without = schedule(&boards()[1..], &plays, 3, &ladder(false));
        assert_eq!(without.fixtures.len(), 2 * 3 * 3 * 2);
    }
}
