//! arena runs tournaments between board-game engines and rates them.
//!
//! Engines are separate programs that speak UGI (see `docs/protocol.md`); arena referees every
//! game with its own rules library. The modules follow the flow of a tournament, and
//! dependencies point inward, towards [`games`]:
//!
//! - [`games`]: the rules of Seven Colors, Amazons and Awale behind one [`games::Game`] trait.
//! - [`protocol`]: UGI lines, parsed and printed; [`ugi`]: the loop a Rust engine runs.
//! - [`config`]: YAML configs → a validated [`config::Plan`].
//! - [`class`]: a class championship's teams from a submissions folder, ladder levels and
//!   grades, pseudonyms.
//! - [`formats`]: Swiss pairing and knockout brackets, pure; [`estimate`]: how long a run
//!   will take, from each engine's measured time per move (`arena check`).
//! - [`schedule`]: every game expanded up front from the config and seed; [`openings`]: opening
//!   suites (file format, each round's opening, `arena openings`).
//! - [`engine`]: live engine processes; [`reaper`]: their orphaned descendants ended;
//!   [`referee`]: one game between two of them.
//! - [`runner`]: the worker pool; [`record`]: a finished game and its plies; [`tournament`]: a whole run,
//!   from plan to result files (shared by `run` and `check`), its shards, their merge and
//!   the Slurm job array that plays them.
//! - [`rating`]: Bradley–Terry and pentanomial maths; [`standings`]: per-scope tables.
//! - [`import`]: games from CSV and PGN files of arena or other tools, for `arena ratings`.
//! - [`player_library`]: course Amazons players built as shared libraries (config form, adapter).
//! - [`play`]: `arena play` (a person against an engine) and `arena replay` at the terminal.
//! - [`live`]: the live page of a running or finished tournament (`--serve`, `arena serve`).
//! - [`report`]: CSV, PGN, report.html, results.xlsx, progress and summary; [`commands`] and
//!   [`cli`]: the binary.
//! - [`sprt`]: the SPRT of engine testing (LLR, bounds, decision), beside [`rating`].
//! - [`adjudication`]: ending games early by the engines' own scores; per-move engine info is
//!   written by [`record::moves`] and summed per engine by [`report::engines`].
//! - [`seed`]: portable seeded randomness, so one seed gives the same tournament everywhere.
#![deny(missing_docs)]

pub mod adjudication;
pub mod boards;
pub mod check_engine;
pub mod class;
pub mod cli;
pub mod commands;
pub mod config;
pub mod engine;
pub mod estimate;
pub mod formats;
pub mod games;
pub mod import;
pub mod live;
pub mod openings;
pub mod play;
pub mod player_library;
pub mod protocol;
pub mod ranks;
pub mod rating;
pub mod reaper;
pub mod record;
pub mod referee;
pub mod repeats;
pub mod report;
pub mod runner;
pub mod sandbox;
pub mod schedule;
pub mod seed;
pub mod sprt;
pub mod standings;
pub mod tournament;
pub mod ugi;
