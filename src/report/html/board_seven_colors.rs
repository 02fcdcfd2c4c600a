//! Seven Colors pictures: the N×N cells in their seven colours, the two zones in white and
//! black, and each zone's outline drawn on the cell edges where ownership changes (across the
//! wrapped edges too on a torus). Reads positions through [`SevenColors`]' accessors only.

use std::fmt::Write as _;

use crate::games::{SevenColors, Side};

use super::board::{Part, Skeleton};

/// Board side (SVG units) that cells share, up to a cell size of [`CELL_MIN`].
const BOARD: usize = 480;
/// Smallest cell side (SVG units): boards above 80×80 grow wider than [`BOARD`].
const CELL_MIN: usize = 6;
/// Margin around the board.
const MARGIN: usize = 8;
/// Height of the legend under the board.
const LEGEND: usize = 48;

/// Slot classes: values 0..7 the neutral colours `A`..`G`, 7 and 8 the first and second
/// player's zones; 9..=12 an edge with no outline, the first player's outline, the second's,
/// and the line between the two zones.
pub const CLASSES: &[&str] = &[
    "ca", "cb", "cc", "cd", "ce", "cf", "cg", "z1", "z2", "e0", "e1", "e2", "e3",
];

const ZONE_FIRST: u32 = 7;
const ZONE_SECOND: u32 = 8;
const EDGE: u32 = 9;

/// Display colours of `A`..`G`, as in the page's CSS (for the legend).
const LEGEND_CLASSES: [&str; 7] = ["ca", "cb", "cc", "cd", "ce", "cf", "cg"];

fn cell_value(pos: &SevenColors, i: usize) -> u32 {
    match (pos.owner(i), pos.colour(i)) {
        (Some(Side::First), _) => ZONE_FIRST,
        (Some(Side::Second), _) => ZONE_SECOND,
        (None, Some(colour)) => colour.index() as u32,
        (None, None) => 0,
    }
}

/// The edge value between two cells (`None` = outside the board or a neutral cell).
fn edge_value(a: Option<Side>, b: Option<Side>) -> u32 {
    if a == b {
        return EDGE;
    }
    let first = a == Some(Side::First) || b == Some(Side::First);
    let second = a == Some(Side::Second) || b == Some(Side::Second);
    EDGE + u32::from(first) + 2 * u32::from(second)
}

/// The edges in slot order after the cells: horizontal edges (row boundary r = 0..=n, column
/// c), then vertical ones (row r, column boundary c = 0..=n). Each gives the two cells it
/// separates; boundary edges of a plane board have one cell, of a torus the wrapped pair.
fn edges(n: usize, torus: bool) -> Vec<(Option<usize>, Option<usize>)> {
    let mut out = Vec::with_capacity(2 * n * (n + 1));
    let wrap = |k: usize| -> (Option<usize>, Option<usize>) {
        // Boundary k between index k - 1 and k, wrapped on a torus.
        match (k, torus) {
            (0, true) => (Some(n - 1), Some(0)),
            (0, false) => (None, Some(0)),
            (k, true) if k == n => (Some(n - 1), Some(0)),
            (k, false) if k == n => (Some(n - 1), None),
            (k, _) => (Some(k - 1), Some(k)),
        }
    };
    for r in 0..=n {
        for c in 0..n {
            let (a, b) = wrap(r);
            out.push((a.map(|a| a * n + c), b.map(|b| b * n + c)));
        }
    }
    for r in 0..n {
        for c in 0..=n {
            let (a, b) = wrap(c);
            out.push((a.map(|a| r * n + a), b.map(|b| r * n + b)));
        }
    }
    out
}

pub(crate) fn skeleton(pos: &SevenColors) -> Skeleton {
    let n = pos.size();
    let cell = (BOARD / n).max(CELL_MIN);
    let side = n * cell;
    let mut parts = Vec::with_capacity(3 * n * n + 20);
    parts.push(Part::Static(format!(
        "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\"/>",
        side + 2 * MARGIN,
        side + 2 * MARGIN + LEGEND
    )));
    for i in 0..n * n {
        let (x, y) = (MARGIN + (i % n) * cell, MARGIN + (i / n) * cell);
        parts.push(Part::Slot {
            tag: "rect",
            attrs: format!("x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\""),
            slot: i,
            text: false,
        });
    }
    let mut slot = n * n;
    for r in 0..=n {
        for c in 0..n {
            let (x, y) = (MARGIN + c * cell, MARGIN + r * cell);
            parts.push(Part::Slot {
                tag: "path",
                attrs: format!("d=\"M{x} {y}h{cell}\""),
                slot,
                text: false,
            });
            slot += 1;
        }
    }
    for r in 0..n {
        for c in 0..=n {
            let (x, y) = (MARGIN + c * cell, MARGIN + r * cell);
            parts.push(Part::Slot {
                tag: "path",
                attrs: format!("d=\"M{x} {y}v{cell}\""),
                slot,
                text: false,
            });
            slot += 1;
        }
    }
    let mut legend = String::new();
    let y = side + 2 * MARGIN + 6;
    for (k, class) in LEGEND_CLASSES.iter().enumerate() {
        let x = MARGIN + k * 34;
        let _ = write!(
            legend,
            "<rect class=\"{class}\" x=\"{x}\" y=\"{y}\" width=\"14\" height=\"14\"/>\
             <text class=\"leg\" x=\"{}\" y=\"{}\">{}</text>",
            x + 17,
            y + 12,
            char::from(b'A' + k as u8)
        );
    }
    let _ = write!(
        legend,
        "<text class=\"leg\" x=\"{}\" y=\"{}\">{}</text>",
        MARGIN,
        y + 34,
        if pos.is_torus() {
            "zones: first player white, second black; torus: the edges wrap"
        } else {
            "zones: first player white (from bottom-left), second black (from top-right)"
        }
    );
    parts.push(Part::Static(legend));
    Skeleton {
        width: (side + 2 * MARGIN) as u32,
        height: (side + 2 * MARGIN + LEGEND) as u32,
        parts,
    }
}

pub(crate) fn slots(pos: &SevenColors) -> Vec<u32> {
    /// The edge list of the last geometry seen: a report replays every ply of up to 200
    /// games, mostly on one or two board geometries.
    type Edges = (
        usize,
        bool,
        std::rc::Rc<Vec<(Option<usize>, Option<usize>)>>,
    );
    thread_local! {
        static LAST: std::cell::RefCell<Option<Edges>> = const { std::cell::RefCell::new(None) };
    }
    let (n, torus) = (pos.size(), pos.is_torus());
    let list = LAST.with(|last| {
        let mut last = last.borrow_mut();
        match &*last {
            Some((size, wrap, list)) if *size == n && *wrap == torus => list.clone(),
            _ => {
                let list = std::rc::Rc::new(edges(n, torus));
                *last = Some((n, torus, list.clone()));
                list
            }
        }
    });
    let mut out: Vec<u32> = Vec::with_capacity(n * n + list.len());
    out.extend((0..n * n).map(|i| cell_value(pos, i)));
    let owner = |cell: Option<usize>| match cell.map(|i| out[i]) {
        Some(ZONE_FIRST) => Some(Side::First),
        Some(ZONE_SECOND) => Some(Side::Second),
        _ => None,
    };
    let edge_values: Vec<u32> = list
        .iter()
        .map(|&(a, b)| edge_value(owner(a), owner(b)))
        .collect();
    out.extend(edge_values);
    out
}
