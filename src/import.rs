//! Games from files that arena or other tools wrote, for `arena ratings`: arena's `games.csv`,
//! a minimal CSV (`first`/`white`, `second`/`black`, `result`), or PGN (arena's `results.pgn`,
//! cutechess-cli, fastchess, anything with White/Black/Result tags). Also finds the game pairs
//! that the pair-clustered intervals need.
//!
//! Reads only: writes no file and knows no game's rules (moves are never read). The rating maths
//! lives in [`crate::rating`] and [`crate::standings`]; arena's own `games.csv` reader for
//! resuming a run stays in [`crate::report::files`].

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use crate::record::{GameRecord, Termination};

/// How games are grouped into game pairs (the clusters of the rating intervals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairMode {
    /// A `pair` column or `Pair` tag if the file has one, else `consecutive` if every game
    /// 2k and 2k+1 swap players, else `round` if that structure holds, else `none`.
    #[default]
    Auto,
    /// Game 2k with game 2k+1 (file order, 0-based, unfinished games keep their place) when
    /// their players are swapped: what cutechess-cli and fastchess `-repeat` write.
    Consecutive,
    /// Games with the same `Round` (or `round` column), board and two players, when there are
    /// exactly two of them with the players swapped.
    Round,
    /// Every game on its own.
    None,
}

impl PairMode {
    /// The spelling on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PairMode::Auto => "auto",
            PairMode::Consecutive => "consecutive",
            PairMode::Round => "round",
            PairMode::None => "none",
        }
    }
}

impl fmt::Display for PairMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PairMode {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        [
            PairMode::Auto,
            PairMode::Consecutive,
            PairMode::Round,
            PairMode::None,
        ]
        .into_iter()
        .find(|m| m.name() == text)
        .ok_or_else(|| format!("`{text}`: expected auto, consecutive, round or none"))
    }
}

/// Where the game pairs of an import came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pairing {
    /// The file's `pair` column or `Pair` tags.
    Given,
    /// Consecutive games with swapped players.
    Consecutive,
    /// Games sharing a round and players, swapped.
    Round,
    /// No pairs: every game is its own cluster.
    None,
}

/// The two input formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Comma-, semicolon- or tab-separated values with a header row.
    Csv,
    /// Portable Game Notation: tag pairs and optional move text.
    Pgn,
}

/// One imported game: a [`GameRecord`] with what the file said (columns or tags it did not have
/// are empty or 0) and what `results.pgn` should repeat.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The game. `game_id` is the file's id when every id is a number, else the position in the
    /// file (0-based); `pair` is the game pair's cluster id (unique for unpaired games); `game`
    /// and `board` are empty when the file does not say.
    pub record: GameRecord,
    /// The PGN `Event` tag, when the input had one.
    pub event: Option<String>,
    /// The PGN `Round` to write: the input's tag, or `round.game_id` for CSV with numeric ids
    /// (arena's own form), else `?`.
    pub round_text: String,
    /// Whether `record.termination` came from the file (else it is a placeholder).
    pub termination_known: bool,
}

/// Everything read from one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Import {
    /// Rated games, in file order.
    pub games: Vec<Imported>,
    /// The format read.
    pub format: InputFormat,
    /// Where the game pairs came from.
    pub pairing: Pairing,
    /// Things the user should know (skipped games, unpaired games, a dropped last row).
    pub notes: Vec<String>,
}

/// A file that cannot be imported: the file, the line (a CSV row's or a PGN line, 1-based) and
/// what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ImportError {
    /// The file as given.
    pub file: String,
    /// 1-based line, when the problem has one.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// A result cell or tag: a finished game (first player's view, canonical spelling) or `*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Score {
    Finished(&'static str),
    Unfinished,
}

/// Reads `1-0`, `0-1`, `1/2-1/2` and the short forms `1`, `0`, `0.5`, `=`, `½` (first player's
/// view); `*` is an unfinished game.
fn parse_score(text: &str) -> Option<Score> {
    Some(match text.trim() {
        "1-0" | "1" | "1.0" => Score::Finished("1-0"),
        "0-1" | "0" | "0.0" => Score::Finished("0-1"),
        "1/2-1/2" | "1/2" | "0.5" | "0.5-0.5" | "=" | "½" | "½-½" => Score::Finished("1/2-1/2"),
        "*" => Score::Unfinished,
        _ => return None,
    })
}

/// A game as read, before ids and pairs are assigned.
#[derive(Clone, Debug, Default)]
struct Raw {
    /// Position in the file among all games, unfinished ones included.
    position: usize,
    line: u64,
    id: Option<String>,
    round: Option<String>,
    board: String,
    game: String,
    pair: Option<String>,
    first: String,
    second: String,
    result: &'static str,
    termination: Option<Termination>,
    event: Option<String>,
}

