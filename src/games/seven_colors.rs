//! Seven Colors (7 couleurs), after D. Pashkov's 1991 game as specified in the course reports.
//!
//! An N×N board of cells coloured `A`..`G`; the first player owns the bottom-left cell, the
//! second the top-right one (on a torus, two cells maximally apart). A move names a colour: every
//! neutral cell of that colour 4-connected, through cells of that colour, to the mover's zone
//! joins the zone. Every colour is always legal, even one that captures nothing. The game ends
//! when a player owns more than half of the cells (that player wins) or no neutral cell is left
//! (more cells wins, equal draws).
//!
//! Moves cost O(border + captured): each side keeps the list of its zone cells that may still
//! touch a neutral cell, pruned lazily, so a game never rescans the whole board per move.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::spec::{Common, SpecError, Variant};
use super::suite::OpeningsSpec;
use super::{BySide, FenError, Game, GameKind, MoveError, Outcome, Side, fen_fields};
use crate::seed::{self, SeededRng};

/// Number of colours.
pub const COLOURS: usize = 7;
/// Cell value of the first player's zone; 0..7 are the neutral colours.
const ZONE_FIRST: u8 = 7;
/// Cell value of the second player's zone.
const ZONE_SECOND: u8 = 8;
/// Largest board side, in a spec and in a position text alike.
const MAX_SIZE: usize = 100;
/// Smallest board side of a position text (specs start at 5; small texts serve examples).
const MIN_FEN_SIZE: usize = 2;

/// A colour, `A`..`G`; also the move that names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Colour(u8);

impl Colour {
    /// The seven colours, `A` first.
    pub const ALL: [Colour; COLOURS] = [
        Colour(0),
        Colour(1),
        Colour(2),
        Colour(3),
        Colour(4),
        Colour(5),
        Colour(6),
    ];

    /// 0 for `A` … 6 for `G`.
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The colour's letter, `A`..`G`.
    pub fn letter(self) -> char {
        char::from(b'A' + self.0)
    }

    /// Whether this colour is in `set`, a bit set with bit k for colour k (as
    /// [`SevenColors::capturing_colours`] returns).
    pub fn is_in(self, set: u8) -> bool {
        set & (1 << self.0) != 0
    }

    /// The colours of `set` (see [`Colour::is_in`]), `A` first.
    pub fn in_set(set: u8) -> impl Iterator<Item = Colour> {
        Colour::ALL.into_iter().filter(move |c| c.is_in(set))
    }

    /// The colour named by `letter`, if it is `A`..`G`.
    pub fn from_letter(letter: char) -> Option<Colour> {
        ('A'..='G')
            .contains(&letter)
            .then(|| Colour(letter as u8 - b'A'))
    }
}

/// How the neutral cells are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// Every neutral cell uniform over `A`..`G`.
    #[default]
    Random,
    /// The fair board: one colour per diagonal of equal row−col, adjacent diagonals differ,
    /// symmetric under the half turn that swaps the start corners.
    Diagonal,
}

/// Whether the board's edges wrap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topology {
    /// A bounded square.
    #[default]
    Plane,
    /// Both pairs of opposite edges are joined (random layout only).
    Torus,
}

/// Seven Colors board parameters: `{game: seven_colors, size: 30, layout: random,
/// topology: plane}` (those are the defaults).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Cells per side, 5..=100.
    #[serde(default = "default_size")]
    pub size: u32,
    /// Colouring of the neutral cells.
    #[serde(default)]
    pub layout: Layout,
    /// Plane or torus.
    #[serde(default)]
    pub topology: Topology,
    /// Board name in results; default `seven_colors-<layout or torus>-<size>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ply cap, adjudicated by cell count; default 10·size².
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u32>,
    /// Random plies played from the generated board.
    #[serde(default)]
    pub random_opening_plies: u32,
    /// An opening suite: each round starts from one of its positions (see
    /// [`crate::openings`]); excludes `random_opening_plies`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<OpeningsSpec>,
}

fn default_size() -> u32 {
    30
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            size: default_size(),
            layout: Layout::Random,
            topology: Topology::Plane,
            name: None,
            max_plies: None,
            random_opening_plies: 0,
            openings: None,
        }
    }
}

impl Variant for Spec {
    type Position = SevenColors;

