//! `arena slurm`: a tournament as a Slurm job array, one task per shard (`arena run --shard
//! $SLURM_ARRAY_TASK_ID/N`), and a merge job that runs once every task has succeeded.
//!
//! Writes `DIR/slurm/shards.sbatch` and `DIR/slurm/merge.sbatch` with absolute paths (the
//! arena binary, the config, the working directory the config's relative paths resolve
//! against, the output directory), since tasks may start on any node; with `--submit`, runs
//! `sbatch --parsable` for both, the merge with `--dependency=afterok:<array job id>`. Uses
//! Slurm as it is: plays nothing itself, knows no game.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::Plan;
use crate::games::GameKind;
use crate::schedule::{self, Entrants};

use super::{BAD_CONFIG, DONE, FAILED, Stop};

/// What `arena slurm` is asked to do, beyond the plan.
#[derive(Clone, Debug, Default)]
pub struct SlurmOptions {
    /// The config file as given (made absolute here).
    pub config: PathBuf,
    /// Number of shards (array tasks), ≥ 1.
    pub shards: u32,
    /// `--partition` of both jobs.
    pub partition: Option<String>,
    /// `--time` limit of each task and of the merge (`HH:MM:SS`, as Slurm reads it).
    pub time: Option<String>,
    /// CPUs per task: each shard's `--concurrency`.
    pub cpus_per_task: u32,
    /// Submit both jobs with `sbatch`.
    pub submit: bool,
}

/// The batch scripts of a tournament and where they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scripts {
    /// `DIR/slurm/shards.sbatch`: the job array.
    pub shards: PathBuf,
    /// `DIR/slurm/merge.sbatch`: the merge.
    pub merge: PathBuf,
    /// `DIR/merged`: where the merge writes.
    pub merged: PathBuf,
}

/// A path quoted for bash (single quotes).
fn quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', r"'\''"))
}

/// `#SBATCH` lines shared by both jobs.
fn common(options: &SlurmOptions) -> String {
    let mut text = String::new();
    if let Some(p) = &options.partition {
        text.push_str(&format!("#SBATCH --partition={p}\n"));
    }
    if let Some(t) = &options.time {
        text.push_str(&format!("#SBATCH --time={t}\n"));
    }
    text
}

/// The two batch scripts' text: (shards.sbatch, merge.sbatch). `arena` and `workdir` are
/// absolute; `out` is the tournament's output directory (absolute).
pub fn scripts(
    plan: &Plan,
    options: &SlurmOptions,
    arena: &Path,
    config: &Path,
    workdir: &Path,
    out: &Path,
) -> (String, String) {
    let n = options.shards.max(1);
    let job: String = plan
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let slurm_dir = out.join("slurm");
    let shard_dir = format!("{}/shard-", out.display()).replace('\'', r"'\''");
    let shards = format!(
        "#!/bin/bash\n\
         # Written by `arena slurm`: the {n} shards of {config}, one array task each.\n\
         # A task that fails or is preempted resumes its shard when run again: resubmit it\n\
         # alone with `sbatch --array=K {script}`. Requeueing is safe for the same reason.\n\
         #SBATCH --job-name=arena-{job}\n\
         #SBATCH --array=0-{last}\n\
         #SBATCH --cpus-per-task={cpus}\n\
         {common}\
         #SBATCH --requeue\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={logs}/shard-%a.log\n\
         set -euo pipefail\n\
         cd {workdir}\n\
         exec {arena} run {config_q} --seed {seed} --shard \"$SLURM_ARRAY_TASK_ID/{n}\" \\\n  \
         --output '{shard_dir}'\"$SLURM_ARRAY_TASK_ID\" --concurrency \"${{SLURM_CPUS_PER_TASK:-1}}\"\n",
        config = config.display(),
        script = slurm_dir.join("shards.sbatch").display(),
        last = n - 1,
        cpus = options.cpus_per_task.max(1),
        common = common(options),
        logs = slurm_dir.display(),
        workdir = quote(workdir),
        arena = quote(arena),
        config_q = quote(config),
        seed = plan.seed,
    );
    let dirs: Vec<String> = (0..n)
        .map(|k| quote(&out.join(format!("shard-{k}"))))
        .collect();
    let merge = format!(
        "#!/bin/bash\n\
         # Written by `arena slurm`: joins the {n} shards of {config} into {merged}.\n\
         # Submit after the shards: `sbatch --dependency=afterok:ARRAY_JOB_ID {script}`.\n\
         #SBATCH --job-name=arena-{job}-merge\n\
         #SBATCH --cpus-per-task=1\n\
         {common}\
         #SBATCH --requeue\n\
         #SBATCH --open-mode=append\n\
         #SBATCH --output={logs}/merge.log\n\
         set -euo pipefail\n\
         cd {workdir}\n\
         exec {arena} merge \\\n  {dirs} \\\n  --output {merged_q}\n",
        config = config.display(),
        merged = out.join("merged").display(),
        script = slurm_dir.join("merge.sbatch").display(),
        common = common(options),
        logs = slurm_dir.display(),
        workdir = quote(workdir),
        arena = quote(arena),
        dirs = dirs.join(" \\\n  "),
        merged_q = quote(&out.join("merged")),
    );
    (shards, merge)
}