/// Reads `path`, detecting the format from the extension (`.pgn`, `.csv`, `.tsv`) or else the
/// content (a first `[` means PGN), and assigns game pairs by `mode`.
///
/// # Errors
/// [`ImportError`] for an unreadable file, a malformed row or game (with its line), or a file
/// with nothing to rate.
pub fn read(path: &Path, mode: PairMode) -> Result<Import, ImportError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ImportError {
        file: file.clone(),
        line: None,
        message: format!("cannot read: {e}"),
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let format = detect(path, &text);
    parse(&text, &file, format, mode)
}

/// The format of a file: by extension, else by content.
pub fn detect(path: &Path, text: &str) -> InputFormat {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("pgn") => InputFormat::Pgn,
        Some("csv" | "tsv") => InputFormat::Csv,
        _ if text
            .trim_start_matches('\u{feff}')
            .trim_start()
            .starts_with('[') =>
        {
            InputFormat::Pgn
        }
        _ => InputFormat::Csv,
    }
}

/// Parses file text; `file` names it in errors.
///
/// # Errors
/// As [`read`].
pub fn parse(
    text: &str,
    file: &str,
    format: InputFormat,
    mode: PairMode,
) -> Result<Import, ImportError> {
    let err = |line: Option<u64>, message: String| ImportError {
        file: file.to_owned(),
        line,
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(err(None, "nothing to rate: the file is empty".into()));
    }
    let mut notes = Vec::new();
    let (mut raws, unfinished, total) = match format {
        InputFormat::Csv => csv_games(text, &mut notes).map_err(|(l, m)| err(l, m))?,
        InputFormat::Pgn => pgn_games(text).map_err(|(l, m)| err(Some(l), m))?,
    };
    if unfinished > 0 {
        notes.push(format!(
            "{unfinished} unfinished game{} (`*`) skipped",
            plural(unfinished)
        ));
    }
    if raws.is_empty() {
        let what = match format {
            InputFormat::Csv => "rows",
            InputFormat::Pgn => "games",
        };
        return Err(err(
            None,
            if total == 0 {
                format!("nothing to rate: no {what} found")
            } else {
                format!("nothing to rate: all {total} {what} are unfinished (`*`)")
            },
        ));
    }
    match format {
        InputFormat::Csv => numeric_game_column_is_an_id(&mut raws, &mut notes),
        InputFormat::Pgn => sites_that_are_boards(&mut raws, &mut notes),
    }
    let games = assign_ids(raws, file, format)?;
    let (games, pairing) = assign_pairs(games, mode, &mut notes);
    Ok(Import {
        games,
        format,
        pairing,
        notes,
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A CSV whose `game` column holds only numbers and that has no `game_id` column numbers its
/// games there (arena's `game` is the game's name): those become the ids, not `game:` scopes.
fn numeric_game_column_is_an_id(raws: &mut [Raw], notes: &mut Vec<String>) {
    let numeric = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
    if raws.iter().all(|r| r.id.is_none()) && raws.iter().all(|r| numeric(&r.game)) {
        for r in raws.iter_mut() {
            r.id = Some(std::mem::take(&mut r.game));
        }
        notes.push("the `game` column holds numbers: read as game ids".into());
    }
}

/// PGN `Site` is a board (arena writes the board there) only when every site is shared by at
/// least two games, as the legs of a game pair are; sites unique to a game (a server's game
/// URL, say) would make one scope per game and are ignored.
fn sites_that_are_boards(raws: &mut [Raw], notes: &mut Vec<String>) {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in raws.iter().filter(|r| !r.board.is_empty()) {
        *count.entry(r.board.as_str()).or_default() += 1;
    }
    if count.values().any(|&n| n < 2) {
        for r in raws.iter_mut() {
            r.board.clear();
        }
        notes.push(
            "Site tags are not boards (some game has a Site of its own): no board scopes".into(),
        );
    }
}

/// Checks the players of a game: two non-empty, different names.
fn check_players(first: &str, second: &str) -> Result<(), String> {
    if first.is_empty() || second.is_empty() {
        return Err("a game needs two named players".into());
    }
    if first == second {
        return Err(format!("engine `{first}` plays itself"));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// CSV

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
    })
}

/// The separator of a CSV: the most frequent of `,`, `;` and tab in the header line.
fn sniff_delimiter(text: &str) -> u8 {
    let header = text.lines().next().unwrap_or("");
    [b',', b';', b'\t']
        .into_iter()
        .max_by_key(|&d| (header.bytes().filter(|&b| b == d).count(), d == b','))
        .unwrap_or(b',')
}

type Located<T> = Result<T, (Option<u64>, String)>;

/// Refuses a last row holding an unmatched `"`: the csv reader takes everything after an
/// unclosed quote, to the end of the file, as one field, so the rows after it would vanish
/// into it (or, on the last line, the quote would pass unnoticed). A closed quoted field has
/// an even number of `"` (`""` escapes one), so an odd count from the row's start is the sign.
fn unclosed_quote(text: &str, row: &csv::StringRecord) -> Result<(), String> {
    let start = row.position().map_or(0, |p| p.byte() as usize);
    let rest = text.get(start..).unwrap_or_default();
    if rest.bytes().filter(|&b| b == b'"').count() % 2 == 1 {
        return Err(
            "a `\"` on this row is never closed (everything after it, to the end of the file, would be one field)"
                .into(),
        );
    }
    Ok(())
}

/// Rows of a CSV: the rated ones, the count of unfinished ones and the count of all rows.
fn csv_games(text: &str, notes: &mut Vec<String>) -> Located<(Vec<Raw>, usize, usize)> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(sniff_delimiter(text))
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| (Some(1), e.to_string()))?
        .clone();
    let columns = csv_columns(&headers).map_err(|m| (Some(1), m))?;
    let complete = text.ends_with('\n');
    let mut rows = reader.records().peekable();
    let (mut raws, mut unfinished, mut total) = (Vec::new(), 0, 0);
    while let Some(row) = rows.next() {
        let last = rows.peek().is_none();
        let row = match row {
            Ok(row) => row,
            Err(e) => {
                let line = e.position().map(csv::Position::line);
                return Err((line, e.to_string()));
            }
        };
        let line = row.position().map_or(0, csv::Position::line);
        if last {
            unclosed_quote(text, &row).map_err(|m| (Some(line), m))?;
        }
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
        raws.push(Raw {
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
        });
    }
    Ok((raws, unfinished, total))
}

