//! Inline SVG charts of the report: Elo with its confidence interval per engine, and the SPRT
//! trace. Pure functions from table rows to markup; no file access.

use std::fmt::Write as _;

use crate::standings::RatingRow;

use super::esc;
use super::inputs::SprtRow;

const WIDTH: f64 = 640.0;
const LABEL: f64 = 150.0;
const ROW: f64 = 22.0;

/// A step of 1, 2 or 5 × 10^k giving about `ticks` intervals over `span`.
fn nice_step(span: f64, ticks: f64) -> f64 {
    let raw = (span / ticks).max(1e-9);
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    mag * if norm < 1.5 {
        1.0
    } else if norm < 3.5 {
        2.0
    } else if norm < 7.5 {
        5.0
    } else {
        10.0
    }
}

fn axis(out: &mut String, lo: f64, hi: f64, x: impl Fn(f64) -> f64, top: f64, bottom: f64) {
    let step = nice_step(hi - lo, 6.0);
    let mut t = (lo / step).ceil() * step;
    while t <= hi + 1e-9 {
        let px = x(t);
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{px:.1}\" y1=\"{top}\" x2=\"{px:.1}\" y2=\"{bottom}\"/>\
             <text class=\"tick\" x=\"{px:.1}\" y=\"{:.1}\">{}</text>",
            bottom + 14.0,
            t.round()
        );
        t += step;
    }
}

/// Elo and its interval for the rows of one scope, in rank order: a dot at the rating and a
/// bar over the interval; an unbounded end (a 0% or 100% score) runs to the chart's edge with
/// an arrow head.
pub fn elo_chart(rows: &[&RatingRow]) -> String {
    if rows.is_empty() {
        return String::new();
    }
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for r in rows {
        for v in [Some(r.elo), r.ci_low, r.ci_high].into_iter().flatten() {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    let pad = ((hi - lo) * 0.08).max(10.0);
    let (lo, hi) = (lo - pad, hi + pad);
    let plot = WIDTH - LABEL - 20.0;
    let x = |v: f64| LABEL + (v - lo) / (hi - lo) * plot;
    let height = rows.len() as f64 * ROW + 30.0;
    let bottom = rows.len() as f64 * ROW + 6.0;
    let mut out = format!(
        "<svg class=\"chart elo\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\">\
         <title>Elo with its confidence interval per engine</title>"
    );
    axis(&mut out, lo, hi, x, 4.0, bottom);
    if lo < 0.0 && hi > 0.0 {
        let _ = write!(
            out,
            "<line class=\"zero\" x1=\"{0:.1}\" y1=\"4\" x2=\"{0:.1}\" y2=\"{bottom}\"/>",
            x(0.0)
        );
    }
    for (k, r) in rows.iter().enumerate() {
        let y = 6.0 + k as f64 * ROW + ROW / 2.0;
        let (a, b) = (r.ci_low.map_or(LABEL, x), r.ci_high.map_or(LABEL + plot, x));
        let _ = write!(
            out,
            "<text class=\"name\" x=\"{:.1}\" y=\"{:.1}\">{}</text>\
             <line class=\"ci\" x1=\"{a:.1}\" y1=\"{y:.1}\" x2=\"{b:.1}\" y2=\"{y:.1}\"/>",
            LABEL - 8.0,
            y + 4.0,
            esc(&r.engine)
        );
        for (end, open, dir) in [(a, r.ci_low.is_none(), -1.0), (b, r.ci_high.is_none(), 1.0)] {
            if open {
                let _ = write!(
                    out,
                    "<path class=\"open\" d=\"M{end:.1} {y:.1}l{:.1} -4v8z\"/>",
                    -6.0 * dir
                );
            } else {
                let _ = write!(
                    out,
                    "<line class=\"ci\" x1=\"{end:.1}\" y1=\"{:.1}\" x2=\"{end:.1}\" y2=\"{:.1}\"/>",
                    y - 5.0,
                    y + 5.0
                );
            }
        }
        let _ = write!(
            out,
            "<circle class=\"dot\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\"><title>{} {:.1}</title></circle>",
            x(r.elo),
            esc(&r.engine),
            r.elo
        );
    }
    out.push_str("</svg>");
    out
}

/// The SPRT trace: LLR against games played, with the bounds of each update as dashed lines.
pub fn sprt_chart(rows: &[SprtRow]) -> String {
    let (w, h, left, top, bottom) = (WIDTH, 260.0, 50.0, 10.0, 230.0);
    let max_games = rows.iter().map(|r| r.games).max().unwrap_or(1).max(1) as f64;
    let mut lo = 0f64;
    let mut hi = 0f64;
    for r in rows {
        lo = lo.min(r.llr).min(r.lower);
        hi = hi.max(r.llr).max(r.upper);
    }
    let pad = ((hi - lo) * 0.05).max(0.1);
    let (lo, hi) = (lo - pad, hi + pad);
    let x = |g: f64| left + g / max_games * (w - left - 20.0);
    let y = |v: f64| bottom - (v - lo) / (hi - lo) * (bottom - top);
    let mut out = format!(
        "<svg class=\"chart sprt\" viewBox=\"0 0 {w} {h}\" role=\"img\">\
         <title>SPRT log-likelihood ratio against games</title>"
    );
    let step = nice_step(hi - lo, 5.0);
    let mut t = (lo / step).ceil() * step;
    while t <= hi {
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\"/>\
             <text class=\"tick\" x=\"{2}\" y=\"{3:.1}\">{t:.2}</text>",
            y(t),
            w - 20.0,
            left - 20.0,
            y(t) + 4.0
        );
        t += step;
    }
    let gstep = nice_step(max_games, 6.0);
    let mut g = 0.0;
    while g <= max_games {
        let _ = write!(
            out,
            "<text class=\"tick\" x=\"{:.1}\" y=\"{}\">{g}</text>",
            x(g),
            bottom + 16.0
        );
        g += gstep;
    }
    let line = |f: &dyn Fn(&SprtRow) -> f64| -> String {
        rows.iter()
            .map(|r| format!("{:.1},{:.1}", x(r.games as f64), y(f(r))))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let _ = write!(
        out,
        "<text class=\"tick\" x=\"{:.1}\" y=\"{}\">games</text>\
         <text class=\"tick\" x=\"{}\" y=\"{}\">LLR</text>",
        w - 40.0,
        h - 2.0,
        left - 20.0,
        top + 2.0
    );
    let _ = write!(
        out,
        "<polyline class=\"bound\" points=\"{}\"/><polyline class=\"bound\" points=\"{}\"/>\
         <polyline class=\"llr\" points=\"{}\"/></svg>",
        line(&|r| r.lower),
        line(&|r| r.upper),
        line(&|r| r.llr)
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_one_two_or_five() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 6.0), 1.0);
        assert_eq!(nice_step(300.0, 6.0), 50.0);
    }
}
