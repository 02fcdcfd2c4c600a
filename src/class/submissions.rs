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
    /// The team folder.
    pub folder: PathBuf,
    /// The submission used: the team folder, or its last subfolder in name order.
    pub submission: PathBuf,
    /// Its engine entry, named after the team, or why the team cannot enter.
    pub entry: Result<(Kind, EngineSpec), String>,
    /// What the teacher should know: subfolders with submissions of their own that the
    /// team folder's files take precedence over (a resubmission that would go unnoticed).
    pub note: Option<String>,
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

/// Characters that print as nothing: a name holding one would look like another.
const INVISIBLE: [char; 10] = [
    '\u{00ad}', '\u{200b}', '\u{200c}', '\u{200d}', '\u{200e}', '\u{200f}', '\u{2028}', '\u{2029}',
    '\u{2060}', '\u{feff}',
];

/// Why a name cannot be a team's (the rule of engine names, and no control or invisible
/// characters, which would break a CSV or PGN line or look like another name), or `None` when
/// it can.
pub fn invalid_name(name: &str) -> Option<String> {
    let hidden = name
        .chars()
        .any(|c| c.is_control() || INVISIBLE.contains(&c));
    if name.trim().is_empty()
        || name.contains(['/', '\\', ',', '"'])
        || name != name.trim()
        || hidden
    {
        Some(format!(
            "`{}` is not a valid team name: a folder name must be non-empty, without / \\ , \", \
             control or invisible characters, or spaces at either end (rename the folder)",
            name.escape_debug()
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
            let note = ignored_subfolders(&path, &submission);
            let entry = entry.and_then(|()| read_submission(&name, &submission, defaults));
            Team {
                name,
                folder: path,
                note,
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
        // Hidden folders and the `__MACOSX` folder of an archive made on a Mac are no team.
        if name.starts_with('.') || name == "__MACOSX" || !entry.path().is_dir() {
            continue;
        }
        out.push((name, entry.path()));
    }
    Ok(out)
}

/// When the team folder's own files are the submission but subfolders hold submissions too:
/// which, so that a resubmission in a dated folder is not ignored unnoticed.
fn ignored_subfolders(team: &Path, submission: &Path) -> Option<String> {
    if submission != team {
        return None;
    }
    let mut ignored: Vec<String> = subfolders(team)
        .ok()?
        .into_iter()
        .filter(|(_, path)| holds_submission(path))
        .map(|(name, _)| name)
        .collect();
    ignored.sort();
    (!ignored.is_empty()).then(|| {
        format!(
            "the team folder's own files run; its subfolders {} hold submissions too and are \
             ignored (move the folder's files into a dated subfolder to use the latest)",
            ignored.join(", ")
        )
    })
}

/// Whether `dir` holds a file that makes a submission (`arena.yaml`, a `.so`, `engine`,
/// `engine.py`, `engine.js`).
fn holds_submission(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            e.path().is_file()
                && (["arena.yaml", "engine", "engine.py", "engine.js"].contains(&name.as_str())
                    || name.ends_with(".so"))
        })
    })
}