// ---------------------------------------------------------------------------------------------
// PGN

/// One game of a PGN file as lexed: its tags (name, value, line) and the result marker that
/// ended its move text.
#[derive(Debug, Default)]
struct PgnGame {
    line: u64,
    tags: Vec<(String, String, u64)>,
    marker: Option<(String, u64)>,
    has_moves: bool,
}

impl PgnGame {
    fn is_empty(&self) -> bool {
        self.tags.is_empty() && self.marker.is_none() && !self.has_moves
    }

    fn tag(&self, name: &str) -> Option<(&str, u64)> {
        self.tags
            .iter()
            .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v, l)| (v.as_str(), *l))
    }
}

/// A PGN lexer: tag pairs, comments (`{…}`, `;…`), variations (`(…)`), escape lines (`%…`),
/// move text tokens and the game termination markers (PGN standard, 1994, sections 8 and 6).
struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    line: u64,
    at_line_start: bool,
}

impl Lexer<'_> {
    fn next(&mut self) -> Option<char> {
        let c = self.chars.next()?;
        self.at_line_start = c == '\n';
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.next() {
            if c == '\n' {
                break;
            }
        }
    }

    /// Skips a `{…}` comment whose `{` was read at `start`.
    fn skip_comment(&mut self, start: u64) -> Result<(), (u64, String)> {
        loop {
            match self.next() {
                Some('}') => return Ok(()),
                Some(_) => {}
                None => return Err((start, "a `{` comment is never closed".into())),
            }
        }
    }

    /// Reads `[Name "value"]` after its `[`.
    fn tag(&mut self, start: u64) -> Result<(String, String), (u64, String)> {
        while self.chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            self.next();
        }
        let mut name = String::new();
        while let Some(&c) = self.chars.peek() {
            if c.is_alphanumeric() || c == '_' {
                name.push(c);
                self.next();
            } else {
                break;
            }
        }
        if name.is_empty() {
            return Err((start, "expected a tag name after `[`".into()));
        }
        while self.chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            self.next();
        }
        if self.next() != Some('"') {
            return Err((
                start,
                format!("tag {name}: expected a value in double quotes"),
            ));
        }
        let mut value = String::new();
        loop {
            match self.next() {
                Some('\\') => match self.next() {
                    Some(c @ ('"' | '\\')) => value.push(c),
                    Some(c) => {
                        value.push('\\');
                        value.push(c);
                    }
                    None => break,
                },
                Some('"') => break,
                Some('\n') | None => {
                    return Err((start, format!("tag {name}: the value has no closing quote")));
                }
                Some(c) => value.push(c),
            }
        }
        while self.chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            self.next();
        }
        if self.next() != Some(']') {
            return Err((start, format!("tag {name}: expected `]` after the value")));
        }
        Ok((name, value))
    }
}

/// Splits PGN text into games. A game ends at a result marker or where a new tag section
/// starts: a tag after move text, or a tag name the current game already has (tag-only files
/// without markers).
fn pgn_split(text: &str) -> Result<Vec<PgnGame>, (u64, String)> {
    let mut lx = Lexer {
        chars: text.chars().peekable(),
        line: 1,
        at_line_start: true,
    };
    let mut games = Vec::new();
    let mut current = PgnGame::default();
    let mut finish = |current: &mut PgnGame| {
        let done = std::mem::take(current);
        if !done.is_empty() {
            games.push(done);
        }
    };
    while let Some(&c) = lx.chars.peek() {
        let line = lx.line;
        if c == '%' && lx.at_line_start {
            lx.skip_line();
            continue;
        }
        if current.is_empty() {
            current.line = line;
        }
        match c {
            c if c.is_whitespace() => {
                lx.next();
            }
            '[' => {
                lx.next();
                let (name, value) = lx.tag(line)?;
                if current.has_moves || current.tag(&name).is_some() {
                    finish(&mut current);
                    current.line = line;
                }
                current.tags.push((name, value, line));
            }
            '{' => {
                lx.next();
                lx.skip_comment(line)?;
            }
            ';' => lx.skip_line(),
            '(' => {
                let mut depth = 0u32;
                loop {
                    match lx.next() {
                        Some('(') => depth += 1,
                        Some(')') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        Some('{') => lx.skip_comment(lx.line)?,
                        Some(_) => {}
                        None => return Err((line, "a `(` variation is never closed".into())),
                    }
                }
            }
            ')' | ']' | '}' => return Err((line, format!("unexpected `{c}`"))),
            _ => {
                let mut token = String::new();
                while let Some(&c) = lx.chars.peek() {
                    if c.is_whitespace() || "[]{}();".contains(c) {
                        break;
                    }
                    token.push(c);
                    lx.next();
                }
                if parse_score(&token).is_some() && token.contains(['-', '*']) {
                    current.marker = Some((token, line));
                    finish(&mut current);
                } else {
                    current.has_moves = true;
                }
            }
        }
    }
    finish(&mut current);
    Ok(games)
}

