//! A class championship at plan time: the config's class keys checked, the teams of the
//! submissions folder discovered, and each team that can enter appended to the config's
//! `engines` under its public name (its pseudonym with `anonymize`). The result, the
//! [`Roster`], is what `teams.csv` starts from and what `arena check` lists. Reads files only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::{Anchor, Config, EngineSpec, Format, OnEngineFailure, TimeControl};

use super::levels;
use super::pseudonyms;
use super::submissions::{self, Team};

/// Every team of a championship, entered or not, and how they are named in public.
#[derive(Clone, Debug, PartialEq)]
pub struct Roster {
    /// The submissions folder (absolute).
    pub folder: PathBuf,
    /// Teams in folder-name order.
    pub teams: Vec<TeamEntry>,
    /// With `anonymize`: the salt of the pseudonyms, and whether it is new (not read from
    /// `OUTPUT/pseudonyms.csv`).
    pub salt: Option<([u8; 32], bool)>,
    /// Team → pseudonym (empty without `anonymize`).
    pub pseudonyms: BTreeMap<String, String>,
}

/// One team as `teams.csv` records it at the start of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct TeamEntry {
    /// Folder name.
    pub team: String,
    /// The team folder (absolute).
    pub folder: PathBuf,
    /// The name in games and tables: the pseudonym with `anonymize`, else the team.
    pub name: String,
    /// The submission used: `.` (the team folder) or the subfolder's name.
    pub submission: String,
    /// How it runs (`library`, `python`…), empty when nothing was found.
    pub kind: String,
    /// What runs (`python3 …/engine.py`, `library: …/player.so (clockwise)`), empty when
    /// nothing was found.
    pub command: String,
    /// `None` when entered, else why not.
    pub refused: Option<String>,
    /// What the teacher should know about the folder (see [`Team::note`]).
    pub note: Option<String>,
}

