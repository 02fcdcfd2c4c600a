//! Awale (oware) under the abapa rules, as in the Awale report, OpenSpiel's `oware` and the
//! World Oware Federation rules, with a configurable number of pits.
//!
//! Pits `0..n` are the first player's, `n..2n` the second's; sowing goes to index+1 mod 2n and
//! skips the origin pit on every lap. A last seed that makes an opponent pit hold 2 or 3 captures
//! it and, going backwards, every preceding opponent pit holding 2 or 3. A player must feed an
//! opponent whose row is empty. The game ends when a score exceeds half the seeds, at half each,
//! when the side to move has no legal move, or when a position repeats since the last capture;
//! then each row's seeds go to its owner.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::spec::{Common, SpecError, Variant};
use super::suite::OpeningsSpec;
use super::{BySide, FenError, Game, GameKind, MoveError, Outcome, Side, fen_fields};
use crate::seed::{self, SeededRng};

/// Pits per row a board may have (spec and position text alike). The upper bound keeps pit
/// indices (moves are `u8`) far from wrapping.
const MIN_PITS: usize = 2;
/// See [`MIN_PITS`].
const MAX_PITS: usize = 30;
/// Seeds per pit a spec may start with.
const MAX_SEEDS: u32 = 50;
/// Seeds a position may hold in all, pits and stores: the largest start position, since seeds
/// are conserved. Keeps every pit, store and row sum far below `u16::MAX`.
const MAX_TOTAL_SEEDS: u32 = 2 * MAX_PITS as u32 * MAX_SEEDS;

