//! The Game of the Amazons on graph boards, as in the Amazons course brief (and OpenSpiel's
//! `amazons` for the square 6, 8 and 10 boards).
//!
//! The board is a subgraph of the width×width grid: vertex id `row·width + col`, row 0 at the
//! top; edges join 8-neighbours that both exist, and a straight line repeats one direction. A
//! move slides one of the mover's queens ≥ 1 step along a straight line over empty vertices, then
//! shoots an arrow ≥ 1 step along a straight line from the landing vertex (the vacated vertex
//! counts as empty); the arrow's vertex is blocked for good. A player with no legal move loses.

use std::fmt::Write as _;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::spec::{Common, SpecError, Variant};
use super::suite::OpeningsSpec;
use super::{BySide, FenError, Game, GameKind, MoveError, Outcome, Side, fen_fields};
use crate::seed::{self, SeededRng};

const EMPTY: u8 = 0;
const HOLE: u8 = 1;
const ARROW: u8 = 2;
const QUEEN_FIRST: u8 = 3;
const QUEEN_SECOND: u8 = 4;
/// No neighbour in that direction.
const NONE: u16 = u16::MAX;
/// Largest board side in a spec (vertex ids must fit in a u16).
const MAX_WIDTH: u32 = 200;

/// Row and column steps of the eight directions, clockwise from north.
pub const DIRECTIONS: [(isize, isize); 8] = [
    (-1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

/// Which vertices of the width×width grid exist.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// The full grid.
    #[default]
    Square,
    /// A square hole, rows and cols in [m/3, 2m/3); width divisible by 3.
    Donut,
    /// Four holes, rows and cols each in [s,2s) or [3s,4s) with s = m/5; width divisible by 5.
    Clover,
    /// Two holes touching at a corner, rows [q,2q)×cols [2q,3q) and rows [2q,3q)×cols [q,2q)
    /// with q = m/4; width divisible by 4. The diagonal step across the pinch exists.
    Eight,
}

impl Shape {
    fn name(self) -> &'static str {
        match self {
            Shape::Square => "square",
            Shape::Donut => "donut",
            Shape::Clover => "clover",
            Shape::Eight => "eight",
        }
    }

    /// Whether (row, col) is a hole of this shape on a `width`-wide board.
    pub fn is_hole(self, width: usize, row: usize, col: usize) -> bool {
        let within = |x: usize, lo: usize, hi: usize| (lo..hi).contains(&x);
        match self {
            Shape::Square => false,
            Shape::Donut => {
                let (lo, hi) = (width / 3, 2 * width / 3);
                within(row, lo, hi) && within(col, lo, hi)
            }
            Shape::Clover => {
                let s = width / 5;
                let band = |x| within(x, s, 2 * s) || within(x, 3 * s, 4 * s);
                band(row) && band(col)
            }
            Shape::Eight => {
                let q = width / 4;
                (within(row, q, 2 * q) && within(col, 2 * q, 3 * q))
                    || (within(row, 2 * q, 3 * q) && within(col, q, 2 * q))
            }
        }
    }
}

/// Amazons board parameters: `{game: amazons, shape: square, width: 10}` (the defaults), plus
/// `queens` (per side; default 4·(width/10 + 1)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Which vertices exist.
    #[serde(default)]
    pub shape: Shape,
    /// Side of the grid, ≥ 5 (and at most 200).
    #[serde(default = "default_width")]
    pub width: u32,
    /// Queens per side: a multiple of 4 whose start squares fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queens: Option<u32>,
    /// Board name in results; default `amazons-<shape>-<width>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Ply cap (adjudicated as a draw); default the vertex count, which no game reaches.
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

fn default_width() -> u32 {
    10
}

impl Default for Spec {
    fn default() -> Self {
        Spec {
            shape: Shape::Square,
            width: default_width(),
            queens: None,
            name: None,
            max_plies: None,
            random_opening_plies: 0,
            openings: None,
        }
    }
}

impl Spec {
    /// Queens per side after the default is applied.
    pub fn queens(&self) -> u32 {
        self.queens.unwrap_or(4 * (self.width / 10 + 1))
    }

