//! The run beside an imported file: the name, engine order, anchor and level its
//! `config.resolved.yaml` says, so that `arena ratings` writes what the run wrote; and the
//! `--anchor` argument.

use std::path::Path;

/// What `arena ratings` takes from the run that wrote a `games.csv` or `results.pgn`
/// (`config.resolved.yaml` in the same directory), so that it writes what the run wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunContext {
    /// Tournament name (PGN `Event`).
    pub name: Option<String>,
    /// Engines in config order (the order of `pairs.csv` rows and of each row's two engines).
    pub engines: Vec<String>,
    /// The config's anchor: engine and Elo.
    pub anchor: Option<(String, f64)>,
    /// The config's confidence level.
    pub confidence: Option<f64>,
}

#[derive(serde::Deserialize)]
struct ResolvedEngine {
    name: String,
}

#[derive(serde::Deserialize)]
struct ResolvedAnchor {
    engine: String,
    elo: f64,
}

/// The keys of `config.resolved.yaml` that ratings depend on; any other key is ignored, so a
/// file written by another arena version still reads.
#[derive(serde::Deserialize)]
struct Resolved {
    name: Option<String>,
    #[serde(default)]
    engines: Vec<ResolvedEngine>,
    anchor: Option<ResolvedAnchor>,
    confidence: Option<f64>,
}

/// The file a run writes its resolved config to, beside `games.csv`.
pub const RESOLVED_CONFIG: &str = "config.resolved.yaml";

/// Reads [`RESOLVED_CONFIG`] in `dir`, if there is one that parses.
pub fn run_context(dir: &Path) -> Option<RunContext> {
    let text = std::fs::read_to_string(dir.join(RESOLVED_CONFIG)).ok()?;
    let resolved: Resolved = serde_yaml::from_str(&text).ok()?;
    Some(RunContext {
        name: resolved.name,
        engines: resolved.engines.into_iter().map(|e| e.name).collect(),
        anchor: resolved.anchor.map(|a| (a.engine, a.elo)),
        confidence: resolved.confidence,
    })
}

pub use crate::rating::MAX_ANCHOR;

/// Parses `--anchor NAME=ELO` (`NAME` alone means 0).
///
/// # Errors
/// A message naming the argument when the name is empty or the rating is not a finite number.
pub fn parse_anchor(text: &str) -> Result<(String, f64), String> {
    let (name, elo) = text.rsplit_once('=').unwrap_or((text, "0"));
    let elo: f64 = elo
        .trim()
        .parse()
        .map_err(|_| format!("--anchor {text}: expected NAME=ELO, ELO a number"))?;
    if !elo.is_finite() || elo.abs() > MAX_ANCHOR {
        return Err(format!(
            "--anchor {text}: the rating must be a finite number within ±{MAX_ANCHOR}"
        ));
    }
    if name.trim().is_empty() {
        return Err(format!(
            "--anchor {text}: expected NAME=ELO, NAME an engine"
        ));
    }
    Ok((name.trim().to_owned(), elo))
}