/// A seed count as [`Game::fen`] prints it: decimal digits, no sign, no leading zero.
fn seed_count(part: &str) -> Result<u16, String> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{part}` is not a seed count"));
    }
    if part.len() > 1 && part.starts_with('0') {
        let canonical = part.trim_start_matches('0');
        let canonical = if canonical.is_empty() { "0" } else { canonical };
        return Err(format!(
            "`{part}` has a leading zero; the position text writes `{canonical}`"
        ));
    }
    part.parse::<u16>()
        .ok()
        .filter(|&v| u32::from(v) <= MAX_TOTAL_SEEDS)
        .ok_or_else(|| format!("`{part}` seeds; a position holds at most {MAX_TOTAL_SEEDS}"))
}

/// What happens to a move that would capture every seed of the opponent's row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrandSlam {
    /// Legal, but captures nothing (abapa).
    #[default]
    NoCapture,
    /// Legal, and captures as usual.
    Capture,
    /// Illegal unless every legal move is one; then it is played and captures nothing.
    Forbidden,
}

impl GrandSlam {
    fn name(self) -> &'static str {
        match self {
            GrandSlam::NoCapture => "no_capture",
            GrandSlam::Capture => "capture",
            GrandSlam::Forbidden => "forbidden",
        }
    }
}

/// Awale board parameters: `{game: awale, pits: 6, seeds: 4, grand_slam: no_capture}` (the
/// defaults; the report's variant has `pits: 10`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Pits per row, 2..=30.
    #[serde(default = "default_pits")]
    pub pits: u32,
    /// Seeds per pit at the start, 1..=50.
    #[serde(default = "default_seeds")]
    pub seeds: u32,
    /// Grand-slam rule.
    #[serde(default)]
    pub grand_slam: GrandSlam,
    /// Board name in results; default `awale-<pits>` (plus the seeds and grand-slam rule when
    /// not the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ply cap, adjudicated by seeds with each row's seeds to its owner; default 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    /// Random plies played from the start position.
    #[serde(default)]
    pub random_opening_plies: u32,
    /// An opening suite: each round starts from one of its positions (see
    /// [`crate::openings`]); excludes `random_opening_plies`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsSpec>,
}

fn default_pits() -> u32 {
    6
}

fn default_seeds() -> u32 {
    4
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            pits: default_pits(),
            seeds: default_seeds(),
            grand_slam: GrandSlam::NoCapture,
            name: None,
            max_plies: None,
            random_opening_plies: 0,
            openings: None,
        }
    }
}

impl Variant for Spec {
    type Position = Awale;

    fn validate(&self) -> Result<(), SpecError> {
        if !(MIN_PITS as u32..=MAX_PITS as u32).contains(&self.pits) {
            return Err(SpecError(format!(
                "awale pits must be in {MIN_PITS}..={MAX_PITS}, got {}",
                self.pits
            )));
        }
        if !(1..=MAX_SEEDS).contains(&self.seeds) {
            return Err(SpecError(format!(
                "awale seeds must be in 1..={MAX_SEEDS}, got {}",
                self.seeds
            )));
        }
        Ok(())
    }

    fn default_name(&self) -> String {
        let mut name = format!("awale-{}", self.pits);
        if self.seeds != default_seeds() {
            let _ = write!(name, "-s{}", self.seeds);
        }
        if self.grand_slam != GrandSlam::NoCapture {
            let _ = write!(name, "-{}", self.grand_slam.name());
        }
        name
    }

    fn default_max_plies(&self) -> u32 {
        1000
    }

    fn generate(&self, _rng: &mut SeededRng) -> Awale {
        let n = self.pits as usize;
        Awale::new(
            vec![self.seeds as u16; 2 * n],
            BySide::default(),
            Side::First,
            self.grand_slam,
        )
    }

    fn fits(&self, pos: &Awale) -> Result<(), String> {
        let total = 2 * self.pits * self.seeds;
        if pos.pits_per_row() != self.pits as usize {
            return Err(format!(
                "{} pits a row, the board has {}",
                pos.pits_per_row(),
                self.pits
            ));
        }
        if pos.total_seeds() != total {
            return Err(format!(
                "{} seeds in all (pits and scores), the board starts with {total}",
                pos.total_seeds()
            ));
        }
        if pos.grand_slam != self.grand_slam {
            return Err(format!(
                "grand slam rule {}, the board's is {}",
                pos.grand_slam.name(),
                self.grand_slam.name()
            ));
        }
        Ok(())
    }

    fn openings_mut(&mut self) -> &mut Option<OpeningsSpec> {
        &mut self.openings
    }

    fn common(&self) -> Common<'_> {
        Common {
            name: self.name.as_deref(),
            max_plies: self.max_plies,
            random_opening_plies: self.random_opening_plies,
            openings: self.openings.as_ref(),
        }
    }
}

/// An Awale position: pits, captured seeds, side to move, and the positions seen since the
/// last capture (for the repetition ending; not part of the position text).
#[derive(Clone, Debug)]
pub struct Awale {
    /// `2n` pits; the first player's row first.
    pits: Vec<u16>,
    captured: BySide<u16>,
    to_move: Side,
    grand_slam: GrandSlam,
    /// Keys of the positions since the last capture, this one included.
    history: Vec<u64>,
    /// The last move repeated a position: the game is over.
    repeated: bool,
}

impl PartialEq for Awale {
    fn eq(&self, other: &Self) -> bool {
        self.pits == other.pits
            && self.captured == other.captured
            && self.to_move == other.to_move
            && self.grand_slam == other.grand_slam
    }
}

impl Eq for Awale {}

/// The pits and captures a move leads to.
struct Sown {
    pits: Vec<u16>,
    captured: u16,
}

impl Awale {
    fn new(pits: Vec<u16>, captured: BySide<u16>, to_move: Side, grand_slam: GrandSlam) -> Awale {
        let mut pos = Awale {
            pits,
            captured,
            to_move,
            grand_slam,
            history: Vec::new(),
            repeated: false,
        };
        pos.history.push(pos.key());
        pos
    }

    /// Pits per row.
    pub fn pits_per_row(&self) -> usize {
        self.pits.len() / 2
    }

    /// All `2n` pits, the first player's row first, in sowing order.
    pub fn pits(&self) -> &[u16] {
        &self.pits
    }

    /// The pit indices of `side`'s row.
    pub fn row(&self, side: Side) -> std::ops::Range<usize> {
        let n = self.pits_per_row();
        match side {
            Side::First => 0..n,
            Side::Second => n..2 * n,
        }
    }

    /// The pit where the last seed sown from pit `i` (an index 0..2n) lands, skipping the
    /// origin on every lap as [`Game::play`] does; `None` for an empty pit. For pictures of a
    /// move (the report's "last sown pit"), not needed by the rules' callers.
    ///
    /// ```
    /// use arena::games::{Awale, Game};
    ///
    /// let pos = Awale::from_fen("4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture")?;
    /// assert_eq!(pos.last_sown(2), Some(6)); // pit 3 sows into 4, 5, 6 and the second's pit 1
    /// # Ok::<(), arena::games::FenError>(())
    /// ```
    pub fn last_sown(&self, i: usize) -> Option<usize> {
        let seeds = usize::from(*self.pits.get(i)?);
        let len = self.pits.len();
        // The k-th pit after the origin among the other len - 1, counted cyclically.
        (seeds > 0).then(|| (i + (seeds - 1) % (len - 1) + 1) % len)
    }

    /// Seeds `side` has captured so far.
    pub fn captured(&self, side: Side) -> u32 {
        u32::from(self.captured[side])
    }

    /// Seeds in play and captured: constant over a game.
    pub fn total_seeds(&self) -> u32 {
        self.pits.iter().map(|&p| u32::from(p)).sum::<u32>()
            + u32::from(self.captured.first)
            + u32::from(self.captured.second)
    }

    fn row_seeds(&self, side: Side) -> u32 {
        self.pits[self.row(side)]
            .iter()
            .map(|&p| u32::from(p))
            .sum()
    }

    fn key(&self) -> u64 {
        let mut key = seed::mix(self.to_move.index() as u64);
        key =
            seed::mix(key ^ u64::from(self.captured.first) << 16 ^ u64::from(self.captured.second));
        for &p in &self.pits {
            key = seed::mix(key ^ u64::from(p));
        }
        key
    }

    /// Sows from pit `i` and applies the capture rule; `grand_slam_captures` says whether a
    /// capture of the whole opponent row is taken.
    fn sow(&self, i: usize, grand_slam_captures: bool) -> Sown {
        let len = self.pits.len();
        let mut pits = self.pits.clone();
        let seeds = usize::from(pits[i]);
        pits[i] = 0;
        // Full laps put one seed in every pit but the origin.
        let laps = seeds / (len - 1);
        if laps > 0 {
            for (j, p) in pits.iter_mut().enumerate() {
                if j != i {
                    *p += laps as u16;
                }
            }
        }
        let mut last = i;
        for _ in 0..seeds % (len - 1) {
            last = (last + 1) % len;
            if last == i {
                last = (last + 1) % len;
            }
            pits[last] += 1;
        }
        if seeds % (len - 1) == 0 {
            // The last seed of a whole number of laps lands just before the origin.
            last = (i + len - 1) % len;
        }
        let opponent = self.row(self.to_move.other());
        let mut captured = 0u16;
        let mut k = last;
        let mut taken = Vec::new();
        while opponent.contains(&k) && (2..=3).contains(&pits[k]) {
            captured += pits[k];
            taken.push(k);
            if k == opponent.start {
                break;
            }
            k -= 1;
        }
        let opponent_seeds: u16 = pits[opponent].iter().sum();
        let grand_slam = captured > 0 && captured == opponent_seeds;
        if grand_slam && !grand_slam_captures {
            captured = 0;
        } else {
            for k in taken {
                pits[k] = 0;
            }
        }
        Sown { pits, captured }
    }

    fn is_grand_slam(&self, i: usize) -> bool {
        let sown = self.sow(i, true);
        sown.captured > 0
            && sown.pits[self.row(self.to_move.other())]
                .iter()
                .all(|&p| p == 0)
    }

    /// The mover's non-empty pits that satisfy the must-feed rule, before the grand-slam filter.
    fn candidates(&self) -> impl Iterator<Item = usize> + '_ {
        let own = self.row(self.to_move);
        let starving = self.row_seeds(self.to_move.other()) == 0;
        own.clone().filter(move |&i| {
            let seeds = usize::from(self.pits[i]);
            seeds > 0 && (!starving || seeds >= own.end - i)
        })
    }

    fn rules_ended(&self) -> bool {
        let total = self.total_seeds();
        let (a, b) = (
            u32::from(self.captured.first),
            u32::from(self.captured.second),
        );
        if self.repeated || 2 * a > total || 2 * b > total || (2 * a == total && 2 * b == total) {
            return true;
        }
        self.candidates().next().is_none()
    }

    fn final_totals(&self) -> BySide<u32> {
        BySide::from_fn(|side| u32::from(self.captured[side]) + self.row_seeds(side))
    }
}

