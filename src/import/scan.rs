//! The first pass over a file: every rated game as a [`Row`] of a few numbers (names interned,
//! moves hashed), then what the columns or tags mean, the ids, the game pairs and the repeats,
//! into [`Observation`]s. Nothing of a game is kept as text, so memory grows by tens of bytes
//! a game, not by the game's size.

use crate::games::Outcome;
use crate::record::Termination;
use crate::standings::observed::{Interner, Names, Observation};

use super::{ImportError, InputFormat, Observed, Plan, Raw, Source, each_raw, pairs, plural};

/// A short text (a `Round` or `Pair` value) in 12 bytes: up to 11 bytes inline, a longer one
/// numbered in an [`Interner`]. Equal texts give equal keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Key([u8; 12]);

/// The last byte of a [`Key`] whose text is in the interner.
const LONG: u8 = 0xFF;

impl Key {
    pub(super) fn new(text: &str, long: &mut Interner) -> Key {
        let mut bytes = [0u8; 12];
        if text.len() < bytes.len() {
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            bytes[11] = text.len() as u8;
        } else {
            bytes[..4].copy_from_slice(&long.intern(text).to_le_bytes());
            bytes[11] = LONG;
        }
        Key(bytes)
    }

    pub(super) fn text<'a>(&'a self, long: &'a Interner) -> &'a str {
        match self.0[11] {
            LONG => long.name(u32::from_le_bytes([
                self.0[0], self.0[1], self.0[2], self.0[3],
            ])),
            // Made from a `&str` whose length fits: valid UTF-8.
            n => std::str::from_utf8(&self.0[..usize::from(n)]).unwrap_or_default(),
        }
    }
}

/// One rated game as the first pass keeps it.
#[derive(Clone, Debug)]
pub(super) struct Row {
    /// Position in the file among all games, unfinished ones included.
    pub(super) position: u64,
    /// [`super::Imported::fingerprint`].
    pub(super) fingerprint: Option<u64>,
    /// The round as written (for pairing by round).
    pub(super) round: Option<Key>,
    /// The `pair` column or `Pair` tag.
    pub(super) pair: Option<Key>,
    /// Indices into [`Names::engines`].
    pub(super) first: u32,
    pub(super) second: u32,
    /// Indices into [`Names::games`] and [`Names::boards`].
    pub(super) game: u32,
    pub(super) board: u32,
    pub(super) outcome: Outcome,
    pub(super) termination: Option<Termination>,
}

/// The first pass over `source`.
///
/// # Errors
/// As [`super::read`].
pub(super) fn scan(
    source: Source<'_>,
    file: &str,
    format: InputFormat,
    mode: super::PairMode,
) -> Result<Observed, ImportError> {
    let mut read = read_rows(source, file, format)?;
    let mut plan = meanings(&mut read, format);
    let Read {
        rows,
        mut names,
        long,
        ids,
        lines,
        terminations_known,
        mut notes,
        ..
    } = read;
    if let Some(ids) = &ids {
        duplicate_id(ids, &lines).map_or(Ok(()), |(id, line, before)| {
            Err(ImportError {
                file: file.to_owned(),
                line: Some(line),
                message: format!("game id {id} is used twice (also on line {before})"),
            })
        })?;
        plan.numeric_ids = true;
    }
    drop(lines);
    let game_ids: Vec<u64> = ids.unwrap_or_else(|| rows.iter().map(|r| r.position).collect());
    let (clusters, pairing) = pairs::assign_pairs(&rows, mode, &long, &mut notes);
    drop(long);
    let canonical = canonical_ids(&rows, &game_ids);
    let mut games = observations(rows, &mut names, &game_ids, &clusters, &canonical);
    drop((game_ids, clusters, canonical));
    games.sort_by_key(|g| g.game_id);
    Ok(Observed {
        games,
        names,
        format,
        pairing,
        notes,
        terminations_known,
        plan,
    })
}

