//! The report's HTML tables: standings per scope, crosstable, per-board tables, terminations
//! per engine, time per move per engine, the SPRT summary and the game list. Aggregated from
//! game records and standings, so their size does not grow with the number of games (except
//! the game list, which shows only the embedded games).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::games::{Outcome, Side};
use crate::record::{GameRecord, Termination};
use crate::standings::{RatingRow, Standings};

use super::inputs::{Moves, SprtRow};
use super::{charts, esc};

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "open".to_owned(), |v| format!("{v:.1}"))
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "–".to_owned()
    } else {
        format!("{:.1}", 100.0 * part as f64 / whole as f64)
    }
}

/// A human name for a scope: `all games`, `game seven_colors`, `board awale-6`.
pub fn scope_title(scope: &str) -> String {
    match scope.split_once(':') {
        Some((kind, name)) => format!("{kind} {name}"),
        None => format!("{scope} games"),
    }
}

/// The rows of `scope`, in rank order.
pub fn scope_rows<'a>(standings: &'a Standings, scope: &str) -> Vec<&'a RatingRow> {
    standings
        .ratings
        .iter()
        .filter(|r| r.scope == scope)
        .collect()
}

/// Scopes in the order of `ratings.csv`.
pub fn scopes(standings: &Standings) -> Vec<&str> {
    let mut seen = BTreeSet::new();
    standings
        .ratings
        .iter()
        .map(|r| r.scope.as_str())
        .filter(|s| seen.insert(*s))
        .collect()
}

/// A standings table with its Elo chart, for one scope.
pub fn standings_table(standings: &Standings, scope: &str, level: f64) -> String {
    let rows = scope_rows(standings, scope);
    let mut out = format!(
        "<div class=\"scope\" data-scope=\"{}\"><h3>{}</h3>{}\
         <table class=\"standings\"><thead><tr><th>rank</th><th>engine</th><th>Elo</th>\
         <th>±</th><th>{:.0}% interval</th><th>games</th><th>W</th><th>D</th><th>L</th>\
         <th>score %</th><th>draw %</th><th>LOS next %</th><th>flags</th></tr></thead><tbody>",
        esc(scope),
        esc(&scope_title(scope)),
        charts::elo_chart(&rows),
        level * 100.0
    );
    for r in rows {
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"eng\">{}</td><td>{:.1}</td><td>{}</td>\
             <td>[{}, {}]</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td>\
             <td>{:.1}</td><td>{}</td><td>{}</td></tr>",
            r.rank,
            esc(&r.engine),
            r.elo,
            r.err95
                .map_or_else(|| "open".to_owned(), |e| format!("{e:.1}")),
            opt(r.ci_low),
            opt(r.ci_high),
            r.games,
            r.wins,
            r.draws,
            r.losses,
            r.score_pct,
            r.draw_pct,
            r.los_next.map_or_else(String::new, |l| format!("{l:.1}")),
            esc(&r.flags)
        );
    }
    out.push_str("</tbody></table></div>");
    out
}