/// With `anonymize`, the pseudonyms' salt written into the tournament's output directory and
/// each shard's (`out/shard-K`), so every shard names the teams alike.
fn share_salt(plan: &Plan, out: &Path, shards: u32) -> Result<(), Stop> {
    let Some(roster) = &plan.roster else {
        return Ok(());
    };
    let Some((salt, _)) = roster.salt else {
        return Ok(());
    };
    let dirs =
        std::iter::once(out.to_owned()).chain((0..shards).map(|k| out.join(format!("shard-{k}"))));
    for dir in dirs {
        fs::create_dir_all(&dir)
            .map_err(|e| Stop::new(FAILED, format!("{}: cannot create: {e}", dir.display())))?;
        crate::class::pseudonyms::write(&dir, &salt, &roster.pseudonyms)
            .map_err(|e| Stop::new(FAILED, e))?;
    }
    Ok(())
}

/// The job id in `sbatch --parsable`'s output: `ID` or `ID;CLUSTER`.
pub fn parse_job_id(stdout: &str) -> Option<u64> {
    stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())?
        .split(';')
        .next()?
        .trim()
        .parse()
        .ok()
}

/// Runs `sbatch --parsable [extra] script`; returns the job id.
fn sbatch(script: &Path, extra: &[String]) -> Result<u64, Stop> {
    let output = Command::new("sbatch")
        .arg("--parsable")
        .args(extra)
        .arg(script)
        .output()
        .map_err(|e| {
            Stop::new(
                FAILED,
                format!(
                    "cannot run sbatch ({e}); is this a Slurm login node? Submit {} yourself",
                    script.display()
                ),
            )
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(Stop::new(
            FAILED,
            format!(
                "sbatch {} failed ({}): {}",
                script.display(),
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        ));
    }
    parse_job_id(&stdout).ok_or_else(|| {
        Stop::new(
            FAILED,
            format!(
                "sbatch {}: no job id in its output `{}`",
                script.display(),
                stdout.trim()
            ),
        )
    })
}

/// The most game pairs the tournament can have, before any handshake: each engine plays the
/// games of its `games:` key, or every game (what it declares can only remove games). `None`
/// when the schedule cannot be built.
fn most_game_pairs(plan: &Plan) -> Option<u64> {
    let names = super::engine_names(plan);
    let plays: Vec<Vec<GameKind>> = plan
        .engines
        .iter()
        .map(|e| {
            e.spec
                .games
                .clone()
                .unwrap_or_else(|| GameKind::ALL.to_vec())
        })
        .collect();
    let entrants = Entrants {
        boards: &plan.config.boards,
        board_names: &plan.board_names,
        engine_names: &names,
        plays: &plays,
    };
    let schedule = schedule::build(
        &entrants,
        plan.config.rounds,
        plan.seed,
        &super::pairing(plan).ok()?,
    )
    .ok()?;
    let pairs: std::collections::BTreeSet<u64> = schedule.fixtures.iter().map(|f| f.pair).collect();
    Some(pairs.len() as u64)
}

/// Runs `arena slurm`: writes the scripts, submits them with `submit`; returns the exit code.
///
/// # Errors
/// [`Stop`] with [`BAD_CONFIG`] for a config with `sprt` or zero shards; with [`FAILED`] when
/// a script cannot be written or `sbatch` fails.
pub fn slurm(plan: &Plan, options: &SlurmOptions) -> Result<u8, Stop> {
    if options.shards == 0 {
        return Err(Stop::new(BAD_CONFIG, "--shards must be at least 1"));
    }
    if plan.config.format.pairs_by_results() {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: format: {} cannot be split into shards: each round is paired from the results of the last; run it with `arena run` on one node",
                plan.file.display(),
                crate::formats::settings::format_name(plan.config.format)
            ),
        ));
    }
    if plan.config.sprt.is_some() {
        return Err(Stop::new(
            BAD_CONFIG,
            format!(
                "{}: `sprt` cannot be split into shards: the test stops the whole run early, which shards on separate nodes cannot do",
                plan.file.display()
            ),
        ));
    }
    if let Some(pairs) = most_game_pairs(plan) {
        if options.shards as u64 > pairs {
            eprintln!(
                "warning: --shards {} exceeds the tournament's {pairs} game pair(s) at most: {} shard(s) will play no game (a shard holds whole game pairs); use --shards {pairs} or fewer",
                options.shards,
                options.shards as u64 - pairs
            );
        }
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Stop::new(FAILED, format!("cannot read the current directory: {e}")))?;
    let arena = std::env::current_exe()
        .and_then(fs::canonicalize)
        .map_err(|e| Stop::new(FAILED, format!("cannot find the arena binary: {e}")))?;
    let config = fs::canonicalize(&options.config)
        .map_err(|e| Stop::new(BAD_CONFIG, format!("{}: {e}", options.config.display())))?;
    let out = cwd.join(&plan.output);
    let slurm_dir = out.join("slurm");
    fs::create_dir_all(&slurm_dir).map_err(|e| {
        Stop::new(
            FAILED,
            format!("{}: cannot create: {e}", slurm_dir.display()),
        )
    })?;
    share_salt(plan, &out, options.shards)?;
    let (shards_text, merge_text) = scripts(plan, options, &arena, &config, &cwd, &out);
    let paths = Scripts {
        shards: slurm_dir.join("shards.sbatch"),
        merge: slurm_dir.join("merge.sbatch"),
        merged: out.join("merged"),
    };
    for (path, text) in [(&paths.shards, shards_text), (&paths.merge, merge_text)] {
        fs::write(path, text)
            .map_err(|e| Stop::new(FAILED, format!("{}: cannot write: {e}", path.display())))?;
    }
    println!(
        "wrote {} ({} array tasks) and {}",
        paths.shards.display(),
        options.shards,
        paths.merge.display()
    );
    if !options.submit {
        println!(
            "submit with:\n  ID=$(sbatch --parsable {})\n  sbatch --dependency=afterok:$ID {}",
            paths.shards.display(),
            paths.merge.display()
        );
        println!("merged results will be in {}", paths.merged.display());
        return Ok(DONE);
    }
    let array = sbatch(&paths.shards, &[])?;
    let merge = sbatch(&paths.merge, &[format!("--dependency=afterok:{array}")])?;
    println!(
        "submitted shards: job {array} (array 0-{})",
        options.shards - 1
    );
    println!("submitted merge: job {merge} (runs after every shard succeeds)");
    println!("follow:  squeue -j {array},{merge}");
    println!("after:   sacct -j {array},{merge} --format=JobID,State,ExitCode,Elapsed");
    println!(
        "logs:    {}/shard-K.log, {}/merge.log",
        slurm_dir.display(),
        slurm_dir.display()
    );
    println!(
        "a failed shard K: sbatch --array=K {}; then scancel {merge} and sbatch --dependency=afterok:NEW_ID {}",
        paths.shards.display(),
        paths.merge.display()
    );
    println!("merged results will be in {}", paths.merged.display());
    Ok(DONE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbatch_parsable_output_gives_the_job_id() {
        assert_eq!(parse_job_id("1234\n"), Some(1234));
        assert_eq!(parse_job_id("77;cluster\n"), Some(77));
        assert_eq!(parse_job_id("warning: x\n88\n"), Some(88));
        assert_eq!(parse_job_id("Submitted batch job 5\n"), None);
        assert_eq!(parse_job_id(""), None);
    }

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(quote(Path::new("/a b/c'd")), r"'/a b/c'\''d'");
    }
}
