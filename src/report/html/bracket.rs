//! The knockout bracket of report.html: an SVG drawn from `knockout.csv` (one column per
//! round, each match a box with both engines, their seeds and scores, the winner in bold;
//! lines join each match to the one its winner plays next).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use super::esc;
use crate::report::files::FileError;

/// The knockout file a run writes beside games.csv.
const KNOCKOUT: &str = "knockout.csv";
/// Width of a round's column and of a match box (px).
const COLUMN: f64 = 210.0;
const BOX_WIDTH: f64 = 180.0;
/// Height of a match box and the vertical step between first-round boxes (px).
const BOX_HEIGHT: f64 = 40.0;
const STEP: f64 = 52.0;

/// One row of knockout.csv (see docs/COLUMNS.md).
#[derive(Debug, Deserialize)]
struct Row {
    round: u32,
    #[serde(rename = "match")]
    position: u32,
    engine_a: String,
    engine_b: String,
    seed_a: Option<u32>,
    seed_b: Option<u32>,
    score_a: Option<f64>,
    score_b: Option<f64>,
    tiebreak_pairs: u32,
    winner: String,
}

/// The bracket section, or nothing when `dir` has no knockout.csv.
///
/// # Errors
/// [`FileError`] when knockout.csv exists but cannot be read.
pub fn section(dir: &Path) -> Result<String, FileError> {
    let path = dir.join(KNOCKOUT);
    if !path.exists() {
        return Ok(String::new());
    }
    let error = |e: csv::Error| FileError {
        path: path.clone(),
        message: e.to_string(),
    };
    let mut reader = csv::Reader::from_path(&path).map_err(error)?;
    let rows: Vec<Row> = reader
        .deserialize()
        .collect::<Result<_, _>>()
        .map_err(error)?;
    Ok(format!(
        "<section id=\"bracket\"><h2>Knockout bracket</h2><p class=\"note\">Game points of \
         each match over its regular and tie-break games (tb: tie-break pairs played); the \
         winner in bold. A match still tied after its tie-breaks goes to the higher seed.</p>{}\
         </section>",
        svg(&rows)
    ))
}

/// The SVG of a bracket, rows in round and bracket order.
fn svg(rows: &[Row]) -> String {
    let mut rounds: BTreeMap<u32, Vec<&Row>> = BTreeMap::new();
    for row in rows {
        rounds.entry(row.round).or_default().push(row);
    }
    for r in rounds.values_mut() {
        r.sort_by_key(|row| row.position);
    }
    let first = rounds.values().next().map_or(0, Vec::len);
    let height = first.max(1) as f64 * STEP + 20.0;
    let width = (rounds.len() + 1) as f64 * COLUMN + 20.0;
    let mut out = format!(
        "<svg class=\"bracket\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" \
         height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"sans-serif\" \
         font-size=\"12\" role=\"img\" aria-label=\"knockout bracket\">"
    );
    // Centres of the previous round's boxes: each box sits between the two that feed it.
    let mut centres: Vec<f64> = (0..first)
        .map(|i| 10.0 + i as f64 * STEP + BOX_HEIGHT / 2.0)
        .collect();
    let mut champion = None;
    for (c, (round, boxes)) in rounds.iter().enumerate() {
        let x = 10.0 + c as f64 * COLUMN;
        let ys: Vec<f64> = if c == 0 {
            centres.clone()
        } else {
            (0..boxes.len())
                .map(|i| {
                    let a = centres.get(2 * i).copied().unwrap_or(0.0);
                    let b = centres.get(2 * i + 1).copied().unwrap_or(a);
                    (a + b) / 2.0
                })
                .collect()
        };
        let _ = write!(
            out,
            "<text x=\"{x}\" y=\"9\" font-weight=\"bold\" fill=\"#555\">round {round}</text>"
        );
        for (i, (row, &y)) in boxes.iter().zip(&ys).enumerate() {
            if c > 0 {
                for k in [2 * i, 2 * i + 1] {
                    if let Some(&from) = centres.get(k) {
                        let x0 = x - COLUMN + BOX_WIDTH;
                        let xm = x - (COLUMN - BOX_WIDTH) / 2.0;
                        let _ = write!(
                            out,
                            "<path d=\"M{x0} {from}H{xm}V{y}H{x}\" fill=\"none\" stroke=\"#999\"/>"
                        );
                    }
                }
            }
            match_box(&mut out, row, x, y - BOX_HEIGHT / 2.0);
        }
        centres = ys;
        if boxes.len() == 1 && !boxes[0].winner.is_empty() {
            champion = Some((boxes[0].winner.as_str(), centres[0], x));
        }
    }
    if let Some((name, y, x)) = champion {
        let x1 = x + COLUMN;
        let _ = write!(
            out,
            "<path d=\"M{} {y}H{x1}\" stroke=\"#999\"/><text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>",
            x + BOX_WIDTH,
            x1 + 4.0,
            y + 4.0,
            esc(name)
        );
    }
    out.push_str("</svg>");
    out
}

/// One match (or bye) box at (`x`, `top`).
fn match_box(out: &mut String, row: &Row, x: f64, top: f64) {
    let _ = write!(
        out,
        "<rect x=\"{x}\" y=\"{top}\" width=\"{BOX_WIDTH}\" height=\"{BOX_HEIGHT}\" rx=\"4\" \
         fill=\"#fff\" stroke=\"#bbb\"/>"
    );
    let lines: [(&str, Option<u32>, Option<f64>); 2] = [
        (&row.engine_a, row.seed_a, row.score_a),
        (&row.engine_b, row.seed_b, row.score_b),
    ];
    for (k, (name, seed, score)) in lines.iter().enumerate() {
        let y = top + 16.0 + k as f64 * 17.0;
        let bold = if !name.is_empty() && *name == row.winner {
            " font-weight=\"bold\""
        } else {
            ""
        };
        let label = if name.is_empty() {
            "bye".to_owned()
        } else {
            seed.map_or_else(|| name.to_string(), |s| format!("{s}. {name}"))
        };
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{y}\"{bold}>{}</text>",
            x + 6.0,
            esc(&label)
        );
        if let Some(score) = score {
            let _ = write!(
                out,
                "<text x=\"{}\" y=\"{y}\" text-anchor=\"end\"{bold}>{score}</text>",
                x + BOX_WIDTH - 6.0
            );
        }
    }
    if row.tiebreak_pairs > 0 {
        let _ = write!(
            out,
            "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#777\" text-anchor=\"end\">tb {}</text>",
            x + BOX_WIDTH - 2.0,
            top + BOX_HEIGHT + 9.0,
            row.tiebreak_pairs
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bracket_of_three_has_a_box_per_position_and_the_champion() {
        let text = "round,match,engine_a,engine_b,seed_a,seed_b,games,score_a,score_b,tiebreak_pairs,winner\n\
                    1,1,a,,1,,0,,,0,a\n1,2,b,c,2,3,2,1.5,0.5,0,b\n2,1,a,b,1,2,4,2,2,1,a\n";
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let rows: Vec<Row> = reader.deserialize().map(Result::unwrap).collect();
        let svg = svg(&rows);
        assert_eq!(svg.matches("<rect").count(), 3);
        assert!(svg.contains(">1. a<") && svg.contains(">bye<") && svg.contains(">3. c<"));
        assert!(svg.contains("tb 1"));
        // The champion's name after the final.
        assert!(svg.contains("font-weight=\"bold\">a</text></svg>"), "{svg}");
    }
}
