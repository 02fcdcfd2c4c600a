//! What the live page shows, read from an output directory as its files grow: `games.csv`
//! (finished games → standings, the same [`standings::compute`] over the same rows in the same
//! order as `ratings.csv`), `live.json` (games in progress), `sprt.csv` and
//! `config.resolved.yaml`. Works the same for the run in this process (`arena run --serve`),
//! a run in another process or on a cluster node, and a finished or merged directory.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use crate::config::Config;
use crate::games::{AnyPosition, GameKind, Side};
use crate::protocol::Score;
use crate::record::GameRecord;
use crate::report::files;
use crate::report::html::inputs::SprtRow;
use crate::report::html::{board, esc, inputs, tables};
use crate::standings::{self, PairRow, RatingRow, Standings};
use crate::tournament::outputs::Context;

use super::feed::{self, LiveGame, Snapshot};

/// A class championship's teams (`teams.csv`) with their levels from `records` and
/// `standings` as they stand, as report.html's Teams section draws them; linked to their
/// pages once the run has written them. Empty for other directories.
fn teams_table(dir: &Path, records: &[GameRecord], standings: &Standings) -> String {
    use crate::class::outputs;
    let Ok(Some(rows)) = outputs::read(dir) else {
        return String::new();
    };
    let keys = outputs::ClassKeys::of(inputs::config(dir).ok().flatten().as_ref());
    let rows: Vec<outputs::TeamRow> = outputs::evaluate(rows, &keys, records, standings)
        .into_iter()
        .map(|r| r.row)
        .collect();
    let pages = dir.join(outputs::PAGES).is_dir();
    crate::report::html::team::section(&keys, &rows, standings, pages.then_some("/files/"))
}

/// A Swiss's standings file, shown above the Elo tables when present.
const SWISS_STANDINGS: &str = "swiss_standings.csv";

/// `swiss_standings.csv` as an HTML table (empty when missing or unreadable): the Swiss's own
/// ranking, which can differ from the Elo order.
fn swiss_table(path: &Path) -> String {
    let Ok(mut reader) = ::csv::Reader::from_path(path) else {
        return String::new();
    };
    let Ok(headers) = reader.headers().cloned() else {
        return String::new();
    };
    let mut out =
        String::from("<div class=\"scope swiss\"><h3>Swiss standings</h3><table><thead><tr>");
    for h in &headers {
        let _ = write!(out, "<th>{}</th>", esc(&h.replace('_', " ")));
    }
    out.push_str("</tr></thead><tbody>");
    for row in reader.records().flatten() {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if headers.get(i) == Some("engine") {
                " class=\"eng\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", esc(cell));
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div>");
    out
}

/// Finished games listed on the page, newest first.
pub const RECENT: usize = 12;

/// Shortest time between two looks at the directory: the page updates at most this often.
const LOOK_EVERY: Duration = Duration::from_millis(feed::PUBLISH_EVERY_MS);

/// Progress of the run: games done out of the total, rate and time left.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Progress {
    /// Whether a run is writing the directory now.
    pub running: bool,
    /// Games in games.csv.
    pub done: u64,
    /// Games of the schedule while a run plays (else `done`).
    pub total: u64,
    /// Games finished a minute by the running process (`None` before its first game).
    pub games_per_min: Option<f64>,
    /// Seconds left at that rate.
    pub eta_s: Option<u64>,
}

/// `/api/standings`: the progress, `ratings.csv` and `pairs.csv` rows (the same figures those
/// files get from the same games), and the SPRT's state.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StandingsJson {
    /// Games done, total, rate, time left.
    pub progress: Progress,
    /// Confidence level of the intervals.
    pub confidence: f64,
    /// `ratings.csv` rows, scope by scope.
    pub ratings: Vec<RatingRow>,
    /// `pairs.csv` rows.
    pub pairs: Vec<PairRow>,
    /// The SPRT's state, when the run has one.
    pub sprt: Option<SprtJson>,
}

/// The SPRT's state from `sprt.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SprtJson {
    /// `H1 accepted`, `H0 accepted` or `running`.
    pub state: String,
    /// Game pairs counted.
    pub pairs: u64,
    /// Games counted.
    pub games: u64,
    /// Log-likelihood ratio.
    pub llr: f64,
    /// Lower bound (H0 accepted at or below).
    pub lower: f64,
    /// Upper bound (H1 accepted at or above).
    pub upper: f64,
}