/// Games of a PGN file: the rated ones, the count of unfinished ones and the count of all.
fn pgn_games(text: &str) -> Result<(Vec<Raw>, usize, usize), (u64, String)> {
    let games = pgn_split(text)?;
    let total = games.len();
    let (mut raws, mut unfinished) = (Vec::new(), 0);
    for (position, g) in games.iter().enumerate() {
        let at = g.line;
        let tag_score = match g.tag("Result") {
            Some((value, line)) => Some(parse_score(value).ok_or_else(|| {
                (
                    line,
                    format!("unknown result `{value}` in the Result tag (expected 1-0, 0-1, 1/2-1/2 or *)"),
                )
            })?),
            None => None,
        };
        let marker_score = g
            .marker
            .as_ref()
            .map(|(m, l)| (parse_score(m).unwrap_or(Score::Unfinished), *l));
        let score = match (tag_score, marker_score) {
            (Some(t), Some((m, line))) if t != m => {
                return Err((
                    line,
                    format!(
                        "the game's Result tag says {} but its move text ends with {}",
                        g.tag("Result").map_or("", |r| r.0),
                        g.marker.as_ref().map_or("", |m| m.0.as_str())
                    ),
                ));
            }
            (Some(t), _) => t,
            (None, Some((m, _))) => m,
            (None, None) => {
                return Err((
                    at,
                    "the game has no Result tag and no result at the end of its move text".into(),
                ));
            }
        };
        let player = |name: &str| {
            g.tag(name)
                .map(|(v, l)| (v.trim().to_owned(), l))
                .ok_or_else(|| (at, format!("the game starting here has no {name} tag")))
        };
        let (first, line) = player("White")?;
        let (second, _) = player("Black")?;
        check_players(&first, &second).map_err(|m| (line, m))?;
        let result = match score {
            Score::Finished(r) => r,
            Score::Unfinished => {
                unfinished += 1;
                continue;
            }
        };
        let known = |name: &str| {
            g.tag(name)
                .map(|(v, _)| v.trim())
                .filter(|v| !v.is_empty() && *v != "?")
                .map(str::to_owned)
        };
        raws.push(Raw {
            position,
            line: at,
            id: None,
            round: known("Round"),
            board: known("Site").unwrap_or_default(),
            game: known("Variant").unwrap_or_default(),
            pair: known("Pair"),
            first,
            second,
            result,
            termination: g.tag("Termination").and_then(|(t, _)| t.parse().ok()),
            event: g.tag("Event").map(|(e, _)| e.to_owned()),
        });
    }
    Ok((raws, unfinished, total))
}

// ---------------------------------------------------------------------------------------------
// Ids and pairs

/// Assigns game ids: the file's when every game has a numeric one (duplicates are an error),
/// else the position in the file.
fn assign_ids(
    raws: Vec<Raw>,
    file: &str,
    format: InputFormat,
) -> Result<Vec<(Raw, Imported)>, ImportError> {
    let numeric: Option<Vec<u64>> = raws
        .iter()
        .map(|r| r.id.as_deref().and_then(|i| i.parse().ok()))
        .collect();
    if let Some(ids) = &numeric {
        let mut seen: HashMap<u64, u64> = HashMap::new();
        for (id, raw) in ids.iter().zip(&raws) {
            if let Some(before) = seen.insert(*id, raw.line) {
                return Err(ImportError {
                    file: file.to_owned(),
                    line: Some(raw.line),
                    message: format!("game id {id} is used twice (also on line {before})"),
                });
            }
        }
    }
    Ok(raws
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let game_id = numeric.as_ref().map_or(raw.position as u64, |ids| ids[i]);
            let round: u32 = raw
                .round
                .as_deref()
                .and_then(|r| r.split('.').next())
                .and_then(|r| r.parse().ok())
                .unwrap_or(0);
            let round_text = match (format, &raw.round, &numeric) {
                // CSV with numeric ids: arena's `round.game_id`.
                (InputFormat::Csv, _, Some(_)) => format!("{round}.{game_id}"),
                // Else the round as written.
                (_, Some(r), _) => r.clone(),
                (_, None, _) => "?".into(),
            };
            let imported = Imported {
                record: GameRecord {
                    game_id,
                    round,
                    board: raw.board.clone(),
                    game: raw.game.clone(),
                    pair: 0,
                    first: raw.first.clone(),
                    second: raw.second.clone(),
                    result: raw.result.to_owned(),
                    termination: raw.termination.unwrap_or(Termination::Normal),
                    plies: 0,
                    score_first: None,
                    score_second: None,
                    duration_ms: 0,
                    first_time_ms: 0,
                    second_time_ms: 0,
                    start_fen: String::new(),
                    moves: String::new(),
                    detail: String::new(),
                },
                event: raw.event.clone(),
                round_text,
                termination_known: raw.termination.is_some(),
            };
            (raw, imported)
        })
        .collect())
}