/// The team folder itself when it holds a submission's file, else its last subfolder in name
/// order (dated names such as `2026-11-20T10-00` sort in time order; a README beside them
/// does not count), else the team folder.
fn latest_submission(team: &Path) -> PathBuf {
    if holds_submission(team) {
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
        1 => {
            if let Some(why) = foreign(dir, &libraries[0], false) {
                return Err(why);
            }
            return from_library(team, dir, &libraries[0], defaults).map(|s| (Kind::Library, s));
        }
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
        if let Some(why) = foreign(dir, &program, true) {
            return Err(why);
        }
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
            if let Some(why) = foreign(dir, &script, false) {
                return Err(why);
            }
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
    for key in map.keys().filter_map(serde_yaml::Value::as_str) {
        if !TEAM_KEYS.contains(&key) {
            return Err(format!(
                "{}: `{key}` is not for a team to set (the teacher's config sets it for every \
                 team); a team's arena.yaml may hold {}",
                yaml.display(),
                TEAM_KEYS.join(", ")
            ));
        }
    }
    map.insert("name".into(), team.into());
    let mut s: EngineSpec =
        serde_yaml::from_value(value).map_err(|e| format!("{}: {e}", yaml.display()))?;
    s.command = local(dir, &s.command);
    s.args = s.args.iter().map(|a| local(dir, a)).collect();
    if let Some(library) = &s.library {
        s.library = Some(PathBuf::from(local(dir, &library.display().to_string())));
    }
    check_program(dir, yaml, &s)?;
    Ok(s)
}

/// The keys of an engine entry a team's `arena.yaml` may hold: how its own code runs. The
/// time control, the games, the sandbox and the limits are the teacher's, the same for all.
const TEAM_KEYS: [&str; 6] = [
    "command",
    "args",
    "options",
    "library",
    "directions",
    "restart",
];

/// Interpreters a team's `arena.yaml` may name without a path (found on `PATH`), to run a
/// script of its folder.
pub const INTERPRETERS: [&str; 16] = [
    "python3", "python", "pypy3", "node", "java", "ruby", "perl", "lua", "bash", "sh", "php",
    "Rscript", "julia", "dotnet", "ocaml", "racket",
];

/// The path an argument names (the whole argument, or what follows `=` in `--opt=PATH`) when
/// it is absolute or climbs with `..` and does not stay inside `dir`; `None` otherwise (a
/// plain file name of the folder, a number, a flag).
fn outside_path<'a>(dir: &Path, arg: &'a str) -> Option<&'a str> {
    [Some(arg), arg.split_once('=').map(|(_, v)| v)]
        .into_iter()
        .flatten()
        .find(|text| {
            let path = Path::new(text);
            let climbs = path
                .components()
                .any(|c| matches!(c, std::path::Component::ParentDir));
            (path.is_absolute() || climbs) && !inside(dir, &dir.join(path))
        })
}

/// Whether `path`, after symbolic links, is inside `dir`.
fn inside(dir: &Path, path: &Path) -> bool {
    let (Ok(path), Ok(dir)) = (path.canonicalize(), dir.canonicalize()) else {
        return false;
    };
    path.starts_with(dir)
}

/// Why the file that runs, `program` (a team's `engine`, script or `.so`), is not the team's
/// own: a symbolic link out of the submission folder, or, for a file run as a program
/// (`executed`), a `#!` line naming a program that is not one of the [`INTERPRETERS`]
/// (`#!/usr/bin/env python3`, `#!/bin/sh`, `#!/usr/bin/python3.11` are).
fn foreign(dir: &Path, program: &Path, executed: bool) -> Option<String> {
    if !inside(dir, program) {
        return Some(format!(
            "{}: a link to a file outside the submission folder",
            program.display()
        ));
    }
    if !executed {
        return None;
    }
    let mut head = [0u8; 256];
    let n = fs::File::open(program)
        .and_then(|mut f| std::io::Read::read(&mut f, &mut head))
        .unwrap_or(0);
    let first = String::from_utf8_lossy(&head[..n]);
    let line = first.strip_prefix("#!")?.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let mut interpreter = words.next().unwrap_or("");
    if Path::new(interpreter)
        .file_name()
        .is_some_and(|f| f == "env")
    {
        interpreter = words.find(|w| !w.starts_with('-')).unwrap_or("");
    }
    // `#!/usr/bin/env -S python3 /elsewhere/engine.py`: the line's arguments are the team's too.
    if let Some(path) = words.find_map(|w| outside_path(dir, w)) {
        return Some(format!(
            "{}: its `#!` line names `{path}`, outside the submission folder",
            program.display()
        ));
    }
    let name = Path::new(interpreter)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    // `python3.11` is `python3`'s version.
    let unversioned = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let known = |n: &str| {
        INTERPRETERS
            .iter()
            .any(|i| *i == n || i.trim_end_matches(|c: char| c.is_ascii_digit()) == n)
    };
    (!known(&name) && !known(unversioned)).then(|| {
        format!(
            "{}: its `#!` line runs `{interpreter}`, which is not an interpreter ({})",
            program.display(),
            INTERPRETERS.join(", ")
        )
    })
}