/// The rows of a file as the first pass reads them, with what it learnt on the way.
struct Read {
    rows: Vec<Row>,
    names: Names,
    /// Long `Round` and `Pair` texts.
    long: Interner,
    /// The CSV's id column as numbers while every row has one (PGN has none).
    ids: Option<Vec<u64>>,
    /// Each CSV row's line, for the error naming an id used twice.
    lines: Vec<u64>,
    /// Whether some row has an id.
    any_id: bool,
    /// Whether every row's game is a number.
    games_numeric: bool,
    /// Whether every row says how its game ended.
    terminations_known: bool,
    notes: Vec<String>,
}

/// Reads every rated row of `source`; refuses a file with none.
///
/// # Errors
/// As [`super::read`].
fn read_rows(source: Source<'_>, file: &str, format: InputFormat) -> Result<Read, ImportError> {
    let mut read = Read {
        rows: Vec::new(),
        names: Names::default(),
        long: Interner::default(),
        ids: Some(Vec::new()),
        lines: Vec::new(),
        any_id: false,
        games_numeric: true,
        terminations_known: true,
        notes: Vec::new(),
    };
    let mut notes = Vec::new();
    let (unfinished, total) = each_raw(source, file, format, &mut notes, |raw: Raw| {
        let r = &mut read;
        r.any_id |= raw.id.is_some();
        let number = |g: &str| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit());
        r.games_numeric &= number(&raw.game);
        r.ids = r.ids.take().and_then(|mut v| {
            v.push(raw.id.as_deref()?.parse().ok()?);
            Some(v)
        });
        if format == InputFormat::Csv {
            r.lines.push(raw.line);
        }
        r.terminations_known &= raw.termination.is_some();
        r.rows.push(Row {
            position: raw.position as u64,
            fingerprint: raw.fingerprint,
            round: raw.round.as_deref().map(|x| Key::new(x, &mut r.long)),
            pair: raw.pair.as_deref().map(|x| Key::new(x, &mut r.long)),
            first: r.names.engines.intern(&raw.first),
            second: r.names.engines.intern(&raw.second),
            game: r.names.games.intern(&raw.game),
            board: r.names.boards.intern(&raw.board),
            outcome: Outcome::from_result_str(raw.result).expect("a canonical result"),
            termination: raw.termination,
        });
        Ok(())
    })?;
    read.notes = notes;
    if unfinished > 0 {
        read.notes.push(format!(
            "{unfinished} unfinished game{} (`*`) skipped",
            plural(unfinished)
        ));
    }
    if read.rows.is_empty() {
        let what = match format {
            InputFormat::Csv => "rows",
            InputFormat::Pgn => "games",
        };
        return Err(ImportError {
            file: file.to_owned(),
            line: None,
            message: if total == 0 {
                format!("nothing to rate: no {what} found")
            } else {
                format!("nothing to rate: all {total} {what} are unfinished (`*`)")
            },
        });
    }
    read.rows.shrink_to_fit();
    Ok(read)
}

