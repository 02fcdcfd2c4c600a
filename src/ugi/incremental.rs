//! The engine loop's memory of the last `position` command, so that a game of n plies costs
//! O(n) rule work per engine instead of O(n²) (issue 17).
//!
//! The runner sends the whole game at every move (`position fen <start> moves m1 … mk`). When a
//! command names the same game and start as the previous one and its move list extends the
//! previous list, only the new moves are played (still checked for legality); anything else (a
//! new game, another start, a list that does not extend, an earlier error) falls back to the
//! full replay. Owns only this cache: it knows no game's rules beyond [`AnyPosition`] and
//! nothing of the protocol's text, which `super` parses.

use crate::games::{AnyPosition, GameKind};

/// The last position set and the command that gave it.
#[derive(Debug, Default)]
pub(super) struct PositionCache {
    /// The game, start text and move texts (as received) of the command that gave `position`.
    key: Option<(GameKind, String)>,
    moves: Vec<String>,
    position: Option<AnyPosition>,
}

impl PositionCache {
    /// Forgets the position, so the next command is replayed in full (`uginewgame`).
    pub(super) fn forget(&mut self) {
        *self = PositionCache::default();
    }

    /// The position of the last successful [`PositionCache::set`], `None` after an error or
    /// [`PositionCache::forget`].
    pub(super) fn position(&self) -> Option<&AnyPosition> {
        self.position.as_ref()
    }

