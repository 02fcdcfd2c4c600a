//! A folder of submissions → one engine entry per team. Pure file reading: nothing is run.
//!
//! Each subfolder of the submissions folder is a team, named after the folder. A team folder
//! holds its submission directly, or (several submissions, such as `2026-11-20T10-00/`) only
//! subfolders, of which the last in name order is the submission. In the submission folder,
//! the first of these that matches is what runs:
//!
//! 1. `arena.yaml`: an engine entry without `name` (`command`, `args`, `options`, `library`,
//!    `directions`, `restart`…); relative paths in `command`, `library` and `args` that name a
//!    file of the submission folder are taken from there;
//! 2. exactly one `*.so`: a course player (`library:`), with `directions` from a one-line
//!    `directions` file beside it, else the config's `submissions_defaults`;
//! 3. an executable file `engine`, else `engine.py` (run with `python3`), else `engine.js`
//!    (run with `node`).
//!
//! Anything else is an error for that team alone: it is listed as not entered, with why.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::config::EngineSpec;
use crate::player_library::Directions;

/// How a submission runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `arena.yaml` engine entry.
    Yaml,
    /// A course player library (`*.so`).
    Library,
    /// An executable `engine`.
    Program,
    /// `engine.py`, run with `python3`.
    Python,
    /// `engine.js`, run with `node`.
    Node,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Yaml => "arena.yaml",
            Kind::Library => "library",
            Kind::Program => "program",
            Kind::Python => "python",
            Kind::Node => "node",
        })
    }
}

/// What the config says about every submission (`submissions_defaults`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// The `dir.h` convention of `.so` players without a `directions` file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directions: Option<Directions>,
}

/// One team folder, entered or not.
#[derive(Clone, Debug, PartialEq)]
pub struct Team {
    /// The folder's name: the team's (and its engine's) name.
    pub name: String,
    /// The submission used: the team folder, or its last subfolder in name order.
    pub submission: PathBuf,
    /// Its engine entry, named after the team, or why the team cannot enter.
    pub entry: Result<(Kind, EngineSpec), String>,
}

impl Team {
    /// The submission's name as `teams.csv` writes it: the subfolder's name, or `.` for a
    /// submission directly in the team folder.
    pub fn submission_name(&self) -> String {
        let team_folder = self.submission.parent().map(Path::to_path_buf);
        match (&team_folder, self.submission.file_name()) {
            (Some(parent), Some(name)) if parent.file_name() == Some(self.name.as_ref()) => {
                name.to_string_lossy().into_owned()
            }
            _ => ".".into(),
        }
    }
}

/// Why a name cannot be a team's (the rule of engine names), or `None` when it can.
pub fn invalid_name(name: &str) -> Option<String> {
    if name.trim().is_empty() || name.contains(['/', '\\', ',', '"']) || name != name.trim() {
        Some(format!(
            "`{name}` is not a valid team name: a folder name must be non-empty, without / \\ , \" \
             or spaces at either end (rename the folder)"
        ))
    } else {
        None
    }
}

/// The teams of submissions folder `dir`, in name order; `taken` are the config's own engine
/// names (a team of the same name is refused).
///
/// # Errors
/// When `dir` cannot be read.
pub fn discover(dir: &Path, defaults: &Defaults, taken: &[String]) -> Result<Vec<Team>, String> {
    let mut folders = subfolders(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    folders.sort();
    let teams = folders
        .into_iter()
        .map(|(name, path)| {
            let entry = if let Some(why) = invalid_name(&name) {
                Err(why)
            } else if taken.contains(&name) {
                Err(format!(
                    "`{name}` is also the name of an engine of the config (rename the folder)"
                ))
            } else {
                Ok(())
            };
            let submission = latest_submission(&path);
            let entry = entry.and_then(|()| read_submission(&name, &submission, defaults));
            Team {
                name,
                submission,
                entry,
            }
        })
        .collect();
    Ok(teams)
}

/// The visible subfolders of `dir` (name, path); files are not teams.
fn subfolders(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !entry.path().is_dir() {
            continue;
        }
        out.push((name, entry.path()));
    }
    Ok(out)
}

