//! Standings: game records → rating and head-to-head tables per scope. Pure; the report module
//! writes them.
//!
//! Scopes: `all` (every game), `game:<game>` and `board:<board>`. Each is fitted on its own
//! (joint Bradley–Terry with pair-clustered intervals, see [`crate::rating`]); head-to-head rows
//! use the pentanomial estimate when every game of the match sits in a complete game pair, else
//! the trinomial one.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rating::{self, FitGame, FitOptions};
use crate::record::GameRecord;
use crate::repeats;

pub mod observed;

pub use observed::{Names, Observation};

/// One row of `ratings.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RatingRow {
    /// `all`, `game:<game>` or `board:<board>`.
    pub scope: String,
    /// 1 = strongest.
    pub rank: usize,
    /// Engine name.
    pub engine: String,
    /// Rating (Elo, 0.1).
    pub elo: f64,
    /// Lower end of the interval (Elo); empty when unbounded (a 0% score).
    pub ci_low: Option<f64>,
    /// Upper end of the interval (Elo); empty when unbounded (a 100% score).
    pub ci_high: Option<f64>,
    /// Half-width of the interval (Elo); empty when one end is unbounded.
    pub err95: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Points (win 1, draw ½).
    pub points: f64,
    /// Points per game (%).
    pub score_pct: f64,
    /// Draws per game (%).
    pub draw_pct: f64,
    /// Likelihood (%) that this engine is stronger than the next one down; empty for the last.
    pub los_next: Option<f64>,
    /// `perfect_score`, `prior`, `poolN`, `unrated`, space-separated.
    pub flags: String,
    /// Distinct game pairs (clusters) behind the rating: a pair that repeats an earlier one
    /// counts once (see [`crate::repeats`]); equals the game pairs played when nothing repeats.
    pub n_eff: u64,
}

/// One row of `pairs.csv`: a head-to-head match.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PairRow {
    /// Scope, as in [`RatingRow`].
    pub scope: String,
    /// First engine (config order).
    pub engine_a: String,
    /// Second engine.
    pub engine_b: String,
    /// Games between them.
    pub games: u64,
    /// A's wins.
    pub wins_a: u64,
    /// Draws.
    pub draws: u64,
    /// A's losses.
    pub losses_a: u64,
    /// A's points per game (%).
    pub score_a_pct: f64,
    /// A's Elo over B; empty for a 0% or 100% score.
    pub elo_diff: Option<f64>,
    /// Lower end of the interval (Elo); empty when unbounded.
    pub ci_low: Option<f64>,
    /// Upper end of the interval (Elo); empty when unbounded.
    pub ci_high: Option<f64>,
    /// Likelihood (%) that A is stronger.
    pub los: f64,
    /// Game pairs in which A scored 0 points.
    pub penta_0: u64,
    /// … ½ point.
    pub penta_1: u64,
    /// … 1 point.
    pub penta_2: u64,
    /// … 1½ points.
    pub penta_3: u64,
    /// … 2 points.
    pub penta_4: u64,
    /// Distinct game pairs (clusters) behind the estimate; the pentanomial counts add up to it
    /// when every game sits in a complete pair.
    pub n_eff: u64,
}

/// The tables of every scope.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standings {
    /// `ratings.csv` rows, scope by scope, ranked.
    pub ratings: Vec<RatingRow>,
    /// `pairs.csv` rows.
    pub pairs: Vec<PairRow>,
    /// `boards.csv` rows: the first player's advantage and the draw rate per board.
    pub boards: Vec<crate::boards::BoardRow>,
    /// `ranks.csv` rows: rank probabilities per scope, in rank order.
    pub ranks: Vec<crate::ranks::RankRow>,
}

/// Rounds to one decimal, without negative zero.
pub fn round1(x: f64) -> f64 {
    let r = (x * 10.0).round() / 10.0;
    if r == 0.0 { 0.0 } else { r }
}

