//! `results.xlsx`: the sheets `games`, `ratings` and `pairs`, with the columns of games.csv,
//! ratings.csv and pairs.csv, numbers stored as numbers (so a spreadsheet in a locale with
//! decimal commas reads them right, unlike a CSV file), a bold frozen header row, an
//! autofilter and column widths fitted to the content. The CSV files are not touched.

use std::path::Path;

use rust_xlsxwriter::{Format, Workbook, Worksheet, XlsxError};
use serde::Serialize;

use crate::record::GameRecord;
use crate::report::files::FileError;
use crate::standings::Standings;

/// The workbook's file name inside the output directory.
pub const XLSX: &str = "results.xlsx";

/// Excel's limit on the characters of a cell.
const CELL_MAX: usize = 32_767;
/// Widest column (characters).
const WIDTH_MAX: usize = 60;

/// Columns kept as text; every other column is a number (or empty).
const TEXT_COLUMNS: &[&str] = &[
    "board",
    "game",
    "first",
    "second",
    "result",
    "termination",
    "start_fen",
    "moves",
    "detail",
    "scope",
    "engine",
    "flags",
    "engine_a",
    "engine_b",
];

/// Rows serialized to CSV at a time: the CSV round trip gives exactly the CSV files'
/// spelling, and chunks keep both its cost per row and its memory small.
const CHUNK: usize = 1024;

fn sheet<T: Serialize>(ws: &mut Worksheet, name: &str, rows: &[T]) -> Result<(), String> {
    let xlsx = |e: XlsxError| e.to_string();
    ws.set_name(name).map_err(xlsx)?;
    let bold = Format::new().set_bold();
    let decimal = Format::new().set_num_format("0.0");
    let mut widths: Vec<usize> = Vec::new();
    let mut text: Vec<bool> = Vec::new();
    let mut row_num = 0u32;
    for chunk in rows.chunks(CHUNK) {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in chunk {
            writer.serialize(row).map_err(|e| e.to_string())?;
        }
        let bytes = writer.into_inner().map_err(|e| e.to_string())?;
        let mut reader = csv::Reader::from_reader(bytes.as_slice());
        if row_num == 0 {
            for (c, h) in reader
                .headers()
                .map_err(|e| e.to_string())?
                .iter()
                .enumerate()
            {
                ws.write_string_with_format(0, c as u16, h, &bold)
                    .map_err(xlsx)?;
                widths.push(h.len());
                text.push(TEXT_COLUMNS.contains(&h));
            }
        }
        for record in reader.records() {
            let record = record.map_err(|e| e.to_string())?;
            row_num += 1;
            for (c, v) in record.iter().enumerate() {
                if v.is_empty() {
                    continue;
                }
                let col = c as u16;
                let number = if text.get(c).copied().unwrap_or(true) {
                    None
                } else {
                    v.parse::<f64>().ok().filter(|x| x.is_finite())
                };
                match number {
                    Some(x) if v.contains('.') => {
                        ws.write_number_with_format(row_num, col, x, &decimal)
                            .map_err(xlsx)?;
                    }
                    Some(x) => {
                        ws.write_number(row_num, col, x).map_err(xlsx)?;
                    }
                    None if v.len() > CELL_MAX => {
                        let cut: String = v.chars().take(CELL_MAX).collect();
                        ws.write_string(row_num, col, &cut).map_err(xlsx)?;
                    }
                    None => {
                        ws.write_string(row_num, col, v).map_err(xlsx)?;
                    }
                }
                if let Some(w) = widths.get_mut(c) {
                    *w = (*w).max(v.len().min(WIDTH_MAX));
                }
            }
        }
    }
    for (c, w) in widths.iter().enumerate() {
        ws.set_column_width(c as u16, (*w + 2) as f64)
            .map_err(xlsx)?;
    }
    if !widths.is_empty() {
        ws.set_freeze_panes(1, 0).map_err(xlsx)?;
        ws.autofilter(0, 0, row_num, widths.len() as u16 - 1)
            .map_err(xlsx)?;
    }
    Ok(())
}

/// Writes `dir/results.xlsx` from the game records (sorted by game id) and the standings.
/// The games sheet is written in constant-memory mode, so 100,000 games fit.
///
/// # Errors
/// [`FileError`] naming the file when it cannot be written.
pub fn write(dir: &Path, records: &[GameRecord], standings: &Standings) -> Result<(), FileError> {
    let path = dir.join(XLSX);
    let mut sorted: Vec<&GameRecord> = records.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    let mut workbook = Workbook::new();
    let result = sheet(
        workbook.add_worksheet_with_constant_memory(),
        "games",
        &sorted,
    )
    .and_then(|()| sheet(workbook.add_worksheet(), "ratings", &standings.ratings))
    .and_then(|()| sheet(workbook.add_worksheet(), "pairs", &standings.pairs))
    .and_then(|()| {
        let tmp = path.with_extension("xlsx.tmp");
        let saved = workbook
            .save(&tmp)
            .map_err(|e| e.to_string())
            .and_then(|()| std::fs::rename(&tmp, &path).map_err(|e| e.to_string()));
        if saved.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        saved
    });
    result.map_err(|message| FileError {
        path: path.clone(),
        message,
    })
}
