//! Amazons pictures: the board graph as squares of the m×m grid with its holes left out, each
//! vertex's id in a corner, arrows as dark squares, queens as white (first player) and black
//! (second) discs, and the last move's queen path and arrow flight. Reads positions through
//! [`Amazons`]' accessors and [`Game::parse_move`] only.

use std::fmt::Write as _;

use crate::games::{Amazons, Game, Side};

use super::board::{Part, Skeleton, ring, segment};

/// Square side (SVG units).
const CELL: usize = 40;
/// Margin around the board.
const MARGIN: usize = 6;

/// Slot classes: per vertex a square slot (0 light, 1 dark, 2 arrow) then a queen slot (3
/// none, 4 first player's queen, 5 second's).
pub const CLASSES: &[&str] = &["sl", "sd", "x", "q0", "q1", "q2"];

fn centre(width: usize, v: usize) -> (f64, f64) {
    let half = CELL as f64 / 2.0;
    (
        (MARGIN + (v % width) * CELL) as f64 + half,
        (MARGIN + (v / width) * CELL) as f64 + half,
    )
}

/// Vertices of the board (holes left out), in id order.
fn vertices(pos: &Amazons) -> impl Iterator<Item = usize> + '_ {
    (0..pos.grid_len()).filter(|&v| !pos.is_hole(v))
}

pub(crate) fn skeleton(pos: &Amazons) -> Skeleton {
    let m = pos.width();
    let side = m * CELL + 2 * MARGIN;
    let mut parts = vec![Part::Static(format!(
        "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{side}\" height=\"{side}\"/>"
    ))];
    let mut holes = String::new();
    for v in (0..pos.grid_len()).filter(|&v| pos.is_hole(v)) {
        let _ = write!(
            holes,
            "<rect class=\"hole\" x=\"{}\" y=\"{}\" width=\"{CELL}\" height=\"{CELL}\"/>",
            MARGIN + (v % m) * CELL,
            MARGIN + (v / m) * CELL
        );
    }
    parts.push(Part::Static(holes));
    for (k, v) in vertices(pos).enumerate() {
        let (x, y) = (MARGIN + (v % m) * CELL, MARGIN + (v / m) * CELL);
        parts.push(Part::Slot {
            tag: "rect",
            attrs: format!("x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\""),
            slot: 2 * k,
            text: false,
        });
        parts.push(Part::Static(format!(
            "<text class=\"vid\" x=\"{}\" y=\"{}\">{v}</text>",
            x + 2,
            y + 9
        )));
        let (cx, cy) = centre(m, v);
        parts.push(Part::Slot {
            tag: "circle",
            attrs: format!("cx=\"{cx}\" cy=\"{cy}\" r=\"{}\"", CELL * 3 / 10),
            slot: 2 * k + 1,
            text: false,
        });
    }
    Skeleton {
        width: side as u32,
        height: side as u32,
        parts,
    }
}

pub(crate) fn slots(pos: &Amazons) -> Vec<u32> {
    let m = pos.width();
    let queens = |side: Side| pos.queens(side).iter().map(|&q| usize::from(q));
    let mut queen = vec![3u32; pos.grid_len()];
    for v in queens(Side::First) {
        queen[v] = 4;
    }
    for v in queens(Side::Second) {
        queen[v] = 5;
    }
    let mut out = Vec::new();
    for v in vertices(pos) {
        let square = if queen[v] == 3 && !pos.is_empty(v) {
            2
        } else {
            ((v / m + v % m) % 2) as u32
        };
        out.push(square);
        out.push(queen[v]);
    }
    out
}

/// The last move from `before`: a ring where the queen stood, its path, and the arrow's
/// flight to a ringed vertex. Empty when `mv` is not a move of this board.
pub(crate) fn overlay(before: &Amazons, mv: &str) -> String {
    let Ok(mv) = before.parse_move(mv) else {
        return String::new();
    };
    let m = before.width();
    let side = match before.side_to_move() {
        Side::First => "m1",
        Side::Second => "m2",
    };
    let (from, to, arrow) = (
        centre(m, usize::from(mv.from)),
        centre(m, usize::from(mv.to)),
        centre(m, usize::from(mv.arrow)),
    );
    let r = CELL as f64 * 0.4;
    [
        ring(&format!("from {side}"), from.0, from.1, r),
        segment(&format!("path {side}"), from, to),
        segment(&format!("shot {side}"), to, arrow),
        ring(&format!("hit {side}"), arrow.0, arrow.1, r),
    ]
    .concat()
}
