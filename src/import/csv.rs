//! The CSV reader: arena's `games.csv` or any table with first/white, second/black and
//! result columns (`,`, `;` or tab), into rows with their lines. Knows nothing of PGN or pairs.

use super::{Raw, Score, check_players, parse_score};

/// The columns a CSV may have, by header name (case-insensitive).
#[derive(Default)]
struct Columns {
    first: usize,
    second: usize,
    result: usize,
    id: Option<usize>,
    round: Option<usize>,
    board: Option<usize>,
    game: Option<usize>,
    pair: Option<usize>,
    termination: Option<usize>,
    start_fen: Option<usize>,
    moves: Option<usize>,
}

fn csv_columns(headers: &csv::StringRecord) -> Result<Columns, String> {
    let names: Vec<String> = headers.iter().map(|h| h.trim().to_lowercase()).collect();
    let find = |wanted: &[&str]| {
        wanted
            .iter()
            .find_map(|w| names.iter().position(|n| n == w))
    };
    let need = |wanted: &[&str]| {
        find(wanted).ok_or_else(|| {
            format!(
                "no `{}` column; the header is `{}` (a CSV needs first/white, second/black and result)",
                wanted.join("` or `"),
                headers.iter().collect::<Vec<_>>().join(",")
            )
        })
    };
    Ok(Columns {
        first: need(&["first", "white"])?,
        second: need(&["second", "black"])?,
        result: need(&["result"])?,
        id: find(&["game_id", "id"]),
        round: find(&["round"]),
        board: find(&["board", "site"]),
        game: find(&["game", "variant"]),
        pair: find(&["pair"]),
        termination: find(&["termination"]),
        start_fen: find(&["start_fen", "fen"]),
        moves: find(&["moves"]),
    })
}

/// The separator of a CSV: the most frequent of `,`, `;` and tab in the header line.
fn sniff_delimiter(header: &str) -> u8 {
    [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|&d| (header.bytes().filter(|&b| b == d).count(), d == b','))
        .unwrap_or(b',')
}

type Located<T> = Result<T, (Option<u64>, String)>;

/// A CSV to read: its bytes after any byte order mark, as a stream.
pub(super) struct CsvInput<R, Q> {
    /// The bytes, from the header line on.
    pub(super) bytes: R,
    /// The header line (for the separator).
    pub(super) header: String,
    /// Whether the last line has a line end (else the last row may be cut off mid-write).
    pub(super) complete: bool,
    /// The count of `"` from a byte offset of `bytes` to the end.
    pub(super) quotes_after: Q,
}

/// Refuses a last row holding an unmatched `"`: the csv reader takes everything after an
/// unclosed quote, to the end of the file, as one field, so the rows after it would vanish
/// into it (or, on the last line, the quote would pass unnoticed). A closed quoted field has
/// an even number of `"` (`""` escapes one), so an odd count from the row's start is the sign.
fn unclosed_quote(quotes_from_row: usize) -> Result<(), String> {
    if quotes_from_row % 2 == 1 {
        return Err(
            "a `\"` on this row is never closed (everything after it, to the end of the file, would be one field)"
                .into(),
        );
    }
    Ok(())
}

/// The fields of a record as text (invalid UTF-8 as U+FFFD, as in a lossy read of the whole
/// file: no invalid sequence spans a separator), trimmed.
fn text_fields(record: &csv::ByteRecord) -> csv::StringRecord {
    record
        .iter()
        .map(|f| String::from_utf8_lossy(f).trim().to_owned())
        .collect::<Vec<String>>()
        .into()
}

/// The rows of a CSV, one by one: each rated row goes to `each`. Returns the count of
/// unfinished rows and of all rows.
///
/// # Errors
/// The line (when known) and message of the first malformed row, or what `each` returned.
pub(super) fn csv_games<R: std::io::Read, Q: Fn(u64) -> std::io::Result<usize>>(
    input: CsvInput<R, Q>,
    notes: &mut Vec<String>,
    mut each: impl FnMut(Raw) -> Located<()>,
) -> Located<(usize, usize)> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(sniff_delimiter(&input.header))
        .flexible(true)
        .from_reader(input.bytes);
    let headers = text_fields(
        reader
            .byte_headers()
            .map_err(|e| (Some(1), e.to_string()))?,
    );
    let columns = csv_columns(&headers).map_err(|m| (Some(1), m))?;
    let complete = input.complete;
    let mut rows = reader.byte_records().peekable();
    let (mut unfinished, mut total) = (0, 0);
    while let Some(row) = rows.next() {
        let last = rows.peek().is_none();
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                let line = e.position().map(csv::Position::line);
                return Err((line, e.to_string()));
            }
        };
        let position = row.position().cloned();
        let line = position.as_ref().map_or(0, csv::Position::line);
        if last {
            let start = position.as_ref().map_or(0, csv::Position::byte);
            let quotes = (input.quotes_after)(start)
                .map_err(|e| (Some(line), format!("cannot read: {e}")))?;
            unclosed_quote(quotes).map_err(|m| (Some(line), m))?;
        }
        let row = text_fields(&row);
        if row.iter().all(str::is_empty) {
            continue;
        }
        let cell = |i: usize| row.get(i).unwrap_or("");
        let optional = |i: Option<usize>| i.map(cell).filter(|c| !c.is_empty());
        let position = total;
        total += 1;
        let parsed = (|| {
            let result_text = cell(columns.result);
            let score = parse_score(result_text).ok_or_else(|| {
                if result_text.is_empty() {
                    "empty result".to_owned()
                } else {
                    format!(
                        "unknown result `{result_text}` (expected 1-0, 0-1, 1/2-1/2, 1, 0, 0.5, = or *)"
                    )
                }
            })?;
            let (first, second) = (cell(columns.first), cell(columns.second));
            check_players(first, second)?;
            Ok::<_, String>((score, first.to_owned(), second.to_owned()))
        })();
        let (score, first, second) = match parsed {
            Ok(p) => p,
            // A last row cut off mid-write (no line end): the run that wrote it was killed.
            Err(message) if last && !complete => {
                notes.push(format!(
                    "the last row (line {line}) has no line end and is incomplete ({message}); it was dropped"
                ));
                total -= 1;
                continue;
            }
            Err(message) => return Err((Some(line), message)),
        };
        let result = match score {
            Score::Finished(r) => r,
            Score::Unfinished => {
                unfinished += 1;
                continue;
            }
        };
        each(Raw {
            position,
            line,
            id: optional(columns.id).map(str::to_owned),
            round: optional(columns.round).map(str::to_owned),
            board: optional(columns.board).unwrap_or("").to_owned(),
            game: optional(columns.game).unwrap_or("").to_owned(),
            pair: optional(columns.pair).map(str::to_owned),
            first,
            second,
            result,
            termination: optional(columns.termination).and_then(|t| t.parse().ok()),
            event: None,
            fingerprint: optional(columns.moves).map(|moves| {
                crate::repeats::fingerprint(
                    optional(columns.start_fen).unwrap_or(""),
                    moves.split_whitespace(),
                )
            }),
        })?;
    }
    Ok((unfinished, total))
}