impl Game for Awale {
    /// A pit index, 0..2n, on the mover's row.
    type Move = u8;
    const KIND: GameKind = GameKind::Awale;

    fn side_to_move(&self) -> Side {
        self.to_move
    }

    fn legal_moves_into(&self, moves: &mut Vec<u8>) {
        moves.clear();
        if self.rules_ended() {
            return;
        }
        let mut pits: Vec<usize> = self.candidates().collect();
        if self.grand_slam == GrandSlam::Forbidden {
            let allowed: Vec<usize> = pits
                .iter()
                .copied()
                .filter(|&i| !self.is_grand_slam(i))
                .collect();
            if !allowed.is_empty() {
                pits = allowed;
            }
        }
        moves.extend(pits.into_iter().map(|i| i as u8));
    }

    const HAS_CONSTRAINTS: bool = true;

    /// `must feed`: the opponent's row is empty and a non-empty pit of the mover does not
    /// reach it, so that pit is illegal (abapa's feeding rule).
    fn constraint(&self) -> Option<&'static str> {
        let own = self.row(self.to_move);
        let starving = self.row_seeds(self.to_move.other()) == 0;
        let short = own.clone().any(|i| {
            let seeds = usize::from(self.pits[i]);
            seeds > 0 && seeds < own.end - i
        });
        (starving && short && !self.rules_ended() && self.candidates().next().is_some())
            .then_some("must feed")
    }

    fn illegal_reason(&self, mv: u8) -> Option<String> {
        let i = usize::from(mv);
        let own = self.row(self.to_move);
        if self.rules_ended() {
            return Some("the game is over".into());
        }
        if !own.contains(&i) {
            return Some(format!("pit index {i} is not on the mover's row"));
        }
        let pit = i + 1 - own.start;
        if self.pits[i] == 0 {
            return Some(format!("pit {pit} is empty"));
        }
        let forbidden_slam = self.grand_slam == GrandSlam::Forbidden
            && self.is_grand_slam(i)
            && self.candidates().any(|j| !self.is_grand_slam(j));
        if self.candidates().any(|j| j == i) && !forbidden_slam {
            None
        } else if self.row_seeds(self.to_move.other()) == 0 {
            Some(format!(
                "pit {pit} does not feed the opponent, whose row is empty"
            ))
        } else {
            Some(format!(
                "pit {pit} would capture the opponent's whole row (grand slam forbidden)"
            ))
        }
    }

    fn play_unchecked(&mut self, mv: u8) {
        let captures_all = self.grand_slam == GrandSlam::Capture;
        let sown = self.sow(usize::from(mv), captures_all);
        self.pits = sown.pits;
        self.captured[self.to_move] += sown.captured;
        self.to_move = self.to_move.other();
        let key = self.key();
        if sown.captured > 0 {
            self.history.clear();
        } else if self.history.contains(&key) {
            self.repeated = true;
        }
        self.history.push(key);
    }

    fn outcome(&self) -> Option<Outcome> {
        self.rules_ended()
            .then(|| Outcome::by_comparison(self.final_totals()))
    }

    fn adjudicate(&self) -> Outcome {
        Outcome::by_comparison(self.final_totals())
    }

    /// Seeds captured; once the game is over, each row's remaining seeds are added to its
    /// owner.
    fn scores(&self) -> Option<BySide<u32>> {
        Some(if self.rules_ended() {
            self.final_totals()
        } else {
            self.captured.map(u32::from)
        })
    }

    fn final_scores(&self) -> Option<BySide<u32>> {
        Some(self.final_totals())
    }

    fn parse_move(&self, text: &str) -> Result<u8, MoveError> {
        let n = self.pits_per_row();
        match text.parse::<usize>() {
            Ok(pit) if (1..=n).contains(&pit) && text.bytes().all(|b| b.is_ascii_digit()) => {
                Ok((self.row(self.to_move).start + pit - 1) as u8)
            }
            _ => Err(MoveError::syntax(
                text,
                format!("a move is a pit number 1..{n} on the mover's row"),
            )),
        }
    }

    fn move_text(&self, mv: u8) -> String {
        (usize::from(mv) % self.pits_per_row() + 1).to_string()
    }

    fn fen(&self) -> String {
        let row = |side| {
            self.pits[self.row(side)]
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{}/{} {},{} {} {}",
            row(Side::First),
            row(Side::Second),
            self.captured.first,
            self.captured.second,
            self.to_move.digit(),
            self.grand_slam.name()
        )
    }

    fn from_fen(text: &str) -> Result<Awale, FenError> {
        let err = |reason: String| FenError::new(GameKind::Awale, text, reason);
        let [rows, scores, side, mode] =
            fen_fields(text, ["pits", "scores", "side to move", "grand slam"]).map_err(err)?;
        let Some((first, second)) = rows.split_once('/') else {
            return Err(err("the two rows are separated by `/`".into()));
        };
        let (len1, len2) = (first.split(',').count(), second.split(',').count());
        if len1 != len2 || !(MIN_PITS..=MAX_PITS).contains(&len1) {
            return Err(err(format!(
                "rows of {len1} and {len2} pits; both rows need the same number, \
                 {MIN_PITS}..={MAX_PITS}"
            )));
        }
        let mut pits: Vec<u16> = Vec::with_capacity(2 * len1);
        for part in first.split(',').chain(second.split(',')) {
            pits.push(seed_count(part).map_err(err)?);
        }
        let Some((c1, c2)) = scores.split_once(',') else {
            return Err(err(format!("scores `{scores}` are not `c1,c2`")));
        };
        let captured = BySide::new(seed_count(c1).map_err(err)?, seed_count(c2).map_err(err)?);
        // At most 62 numbers below 2^16 each: no overflow in u32.
        let total: u32 = pits
            .iter()
            .chain([&captured.first, &captured.second])
            .map(|&p| u32::from(p))
            .sum();
        if total > MAX_TOTAL_SEEDS {
            return Err(err(format!(
                "{total} seeds in all; a position holds at most {MAX_TOTAL_SEEDS} \
                 (the largest start position, {MAX_PITS} pits a row of {MAX_SEEDS} seeds)"
            )));
        }
        let to_move = Side::from_digit(side)
            .ok_or_else(|| err(format!("side to move `{side}` is not 1 or 2")))?;
        let grand_slam = [
            GrandSlam::NoCapture,
            GrandSlam::Capture,
            GrandSlam::Forbidden,
        ]
        .into_iter()
        .find(|g| g.name() == mode)
        .ok_or_else(|| {
            err(format!(
                "grand slam `{mode}` is not no_capture, capture or forbidden"
            ))
        })?;
        Ok(Awale::new(pits, captured, to_move, grand_slam))
    }

    /// The second player's row on top, read right to left, and the first player's below it,
    /// read left to right, so the board reads as one counter-clockwise loop; each row's pit
    /// numbers (the move texts) are printed on its outer side.
    fn render(&self, ansi: bool) -> String {
        let n = self.pits_per_row();
        let paint = |text: String, code: &str| {
            if ansi {
                format!("\x1b[{code}m{text}\x1b[0m")
            } else {
                text
            }
        };
        let cells = |range: Vec<usize>| {
            range
                .into_iter()
                .map(|i| format!("{:>3}", self.pits[i]))
                .collect::<String>()
        };
        let numbers = |range: Vec<usize>| {
            range
                .into_iter()
                .map(|pit| format!("{pit:>3}"))
                .collect::<String>()
        };
        // The side to move's pit numbers stand out: they are what it can type.
        let label = |side: Side| if side == self.to_move { "1" } else { "2" };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<25}{}  <- second (2) sows right to left",
            "            pit",
            paint(numbers((1..=n).rev().collect()), label(Side::Second))
        );
        let _ = writeln!(
            out,
            "second (2) captured {:>3}  {}",
            self.captured.second,
            paint(cells((n..2 * n).rev().collect()), "1;33")
        );
        let _ = writeln!(
            out,
            "first  (1) captured {:>3}  {}",
            self.captured.first,
            paint(cells((0..n).collect()), "1;36")
        );
        let _ = writeln!(
            out,
            "{:<25}{}  -> first (1) sows left to right",
            "            pit",
            paint(numbers((1..=n).collect()), label(Side::First))
        );
        let _ = writeln!(out, "{} to move", self.to_move);
        out
    }

    fn move_help(&self) -> String {
        let n = self.pits_per_row();
        format!(
            "A move is the number 1..{n} of one of your non-empty pits. The first player owns the \
             bottom row, numbered 1..{n} from left to right; the second player the top row, \
             numbered 1..{n} from right to left: both count in sowing order, which runs \
             counter-clockwise. The seeds of the pit are sown one per pit, skipping the pit \
             itself; if the last one makes an opponent pit hold 2 or 3, those are captured, and \
             so are the pits before it in the opponent row that hold 2 or 3. When the opponent \
             row is empty you must sow into it. A move that would capture the whole opponent \
             row (grand slam) {}.",
            match self.grand_slam {
                GrandSlam::NoCapture => "is legal but captures nothing",
                GrandSlam::Capture => "captures as usual",
                GrandSlam::Forbidden =>
                    "is illegal unless every move is one (then it captures nothing)",
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Awale {
        Awale::from_fen(text).unwrap()
    }

    fn after(text: &str, mv: &str) -> String {
        let mut p = pos(text);
        p.play_text(mv).unwrap();
        p.fen()
    }

    #[test]
    fn sowing_from_the_start() {
        assert_eq!(
            after("4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture", "6"),
            "4,4,4,4,4,0/5,5,5,5,4,4 0,0 2 no_capture"
        );
        // The second player's pit 1 is index 6.
        assert_eq!(
            after("4,4,4,4,4,4/4,4,4,4,4,4 0,0 2 no_capture", "1"),
            "4,4,4,4,4,4/0,5,5,5,5,4 0,0 1 no_capture"
        );
    }

    #[test]
    fn capture_chain_runs_backwards_within_the_opponent_row() {
        // Pit 6 (3 seeds) lands on opponent pits 1..3, which then hold 2, 3, 2: all captured.
        // The first opponent pit ends the chain even though our own pit before it qualifies.
        assert_eq!(
            after("0,0,0,0,2,3/1,2,1,5,0,0 0,0 1 no_capture", "6"),
            "0,0,0,0,2,0/0,0,0,5,0,0 7,0 2 no_capture"
        );
        // A pit with 4 seeds breaks the chain.
        assert_eq!(
            after("0,0,0,0,0,3/1,3,1,5,0,0 0,0 1 no_capture", "6"),
            "0,0,0,0,0,0/2,4,0,5,0,0 2,0 2 no_capture"
        );
    }

    #[test]
    fn last_sown_matches_one_seed_at_a_time() {
        // Sow seed by seed, skipping the origin, for every pit count of a few boards.
        for (n, seeds) in [
            (2usize, 1u16),
            (3, 7),
            (6, 4),
            (6, 11),
            (6, 12),
            (6, 23),
            (10, 40),
        ] {
            let mut pits = vec![1u16; 2 * n];
            pits[1] = seeds;
            let row = |p: &[u16]| p.iter().map(u16::to_string).collect::<Vec<_>>().join(",");
            let text = format!("{}/{} 0,0 1 no_capture", row(&pits[..n]), row(&pits[n..]));
            let mut last = 1;
            for _ in 0..seeds {
                last = (last + 1) % (2 * n);
                if last == 1 {
                    last = (last + 1) % (2 * n);
                }
            }
            assert_eq!(pos(&text).last_sown(1), Some(last), "{text}");
        }
        assert_eq!(pos("0,1/1,1 0,0 1 no_capture").last_sown(0), None);
    }

    #[test]
    fn laps_skip_the_origin_pit() {
        // 12 seeds from pit 1 on a 6-pit board: 11 go around once, the 12th skips the origin
        // and lands on pit 2.
        assert_eq!(
            after("12,0,0,0,0,0/1,1,1,1,1,1 0,0 1 no_capture", "1"),
            "0,2,1,1,1,1/2,2,2,2,2,2 0,0 2 no_capture"
        );
        // 22 seeds: two full laps, last seed in the pit before the origin (own row: no capture).
        assert_eq!(
            after("0,22,0,0,0,0/1,1,1,1,1,1 0,0 1 no_capture", "2"),
            "2,0,2,2,2,2/3,3,3,3,3,3 0,0 2 no_capture"
        );
    }

    #[test]
    fn grand_slam_modes() {
        // Pit 6 with 2 seeds makes the opponent's only seeds 2 and 2: a grand slam.
        let text = |mode| format!("1,0,0,0,0,2/1,1,0,0,0,0 0,0 1 {mode}");
        assert_eq!(
            after(&text("no_capture"), "6"),
            "1,0,0,0,0,0/2,2,0,0,0,0 0,0 2 no_capture"
        );
        assert_eq!(
            after(&text("capture"), "6"),
            "1,0,0,0,0,0/0,0,0,0,0,0 4,0 2 capture"
        );
        let forbidden = pos(&text("forbidden"));
        assert_eq!(forbidden.legal_moves(), vec![0]);
        assert!(
            forbidden
                .illegal_reason(5)
                .unwrap()
                .contains("grand slam forbidden")
        );
        // When the grand slam is the only move it is played and captures nothing.
        let forced = pos("0,0,0,0,0,2/1,1,0,0,0,0 0,0 1 forbidden");
        assert_eq!(forced.legal_moves(), vec![5]);
        assert_eq!(
            after("0,0,0,0,0,2/1,1,0,0,0,0 0,0 1 forbidden", "6"),
            "0,0,0,0,0,0/2,2,0,0,0,0 0,0 2 forbidden"
        );
    }

    #[test]
    fn must_feed_a_starving_opponent() {
        let p = pos("3,0,0,2,1,0/0,0,0,0,0,0 10,10 1 no_capture");
        // The opponent's row is empty and no pit holds enough seeds to reach it.
        assert!(p.legal_moves().is_empty());
        assert_eq!(
            p.outcome(),
            Some(Outcome::Decisive {
                winner: Side::First
            })
        );
        // The mover takes every seed left.
        assert_eq!(p.scores(), Some(BySide::new(16, 10)));
        let p = pos("0,0,0,3,1,0/0,0,0,0,0,0 10,10 1 no_capture");
        assert_eq!(p.legal_moves(), vec![3]);
        assert!(p.illegal_reason(4).unwrap().contains("does not feed"));
    }

    #[test]
    fn majority_and_half_each() {
        // 48 seeds: 25 is more than half.
        let p = pos("1,0,0,0,0,0/1,0,0,0,0,1 25,20 2 no_capture");
        assert_eq!(
            p.outcome(),
            Some(Outcome::Decisive {
                winner: Side::First
            })
        );
        let p = pos("0,0,0,0,0,0/0,0,0,0,0,0 24,24 1 no_capture");
        assert_eq!(p.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn repetition_since_the_last_capture_ends_the_game() {
        // One seed a side chases round the board without ever making a 2 or 3; after 12 plies
        // the start position (side to move included) recurs, and not one ply earlier.
        let mut p = pos("0,0,0,0,0,1/0,0,0,0,0,1 23,23 1 no_capture");
        let mut plies = 0;
        while p.outcome().is_none() {
            let mv = p.legal_moves()[0];
            p.play_unchecked(mv);
            plies += 1;
            assert!(plies <= 12, "no repetition found");
        }
        assert_eq!(plies, 12);
        assert!(p.repeated);
        assert_eq!(p.fen(), "0,0,0,0,0,1/0,0,0,0,0,1 23,23 1 no_capture");
        assert_eq!(p.outcome(), Some(Outcome::Draw));
        assert_eq!(p.scores(), Some(BySide::new(24, 24)));
    }

    #[test]
    fn bad_texts_are_rejected() {
        for bad in [
            "4,4,4/4,4,4 0,0 1",
            "4,4,4/4,4 0,0 1 no_capture",
            "4,4,4/4,4,x 0,0 1 no_capture",
            "4,4,4/4,4,4 0 1 no_capture",
            "4,4,4/4,4,4 0,0 3 no_capture",
            "4,4,4/4,4,4 0,0 1 maybe",
            "4/4 0,0 1 no_capture",
        ] {
            assert!(Awale::from_fen(bad).is_err(), "{bad}");
        }
        // A pit index outside the mover's row is refused, not wrapped below zero.
        let second = pos("4,4,4/4,4,4 0,0 2 no_capture");
        assert!(
            second
                .illegal_reason(0)
                .unwrap()
                .contains("not on the mover's row")
        );
        assert!(
            second
                .illegal_reason(200)
                .unwrap()
                .contains("not on the mover's row")
        );
        let p = pos("4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture");
        for bad in ["0", "7", "-1", "+1", "a", ""] {
            assert!(p.parse_move(bad).is_err(), "{bad}");
        }
    }

    fn row(pits: usize, seeds: &str) -> String {
        vec![seeds; pits].join(",")
    }

    #[test]
    fn texts_are_bounded_like_boards() {
        // 30 pits a row is the largest board; 31 is refused before any index could wrap.
        assert!(Awale::from_fen(&format!("{0}/{0} 0,0 1 no_capture", row(30, "4"))).is_ok());
        let reason = Awale::from_fen(&format!("{0}/{0} 0,0 1 no_capture", row(31, "4")))
            .unwrap_err()
            .reason;
        assert_eq!(
            reason,
            "rows of 31 and 31 pits; both rows need the same number, 2..=30"
        );
        let many = Awale::from_fen(&format!("{0}/{0} 0,0 1 no_capture", row(300, "1")));
        assert!(many.is_err());
        // 3000 seeds in all (30 pits a row of 50) is the most any board holds.
        assert!(Awale::from_fen(&format!("{0}/{0} 0,0 1 no_capture", row(30, "50"))).is_ok());
        assert!(Awale::from_fen("1500,0/1500,0 0,0 1 capture").is_ok());
        assert_eq!(
            Awale::from_fen("1500,0/1500,0 0,1 1 capture")
                .unwrap_err()
                .reason,
            "3001 seeds in all; a position holds at most 3000 \
             (the largest start position, 30 pits a row of 50 seeds)"
        );
        for bad in [
            "3001,0/0,0 0,0 1 capture",
            "65535,65535/65535,65535 0,0 1 capture",
            "65536,0/0,0 0,0 1 capture",
            "99999999999999999999,0/0,0 0,0 1 capture",
        ] {
            assert!(Awale::from_fen(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_fullest_positions_play_without_overflow() {
        // Every seed a text may hold, gathered in one pit or spread over the widest rows:
        // sowing, captures and row sums stay in range (debug builds check every addition).
        for text in [
            format!("3000,{}/{} 0,0 1 capture", row(29, "0"), row(30, "0")),
            format!("{0}/{0} 0,0 2 no_capture", row(30, "50")),
            "1500,0/1500,0 0,0 1 forbidden".to_owned(),
            "0,1/0,2999 0,0 2 capture".to_owned(),
        ] {
            let mut p = pos(&text);
            let total = p.total_seeds();
            let mut rng = seed::rng(5);
            for _ in 0..2000 {
                let Some(mv) = p.random_move(&mut rng) else {
                    break;
                };
                p.play_unchecked(mv);
                assert_eq!(p.total_seeds(), total, "{text}");
                assert_eq!(Awale::from_fen(&p.fen()).unwrap(), p);
            }
        }
    }

    #[test]
    fn only_the_printed_spelling_is_read() {
        // One text per position: reading accepts exactly what printing writes.
        let canonical = "4,4,0,5/5,4,4,4 0,10 2 no_capture";
        assert_eq!(pos(canonical).fen(), canonical);
        for (bad, reason) in [
            (
                "4,04,0,5/5,4,4,4 0,10 2 no_capture",
                "`04` has a leading zero; the position text writes `4`",
            ),
            (
                "4,4,00,5/5,4,4,4 0,10 2 no_capture",
                "`00` has a leading zero; the position text writes `0`",
            ),
            (
                "4,4,0,5/5,4,4,4 0,010 2 no_capture",
                "`010` has a leading zero; the position text writes `10`",
            ),
            (
                "4,4,+0,5/5,4,4,4 0,10 2 no_capture",
                "`+0` is not a seed count",
            ),
            (
                "4,4, 0,5/5,4,4,4 0,10 2 no_capture",
                "expected 4 fields (pits, scores, side to move, grand slam), got 5",
            ),
            (
                "4,4,0,5/5,4,4,4  0,10 2 no_capture",
                "fields are separated by single spaces, with none before or after",
            ),
            (
                " 4,4,0,5/5,4,4,4 0,10 2 no_capture",
                "fields are separated by single spaces, with none before or after",
            ),
            (
                "4,4,0,5/5,4,4,4 0,10 2 no_capture\n",
                "fields are separated by single spaces, with none before or after",
            ),
            (
                "4,4,0,5/5,4,4,4\t0,10 2 no_capture",
                "fields are separated by single spaces, with none before or after",
            ),
        ] {
            assert_eq!(Awale::from_fen(bad).unwrap_err().reason, reason, "{bad:?}");
        }
    }

    #[test]
    fn constraint_names_a_must_feed_position_only() {
        // The second player's row is empty; the first player's pit 1 (1 seed) cannot reach it,
        // pit 6 (1 seed) can: must feed.
        let starving = Awale::from_fen("1,0,0,0,0,1/0,0,0,0,0,0 20,20 1 no_capture").unwrap();
        assert_eq!(starving.constraint(), Some("must feed"));
        assert_eq!(starving.legal_moves(), vec![5]);
        // Every non-empty pit reaches the empty row: no move is forbidden, nothing to name.
        let all_feed = Awale::from_fen("0,0,0,0,0,1/0,0,0,0,0,0 20,21 1 no_capture").unwrap();
        assert_eq!(all_feed.constraint(), None);
        // The opponent has seeds: no constraint.
        let start = Awale::from_fen("4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture").unwrap();
        assert_eq!(start.constraint(), None);
    }
}