/// The games of each scope, as indices into the observations: `all`, then `game:<game>` and
/// `board:<board>` in name order. Imported games may not say their game or board: they are
/// only in `all`.
fn scopes_of(games: &[Observation], names: &Names) -> Vec<(String, Vec<u32>)> {
    let mut scopes: Vec<(String, Vec<u32>)> = vec![("all".into(), index_all(games.len()))];
    let mut by_game: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    let mut by_board: BTreeMap<(&str, &str), Vec<u32>> = BTreeMap::new();
    for (i, g) in games.iter().enumerate() {
        let (game, board) = (names.game(g.place), names.board(g.place));
        if !game.is_empty() {
            by_game.entry(game).or_default().push(i as u32);
        }
        if !board.is_empty() {
            by_board.entry((game, board)).or_default().push(i as u32);
        }
    }
    scopes.extend(by_game.into_iter().map(|(g, rs)| (format!("game:{g}"), rs)));
    scopes.extend(
        by_board
            .into_iter()
            .map(|((_, b), rs)| (format!("board:{b}"), rs)),
    );
    scopes
}

/// `0, 1, …, n − 1` as game indices.
///
/// # Panics
/// Beyond 2³² games.
fn index_all(n: usize) -> Vec<u32> {
    (0..u32::try_from(n).expect("fewer than 2^32 games")).collect()
}

/// Computes every scope. `engines` fixes the engine order (config order; engines found only in
/// the records are appended); `anchor` fixes one engine's rating.
pub fn compute(
    records: &[GameRecord],
    engines: &[String],
    anchor: Option<(&str, f64)>,
    level: f64,
) -> Standings {
    let (games, names) = observed::of_records(records);
    compute_observed(&games, &names, engines, anchor, level)
}

/// [`compute`] on observations (see [`observed`]): the same tables, from a few numbers a game.
pub fn compute_observed(
    games: &[Observation],
    names: &Names,
    engines: &[String],
    anchor: Option<(&str, f64)>,
    level: f64,
) -> Standings {
    // Config order, then the order the games name them; `None` for a config engine with no
    // game.
    let mut order: Vec<(&str, Option<u32>)> = engines
        .iter()
        .map(|n| (n.as_str(), names.engines.get(n)))
        .collect();
    let mut listed = vec![false; names.engines.len()];
    for (_, id) in &order {
        if let Some(id) = id {
            listed[*id as usize] = true;
        }
    }
    for g in games {
        for e in [g.first, g.second] {
            if !std::mem::replace(&mut listed[e as usize], true) {
                order.push((names.engine(e), Some(e)));
            }
        }
    }
    drop(listed);
    let mut standings = Standings::default();
    for (scope, members) in scopes_of(games, names) {
        let rs: Vec<&Observation> = members.iter().map(|&i| &games[i as usize]).collect();
        drop(members);
        scope_tables(&mut standings, &scope, &rs, &order, anchor, level);
    }
    standings.boards = crate::boards::compute_observed(games, names, level);
    standings
}

/// One scope's rows of ratings.csv, pairs.csv and ranks.csv, appended to `standings`.
fn scope_tables(
    standings: &mut Standings,
    scope: &str,
    rs: &[&Observation],
    order: &[(&str, Option<u32>)],
    anchor: Option<(&str, f64)>,
    level: f64,
) {
    let mut plays = vec![
        false;
        order
            .iter()
            .filter_map(|e| e.1)
            .max()
            .map_or(0, |m| m as usize + 1)
    ];
    for r in rs {
        for e in [r.first, r.second] {
            if let Some(p) = plays.get_mut(e as usize) {
                *p = true;
            }
        }
    }
    // Engines of the scope, in engine order: (name, index into the names).
    let present: Vec<(&str, u32)> = order
        .iter()
        .filter_map(|&(n, id)| id.filter(|&i| plays[i as usize]).map(|i| (n, i)))
        .collect();
    let mut local = vec![None; plays.len()];
    for (k, &(_, id)) in present.iter().enumerate() {
        local[id as usize] = Some(k);
    }
    let index = |id: u32| local.get(id as usize).copied().flatten();
    // A game pair that repeats an earlier one is left out; pairs sharing a game form one
    // cluster. Without repeats the clusters are the pairs, numbered in pair-id order.
    let clusters = repeats::of_observations(rs);
    let games: Vec<FitGame> = rs
        .iter()
        .enumerate()
        .filter(|&(i, _)| clusters.counted[i])
        .filter_map(|(i, r)| {
            Some(FitGame {
                a: index(r.first)?,
                b: index(r.second)?,
                points_a: r.points_of(r.first)?,
                cluster: u64::from(clusters.cluster[i]),
            })
        })
        .collect();
    let anchor_index = anchor.and_then(|(name, elo)| {
        present
            .iter()
            .position(|(n, _)| *n == name)
            .map(|i| (i, elo))
    });
    let fit = rating::fit(
        present.len(),
        &games,
        &FitOptions {
            anchor: anchor_index,
            level,
        },
    );
    drop(games);
    let mut ranked: Vec<usize> = (0..present.len()).collect();
    ranked.sort_by(|&a, &b| fit.elo[b].total_cmp(&fit.elo[a]).then(a.cmp(&b)));
    if ranked.len() <= crate::ranks::MAX_ENGINES {
        let names: Vec<&str> = ranked.iter().map(|&i| present[i].0).collect();
        standings
            .ranks
            .extend(crate::ranks::compute(scope, &names, &ranked, &fit));
    }
    rating_rows(
        standings, scope, rs, &present, &local, &ranked, &fit, &clusters,
    );
    for (x, a) in present.iter().enumerate() {
        for b in &present[x + 1..] {
            if let Some(row) = head_to_head(scope, *a, *b, rs, &clusters, level) {
                standings.pairs.push(row);
            }
        }
    }
}