/// A game in progress, for `/api/games/live` and the page.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LiveJson {
    /// The game as the run published it (moves, clocks, info lines).
    #[serde(flatten)]
    pub game: LiveGame,
    /// Plies played.
    pub ply: usize,
    /// `first` or `second`; empty once the rules ended the game.
    pub side_to_move: String,
    /// The current position's text.
    pub fen: String,
    /// Each side's last info line, parsed: depth (plies), score (centipawns or mate in plies),
    /// nodes.
    pub search: [SearchJson; 2],
}

/// The parsed part of an `info` line that the page shows.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchJson {
    /// Depth (plies).
    pub depth: Option<u32>,
    /// Score in centipawns.
    pub score_cp: Option<i64>,
    /// Mate in this many moves (negative: being mated).
    pub score_mate: Option<i64>,
    /// Nodes searched.
    pub nodes: Option<u64>,
}

/// What a look at the directory found, shared by every request until the next look.
#[derive(Default)]
struct Seen {
    /// Grows with every change: pushes go out only when it moved.
    version: u64,
    games_stamp: Option<(u64, SystemTime)>,
    sprt_stamp: Option<(u64, SystemTime)>,
    /// `swiss_standings.csv` (a Swiss's points, Buchholz, Sonneborn–Berger) as an HTML table.
    format_stamp: Option<(u64, SystemTime)>,
    format_table: String,
    /// A class championship's teams with their levels as the games stand (HTML; empty
    /// without teams.csv).
    teams_table: String,
    live_text: Vec<u8>,
    /// Every finished game, in id order (as ratings.csv is computed).
    records: Vec<GameRecord>,
    /// The last finished, newest first.
    recent: VecDeque<GameRecord>,
    context: Option<Context>,
    standings: Standings,
    sprt: Option<Vec<SprtRow>>,
    live: Option<Snapshot>,
    /// The page's update message of `version`.
    event: Option<(u64, Arc<String>)>,
    looked: Option<Instant>,
    /// How long the last recomputation of the standings took: looks are spaced by ten times
    /// that, so a huge games.csv does not keep a core busy.
    cost: Duration,
    error: Option<String>,
}

/// An output directory being watched.
pub struct Watch {
    dir: PathBuf,
    seen: Mutex<Seen>,
}

/// Size and modification time of a file, to tell that it changed without reading it.
fn stamp(path: &Path) -> Option<(u64, SystemTime)> {
    let m = fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()?))
}

impl Watch {
    /// Watches `dir` (which need not hold any file yet).
    pub fn new(dir: &Path) -> Watch {
        Watch {
            dir: dir.to_owned(),
            seen: Mutex::new(Seen::default()),
        }
    }