/// Whether two games have the same board and swapped players.
fn swapped(a: &Raw, b: &Raw) -> bool {
    a.first == b.second && a.second == b.first && a.board == b.board && a.game == b.game
}

/// Pairs (indices into `raws`) by consecutive file positions 2k, 2k+1. The flag says whether
/// every such pair with both games rated swaps players.
fn consecutive_pairs(raws: &[&Raw]) -> (Vec<(usize, usize)>, bool) {
    let by_position: BTreeMap<usize, usize> = raws
        .iter()
        .enumerate()
        .map(|(i, r)| (r.position, i))
        .collect();
    let mut pairs = Vec::new();
    let mut consistent = true;
    for (&position, &i) in &by_position {
        if position % 2 == 1 {
            continue;
        }
        if let Some(&j) = by_position.get(&(position + 1)) {
            if swapped(raws[i], raws[j]) {
                pairs.push((i, j));
            } else {
                consistent = false;
            }
        }
    }
    (pairs, consistent)
}

/// Pairs by (round, board, players): groups of exactly two swapped games. The flag says
/// whether every group fits (has a round, at most two games, swapped when two).
fn round_pairs(raws: &[&Raw]) -> (Vec<(usize, usize)>, bool) {
    let mut groups: BTreeMap<(&str, &str, &str, &str, &str), Vec<usize>> = BTreeMap::new();
    let mut consistent = true;
    for (i, r) in raws.iter().enumerate() {
        let Some(round) = r.round.as_deref() else {
            consistent = false;
            continue;
        };
        let (lo, hi) = if r.first < r.second {
            (&r.first, &r.second)
        } else {
            (&r.second, &r.first)
        };
        groups
            .entry((round, &r.game, &r.board, lo, hi))
            .or_default()
            .push(i);
    }
    let mut pairs = Vec::new();
    for members in groups.values() {
        match members[..] {
            [i, j] if swapped(raws[i], raws[j]) => pairs.push((i, j)),
            [_] => {}
            _ => consistent = false,
        }
    }
    pairs.sort_unstable();
    (pairs, consistent)
}

/// Sets every record's `pair` (cluster id) and says how.
fn assign_pairs(
    games: Vec<(Raw, Imported)>,
    mode: PairMode,
    notes: &mut Vec<String>,
) -> (Vec<Imported>, Pairing) {
    let raws: Vec<&Raw> = games.iter().map(|(r, _)| r).collect();
    let given = raws.iter().any(|r| r.pair.is_some());
    let pairing = match mode {
        PairMode::Auto if given => Pairing::Given,
        PairMode::Auto => {
            let (pairs, consistent) = consecutive_pairs(&raws);
            let (round, round_consistent) = round_pairs(&raws);
            if consistent && !pairs.is_empty() {
                Pairing::Consecutive
            } else if round_consistent && !round.is_empty() {
                Pairing::Round
            } else {
                Pairing::None
            }
        }
        PairMode::Consecutive => Pairing::Consecutive,
        PairMode::Round => Pairing::Round,
        PairMode::None => Pairing::None,
    };
    let mut cluster: Vec<Option<u64>> = vec![None; raws.len()];
    let how = match pairing {
        Pairing::Given => {
            let keys: Vec<Option<&str>> = raws.iter().map(|r| r.pair.as_deref()).collect();
            let numeric: Option<Vec<u64>> = keys
                .iter()
                .flatten()
                .map(|k| k.parse::<u64>().ok())
                .collect();
            let mut text_ids: BTreeMap<&str, u64> = BTreeMap::new();
            for (i, key) in keys.iter().enumerate() {
                if let Some(key) = key {
                    cluster[i] = Some(match &numeric {
                        Some(_) => key.parse().unwrap_or_default(),
                        None => {
                            let next = text_ids.len() as u64;
                            *text_ids.entry(key).or_insert(next)
                        }
                    });
                }
            }
            "from the file's pair column or Pair tags"
        }
        Pairing::Consecutive | Pairing::Round => {
            let (pairs, _) = if pairing == Pairing::Consecutive {
                consecutive_pairs(&raws)
            } else {
                round_pairs(&raws)
            };
            for (k, (i, j)) in pairs.into_iter().enumerate() {
                cluster[i] = Some(k as u64);
                cluster[j] = Some(k as u64);
            }
            if pairing == Pairing::Consecutive {
                "consecutive games with swapped players"
            } else {
                "games of the same round with swapped players"
            }
        }
        Pairing::None => "none: every game counts on its own",
    };
    // Unpaired games get their own clusters after every pair's.
    let mut next = cluster.iter().flatten().max().map_or(0, |m| m + 1);
    let mut unpaired = 0;
    let mut sizes: BTreeMap<u64, usize> = BTreeMap::new();
    for c in cluster.iter().flatten() {
        *sizes.entry(*c).or_default() += 1;
    }
    let pairs = sizes.values().filter(|&&n| n == 2).count();
    let games: Vec<Imported> = games
        .into_iter()
        .zip(cluster)
        .map(|((_, mut imported), c)| {
            imported.record.pair = c.unwrap_or_else(|| {
                unpaired += 1;
                next += 1;
                next - 1
            });
            imported
        })
        .collect();
    let mut note = format!("game pairs: {how}");
    if pairing != Pairing::None {
        note.push_str(&format!("; {pairs} pair{}", plural(pairs)));
        if unpaired > 0 {
            note.push_str(&format!(", {unpaired} game{} unpaired", plural(unpaired)));
        }
    }
    notes.push(note);
    (games, pairing)
}