/// One scope's rows of ratings.csv, in rank order, appended to `standings`: `present` are the
/// scope's engines (name, index into the names), `local` their positions by index, `ranked`
/// the positions in rank order.
#[allow(clippy::too_many_arguments)] // the scope's parts, computed once by the caller
fn rating_rows(
    standings: &mut Standings,
    scope: &str,
    rs: &[&Observation],
    present: &[(&str, u32)],
    local: &[Option<usize>],
    ranked: &[usize],
    fit: &rating::Fit,
    clusters: &repeats::Clusters,
) {
    let index = |id: u32| local.get(id as usize).copied().flatten();
    // Wins, draws and losses of each present engine.
    let mut wdl = vec![[0u64; 3]; present.len()];
    for r in rs {
        for e in [r.first, r.second] {
            if let (Some(k), Some(p)) = (index(e), r.points_of(e)) {
                wdl[k][slot(p)] += 1;
            }
        }
    }
    for (rank, &i) in ranked.iter().enumerate() {
        let (name, id) = present[i];
        let [wins, draws, losses] = wdl[i];
        let played = wins + draws + losses;
        let all_won = played > 0 && wins == played;
        let all_lost = played > 0 && losses == played;
        let points = wins as f64 + draws as f64 / 2.0;
        let pct = |x: f64| {
            if played == 0 {
                0.0
            } else {
                round1(100.0 * x / played as f64)
            }
        };
        standings.ratings.push(RatingRow {
            scope: scope.to_owned(),
            rank: rank + 1,
            engine: name.to_owned(),
            elo: round1(fit.elo[i]),
            // A perfect score puts no bound on one side: the prior makes the rating finite,
            // not the data, so that side is left open rather than reported falsely tight.
            ci_low: (!all_lost).then(|| round1(fit.elo[i] - fit.err[i])),
            ci_high: (!all_won).then(|| round1(fit.elo[i] + fit.err[i])),
            err95: (!all_won && !all_lost).then(|| round1(fit.err[i])),
            games: played,
            wins,
            draws,
            losses,
            points,
            score_pct: pct(points),
            draw_pct: pct(draws as f64),
            los_next: ranked
                .get(rank + 1)
                .and_then(|&next| fit.los(i, next))
                .map(|l| round1(100.0 * l)),
            flags: fit.flags[i].words(),
            n_eff: clusters.n_eff(|g| rs[g].points_of(id).is_some()),
        });
    }
}

/// The W/D/L slot of a score: 0 a win, 1 a draw, 2 a loss.
fn slot(points: f64) -> usize {
    match points {
        1.0 => 0,
        0.5 => 1,
        _ => 2,
    }
}

