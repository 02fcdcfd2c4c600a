//! The record of one finished game: one row of `games.csv` ([`GameRecord`]), and its plies: rows
//! of `moves.csv` ([`moves`]), read by the tournament, the report and `arena replay`.

pub mod moves;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Why a game ended, as written in the `termination` column.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The rules ended it.
    #[default]
    Normal,
    /// An engine answered `bestmove resign`.
    Resign,
    /// An engine sent a move that is illegal or not a move of the game.
    IllegalMove,
    /// An engine exceeded its time (plus margin) or the hang limit.
    TimeForfeit,
    /// An engine exited or closed its output, or could not be started.
    Crash,
    /// An engine broke the protocol (no `ugiok`/`readyok`, `bestmove` without a move, an
    /// overlong or non-UTF-8 line).
    ProtocolError,
    /// The board's `max_plies` was reached; adjudicated by the rules.
    MaxPlies,
    /// Not played: an engine was withdrawn from the tournament (its handshake failed, or it
    /// failed `withdraw_after` games in a row without a move), and the game is forfeited. A
    /// rerun under `on_engine_failure: stop` plays such games again; under `forfeit` they stand.
    Withdrawn,
    /// Adjudicated a win by the engines' own scores (config `adjudication.resign`): both agreed
    /// that one side was ahead by at least the bound for enough moves; not a fault of the loser.
    AdjudicatedWin,
    /// Adjudicated a draw by the engines' own scores (config `adjudication.draw`).
    AdjudicatedDraw,
}

impl Termination {
    /// Every reason, in column order of summaries.
    pub const ALL: [Termination; 10] = [
        Termination::Normal,
        Termination::Resign,
        Termination::IllegalMove,
        Termination::TimeForfeit,
        Termination::Crash,
        Termination::ProtocolError,
        Termination::MaxPlies,
        Termination::Withdrawn,
        Termination::AdjudicatedWin,
        Termination::AdjudicatedDraw,
    ];

    /// The CSV spelling.
    pub fn name(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::Resign => "resign",
            Termination::IllegalMove => "illegal_move",
            Termination::TimeForfeit => "time_forfeit",
            Termination::Crash => "crash",
            Termination::ProtocolError => "protocol_error",
            Termination::MaxPlies => "max_plies",
            Termination::Withdrawn => "withdrawn",
            Termination::AdjudicatedWin => "adjudicated_win",
            Termination::AdjudicatedDraw => "adjudicated_draw",
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Termination {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        Termination::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| format!("unknown termination `{text}`"))
    }
}

/// One finished game, exactly as in `games.csv` (columns in field order). The default is an
/// empty row (for a header written without rows).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Stable game id (schedule order).
    pub game_id: u64,
    /// Round, 1-based.
    pub round: u32,
    /// Board name.
    pub board: String,
    /// Game name (`seven_colors`, `amazons`, `awale`).
    pub game: String,
    /// Game pair id; both legs share it.
    pub pair: u64,
    /// Engine that moved first.
    pub first: String,
    /// Engine that moved second.
    pub second: String,
    /// `1-0`, `0-1` or `1/2-1/2` (first player's view); `*` when neither engine could play
    /// (both failed to start, or both were withdrawn): such a game is not rated.
    pub result: String,
    /// Why it ended.
    pub termination: Termination,
    /// Plies played.
    pub plies: u32,
    /// First player's cells or seeds (empty for Amazons and for games that ended early).
    pub score_first: Option<u32>,
    /// Second player's cells or seeds.
    pub score_second: Option<u32>,
    /// Wall time of the game (ms).
    pub duration_ms: u64,
    /// Thinking time used by the first player (ms).
    pub first_time_ms: u64,
    /// Thinking time used by the second player (ms).
    pub second_time_ms: u64,
    /// Start position text.
    pub start_fen: String,
    /// Moves played, space-separated.
    pub moves: String,
    /// What happened, in words, when it was not a normal ending.
    pub detail: String,
    /// The id of the first game this one repeats move for move (same board, start position,
    /// engines in the same colours, moves and result; see [`crate::repeats`]); `None` for the
    /// first of its kind and for games without moves. Missing in games.csv files written
    /// before the column existed, which read as no repeat (they are marked again on resume).
    #[serde(default)]
    pub repeat_of: Option<u64>,
}

/// What identifies a game before it is played: the leading columns of its [`GameRecord`].
#[derive(Clone, Copy, Debug)]
pub struct GameIds<'a> {
    /// Stable game id (schedule order).
    pub game_id: u64,
    /// Round, 1-based.
    pub round: u32,
    /// Game pair id; both legs share it.
    pub pair: u64,
    /// Board name.
    pub board: &'a str,
    /// Game name (`seven_colors`, `amazons`, `awale`).
    pub game: &'a str,
    /// Engine that moves first.
    pub first: &'a str,
    /// Engine that moves second.
    pub second: &'a str,
}

impl GameRecord {
    /// The record of a game that ended before its first ply (an engine that could not start
    /// or was withdrawn; a game imported from a file without moves): `result` (`1-0`, `0-1`,
    /// `1/2-1/2` or `*`), `termination` and `detail` as given; no move, no score, no start
    /// position, every time 0 ms. Callers that know more fill the fields in afterwards.
    pub fn unplayed(
        ids: GameIds<'_>,
        result: &str,
        termination: Termination,
        detail: String,
    ) -> GameRecord {
        GameRecord {
            game_id: ids.game_id,
            round: ids.round,
            board: ids.board.to_owned(),
            game: ids.game.to_owned(),
            pair: ids.pair,
            first: ids.first.to_owned(),
            second: ids.second.to_owned(),
            result: result.to_owned(),
            termination,
            plies: 0,
            score_first: None,
            score_second: None,
            duration_ms: 0,
            first_time_ms: 0,
            second_time_ms: 0,
            start_fen: String::new(),
            moves: String::new(),
            detail,
            repeat_of: None,
        }
    }
}