/// The team folder itself when it holds any file, else its last subfolder in name order
/// (dated names such as `2026-11-20T10-00` sort in time order).
fn latest_submission(team: &Path) -> PathBuf {
    let has_files = fs::read_dir(team)
        .map(|entries| {
            entries
                .flatten()
                .any(|e| !e.file_name().to_string_lossy().starts_with('.') && e.path().is_file())
        })
        .unwrap_or(false);
    if has_files {
        return team.to_owned();
    }
    let mut subs = subfolders(team).unwrap_or_default();
    subs.sort();
    subs.pop().map_or_else(|| team.to_owned(), |(_, path)| path)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn spec(name: &str) -> EngineSpec {
    EngineSpec {
        name: name.to_owned(),
        ..EngineSpec::default()
    }
}

/// The engine entry of one submission folder, by the rules of the module.
fn read_submission(
    team: &str,
    dir: &Path,
    defaults: &Defaults,
) -> Result<(Kind, EngineSpec), String> {
    let yaml = dir.join("arena.yaml");
    if yaml.is_file() {
        return from_yaml(team, dir, &yaml).map(|s| (Kind::Yaml, s));
    }
    let libraries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "so"))
        .collect();
    match libraries.len() {
        0 => {}
        1 => return from_library(team, dir, &libraries[0], defaults).map(|s| (Kind::Library, s)),
        n => {
            return Err(format!(
                "{}: {n} `.so` files; a submission holds exactly one player library (or an \
                 arena.yaml saying which to run)",
                dir.display()
            ));
        }
    }
    let program = dir.join("engine");
    if is_executable(&program) {
        let mut s = spec(team);
        s.command = program.display().to_string();
        return Ok((Kind::Program, s));
    }
    for (file, interpreter, kind) in [
        ("engine.py", "python3", Kind::Python),
        ("engine.js", "node", Kind::Node),
    ] {
        let script = dir.join(file);
        if script.is_file() {
            let mut s = spec(team);
            s.command = interpreter.into();
            s.args = vec![script.display().to_string()];
            return Ok((kind, s));
        }
    }
    // A `.gitkeep` alone still leaves the folder empty of any submission.
    let empty = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .all(|e| e.file_name().to_string_lossy().starts_with('.'))
        })
        .unwrap_or(true);
    Err(if empty {
        format!("{}: the folder is empty", dir.display())
    } else if program.is_file() {
        format!(
            "{}: `engine` is not executable (chmod +x engine)",
            dir.display()
        )
    } else {
        format!(
            "{}: no submission found: expected arena.yaml, one .so player, an executable \
             `engine`, engine.py or engine.js",
            dir.display()
        )
    })
}

/// A path of an `arena.yaml` made absolute when it names a file of the submission folder.
fn local(dir: &Path, text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let relative: PathBuf = Path::new(text)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    let candidate = dir.join(relative);
    if !Path::new(text).is_absolute() && candidate.exists() {
        candidate.display().to_string()
    } else {
        text.to_owned()
    }
}

fn from_yaml(team: &str, dir: &Path, yaml: &Path) -> Result<EngineSpec, String> {
    let text = fs::read_to_string(yaml).map_err(|e| format!("{}: {e}", yaml.display()))?;
    let mut value: serde_yaml::Value =
        serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", yaml.display()))?;
    let map = value
        .as_mapping_mut()
        .ok_or_else(|| format!("{}: expected an engine entry (a map)", yaml.display()))?;
    if map.contains_key("name") {
        return Err(format!(
            "{}: no `name` here: the team's name is its folder's",
            yaml.display()
        ));
    }
    map.insert("name".into(), team.into());
    let mut s: EngineSpec =
        serde_yaml::from_value(value).map_err(|e| format!("{}: {e}", yaml.display()))?;
    s.command = local(dir, &s.command);
    s.args = s.args.iter().map(|a| local(dir, a)).collect();
    if let Some(library) = &s.library {
        s.library = Some(PathBuf::from(local(dir, &library.display().to_string())));
    }
    Ok(s)
}