/// The head-to-head row of `a` and `b` (name, index) in `records`: W/D/L over every game they
/// played; the estimate (pentanomial when every counted game sits in a complete pair, else
/// trinomial) and the pentanomial counts over the counted games of `clusters` (a repeated pair
/// once). `None` when they never met or one of their games has no result.
fn head_to_head(
    scope: &str,
    (a_name, a): (&str, u32),
    (b_name, b): (&str, u32),
    records: &[&Observation],
    clusters: &repeats::Clusters,
    level: f64,
) -> Option<PairRow> {
    let mut wdl = [0u64; 3];
    let mut counted_wdl = [0u64; 3];
    // (pair id, A's points doubled) of each counted game: sorted, a pair's legs are adjacent.
    let mut legs: Vec<(u64, u8)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if !r.between(a, b) {
            continue;
        }
        let p = r.points_of(a)?;
        wdl[slot(p)] += 1;
        if clusters.counted[i] {
            counted_wdl[slot(p)] += 1;
            legs.push((r.pair, (2.0 * p) as u8));
        }
    }
    let [wins, draws, losses] = wdl;
    if wins + draws + losses == 0 {
        return None;
    }
    legs.sort_unstable();
    let mut penta = [0u64; 5];
    let mut all_paired = true;
    for pair in legs.chunk_by(|x, y| x.0 == y.0) {
        match pair {
            [(_, p), (_, q)] => penta[usize::from(p + q)] += 1,
            _ => all_paired = false,
        }
    }
    drop(legs);
    let estimate = if all_paired {
        rating::pentanomial(penta, level)
    } else {
        let [w, d, l] = counted_wdl;
        rating::trinomial(w, d, l, level)
    }?;
    let games = wins + draws + losses;
    Some(PairRow {
        scope: scope.to_owned(),
        engine_a: a_name.to_owned(),
        engine_b: b_name.to_owned(),
        games,
        wins_a: wins,
        draws,
        losses_a: losses,
        score_a_pct: round1(100.0 * (wins as f64 + draws as f64 / 2.0) / games as f64),
        elo_diff: estimate.elo.map(round1),
        ci_low: estimate.lower.map(round1),
        ci_high: estimate.upper.map(round1),
        los: round1(100.0 * estimate.los),
        penta_0: penta[0],
        penta_1: penta[1],
        penta_2: penta[2],
        penta_3: penta[3],
        penta_4: penta[4],
        n_eff: clusters.n_eff(|i| records[i].between(a, b) && records[i].points_of(a).is_some()),
    })
}

/// The fastchess-style summary line of a two-engine match (scope `all`), from A's view:
/// `Elo: 55.6 +/- 27.7, nElo: 57.9 +/- 28.3, LOS: 100.0 %, DrawRatio: 21.7 %, Ptnml(0-2): […]`.
/// `None` unless exactly two engines played and every game sits in a complete pair.
pub fn two_engine_line(records: &[GameRecord], level: f64) -> Option<String> {
    let (games, names) = observed::of_records(records);
    two_engine_line_observed(&games, &names, level)
}

