//! `report.html`: one self-contained page (inline CSS, SVG and a little plain JavaScript; no
//! network, no build step) with the config summary, standings per scope with Elo charts, the
//! crosstable, per-board tables, terminations and time per move per engine, the SPRT trace
//! when `sprt.csv` exists, the game list and the game viewer.
//!
//! Reads the output directory's optional inputs ([`inputs`]) and game records; writes only
//! `report.html`. Tables are aggregated, and the viewer embeds a bounded sample of games
//! ([`Games`]), so a 100,000-game run still gives a page that opens within seconds. Knows no
//! game rules: positions come from [`crate::games`] and are drawn by the `board_*` modules.

pub mod board;
mod board_amazons;
mod board_awale;
mod board_seven_colors;
mod bracket;
pub mod charts;
pub mod inputs;
pub mod tables;
pub mod team;
pub mod viewer;

use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;

use crate::record::GameRecord;
use crate::report::files::FileError;
use crate::standings::Standings;

pub use viewer::{DEFAULT_GAMES, Games};

/// The page's file name inside the output directory.
pub const REPORT: &str = "report.html";

/// The page's styles, shared with the live page.
pub const CSS: &str = include_str!("page.css");
const JS: &str = include_str!("page.js");

/// What to put in the page.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Games embedded in the viewer.
    pub games: Games,
    /// Confidence level of the intervals shown (for the column title; the standings carry
    /// the intervals).
    pub level: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            games: Games::default(),
            level: 0.95,
        }
    }
}

/// What a written report holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Games in the run.
    pub games: usize,
    /// Games embedded in the viewer.
    pub embedded: usize,
    /// Size of the page (bytes).
    pub bytes: usize,
    /// Games whose replay failed or stopped early, with the reason (game, ply, move).
    pub failures: Vec<String>,
}

