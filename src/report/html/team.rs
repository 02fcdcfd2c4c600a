//! The pages of a class championship: `teams/<name>.html`, one self-contained page per team
//! that entered (report.html's style and game viewer, only the team's games), and the teams
//! section of report.html. What they show comes from [`crate::class::outputs`]; with
//! `anonymize`, only public names: the team's pseudonym, no submission path, no reason that
//! quotes a path.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::class::outputs::{ClassKeys, Match, PAGES, TeamResult, TeamRow};
use crate::record::{GameRecord, Termination};
use crate::standings::Standings;

use super::{CSS, Options, esc, games_and_viewer, viewer};

/// A team page's path relative to the output directory, percent-encoded for an `href`.
pub fn href(name: &str) -> String {
    let mut out = format!("{PAGES}/");
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out.push_str(".html");
    out
}

/// An optional Elo figure (0.1), or `open`.
fn elo(x: Option<f64>) -> String {
    x.map_or_else(|| "open".to_owned(), |v| format!("{v:+.1}"))
}

/// The status as shown in public: with `anonymize`, without the reason (it may quote a
/// submission's path, which names the team).
fn public_status(row: &TeamRow, anonymize: bool) -> String {
    if anonymize {
        row.status.split(':').next().unwrap_or_default().to_owned()
    } else {
        row.status.clone()
    }
}

/// report.html's section of teams, the leaderboard: teams by level (highest rung first),
/// then by rank in the standings, then those that did not enter; with its score against each
/// rung, status, level and grade, and linked to its page at `links` + [`href`] (`""` beside
/// report.html, `/files/` on the live server; `None`: no page yet).
pub fn section(
    keys: &ClassKeys,
    teams: &[TeamRow],
    standings: &Standings,
    links: Option<&str>,
) -> String {
    let mut out = String::from(
        "<section id=\"teams\"><h2>Teams</h2><p class=\"note\">Each team's page has its \
         results against every opponent with intervals, what went wrong, and every game in \
         the viewer.",
    );
    if !keys.ladder.is_empty() {
        let _ = write!(
            out,
            " Level: the highest rung of the ladder ({}) the team beats, i.e. scores above 50% \
             against with the interval of its Elo difference above 0. Columns per rung: the \
             team's score (%) against it.",
            esc(&keys.ladder.join(" < "))
        );
    }
    if keys.anonymize {
        out.push_str(" Teams are shown under their pseudonyms.");
    }
    let rank = |name: &str| {
        standings
            .ratings
            .iter()
            .find(|r| r.scope == "all" && r.engine == name)
            .map_or(usize::MAX, |r| r.rank)
    };
    let height = |row: &TeamRow| keys.ladder.iter().position(|r| *r == row.level);
    let mut sorted: Vec<&TeamRow> = teams.iter().collect();
    sorted.sort_by_key(|row| {
        (
            !row.entered(),
            std::cmp::Reverse(height(row)),
            rank(&row.name),
        )
    });
    out.push_str("</p><table class=\"teams\"><thead><tr><th class=\"eng\">team</th>");
    for rung in &keys.ladder {
        let _ = write!(out, "<th>vs {}</th>", esc(rung));
    }
    out.push_str("<th>level</th><th>grade</th><th class=\"st\">status</th></tr></thead><tbody>");
    for row in sorted {
        let name = match links {
            Some(prefix) if row.entered() => format!(
                "<a href=\"{}\">{}</a>",
                esc(&format!("{prefix}{}", href(&row.name))),
                esc(&row.name)
            ),
            _ => esc(&row.name),
        };
        let _ = write!(out, "<tr><td class=\"eng\">{name}</td>");
        let matches = crate::class::outputs::matches(standings, &row.name);
        for rung in &keys.ladder {
            let score = matches
                .iter()
                .find(|m| &m.opponent == rung)
                .map(|m| format!("{:.1}", m.score_pct))
                .unwrap_or_default();
            let _ = write!(out, "<td>{score}</td>");
        }
        let _ = write!(
            out,
            "<td>{}</td><td>{}</td><td class=\"st\">{}</td></tr>",
            esc(&row.level),
            esc(&row.grade),
            esc(&public_status(row, keys.anonymize)),
        );
    }
    out.push_str("</tbody></table></section>");
    out
}