    /// The watched directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Looks at the directory again if the last look is older than the update interval, and
    /// returns the state (locked: keep it short).
    fn look(&self) -> MutexGuard<'_, Seen> {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let due = seen
            .looked
            .is_none_or(|at| at.elapsed() >= LOOK_EVERY.max(seen.cost * 10));
        if due {
            self.refresh(&mut seen);
            seen.looked = Some(Instant::now());
        }
        seen
    }

    fn refresh(&self, seen: &mut Seen) {
        let mut changed = false;
        let live_text = fs::read(self.dir.join(feed::LIVE)).unwrap_or_default();
        if live_text != seen.live_text {
            seen.live = feed::read_snapshot(&self.dir);
            seen.live_text = live_text;
            changed = true;
        } else if seen.live.is_some() && feed::read_snapshot(&self.dir).is_none() {
            // Its writer died without removing it.
            seen.live = None;
            changed = true;
        }
        let games = stamp(&self.dir.join(files::GAMES));
        if games != seen.games_stamp {
            seen.games_stamp = games;
            self.reload_games(seen);
            changed = true;
        }
        let sprt = stamp(&self.dir.join(crate::report::sprt::FILE));
        if sprt != seen.sprt_stamp {
            seen.sprt_stamp = sprt;
            seen.sprt = inputs::sprt(&self.dir).ok().flatten();
            changed = true;
        }
        let format = stamp(&self.dir.join(SWISS_STANDINGS));
        if format != seen.format_stamp {
            seen.format_stamp = format;
            seen.format_table = swiss_table(&self.dir.join(SWISS_STANDINGS));
            changed = true;
        }
        if changed {
            seen.version += 1;
        }
    }

    /// Reads games.csv and recomputes the standings, as `arena run` computes ratings.csv.
    fn reload_games(&self, seen: &mut Seen) {
        let started = Instant::now();
        let path = self.dir.join(files::GAMES);
        let rows = if path.exists() {
            match files::read_games(&path) {
                Ok((rows, _)) => rows,
                Err(e) => {
                    seen.error = Some(e.to_string());
                    return;
                }
            }
        } else {
            Vec::new()
        };
        seen.error = None;
        seen.recent = rows.iter().rev().take(RECENT).cloned().collect();
        let mut records = rows;
        records.sort_by_key(|r| r.game_id);
        if seen.context.is_none() {
            seen.context = read_context(&self.dir);
        }
        let (engines, anchor, level) = match &seen.context {
            Some(c) => (
                c.engines.clone(),
                c.anchor.as_ref().map(|(n, e)| (n.clone(), *e)),
                c.confidence,
            ),
            None => (Vec::new(), None, 0.95),
        };
        let anchor = anchor.as_ref().map(|(n, e)| (n.as_str(), *e));
        seen.standings = standings::compute(&records, &engines, anchor, level);
        seen.teams_table = teams_table(&self.dir, &records, &seen.standings);
        seen.records = records;
        seen.cost = started.elapsed();
    }

    /// Looks at the directory now, whatever the interval: the run has just ended and its
    /// final files must go out before the server stops.
    pub fn refresh_now(&self) {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        self.refresh(&mut seen);
        seen.looked = Some(Instant::now());
    }

    /// The version of the state: it grows whenever the page would change.
    pub fn version(&self) -> u64 {
        self.look().version
    }

    /// `/api/standings`.
    pub fn standings(&self) -> StandingsJson {
        let seen = self.look();
        StandingsJson {
            progress: progress(&seen),
            confidence: level(&seen),
            ratings: seen.standings.ratings.clone(),
            pairs: seen.standings.pairs.clone(),
            sprt: seen.sprt.as_deref().and_then(sprt_json),
        }
    }

    /// `/api/games/live`: the games in progress, in id order.
    pub fn live_games(&self) -> Vec<LiveJson> {
        let seen = self.look();
        in_progress(&seen).map(live_json).collect()
    }

    /// `/api/games/ID`: a finished game's games.csv row, else the game in progress, as JSON.
    pub fn game(&self, id: u64) -> Option<String> {
        let seen = self.look();
        if let Ok(i) = seen.records.binary_search_by_key(&id, |r| r.game_id) {
            return serde_json::to_string(&seen.records[i]).ok();
        }
        let live = in_progress(&seen).find(|g| g.game_id == id)?;
        serde_json::to_string(&live_json(live)).ok()
    }

    /// A finished game's record, for the viewer page.
    pub fn finished(&self, id: u64) -> Option<GameRecord> {
        let seen = self.look();
        let i = seen.records.binary_search_by_key(&id, |r| r.game_id).ok()?;
        Some(seen.records[i].clone())
    }

    /// The page's update message (JSON with HTML fragments) and its version; built once per
    /// version and shared by every browser.
    pub fn event(&self) -> (u64, Arc<String>) {
        let mut seen = self.look();
        if let Some((v, text)) = &seen.event {
            if *v == seen.version {
                return (*v, Arc::clone(text));
            }
        }
        let text = Arc::new(page_event(&seen));
        seen.event = Some((seen.version, Arc::clone(&text)));
        (seen.version, text)
    }

    /// The tournament's name for the page title.
    pub fn title(&self) -> String {
        let seen = self.look();
        seen.context
            .as_ref()
            .map(|c| c.event.clone())
            .filter(|t| !t.is_empty())
            .or_else(|| {
                self.dir
                    .canonicalize()
                    .ok()
                    .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            })
            .unwrap_or_else(|| "arena".into())
    }
}

/// The games of `live.json` that games.csv does not hold yet: the snapshot can be a moment
/// older than the finished games.
fn in_progress(seen: &Seen) -> impl Iterator<Item = &LiveGame> {
    seen.live.iter().flat_map(|s| s.games.iter()).filter(|g| {
        seen.records
            .binary_search_by_key(&g.game_id, |r| r.game_id)
            .is_err()
    })
}

