//! The result files computed from a tournament's games: `ratings.csv`, `pairs.csv`,
//! `results.pgn`, `report.html` and `results.xlsx`. One function, called by `arena run` after
//! its games and by `arena merge` after joining shards, so both write the same bytes from the
//! same games. Does not write games.csv (the caller does, with [`files::rewrite_games`]) and
//! plays nothing.

use std::path::Path;

use crate::config::{Config, Plan};
use crate::record::GameRecord;
use crate::report::{self, files};
use crate::standings::{self, Standings};

use super::{FAILED, Stop};

/// What the files are computed with, besides the games: from a [`Plan`] or a resolved config.
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// The tournament name (PGN `Event`).
    pub event: String,
    /// Engine names in config order (the tables' order of equals).
    pub engines: Vec<String>,
    /// The rating anchor: engine name and its Elo.
    pub anchor: Option<(String, f64)>,
    /// Confidence level of the intervals, in (0, 1).
    pub confidence: f64,
}

impl Context {
    /// The context of a run's plan.
    pub fn of_plan(plan: &Plan) -> Context {
        Context {
            event: plan.name.clone(),
            engines: super::engine_names(plan),
            anchor: plan
                .config
                .anchor
                .as_ref()
                .map(|a| (a.engine.clone(), a.elo)),
            confidence: plan.confidence,
        }
    }

    /// The context of a `config.resolved.yaml` (whose `name` the run filled in), with the
    /// defaults [`Config::plan`] applies.
    pub fn of_resolved(config: &Config) -> Context {
        Context {
            event: config.name.clone().unwrap_or_default(),
            engines: config.engines.iter().map(|e| e.name.clone()).collect(),
            anchor: config.anchor.as_ref().map(|a| (a.engine.clone(), a.elo)),
            confidence: config.confidence.unwrap_or(0.95),
        }
    }
}

/// Sorts `records` by game id and writes the rating files into `out`; then report.html and
/// results.xlsx, whose failure is returned second (a run reports it after its summary).
///
/// # Errors
/// [`Stop`] with [`FAILED`] naming a rating file that could not be written.
pub fn write(
    out: &Path,
    context: &Context,
    records: &mut [GameRecord],
) -> Result<(Standings, Result<report::html::Written, String>), Stop> {
    // In id order, as games.csv: `arena ratings` on that file then writes the same files.
    records.sort_by_key(|r| r.game_id);
    let anchor = context.anchor.as_ref().map(|(n, e)| (n.as_str(), *e));
    let table = standings::compute(records, &context.engines, anchor, context.confidence);
    files::write_ratings(out, &context.event, records, &table, context.confidence)
        .map_err(|e| Stop::new(FAILED, e.to_string()))?;
    let visual = report::write_visual(out, records, &table, context.confidence, Default::default());
    Ok((table, visual))
}
