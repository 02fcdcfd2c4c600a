//! A class championship: the teams found in a folder of submissions ([`submissions`]), checked
//! and entered at plan time ([`roster`]), their level on the staff ladder and its grade
//! ([`levels`]), the pseudonyms of a public leaderboard ([`pseudonyms`]), and what a finished
//! run writes for the teacher and each team ([`outputs`]: `teams.csv`, `teams/<team>.html`).

pub mod levels;
pub mod outputs;
pub mod pseudonyms;
pub mod roster;
pub mod submissions;

pub use roster::Roster;
pub use submissions::Defaults as SubmissionsDefaults;