// ---------------------------------------------------------------------------------------------
// The run beside the file

/// What `arena ratings` takes from the run that wrote a `games.csv` or `results.pgn`
/// (`config.resolved.yaml` in the same directory), so that it writes what the run wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunContext {
    /// Tournament name (PGN `Event`).
    pub name: Option<String>,
    /// Engines in config order (the order of `pairs.csv` rows and of each row's two engines).
    pub engines: Vec<String>,
    /// The config's anchor: engine and Elo.
    pub anchor: Option<(String, f64)>,
    /// The config's confidence level.
    pub confidence: Option<f64>,
}

#[derive(serde::Deserialize)]
struct ResolvedEngine {
    name: String,
}

#[derive(serde::Deserialize)]
struct ResolvedAnchor {
    engine: String,
    elo: f64,
}

/// The keys of `config.resolved.yaml` that ratings depend on; any other key is ignored, so a
/// file written by another arena version still reads.
#[derive(serde::Deserialize)]
struct Resolved {
    name: Option<String>,
    #[serde(default)]
    engines: Vec<ResolvedEngine>,
    anchor: Option<ResolvedAnchor>,
    confidence: Option<f64>,
}

/// The file a run writes its resolved config to, beside `games.csv`.
pub const RESOLVED_CONFIG: &str = "config.resolved.yaml";

/// Reads [`RESOLVED_CONFIG`] in `dir`, if there is one that parses.
pub fn run_context(dir: &Path) -> Option<RunContext> {
    let text = std::fs::read_to_string(dir.join(RESOLVED_CONFIG)).ok()?;
    let resolved: Resolved = serde_yaml::from_str(&text).ok()?;
    Some(RunContext {
        name: resolved.name,
        engines: resolved.engines.into_iter().map(|e| e.name).collect(),
        anchor: resolved.anchor.map(|a| (a.engine, a.elo)),
        confidence: resolved.confidence,
    })
}

/// The largest |ELO| of `--anchor`: far beyond any rating list, small enough that every
/// rating and interval written from it stays finite.
pub const MAX_ANCHOR: f64 = 1e6;