    fn validate(&self) -> Result<(), SpecError> {
        if !(5..=MAX_SIZE as u32).contains(&self.size) {
            return Err(SpecError(format!(
                "seven_colors size must be in 5..={MAX_SIZE}, got {}",
                self.size
            )));
        }
        if self.layout == Layout::Diagonal && self.topology == Topology::Torus {
            return Err(SpecError(
                "seven_colors layout diagonal cannot be used with topology torus".into(),
            ));
        }
        Ok(())
    }

    fn default_name(&self) -> String {
        let kind = match (self.topology, self.layout) {
            (Topology::Torus, _) => "torus",
            (Topology::Plane, Layout::Random) => "random",
            (Topology::Plane, Layout::Diagonal) => "diagonal",
        };
        format!("seven_colors-{kind}-{}", self.size)
    }

    fn default_max_plies(&self) -> u32 {
        10 * self.size * self.size
    }

    fn generate(&self, rng: &mut SeededRng) -> SevenColors {
        let n = self.size as usize;
        let torus = self.topology == Topology::Torus;
        let (first, second) = if torus {
            ((3 * n / 4) * n + n / 4, (n / 4) * n + 3 * n / 4)
        } else {
            ((n - 1) * n, n - 1)
        };
        let mut cells = vec![0u8; n * n];
        match self.layout {
            Layout::Random => {
                for cell in &mut cells {
                    *cell = seed::below(rng, COLOURS) as u8;
                }
            }
            Layout::Diagonal => {
                let mut by_distance = Vec::with_capacity(n);
                by_distance.push(seed::below(rng, COLOURS) as u8);
                for d in 1..n {
                    let previous = usize::from(by_distance[d - 1]);
                    by_distance.push(((previous + 1 + seed::below(rng, COLOURS - 1)) % 7) as u8);
                }
                for (i, cell) in cells.iter_mut().enumerate() {
                    *cell = by_distance[(i / n).abs_diff(i % n)];
                }
            }
        }
        cells[first] = ZONE_FIRST;
        cells[second] = ZONE_SECOND;
        SevenColors::from_cells(n, torus, cells, Side::First)
    }