/// What a command line or library entry runs, in one line.
pub fn describe(spec: &EngineSpec) -> String {
    match (&spec.library, spec.directions) {
        (Some(library), Some(d)) => format!("library: {} ({d})", library.display()),
        (Some(library), None) => format!("library: {}", library.display()),
        _ => std::iter::once(spec.command.as_str())
            .chain(spec.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
    }
}

impl Roster {
    /// The public names of the teams that entered.
    pub fn entered(&self) -> Vec<&str> {
        self.teams
            .iter()
            .filter(|t| t.refused.is_none())
            .map(|t| t.name.as_str())
            .collect()
    }

    /// With `anonymize`: each team folder's path (as given and canonical) → `submissions/` and
    /// its pseudonym, and the submissions folder's → `submissions` (a listing of it would name
    /// every team), what [`pseudonyms::redact`] replaces in what engines print; empty
    /// otherwise.
    pub fn path_redactions(&self) -> Vec<(String, String)> {
        if self.salt.is_none() {
            return Vec::new();
        }
        let root = self.folder.display().to_string();
        std::iter::once((root, "submissions".to_owned()))
            .chain(self.teams.iter().flat_map(|t| {
                let to = format!("submissions/{}", t.name);
                let canonical = t.folder.canonicalize().unwrap_or_else(|_| t.folder.clone());
                [
                    (t.folder.display().to_string(), to.clone()),
                    (canonical.display().to_string(), to),
                ]
            }))
            .collect()
    }

    /// With `anonymize`, each team's entry of `config.engines` replaced by its name and a
    /// keyed digest of the entry (`command: submission <digest>`): `config.resolved.yaml` then
    /// names no team (the entries' paths do) yet still changes when a submission does, which
    /// a resume must notice. The engines run from the plan's own copy, made before.
    pub fn seal_entries(&self, config: &mut Config) {
        let Some((salt, _)) = self.salt else {
            return;
        };
        let entered = self.entered();
        for spec in config
            .engines
            .iter_mut()
            .filter(|e| entered.contains(&e.name.as_str()))
        {
            let text = serde_yaml::to_string(&*spec).unwrap_or_default();
            *spec = EngineSpec {
                name: spec.name.clone(),
                command: format!("submission {}", pseudonyms::digest(&salt, &text)),
                ..EngineSpec::default()
            };
        }
    }

    /// What `arena check` prints: the folder, then one line per team, what it runs or why it
    /// cannot enter.
    pub fn describe(&self) -> String {
        let mut out = format!(
            "teams in {}: {} found, {} entered\n",
            self.folder.display(),
            self.teams.len(),
            self.entered().len()
        );
        for t in &self.teams {
            let alias = if t.name == t.team {
                String::new()
            } else {
                format!(" (plays as {})", t.name)
            };
            let submission = if t.submission == "." {
                String::new()
            } else {
                format!(", submission {}", t.submission)
            };
            match &t.refused {
                None => out.push_str(&format!(
                    "team {}{alias}: {}{submission}: `{}`\n",
                    t.team, t.kind, t.command
                )),
                Some(why) => out.push_str(&format!("team {}: CANNOT ENTER: {why}\n", t.team)),
            }
            if let Some(note) = &t.note {
                out.push_str(&format!("  note: {note}\n"));
            }
        }
        out
    }
}

/// Games a championship of `teams` teams plays under `config`'s format and ladder (`rungs`
/// engines, the rest teams), for the estimate of a class of another size: a ladder plays
/// each rung against each team every round (and the rungs each other once with calibration);
/// a round robin, every pair of the `teams + rungs` engines. `None` for other formats.
pub fn games_for(config: &Config, teams: u64) -> Option<u64> {
    let rungs = config.ladder.as_ref().map_or(0, Vec::len) as u64;
    let boards = config.boards.len() as u64;
    let rounds = u64::from(config.rounds);
    let pairs = match config.format {
        Format::Ladder => {
            let calibration = if config.ladder_calibration.unwrap_or(true) {
                rungs * rungs.saturating_sub(1) / 2
            } else {
                0
            };
            rungs * teams * rounds + calibration
        }
        Format::RoundRobin => {
            let n = teams + rungs;
            n * n.saturating_sub(1) / 2 * rounds
        }
        _ => return None,
    };
    Some(2 * pairs * boards)
}

/// Checks the class keys of `config` and, with `submissions`, expands the teams that can
/// enter into `config.engines` (after the config's own engines, in order of public name),
/// then sets what a championship needs: `on_engine_failure: forfeit`, and the first rung as
/// the rating anchor at 0 unless `anchor` is given. `file` is the config file (the folder
/// is relative to it, as `base` resolves it), `output` the run's output directory (where
/// an earlier run's salt is read), `global` the tournament's time control; `dry_run` (`arena
/// check`, which writes nothing) leaves the real names when no salt is kept yet.
///
/// # Errors
/// A message naming the key at fault; a team that cannot enter is no error (see
/// [`TeamEntry::refused`]).
pub fn expand(
    config: &mut Config,
    file: &Path,
    base: &Path,
    output: &Path,
    global: TimeControl,
    dry_run: bool,
) -> Result<Option<Roster>, String> {
    check_keys(config)?;
    if let Some(ladder) = &config.ladder {
        if config.anchor.is_none() {
            config.anchor = Some(Anchor {
                engine: ladder[0].clone(),
                elo: 0.0,
            });
        }
    }
    let Some(folder) = config.submissions.take() else {
        return Ok(None);
    };
    let config_dir = base.join(file.parent().unwrap_or(Path::new("")));
    let folder = config_dir.join(folder);
    // `configs/../examples/submissions` reads better as the folder it is.
    let folder = folder.canonicalize().unwrap_or(folder);
    let staff: Vec<String> = config.engines.iter().map(|e| e.name.clone()).collect();
    let defaults = config.submissions_defaults.clone().unwrap_or_default();
    let found = submissions::discover(&folder, &defaults, &staff)
        .map_err(|e| format!("submissions: {e}"))?;
    let salt = match pseudonyms::read_salt(&base.join(output))? {
        _ if !config.anonymize => None,
        Some(salt) => Some((salt, false)),
        // Nothing is kept by a dry run (`arena check`): pseudonyms drawn now would not be the
        // run's, so the teams keep their names.
        None if dry_run => None,
        None => Some((pseudonyms::new_salt()?, true)),
    };
    let names: Vec<String> = found.iter().map(|t| t.name.clone()).collect();
    let pseudonyms = salt.map_or_else(BTreeMap::new, |(s, _)| pseudonyms::assign(&s, &names));
    let mut entered: Vec<EngineSpec> = Vec::new();
    let teams = found
        .into_iter()
        .map(|team| {
            let public = pseudonyms.get(&team.name).unwrap_or(&team.name).clone();
            let entry = entry(&team, &public, base, global, &staff);
            if let Ok(spec) = &entry.1 {
                entered.push(spec.clone());
            }
            TeamEntry {
                note: team.note.clone(),
                folder: team.folder.clone(),
                submission: team.submission_name(),
                team: team.name,
                name: public,
                kind: entry.0,
                command: entry.1.as_ref().map(describe).unwrap_or_default(),
                refused: entry.1.err(),
            }
        })
        .collect();
    // Public order: the real names' order would say something about who is who.
    entered.sort_by(|a, b| a.name.cmp(&b.name));
    config.engines.extend(entered);
    config.on_engine_failure = OnEngineFailure::Forfeit;
    Ok(Some(Roster {
        folder,
        teams,
        salt,
        pseudonyms,
    }))
}

/// A team's kind and engine entry under its public name, checked as the config's own
/// entries are (program found, library loadable by the adapter, time control), or why it
/// cannot enter.
fn entry(
    team: &Team,
    public: &str,
    base: &Path,
    global: TimeControl,
    staff: &[String],
) -> (String, Result<EngineSpec, String>) {
    let (kind, spec) = match &team.entry {
        Ok((kind, spec)) => (kind.to_string(), spec.clone()),
        Err(why) => return (String::new(), Err(why.clone())),
    };
    if staff.iter().any(|s| s == public) {
        return (
            kind,
            Err(format!("its pseudonym `{public}` is an engine's name")),
        );
    }
    let spec = EngineSpec {
        name: public.to_owned(),
        ..spec
    };
    let checked = crate::config::plan_engine(&spec, base, global).map(|_| spec);
    (kind, checked)
}

/// The class keys' own rules: `ladder` names distinct engines of the config, `grades` only
/// rungs and `none`, `anonymize` and `submissions_defaults` need `submissions`, a ladder
/// goes with `format: ladder` or `round_robin`, `ladder_calibration` only with a ladder.
fn check_keys(config: &Config) -> Result<(), String> {
    if config.submissions.is_none() {
        if config.anonymize {
            return Err("anonymize: needs `submissions` (the teams to give pseudonyms)".into());
        }
        if config.submissions_defaults.is_some() {
            return Err("submissions_defaults: needs `submissions`".into());
        }
    }
    let Some(ladder) = &config.ladder else {
        if config.format == Format::Ladder {
            return Err("format ladder needs `ladder: [weakest, …, strongest]`".into());
        }
        if config.grades.is_some() || config.ladder_calibration.is_some() {
            return Err("grades and ladder_calibration need a `ladder`".into());
        }
        return Ok(());
    };
    if ladder.is_empty() {
        return Err("ladder: the list is empty".into());
    }
    for (i, rung) in ladder.iter().enumerate() {
        if !config.engines.iter().any(|e| &e.name == rung) {
            return Err(format!(
                "ladder[{i}]: no engine of the config is called `{rung}` (rungs are the staff's \
                 engines, listed under `engines`)"
            ));
        }
        if ladder[..i].contains(rung) {
            return Err(format!("ladder[{i}]: `{rung}` is listed twice"));
        }
    }
    if !matches!(config.format, Format::Ladder | Format::RoundRobin) {
        return Err(format!(
            "ladder: with format {} the rungs would be paired like any team; use format: ladder \
             (rungs play every team) or round_robin (everyone plays everyone)",
            crate::formats::settings::format_name(config.format)
        ));
    }
    if config.ladder_calibration.is_some() && config.format != Format::Ladder {
        return Err("ladder_calibration is only used with format: ladder".into());
    }
    if let Some(grades) = &config.grades {
        levels::check_grades(ladder, grades)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    const CONFIG: &str = "
time_control: { movetime_ms: 50 }
boards: [{ game: awale, pits: 6 }]
engines:
  - { name: random, command: sh }
  - { name: greedy, command: sh }
submissions: subs
ladder: [random, greedy]
";

    fn tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("subs/zeta/engine.py", ""),
            ("subs/alpha/engine.py", ""),
            ("subs/empty/.keep", ""),
        ] {
            let p = root.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, text).unwrap();
        }
        let missing = root.path().join("subs/ghost/arena.yaml");
        fs::create_dir_all(missing.parent().unwrap()).unwrap();
        fs::write(&missing, "command: ./not-there\n").unwrap();
        let exe = root.path().join("subs/prog/engine");
        fs::create_dir_all(exe.parent().unwrap()).unwrap();
        fs::write(&exe, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&exe, fs::Permissions::from_mode(0o755)).unwrap();
        root
    }

    fn expand_in(root: &Path, text: &str) -> Result<(Config, Option<Roster>), String> {
        let mut config = parse(text, "c.yaml").map_err(|e| e.to_string())?;
        let global = config.time_control.validate().unwrap();
        let roster = expand(
            &mut config,
            Path::new("c.yaml"),
            root,
            Path::new("out"),
            global,
            false,
        )?;
        Ok((config, roster))
    }

    #[test]
    fn teams_enter_after_the_staff_and_the_ladder_sets_format_and_anchor() {
        let root = tree();
        let (config, roster) = expand_in(root.path(), CONFIG).unwrap();
        let names: Vec<&str> = config.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["random", "greedy", "alpha", "prog", "zeta"]);
        assert_eq!(config.format, Format::Ladder);
        assert_eq!(config.anchor.as_ref().unwrap().engine, "random");
        assert_eq!(config.on_engine_failure, OnEngineFailure::Forfeit);
        assert_eq!(config.submissions, None, "consumed into engines");
        let roster = roster.unwrap();
        let refused: Vec<(&str, &str)> = roster
            .teams
            .iter()
            .filter_map(|t| Some((t.team.as_str(), t.refused.as_deref()?)))
            .collect();
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(refused[0].0 == "empty" && refused[0].1.contains("the folder is empty"));
        assert!(refused[1].0 == "ghost" && refused[1].1.contains("not-there"));
        let alpha = &roster.teams[0];
        assert_eq!(
            (alpha.kind.as_str(), alpha.submission.as_str()),
            ("python", ".")
        );
        assert!(alpha.command.starts_with("python3 ") && alpha.command.ends_with("engine.py"));
    }

    #[test]
    fn anonymized_teams_play_under_pseudonyms_in_pseudonym_order() {
        let root = tree();
        let text = format!("{CONFIG}anonymize: true\n");
        let (config, roster) = expand_in(root.path(), &text).unwrap();
        let roster = roster.unwrap();
        let (salt, new) = roster.salt.unwrap();
        assert!(new);
        let teams: Vec<String> = config.engines[2..].iter().map(|e| e.name.clone()).collect();
        let mut sorted = teams.clone();
        sorted.sort();
        assert_eq!(teams, sorted);
        for real in ["alpha", "prog", "zeta"] {
            assert!(!teams.contains(&real.to_owned()));
            assert!(teams.contains(&roster.pseudonyms[real]));
        }
        let mut sealed = config.clone();
        roster.seal_entries(&mut sealed);
        let resolved = serde_yaml::to_string(&sealed).unwrap();
        for real in ["alpha", "prog", "zeta"] {
            assert!(!resolved.contains(&format!("/{real}/")), "{resolved}");
        }
        assert_eq!(sealed.engines[..2], config.engines[..2], "the staff's stay");
        assert!(sealed.engines[2].command.starts_with("submission "));
        let paths = roster.path_redactions();
        let alpha = root.path().join("subs/alpha").display().to_string();
        let said = format!("Traceback: File \"{alpha}/engine.py\"");
        let clean = pseudonyms::redact(&said, &paths);
        assert!(
            !clean.contains("alpha") && clean.contains(&roster.pseudonyms["alpha"]),
            "{clean}"
        );
        // A kept salt gives the same names.
        fs::create_dir_all(root.path().join("out")).unwrap();
        pseudonyms::write(&root.path().join("out"), &salt, &roster.pseudonyms).unwrap();
        let (again, roster) = expand_in(root.path(), &text).unwrap();
        assert_eq!(again.engines, config.engines);
        assert!(!roster.unwrap().salt.unwrap().1);
    }

    #[test]
    fn bad_class_keys_are_refused_with_the_key() {
        let root = tree();
        let cases = [
            (
                CONFIG.replace("submissions: subs\n", "anonymize: true\n"),
                "anonymize",
            ),
            (
                CONFIG.replace("[random, greedy]", "[random, mcts]"),
                "ladder[1]",
            ),
            (
                CONFIG.replace("[random, greedy]", "[random, random]"),
                "twice",
            ),
            (format!("{CONFIG}format: swiss\n"), "use format: ladder"),
            (format!("{CONFIG}grades: {{ mcts: A }}\n"), "`mcts`"),
            (
                CONFIG.replace("ladder: [random, greedy]\n", "format: ladder\n"),
                "format ladder needs",
            ),
            (
                CONFIG.replace("submissions: subs", "submissions: nowhere"),
                "submissions:",
            ),
        ];
        for (text, want) in cases {
            let err = expand_in(root.path(), &text).unwrap_err();
            assert!(err.contains(want), "{want}: {err}");
        }
        let (config, _) =
            expand_in(root.path(), &format!("{CONFIG}format: round_robin\n")).unwrap();
        assert_eq!(
            config.format,
            Format::RoundRobin,
            "an explicit format stays"
        );
    }

    #[test]
    fn a_class_of_sixty_plays_rungs_times_teams_pairs() {
        let root = tree();
        let (config, _) = expand_in(root.path(), CONFIG).unwrap();
        // 2 rungs × 60 teams + 1 calibration pair, 1 board, 1 round, 2 games a pair.
        assert_eq!(games_for(&config, 60), Some(2 * (2 * 60 + 1)));
        let (rr, _) = expand_in(root.path(), &format!("{CONFIG}format: round_robin\n")).unwrap();
        assert_eq!(games_for(&rr, 60), Some(62 * 61));
    }
}