/// Score % of the row engine against the column engine over scope `all`, coloured from red
/// (0%) to green (100%), with the game count; engines in rank order.
pub fn crosstable(standings: &Standings) -> String {
    let engines: Vec<&str> = scope_rows(standings, "all")
        .iter()
        .map(|r| r.engine.as_str())
        .collect();
    let mut cells: BTreeMap<(&str, &str), (f64, u64)> = BTreeMap::new();
    for p in standings.pairs.iter().filter(|p| p.scope == "all") {
        cells.insert((&p.engine_a, &p.engine_b), (p.score_a_pct, p.games));
        cells.insert((&p.engine_b, &p.engine_a), (100.0 - p.score_a_pct, p.games));
    }
    let mut out = String::from("<table class=\"cross\"><thead><tr><th></th>");
    for (k, e) in engines.iter().enumerate() {
        let _ = write!(out, "<th title=\"{}\">{}</th>", esc(e), k + 1);
    }
    out.push_str("</tr></thead><tbody>");
    for (k, row) in engines.iter().enumerate() {
        let _ = write!(out, "<tr><th class=\"eng\">{} {}</th>", k + 1, esc(row));
        for col in &engines {
            match cells.get(&(*row, *col)) {
                Some(&(score, games)) if row != col => {
                    // Hue 0 (red) at 0%, 120 (green) at 100%.
                    let _ = write!(
                        out,
                        "<td style=\"background:hsl({:.0},70%,80%)\">{score:.1}<small> /{games}</small></td>",
                        score * 1.2
                    );
                }
                _ if row == col => out.push_str("<td class=\"self\"></td>"),
                _ => out.push_str("<td></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// Per board: games, first player's score and results, plies, duration and early endings,
/// then the board's standings.
pub fn boards(records: &[GameRecord], standings: &Standings, level: f64) -> String {
    #[derive(Default)]
    struct Board {
        game: String,
        games: u64,
        first_wins: u64,
        draws: u64,
        second_wins: u64,
        plies: u64,
        duration_ms: u64,
        early: u64,
    }
    let mut boards: BTreeMap<&str, Board> = BTreeMap::new();
    for r in records {
        let b = boards.entry(&r.board).or_default();
        b.game.clone_from(&r.game);
        b.games += 1;
        match Outcome::from_result_str(&r.result) {
            Some(Outcome::Decisive {
                winner: Side::First,
            }) => b.first_wins += 1,
            Some(Outcome::Decisive {
                winner: Side::Second,
            }) => b.second_wins += 1,
            Some(Outcome::Draw) => b.draws += 1,
            None => {}
        }
        b.plies += u64::from(r.plies);
        b.duration_ms += r.duration_ms;
        if r.termination != Termination::Normal {
            b.early += 1;
        }
    }
    let mut out = String::from(
        "<table class=\"boards\"><thead><tr><th>board</th><th>game</th><th>games</th>\
         <th>first wins %</th><th>draws %</th><th>second wins %</th><th>first player score %</th>\
         <th>mean plies</th><th>mean duration (s)</th><th>not normal endings</th>\
         <th>first-player advantage (Elo) [interval]</th><th>draw rate % [interval]</th>\
         <th>distinct pairs</th></tr></thead><tbody>",
    );
    for (name, b) in &boards {
        let first_score = if b.games == 0 {
            "–".to_owned()
        } else {
            format!(
                "{:.1}",
                100.0 * (b.first_wins as f64 + 0.5 * b.draws as f64) / b.games as f64
            )
        };
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{first_score}</td>\
             <td>{:.1}</td><td>{:.2}</td><td>{}</td></tr>",
            esc(name),
            esc(&b.game),
            b.games,
            pct(b.first_wins, b.games),
            pct(b.draws, b.games),
            pct(b.second_wins, b.games),
            b.plies as f64 / b.games.max(1) as f64,
            b.duration_ms as f64 / 1000.0 / b.games.max(1) as f64,
            b.early
        );
        out.truncate(out.len() - "</tr>".len());
        out.push_str(&fairness_cells(standings, name));
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out.push_str(
        "<p class=\"note\">First-player advantage: the first player's score over distinct \
         colour-swapped game pairs, as Elo (the paired estimate: the engines' strengths cancel \
         within a pair); the draw rate over the same pairs. Both in boards.csv.</p>",
    );
    out.push_str(&repeats_note(records));
    for scope in scopes(standings)
        .into_iter()
        .filter(|s| s.starts_with("board:"))
    {
        out.push_str(&standings_table(standings, scope, level));
    }
    out
}

/// The boards table's advantage, draw-rate and pair cells of board `name`, from boards.csv's
/// row (`–` when the board has no complete pair).
fn fairness_cells(standings: &Standings, name: &str) -> String {
    let scope = format!("board:{name}");
    let Some(row) = standings.boards.iter().find(|b| b.scope == scope) else {
        return "<td>–</td><td>–</td><td>0</td>".to_owned();
    };
    let bound =
        |v: Option<f64>, open: &str| v.map_or_else(|| open.to_owned(), |v| format!("{v:.1}"));
    let advantage = match row.first_score_pct {
        None => "–".to_owned(),
        Some(score) => format!(
            "{} [{}, {}]",
            row.first_elo
                .map_or_else(|| format!("({score:.0}% score)"), |e| format!("{e:.1}")),
            bound(row.first_elo_ci_low, "−∞"),
            bound(row.first_elo_ci_high, "+∞")
        ),
    };
    let draws = match row.draw_pct {
        None => "–".to_owned(),
        Some(d) => format!(
            "{d:.1} [{}, {}]",
            bound(row.draw_ci_low, "0"),
            bound(row.draw_ci_high, "100")
        ),
    };
    format!("<td>{advantage}</td><td>{draws}</td><td>{}</td>", row.n_eff)
}

/// The rank-probability table of scope `all` (at most [`crate::ranks::MAX_SHOWN`] engines);
/// empty otherwise.
pub fn rank_table(standings: &Standings) -> String {
    let rows: Vec<&crate::ranks::RankRow> = standings
        .ranks
        .iter()
        .filter(|r| r.scope == "all")
        .collect();
    if rows.len() < 2 || rows.len() > crate::ranks::MAX_SHOWN {
        return String::new();
    }
    let mut out = String::from(
        "<h3>Rank probabilities</h3><p class=\"note\">How likely each engine is to hold each \
         place (%), from the fit's ratings and covariance (40,000 seeded draws, ±0.5 points); \
         ranks.csv has every scope.</p><table class=\"ranks\"><thead><tr><th>engine</th>",
    );
    for k in 1..=rows.len() {
        let _ = write!(out, "<th>#{k}</th>");
    }
    out.push_str("<th>expected rank</th></tr></thead><tbody>");
    for r in rows {
        let _ = write!(out, "<tr><td>{}</td>", esc(&r.engine));
        for p in &r.probability {
            let _ = write!(out, "<td>{:.1}</td>", 100.0 * p);
        }
        let _ = write!(out, "<td>{:.2}</td></tr>", r.expected_rank);
    }
    out.push_str("</tbody></table>");
    out
}

/// Games that repeat earlier ones, per engine pair, with the hint when most do; empty when
/// none repeats.
fn repeats_note(records: &[GameRecord]) -> String {
    let lines = crate::repeats::summary_lines(records);
    if lines.is_empty() {
        return String::new();
    }
    let items: String = lines
        .iter()
        .map(|l| format!("<li>{}</li>", esc(l)))
        .collect();
    format!(
        "<p class=\"note\">Repeated games (each distinct game pair is rated once):</p><ul class=\"repeats\">{items}</ul>"
    )
}

/// The side that lost `r`, if it was decisive.
fn loser(r: &GameRecord) -> Option<&str> {
    match Outcome::from_result_str(&r.result)? {
        Outcome::Decisive {
            winner: Side::First,
        } => Some(&r.second),
        Outcome::Decisive {
            winner: Side::Second,
        } => Some(&r.first),
        Outcome::Draw => None,
    }
}

/// Whether a termination is an engine's fault (it loses the game by it).
fn is_fault(t: Termination) -> bool {
    !matches!(
        t,
        Termination::Normal
            | Termination::MaxPlies
            | Termination::AdjudicatedWin
            | Termination::AdjudicatedDraw
    )
}

/// Per engine, games ended normally or at `max_plies`, and games it lost by resigning, an
/// illegal move, a time forfeit, a crash or a protocol error; then the first 100 of those
/// games with their detail (linked to the viewer when embedded).
pub fn terminations(records: &[GameRecord], embedded: &BTreeSet<u64>) -> String {
    let mut per: BTreeMap<&str, BTreeMap<Termination, u64>> = BTreeMap::new();
    let mut games: BTreeMap<&str, u64> = BTreeMap::new();
    for r in records {
        for e in [&r.first, &r.second] {
            *games.entry(e).or_default() += 1;
            if !is_fault(r.termination) {
                *per.entry(e).or_default().entry(r.termination).or_default() += 1;
            }
        }
        if is_fault(r.termination) {
            if let Some(l) = loser(r) {
                *per.entry(l).or_default().entry(r.termination).or_default() += 1;
            }
        }
    }
    let mut out = String::from("<table class=\"terms\"><thead><tr><th>engine</th><th>games</th>");
    for t in Termination::ALL {
        let _ = write!(out, "<th>{}</th>", t.name().replace('_', " "));
    }
    out.push_str("</tr></thead><tbody>");
    for (e, n) in &games {
        let _ = write!(out, "<tr><td class=\"eng\">{}</td><td>{n}</td>", esc(e));
        for t in Termination::ALL {
            let k = per.get(e).and_then(|m| m.get(&t)).copied().unwrap_or(0);
            let bad = if is_fault(t) && k > 0 {
                " class=\"bad\""
            } else {
                ""
            };
            let _ = write!(out, "<td{bad}>{k}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    let faults: Vec<&GameRecord> = records.iter().filter(|r| is_fault(r.termination)).collect();
    if !faults.is_empty() {
        let _ = write!(
            out,
            "<details open><summary>{} games lost by a fault{}</summary><table class=\"faults\">\
             <thead><tr><th>game</th><th>board</th><th>lost by</th><th>termination</th>\
             <th>ply</th><th>detail</th></tr></thead><tbody>",
            faults.len(),
            if faults.len() > 100 {
                " (the first 100)"
            } else {
                ""
            }
        );
        for r in faults.iter().take(100) {
            let id = if embedded.contains(&r.game_id) {
                format!("<a href=\"#game={0}\">{0}</a>", r.game_id)
            } else {
                r.game_id.to_string()
            };
            let _ = write!(
                out,
                "<tr><td>{id}</td><td>{}</td><td class=\"eng\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.board),
                esc(loser(r).unwrap_or("–")),
                r.termination,
                r.plies,
                esc(&r.detail)
            );
        }
        out.push_str("</tbody></table></details>");
    }
    out
}

/// Thinking time per move per engine from games.csv (each engine's total time over its
/// plies), with median, 95th percentile, maximum, depth and nodes per second from moves.csv
/// when present.
pub fn time_per_move(records: &[GameRecord], moves: Option<&Moves>) -> String {
    #[derive(Default)]
    struct T {
        ms: u64,
        plies: u64,
        per_board: BTreeMap<String, (u64, u64)>,
    }
    let mut per: BTreeMap<&str, T> = BTreeMap::new();
    for r in records {
        let first_plies = u64::from(r.plies).div_ceil(2);
        for (e, ms, plies) in [
            (&r.first, r.first_time_ms, first_plies),
            (
                &r.second,
                r.second_time_ms,
                u64::from(r.plies) - first_plies,
            ),
        ] {
            let t = per.entry(e).or_default();
            t.ms += ms;
            t.plies += plies;
            let b = t.per_board.entry(r.board.clone()).or_default();
            b.0 += ms;
            b.1 += plies;
        }
    }
    let boards: BTreeSet<&str> = records.iter().map(|r| r.board.as_str()).collect();
    let mut out = String::from(
        "<table class=\"time\"><thead><tr><th>engine</th><th>moves</th><th>mean ms/move</th>",
    );
    for b in &boards {
        let _ = write!(out, "<th>{} ms/move</th>", esc(b));
    }
    if moves.is_some() {
        out.push_str(
            "<th>median ms</th><th>p95 ms</th><th>max ms</th><th>mean depth</th><th>mean nps</th>",
        );
    }
    out.push_str("</tr></thead><tbody>");
    let mean = |ms: u64, n: u64| {
        if n == 0 {
            "–".to_owned()
        } else {
            format!("{:.1}", ms as f64 / n as f64)
        }
    };
    for (e, t) in &per {
        let _ = write!(
            out,
            "<tr><td class=\"eng\">{}</td><td>{}</td><td>{}</td>",
            esc(e),
            t.plies,
            mean(t.ms, t.plies)
        );
        for b in &boards {
            let (ms, n) = t.per_board.get(*b).copied().unwrap_or((0, 0));
            let _ = write!(out, "<td>{}</td>", mean(ms, n));
        }
        if let Some(m) = moves {
            let row = m.engines.get(*e);
            let f = |v: Option<f64>, digits: usize| {
                v.map_or_else(|| "–".to_owned(), |v| format!("{v:.digits$}"))
            };
            let _ = write!(
                out,
                "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
                f(row.and_then(|r| r.time_quantile(0.5)), 1),
                f(row.and_then(|r| r.time_quantile(0.95)), 1),
                f(row.filter(|r| r.timed > 0).map(|r| r.time_max), 0),
                f(
                    row.filter(|r| r.depth_n > 0)
                        .map(|r| r.depth_sum / r.depth_n as f64),
                    1
                ),
                f(
                    row.filter(|r| r.nps_n > 0)
                        .map(|r| r.nps_sum / r.nps_n as f64),
                    0
                ),
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
    out
}

/// The SPRT trace chart and its decision: the first row at or beyond a bound (the test ends
/// there: its games are the count the terminal and sprt.csv give), else the last row.
pub fn sprt(rows: &[SprtRow]) -> String {
    let Some(last) = rows.last() else {
        return "<p>sprt.csv has no rows.</p>".to_owned();
    };
    let decided = rows.iter().find(|r| r.llr >= r.upper || r.llr <= r.lower);
    let (row, state) = match decided {
        Some(r) if r.llr >= r.upper => (r, "H1 accepted"),
        Some(r) => (r, "H0 accepted"),
        None => (last, "running (no decision)"),
    };
    format!(
        "{}<p class=\"note\">{state} after {} games ({} pairs): LLR {:.3} in [{:.3}, {:.3}]. \
         Elo of the test's first engine over the second, the test's own estimate from those \
         games (not the standings' Bradley–Terry fit of every game): {} [{}, {}].</p>",
        charts::sprt_chart(rows),
        row.games,
        row.pairs,
        row.llr,
        row.lower,
        row.upper,
        opt(row.elo),
        opt(row.elo_ci_low),
        opt(row.elo_ci_high)
    ) + &repeated_note(last.repeated_pairs)
}

/// The note under the SPRT chart when game pairs were left out as repeats.
fn repeated_note(pairs: u64) -> String {
    if pairs == 0 {
        return String::new();
    }
    format!(
        "<p class=\"note\">{pairs} game pair(s) repeated a counted pair move for move and were \
         not counted: a copy carries no new evidence.</p>"
    )
}

fn select(id: &str, label: &str, values: &BTreeSet<String>) -> String {
    let mut out = format!("<label>{label} <select id=\"{id}\"><option value=\"\">any</option>");
    for v in values {
        let _ = write!(out, "<option>{}</option>", esc(v));
    }
    out.push_str("</select></label> ");
    out
}

/// The list of embedded games with filters by engine, board, result and termination; a row's
/// button opens it in the viewer.
pub fn game_list(records: &[GameRecord], chosen: &[usize], embedded: &BTreeSet<u64>) -> String {
    let shown: Vec<&GameRecord> = chosen
        .iter()
        .map(|&i| &records[i])
        .filter(|r| embedded.contains(&r.game_id))
        .collect();
    let collect = |f: &dyn Fn(&GameRecord) -> Vec<String>| -> BTreeSet<String> {
        shown.iter().flat_map(|r| f(r)).collect()
    };
    let mut out = String::from("<div class=\"filters\">");
    out.push_str(&select(
        "f-engine",
        "engine",
        &collect(&|r| vec![r.first.clone(), r.second.clone()]),
    ));
    out.push_str(&select(
        "f-board",
        "board",
        &collect(&|r| vec![r.board.clone()]),
    ));
    out.push_str(&select(
        "f-result",
        "result",
        &collect(&|r| vec![r.result.clone()]),
    ));
    out.push_str(&select(
        "f-term",
        "termination",
        &collect(&|r| vec![r.termination.to_string()]),
    ));
    let _ = write!(
        out,
        "<span id=\"f-count\">{} games</span></div><div class=\"list\"><table id=\"games\">\
         <thead><tr><th>game</th><th>round</th><th>board</th><th>first</th><th>second</th>\
         <th>result</th><th>termination</th><th>plies</th><th>score</th><th>time (s)</th>\
         </tr></thead><tbody>",
        shown.len()
    );
    for r in shown {
        let score = match (r.score_first, r.score_second) {
            (Some(a), Some(b)) => format!("{a}–{b}"),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "<tr data-id=\"{id}\" data-e1=\"{e1}\" data-e2=\"{e2}\" data-b=\"{b}\" data-r=\"{res}\" \
             data-t=\"{t}\"><td><a href=\"#game={id}\">{id}</a></td><td>{}</td><td>{b}</td>\
             <td class=\"eng\">{e1}</td><td class=\"eng\">{e2}</td><td>{res}</td><td>{t}</td>\
             <td>{}</td><td>{score}</td><td>{:.2}</td></tr>",
            r.round,
            r.plies,
            r.duration_ms as f64 / 1000.0,
            id = r.game_id,
            e1 = esc(&r.first),
            e2 = esc(&r.second),
            b = esc(&r.board),
            res = esc(&r.result),
            t = r.termination,
        );
    }
    out.push_str("</tbody></table></div>");
    out
}