/// Escapes text for HTML content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A YAML scalar or small tree on one line (`{game: awale, pits: 6}`), for the summary.
fn flow(value: &serde_yaml::Value) -> String {
    use serde_yaml::Value;
    match value {
        Value::Null => "~".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Sequence(items) => format!(
            "[{}]",
            items.iter().map(flow).collect::<Vec<_>>().join(", ")
        ),
        Value::Mapping(map) => format!(
            "{{{}}}",
            map.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{}: {}", flow(k), flow(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Tagged(t) => format!("{} {}", t.tag, flow(&t.value)),
    }
}

/// Top-level keys of `config.resolved.yaml` shown in the config table, in this order (the
/// boards and engines get their own lists). Keys at their default are absent from the file.
const CONFIG_KEYS: [&str; 21] = [
    "name",
    "seed",
    "rounds",
    "format",
    "gauntlet_engine",
    "ladder",
    "ladder_calibration",
    "grades",
    "anonymize",
    "time_control",
    "sprt",
    "adjudication",
    "confidence",
    "anchor",
    "restart",
    "on_engine_failure",
    "withdraw_after",
    "handshake_timeout_ms",
    "strict_options",
    "record_moves",
    "concurrency",
];

/// The config summary from `config.resolved.yaml`: the run's settings ([`CONFIG_KEYS`]), the
/// boards (with their `openings` suite when they have one) and the engines with what runs
/// them: command and arguments, or a library's `.so` path and its `directions`.
fn config_summary(
    config: Option<&serde_yaml::Value>,
    teams: Option<&[crate::class::outputs::TeamRow]>,
) -> String {
    let Some(config) = config else {
        return "<p class=\"note\">No config.resolved.yaml in this directory: the summary is \
                left out.</p>"
            .to_owned();
    };
    let get = |key: &str| config.get(key).filter(|v| !v.is_null());
    let mut out = String::from("<table class=\"kv\"><tbody>");
    for key in CONFIG_KEYS {
        if let Some(v) = get(key) {
            let _ = write!(out, "<tr><th>{key}</th><td>{}</td></tr>", esc(&flow(v)));
        }
    }
    out.push_str("</tbody></table>");
    if let Some(serde_yaml::Value::Sequence(boards)) = get("boards") {
        out.push_str("<h3>Boards</h3><ul class=\"boards\">");
        for b in boards {
            let _ = write!(out, "<li><code>{}</code>", esc(&flow(b)));
            if let Some(openings) = b.get("openings").filter(|v| !v.is_null()) {
                let _ = write!(
                    out,
                    " openings: <code class=\"openings\">{}</code>",
                    esc(&flow(openings))
                );
            }
            out.push_str("</li>");
        }
        out.push_str("</ul>");
    }
    if let Some(serde_yaml::Value::Sequence(engines)) = get("engines") {
        out.push_str(
            "<h3>Engines</h3><table class=\"engines\"><thead><tr><th>name</th><th>command</th>\
             <th>options</th><th>games</th><th>time control</th></tr></thead><tbody>",
        );
        // A team's entry names its submission's path: the teams section lists teams.
        let is_team = |e: &serde_yaml::Value| {
            let name = e.get("name").and_then(serde_yaml::Value::as_str);
            teams.is_some_and(|t| t.iter().any(|t| Some(t.name.as_str()) == name))
        };
        for e in engines.iter().filter(|e| !is_team(e)) {
            let field = |k: &str| e.get(k).filter(|v| !v.is_null()).map(flow);
            let _ = write!(
                out,
                "<tr><td class=\"eng\">{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&field("name").unwrap_or_default()),
                esc(&engine_program(e)),
                esc(&field("options").filter(|o| o != "{}").unwrap_or_default()),
                esc(&field("games").unwrap_or_else(|| "all".to_owned())),
                esc(&field("time_control").unwrap_or_else(|| "the tournament's".to_owned())),
            );
        }
        out.push_str("</tbody></table>");
        if let Some(teams) = teams {
            let entered = teams.iter().filter(|t| t.entered()).count();
            let _ = write!(
                out,
                "<p class=\"note\">And {entered} teams (see <a href=\"#teams\">Teams</a>).</p>"
            );
        }
    }
    out
}

/// What runs an engine entry: `command args…`, or for a course library `library: PATH,
/// directions: D` (its entry has no command), with its own `restart` when set.
fn engine_program(entry: &serde_yaml::Value) -> String {
    let field = |k: &str| entry.get(k).filter(|v| !v.is_null()).map(flow);
    let mut text = match field("library") {
        Some(library) => format!(
            "library: {library}, directions: {}",
            field("directions").unwrap_or_else(|| "?".to_owned())
        ),
        None => field("command").unwrap_or_default(),
    };
    if field("library").is_none() {
        if let Some(serde_yaml::Value::Sequence(args)) = entry.get("args") {
            for a in args {
                text.push(' ');
                text.push_str(&flow(a));
            }
        }
    }
    if let Some(restart) = field("restart") {
        text.push_str(&format!(" (restart: {restart})"));
    }
    text
}

/// Builds the page for the games `records` of output directory `dir`, reading
/// `config.resolved.yaml`, `moves.csv` and `sprt.csv` there when present.
///
/// # Errors
/// [`FileError`] when an optional input exists but cannot be read.
pub fn render(
    dir: &Path,
    records: &[GameRecord],
    standings: &Standings,
    options: &Options,
) -> Result<(String, Written), FileError> {
    let config = inputs::config(dir)?;
    let sprt = inputs::sprt(dir)?;
    let teams = crate::class::outputs::read(dir).map_err(|message| FileError {
        path: dir.join(crate::class::outputs::FILE),
        message,
    })?;
    let keys = crate::class::outputs::ClassKeys::of(config.as_ref());
    let chosen = viewer::sample(records, options.games);
    let keep = chosen.iter().map(|&i| records[i].game_id).collect();
    let moves = inputs::moves(dir, &keep)?;
    let embedded = viewer::embed(records, &chosen, moves.as_ref());
    let mut page = String::with_capacity(embedded.json.len() + 200_000);
    page.push_str(&head(
        &title(dir, config.as_ref()),
        records.len(),
        sprt.is_some(),
        teams.is_some(),
    ));
    let _ = write!(
        page,
        "<section id=\"config\"><h2>Config</h2>{}</section>",
        config_summary(config.as_ref(), teams.as_deref())
    );
    page.push_str(&standings_section(standings, options.level));
    if let Some(teams) = &teams {
        page.push_str(&team::section(&keys, teams, standings, Some("")));
    }
    page.push_str(&result_sections(
        records,
        standings,
        &embedded.ids,
        moves.as_ref(),
        options.level,
    ));
    if let Some(rows) = &sprt {
        let _ = write!(
            page,
            "<section id=\"sprt\"><h2>SPRT</h2>{}</section>",
            tables::sprt(rows)
        );
    }
    page.push_str(&bracket::section(dir)?);
    games_and_viewer(&mut page, records, &chosen, &embedded);
    let written = Written {
        games: records.len(),
        embedded: embedded.ids.len(),
        bytes: page.len(),
        failures: embedded.failures,
    };
    Ok((page, written))
}

/// The page's title: the config's `name`, else the directory's name, else `arena`.
fn title(dir: &Path, config: Option<&serde_yaml::Value>) -> String {
    config
        .and_then(|c| c.get("name"))
        .and_then(serde_yaml::Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        })
        .unwrap_or_else(|| "arena".to_owned())
}