/// Parses `--anchor NAME=ELO` (`NAME` alone means 0).
///
/// # Errors
/// A message naming the argument when the name is empty or the rating is not a finite number.
pub fn parse_anchor(text: &str) -> Result<(String, f64), String> {
    let (name, elo) = text.rsplit_once('=').unwrap_or((text, "0"));
    let elo: f64 = elo
        .trim()
        .parse()
        .map_err(|_| format!("--anchor {text}: expected NAME=ELO, ELO a number"))?;
    if !elo.is_finite() || elo.abs() > MAX_ANCHOR {
        return Err(format!(
            "--anchor {text}: the rating must be a finite number within ±{MAX_ANCHOR}"
        ));
    }
    if name.trim().is_empty() {
        return Err(format!(
            "--anchor {text}: expected NAME=ELO, NAME an engine"
        ));
    }
    Ok((name.trim().to_owned(), elo))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(text: &str) -> Result<Import, ImportError> {
        parse(text, "t.csv", InputFormat::Csv, PairMode::Auto)
    }

    fn pgn(text: &str) -> Result<Import, ImportError> {
        parse(text, "t.pgn", InputFormat::Pgn, PairMode::Auto)
    }

    fn line_of(e: ImportError) -> (Option<u64>, String) {
        (e.line, e.message)
    }

    #[test]
    fn minimal_csv_with_short_results_and_text_ids() {
        let i = csv(
            "white,black,result,game_id,note\na,b,1,g1,x\nb,a,=,g2,y\na,c,0,g3,\nc,a,0.5,g4,\n",
        )
        .unwrap();
        let results: Vec<&str> = i.games.iter().map(|g| g.record.result.as_str()).collect();
        assert_eq!(results, ["1-0", "1/2-1/2", "0-1", "1/2-1/2"]);
        // Text ids: positions.
        let ids: Vec<u64> = i.games.iter().map(|g| g.record.game_id).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(i.pairing, Pairing::Consecutive);
        let pairs: Vec<u64> = i.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 1]);
        assert!(!i.games[0].termination_known);
    }

    #[test]
    fn semicolons_bom_and_crlf() {
        let i = csv("\u{feff}First;Second;Result\r\na;b;1-0\r\n").unwrap();
        assert_eq!(i.games[0].record.first, "a");
        assert_eq!(i.pairing, Pairing::None);
    }

    #[test]
    fn csv_errors_name_the_line() {
        assert_eq!(
            line_of(csv("first,second,result\na,b,1-0\na,b,banana\n").unwrap_err()),
            (
                Some(3),
                "unknown result `banana` (expected 1-0, 0-1, 1/2-1/2, 1, 0, 0.5, = or *)".into()
            )
        );
        assert_eq!(
            line_of(csv("first,second,result\na,a,1-0\n").unwrap_err()),
            (Some(2), "engine `a` plays itself".into())
        );
        let (line, message) = line_of(csv("white,blak,result\na,b,1-0\n").unwrap_err());
        assert_eq!(line, Some(1));
        assert!(
            message.starts_with("no `second` or `black` column"),
            "{message}"
        );
        assert_eq!(
            line_of(csv("game_id,first,second,result\n4,a,b,1\n4,b,a,0\n").unwrap_err()),
            (Some(3), "game id 4 is used twice (also on line 2)".into())
        );
        assert_eq!(
            line_of(csv("first,second,result\n").unwrap_err()),
            (None, "nothing to rate: no rows found".into())
        );
        assert_eq!(
            line_of(csv("first,second,result\na,b,*\n").unwrap_err()),
            (
                None,
                "nothing to rate: all 1 rows are unfinished (`*`)".into()
            )
        );
        // The error message names the file and line.
        let e = csv("first,second,result\na,,1\n").unwrap_err();
        assert_eq!(e.to_string(), "t.csv:2: a game needs two named players");
    }

    #[test]
    fn a_cut_off_last_row_is_dropped_with_a_note() {
        let i = csv("first,second,result\na,b,1-0\nb,a,0-").unwrap();
        assert_eq!(i.games.len(), 1);
        assert!(i.notes[0].contains("line 3"), "{:?}", i.notes);
        // Without a line end but complete: kept (hand-written files often end so).
        assert_eq!(csv("first,second,result\na,b,1-0").unwrap().games.len(), 1);
    }

    #[test]
    fn pgn_with_moves_comments_variations_and_unfinished_games() {
        let text = r#"[Event "e"]
[Site "?"]
[Round "1"]
[White "x \"the\" engine"]
[Black "y"]
[Result "1-0"]

1. e4 {a comment
[with a bracket]} e5 (1... c5 {x} (1... d5)) 2. Nf3 ; rest of line 0-1
% escape line
1-0

[White "y"]
[Black "x \"the\" engine"]
[Result "*"]

1. d4 *

[White "y"]
[Black "x \"the\" engine"]
[Result "1/2-1/2"]
"#;
        let i = pgn(text).unwrap();
        assert_eq!(i.games.len(), 2);
        assert_eq!(i.games[0].record.first, "x \"the\" engine");
        assert_eq!(i.games[0].record.board, "");
        assert_eq!(i.games[0].event.as_deref(), Some("e"));
        assert_eq!(i.games[0].round_text, "1");
        assert_eq!(i.games[1].record.result, "1/2-1/2");
        assert_eq!(i.games[1].record.game_id, 2);
        assert_eq!(i.notes[0], "1 unfinished game (`*`) skipped");
        // Positions 0 and 1 would pair, but 1 is unfinished: nothing is paired.
        assert_eq!(i.pairing, Pairing::None);
    }

    #[test]
    fn tag_only_games_without_markers_are_split_on_repeated_tags() {
        let i = pgn("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n").unwrap();
        assert_eq!(i.games.len(), 2);
        assert_eq!(i.pairing, Pairing::Consecutive);
    }

    #[test]
    fn pgn_errors_name_the_line() {
        let cases = [
            (
                "[White \"a\"]\n[Black \"b\"]\n[Result \"banana\"]\n",
                3,
                "unknown result `banana`",
            ),
            (
                "[White \"a\"]\n[Black \"a\"]\n[Result \"1-0\"]\n",
                1,
                "engine `a` plays itself",
            ),
            (
                "\n[White \"a\"]\n[Result \"1-0\"]\n",
                2,
                "the game starting here has no Black tag",
            ),
            (
                "[White \"a]\n",
                1,
                "tag White: the value has no closing quote",
            ),
            (
                "[White a]\n",
                1,
                "tag White: expected a value in double quotes",
            ),
            (
                "[White \"a\"]\n[Black \"b\"]\n\n1. e4 {never closed\n",
                4,
                "a `{` comment is never closed",
            ),
            (
                "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 0-1\n",
                5,
                "the game's Result tag says 1-0 but its move text ends with 0-1",
            ),
            (
                "[White \"a\"]\n[Black \"b\"]\n\n1. e4\n",
                1,
                "the game has no Result tag",
            ),
            (
                "[White \"a\"]\n[Black \"b\"]\n1. e4 ) 1-0\n",
                3,
                "unexpected `)`",
            ),
        ];
        for (text, line, message) in cases {
            let e = pgn(text).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}: {e}");
            assert!(e.message.starts_with(message), "{text}: {e}");
        }
        assert_eq!(
            pgn("").unwrap_err().message,
            "nothing to rate: the file is empty"
        );
        assert_eq!(
            pgn("% only an escape line\n").unwrap_err().message,
            "nothing to rate: no games found"
        );
    }

    #[test]
    fn pair_modes() {
        // Round-robin order out of file order: pairs share a round and players.
        let text = "Round,first,second,result\n1,a,b,1\n1,c,d,1\n1,d,c,0\n1,b,a,0\n2,a,b,=\n";
        let i = csv(text).unwrap();
        assert_eq!(i.pairing, Pairing::Round);
        let pairs: Vec<u64> = i.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 1, 1, 0, 2]);
        let none = parse(text, "t.csv", InputFormat::Csv, PairMode::None).unwrap();
        let pairs: Vec<u64> = none.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 1, 2, 3, 4]);
        // Forced consecutive: positions (0, 1) and (2, 3) do not swap players.
        let c = parse(text, "t.csv", InputFormat::Csv, PairMode::Consecutive).unwrap();
        let pairs: Vec<u64> = c.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 1, 2, 3, 4]);
        // Only (0, 1) swaps; auto does not take consecutive pairs when some do not swap.
        let text = "first,second,result\na,b,1\nb,a,1\na,c,0\na,c,1\nc,a,=\n";
        let c = parse(text, "t.csv", InputFormat::Csv, PairMode::Consecutive).unwrap();
        let pairs: Vec<u64> = c.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 0, 1, 2, 3]);
        assert!(
            c.notes
                .last()
                .unwrap()
                .ends_with("1 pair, 3 games unpaired")
        );
        assert_eq!(csv(text).unwrap().pairing, Pairing::None);
        // A given pair column wins in auto mode; text keys are numbered.
        let g = csv("first,second,result,pair\na,b,1,p\nb,a,1,q\na,b,1,p\n").unwrap();
        assert_eq!(g.pairing, Pairing::Given);
        let pairs: Vec<u64> = g.games.iter().map(|g| g.record.pair).collect();
        assert_eq!(pairs, [0, 1, 0]);
        assert_eq!("round".parse::<PairMode>(), Ok(PairMode::Round));
        assert!("pairs".parse::<PairMode>().is_err());
    }

    #[test]
    fn numeric_game_columns_and_unique_sites() {
        let i = csv("game,white,black,result\n7,a,b,1\n8,b,a,0\n").unwrap();
        let ids: Vec<(u64, &str)> = i
            .games
            .iter()
            .map(|g| (g.record.game_id, g.record.game.as_str()))
            .collect();
        assert_eq!(ids, [(7, ""), (8, "")]);
        let named = csv("game,white,black,result\nawale,a,b,1\n").unwrap();
        assert_eq!(named.games[0].record.game, "awale");
        let game = |site: &str, white: &str, black: &str| {
            format!(
                "[Site \"{site}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"1-0\"]\n\n1-0\n\n"
            )
        };
        let boards = pgn(&(game("b1", "a", "b") + &game("b1", "b", "a"))).unwrap();
        assert_eq!(boards.games[1].record.board, "b1");
        let urls = pgn(&(game("https://x/1", "a", "b") + &game("https://x/2", "b", "a"))).unwrap();
        assert_eq!(urls.games[1].record.board, "");
        assert!(urls.notes[0].starts_with("Site tags are not boards"));
    }

    #[test]
    fn anchors_must_be_finite() {
        assert_eq!(parse_anchor("a=1500"), Ok(("a".into(), 1500.0)));
        assert_eq!(parse_anchor("a"), Ok(("a".into(), 0.0)));
        for bad in ["a=NaN", "a=inf", "a=-inf", "a=x", "=5"] {
            assert!(
                parse_anchor(bad)
                    .unwrap_err()
                    .starts_with(&format!("--anchor {bad}: "))
            );
        }
    }

    #[test]
    fn detection_by_extension_then_content() {
        assert_eq!(detect(Path::new("x.PGN"), "a,b"), InputFormat::Pgn);
        assert_eq!(detect(Path::new("x.csv"), "[a"), InputFormat::Csv);
        assert_eq!(detect(Path::new("x.txt"), "\n [Event"), InputFormat::Pgn);
        assert_eq!(detect(Path::new("x"), "first,second"), InputFormat::Csv);
    }
}
