//! `arena run --shard K/N` and `arena merge` through the binary, without Slurm: shards of a
//! deterministic tournament (depth-limited engines) merge to the single run's files, a shard
//! directory resumes only as its shard, and merge refuses mixed configs, duplicates and gaps.

mod util;

use std::fs;
use std::path::{Path, PathBuf};

use util::{Dir, arena, engine, read_games, without_timing};

/// Two engines and an SPRT between them.
fn sprt_config(dir: &Dir) -> PathBuf {
    dir.write(
        "sprt.yaml",
        &format!(
            "seed: 1
time_control: {{ depth: 1 }}
boards: [ {{ game: awale, pits: 6 }} ]
engines:
  - {{ name: random, command: {} }}
  - {{ name: greedy, command: {} }}
sprt: {{ elo0: 0, elo1: 10 }}
",
            engine("random"),
            engine("greedy")
        ),
    )
}

/// 2 boards × 3 engine pairs × 2 rounds = 12 game pairs, 24 games; depth-limited, so every
/// game is the same in every run.
fn config(dir: &Dir, name: &str, seed: u64) -> PathBuf {
    dir.write(
        &format!("{name}.yaml"),
        &format!(
            "name: shards
seed: {seed}
rounds: 2
time_control: {{ depth: 2 }}
boards:
  - {{ game: awale, pits: 6, random_opening_plies: 2 }}
  - {{ game: seven_colors, size: 7 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy} }}
  - {{ name: alphabeta, command: {alphabeta}, options: {{ Width: 4, RootWidth: 8 }} }}
",
            random = engine("random"),
            greedy = engine("greedy"),
            alphabeta = engine("alphabeta"),
        ),
    )
}

fn run(config: &Path, out: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    arena()
        .arg("run")
        .arg(config)
        .arg("--output")
        .arg(out)
        .args(["-q"])
        .args(args)
        .assert()
}

