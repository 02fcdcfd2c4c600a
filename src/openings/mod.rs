//! Opening suites: files of start positions that a board's rounds take in turn, so that every
//! engine pair of a round, and both legs of each game pair, start from the same (balanced)
//! position, as engine testers do with fastchess and cutechess-cli books.
//!
//! Owns the suite file format ([`parse`]), the loading and check of a board's `openings` key
//! (its types, [`OpeningsSpec`] and [`Suite`], live in [`crate::games::suite`] so board specs
//! can hold them) when a config is planned ([`resolve_boards`]), the choice of each round's
//! opening ([`Picker`]), and the `arena openings` generator ([`generate`]). Knows no game's
//! rules: positions are read, played and checked through [`AnyPosition`] and
//! [`BoardSpec::check_position`]. Does not touch the runner, referee or result records: an
//! opening is simply the start position of its round, as `random_opening_plies` makes one.
//!
//! File format: one opening a line, a position text of the board (`docs/games.md`, the text of
//! `position fen …` and of games.csv's `start` column), optionally followed by
//! `moves m1 m2 …` played from it; `#` at the start of a line or after a space starts a
//! comment (a `#` inside a position is an Amazons hole); blank lines are ignored.

pub mod generate;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

pub use crate::games::suite::{Opening, OpeningsSpec, Order, Suite};
use crate::games::{AnyPosition, BoardSpec, GameKind, SpecError};
use crate::seed;

/// A suite that cannot be used: the file, the line when one is at fault, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct SuiteError {
    /// The file as named in the config.
    pub file: String,
    /// The 1-based line at fault, if any.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// A line without its comment: from a `#` that starts the line or follows whitespace. A `#`
/// inside a position text (an Amazons hole) is not a comment.
fn strip_comment(line: &str) -> &str {
    let mut previous = None;
    for (i, c) in line.char_indices() {
        if c == '#' && previous.is_none_or(char::is_whitespace) {
            return &line[..i];
        }
        previous = Some(c);
    }
    line
}

/// Splits a suite line (comment already removed, trimmed) into its position text and moves.
fn split_line(content: &str) -> (&str, Vec<&str>) {
    let mut search = 0;
    while let Some(found) = content[search..].find("moves") {
        let at = search + found;
        let end = at + "moves".len();
        let before_ok = at > 0 && content[..at].ends_with(char::is_whitespace);
        let after_ok = content[end..].is_empty() || content[end..].starts_with(char::is_whitespace);
        if before_ok && after_ok {
            return (
                content[..at].trim_end(),
                content[end..].split_whitespace().collect(),
            );
        }
        search = end;
    }
    (content, Vec::new())
}

/// Reads one opening: the position text of `board`'s game, checked against the board, then
/// its moves, each legal; the result must not be over.
fn parse_line(content: &str, board: &BoardSpec) -> Result<AnyPosition, String> {
    let (fen, moves) = split_line(content);
    let kind = board.kind();
    let mut pos = match AnyPosition::from_fen(kind, fen) {
        Ok(pos) => pos,
        Err(e) => {
            // A position of another game reads better as such than as a malformed one.
            if let Some(other) = GameKind::ALL
                .into_iter()
                .find(|&k| k != kind && AnyPosition::from_fen(k, fen).is_ok())
            {
                return Err(format!(
                    "a {other} position, but board {} is {kind}",
                    board.name()
                ));
            }
            return Err(e.to_string());
        }
    };
    board.check_position(&pos).map_err(|e| e.to_string())?;
    for (i, mv) in moves.iter().enumerate() {
        if let Some(outcome) = pos.outcome() {
            return Err(format!(
                "move {} `{mv}`: the game is already over ({outcome:?})",
                i + 1
            ));
        }
        pos.play_text(mv)
            .map_err(|e| format!("move {} of the line: {e}", i + 1))?;
    }
    if let Some(outcome) = pos.outcome() {
        return Err(format!(
            "the game is already over in this opening ({outcome:?}); an opening must leave a game to play"
        ));
    }
    Ok(pos)
}