fn from_library(
    team: &str,
    dir: &Path,
    library: &Path,
    defaults: &Defaults,
) -> Result<EngineSpec, String> {
    let file = dir.join("directions");
    let directions = if file.is_file() {
        let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        text.trim()
            .parse::<Directions>()
            .map_err(|e| format!("{}: {e}", file.display()))?
    } else {
        defaults.directions.ok_or_else(|| {
            format!(
                "{}: a player library needs its `dir.h` convention: a `directions` file \
                 (`clockwise` or `west3`) beside it, or `submissions_defaults: {{ directions: … }}` \
                 in the config",
                library.display()
            )
        })?
    };
    let mut s = spec(team);
    s.library = Some(library.to_owned());
    s.directions = Some(directions);
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn executable(path: &Path) {
        write(path, "#!/bin/sh\n");
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn by_name<'a>(teams: &'a [Team], name: &str) -> &'a Team {
        teams.iter().find(|t| t.name == name).unwrap()
    }

    #[test]
    fn each_kind_of_submission_is_found_in_the_documented_order() {
        let root = tempfile::tempdir().unwrap();
        let d = root.path();
        write(
            &d.join("yaml/arena.yaml"),
            "command: ./run.sh\nargs: [weights.txt, --fast]\n",
        );
        write(&d.join("yaml/run.sh"), "");
        write(&d.join("yaml/weights.txt"), "");
        // arena.yaml wins over an engine.py beside it.
        write(&d.join("yaml/engine.py"), "");
        write(&d.join("so/player.so"), "");
        write(&d.join("so/directions"), "west3\n");
        write(&d.join("so-default/player.so"), "");
        write(
            &d.join("so-yaml/arena.yaml"),
            "library: lib/p.so\ndirections: west3\n",
        );
        write(&d.join("so-yaml/lib/p.so"), "");
        executable(&d.join("prog/engine"));
        write(&d.join("prog/engine.py"), "");
        write(&d.join("py/engine.py"), "");
        write(&d.join("js/engine.js"), "");
        write(&d.join("README.txt"), "not a team");
        let defaults = Defaults {
            directions: Some(Directions::Clockwise),
        };
        let teams = discover(d, &defaults, &[]).unwrap();
        let names: Vec<&str> = teams.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["js", "prog", "py", "so", "so-default", "so-yaml", "yaml"]
        );
        let (_, s) = by_name(&teams, "so-yaml").entry.clone().unwrap();
        assert_eq!(
            (s.command.as_str(), s.library),
            ("", Some(d.join("so-yaml/lib/p.so")))
        );
        let (kind, s) = by_name(&teams, "yaml").entry.clone().unwrap();
        assert_eq!((kind, s.name.as_str()), (Kind::Yaml, "yaml"));
        assert_eq!(s.command, d.join("yaml/run.sh").display().to_string());
        assert_eq!(
            s.args,
            [
                d.join("yaml/weights.txt").display().to_string(),
                "--fast".into()
            ]
        );
        let (kind, s) = by_name(&teams, "so").entry.clone().unwrap();
        assert_eq!(kind, Kind::Library);
        assert_eq!(s.directions, Some(Directions::West3));
        let (_, s) = by_name(&teams, "so-default").entry.clone().unwrap();
        assert_eq!(s.directions, Some(Directions::Clockwise));
        assert_eq!(
            by_name(&teams, "prog").entry.clone().unwrap().0,
            Kind::Program
        );
        let (kind, s) = by_name(&teams, "py").entry.clone().unwrap();
        assert_eq!((kind, s.command.as_str()), (Kind::Python, "python3"));
        assert_eq!(by_name(&teams, "js").entry.clone().unwrap().0, Kind::Node);
    }

    #[test]
    fn the_last_dated_submission_is_used() {
        let root = tempfile::tempdir().unwrap();
        let d = root.path();
        write(&d.join("t/2026-11-20T10-00/engine.py"), "");
        write(&d.join("t/2026-11-21T09-30/engine.js"), "");
        write(&d.join("t/2026-11-03T23-59/engine.py"), "");
        let teams = discover(d, &Defaults::default(), &[]).unwrap();
        assert_eq!(teams[0].submission, d.join("t/2026-11-21T09-30"));
        assert_eq!(teams[0].submission_name(), "2026-11-21T09-30");
        assert_eq!(teams[0].entry.as_ref().unwrap().0, Kind::Node);
    }

    #[test]
    fn teams_that_cannot_enter_say_why_and_the_others_are_unaffected() {
        let root = tempfile::tempdir().unwrap();
        let d = root.path();
        fs::create_dir_all(d.join("empty")).unwrap();
        write(&d.join("two-so/a.so"), "");
        write(&d.join("two-so/b.so"), "");
        write(&d.join("no-dirs/p.so"), "");
        write(&d.join("bad,name/engine.py"), "");
        write(&d.join("greedy/engine.py"), "");
        write(&d.join("plain/engine"), "");
        write(&d.join("named/arena.yaml"), "name: x\ncommand: a\n");
        write(&d.join("typo/arena.yaml"), "comand: a\n");
        write(&d.join("other/notes.txt"), "");
        write(&d.join("ok/engine.py"), "");
        let teams = discover(d, &Defaults::default(), &["greedy".into()]).unwrap();
        let why = |name: &str| by_name(&teams, name).entry.clone().unwrap_err();
        assert!(why("empty").contains("empty"), "{}", why("empty"));
        assert!(why("two-so").contains("2 `.so` files"));
        assert!(why("no-dirs").contains("directions"));
        assert!(why("bad,name").contains("not a valid team name"));
        assert!(why("greedy").contains("also the name of an engine"));
        assert!(why("plain").contains("not executable"));
        assert!(why("named").contains("no `name` here"));
        assert!(why("typo").contains("comand"), "{}", why("typo"));
        assert!(why("other").contains("no submission found"));
        assert!(by_name(&teams, "ok").entry.is_ok());
        assert!(discover(&d.join("missing"), &Defaults::default(), &[]).is_err());
    }
}