/// The rating context of the run that wrote `dir` (engine order, anchor, confidence).
fn read_context(dir: &Path) -> Option<Context> {
    let text = fs::read_to_string(dir.join(crate::tournament::resume::RESOLVED)).ok()?;
    let config: Config = serde_yaml::from_str(&text).ok()?;
    Some(Context::of_resolved(&config))
}

fn level(seen: &Seen) -> f64 {
    seen.context.as_ref().map_or(0.95, |c| c.confidence)
}

fn progress(seen: &Seen) -> Progress {
    let done = seen.records.len() as u64;
    let Some(live) = &seen.live else {
        return Progress {
            running: false,
            done,
            total: done,
            games_per_min: None,
            eta_s: None,
        };
    };
    let total = live.total.max(done);
    let this_run = done.saturating_sub(live.done_before);
    let minutes = feed::unix_ms().saturating_sub(live.started_unix_ms) as f64 / 60_000.0;
    let rate = (this_run > 0 && minutes > 0.0).then(|| this_run as f64 / minutes);
    Progress {
        running: true,
        done,
        total,
        games_per_min: rate.map(|r| (r * 10.0).round() / 10.0),
        eta_s: rate.map(|r| ((total - done) as f64 / r * 60.0).round() as u64),
    }
}

/// The SPRT's state: the first row at or beyond a bound (where the test ended), else the last.
fn sprt_json(rows: &[SprtRow]) -> Option<SprtJson> {
    let decided = rows.iter().find(|r| r.llr >= r.upper || r.llr <= r.lower);
    let (row, state) = match decided {
        Some(r) if r.llr >= r.upper => (r, "H1 accepted"),
        Some(r) => (r, "H0 accepted"),
        None => (rows.last()?, "running"),
    };
    Some(SprtJson {
        state: state.into(),
        pairs: row.pairs,
        games: row.games,
        llr: row.llr,
        lower: row.lower,
        upper: row.upper,
    })
}

/// The position after `game`'s moves, the one before the last move, and the last move; the
/// replay stops at the first move that does not apply (never expected: the referee played it).
fn replay(game: &LiveGame) -> Option<(AnyPosition, Option<(AnyPosition, String)>)> {
    let kind: GameKind = game.game.parse().ok()?;
    let mut pos = AnyPosition::from_fen(kind, &game.start_fen).ok()?;
    let mut last = None;
    for text in &game.moves {
        let before = pos.clone();
        if pos.play_text(text).is_err() {
            break;
        }
        last = Some((before, text.clone()));
    }
    Some((pos, last))
}

fn search(info: &str) -> SearchJson {
    let Some(info) = crate::referee::parse_info(info) else {
        return SearchJson::default();
    };
    let (score_cp, score_mate) = match info.score {
        Some(Score::Cp(cp)) => (Some(cp), None),
        Some(Score::Mate(m)) => (None, Some(m)),
        None => (None, None),
    };
    SearchJson {
        depth: info.depth,
        score_cp,
        score_mate,
        nodes: info.nodes,
    }
}

fn live_json(game: &LiveGame) -> LiveJson {
    let (fen, side) = match replay(game) {
        Some((pos, _)) => (
            pos.fen(),
            if pos.outcome().is_some() {
                String::new()
            } else {
                pos.side_to_move().to_string()
            },
        ),
        None => (String::new(), String::new()),
    };
    LiveJson {
        ply: game.moves.len(),
        side_to_move: side,
        fen,
        search: [search(&game.info[0]), search(&game.info[1])],
        game: game.clone(),
    }
}

/// `m:ss` of a clock or of time used.
fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 60 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        format!("{}.{}s", s, (ms % 1000) / 100)
    }
}

fn search_text(s: &SearchJson) -> String {
    let mut parts = Vec::new();
    if let Some(d) = s.depth {
        parts.push(format!("depth {d}"));
    }
    match (s.score_cp, s.score_mate) {
        (Some(cp), _) => parts.push(format!("score {cp:+}")),
        (_, Some(m)) => parts.push(format!("mate {m}")),
        _ => {}
    }
    if let Some(n) = s.nodes {
        parts.push(format!("{n} nodes"));
    }
    parts.join(", ")
}

/// One game in progress as the page draws it.
#[derive(Serialize)]
struct LiveCard {
    id: u64,
    head: String,
    svg: String,
}