/// Reads a suite for `board` from `text`; `file` names it in errors.
///
/// # Errors
/// [`SuiteError`] with the line of the first opening that is not a position of the board, has
/// a malformed or illegal move, or is already over; without a line when the file holds no
/// opening at all.
pub fn parse(text: &str, file: &str, board: &BoardSpec) -> Result<Suite, SuiteError> {
    let mut openings = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let content = strip_comment(raw).trim();
        if content.is_empty() {
            continue;
        }
        let position = parse_line(content, board).map_err(|message| SuiteError {
            file: file.to_owned(),
            line: Some(i + 1),
            message,
        })?;
        openings.push(Opening {
            line: i + 1,
            position,
        });
    }
    if openings.is_empty() {
        return Err(SuiteError {
            file: file.to_owned(),
            line: None,
            message: "no opening: every line is blank or a comment".into(),
        });
    }
    Ok(Suite { openings })
}

/// FNV-1a 64 of `bytes`, written `fnv1a64:<16 hex digits>`: what [`OpeningsSpec::digest`]
/// holds. Detects edits, not tampering.
pub fn digest(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("fnv1a64:{hash:016x}")
}

/// Reads, checks and loads the suite of `spec` for `board`, with `base` the directory relative
/// paths are taken from; fills in `spec.digest` and `spec.suite`.
///
/// # Errors
/// [`SuiteError`] for an unreadable file, a bad line (see [`parse`]), a `start` outside the
/// suite, or a file that no longer matches a digest given in the config.
pub fn load(spec: &mut OpeningsSpec, base: &Path, board: &BoardSpec) -> Result<(), SuiteError> {
    let file = spec.file.display().to_string();
    let fail = |message: String| SuiteError {
        file: file.clone(),
        line: None,
        message,
    };
    let bytes =
        std::fs::read(base.join(&spec.file)).map_err(|e| fail(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes.clone()).map_err(|_| fail("not UTF-8 text".into()))?;
    let suite = parse(&text, &file, board)?;
    let count = suite.openings.len();
    match spec.order {
        Order::Sequential if spec.start == 0 || spec.start as usize > count => {
            return Err(fail(format!(
                "start {} is not an opening number: the suite has {count} (1..={count})",
                spec.start
            )));
        }
        Order::Random if spec.start != 1 => {
            return Err(fail(
                "start is for order: sequential; a random order starts nowhere in particular"
                    .into(),
            ));
        }
        _ => {}
    }
    let found = digest(&bytes);
    if let Some(recorded) = &spec.digest {
        if *recorded != found {
            return Err(fail(format!(
                "the file changed: its digest is {found}, the config records {recorded}"
            )));
        }
    }
    spec.digest = Some(found);
    spec.suite = Some(Arc::new(suite));
    Ok(())
}

/// Loads the suite of every board that has `openings`, relative to `base`: what
/// [`crate::config::Config::plan`] calls, so a bad suite stops the run before any game.
///
/// # Errors
/// `boards[i] (name): openings: file:line: reason`.
pub fn resolve_boards(boards: &mut [BoardSpec], base: &Path) -> Result<(), String> {
    for (i, board) in boards.iter_mut().enumerate() {
        let probe = board.clone();
        if let Some(spec) = board.openings_mut() {
            load(spec, base, &probe)
                .map_err(|e| format!("boards[{i}] ({}): openings: {e}", probe.name()))?;
        }
    }
    Ok(())
}

impl OpeningsSpec {
    /// For `arena check`: `openings FILE (N openings, sequential from S)` or `(…, random)`.
    pub fn describe(&self) -> String {
        let count = self.suite.as_ref().map_or(0, |s| s.openings.len());
        let order = match self.order {
            Order::Sequential => format!("sequential from {}", self.start),
            Order::Random => "random".into(),
        };
        format!(
            "openings {} ({count} openings, {order})",
            self.file.display()
        )
    }
}

/// Chooses the opening of each round of one board. Rounds must be asked for in increasing
/// order for the shuffled order to be computed once per pass (any order gives the same
/// answers).
#[derive(Debug)]
pub struct Picker {
    suite: Arc<Suite>,
    order: Order,
    start: u32,
    /// With `random` order: the pass whose shuffle is held, and the shuffle.
    shuffled: Option<(u64, Vec<usize>)>,
}

impl Picker {
    /// A picker for `spec`, a key of `board`. A suite not loaded yet (a config read back
    /// from `config.resolved.yaml`, as a merge of shards does) is loaded now, relative to the
    /// current directory, and must match the recorded digest.
    ///
    /// # Errors
    /// [`SpecError`] when a suite that was not loaded cannot be (see [`load`]).
    pub fn new(spec: &OpeningsSpec, board: &BoardSpec) -> Result<Picker, SpecError> {
        let suite = match &spec.suite {
            Some(suite) => Arc::clone(suite),
            None => {
                let mut spec = spec.clone();
                load(&mut spec, Path::new(""), board)
                    .map_err(|e| SpecError(format!("board {}: openings: {e}", board.name())))?;
                spec.suite.expect("loaded")
            }
        };
        Ok(Picker {
            suite,
            order: spec.order,
            start: spec.start,
            shuffled: None,
        })
    }

    /// The opening of `round` (1-based). With `random` order, `pass_seed(p)` gives the seed
    /// of the shuffle of pass `p` (0-based), which must depend only on the tournament's seed,
    /// the board's name and `p`, so that longer and extended runs agree.
    pub fn pick(&mut self, round: u32, pass_seed: impl Fn(u64) -> u64) -> &Opening {
        let count = self.suite.openings.len();
        let r = u64::from(round.max(1) - 1);
        let index = match self.order {
            Order::Sequential => ((u64::from(self.start) - 1 + r) % count as u64) as usize,
            Order::Random => {
                let pass = r / count as u64;
                if self.shuffled.as_ref().is_none_or(|(p, _)| *p != pass) {
                    let mut rng = seed::rng(pass_seed(pass));
                    let mut order: Vec<usize> = (0..count).collect();
                    // Fisher–Yates with the portable reduction of `seed::below`.
                    for i in (1..count).rev() {
                        order.swap(i, seed::below(&mut rng, i + 1));
                    }
                    self.shuffled = Some((pass, order));
                }
                let (_, order) = self.shuffled.as_ref().expect("just filled");
                order[(r % count as u64) as usize]
            }
        };
        &self.suite.openings[index]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(yaml: &str) -> BoardSpec {
        serde_yaml::from_str(yaml).unwrap()
    }

    const AWALE6: &str = "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 no_capture";

    #[test]
    fn lines_comments_and_moves() {
        let b = board("{game: awale, pits: 6}");
        let text =
            format!("# a suite\n\n{AWALE6}\n{AWALE6} moves 3   # after one ply\n{AWALE6} moves\n");
        let suite = parse(&text, "s.txt", &b).unwrap();
        let lines: Vec<usize> = suite.openings.iter().map(|o| o.line).collect();
        assert_eq!(lines, [3, 4, 5]);
        assert_eq!(
            suite.openings[1].position.fen(),
            "4,4,0,5,5,5/5,4,4,4,4,4 0,0 2 no_capture"
        );
        assert_eq!(suite.openings[2].position.fen(), AWALE6);
    }

    #[test]
    fn bad_lines_name_the_line_and_the_reason() {
        let b = board("{game: awale, pits: 6}");
        let cases = [
            (
                format!("{AWALE6}\n4,4,4/4,4,4 0,0 1 no_capture\n"),
                2,
                "3 pits a row, the board has 6",
            ),
            (
                format!("# x\n{AWALE6} moves 3 9\n"),
                2,
                "move 2 of the line",
            ),
            (
                "AB2/CDC/1FA 1 plane\n".into(),
                1,
                "a seven_colors position, but board awale-6 is awale",
            ),
            (
                "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1\n".into(),
                1,
                "invalid awale position",
            ),
            (
                "4,4,4,4,4,4/4,4,4,4,4,4 0,0 1 capture\n".into(),
                1,
                "grand slam rule capture",
            ),
            (
                "0,0,0,0,0,0/0,0,0,0,0,0 24,24 1 no_capture\n".into(),
                1,
                "already over",
            ),
        ];
        for (text, line, message) in cases {
            let err = parse(&text, "s.txt", &b).unwrap_err();
            assert_eq!(err.line, Some(line), "{err}");
            assert!(
                err.to_string().starts_with(&format!("s.txt:{line}: ")),
                "{err}"
            );
            assert!(err.message.contains(message), "{err} lacks {message}");
        }
        let err = parse("# only\n\n", "s.txt", &b).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.txt: no opening: every line is blank or a comment"
        );
    }

    #[test]
    fn boards_of_other_games_check_their_shape() {
        let square = board("{game: amazons, shape: square, width: 6, queens: 4}");
        let donut = board("{game: amazons, shape: donut, width: 6, queens: 4}");
        let start = square.start_position(1).unwrap().fen();
        assert!(parse(&start, "s", &square).is_ok());
        // Holes are `#` too: only a `#` at the start or after a space is a comment.
        let holes = donut.start_position(1).unwrap().fen();
        let suite = parse(&format!("#c\n{holes} # c\n{holes}#x\n"), "s", &donut);
        assert!(suite.is_err(), "`#x` glued to the text is not a comment");
        let suite = parse(&format!("#c\n{holes} # c\n {holes}\n"), "s", &donut).unwrap();
        assert_eq!(suite.openings.len(), 2);
        assert_eq!(suite.openings[0].position.fen(), holes);
        let err = parse(&start, "s", &donut).unwrap_err();
        assert!(
            err.message.contains("not a hole, but one on a donut board"),
            "{err}"
        );
        let sc = board("{game: seven_colors, size: 8}");
        let torus = board("{game: seven_colors, size: 8, topology: torus}");
        let start = sc.start_position(3).unwrap().fen();
        assert!(parse(&start, "s", &sc).is_ok());
        assert!(
            parse(&start, "s", &torus)
                .unwrap_err()
                .message
                .contains("a plane board")
        );
        let small = board("{game: seven_colors, size: 9}");
        assert!(
            parse(&start, "s", &small)
                .unwrap_err()
                .message
                .contains("8x8")
        );
    }

    fn suite_of(n: usize) -> OpeningsSpec {
        let b = board("{game: awale, pits: 6}");
        let mut pos = b.start_position(0).unwrap();
        let mut text = String::new();
        for _ in 0..n {
            text.push_str(&pos.fen());
            text.push('\n');
            let mv = pos.legal_move_texts()[0].clone();
            pos.play_text(&mv).unwrap();
        }
        OpeningsSpec {
            file: "s".into(),
            order: Order::Sequential,
            start: 1,
            digest: None,
            suite: Some(Arc::new(parse(&text, "s", &b).unwrap())),
        }
    }

    #[test]
    fn sequential_wraps_from_start_and_random_covers_each_pass() {
        let mut spec = suite_of(4);
        spec.start = 3;
        let mut picker = Picker::new(&spec, &board("{game: awale, pits: 6}")).unwrap();
        let lines: Vec<usize> = (1..=6).map(|r| picker.pick(r, |_| 0).line).collect();
        assert_eq!(lines, [3, 4, 1, 2, 3, 4]);
        spec.order = Order::Random;
        spec.start = 1;
        let mut picker = Picker::new(&spec, &board("{game: awale, pits: 6}")).unwrap();
        let lines: Vec<usize> = (1..=8).map(|r| picker.pick(r, |p| p + 7).line).collect();
        for pass in lines.chunks(4) {
            let mut sorted = pass.to_vec();
            sorted.sort_unstable();
            assert_eq!(sorted, [1, 2, 3, 4], "{lines:?}");
        }
        // Asking out of order gives the same answers (a shard or an extension).
        let mut again = Picker::new(&spec, &board("{game: awale, pits: 6}")).unwrap();
        assert_eq!(again.pick(7, |p| p + 7).line, lines[6]);
        assert_eq!(again.pick(2, |p| p + 7).line, lines[1]);
    }

    #[test]
    fn a_suite_not_yet_loaded_is_read_and_checked_against_its_digest() {
        let b = board("{game: awale, pits: 6}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.txt");
        std::fs::write(&file, format!("{AWALE6} moves 2\n")).unwrap();
        let mut spec = OpeningsSpec {
            file: file.clone(),
            order: Order::Sequential,
            start: 1,
            digest: Some(digest(format!("{AWALE6} moves 2\n").as_bytes())),
            suite: None,
        };
        let line = Picker::new(&spec, &b).unwrap().pick(1, |_| 0).line;
        assert_eq!(line, 1);
        spec.digest = Some(digest(b"other"));
        let err = Picker::new(&spec, &b).unwrap_err().to_string();
        assert!(err.starts_with("board awale-6: openings: "), "{err}");
        assert!(err.contains("the file changed"), "{err}");
    }

    #[test]
    fn digest_is_fnv1a() {
        // FNV-1a 64 of "a" (the published test vector).
        assert_eq!(digest(b"a"), "fnv1a64:af63dc4c8601ec8c");
        assert_eq!(digest(b""), "fnv1a64:cbf29ce484222325");
    }
}