    /// The start vertices of each side's queens, in the brief's placement: with k = queens/4 and
    /// d_i = ⌊i·(m−1)/(2k+1)⌋, the first player's queens stand on the bottom row at cols d_i and
    /// m−1−d_i and on the side columns at rows m−1−d_i; the second player's mirror them.
    pub fn start_squares(&self) -> BySide<Vec<usize>> {
        let m = self.width as usize;
        let k = (self.queens() / 4) as usize;
        let mut squares = BySide::<Vec<usize>>::default();
        for i in 1..=k {
            let d = i * (m - 1) / (2 * k + 1);
            let far = m - 1 - d;
            squares
                .first
                .extend([(m - 1) * m + d, (m - 1) * m + far, far * m, far * m + m - 1]);
            squares.second.extend([d, far, d * m, d * m + m - 1]);
        }
        squares
    }
}

impl Variant for Spec {
    type Position = Amazons;

    fn validate(&self) -> Result<(), SpecError> {
        let m = self.width;
        if !(5..=MAX_WIDTH).contains(&m) {
            return Err(SpecError(format!(
                "amazons width must be in 5..={MAX_WIDTH}, got {m}"
            )));
        }
        let divisor = match self.shape {
            Shape::Square => 1,
            Shape::Donut => 3,
            Shape::Clover => 5,
            Shape::Eight => 4,
        };
        if m % divisor != 0 {
            return Err(SpecError(format!(
                "{} needs a width divisible by {divisor}, got {m}",
                self.shape.name()
            )));
        }
        let queens = self.queens();
        if queens == 0 || queens % 4 != 0 {
            return Err(SpecError(format!(
                "amazons queens must be a positive multiple of 4, got {queens}"
            )));
        }
        let squares = self.start_squares();
        let mut all: Vec<usize> = squares
            .first
            .iter()
            .chain(&squares.second)
            .copied()
            .collect();
        let w = m as usize;
        let on_board = all.iter().all(|&v| !self.shape.is_hole(w, v / w, v % w));
        all.sort_unstable();
        all.dedup();
        if !on_board || all.len() != 2 * queens as usize {
            return Err(SpecError(format!(
                "{queens} queens a side do not fit on a {} board of width {m}",
                self.shape.name()
            )));
        }
        Ok(())
    }

    fn default_name(&self) -> String {
        format!("amazons-{}-{}", self.shape.name(), self.width)
    }

    fn default_max_plies(&self) -> u32 {
        let w = self.width as usize;
        (0..w * w)
            .filter(|&v| !self.shape.is_hole(w, v / w, v % w))
            .count() as u32
    }

    fn generate(&self, _rng: &mut SeededRng) -> Amazons {
        let w = self.width as usize;
        let mut cells: Vec<u8> = (0..w * w)
            .map(|v| {
                if self.shape.is_hole(w, v / w, v % w) {
                    HOLE
                } else {
                    EMPTY
                }
            })
            .collect();
        let squares = self.start_squares();
        for &v in &squares.first {
            cells[v] = QUEEN_FIRST;
        }
        for &v in &squares.second {
            cells[v] = QUEEN_SECOND;
        }
        Amazons::from_cells(w, cells, Side::First)
    }