/// A team runs its own code: a `command` or `library` inside its submission folder (after
/// symbolic links, with a `#!` line naming an interpreter), or one of the [`INTERPRETERS`]
/// given only files of the folder (an argument that is an absolute path or climbs out with
/// `..` must stay inside). Anything else could be another team's or the staff's program.
fn check_program(dir: &Path, yaml: &Path, spec: &EngineSpec) -> Result<(), String> {
    let inside = |path: &Path| inside(dir, path);
    if let Some(library) = &spec.library {
        if !inside(library) {
            return Err(format!(
                "{}: library `{}` is not a file of the submission folder",
                yaml.display(),
                library.display()
            ));
        }
        return Ok(());
    }
    if let Some(path) = spec.args.iter().find_map(|a| outside_path(dir, a)) {
        return Err(format!(
            "{}: argument `{path}` names a path outside the submission folder",
            yaml.display()
        ));
    }
    if INTERPRETERS.contains(&spec.command.as_str()) {
        Ok(())
    } else if inside(Path::new(&spec.command)) {
        match foreign(dir, Path::new(&spec.command), true) {
            Some(why) => Err(format!("{}: {why}", yaml.display())),
            None => Ok(()),
        }
    } else {
        Err(format!(
            "{}: command `{}` is neither a file of the submission folder nor an interpreter \
             ({})",
            yaml.display(),
            spec.command,
            INTERPRETERS.join(", ")
        ))
    }
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
        // Its own engine.py wins over a newer dated folder, which the note says.
        write(&d.join("u/engine.py"), "");
        write(&d.join("u/2026-11-25T08-00/engine.py"), "");
        let teams = discover(d, &Defaults::default(), &[]).unwrap();
        assert_eq!(teams[0].submission, d.join("t/2026-11-21T09-30"));
        assert_eq!(teams[0].submission_name(), "2026-11-21T09-30");
        assert_eq!(teams[0].entry.as_ref().unwrap().0, Kind::Node);
        assert_eq!(teams[0].note, None);
        assert_eq!(teams[1].submission_name(), ".");
        let note = teams[1].note.clone().unwrap();
        assert!(
            note.contains("2026-11-25T08-00") && note.contains("ignored"),
            "{note}"
        );
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

    #[test]
    fn a_team_runs_only_its_own_code_under_the_teacher_s_rules() {
        let root = tempfile::tempdir().unwrap();
        let d = root.path();
        write(&d.join("outside/engine"), "");
        for (team, yaml) in [
            ("sandbox", "command: python3\nargs: [x.py]\nsandbox: off\n"),
            (
                "clock",
                "command: python3\ntime_control: { movetime_ms: 100 }\n",
            ),
            ("limits", "command: python3\nlimits: { memory_mb: 99999 }\n"),
            ("games", "command: python3\ngames: [awale]\n"),
            (
                "staff",
                &format!("command: {}\n", d.join("outside/engine").display()),
            ),
            ("up", "command: ../outside/engine\n"),
            (
                "lib",
                &format!(
                    "library: {}\ndirections: west3\n",
                    d.join("outside/engine").display()
                ),
            ),
            ("tool", "command: curl\n"),
            ("ok", "command: node\nargs: [main.js]\n"),
        ] {
            write(&d.join(format!("{team}/arena.yaml")), yaml);
        }
        // A symbolic link inside the folder to a program outside is still outside.
        fs::create_dir_all(d.join("link")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/engine"), d.join("link/engine")).unwrap();
        write(&d.join("link/arena.yaml"), "command: ./engine\n");
        // Links and `#!` lines that lead to a program outside, and arguments that name one.
        fs::create_dir_all(d.join("ln-engine")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/engine"), d.join("ln-engine/engine")).unwrap();
        fs::set_permissions(d.join("outside/engine"), fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir_all(d.join("ln-py")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/engine"), d.join("ln-py/engine.py")).unwrap();
        fs::create_dir_all(d.join("ln-so")).unwrap();
        std::os::unix::fs::symlink(d.join("outside/engine"), d.join("ln-so/p.so")).unwrap();
        let shebang = format!("#!{}\n", d.join("outside/engine").display());
        write(&d.join("bang/engine"), &shebang);
        fs::set_permissions(d.join("bang/engine"), fs::Permissions::from_mode(0o755)).unwrap();
        write(&d.join("bang-yaml/run"), &shebang);
        write(&d.join("bang-yaml/arena.yaml"), "command: ./run\n");
        write(
            &d.join("env-ok/engine"),
            "#!/usr/bin/env -S python3.11 -u\n",
        );
        fs::set_permissions(d.join("env-ok/engine"), fs::Permissions::from_mode(0o755)).unwrap();
        write(
            &d.join("arg-out/arena.yaml"),
            &format!(
                "command: python3\nargs: [{}]\n",
                d.join("outside/engine").display()
            ),
        );
        write(
            &d.join("arg-up/arena.yaml"),
            "command: python3\nargs: [../outside/engine]\n",
        );
        write(
            &d.join("arg-in/arena.yaml"),
            "command: python3\nargs: [bot.py, --depth=3]\n",
        );
        write(&d.join("arg-in/bot.py"), "");
        write(
            &d.join("arg-eq/arena.yaml"),
            &format!(
                "command: python3\nargs: [bot.py, --x={}]\n",
                d.join("outside/engine").display()
            ),
        );
        write(&d.join("arg-eq/bot.py"), "");
        write(
            &d.join("bang-arg/engine"),
            &format!(
                "#!/usr/bin/env -S python3 {}\n",
                d.join("outside/engine").display()
            ),
        );
        fs::set_permissions(d.join("bang-arg/engine"), fs::Permissions::from_mode(0o755)).unwrap();
        let teams = discover(
            d,
            &Defaults {
                directions: Some(Directions::Clockwise),
            },
            &[],
        )
        .unwrap();
        let why = |name: &str| by_name(&teams, name).entry.clone().unwrap_err();
        for team in ["ln-engine", "ln-py", "ln-so"] {
            assert!(
                why(team).contains("a link to a file outside"),
                "{team}: {}",
                why(team)
            );
        }
        for team in ["bang", "bang-yaml"] {
            assert!(
                why(team).contains("is not an interpreter"),
                "{team}: {}",
                why(team)
            );
        }
        assert!(
            why("bang-arg").contains("outside the submission folder"),
            "{}",
            why("bang-arg")
        );
        for team in ["arg-out", "arg-up", "arg-eq"] {
            assert!(
                why(team).contains("outside the submission folder"),
                "{team}: {}",
                why(team)
            );
        }
        assert!(
            by_name(&teams, "env-ok").entry.is_ok(),
            "{:?}",
            by_name(&teams, "env-ok").entry
        );
        assert!(by_name(&teams, "arg-in").entry.is_ok());
        for key in ["sandbox", "time_control", "limits", "games"] {
            let team = match key {
                "time_control" => "clock",
                k => k,
            };
            assert!(
                why(team).contains(&format!("`{key}` is not for a team")),
                "{}",
                why(team)
            );
        }
        for team in ["staff", "up", "link", "tool"] {
            assert!(
                why(team).contains("not a file of the submission folder")
                    || why(team).contains("neither a file"),
                "{team}: {}",
                why(team)
            );
        }
        assert!(why("lib").contains("not a file of the submission folder"));
        assert!(by_name(&teams, "ok").entry.is_ok());
    }

    #[test]
    fn archives_leftovers_do_not_make_teams_or_submissions() {
        let root = tempfile::tempdir().unwrap();
        let d = root.path();
        write(&d.join("__MACOSX/t/._engine.py"), "");
        write(&d.join("t/2026-11-20T10-00/engine.py"), "");
        write(&d.join("t/__MACOSX/x"), "");
        write(&d.join("t/README.txt"), "read me");
        write(&d.join("bad\u{200b}name/engine.py"), "");
        write(&d.join("tab\tname/engine.py"), "");
        let teams = discover(d, &Defaults::default(), &[]).unwrap();
        let names: Vec<&str> = teams.iter().map(|t| t.name.as_str()).collect();
        assert!(!names.contains(&"__MACOSX"), "{names:?}");
        let t = by_name(&teams, "t");
        assert_eq!(
            t.submission_name(),
            "2026-11-20T10-00",
            "not the README's folder"
        );
        assert!(t.entry.is_ok());
        for name in ["bad\u{200b}name", "tab\tname"] {
            let why = by_name(&teams, name).entry.clone().unwrap_err();
            assert!(why.contains("invisible"), "{why}");
        }
    }
}