/// From `<!DOCTYPE html>` to the end of the header: title, inline CSS, the game count and the
/// navigation (with an SPRT link when the run has a trace).
fn head(title: &str, games: usize, sprt: bool, teams: bool) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t} – arena report</title><style>{CSS}</style></head><body>\
         <header><h1>{t}</h1><p class=\"note\">{games} games; written by arena {} from games.csv. \
         Everything is in this one file: it opens offline.</p><nav>\
         <a href=\"#config\">config</a> <a href=\"#standings\">standings</a> {}\
         <a href=\"#crosstable\">crosstable</a> <a href=\"#boards\">boards</a> \
         <a href=\"#terminations\">terminations</a> <a href=\"#time\">time</a> {}\
         <a href=\"#list\">games</a> <a href=\"#viewer\">viewer</a></nav></header>",
        env!("CARGO_PKG_VERSION"),
        if teams {
            "<a href=\"#teams\">teams</a> "
        } else {
            ""
        },
        if sprt {
            "<a href=\"#sprt\">SPRT</a> "
        } else {
            ""
        },
        t = esc(title),
    )
}

/// The standings section: one table and Elo chart per scope (boards have their own section).
fn standings_section(standings: &Standings, level: f64) -> String {
    let mut out = String::from(
        "<section id=\"standings\"><h2>Standings</h2><p class=\"note\">Elo from a joint \
         Bradley–Terry fit per scope; bars are the confidence intervals (an arrow: unbounded, \
         when the interval of the score reaches 0% or 100%, as after a 0% or 100% score). LOS next: likelihood that the engine is stronger than the \
         one ranked below it.</p>",
    );
    for scope in tables::scopes(standings)
        .into_iter()
        .filter(|s| !s.starts_with("board:"))
    {
        out.push_str(&tables::standings_table(standings, scope, level));
    }
    out.push_str(&tables::rank_table(standings));
    out.push_str("</section>");
    out
}

