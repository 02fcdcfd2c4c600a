//! Awale pictures: the first player's row along the bottom (pits 1..n left to right), the
//! second player's along the top (pits 1..n right to left, following the sowing), seed counts
//! in every pit, the stores of captured seeds at the ends (the second player's on the left),
//! and the last move's pit and last sown pit ringed. Any number of pits per row. Reads
//! positions through [`Awale`]'s accessors and [`Game::parse_move`] only.

use std::fmt::Write as _;

use crate::games::{Awale, Game, Side};

use super::board::{Part, Skeleton, ring};

/// Distance between pit centres (SVG units).
const STEP: usize = 56;
/// Pit radius.
const PIT: usize = 24;
/// Height of a label line.
const LABEL: usize = 18;

/// Slot classes: every slot is a text slot (seed counts), so no value names a class.
pub const CLASSES: &[&str] = &[];

/// Centre of pit index `i` (0..2n) on a board of `n` pits per row.
fn centre(n: usize, i: usize) -> (f64, f64) {
    let col = if i < n { i } else { 2 * n - 1 - i };
    let row = if i < n { 1 } else { 0 };
    (
        (STEP + col * STEP + STEP / 2) as f64,
        (LABEL + row * STEP + STEP / 2) as f64,
    )
}

pub(crate) fn skeleton(pos: &Awale) -> Skeleton {
    let n = pos.pits_per_row();
    let width = (n + 2) * STEP;
    let height = 2 * STEP + 4 * LABEL;
    let mut board = format!(
        "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\"/>\
         <rect class=\"tray\" x=\"4\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"28\"/>",
        LABEL - 4,
        width - 8,
        2 * STEP + 8
    );
    // Stores: the second player's on the left, the first player's on the right.
    for (x, y) in [
        (4 + STEP / 2, LABEL + STEP),
        (width - 4 - STEP / 2, LABEL + STEP),
    ] {
        let _ = write!(
            board,
            "<ellipse class=\"store\" cx=\"{x}\" cy=\"{y}\" rx=\"{}\" ry=\"{}\"/>",
            STEP / 2 - 6,
            STEP - 10
        );
    }
    for i in 0..2 * n {
        let (cx, cy) = centre(n, i);
        let number = i % n + 1;
        let label_y = if i < n {
            cy + (STEP / 2 + LABEL - 4) as f64
        } else {
            cy - (STEP / 2 + 4) as f64
        };
        let _ = write!(
            board,
            "<circle class=\"pit\" cx=\"{cx}\" cy=\"{cy}\" r=\"{PIT}\"/>\
             <text class=\"lbl\" x=\"{cx}\" y=\"{label_y}\">{number}</text>"
        );
    }
    let _ = write!(
        board,
        "<text class=\"lbl side\" x=\"4\" y=\"{}\">first: bottom row, right store</text>\
         <text class=\"lbl side\" x=\"4\" y=\"{}\">second: top row, left store</text>",
        height - LABEL - 4,
        height - 4
    );
    let mut parts = vec![Part::Static(board)];
    for i in 0..2 * n {
        let (cx, cy) = centre(n, i);
        parts.push(Part::Slot {
            tag: "text",
            attrs: format!("class=\"seeds\" x=\"{cx}\" y=\"{}\"", cy + 7.0),
            slot: i,
            text: true,
        });
    }
    for (slot, x) in [(2 * n, width - 4 - STEP / 2), (2 * n + 1, 4 + STEP / 2)] {
        parts.push(Part::Slot {
            tag: "text",
            attrs: format!(
                "class=\"seeds store-n\" x=\"{x}\" y=\"{}\"",
                LABEL + STEP + 7
            ),
            slot,
            text: true,
        });
    }
    Skeleton {
        width: width as u32,
        height: height as u32,
        parts,
    }
}

/// Seeds per pit (index order), then the first player's store, then the second's.
pub(crate) fn slots(pos: &Awale) -> Vec<u32> {
    let mut out: Vec<u32> = pos.pits().iter().map(|&p| u32::from(p)).collect();
    out.push(pos.captured(Side::First));
    out.push(pos.captured(Side::Second));
    out
}

/// The last move from `before`: its pit and the pit its last seed went to.
pub(crate) fn overlay(before: &Awale, mv: &str) -> String {
    let Ok(pit) = before.parse_move(mv) else {
        return String::new();
    };
    let n = before.pits_per_row();
    let pit = usize::from(pit);
    let origin = centre(n, pit);
    let mut out = ring("origin", origin.0, origin.1, PIT as f64 + 3.0);
    if let Some(last) = before.last_sown(pit) {
        let (x, y) = centre(n, last);
        out.push_str(&ring("last", x, y, PIT as f64 + 3.0));
    }
    out
}