/// What the columns or tags of the whole file mean: a CSV's numeric `game` column as the ids,
/// PGN `Site` tags as boards or not. Changes the rows to match; says so in the notes.
fn meanings(read: &mut Read, format: InputFormat) -> Plan {
    let empty_game = read.names.games.intern("");
    let empty_board = read.names.boards.intern("");
    let mut plan = Plan {
        rows: read.rows.len(),
        ..Plan::default()
    };
    match format {
        // A CSV whose `game` column holds only numbers and that has no `game_id` column
        // numbers its games there (arena's `game` is the game's name): those become the ids,
        // not `game:` scopes.
        InputFormat::Csv if !read.any_id && read.games_numeric => {
            read.ids = read
                .rows
                .iter()
                .map(|r| read.names.games.name(r.game).parse().ok())
                .collect();
            for r in &mut read.rows {
                r.game = empty_game;
            }
            plan.game_is_id = true;
            read.notes
                .push("the `game` column holds numbers: read as game ids".into());
        }
        InputFormat::Csv => {}
        // PGN `Site` is a board (arena writes the board there) only when every site is shared
        // by at least two games, as the legs of a game pair are; sites unique to a game (a
        // server's game URL, say) would make one scope per game and are ignored.
        InputFormat::Pgn => {
            let mut count = vec![0usize; read.names.boards.len()];
            for r in read.rows.iter().filter(|r| r.board != empty_board) {
                count[r.board as usize] += 1;
            }
            if count.contains(&1) {
                for r in &mut read.rows {
                    r.board = empty_board;
                }
                plan.boards_dropped = true;
                read.notes.push(
                    "Site tags are not boards (some game has a Site of its own): no board scopes"
                        .into(),
                );
            }
        }
    }
    plan
}

/// The observations of `rows` (file order) with their ids, clusters and canonical ids. The
/// rows are given back as the observations grow (front to back, the rest's unused memory
/// released every 64k rows), so the two lists are not held whole at once.
fn observations(
    mut rows: Vec<Row>,
    names: &mut Names,
    game_ids: &[u64],
    clusters: &[u64],
    canonical: &[u64],
) -> Vec<Observation> {
    const STEP: usize = 1 << 16;
    rows.reverse();
    let mut games: Vec<Observation> = Vec::with_capacity(rows.len());
    while let Some(r) = rows.pop() {
        let k = games.len();
        games.push(Observation {
            game_id: game_ids[k],
            pair: clusters[k],
            canonical: canonical[k],
            first: r.first,
            second: r.second,
            place: names.place_of(r.game, r.board),
            outcome: Some(r.outcome),
            termination: r.termination.unwrap_or(Termination::Normal),
        });
        if rows.capacity() - rows.len() >= STEP {
            rows.shrink_to_fit();
        }
    }
    games
}

/// The first game id used twice in file order: (id, its line, the line of its first use).
/// `lines` are the rows' lines.
fn duplicate_id(ids: &[u64], lines: &[u64]) -> Option<(u64, u64, u64)> {
    let mut sorted: Vec<(u64, u64)> = ids.iter().copied().zip(lines.iter().copied()).collect();
    sorted.sort_unstable();
    // The first repeat in file order is the earliest second line of any id; its first use is
    // then the only one before it.
    sorted
        .windows(2)
        .filter(|w| w[0].0 == w[1].0)
        .map(|w| (w[1].1, w[0].1, w[0].0))
        .min()
        .map(|(line, before, id)| (id, line, before))
}

/// Each game's canonical id, as a run's [`crate::repeats::mark`] sets `repeat_of`, comparing
/// the moves by their fingerprint: the smallest id among the games with the same board, game,
/// players in the same colours, result and fingerprint; its own id for a game without moves,
/// which repeats nothing. Two different move lists share a 64-bit fingerprint with probability
/// about 2⁻⁶⁴ per pair of games.
fn canonical_ids(rows: &[Row], game_ids: &[u64]) -> Vec<u64> {
    let mut canonical = game_ids.to_vec();
    let key = |i: usize| {
        let r = &rows[i];
        let result = r.outcome.result_str();
        (r.fingerprint, r.board, r.game, r.first, r.second, result)
    };
    // Sorted by key then id: each group of equal games starts with its smallest id.
    let mut order: Vec<u32> = (0..rows.len() as u32)
        .filter(|&i| rows[i as usize].fingerprint.is_some())
        .collect();
    order.sort_unstable_by_key(|&i| (key(i as usize), game_ids[i as usize]));
    for group in order.chunk_by(|&x, &y| key(x as usize) == key(y as usize)) {
        let original = game_ids[group[0] as usize];
        for &i in group {
            canonical[i as usize] = original;
        }
    }
    canonical
}