fn live_card(game: &LiveGame) -> LiveCard {
    let json = live_json(game);
    let svg = replay(game)
        .map(|(pos, last)| {
            let last = last.as_ref().map(|(before, mv)| (before, mv.as_str()));
            board::svg(&pos, last)
        })
        .unwrap_or_default();
    let mut head = format!(
        "<b>game {}</b> · round {} · {} · ply {}",
        game.game_id,
        game.round,
        esc(&game.board),
        json.ply
    );
    if let Some(m) = game.moves.last() {
        let _ = write!(head, " · last move <code>{}</code>", esc(m));
    }
    head.push_str("<table class=\"clocks\">");
    for side in Side::BOTH {
        let i = side.index();
        let name = if i == 0 { &game.first } else { &game.second };
        let to_move = json.side_to_move == side.to_string();
        let clock = match game.clock_ms[i] {
            Some(left) => format!("{} left", clock_text(left)),
            None => format!("{} used", clock_text(game.used_ms[i])),
        };
        let _ = write!(
            head,
            "<tr{}><td>{}</td><td class=\"eng\">{}</td><td>{clock}</td><td class=\"info\">{}</td></tr>",
            if to_move { " class=\"tomove\"" } else { "" },
            if i == 0 { "1st" } else { "2nd" },
            esc(name),
            esc(&search_text(&json.search[i]))
        );
    }
    head.push_str("</table>");
    LiveCard {
        id: game.game_id,
        head,
        svg,
    }
}

/// The page's update: progress text, standings tables, SPRT, games in progress, last finished.
#[derive(Serialize)]
struct PageEvent<'a> {
    version: u64,
    progress: Progress,
    progress_text: String,
    standings: String,
    sprt: String,
    live: Vec<LiveCard>,
    recent: String,
    error: Option<&'a str>,
}

fn progress_text(p: &Progress, sprt_line: Option<&str>) -> String {
    let mut text = if p.running {
        format!("running: {} of {} games", p.done, p.total)
    } else {
        format!(
            "no run is playing here now: {} games in the directory",
            p.done
        )
    };
    if let Some(r) = p.games_per_min {
        let _ = write!(text, " · {r} games/min");
    }
    if let Some(eta) = p.eta_s {
        let _ = write!(text, " · about {} left", clock_text(eta * 1000));
    }
    if let Some(s) = sprt_line.filter(|s| !s.is_empty()) {
        let _ = write!(text, " · {s}");
    }
    text
}

fn recent_html(recent: &VecDeque<GameRecord>) -> String {
    if recent.is_empty() {
        return "<p class=\"note\">No game has finished yet.</p>".into();
    }
    let mut out = String::from(
        "<table class=\"recent\"><thead><tr><th>game</th><th>board</th><th>first</th>\
         <th>second</th><th>result</th><th>ending</th><th>plies</th></tr></thead><tbody>",
    );
    for r in recent {
        let _ = write!(
            out,
            "<tr><td><a href=\"/game/{id}\" target=\"_blank\">{id}</a></td><td>{}</td>\
             <td class=\"eng\">{}</td><td class=\"eng\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.board),
            esc(&r.first),
            esc(&r.second),
            esc(&r.result),
            esc(&r.termination.to_string()),
            r.plies,
            id = r.game_id,
        );
    }
    out.push_str("</tbody></table>");
    out
}

fn page_event(seen: &Seen) -> String {
    let level = level(seen);
    let progress = progress(seen);
    let mut standings = String::new();
    for scope in tables::scopes(&seen.standings)
        .into_iter()
        .filter(|s| !s.starts_with("board:"))
    {
        standings.push_str(&tables::standings_table(&seen.standings, scope, level));
    }
    if standings.is_empty() {
        standings = "<p class=\"note\">No game has finished yet.</p>".into();
    }
    standings.insert_str(0, &seen.format_table);
    standings.insert_str(0, &seen.teams_table);
    let event = PageEvent {
        version: seen.version,
        progress_text: progress_text(&progress, seen.live.as_ref().map(|l| l.sprt.as_str())),
        progress,
        standings,
        sprt: seen.sprt.as_deref().map(tables::sprt).unwrap_or_default(),
        live: in_progress(seen).map(live_card).collect(),
        recent: recent_html(&seen.recent),
        error: seen.error.as_deref(),
    };
    serde_json::to_string(&event).unwrap_or_default()
}
