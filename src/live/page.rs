//! The live page (one self-contained HTML document: the report's CSS, a little plain
//! JavaScript, no external resource) and the viewer page of one finished game.

use std::path::Path;

use crate::record::GameRecord;
use crate::report::html::{self, Games, Options, esc};
use crate::standings::Standings;

const CSS: &str = include_str!("live.css");
const JS: &str = include_str!("live.js");

/// The live page of tournament `title`, drawn at once from `state` (the update message of
/// `/api/events` at the time of the request), then kept current by the updates.
pub fn live(title: &str, state: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t} – arena live</title><style>{}{CSS}</style></head><body>\
         <header><h1>{t} <small class=\"note\" id=\"badge\">live</small></h1>\
         <p id=\"progress\" class=\"note\">connecting…</p><nav>\
         <a href=\"#\">all</a> <a href=\"#projector\">projector</a> \
         <a href=\"#games\">games in progress</a> <a href=\"#standings\">standings</a> \
         <a href=\"#recent\">finished games</a> \
         <a href=\"/api/standings\">standings JSON</a> <a href=\"/files/games.csv\">games.csv</a>\
         </nav></header>\
         <section id=\"games\"><h2>Games in progress</h2><div id=\"live\" class=\"cards\">\
         <p class=\"note\">No game in progress.</p></div></section>\
         <section id=\"standings\"><h2>Standings</h2><div id=\"tables\"></div>\
         <p class=\"note\">Elo from a joint Bradley–Terry fit; ± and the interval at the run's \
         confidence level (<i>open</i>: unbounded, the score's interval reaching 0% or 100%). Flags: \
         <i>poolN</i>: engines of different pools have no opponent in common yet, so their \
         ranks are not comparable; <i>prior</i>, <i>floor</i>: too few games for the interval \
         to rest on the results alone (see docs/ratings.md).</p></section>\
         <section id=\"sprt\" hidden><h2>SPRT</h2><div id=\"sprt-body\"></div></section>\
         <section id=\"recent\"><h2>Last finished games</h2><div id=\"recent-body\"></div>\
         </section><script type=\"application/json\" id=\"initial\">{}</script>\
         <script>{JS}</script></body></html>",
        html::CSS,
        // `</script>` inside the data would end the element.
        state.replace("</", "<\\/"),
        t = esc(title),
    )
}

/// report.html's page for the one finished game `record` of output directory `dir`, opened
/// at its viewer (`#game=ID&solo=viewer`, which the live page's links add).
///
/// # Errors
/// A message when an input of the directory (moves.csv, sprt.csv) exists but cannot be read.
pub fn game(dir: &Path, record: &GameRecord) -> Result<String, String> {
    let options = Options {
        games: Games::All,
        level: 0.95,
    };
    html::render(
        dir,
        std::slice::from_ref(record),
        &Standings::default(),
        &options,
    )
    .map(|(page, _)| page)
    .map_err(|e| e.to_string())
}