    /// Sets the position `fen` of game `kind` followed by `moves`, playing only the moves past
    /// the previous command's list when this one extends it.
    ///
    /// # Errors
    /// The position text's or the first illegal move's message; no position is then kept.
    pub(super) fn set(
        &mut self,
        kind: GameKind,
        fen: &str,
        moves: &[String],
    ) -> Result<(), String> {
        let extends = self.position.is_some()
            && self
                .key
                .as_ref()
                .is_some_and(|(k, f)| *k == kind && f == fen)
            && moves.starts_with(&self.moves);
        if !extends {
            self.forget();
            let start = AnyPosition::from_fen(kind, fen).map_err(|e| e.to_string())?;
            self.key = Some((kind, fen.to_owned()));
            self.position = Some(start);
        }
        let Some(pos) = self.position.as_mut() else {
            unreachable!("set above or kept because it extends")
        };
        for mv in &moves[self.moves.len()..] {
            if let Err(e) = pos.play_text(mv) {
                self.forget();
                return Err(e.to_string());
            }
            self.moves.push(mv.clone());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::BoardSpec;
    use crate::seed;
    use proptest::prelude::*;

    /// What the loop did before the cache: parse the start, replay every move.
    fn full_replay(kind: GameKind, fen: &str, moves: &[String]) -> Option<AnyPosition> {
        let mut pos = AnyPosition::from_fen(kind, fen).ok()?;
        for mv in moves {
            pos.play_text(mv).ok()?;
        }
        Some(pos)
    }

    /// A random game of at most `max_plies` plies from `start`, as move texts.
    fn random_game(start: &AnyPosition, game_seed: u64, max_plies: usize) -> Vec<String> {
        let mut rng = seed::rng(game_seed);
        let mut pos = start.clone();
        let mut moves = Vec::new();
        while moves.len() < max_plies {
            let Some(mv) = pos.random_move_text(&mut rng) else {
                break;
            };
            pos.play_text(&mv).expect("a generated move is legal");
            moves.push(mv);
        }
        moves
    }

    fn start(kind: GameKind, board_seed: u64) -> AnyPosition {
        let spec: BoardSpec =
            serde_yaml::from_str(&format!("{{game: {}}}", kind.name())).expect("default spec");
        spec.start_position(board_seed).expect("start position")
    }

    fn assert_same(cached: Option<&AnyPosition>, replayed: Option<&AnyPosition>) {
        assert_eq!(cached.map(AnyPosition::fen), replayed.map(AnyPosition::fen));
        assert_eq!(
            cached.map(AnyPosition::outcome),
            replayed.map(AnyPosition::outcome)
        );
    }

    #[test]
    fn a_whole_game_move_by_move_matches_the_full_replay() {
        for kind in GameKind::ALL {
            let start = start(kind, 1);
            let fen = start.fen();
            let game = random_game(&start, 2, 400);
            let mut cache = PositionCache::default();
            for n in 0..=game.len() {
                cache.set(kind, &fen, &game[..n]).expect("legal game");
                assert_same(
                    cache.position(),
                    full_replay(kind, &fen, &game[..n]).as_ref(),
                );
            }
            assert_eq!(cache.moves.len(), game.len(), "{kind:?} kept every move");
        }
    }

    #[test]
    fn a_list_that_does_not_extend_is_replayed_from_its_start() {
        let kind = GameKind::Awale;
        let start = start(kind, 0);
        let fen = start.fen();
        let mut cache = PositionCache::default();
        let one = vec!["3".to_owned(), "1".to_owned()];
        cache.set(kind, &fen, &one).unwrap();
        // Same length, different last move: not an extension.
        let other = vec!["3".to_owned(), "2".to_owned()];
        cache.set(kind, &fen, &other).unwrap();
        assert_same(cache.position(), full_replay(kind, &fen, &other).as_ref());
        // Shorter: the game went back.
        cache.set(kind, &fen, &other[..1]).unwrap();
        assert_same(
            cache.position(),
            full_replay(kind, &fen, &other[..1]).as_ref(),
        );
        // An illegal extension keeps no position; the next legal command is replayed in full.
        let illegal = vec!["3".to_owned(), "9".to_owned()];
        assert!(cache.set(kind, &fen, &illegal).is_err());
        assert!(cache.position().is_none());
        cache.set(kind, &fen, &other).unwrap();
        assert_same(cache.position(), full_replay(kind, &fen, &other).as_ref());
        // Another start with a list that extends the previous one: replayed from that start.
        let moved = full_replay(kind, &fen, &other[..1]).unwrap().fen();
        let longer = vec!["3".to_owned(), "2".to_owned(), "1".to_owned()];
        let expected = full_replay(kind, &moved, &longer);
        let got = cache.set(kind, &moved, &longer);
        assert_eq!(got.is_ok(), expected.is_some());
        assert_same(cache.position(), expected.as_ref());
        // A forgotten cache starts over.
        cache.forget();
        assert!(cache.position().is_none());
        cache.set(kind, &fen, &other).unwrap();
        assert_same(cache.position(), full_replay(kind, &fen, &other).as_ref());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any sequence of commands, each a prefix of one of two games from the same start or of
        /// a third from another start (so lists extend, shrink, diverge and change start), sets
        /// the same position as replaying each command in full.
        #[test]
        fn any_command_sequence_matches_the_full_replay(
            kind_index in 0usize..GameKind::ALL.len(),
            board_seed in 0u64..1000,
            game_seeds in proptest::array::uniform3(any::<u64>()),
            commands in proptest::collection::vec((0usize..3, 0usize..120), 1..40),
        ) {
            let kind = GameKind::ALL[kind_index];
            let first = start(kind, board_seed);
            let second = start(kind, board_seed + 1);
            let games = [
                (first.fen(), random_game(&first, game_seeds[0], 120)),
                (first.fen(), random_game(&first, game_seeds[1], 120)),
                (second.fen(), random_game(&second, game_seeds[2], 120)),
            ];
            let mut cache = PositionCache::default();
            for (which, len) in commands {
                let (fen, game) = &games[which];
                let moves = &game[..len.min(game.len())];
                prop_assert!(cache.set(kind, fen, moves).is_ok());
                let cached = cache.position().map(AnyPosition::fen);
                let replayed = full_replay(kind, fen, moves).map(|p| p.fen());
                prop_assert_eq!(cached, replayed);
            }
        }
    }
}
