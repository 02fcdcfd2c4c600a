//! The PGN reader: a lexer of tag pairs, comments, variations and move text (PGN standard,
//! 1994), games split at result markers or repeated tags, into rows with their lines. Moves
//! are not interpreted: only hashed, to find games that repeat others.

use std::hash::{Hash, Hasher};

use super::{Raw, Score, check_players, parse_score};

/// One game of a PGN file as lexed: its tags (name, value, line) and the result marker that
/// ended its move text.
#[derive(Debug, Default)]
struct PgnGame {
    line: u64,
    tags: Vec<(String, String, u64)>,
    marker: Option<(String, u64)>,
    has_moves: bool,
    /// Hash of the move text's tokens (move numbers and NAGs left out), in order.
    moves: std::collections::hash_map::DefaultHasher,
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
struct Lexer<I: Iterator<Item = char>> {
    chars: std::iter::Peekable<I>,
    line: u64,
    at_line_start: bool,
}

impl<I: Iterator<Item = char>> Lexer<I> {
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
fn pgn_split(
    chars: impl Iterator<Item = char>,
    mut each: impl FnMut(PgnGame) -> Result<(), (u64, String)>,
) -> Result<(), (u64, String)> {
    let mut lx = Lexer {
        chars: chars.peekable(),
        line: 1,
        at_line_start: true,
    };
    let mut current = PgnGame::default();
    let mut finish = |current: &mut PgnGame| {
        let done = std::mem::take(current);
        if done.is_empty() { Ok(()) } else { each(done) }
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
                    finish(&mut current)?;
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
                    finish(&mut current)?;
                } else {
                    current.has_moves = true;
                    // `12.`, `12...` and `12.e4` number moves; `$1` is an annotation.
                    let bare = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
                    let bare = if token.contains('.') {
                        bare
                    } else {
                        token.as_str()
                    };
                    if !bare.is_empty() && !bare.starts_with('$') {
                        bare.hash(&mut current.moves);
                    }
                }
            }
        }
    }
    finish(&mut current)
}

/// The games of a PGN text, one by one: each rated game goes to `each` as soon as the lexer
/// has it, so that neither the text nor the games' tags are held (a 500,000-game file held its
/// tags in 600 MB). Returns the count of unfinished games and of all games.
///
/// # Errors
/// The line and message of the first malformed game, or what `each` returned.
pub(super) fn pgn_games(
    chars: impl Iterator<Item = char>,
    mut each: impl FnMut(Raw) -> Result<(), (u64, String)>,
) -> Result<(usize, usize), (u64, String)> {
    let (mut unfinished, mut total) = (0, 0);
    pgn_split(chars, |g| {
        match raw_of(total, &g)? {
            Some(raw) => each(raw)?,
            None => unfinished += 1,
        }
        total += 1;
        Ok(())
    })?;
    Ok((unfinished, total))
}

/// One game as a row; `None` for an unfinished one (`*`).
///
/// # Errors
/// The line and message of a result, player or tag that is wrong.
fn raw_of(position: usize, g: &PgnGame) -> Result<Option<Raw>, (u64, String)> {
    let at = g.line;
    let tag_score = match g.tag("Result") {
        Some((value, line)) => Some(parse_score(value).ok_or_else(|| {
            (
                line,
                format!(
                    "unknown result `{value}` in the Result tag (expected 1-0, 0-1, 1/2-1/2 or *)"
                ),
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
        Score::Unfinished => return Ok(None),
    };
    let known = |name: &str| {
        g.tag(name)
            .map(|(v, _)| v.trim())
            .filter(|v| !v.is_empty() && *v != "?")
            .map(str::to_owned)
    };
    Ok(Some(Raw {
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
        // Move text, else arena's `RepeatGroup` tag of a tag-only results.pgn (games of one
        // group are the same game).
        fingerprint: if g.has_moves {
            let mut h = g.moves.clone();
            g.tag("FEN").map_or("", |(f, _)| f.trim()).hash(&mut h);
            Some(h.finish())
        } else {
            g.tag("RepeatGroup")
                .map(|(v, _)| crate::repeats::fingerprint("RepeatGroup", [v.trim()]))
        },
    }))
}
