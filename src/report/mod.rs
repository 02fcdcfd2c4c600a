//! Everything a run writes for people and spreadsheets: `games.csv`, `ratings.csv`,
//! `pairs.csv`, `results.pgn` ([`files`]), `report.html` ([`html`]), `results.xlsx`
//! ([`xlsx`]), the progress display ([`progress`]) and the final terminal summary
//! ([`summary`]). Knows no engines and no rules.

pub mod files;
pub mod html;
pub mod progress;
pub mod summary;
pub mod xlsx;