    fn fits(&self, pos: &SevenColors) -> Result<(), String> {
        // The layout cannot be checked: an opening carries its own colours.
        if pos.size() != self.size as usize {
            return Err(format!(
                "a {0}x{0} board, the board is {1}x{1}",
                pos.size(),
                self.size
            ));
        }
        let torus = self.topology == Topology::Torus;
        if pos.is_torus() != torus {
            return Err(format!(
                "a {} board, the board is a {}",
                if pos.is_torus() { "torus" } else { "plane" },
                if torus { "torus" } else { "plane" }
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

/// A Seven Colors position: board, zones and side to move.
#[derive(Clone, Debug)]
pub struct SevenColors {
    size: usize,
    torus: bool,
    /// Row-major from the top-left cell: 0..7 neutral colour, 7/8 a player's zone.
    cells: Vec<u8>,
    to_move: Side,
    owned: BySide<u32>,
    neutral: u32,
    /// Per side, a superset of the zone cells that touch a neutral cell.
    border: BySide<Vec<u32>>,
}

impl PartialEq for SevenColors {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.torus == other.torus
            && self.cells == other.cells
            && self.to_move == other.to_move
    }
}

impl Eq for SevenColors {}

fn zone_code(side: Side) -> u8 {
    match side {
        Side::First => ZONE_FIRST,
        Side::Second => ZONE_SECOND,
    }
}

/// Calls `f` with each 4-neighbour of cell `i` on an `n`×`n` board.
#[inline]
fn for_each_neighbour(n: usize, torus: bool, i: usize, mut f: impl FnMut(usize)) {
    let (row, col) = (i / n, i % n);
    if torus {
        f(if row > 0 { i - n } else { i + n * (n - 1) });
        f(if row + 1 < n { i + n } else { col });
        f(if col > 0 { i - 1 } else { i + n - 1 });
        f(if col + 1 < n { i + 1 } else { i + 1 - n });
    } else {
        if row > 0 {
            f(i - n);
        }
        if row + 1 < n {
            f(i + n);
        }
        if col > 0 {
            f(i - 1);
        }
        if col + 1 < n {
            f(i + 1);
        }
    }
}

impl SevenColors {
    fn from_cells(size: usize, torus: bool, cells: Vec<u8>, to_move: Side) -> SevenColors {
        let mut pos = SevenColors {
            size,
            torus,
            cells,
            to_move,
            owned: BySide::default(),
            neutral: 0,
            border: BySide::default(),
        };
        for i in 0..pos.cells.len() {
            match pos.owner(i) {
                Some(side) => {
                    pos.owned[side] += 1;
                    if pos.touches_neutral(i) {
                        pos.border[side].push(i as u32);
                    }
                }
                None => pos.neutral += 1,
            }
        }
        pos
    }

    /// Cells per side of the board.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether the edges wrap.
    pub fn is_torus(&self) -> bool {
        self.torus
    }

    /// The owner of cell `i` (row-major from the top-left), `None` for a neutral cell.
    pub fn owner(&self, i: usize) -> Option<Side> {
        match self.cells[i] {
            ZONE_FIRST => Some(Side::First),
            ZONE_SECOND => Some(Side::Second),
            _ => None,
        }
    }

    /// The colour of neutral cell `i`, `None` for an owned cell.
    pub fn colour(&self, i: usize) -> Option<Colour> {
        (self.cells[i] < COLOURS as u8).then_some(Colour(self.cells[i]))
    }

    /// Cells owned by `side`.
    pub fn owned(&self, side: Side) -> u32 {
        self.owned[side]
    }

    /// Cells owned by nobody.
    pub fn neutral(&self) -> u32 {
        self.neutral
    }

    fn touches_neutral(&self, i: usize) -> bool {
        let mut found = false;
        for_each_neighbour(self.size, self.torus, i, |j| {
            found |= self.cells[j] < COLOURS as u8;
        });
        found
    }

    /// The colours that would capture at least one cell for `side`, as a bit set (bit k for
    /// colour k). Costs O(border).
    pub fn capturing_colours(&self, side: Side) -> u8 {
        let mut set = 0u8;
        for &b in &self.border[side] {
            for_each_neighbour(self.size, self.torus, b as usize, |j| {
                if self.cells[j] < COLOURS as u8 {
                    set |= 1 << self.cells[j];
                }
            });
        }
        set
    }

    /// How many cells `side` would capture by naming `colour`, without playing it.
    pub fn gain(&self, side: Side, colour: Colour) -> u32 {
        let c = colour.0;
        let mut seen = vec![false; self.cells.len()];
        let mut stack = Vec::new();
        for &b in &self.border[side] {
            for_each_neighbour(self.size, self.torus, b as usize, |j| {
                if self.cells[j] == c && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            });
        }
        let mut count = 0;
        while let Some(x) = stack.pop() {
            count += 1;
            for_each_neighbour(self.size, self.torus, x, |j| {
                if self.cells[j] == c && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            });
        }
        count
    }

    /// Distinct neutral cells 4-adjacent to `side`'s zone (the "hegemonic" measure; cells of
    /// the opponent's zone are left out, since they can never be captured).
    pub fn perimeter(&self, side: Side) -> u32 {
        let mut seen = vec![false; self.cells.len()];
        let mut count = 0;
        for &b in &self.border[side] {
            for_each_neighbour(self.size, self.torus, b as usize, |j| {
                if self.cells[j] < COLOURS as u8 && !seen[j] {
                    seen[j] = true;
                    count += 1;
                }
            });
        }
        count
    }

    /// The same board with `side` to move: for strategies that plan several own moves in a row.
    #[must_use]
    pub fn with_side_to_move(mut self, side: Side) -> SevenColors {
        self.to_move = side;
        self
    }

    fn total(&self) -> u32 {
        (self.size * self.size) as u32
    }
}

impl Game for SevenColors {
    type Move = Colour;
    const KIND: GameKind = GameKind::SevenColors;

    fn side_to_move(&self) -> Side {
        self.to_move
    }

    fn legal_moves_into(&self, moves: &mut Vec<Colour>) {
        moves.clear();
        if !self.is_over() {
            moves.extend(Colour::ALL);
        }
    }

    fn illegal_reason(&self, _mv: Colour) -> Option<String> {
        self.is_over().then(|| "the game is over".to_owned())
    }

    fn play_unchecked(&mut self, colour: Colour) {
        let side = self.to_move;
        let (n, torus, c, zone) = (self.size, self.torus, colour.0, zone_code(side));
        let cells = &mut self.cells;
        let mut border = std::mem::take(&mut self.border[side]);
        let mut stack = Vec::new();
        for &b in &border {
            for_each_neighbour(n, torus, b as usize, |j| {
                if cells[j] == c {
                    cells[j] = zone;
                    stack.push(j);
                }
            });
        }
        let before = border.len();
        while let Some(x) = stack.pop() {
            border.push(x as u32);
            for_each_neighbour(n, torus, x, |j| {
                if cells[j] == c {
                    cells[j] = zone;
                    stack.push(j);
                }
            });
        }
        let captured = (border.len() - before) as u32;
        border.retain(|&b| {
            let mut found = false;
            for_each_neighbour(n, torus, b as usize, |j| found |= cells[j] < COLOURS as u8);
            found
        });
        self.border[side] = border;
        self.owned[side] += captured;
        self.neutral -= captured;
        self.to_move = side.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        let total = self.total();
        for side in Side::BOTH {
            if 2 * self.owned[side] > total {
                return Some(Outcome::Decisive { winner: side });
            }
        }
        (self.neutral == 0).then(|| Outcome::by_comparison(self.owned))
    }

    fn adjudicate(&self) -> Outcome {
        Outcome::by_comparison(self.owned)
    }

    fn scores(&self) -> Option<BySide<u32>> {
        Some(self.owned)
    }

    fn parse_move(&self, text: &str) -> Result<Colour, MoveError> {
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(letter), None) => Colour::from_letter(letter)
                .ok_or_else(|| MoveError::syntax(text, "a colour is one letter A..G")),
            _ => Err(MoveError::syntax(text, "a colour is one letter A..G")),
        }
    }

    fn move_text(&self, colour: Colour) -> String {
        colour.letter().to_string()
    }

    fn fen(&self) -> String {
        let n = self.size;
        let mut text = String::with_capacity(n * (n + 1) + 10);
        for (row, cells) in self.cells.chunks(n).enumerate() {
            if row > 0 {
                text.push('/');
            }
            text.extend(cells.iter().map(|&c| match c {
                ZONE_FIRST => '1',
                ZONE_SECOND => '2',
                c => char::from(b'A' + c),
            }));
        }
        let _ = write!(
            text,
            " {} {}",
            self.to_move.digit(),
            if self.torus { "torus" } else { "plane" }
        );
        text
    }

    fn from_fen(text: &str) -> Result<SevenColors, FenError> {
        let err = |reason: String| FenError::new(GameKind::SevenColors, text, reason);
        let [board, side, topology] =
            fen_fields(text, ["rows", "side to move", "plane|torus"]).map_err(err)?;
        let to_move = Side::from_digit(side)
            .ok_or_else(|| err(format!("side to move `{side}` is not 1 or 2")))?;
        let torus = match topology {
            "plane" => false,
            "torus" => true,
            other => return Err(err(format!("topology `{other}` is not plane or torus"))),
        };
        let rows: Vec<&str> = board.split('/').collect();
        let n = rows.len();
        if !(MIN_FEN_SIZE..=MAX_SIZE).contains(&n) {
            return Err(err(format!(
                "{n} rows; a board has {MIN_FEN_SIZE}..={MAX_SIZE}"
            )));
        }
        // Sized by the text, not by n², so a short text cannot ask for a large board.
        let mut cells = Vec::with_capacity(board.len());
        for (r, row) in rows.iter().enumerate() {
            if row.len() != n {
                return Err(err(format!(
                    "row {} has {} cells, expected {n} (the board is square)",
                    r + 1,
                    row.chars().count()
                )));
            }
            for ch in row.chars() {
                cells.push(match ch {
                    'A'..='G' => ch as u8 - b'A',
                    '1' => ZONE_FIRST,
                    '2' => ZONE_SECOND,
                    other => {
                        return Err(err(format!(
                            "cell `{other}` in row {}: cells are A..G, 1 or 2",
                            r + 1
                        )));
                    }
                });
            }
        }
        for side in Side::BOTH {
            if !cells.contains(&zone_code(side)) {
                return Err(err(format!("the {side} player owns no cell")));
            }
        }
        Ok(SevenColors::from_cells(n, torus, cells, to_move))
    }

    fn render(&self, ansi: bool) -> String {
        // Background colours for A..G: red, green, yellow, blue, magenta, cyan, white.
        const BACKGROUND: [u8; COLOURS] = [41, 42, 43, 44, 45, 46, 47];
        let mut out = String::new();
        for row in self.cells.chunks(self.size) {
            for &c in row {
                let (label, code) = match c {
                    ZONE_FIRST => ('1', "1;97;40"),
                    ZONE_SECOND => ('2', "1;93;40"),
                    c => (char::from(b'A' + c), ""),
                };
                if ansi {
                    let code = if code.is_empty() {
                        format!("30;{}", BACKGROUND[usize::from(c)])
                    } else {
                        code.to_owned()
                    };
                    let _ = write!(out, "\x1b[{code}m{label} \x1b[0m");
                } else {
                    out.push(label);
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "first (1): {} cells, second (2): {} cells, {} to move",
            self.owned.first, self.owned.second, self.to_move
        );
        out
    }

    fn move_help(&self) -> String {
        let (first, second) = if self.is_torus() {
            ("", "")
        } else {
            (", which starts bottom-left", ", top-right")
        };
        format!(
            "A move is one colour letter A..G. Every neutral cell of that colour touching your \
             zone (up, down, left, right; through cells of that colour) joins it. Your zone is \
             the cells marked 1 (first player{first}) or 2 (second player{second}). Every \
             colour is legal, even one that gains nothing. Owning more than half of the cells \
             wins; when no neutral cell is left, more cells wins."
        )
    }

    /// Playouts name a colour that captures something when one exists, which keeps Monte
    /// Carlo games short without changing who can win.
    fn playout_move(&self, rng: &mut SeededRng, _buf: &mut Vec<Colour>) -> Option<Colour> {
        if self.is_over() {
            return None;
        }
        let set = self.capturing_colours(self.to_move);
        if set == 0 {
            return Some(Colour::ALL[seed::below(rng, COLOURS)]);
        }
        let k = seed::below(rng, set.count_ones() as usize);
        Some(Colour::in_set(set).nth(k).unwrap_or(Colour::ALL[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> SevenColors {
        SevenColors::from_fen(text).unwrap()
    }

    fn play(p: &mut SevenColors, moves: &str) {
        for m in moves.chars() {
            p.play_text(&m.to_string()).unwrap();
        }
    }

    #[test]
    fn example_from_the_spec_round_trips() {
        let p = pos("AB2/CDE/1FA 1 plane");
        assert_eq!(p.fen(), "AB2/CDE/1FA 1 plane");
        assert_eq!(p.owned(Side::First), 1);
        assert_eq!(p.neutral(), 7);
    }

    #[test]
    fn capture_floods_only_connected_cells_of_the_colour() {
        // C at (1,0) touches the zone; the C at (1,2) is not connected through C cells.
        let mut p = pos("AB2/CDC/1FA 1 plane");
        assert_eq!(p.gain(Side::First, Colour(2)), 1);
        play(&mut p, "C");
        assert_eq!(p.fen(), "AB2/1DC/1FA 2 plane");
        assert_eq!(p.owned(Side::First), 2);
    }

    /// A 9x9 snake of `A` cells from the first player's corner, the rest `B`: the worst case
    /// for a flood fill that rescans the board per step.
    fn snake() -> String {
        let mut rows = Vec::new();
        for r in 0..9 {
            let row: String = (0..9)
                .map(|c| match (r, c) {
                    (8, 0) => '1',
                    (0, 8) => '2',
                    (1 | 3 | 5 | 7, _) | (0 | 4, 0) | (2 | 6, 8) => 'A',
                    _ => 'B',
                })
                .collect();
            rows.push(row);
        }
        rows.join("/") + " 1 plane"
    }

    #[test]
    fn flood_fill_follows_a_snake() {
        let mut p = pos(&snake());
        assert_eq!(p.gain(Side::First, Colour(0)), 40);
        play(&mut p, "A");
        assert!(!p.fen().contains('A'));
        assert_eq!(p.owned(Side::First), 41);
        assert_eq!(p.gain(Side::First, Colour(1)), 81 - 41 - 1);
    }

    #[test]
    fn naming_a_colour_that_captures_nothing_is_a_legal_wasted_turn() {
        let mut p = pos("AB2/CDE/1FA 1 plane");
        play(&mut p, "G");
        assert_eq!(p.fen(), "AB2/CDE/1FA 2 plane");
    }

    #[test]
    fn torus_wraps_both_edges() {
        // The first player's corner cell reaches the far column, the far row and, through
        // them, the far corner; on a plane the same board captures nothing.
        let text = "1BBBA/BCCCC/CC2CC/CCCCC/ABBBA 1";
        let mut p = pos(&format!("{text} torus"));
        assert_eq!(p.gain(Side::First, Colour(0)), 3);
        play(&mut p, "A");
        assert_eq!(p.fen(), "1BBB1/BCCCC/CC2CC/CCCCC/1BBB1 2 torus");
        assert_eq!(
            pos(&format!("{text} plane")).gain(Side::First, Colour(0)),
            0
        );
    }

    #[test]
    fn majority_ends_the_game() {
        // 9 cells: 5 owned is more than half.
        let mut p = pos("AA2/1BB/1CC 1 plane");
        assert_eq!(p.outcome(), None);
        play(&mut p, "A");
        assert_eq!(p.owned(Side::First), 4);
        assert_eq!(p.outcome(), None);
        play(&mut p, "B");
        assert_eq!(p.owned(Side::Second), 3);
        play(&mut p, "C");
        assert_eq!(
            p.outcome(),
            Some(Outcome::Decisive {
                winner: Side::First
            })
        );
        assert!(p.legal_moves().is_empty());
        assert!(p.play(Colour(0)).is_err());
    }

    #[test]
    fn a_full_board_with_equal_zones_is_a_draw() {
        let p = pos("1122/1122/1122/1122 1 plane");
        assert_eq!(p.outcome(), Some(Outcome::Draw));
    }

    #[test]
    fn diagonal_board_is_half_turn_symmetric_and_striped() {
        let spec = Spec {
            size: 12,
            layout: Layout::Diagonal,
            ..Spec::default()
        };
        for s in 0..20 {
            let p = spec.generate(&mut seed::rng(s));
            let n = p.size();
            for i in 0..n * n {
                let mirror = n * n - 1 - i;
                match (p.owner(i), p.owner(mirror)) {
                    (Some(a), Some(b)) => assert_eq!(a, b.other()),
                    (None, None) => assert_eq!(p.colour(i), p.colour(mirror)),
                    _ => panic!("zones are not symmetric"),
                }
                let (r, c) = (i / n, i % n);
                if r + 1 < n && c + 1 < n {
                    // Same diagonal: same colour; next diagonal: different colour.
                    if p.owner(i).is_none() && p.owner(i + n + 1).is_none() {
                        assert_eq!(p.colour(i), p.colour(i + n + 1));
                    }
                    if p.owner(i).is_none() && p.owner(i + 1).is_none() {
                        assert_ne!(p.colour(i), p.colour(i + 1));
                    }
                }
            }
            assert_eq!(p.owner((n - 1) * n), Some(Side::First));
            assert_eq!(p.owner(n - 1), Some(Side::Second));
        }
    }

    #[test]
    fn torus_start_cells_are_maximally_apart() {
        let spec = Spec {
            size: 20,
            topology: Topology::Torus,
            ..Spec::default()
        };
        let p = spec.generate(&mut seed::rng(3));
        assert_eq!(p.owner(15 * 20 + 5), Some(Side::First));
        assert_eq!(p.owner(5 * 20 + 15), Some(Side::Second));
        assert!(p.is_torus());
    }

    #[test]
    fn spec_errors_name_the_parameter() {
        let spec = Spec {
            size: 4,
            ..Spec::default()
        };
        assert_eq!(
            spec.validate().unwrap_err().0,
            "seven_colors size must be in 5..=100, got 4"
        );
        let spec = Spec {
            layout: Layout::Diagonal,
            topology: Topology::Torus,
            ..Spec::default()
        };
        assert!(spec.validate().is_err());
    }

    /// An `n`×`n` text: `A` everywhere but the two zone corners.
    fn square(n: usize) -> String {
        let mut rows = vec!["A".repeat(n); n];
        rows[0].replace_range(n - 1.., "2");
        rows[n - 1].replace_range(..1, "1");
        rows.join("/") + " 1 plane"
    }

    #[test]
    fn texts_are_bounded_like_boards() {
        let largest = pos(&square(100));
        assert_eq!(largest.neutral(), 100 * 100 - 2);
        assert_eq!(largest.fen(), square(100));
        assert_eq!(
            SevenColors::from_fen(&square(101)).unwrap_err().reason,
            "101 rows; a board has 2..=100"
        );
    }

    #[test]
    fn bad_texts_are_rejected() {
        for bad in [
            "AB2/CDE/1FA 1",
            "AB2/CDE/1FA 3 plane",
            "AB2/CDE/1FA 1 sphere",
            "AB2/CD/1FA 1 plane",
            "AB2/CDH/1FA 1 plane",
            "ABC/CDE/1FA 1 plane",
            "AB2/CDE/1FA  1 plane",
            "AB2/CDE/1FA 1 plane ",
            "\tAB2/CDE/1FA 1 plane",
            "AB2/CDE/1FA 01 plane",
        ] {
            assert!(SevenColors::from_fen(bad).is_err(), "{bad}");
        }
        let p = pos("AB2/CDE/1FA 1 plane");
        for bad in ["", "H", "a", "AB", "1"] {
            assert!(matches!(p.parse_move(bad), Err(MoveError::Syntax { .. })));
        }
    }
}
