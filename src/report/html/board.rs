//! Board pictures in SVG for the report's game viewer: one skeleton per board geometry, whose
//! slot elements take a class or a number per ply, plus an overlay for the last move.
//!
//! Owns the split between Rust and the page: everything a picture shows is computed here from
//! arena's own rules ([`AnyPosition`]); the page only clones a skeleton, sets each slot's class
//! or text and replaces the overlay. The per-game drawing lives in `board_*.rs`; this module
//! knows no game's rules.

use std::fmt::Write as _;

use crate::games::AnyPosition;

use super::{board_amazons, board_awale, board_seven_colors};

/// One element of a skeleton.
#[derive(Clone, Debug)]
pub(crate) enum Part {
    /// Markup that never changes (background, labels, holes).
    Static(String),
    /// An element whose class (`text: false`) or text content (`text: true`) is slot `slot`'s
    /// value: `<tag attrs data-s="slot" class="…"/>` or `<tag attrs data-s="slot" data-t="1">n</tag>`.
    Slot {
        /// SVG element name.
        tag: &'static str,
        /// Attributes other than `class` and `data-*`.
        attrs: String,
        /// Index into the slot values.
        slot: usize,
        /// Whether the value is shown as text rather than as a class.
        text: bool,
    },
}

/// The fixed part of a picture: size (SVG user units) and elements in drawing order.
#[derive(Clone, Debug)]
pub(crate) struct Skeleton {
    /// viewBox width.
    pub width: u32,
    /// viewBox height.
    pub height: u32,
    /// Elements, drawn in order; the overlay comes last.
    pub parts: Vec<Part>,
}

/// What changes with the position: one value per slot, and the overlay markup of the move
/// that led here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Slot values: an index into the game's class table, or the number a text slot shows.
    pub slots: Vec<u32>,
    /// SVG markup drawn on top (last move's path, last sown pit); empty at the start.
    pub overlay: String,
}

/// The class names of slot values for a game (index = value), as used by the page's CSS.
pub fn classes(pos: &AnyPosition) -> &'static [&'static str] {
    match pos {
        AnyPosition::SevenColors(_) => board_seven_colors::CLASSES,
        AnyPosition::Amazons(_) => board_amazons::CLASSES,
        AnyPosition::Awale(_) => board_awale::CLASSES,
    }
}

pub(crate) fn skeleton(pos: &AnyPosition) -> Skeleton {
    match pos {
        AnyPosition::SevenColors(p) => board_seven_colors::skeleton(p),
        AnyPosition::Amazons(p) => board_amazons::skeleton(p),
        AnyPosition::Awale(p) => board_awale::skeleton(p),
    }
}

/// The frame of `pos`, reached by `last_move` (a legal move text of `before`) when given.
pub fn frame(pos: &AnyPosition, last: Option<(&AnyPosition, &str)>) -> Frame {
    let (slots, overlay) = match pos {
        AnyPosition::SevenColors(p) => (board_seven_colors::slots(p), String::new()),
        AnyPosition::Amazons(p) => (
            board_amazons::slots(p),
            match last {
                Some((AnyPosition::Amazons(before), mv)) => board_amazons::overlay(before, mv),
                _ => String::new(),
            },
        ),
        AnyPosition::Awale(p) => (
            board_awale::slots(p),
            match last {
                Some((AnyPosition::Awale(before), mv)) => board_awale::overlay(before, mv),
                _ => String::new(),
            },
        ),
    };
    Frame { slots, overlay }
}

/// Writes the picture of `skeleton` in state `frame`: exactly what the page shows after it
/// has applied the frame to the skeleton.
pub(crate) fn render(skeleton: &Skeleton, classes: &[&str], frame: &Frame) -> String {
    let mut out = String::with_capacity(64 * skeleton.parts.len());
    let _ = write!(
        out,
        "<svg class=\"board\" viewBox=\"0 0 {w} {h}\" width=\"{}\" height=\"{}\" role=\"img\">",
        // Shown at 1.5 px a unit at most, so that small boards do not fill the screen.
        skeleton.width * 3 / 2,
        skeleton.height * 3 / 2,
        w = skeleton.width,
        h = skeleton.height
    );
    for part in &skeleton.parts {
        match part {
            Part::Static(markup) => out.push_str(markup),
            Part::Slot {
                tag,
                attrs,
                slot,
                text,
            } => {
                let value = frame.slots.get(*slot).copied().unwrap_or(0);
                if *text {
                    let _ = write!(
                        out,
                        "<{tag} {attrs} data-s=\"{slot}\" data-t=\"1\">{value}</{tag}>"
                    );
                } else {
                    let class = classes.get(value as usize).copied().unwrap_or("");
                    let _ = write!(out, "<{tag} {attrs} data-s=\"{slot}\" class=\"{class}\"/>");
                }
            }
        }
    }
    let _ = write!(out, "<g class=\"ov\">{}</g></svg>", frame.overlay);
    out
}

/// The SVG picture of `pos`, with the last move drawn when `last` gives the position before
/// it and the move's text. Used for the viewer's skeletons and checked against snapshots.
pub fn svg(pos: &AnyPosition, last: Option<(&AnyPosition, &str)>) -> String {
    render(&skeleton(pos), classes(pos), &frame(pos, last))
}

/// A short key that is equal for two positions exactly when their skeletons are equal (same
/// game and geometry): FNV-1a of the skeleton markup.
pub(crate) fn geometry_key(skeleton: &Skeleton) -> String {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    let mut feed = |s: &str| {
        for b in s.bytes() {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(&format!("{}x{}", skeleton.width, skeleton.height));
    for part in &skeleton.parts {
        match part {
            Part::Static(m) => feed(m),
            Part::Slot { tag, attrs, .. } => {
                feed(tag);
                feed(attrs);
            }
        }
    }
    format!("g{hash:016x}")
}

/// A circle of radius `r` around (`x`, `y`) for overlays.
pub(crate) fn ring(class: &str, x: f64, y: f64, r: f64) -> String {
    format!("<circle class=\"{class}\" cx=\"{x}\" cy=\"{y}\" r=\"{r}\"/>")
}

/// A straight segment for overlays.
pub(crate) fn segment(class: &str, from: (f64, f64), to: (f64, f64)) -> String {
    format!(
        "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
        from.0, from.1, to.0, to.1
    )
}