/// The crosstable, per-board, terminations and time-per-move sections.
fn result_sections(
    records: &[GameRecord],
    standings: &Standings,
    embedded: &std::collections::BTreeSet<u64>,
    moves: Option<&inputs::Moves>,
    level: f64,
) -> String {
    format!(
        "<section id=\"crosstable\"><h2>Crosstable</h2><p class=\"note\">Score % of \
         the row engine against the column engine over all games (small: games played).</p>{}\
         </section><section id=\"boards\"><h2>Boards</h2>{}</section>\
         <section id=\"terminations\"><h2>Terminations per engine</h2><p class=\"note\">What \
         went wrong: games lost by resigning, an illegal move, a time forfeit, a crash or a \
         protocol error, counted against the engine that lost.</p>{}</section>\
         <section id=\"time\"><h2>Time per move</h2><p class=\"note\">Thinking time per move \
         from games.csv{}.</p>{}</section>",
        tables::crosstable(standings),
        tables::boards(records, standings, level),
        tables::terminations(records, embedded),
        if moves.is_some() {
            "; median, 95th percentile, maximum, depth and nodes per second from moves.csv"
        } else {
            " (moves.csv, when a run writes one, adds medians, depth and speed)"
        },
        tables::time_per_move(records, moves),
    )
}

/// The game list (with what the viewer embeds and the replays that stopped), the viewer, the
/// embedded data and the script, appended to `page` up to the end of the document.
fn games_and_viewer(
    page: &mut String,
    records: &[GameRecord],
    chosen: &[usize],
    embedded: &viewer::Embedded,
) {
    let sample_note = if embedded.ids.len() < records.len() {
        format!(
            "The viewer embeds {} of {} games (a sample: the first game of every board and \
             ending, then games spread evenly over the run). Rebuild with \
             <code>arena report DIR --games all</code> to embed every game.",
            embedded.ids.len(),
            records.len()
        )
    } else {
        format!("All {} games are embedded.", records.len())
    };
    let failures = if embedded.failures.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"note bad\">Replays that stopped: {}</p>",
            esc(&embedded.failures.join("; "))
        )
    };
    // Written into the page, not returned: the embedded games are most of its bytes, and a
    // copy would double the report's peak memory.
    let _ = write!(
        page,
        "<section id=\"list\"><h2>Games</h2><p class=\"note\">{sample_note}</p>{failures}{}\
         </section><section id=\"viewer\"><h2>Viewer</h2><div id=\"v-head\" class=\"note\">\
         Pick a game in the list.</div><div class=\"controls\"><button id=\"v-first\" \
         title=\"start (Home)\">|◀</button><button id=\"v-prev\" title=\"back (←)\">◀</button>\
         <button id=\"v-play\" title=\"play\">play</button><button id=\"v-next\" \
         title=\"forward (→)\">▶</button><button id=\"v-last\" title=\"end (End)\">▶|</button>\
         <input id=\"v-slider\" type=\"range\" min=\"0\" max=\"0\" value=\"0\">\
         <span id=\"v-ply\"></span></div><div id=\"v-caption\" class=\"caption\"></div>\
         <div id=\"v-board\"></div><div id=\"v-moves\" class=\"moves\"></div></section>\
         <div hidden>{}</div>\
         <script type=\"application/json\" id=\"class-data\">{}</script>\
         <script type=\"application/json\" id=\"game-data\">{}</script>\
         <script>{JS}</script></body></html>",
        tables::game_list(records, chosen, &embedded.ids),
        embedded.templates,
        embedded.classes,
        embedded.json,
    );
}

/// Writes `dir/report.html` (through a temporary file and a rename).
///
/// # Errors
/// [`FileError`] naming the file that could not be read or written.
pub fn write(
    dir: &Path,
    records: &[GameRecord],
    standings: &Standings,
    options: &Options,
) -> Result<Written, FileError> {
    let (page, written) = render(dir, records, standings, options)?;
    let path = dir.join(REPORT);
    let tmp = path.with_extension("html.tmp");
    let result = fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(page.as_bytes())?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, &path));
    result.map_err(|e| {
        // A partial page would only fill the disk further.
        let _ = fs::remove_file(&tmp);
        FileError {
            path,
            message: e.to_string(),
        }
    })?;
    Ok(written)
}
