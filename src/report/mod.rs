//! Everything a run writes for people and spreadsheets: `games.csv`, `ratings.csv`,
//! `pairs.csv`, `results.pgn` ([`files`]), `report.html` ([`html`]), `results.xlsx`
//! ([`xlsx`]), the progress display ([`progress`]) and the final terminal summary
//! ([`summary`]). Knows no engines and no rules.

pub mod engines;
pub mod files;
pub mod html;
pub mod progress;
pub mod sprt;
pub mod summary;
pub mod xlsx;

/// Writes `report.html`, `results.xlsx` and, for a class championship (a `teams.csv`), the
/// completed `teams.csv` and the team pages into `dir` (after a run, after an interrupt, or for
/// `arena report`); returns what the page holds.
///
/// # Errors
/// A message naming the file that could not be written.
pub fn write_visual(
    dir: &std::path::Path,
    records: &[crate::record::GameRecord],
    table: &crate::standings::Standings,
    level: f64,
    games: html::Games,
) -> Result<html::Written, String> {
    let options = html::Options { games, level };
    // teams.csv is completed first: report.html's teams section reads it.
    if let Some((keys, teams)) = crate::class::outputs::complete(dir, records, table)? {
        html::team::write_all(dir, &keys, &teams, records, table, &options)?;
    }
    let written = html::write(dir, records, table, &options).map_err(|e| e.to_string())?;
    xlsx::write(dir, records, table).map_err(|e| e.to_string())?;
    Ok(written)
}