    fn fits(&self, pos: &Amazons) -> Result<(), String> {
        let w = self.width as usize;
        if pos.width() != w {
            return Err(format!(
                "a grid of width {}, the board's is {w}",
                pos.width()
            ));
        }
        if let Some(v) = (0..w * w).find(|&v| pos.is_hole(v) != self.shape.is_hole(w, v / w, v % w))
        {
            return Err(format!(
                "vertex {v} is {} on a {} board",
                if pos.is_hole(v) {
                    "a hole, not one"
                } else {
                    "not a hole, but one"
                },
                self.shape.name()
            ));
        }
        let queens = self.queens() as usize;
        for side in [Side::First, Side::Second] {
            if pos.queens(side).len() != queens {
                return Err(format!(
                    "{} queens for player {}, the board has {queens} a side",
                    pos.queens(side).len(),
                    side.digit()
                ));
            }
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

/// The fixed part of a board: which vertices exist and who neighbours whom.
#[derive(Debug, PartialEq, Eq)]
struct Graph {
    width: usize,
    /// `neighbours[v][d]`: the next vertex from `v` in direction `d`, or [`NONE`].
    neighbours: Vec<[u16; 8]>,
}

impl Graph {
    fn new(width: usize, hole: impl Fn(usize) -> bool) -> Graph {
        let mut neighbours = vec![[NONE; 8]; width * width];
        for (v, slots) in neighbours.iter_mut().enumerate() {
            if hole(v) {
                continue;
            }
            let (row, col) = ((v / width) as isize, (v % width) as isize);
            for (slot, (dr, dc)) in slots.iter_mut().zip(DIRECTIONS) {
                let (r, c) = (row + dr, col + dc);
                let inside = (0..width as isize).contains(&r) && (0..width as isize).contains(&c);
                if inside {
                    let u = r as usize * width + c as usize;
                    if !hole(u) {
                        *slot = u as u16;
                    }
                }
            }
        }
        Graph { width, neighbours }
    }
}

/// An Amazons move: a queen slides `from` → `to`, then shoots an arrow to `arrow` (vertex ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AmazonsMove {
    /// The queen's vertex before the move.
    pub from: u16,
    /// The queen's vertex after the move.
    pub to: u16,
    /// The vertex the arrow blocks.
    pub arrow: u16,
}

/// An Amazons position: board graph, queens, arrows and side to move.
#[derive(Clone, Debug)]
pub struct Amazons {
    graph: Arc<Graph>,
    cells: Vec<u8>,
    /// Each side's queen vertices, kept sorted so move order depends only on the position.
    queens: BySide<Vec<u16>>,
    to_move: Side,
}

impl PartialEq for Amazons {
    fn eq(&self, other: &Self) -> bool {
        self.cells == other.cells && self.to_move == other.to_move
    }
}

impl Eq for Amazons {}

fn queen_code(side: Side) -> u8 {
    match side {
        Side::First => QUEEN_FIRST,
        Side::Second => QUEEN_SECOND,
    }
}

impl Amazons {
    fn from_cells(width: usize, cells: Vec<u8>, to_move: Side) -> Amazons {
        let graph = Arc::new(Graph::new(width, |v| cells[v] == HOLE));
        let queens = BySide::from_fn(|side| {
            (0..cells.len())
                .filter(|&v| cells[v] == queen_code(side))
                .map(|v| v as u16)
                .collect()
        });
        Amazons {
            graph,
            cells,
            queens,
            to_move,
        }
    }

    /// Side of the underlying grid.
    pub fn width(&self) -> usize {
        self.graph.width
    }

    /// Number of grid points, holes included (vertex ids are below this).
    pub fn grid_len(&self) -> usize {
        self.cells.len()
    }

    /// The next vertex from `v` in direction `dir` (an index into [`DIRECTIONS`]), if it exists.
    #[inline]
    pub fn neighbour(&self, v: usize, dir: usize) -> Option<usize> {
        let u = self.graph.neighbours[v][dir];
        (u != NONE).then_some(usize::from(u))
    }

    /// Whether `v` is a vertex with no queen and no arrow on it.
    #[inline]
    pub fn is_empty(&self, v: usize) -> bool {
        self.cells[v] == EMPTY
    }

    /// Whether `v` is a hole (not part of the board).
    pub fn is_hole(&self, v: usize) -> bool {
        self.cells[v] == HOLE
    }

    /// The vertices of `side`'s queens, ascending.
    pub fn queens(&self, side: Side) -> &[u16] {
        &self.queens[side]
    }

    /// Calls `f` with every vertex a queen on `from` could slide to (also the arrow targets
    /// from a landing vertex), treating `ignore` as empty.
    #[inline]
    pub fn for_each_reach(&self, from: usize, ignore: usize, mut f: impl FnMut(usize)) {
        for dir in 0..8 {
            let mut v = self.graph.neighbours[from][dir];
            while v != NONE && (self.cells[usize::from(v)] == EMPTY || usize::from(v) == ignore) {
                f(usize::from(v));
                v = self.graph.neighbours[usize::from(v)][dir];
            }
        }
    }

    /// Queen slides available to `side` (the "mobility" measure).
    pub fn mobility(&self, side: Side) -> u32 {
        let mut count = 0;
        for &q in &self.queens[side] {
            self.for_each_reach(usize::from(q), usize::MAX, |_| count += 1);
        }
        count
    }

    fn can_move(&self, side: Side) -> bool {
        // A queen that can step at all can shoot back to the vertex it left.
        self.queens[side].iter().any(|&q| {
            self.graph.neighbours[usize::from(q)]
                .iter()
                .any(|&u| u != NONE && self.cells[usize::from(u)] == EMPTY)
        })
    }

    /// Whether `to` lies on a straight empty line from `from` (`ignore` counting as empty).
    fn reaches(&self, from: usize, to: usize, ignore: usize) -> bool {
        let mut found = false;
        self.for_each_reach(from, ignore, |v| found |= v == to);
        found
    }
}

impl Game for Amazons {
    type Move = AmazonsMove;
    const KIND: GameKind = GameKind::Amazons;

    fn side_to_move(&self) -> Side {
        self.to_move
    }

    fn legal_moves_into(&self, moves: &mut Vec<AmazonsMove>) {
        moves.clear();
        for &from in &self.queens[self.to_move] {
            let q = usize::from(from);
            self.for_each_reach(q, usize::MAX, |to| {
                self.for_each_reach(to, q, |arrow| {
                    moves.push(AmazonsMove {
                        from,
                        to: to as u16,
                        arrow: arrow as u16,
                    });
                });
            });
        }
    }

    fn illegal_reason(&self, mv: AmazonsMove) -> Option<String> {
        let (from, to, arrow) = (
            usize::from(mv.from),
            usize::from(mv.to),
            usize::from(mv.arrow),
        );
        if self.is_over() {
            return Some("the game is over".into());
        }
        if self.cells[from] != queen_code(self.to_move) {
            return Some(format!(
                "vertex {from} holds no queen of the side to move ({})",
                self.to_move
            ));
        }
        if !self.reaches(from, to, usize::MAX) {
            return Some(format!(
                "the queen on {from} cannot reach {to} along an empty straight line"
            ));
        }
        if !self.reaches(to, arrow, from) {
            return Some(format!(
                "an arrow from {to} cannot reach {arrow} along an empty straight line"
            ));
        }
        None
    }

    fn play_unchecked(&mut self, mv: AmazonsMove) {
        let side = self.to_move;
        self.cells[usize::from(mv.from)] = EMPTY;
        self.cells[usize::from(mv.to)] = queen_code(side);
        self.cells[usize::from(mv.arrow)] = ARROW;
        let queens = &mut self.queens[side];
        if let Some(q) = queens.iter_mut().find(|q| **q == mv.from) {
            *q = mv.to;
        }
        queens.sort_unstable();
        self.to_move = side.other();
    }

    fn outcome(&self) -> Option<Outcome> {
        (!self.can_move(self.to_move)).then_some(Outcome::Decisive {
            winner: self.to_move.other(),
        })
    }

    fn adjudicate(&self) -> Outcome {
        Outcome::Draw
    }

    fn scores(&self) -> Option<BySide<u32>> {
        None
    }

    fn parse_move(&self, text: &str) -> Result<AmazonsMove, MoveError> {
        let parts: Vec<&str> = text.split('-').collect();
        let [from, to, arrow] = parts[..] else {
            return Err(MoveError::syntax(text, "expected src-dst-arrow vertex ids"));
        };
        let vertex = |part: &str| -> Result<u16, MoveError> {
            match part.parse::<usize>() {
                Ok(v) if v < self.cells.len() && part.bytes().all(|b| b.is_ascii_digit()) => {
                    Ok(v as u16)
                }
                Ok(v) => Err(MoveError::syntax(
                    text,
                    format!("vertex {v} is off a {0}x{0} board", self.width()),
                )),
                Err(_) => Err(MoveError::syntax(
                    text,
                    format!("`{part}` is not a vertex id"),
                )),
            }
        };
        Ok(AmazonsMove {
            from: vertex(from)?,
            to: vertex(to)?,
            arrow: vertex(arrow)?,
        })
    }

    fn move_text(&self, mv: AmazonsMove) -> String {
        format!("{}-{}-{}", mv.from, mv.to, mv.arrow)
    }

    fn fen(&self) -> String {
        let w = self.width();
        let mut text = String::with_capacity(w * (w + 1) + 2);
        for (row, cells) in self.cells.chunks(w).enumerate() {
            if row > 0 {
                text.push('/');
            }
            text.extend(cells.iter().map(|&c| match c {
                EMPTY => '.',
                HOLE => '#',
                ARROW => 'x',
                QUEEN_FIRST => '1',
                _ => '2',
            }));
        }
        text.push(' ');
        text.push(self.to_move.digit());
        text
    }

    fn from_fen(text: &str) -> Result<Amazons, FenError> {
        let err = |reason: String| FenError::new(GameKind::Amazons, text, reason);
        let [board, side] = fen_fields(text, ["rows", "side to move"]).map_err(err)?;
        let to_move = Side::from_digit(side)
            .ok_or_else(|| err(format!("side to move `{side}` is not 1 or 2")))?;
        let rows: Vec<&str> = board.split('/').collect();
        let w = rows.len();
        if !(2..=MAX_WIDTH as usize).contains(&w) {
            return Err(err(format!("{w} rows; a board has 2..={MAX_WIDTH}")));
        }
        // Sized by the text, not by w², so a short text cannot ask for a large board.
        let mut cells = Vec::with_capacity(board.len());
        for (r, row) in rows.iter().enumerate() {
            if row.len() != w {
                return Err(err(format!(
                    "row {} has {} cells, expected {w} (the grid is square)",
                    r + 1,
                    row.chars().count()
                )));
            }
            for ch in row.chars() {
                cells.push(match ch {
                    '.' => EMPTY,
                    '#' => HOLE,
                    'x' => ARROW,
                    '1' => QUEEN_FIRST,
                    '2' => QUEEN_SECOND,
                    other => {
                        return Err(err(format!(
                            "cell `{other}` in row {}: cells are . # x 1 2",
                            r + 1
                        )));
                    }
                });
            }
        }
        Ok(Amazons::from_cells(w, cells, to_move))
    }

    /// Rows labelled with the vertex id of their first column and columns numbered on top
    /// (tens above units past 10), so a vertex id is its row label plus its column.
    fn render(&self, ansi: bool) -> String {
        let w = self.width();
        let digits = (w * w - 1).to_string().len();
        let mut out = String::new();
        let header = |out: &mut String, digit: &dyn Fn(usize) -> char| {
            let _ = write!(out, "{:>digits$} ", "");
            for col in 0..w {
                out.push(digit(col));
                out.push(' ');
            }
            out.push('\n');
        };
        if w > 10 {
            header(&mut out, &|col| match col / 10 {
                0 => ' ',
                tens => char::from_digit((tens % 10) as u32, 10).unwrap_or(' '),
            });
        }
        header(&mut out, &|col| {
            char::from_digit((col % 10) as u32, 10).unwrap_or(' ')
        });
        for (row, cells) in self.cells.chunks(w).enumerate() {
            let _ = write!(out, "{:>digits$} ", row * w);
            for &c in cells {
                let (label, code) = match c {
                    EMPTY => ('.', "2"),
                    HOLE => (' ', "0"),
                    ARROW => ('x', "31"),
                    QUEEN_FIRST => ('1', "1;97;44"),
                    _ => ('2', "1;30;43"),
                };
                if ansi {
                    let _ = write!(out, "\x1b[{code}m{label}\x1b[0m ");
                } else {
                    out.push(label);
                    out.push(' ');
                }
            }
            out.push('\n');
        }
        let _ = writeln!(out, "{} to move", self.to_move);
        out
    }

    fn move_help(&self) -> String {
        let w = self.width();
        let example = self.legal_moves().first().map_or_else(String::new, |&mv| {
            format!(" For example `{}` is legal here.", self.move_text(mv))
        });
        format!(
            "A move is src-dst-arrow, three vertex ids: a vertex id is its row's label (left) \
             plus its column (top), i.e. row*{w} + column. Your queen (1 for the first player, 2 \
             for the second) on src slides any distance in one of the 8 directions over empty \
             vertices (.) to dst, then shoots an arrow from dst the same way to arrow (src now \
             counts as empty). Arrows (x) and holes (blank) block for the rest of the game. A \
             player without a legal move loses.{example}"
        )
    }

    /// Playouts pick a uniform queen slide, then a uniform arrow from there: cheap (no full
    /// move list) and still a legal move.
    fn playout_move(
        &self,
        rng: &mut SeededRng,
        _buf: &mut Vec<AmazonsMove>,
    ) -> Option<AmazonsMove> {
        let mut slides: Vec<(u16, u16)> = Vec::with_capacity(64);
        for &q in &self.queens[self.to_move] {
            self.for_each_reach(usize::from(q), usize::MAX, |to| slides.push((q, to as u16)));
        }
        let &(from, to) = seed::choose(rng, &slides)?;
        let mut arrows: Vec<u16> = Vec::with_capacity(32);
        self.for_each_reach(usize::from(to), usize::from(from), |a| {
            arrows.push(a as u16)
        });
        let &arrow = seed::choose(rng, &arrows)?;
        Some(AmazonsMove { from, to, arrow })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(shape: Shape, width: u32) -> Amazons {
        let spec = Spec {
            shape,
            width,
            queens: Some(4),
            ..Spec::default()
        };
        spec.validate().unwrap();
        spec.generate(&mut seed::rng(0))
    }

    /// Counts first moves with plain coordinate geometry, independent of the neighbour table.
    fn naive_move_count(pos: &Amazons) -> usize {
        let w = pos.width() as isize;
        let free = |r: isize, c: isize, vacated: isize| {
            (0..w).contains(&r)
                && (0..w).contains(&c)
                && (pos.is_empty((r * w + c) as usize) || r * w + c == vacated)
        };
        let mut count = 0;
        for &q in pos.queens(pos.side_to_move()) {
            let (qr, qc) = (q as isize / w, q as isize % w);
            for (dr, dc) in DIRECTIONS {
                let (mut r, mut c) = (qr + dr, qc + dc);
                while free(r, c, -1) {
                    for (ar, ac) in DIRECTIONS {
                        let (mut x, mut y) = (r + ar, c + ac);
                        while free(x, y, q as isize) {
                            count += 1;
                            x += ar;
                            y += ac;
                        }
                    }
                    r += dr;
                    c += dc;
                }
            }
        }
        count
    }

    #[test]
    fn standard_board_has_2176_first_moves() {
        let p = start(Shape::Square, 10);
        assert_eq!(
            p.fen(),
            "...2..2.../........../........../2........2/........../........../\
             1........1/........../........../...1..1... 1"
        );
        assert_eq!(p.queens(Side::First), &[60, 69, 93, 96]);
        assert_eq!(p.queens(Side::Second), &[3, 6, 30, 39]);
        assert_eq!(p.legal_moves().len(), 2176);
        assert_eq!(naive_move_count(&p), 2176);
    }

    #[test]
    fn first_move_counts_of_each_shape_at_its_smallest_width() {
        // Written down from this implementation and cross-checked by the naive geometric count
        // (holes are not '.', so the naive count also stops at them).
        for (shape, width, expected) in [
            (Shape::Square, 5, 260),
            (Shape::Donut, 6, 264),
            (Shape::Clover, 5, 88),
            (Shape::Eight, 8, 492),
        ] {
            let p = start(shape, width);
            let generated = p.legal_moves().len();
            assert_eq!(generated, naive_move_count(&p), "{shape:?} {width}");
            assert_eq!(generated, expected, "{shape:?} {width}");
        }
    }

    #[test]
    fn lines_stop_at_holes() {
        // Donut 6: hole rows and cols 2..4. A queen at vertex 12 (row 2, col 0) looks east
        // into the hole at once.
        let p = Amazons::from_fen("....../....../1.##../..##../....../.....2 1").unwrap();
        assert!(
            p.illegal_reason(AmazonsMove {
                from: 12,
                to: 14,
                arrow: 12
            })
            .is_some()
        );
        assert!(
            p.illegal_reason(AmazonsMove {
                from: 12,
                to: 13,
                arrow: 12
            })
            .is_none()
        );
        // Jumping over the hole to the far side is not a straight empty line.
        assert!(
            p.illegal_reason(AmazonsMove {
                from: 12,
                to: 16,
                arrow: 12
            })
            .is_some()
        );
    }

    #[test]
    fn the_eight_pinch_lets_a_diagonal_through() {
        // Eight 8: q = 2, holes rows 2..4 x cols 4..6 and rows 4..6 x cols 2..4. The cells
        // (3,3) and (4,4) touch diagonally across the pinch; (3,4) and (4,3) are holes.
        let spec = Spec {
            shape: Shape::Eight,
            width: 8,
            ..Spec::default()
        };
        let board = spec.generate(&mut seed::rng(0));
        assert!(board.is_hole(3 * 8 + 4) && board.is_hole(4 * 8 + 3));
        assert_eq!(board.neighbour(3 * 8 + 3, 3), Some(4 * 8 + 4));
        // The straight steps east and south from (3,3) run into the holes.
        assert_eq!(board.neighbour(3 * 8 + 3, 2), None);
        assert_eq!(board.neighbour(3 * 8 + 3, 4), None);
        let p = Amazons::from_fen(
            "1......./......../....##../....##../..##..../..##..../......../.......2 1",
        )
        .unwrap();
        // From the corner (0,0) along the main diagonal through the pinch to (7,7)'s neighbour.
        let mv = AmazonsMove {
            from: 0,
            to: 6 * 8 + 6,
            arrow: 0,
        };
        assert!(p.is_legal(mv), "{:?}", p.illegal_reason(mv));
    }

    #[test]
    fn arrow_may_land_on_the_vacated_vertex() {
        let mut p = start(Shape::Square, 10);
        p.play_text("93-33-93").unwrap();
        assert_eq!(
            p.fen(),
            "...2..2.../........../........../2..1.....2/........../........../\
             1........1/........../........../...x..1... 2"
        );
        assert_eq!(p.side_to_move(), Side::Second);
    }

    #[test]
    fn a_player_without_moves_loses() {
        // The first player's only queen is walled in by arrows.
        let p = Amazons::from_fen("1x.../xx.../...../...../....2 1").unwrap();
        assert_eq!(
            p.outcome(),
            Some(Outcome::Decisive {
                winner: Side::Second
            })
        );
        assert!(p.legal_moves().is_empty());
        let p = Amazons::from_fen("1x.../x..../...../...../....2 1").unwrap();
        assert_eq!(p.outcome(), None);
    }

    #[test]
    fn bad_specs_and_texts_are_rejected() {
        let spec = Spec {
            shape: Shape::Clover,
            width: 12,
            ..Spec::default()
        };
        assert_eq!(
            spec.validate().unwrap_err().0,
            "clover needs a width divisible by 5, got 12"
        );
        let spec = Spec {
            width: 5,
            queens: Some(8),
            ..Spec::default()
        };
        assert!(spec.validate().is_err());
        let spec = Spec {
            queens: Some(6),
            ..Spec::default()
        };
        assert!(spec.validate().is_err());
        let p = start(Shape::Square, 10);
        for bad in [
            "93-33",
            "93-33-30-1",
            "a-b-c",
            "93-33-100",
            "-93-33-30",
            "+9-3-3",
        ] {
            assert!(p.parse_move(bad).is_err(), "{bad}");
        }
        assert!(p.clone().play_text("3-33-30").is_err(), "not our queen");
        for bad in [
            "1x.../x..../...../...../....2  1",
            "1x.../x..../...../...../....2 1 ",
            "1x.../x..../...../...../....2\t1",
            "1x.../x..../...../...../....2 01",
        ] {
            assert!(Amazons::from_fen(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn texts_are_bounded_like_boards() {
        // Vertex ids are u16: 200 is the widest grid, in a spec and a text alike.
        let text = |w: usize| {
            let mut rows = vec![".".repeat(w); w];
            rows[0].replace_range(..1, "2");
            rows[w - 1].replace_range(..1, "1");
            rows.join("/") + " 1"
        };
        let widest = Amazons::from_fen(&text(200)).unwrap();
        assert_eq!(widest.queens(Side::First), &[199 * 200]);
        assert_eq!(widest.fen(), text(200));
        assert_eq!(
            Amazons::from_fen(&text(201)).unwrap_err().reason,
            "201 rows; a board has 2..=200"
        );
    }
}