fn merge(shards: &[PathBuf], out: &Path) -> assert_cmd::assert::Assert {
    arena()
        .arg("merge")
        .args(shards)
        .arg("--output")
        .arg(out)
        .assert()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Plays shards 0..3 of `cfg` into `dir/shard-K` (concurrency 1, 2, 1).
fn play_shards(dir: &Dir, cfg: &Path) -> Vec<PathBuf> {
    (0..3)
        .map(|k| {
            let out = dir.path(&format!("shard-{k}"));
            run(
                cfg,
                &out,
                &["--shard", &format!("{k}/3"), "-j", &(1 + k % 2).to_string()],
            )
            .success();
            out
        })
        .collect()
}

#[test]
fn shards_merge_to_the_single_run() {
    let dir = Dir::new();
    let cfg = config(&dir, "t", 3);
    let single = dir.path("single");
    run(&cfg, &single, &["-j", "2"]).success();
    let shards = play_shards(&dir, &cfg);

    // Disjoint, complete, balanced, legs together.
    let mut ids = Vec::new();
    for s in &shards {
        let games = read_games(&s.join("games.csv"));
        assert_eq!(games.len(), 8, "{}: 24 games in 3 shards", s.display());
        for g in &games {
            assert_eq!(
                games.iter().filter(|o| o.pair == g.pair).count(),
                2,
                "both legs of pair {} in {}",
                g.pair,
                s.display()
            );
        }
        ids.extend(games.iter().map(|g| g.game_id));
        assert!(read(&s.join("shard.yaml")).contains("shards: 3"));
    }
    ids.sort_unstable();
    assert_eq!(ids, (0..24).collect::<Vec<u64>>());

    let merged = dir.path("merged");
    let ok = merge(&shards, &merged).success();
    let stdout = String::from_utf8_lossy(&ok.get_output().stdout).into_owned();
    assert!(stdout.contains("merged 24 games of 3 shard(s)"), "{stdout}");
    // Played separately, games differ only in their timing columns.
    assert_eq!(
        without_timing(read_games(&merged.join("games.csv"))),
        without_timing(read_games(&single.join("games.csv")))
    );
    for file in ["ratings.csv", "pairs.csv", "results.pgn"] {
        assert_eq!(
            read(&merged.join(file)),
            read(&single.join(file)),
            "{file} differs"
        );
    }
    assert!(merged.join("report.html").is_file() && merged.join("results.xlsx").is_file());
    // A merge may write over its own output again.
    merge(&shards, &merged).success();
}

#[test]
fn merged_files_are_byte_identical_to_the_run_whose_games_the_shards_hold() {
    // Shard directories seeded with the single run's files: each `arena run --shard` resumes,
    // keeps its own rows (setting the others aside) and plays nothing; the merge must then
    // give back the single run's files byte for byte, timing columns included.
    let dir = Dir::new();
    let cfg = config(&dir, "t", 5);
    let single = dir.path("single");
    run(&cfg, &single, &["-j", "2"]).success();
    let mut shards = Vec::new();
    for k in 0..3 {
        let out = dir.path(&format!("shard-{k}"));
        fs::create_dir_all(&out).unwrap();
        for f in ["games.csv", "config.resolved.yaml", "plays.yaml"] {
            fs::copy(single.join(f), out.join(f)).unwrap();
        }
        fs::write(out.join("shard.yaml"), format!("shard: {k}\nshards: 3\n")).unwrap();
        let a = run(&cfg, &out, &["--shard", &format!("{k}/3")]).success();
        assert!(stderr(&a).contains("set aside 16 row(s)"), "{}", stderr(&a));
        assert_eq!(read_games(&out.join("games.csv")).len(), 8);
        shards.push(out);
    }
    let merged = dir.path("merged");
    merge(&shards, &merged).success();
    for file in ["games.csv", "ratings.csv", "pairs.csv", "results.pgn"] {
        assert_eq!(
            fs::read(merged.join(file)).unwrap(),
            fs::read(single.join(file)).unwrap(),
            "{file} differs"
        );
    }
}

#[test]
fn a_shard_directory_resumes_only_as_its_shard() {
    let dir = Dir::new();
    let cfg = config(&dir, "t", 3);
    let out = dir.path("s");
    run(&cfg, &out, &["--shard", "1/3"]).success();
    let hash = read(&out.join("config.hash"));
    // Resuming as the same shard plays nothing new.
    let again = run(&cfg, &out, &["--shard", "1/3"]).success();
    assert!(
        stderr(&again).contains("resuming: 8 of 8 games"),
        "{}",
        stderr(&again)
    );
    assert_eq!(read(&out.join("config.hash")), hash);
    for (args, what) in [
        (vec!["--shard", "2/3"], "as shard 2/3"),
        (vec!["--shard", "1/4"], "as shard 1/4"),
        (vec![], "as a full run"),
    ] {
        let a = run(&cfg, &out, &args).code(2);
        let e = stderr(&a);
        assert!(e.contains("holds shard 1/3") && e.contains(what), "{e}");
    }
    // A full run's directory is no shard.
    let full = dir.path("full");
    run(&cfg, &full, &[]).success();
    assert_ne!(read(&full.join("config.hash")), hash);
    let e = stderr(&run(&cfg, &full, &["--shard", "0/3"]).code(2));
    assert!(e.contains("full run") && e.contains("as shard 0/3"), "{e}");
    // --force starts the shard afresh.
    run(&cfg, &full, &["--shard", "0/3", "--force"]).success();
    assert_eq!(read_games(&full.join("games.csv")).len(), 8);
    // Bad K/N, and SPRT, which cannot be split.
    let e = stderr(&run(&cfg, &dir.path("x"), &["--shard", "3/3"]).code(2));
    assert!(e.contains("0 <= K < N"), "{e}");
    let sprt = sprt_config(&dir);
    let e = stderr(&run(&sprt, &dir.path("y"), &["--shard", "0/2"]).code(2));
    assert!(e.contains("`sprt` cannot be split"), "{e}");
}

#[test]
fn merge_refuses_mixed_configs_duplicates_and_gaps() {
    let dir = Dir::new();
    let cfg = config(&dir, "t", 3);
    let shards = play_shards(&dir, &cfg);
    let merged = dir.path("merged");

    // Another seed.
    let other = config(&dir, "o", 4);
    let foreign = dir.path("foreign-1");
    run(&other, &foreign, &["--shard", "1/3"]).success();
    let e = stderr(
        &merge(
            &[shards[0].clone(), foreign.clone(), shards[2].clone()],
            &merged,
        )
        .code(1),
    );
    assert!(
        e.contains("shard-0") && e.contains("foreign-1") && e.contains("seed (3 vs 4)"),
        "{e}"
    );
    // Two directories holding one shard.
    let copy = dir.path("copy-0");
    fs::create_dir_all(&copy).unwrap();
    for f in [
        "games.csv",
        "config.resolved.yaml",
        "plays.yaml",
        "shard.yaml",
    ] {
        fs::copy(shards[0].join(f), copy.join(f)).unwrap();
    }
    let e = stderr(
        &merge(
            &[shards[0].clone(), copy.clone(), shards[1].clone()],
            &merged,
        )
        .code(1),
    );
    assert!(
        e.contains("shard-0 and") && e.contains("copy-0 are both shard 0/3"),
        "{e}"
    );
    // A row of shard 1 in shard 2's file.
    let games1 = read(&shards[1].join("games.csv"));
    let games2 = read(&shards[2].join("games.csv"));
    let stray = games1.lines().nth(1).unwrap();
    let id: u64 = stray.split(',').next().unwrap().parse().unwrap();
    fs::write(shards[2].join("games.csv"), format!("{games2}{stray}\n")).unwrap();
    let e = stderr(&merge(&shards, &merged).code(1));
    assert!(
        e.contains(&format!("game {id} belongs to shard 1/3")) && e.contains("shard-2"),
        "{e}"
    );
    fs::write(shards[2].join("games.csv"), &games2).unwrap();

    // Gaps: shard 1 lost its last three rows, shard 2 never ran.
    let lines: Vec<&str> = games1.lines().collect();
    let kept = lines[..lines.len() - 3].join("\n") + "\n";
    fs::write(shards[1].join("games.csv"), kept).unwrap();
    let lost: Vec<u64> = lines[lines.len() - 3..]
        .iter()
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    let gone = dir.path("gone-2");
    fs::rename(&shards[2], &gone).unwrap();
    let e = stderr(&merge(&shards, &merged).code(1));
    assert!(e.contains("11 of 24 games are missing"), "{e}");
    assert!(
        e.contains("shard 1/3") && e.contains("3 game(s)") && e.contains(&lost[2].to_string()),
        "{e}"
    );
    assert!(e.contains("shard 2/3") && e.contains("8 game(s)"), "{e}");
    assert!(e.contains("--array=1") && e.contains("--array=2"), "{e}");
    assert!(
        !merged.join("games.csv").exists(),
        "nothing written on error"
    );
    // Re-running the shards fills the gaps.
    fs::rename(&gone, &shards[2]).unwrap();
    run(&cfg, &shards[1], &["--shard", "1/3"]).success();
    merge(&shards, &merged).success();
    assert_eq!(read_games(&merged.join("games.csv")).len(), 24);

    // Bad usage: not a shard directory, output onto a shard, results of another kind.
    let plain = dir.path("plain");
    fs::create_dir_all(&plain).unwrap();
    let e = stderr(&merge(&[plain], &dir.path("m2")).code(2));
    assert!(e.contains("no shard.yaml"), "{e}");
    let e = stderr(&merge(&shards, &shards[0]).code(2));
    assert!(e.contains("is one of the shard directories"), "{e}");
    let full = dir.path("full");
    run(&cfg, &full, &[]).success();
    let e = stderr(&merge(&shards, &full).code(2));
    assert!(e.contains("no `arena merge` wrote"), "{e}");
}

#[test]
fn slurm_writes_array_and_merge_scripts() {
    let dir = Dir::new();
    let cfg = config(&dir, "t", 3);
    let out = dir.path("cluster");
    let a = arena()
        .arg("slurm")
        .arg(&cfg)
        .args([
            "--shards",
            "4",
            "--cpus-per-task",
            "2",
            "--time",
            "01:00:00",
        ])
        .args(["--partition", "short", "--output"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&a.get_output().stdout).into_owned();
    assert!(stdout.contains("sbatch --dependency=afterok:"), "{stdout}");
    let shards = read(&out.join("slurm/shards.sbatch"));
    for line in [
        "#SBATCH --array=0-3",
        "#SBATCH --cpus-per-task=2",
        "#SBATCH --time=01:00:00",
        "#SBATCH --partition=short",
        "#SBATCH --requeue",
        "--seed 3 --shard \"$SLURM_ARRAY_TASK_ID/4\"",
        "--concurrency \"${SLURM_CPUS_PER_TASK:-1}\"",
    ] {
        assert!(shards.contains(line), "no `{line}` in\n{shards}");
    }
    let cfg_abs = fs::canonicalize(&cfg).unwrap();
    assert!(
        shards.contains(&format!("'{}'", cfg_abs.display())),
        "{shards}"
    );
    let merge = read(&out.join("slurm/merge.sbatch"));
    assert!(
        merge.contains(" merge ") && merge.contains("shard-3'"),
        "{merge}"
    );
    assert!(merge.contains(&format!("--output '{}'", out.join("merged").display())));
    // SPRT cannot be sharded; without sbatch, --submit fails with a clear message.
    let sprt = sprt_config(&dir);
    arena()
        .arg("slurm")
        .arg(&sprt)
        .args(["--shards", "2"])
        .assert()
        .code(2);
}

/// Writes `records` as a games.csv (header and one line a row, in the order given).
fn write_games(path: &Path, records: &[arena::record::GameRecord]) {
    let mut writer = csv::Writer::from_path(path).unwrap();
    for r in records {
        writer.serialize(r).unwrap();
    }
    writer.flush().unwrap();
}

/// Audit items 1, 4 and 16: merge accepts shards that differ only in keys no game depends
/// on (`name`, `record_moves`, as a resume does), and refuses a row whose result a run never
/// writes, whose result the replay of its moves contradicts, or whose moves are illegal,
/// naming the shard's file and line; `arena report` refuses the `2-0` too.
#[test]
fn merge_checks_every_row_and_accepts_game_neutral_differences() {
    let dir = Dir::new();
    let cfg = config(&dir, "t", 3);
    let shards = play_shards(&dir, &cfg);
    let merged = dir.path("merged");

    let resolved = shards[1].join("config.resolved.yaml");
    let text = read(&resolved);
    assert!(text.contains("name: shards"), "{text}");
    let text = text.replace("name: shards", "name: renamed");
    let text = if text.contains("record_moves: false") {
        text.replace("record_moves: false", "record_moves: true")
    } else {
        text + "record_moves: true\n"
    };
    fs::write(&resolved, text).unwrap();
    let ok = merge(&shards, &merged).success();
    assert!(
        stderr(&ok).contains("differ in name, record_moves, which change no game"),
        "{}",
        stderr(&ok)
    );
    assert!(read(&merged.join("config.resolved.yaml")).contains("name: shards"));

    let games = shards[0].join("games.csv");
    let good = read_games(&games);
    let original = read(&games);
    // Row k of the file is on line k + 2 (no field spans lines).
    let decisive = good
        .iter()
        .position(|g| g.termination.to_string() == "normal" && g.result != "1/2-1/2")
        .expect("a decisive game ended by the rules");
    let flipped = if good[decisive].result == "1-0" {
        "0-1"
    } else {
        "1-0"
    };
    type Edit<'a> = &'a dyn Fn(&mut arena::record::GameRecord);
    let cases: [(usize, Edit<'_>, String); 3] = [
        (
            1,
            &|g| g.result = "2-0".into(),
            "is refused: result `2-0` is not 1-0, 0-1, 1/2-1/2 or *".into(),
        ),
        (
            decisive,
            &|g| g.result = flipped.into(),
            format!("is refused: result {flipped} with termination normal, but the replay of its"),
        ),
        (
            2,
            &|g| g.moves = format!("zz {}", g.moves),
            "is refused: ply 1: move `zz` is illegal".into(),
        ),
    ];
    for (k, edit, message) in cases {
        let mut rows = good.clone();
        edit(&mut rows[k]);
        write_games(&games, &rows);
        let e = stderr(&merge(&shards, &merged).code(1));
        let at = format!("{}:{}: game {} ", games.display(), k + 2, rows[k].game_id);
        assert!(e.contains(&format!("{at}{message}")), "{at}{message}\n{e}");
        if rows[k].result == "2-0" {
            let e = stderr(&arena().arg("report").arg(&shards[0]).assert().code(2));
            assert!(
                e.contains(&format!(
                    "{}:{}: game {}: result `2-0` is not",
                    games.display(),
                    k + 2,
                    rows[k].game_id
                )),
                "{e}"
            );
        }
    }
    fs::write(&games, original).unwrap();
    merge(&shards, &merged).success();
}