/// Writes `dir/teams/<name>.html` for every team that entered.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write_all(
    dir: &Path,
    keys: &ClassKeys,
    teams: &[TeamResult],
    records: &[GameRecord],
    standings: &Standings,
    options: &Options,
) -> Result<(), String> {
    let pages = dir.join(PAGES);
    fs::create_dir_all(&pages).map_err(|e| format!("{}: {e}", pages.display()))?;
    let title = super::title(dir, super::inputs::config(dir).ok().flatten().as_ref());
    // Team folders → their public form, in what the engines printed.
    let redactions: Vec<(String, String)> = teams
        .iter()
        .filter(|t| keys.anonymize && !t.row.folder.is_empty())
        .map(|t| (t.row.folder.clone(), format!("submissions/{}", t.row.name)))
        .collect();
    for team in teams.iter().filter(|t| t.row.entered()) {
        let handshake = handshake_stderr(dir, &team.row.name)
            .map(|text| crate::class::pseudonyms::redact(&text, &redactions));
        let page = render(&title, keys, team, records, standings, options, handshake);
        let path = pages.join(format!("{}.html", team.row.name));
        fs::write(&path, page).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// How many of the last stderr lines of a failed handshake a team page quotes.
const STDERR_LINES: usize = 12;

/// The last lines the engine `name` wrote to stderr during its handshake before the run
/// (`logs/<name>.preflight.stderr.log`), if any.
fn handshake_stderr(dir: &Path, name: &str) -> Option<String> {
    let text = fs::read_to_string(
        dir.join("logs")
            .join(format!("{name}.preflight.stderr.log")),
    )
    .ok()?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return None;
    }
    Some(lines[lines.len().saturating_sub(STDERR_LINES)..].join("\n"))
}

/// One team's page; `handshake` is the stderr of its handshake, quoted when it forfeited.
fn render(
    title: &str,
    keys: &ClassKeys,
    team: &TeamResult,
    records: &[GameRecord],
    standings: &Standings,
    options: &Options,
    handshake: Option<String>,
) -> String {
    let row = &team.row;
    let own: Vec<GameRecord> = records
        .iter()
        .filter(|r| r.first == row.name || r.second == row.name)
        .cloned()
        .collect();
    let chosen = viewer::sample(&own, options.games);
    let embedded = viewer::embed(&own, &chosen, None);
    let mut page = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{n} – {t}</title><style>{CSS}</style></head><body>\
         <header><h1>{n}</h1><p class=\"note\">{who} in {t}: {games} games. \
         <a href=\"../report.html\">The whole report</a>.</p><nav><a href=\"#summary\">summary\
         </a> <a href=\"#ladder\">ladder</a> <a href=\"#opponents\">opponents</a> \
         <a href=\"#problems\">what went wrong</a> <a href=\"#list\">games</a> \
         <a href=\"#viewer\">viewer</a></nav></header>",
        n = esc(&row.name),
        t = esc(title),
        who = if keys.anonymize {
            "Your team's pseudonym on the public leaderboard"
        } else {
            "Team page"
        },
        games = own.len(),
    );
    page.push_str(&summary(keys, team, standings));
    page.push_str(&matches_section(
        "ladder",
        "Against the ladder",
        &ladder_note(keys),
        &team.rungs,
        !keys.ladder.is_empty(),
    ));
    page.push_str(&matches_section(
        "opponents",
        "Against other teams",
        if keys.teams_meet {
            "Score and Elo difference of this team over each opponent."
        } else {
            "Teams do not meet in this format (format: ladder)."
        },
        &team.others,
        false,
    ));
    let forfeited = row.status.starts_with("forfeited");
    page.push_str(&problems(&row.name, &own, handshake.filter(|_| forfeited)));
    games_and_viewer(&mut page, &own, &chosen, &embedded);
    page
}

fn ladder_note(keys: &ClassKeys) -> String {
    if keys.ladder.is_empty() {
        return "This championship has no ladder.".into();
    }
    "Elo diff and its interval come from the games against that rung alone. A rung is beaten \
     when the team scores above 50% against it and the lower end of that interval is above 0 (a \
     50% score is no win; an unbounded lower end, `open`, is not above 0). The level is the \
     highest rung beaten."
        .into()
}