/// [`two_engine_line`] on observations.
pub fn two_engine_line_observed(
    games: &[Observation],
    names: &Names,
    level: f64,
) -> Option<String> {
    let mut engines: Vec<u32> = Vec::new();
    for g in games {
        for e in [g.first, g.second] {
            if !engines.contains(&e) {
                engines.push(e);
            }
        }
    }
    let [a, b] = engines[..] else { return None };
    let (a, b) = ((names.engine(a), a), (names.engine(b), b));
    let refs: Vec<&Observation> = games.iter().collect();
    let clusters = repeats::of_observations(&refs);
    let row = head_to_head("all", a, b, &refs, &clusters, level)?;
    let (a, b) = (a.0, b.0);
    let penta = [
        row.penta_0,
        row.penta_1,
        row.penta_2,
        row.penta_3,
        row.penta_4,
    ];
    let estimate = rating::pentanomial(penta, level)?;
    let pairs: u64 = penta.iter().sum();
    let counted = clusters.counted.iter().filter(|&&c| c).count() as u64;
    if pairs * 2 != counted {
        return None;
    }
    let bound = |b: Option<f64>| b.map_or_else(|| "unbounded".to_owned(), |v| format!("{v:.1}"));
    let elo = match (estimate.elo, estimate.half_width()) {
        // `+ 0.0` turns a negative zero into zero.
        (Some(e), Some(h)) => format!("{:.1} +/- {h:.1}", e + 0.0),
        (Some(e), None) => format!(
            "{e:.1} [{}, {}]",
            bound(estimate.lower),
            bound(estimate.upper)
        ),
        (None, _) => format!("unbounded (a {:.0}% score)", 100.0 * estimate.score),
    };
    let nelo = estimate.nelo.map_or_else(
        || "undefined".to_owned(),
        |n| format!("{n:.1} +/- {:.1}", estimate.nelo_err),
    );
    Some(format!(
        "{a} vs {b}: Elo: {elo}, nElo: {nelo}, LOS: {:.1} %, DrawRatio: {:.1} %, Ptnml(0-2): {penta:?}",
        100.0 * estimate.los,
        100.0 * row.draws as f64 / row.games as f64,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{GameIds, Termination};

    fn record(
        id: u64,
        pair: u64,
        first: &str,
        second: &str,
        result: &str,
        board: &str,
    ) -> GameRecord {
        let ids = GameIds {
            game_id: id,
            round: 1,
            pair,
            board,
            game: board.split('-').next().unwrap(),
            first,
            second,
        };
        GameRecord {
            plies: 1,
            ..GameRecord::unplayed(ids, result, Termination::Normal, String::new())
        }
    }

    #[test]
    fn scopes_ranks_and_pentanomial_counts() {
        let records = vec![
            record(0, 0, "a", "b", "1-0", "awale-6"),
            record(1, 0, "b", "a", "1/2-1/2", "awale-6"),
            record(2, 1, "a", "b", "0-1", "amazons-square-6"),
            record(3, 1, "b", "a", "1-0", "amazons-square-6"),
        ];
        let s = compute(&records, &["b".into(), "a".into()], None, 0.95);
        let scopes: Vec<&str> = s.ratings.iter().map(|r| r.scope.as_str()).collect();
        assert_eq!(
            scopes,
            [
                "all",
                "all",
                "game:amazons",
                "game:amazons",
                "game:awale",
                "game:awale",
                "board:amazons-square-6",
                "board:amazons-square-6",
                "board:awale-6",
                "board:awale-6"
            ]
        );
        let top = &s.ratings[0];
        assert_eq!(
            (
                top.engine.as_str(),
                top.rank,
                top.wins,
                top.draws,
                top.losses
            ),
            ("b", 1, 2, 1, 1)
        );
        assert_eq!(top.score_pct, 62.5);
        assert!(top.los_next.is_some() && s.ratings[1].los_next.is_none());
        let all = &s.pairs[0];
        assert_eq!((all.engine_a.as_str(), all.engine_b.as_str()), ("b", "a"));
        // b's pairs: pair 0 = 0 + ½ (index 1), pair 1 = 1 + 1 (index 4).
        assert_eq!(
            [
                all.penta_0,
                all.penta_1,
                all.penta_2,
                all.penta_3,
                all.penta_4
            ],
            [0, 1, 0, 0, 1]
        );
        let awale = s
            .ratings
            .iter()
            .find(|r| r.scope == "board:awale-6" && r.engine == "b")
            .unwrap();
        // One game pair whose two residuals cancel: the interval rests on the variance floor.
        assert_eq!((awale.points, awale.flags.as_str()), (0.5, "floor"));
        assert!(awale.err95.is_some_and(|e| e > 0.0));
        let swept = s
            .ratings
            .iter()
            .find(|r| r.scope == "board:amazons-square-6" && r.engine == "a")
            .unwrap();
        assert_eq!(
            (swept.points, swept.flags.as_str()),
            (0.0, "perfect_score prior")
        );
        // Swept: nothing bounds it from below.
        assert_eq!((swept.ci_low, swept.err95), (None, None));
        assert!(swept.ci_high.is_some());
    }

    #[test]
    fn two_engine_line_needs_exactly_two_engines_in_pairs() {
        let records = vec![
            record(0, 0, "a", "b", "1-0", "awale-6"),
            record(1, 0, "b", "a", "1/2-1/2", "awale-6"),
        ];
        let line = two_engine_line(&records, 0.95).unwrap();
        assert!(line.starts_with("a vs b: Elo: "), "{line}");
        assert!(line.contains("Ptnml(0-2): [0, 0, 0, 1, 0]"), "{line}");
        assert!(two_engine_line(&records[..1], 0.95).is_none());
    }
}
