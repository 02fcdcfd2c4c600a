//! Course Amazons players built as shared libraries (`player.h`): the config form
//! `{ name: team7, library: path/to/player.so, directions: clockwise }`, its resolution into the
//! command line of the `player-so` adapter (a binary of `arena-engines`), and the `arena check`
//! warnings about boards such players misread. A leaf below [`crate::config`]: it starts no
//! process and loads no library (the adapter does, in the engine's process; `arena check`
//! learns a library's load failure from the adapter's stderr). See `docs/course-players.md`.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::games::BoardSpec;

/// File name of the adapter binary, looked up next to the running `arena` executable.
pub const ADAPTER: &str = "player-so";

/// Which `dir.h` a player library was compiled against: the code stored in the graph matrix
/// for each step. Both have `NO_DIR = 0`, `NORTH = 1`, `NE = 2`, `SE = 4`, `SOUTH = 5`,
/// `SW = 6`, `NW = 8`; they differ only on east and west.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Directions {
    /// The corrected course header, used by most teams: `EAST = 3`, `WEST = 7`.
    Clockwise,
    /// The first version of the header (and the brief's example): `WEST = 3`, `EAST = 7`.
    West3,
}

impl Directions {
    /// The name in configs and on the adapter's command line.
    pub fn name(self) -> &'static str {
        match self {
            Directions::Clockwise => "clockwise",
            Directions::West3 => "west3",
        }
    }

    /// The code (1..=8) of the step `DIRECTIONS[index]` of `games::amazons` (clockwise from
    /// north: N, NE, E, SE, S, SW, W, NW).
    ///
    /// # Panics
    /// When `index` is not in 0..8.
    pub fn code(self, index: usize) -> u32 {
        assert!(index < 8, "direction index {index} out of 0..8");
        let clockwise = index as u32 + 1;
        match (self, clockwise) {
            (Directions::West3, 3) => 7,
            (Directions::West3, 7) => 3,
            _ => clockwise,
        }
    }
}

impl fmt::Display for Directions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Directions {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "clockwise" => Ok(Directions::Clockwise),
            "west3" => Ok(Directions::West3),
            _ => Err(format!(
                "unknown directions `{s}`: expected clockwise or west3"
            )),
        }
    }
}

/// The adapter's program and arguments for one library engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterCommand {
    /// The `player-so` binary.
    pub program: PathBuf,
    /// `--library <absolute path> --directions <d> --name <engine name>`.
    pub args: Vec<String>,
}

/// Turns a library engine into the adapter's command line. `library` is taken relative to
/// `base` (the directory arena runs in); `adapter_dir` is where `player-so` must be (the
/// directory of the running `arena`, see [`adapter_dir`]).
///
/// # Errors
/// A message naming the missing library or adapter file.
pub fn adapter_command(
    name: &str,
    library: &Path,
    directions: Directions,
    base: &Path,
    adapter_dir: &Path,
) -> Result<AdapterCommand, String> {
    let library = base.join(library);
    if !library.is_file() {
        return Err(format!(
            "library `{}` does not exist or is not a file",
            library.display()
        ));
    }
    let program = adapter_dir.join(ADAPTER);
    if !program.is_file() {
        return Err(format!(
            "library engines need the `{ADAPTER}` adapter next to arena, and `{}` does not \
             exist; build it with `cargo build --release --workspace` (binary `{ADAPTER}` of \
             arena-engines)",
            program.display()
        ));
    }
    Ok(AdapterCommand {
        program,
        args: vec![
            "--library".into(),
            library.display().to_string(),
            "--directions".into(),
            directions.name().into(),
            "--name".into(),
            name.into(),
        ],
    })
}

/// The directory of the running executable, where the adapter is expected; when that is
/// cargo's `deps/` (a unit test), its parent, where cargo puts the binaries.
///
/// # Errors
/// A message when the executable's path cannot be read.
pub fn adapter_dir() -> Result<PathBuf, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot locate the running arena executable: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("/")).to_path_buf();
    if dir.file_name().is_some_and(|n| n == "deps") && !dir.join(ADAPTER).exists() {
        if let Some(parent) = dir.parent() {
            return Ok(parent.to_path_buf());
        }
    }
    Ok(dir)
}

/// `arena check` warnings: Amazons boards whose `queens` differs from 4·(m/10 + 1), the count
/// some course players compute from the width instead of reading `num_queens`.
pub fn queens_warnings(boards: &[BoardSpec], board_names: &[String]) -> Vec<String> {
    boards
        .iter()
        .zip(board_names)
        .filter_map(|(board, name)| match board {
            BoardSpec::Amazons(spec) => {
                let usual = 4 * (spec.width / 10 + 1);
                (spec.queens() != usual).then(|| {
                    format!(
                        "board {name}: {} queens per player, not the usual 4*(m/10+1) = {usual}; \
                         library players that compute the count from the width will misplay",
                        spec.queens()
                    )
                })
            }
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_differ_only_on_east_and_west() {
        let cw: Vec<u32> = (0..8).map(|i| Directions::Clockwise.code(i)).collect();
        let w3: Vec<u32> = (0..8).map(|i| Directions::West3.code(i)).collect();
        assert_eq!(cw, [1, 2, 3, 4, 5, 6, 7, 8]);
        // West3: N=1 NE=2 WEST=3 SE=4 S=5 SW=6 EAST=7 NW=8; index 2 is east, 6 is west.
        assert_eq!(w3, [1, 2, 7, 4, 5, 6, 3, 8]);
        assert_eq!("west3".parse::<Directions>(), Ok(Directions::West3));
        assert!("counterclockwise".parse::<Directions>().is_err());
    }

    #[test]
    fn the_adapter_command_names_the_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("team7.so");
        let err =
            adapter_command("t", &lib, Directions::West3, dir.path(), dir.path()).unwrap_err();
        assert!(
            err.contains("team7.so") && err.contains("does not exist"),
            "{err}"
        );
        std::fs::write(&lib, "").unwrap();
        let err = adapter_command(
            "t",
            Path::new("team7.so"),
            Directions::West3,
            dir.path(),
            dir.path(),
        )
        .unwrap_err();
        assert!(
            err.contains(ADAPTER) && err.contains("cargo build"),
            "{err}"
        );
        std::fs::write(dir.path().join(ADAPTER), "").unwrap();
        let cmd = adapter_command(
            "t",
            Path::new("team7.so"),
            Directions::West3,
            dir.path(),
            dir.path(),
        )
        .unwrap();
        assert_eq!(cmd.program, dir.path().join(ADAPTER));
        assert_eq!(
            cmd.args,
            [
                "--library",
                &lib.display().to_string(),
                "--directions",
                "west3",
                "--name",
                "t"
            ]
        );
    }

    #[test]
    fn unusual_queen_counts_are_warned_about() {
        let boards: Vec<BoardSpec> = [
            "{game: amazons, width: 10}",
            "{game: amazons, width: 10, queens: 4}",
            "{game: amazons, width: 10, queens: 8}",
            "{game: awale}",
        ]
        .iter()
        .map(|t| serde_yaml::from_str(t).unwrap())
        .collect();
        let names: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let warnings = queens_warnings(&boards, &names);
        // The default of width 10 is 8 = 4*(10/10+1): only the explicit 4 is unusual.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("board b: 4 queens per player, not the usual 4*(m/10+1) = 8"),
            "{warnings:?}"
        );
    }
}
