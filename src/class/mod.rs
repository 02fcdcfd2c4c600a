//! A class championship's parts that know no tournament: the teams found in a folder of
//! submissions ([`submissions`]), their level on the staff ladder and its grade ([`levels`]),
//! and the pseudonyms of a public leaderboard ([`pseudonyms`]). Pure or file-reading only;
//! the run wires them in (issue of the class championship, in progress).

pub mod levels;
pub mod pseudonyms;
pub mod submissions;