/// Status, level, grade, rating and submission.
fn summary(keys: &ClassKeys, team: &TeamResult, standings: &Standings) -> String {
    let row = &team.row;
    let mut facts: Vec<(&str, String)> = vec![("status", public_status(row, keys.anonymize))];
    if !keys.ladder.is_empty() {
        facts.push(("level", row.level.clone()));
        if !keys.grades.is_empty() {
            facts.push(("grade", row.grade.clone()));
        }
    }
    if let Some(r) = &team.rating {
        let of = standings
            .ratings
            .iter()
            .filter(|x| x.scope == "all")
            .count();
        facts.push(("rank", format!("{} of {of}", r.rank)));
        facts.push((
            "Elo",
            format!(
                "{:+.1} [{}, {}] (the fit of every game{})",
                r.elo,
                elo(r.ci_low),
                elo(r.ci_high),
                keys.ladder
                    .first()
                    .map_or(String::new(), |r| format!(", {r} at 0"))
            ),
        ));
        facts.push((
            "games",
            format!(
                "{} (won {}, drawn {}, lost {}), score {:.1}%",
                r.games, r.wins, r.draws, r.losses, r.score_pct
            ),
        ));
    }
    let submission = if row.submission == "." {
        "the team folder itself".to_owned()
    } else {
        row.submission.clone()
    };
    facts.push(("submission", submission));
    facts.push(("kind", row.kind.clone()));
    if !keys.anonymize {
        facts.push(("command", row.command.clone()));
    }
    let mut out =
        String::from("<section id=\"summary\"><h2>Summary</h2><table class=\"kv\"><tbody>");
    for (k, v) in facts {
        let _ = write!(out, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    out.push_str("</tbody></table></section>");
    out
}

/// A table of matches seen from the team.
fn matches_section(id: &str, heading: &str, note: &str, rows: &[Match], beaten: bool) -> String {
    let mut out = format!(
        "<section id=\"{id}\"><h2>{heading}</h2><p class=\"note\">{}</p>",
        esc(note)
    );
    if rows.is_empty() {
        out.push_str("</section>");
        return out;
    }
    let _ = write!(
        out,
        "<table><thead><tr><th>opponent</th><th>games</th><th>won</th><th>drawn</th>\
         <th>lost</th><th>score %</th><th>Elo diff</th><th>interval</th><th>LOS %</th>{}</tr>\
         </thead><tbody>",
        if beaten { "<th>beaten</th>" } else { "" }
    );
    for m in rows {
        let beats = crate::class::levels::Against {
            games: m.games,
            score_pct: m.score_pct,
            ci_low: m.ci_low,
        }
        .beats();
        let _ = write!(
            out,
            "<tr><td class=\"eng\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{:.1}</td><td>{}</td><td>[{}, {}]</td><td>{:.1}</td>{}</tr>",
            esc(&m.opponent),
            m.games,
            m.wins,
            m.draws,
            m.losses,
            m.score_pct,
            elo(m.elo_diff),
            elo(m.ci_low),
            elo(m.ci_high),
            m.los,
            if beaten {
                format!("<td>{}</td>", if beats { "yes" } else { "no" })
            } else {
                String::new()
            }
        );
    }
    out.push_str("</tbody></table></section>");
    out
}

/// The games the team lost by something other than the rules: time forfeits, crashes (with
/// the last stderr lines games.csv quotes), illegal moves (with the rule broken), protocol
/// errors, withdrawals.
fn problems(name: &str, own: &[GameRecord], handshake: Option<String>) -> String {
    let lost = |r: &GameRecord| {
        (r.first == name && r.result == "0-1") || (r.second == name && r.result == "1-0")
    };
    let bad: Vec<&GameRecord> = own
        .iter()
        .filter(|r| {
            lost(r)
                && matches!(
                    r.termination,
                    Termination::TimeForfeit
                        | Termination::Crash
                        | Termination::IllegalMove
                        | Termination::ProtocolError
                        | Termination::Withdrawn
                )
        })
        .collect();
    let mut out = String::from("<section id=\"problems\"><h2>What went wrong</h2>");
    if let Some(text) = handshake {
        let _ = write!(
            out,
            "<p class=\"note bad\">The engine did not start: its handshake failed before the \
             first game, so every game was forfeited. The last lines it wrote to stderr:</p>\
             <pre class=\"detail\">{}</pre>",
            esc(&text)
        );
    }
    if bad.is_empty() {
        out.push_str("<p class=\"note\">Nothing: no game lost on time, by a crash, an illegal move, a protocol error or a withdrawal.</p></section>");
        return out;
    }
    let _ = write!(
        out,
        "<p class=\"note\">{} games lost other than by the rules of the game.</p><table>\
         <thead><tr><th>game</th><th>board</th><th>opponent</th><th>ply</th>\
         <th>termination</th><th>detail</th></tr></thead><tbody>",
        bad.len()
    );
    for r in bad {
        let opponent = if r.first == name { &r.second } else { &r.first };
        let _ = write!(
            out,
            "<tr><td><a href=\"#game={id}\">{id}</a></td><td>{}</td><td class=\"eng\">{}</td>\
             <td>{}</td><td>{}</td><td><pre class=\"detail\">{}</pre></td></tr>",
            esc(&r.board),
            esc(opponent),
            r.plies,
            r.termination,
            esc(&r.detail),
            id = r.game_id,
        );
    }
    out.push_str("</tbody></table></section>");
    out
}
