//! A class championship from a folder of submissions, through the real binary: the teams
//! found and refused, the later of two dated submissions, a team that cannot start and
//! forfeits, the level of a team built to beat `random` but not `greedy`, the team pages, a
//! leaderboard under pseudonyms with no real name in any public file, `arena check`, shards
//! and their merge, and the shipped example.

mod util;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use util::{Dir, arena, compile_player, csv_rows, engine, python_engine};

/// Every team folder of the tree, by name: entered ones first, then the two refused.
const TEAMS: [&str; 11] = [
    "team-libr",
    "team-walker",
    "team-nogsl",
    "team-py",
    "team-cprog",
    "team-twin",
    "team-dated",
    "team-broken",
    "team-crash",
    "team,bad",
    "team-empty",
];

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn executable(path: &Path, text: &str) {
    write(path, text);
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The submissions tree of the issue, in `dir/subs`: three course `.so` players (a
/// `directions` file, a west3 one, and one taking the config's default), the Python template,
/// a C program, an `arena.yaml` running a copy of `greedy` handed in with it (so it beats
/// `random` and ties `greedy` by construction), two dated submissions (an old broken draft, a later good one),
/// a program that dies at start, one that crashes at its first `go` printing its own path
/// (which names its team) to stderr, an invalid folder name and an empty folder.
fn tree(dir: &Dir) -> PathBuf {
    let subs = dir.path("subs");
    let team = |name: &str| subs.join(name);
    fs::create_dir_all(team("team-libr")).unwrap();
    compile_player(&team("team-libr"), "player", "random", "clockwise", true);
    write(&team("team-libr/directions"), "clockwise\n");
    fs::create_dir_all(team("team-walker")).unwrap();
    compile_player(&team("team-walker"), "walker", "walker", "west3", true);
    write(&team("team-walker/directions"), "west3\n");
    fs::create_dir_all(team("team-nogsl")).unwrap();
    compile_player(&team("team-nogsl"), "nogsl", "nogsl", "clockwise", false);
    let template = fs::read_to_string(python_engine()).unwrap();
    write(&team("team-py/engine.py"), &template);
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/first_pit.c");
    fs::create_dir_all(team("team-cprog")).unwrap();
    let status = Command::new("gcc")
        .args(["-std=c99", "-O1", "-Wall", "-Werror", "-o"])
        .arg(team("team-cprog/engine"))
        .arg(&c)
        .status()
        .expect("gcc runs (scripts/test.sh installs it)");
    assert!(status.success(), "gcc failed on {}", c.display());
    fs::create_dir_all(team("team-twin")).unwrap();
    fs::copy(engine("greedy"), team("team-twin/greedy-copy")).unwrap();
    write(&team("team-twin/arena.yaml"), "command: ./greedy-copy\n");
    write(
        &team("team-dated/2026-11-20T10-00/engine.py"),
        "raise SystemExit('first draft: does not run')\n",
    );
    write(&team("team-dated/2026-11-21T09-30/engine.py"), &template);
    executable(
        &team("team-broken/engine"),
        "#!/bin/sh\necho 'engine: cannot open weights.bin: No such file or directory' >&2\nexit 3\n",
    );
    executable(
        &team("team-crash/engine"),
        "#!/bin/sh\nwhile read -r line; do case \"$line\" in\n\
         ugi) echo 'id name crash'; echo 'option name UGI_Variant type combo default awale var awale'; echo ugiok;;\n\
         isready) echo readyok;;\n\
         go*) echo \"$0: segmentation fault\" >&2; exit 139;;\n\
         quit) exit 0;;\nesac; done\n",
    );
    write(&team("team,bad/engine.py"), &template);
    fs::create_dir_all(team("team-empty")).unwrap();
    subs
}

/// The championship's config in `dir/class.yaml`, with `extra` keys.
fn config(dir: &Dir, extra: &str) -> PathBuf {
    dir.write(
        "class.yaml",
        &format!(
            "name: class\nseed: 11\nrounds: 3\nconcurrency: 2\n\
             time_control: {{ movetime_ms: 20 }}\n\
             boards:\n  - {{ game: amazons, shape: square, width: 6 }}\n  - {{ game: awale, pits: 6 }}\n\
             engines:\n  - {{ name: random, command: {} }}\n  - {{ name: greedy, command: {} }}\n\
             submissions: subs\nsubmissions_defaults: {{ directions: clockwise }}\n\
             ladder: [random, greedy]\ngrades: {{ greedy: A, random: C, none: F }}\n\
             output: out\n{extra}",
            engine("random"),
            engine("greedy")
        ),
    )
}

/// teams.csv by team.
fn teams(out: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    csv_rows(&out.join("teams.csv"))
        .into_iter()
        .map(|r| (r["team"].clone(), r))
        .collect()
}

/// Every file under `dir`, recursively.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The text of a file as a person or a program could read it: results.xlsx's cells, every
/// other file's bytes.
fn readable(path: &Path) -> String {
    if path.extension().is_some_and(|x| x == "xlsx") {
        use calamine::{Reader, Xlsx, open_workbook};
        let mut book: Xlsx<_> = open_workbook(path).unwrap();
        let mut text = String::new();
        for name in book.sheet_names() {
            let range = book.worksheet_range(&name).unwrap();
            for cell in range.used_cells() {
                text.push_str(&cell.2.to_string());
                text.push('\n');
            }
        }
        return text;
    }
    String::from_utf8_lossy(&fs::read(path).unwrap()).into_owned()
}

/// The teams that entered, with their kind.
const ENTERED: [(&str, &str); 9] = [
    ("team-libr", "library"),
    ("team-walker", "library"),
    ("team-nogsl", "library"),
    ("team-py", "python"),
    ("team-cprog", "program"),
    ("team-twin", "arena.yaml"),
    ("team-dated", "python"),
    ("team-broken", "program"),
    ("team-crash", "program"),
];

type Teams = BTreeMap<String, BTreeMap<String, String>>;

#[test]
fn a_class_championship_grades_every_team_under_pseudonyms() {
    let dir = Dir::new();
    tree(&dir);
    let cfg = config(&dir, "anonymize: true\n");
    // The teacher's kept salt: fixed pseudonyms, so fixed engine seeds and games.
    fs::create_dir_all(dir.path("out")).unwrap();
    fs::write(
        dir.path("out/pseudonyms.csv"),
        format!("salt,{}\n", "cd".repeat(32)),
    )
    .unwrap();
    arena()
        .current_dir(dir.path(""))
        .args(["run", "-q"])
        .arg(&cfg)
        .assert()
        .success();
    let out = dir.path("out");
    let teams = teams(&out);
    assert_eq!(teams.len(), TEAMS.len(), "{teams:?}");
    teams_found_and_refused(&teams);
    levels_by_hand(&out, &teams);
    only_rungs_meet_teams(&out);
    pages_say_what_happened(&out, &teams);
    no_real_name_in_public_files(&out);
    no_real_name_on_the_live_page(&out, &teams);
}

/// Kinds, pseudonyms, statuses, the refused folders and the later dated submission.
fn teams_found_and_refused(teams: &Teams) {
    let name = |team: &str| teams[team]["name"].clone();
    for (team, kind) in ENTERED {
        assert_eq!(teams[team]["kind"], kind, "{team}");
        assert_ne!(name(team), team, "{team} plays under a pseudonym");
        let status = &teams[team]["status"];
        if team == "team-broken" || team == "team-crash" {
            assert!(status.starts_with("forfeited"), "{status}");
        } else {
            assert_eq!(status, "played", "{team}");
        }
    }
    assert!(teams["team,bad"]["status"].contains("not a valid team name"));
    assert!(teams["team-empty"]["status"].contains("the folder is empty"));
    assert_eq!(teams["team-dated"]["submission"], "2026-11-21T09-30");
}

/// The level of the twin of greedy from its games and pairs.csv's intervals, by hand.
fn levels_by_hand(out: &Path, teams: &Teams) {
    let name = |team: &str| teams[team]["name"].clone();
    // Levels, checked by hand from games.csv: the twin of greedy wins most of its games
    // against random, and against greedy (the same engine, its own tie-breaks) about half.
    let games = csv_rows(&out.join("games.csv"));
    let twin = name("team-twin");
    let score = |rung: &str| {
        let mut points = 0.0;
        let mut n = 0;
        for g in games.iter().filter(|g| {
            (g["first"] == twin && g["second"] == rung)
                || (g["second"] == twin && g["first"] == rung)
        }) {
            n += 1;
            points += match (g["result"].as_str(), g["first"] == twin) {
                ("1-0", true) | ("0-1", false) => 1.0,
                ("1/2-1/2", _) => 0.5,
                _ => 0.0,
            };
        }
        (points, n)
    };
    let (vs_random, n) = score("random");
    assert!(
        n == 6 && vs_random >= 5.0,
        "{vs_random} of {n} against random"
    );
    let (vs_greedy, n) = score("greedy");
    assert!(
        n == 6 && vs_greedy <= 4.0,
        "{vs_greedy} of {n} against greedy"
    );
    // pairs.csv's intervals, as the level rule reads them: above 0 against random only.
    let pairs = csv_rows(&out.join("pairs.csv"));
    let low = |rung: &str| {
        let p = pairs
            .iter()
            .find(|p| p["scope"] == "all" && p["engine_a"] == rung && p["engine_b"] == twin)
            .expect("rungs come first in config order");
        // Seen from the twin: minus the rung's upper end (empty: unbounded).
        p["ci_high"].parse::<f64>().map(|x| -x).ok()
    };
    assert!(
        low("random").is_some_and(|l| l > 0.0),
        "{:?}",
        low("random")
    );
    assert!(
        !low("greedy").is_some_and(|l| l > 0.0),
        "{:?}",
        low("greedy")
    );
    assert_eq!(
        (
            teams["team-twin"]["level"].as_str(),
            teams["team-twin"]["grade"].as_str()
        ),
        ("random", "C")
    );
    assert_eq!(
        (
            teams["team-broken"]["level"].as_str(),
            teams["team-broken"]["grade"].as_str()
        ),
        ("none", "F")
    );
}

/// Teams meet only the rungs; the rungs meet each other once; the first rung is at 0.
fn only_rungs_meet_teams(out: &Path) {
    let games = csv_rows(&out.join("games.csv"));
    let rungs = ["random", "greedy"];
    for g in &games {
        let (a, b) = (g["first"].as_str(), g["second"].as_str());
        assert!(rungs.contains(&a) || rungs.contains(&b), "{a} vs {b}");
        if rungs.contains(&a) && rungs.contains(&b) {
            assert_eq!(g["round"], "1");
        }
    }
    // The ladder anchors the scale: the first rung at 0.
    let ratings = csv_rows(&out.join("ratings.csv"));
    let random = ratings
        .iter()
        .find(|r| r["scope"] == "all" && r["engine"] == "random")
        .unwrap();
    assert_eq!(random["elo"], "0.0");
}

/// One page per team that entered, linked from report.html, saying why a team forfeited or
/// crashed.
fn pages_say_what_happened(out: &Path, teams: &Teams) {
    let name = |team: &str| teams[team]["name"].clone();
    let twin = name("team-twin");
    // Pages: one per team that entered, linked from report.html, under its pseudonym.
    let report = fs::read_to_string(out.join("report.html")).unwrap();
    for (team, _) in ENTERED {
        let page = out.join(format!("teams/{}.html", name(team)));
        let html = fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(html.contains(&format!("<h1>{}</h1>", name(team))));
        assert!(html.contains("Your team's pseudonym"));
        assert!(report.contains(&format!("href=\"teams/{}.html\"", name(team))));
    }
    let broken =
        fs::read_to_string(out.join(format!("teams/{}.html", name("team-broken")))).unwrap();
    assert!(
        broken.contains("handshake failed before the"),
        "the page says why"
    );
    assert!(
        broken.contains("cannot open weights.bin"),
        "and quotes its stderr"
    );
    // A crash is quoted with its stderr, the path in it under the pseudonym.
    let crash = fs::read_to_string(out.join(format!("teams/{}.html", name("team-crash")))).unwrap();
    assert!(
        crash.contains("<td>crash</td>"),
        "a crash in its table: {crash}"
    );
    assert!(
        crash.contains(&format!(
            "submissions/{}/engine: segmentation fault",
            name("team-crash")
        )),
        "the crash's stderr, its path under the pseudonym"
    );
    let twin_page = fs::read_to_string(out.join(format!("teams/{twin}.html"))).unwrap();
    assert!(twin_page.contains("<td>yes</td>") && twin_page.contains("<td>no</td>"));
}

/// No real name in any file of the directory but the teacher's.
fn no_real_name_in_public_files(out: &Path) {
    // No real name in any file but the teacher's: teams.csv, pseudonyms.csv, and logs/ (what
    // the engines wrote to stderr, raw: here the crashing team's own path).
    let private = ["teams.csv", "pseudonyms.csv"];
    let logs = out.join("logs");
    let mut scanned = 0;
    for path in files(out) {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if private.contains(&file.as_str()) || path.starts_with(&logs) {
            continue;
        }
        let text = readable(&path);
        scanned += 1;
        for team in TEAMS {
            assert!(
                !text.contains(team),
                "{} names the team `{team}`",
                path.display()
            );
        }
    }
    assert!(scanned > 20, "only {scanned} files scanned");
}

/// The live page of the same directory, and what it serves.
fn no_real_name_on_the_live_page(out: &Path, teams: &Teams) {
    let name = |team: &str| teams[team]["name"].clone();
    let (mut serve, url) =
        util::start_serving(&["serve", out.to_str().unwrap(), "--serve", "127.0.0.1:0"]);
    let get = |path: &str| -> (u16, String) {
        match ureq::get(&format!("{url}{path}")).call() {
            Ok(mut r) => (
                r.status().as_u16(),
                r.body_mut().read_to_string().unwrap_or_default(),
            ),
            Err(ureq::Error::StatusCode(code)) => (code, String::new()),
            Err(e) => panic!("{path}: {e}"),
        }
    };
    let page = format!("files/teams/{}.html", name("team-twin"));
    for path in [
        "",
        "api/standings",
        "api/games/live",
        "files/report.html",
        page.as_str(),
    ] {
        let (status, body) = get(path);
        assert_eq!(status, 200, "/{path}");
        for team in TEAMS {
            assert!(!body.contains(team), "/{path} names the team `{team}`");
        }
    }
    // The leaderboard with the levels, linked to the pages the run wrote.
    let (_, live) = get("");
    assert!(live.contains(">Teams<"), "no teams on the live page");
    assert!(live.contains(&format!("/files/teams/{}.html", name("team-twin"))));
    assert_eq!(get("files/teams.csv").0, 404);
    assert_eq!(get("files/pseudonyms.csv").0, 404);
    serve.kill().unwrap();
    let _ = serve.wait();
}

#[test]
fn check_lists_teams_and_the_time_of_a_class_of_sixty() {
    let dir = Dir::new();
    tree(&dir);
    let cfg = config(&dir, "");
    let output = arena()
        .current_dir(dir.path(""))
        .arg("check")
        .arg(&cfg)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "a team that cannot start is no error of the config: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("11 found, 9 entered"), "{stdout}");
    assert!(
        stdout.contains("team team-dated: python, submission 2026-11-21T09-30: `python3 "),
        "{stdout}"
    );
    assert!(stdout.contains("team team,bad: CANNOT ENTER:"), "{stdout}");
    assert!(
        stdout.contains("team team-empty: CANNOT ENTER:"),
        "{stdout}"
    );
    assert!(
        stdout.contains("engine team-broken ("),
        "its handshake: {stdout}"
    );
    assert!(stdout.contains("cannot open weights.bin"), "{stdout}");
    // 2 rungs × 60 teams × 3 rounds + 1 calibration pair, 2 boards, 2 games a pair.
    assert!(
        stdout.contains("a class of 60 teams with this ladder and config: 1444 games"),
        "{stdout}"
    );
}

/// Runs `cmd`, which must fail with `text` on stderr.
fn fails_saying(cmd: &mut assert_cmd::Command, text: &str) {
    let output = cmd.assert().failure().get_output().stderr.clone();
    let stderr = String::from_utf8_lossy(&output);
    assert!(stderr.contains(text), "{stderr}");
}

/// A small anonymized championship on 6-pit Awale in `dir/class.yaml`: the Python template as
/// team-a, the `rungs` (reference engines of these names) as the ladder, and `extra` keys.
fn small_class(dir: &Dir, rungs: &[&str], extra: &str) -> PathBuf {
    let template = fs::read_to_string(python_engine()).unwrap();
    write(&dir.path("subs/team-a/engine.py"), &template);
    let engines: String = rungs
        .iter()
        .map(|r| format!("  - {{ name: {r}, command: {} }}\n", engine(r)))
        .collect();
    dir.write(
        "class.yaml",
        &format!(
            "seed: 4\nconcurrency: 2\ntime_control: {{ movetime_ms: 20 }}\n\
             boards: [{{ game: awale, pits: 6 }}]\nengines:\n{engines}\
             submissions: subs\nladder: [{}]\nanonymize: true\n{extra}",
            rungs.join(", ")
        ),
    )
}

#[test]
fn anonymized_shards_share_the_salt_and_merge_into_one_championship() {
    let dir = Dir::new();
    let subs = dir.path("subs");
    fs::create_dir_all(subs.join("team-b")).unwrap();
    fs::copy(engine("greedy"), subs.join("team-b/greedy-copy")).unwrap();
    write(&subs.join("team-b/arena.yaml"), "command: ./greedy-copy\n");
    let cfg = small_class(&dir, &["random", "greedy"], "rounds: 3\n");
    let shard = |k: u32, out: &str| {
        let mut cmd = arena();
        cmd.current_dir(dir.path(""))
            .args(["run", "-q"])
            .arg(&cfg)
            .args(["--shard", &format!("{k}/2"), "--output"])
            .arg(dir.path(out));
        cmd
    };
    // A shard that would draw its own salt is refused, naming the file to share.
    fails_saying(&mut shard(0, "lonely"), "pseudonyms.csv");
    // `arena slurm` (here without submitting) hands the tournament's salt to every shard's
    // directory, where its job array runs them.
    arena()
        .current_dir(dir.path(""))
        .arg("slurm")
        .arg(&cfg)
        .args(["--shards", "2", "--output", "out"])
        .assert()
        .success();
    let salt = fs::read_to_string(dir.path("out/pseudonyms.csv")).unwrap();
    for k in 0..2 {
        let out = format!("out/shard-{k}");
        assert_eq!(
            fs::read_to_string(dir.path(&out).join("pseudonyms.csv")).unwrap(),
            salt
        );
        shard(k, &out).assert().success();
    }
    let s0 = teams(&dir.path("out/shard-0"));
    assert_eq!(
        teams(&dir.path("out/shard-1"))["team-a"]["name"],
        s0["team-a"]["name"]
    );
    arena()
        .current_dir(dir.path(""))
        .arg("merge")
        .arg(dir.path("out/shard-0"))
        .arg(dir.path("out/shard-1"))
        .arg("--output")
        .arg(dir.path("merged"))
        .assert()
        .success();
    // The merge is the championship one run would have given: same teams, levels, grades.
    let single = dir.path("single");
    fs::create_dir_all(&single).unwrap();
    fs::write(single.join("pseudonyms.csv"), &salt).unwrap();
    arena()
        .current_dir(dir.path(""))
        .args(["run", "-q"])
        .arg(&cfg)
        .arg("--output")
        .arg(&single)
        .assert()
        .success();
    let merged = teams(&dir.path("merged"));
    assert_eq!(merged, teams(&single));
    let b = &merged["team-b"];
    assert_eq!(b["name"], s0["team-b"]["name"]);
    assert!(
        dir.path(&format!("merged/teams/{}.html", b["name"]))
            .exists()
    );
    assert!(dir.path("merged/pseudonyms.csv").exists());
}

#[test]
fn pseudonyms_survive_resume_force_and_report() {
    let dir = Dir::new();
    let template = fs::read_to_string(python_engine()).unwrap();
    write(&dir.path("subs/team-b/engine.py"), &template);
    let cfg = small_class(&dir, &["random"], "output: out\n");
    let run = |extra: &[&str]| {
        arena()
            .current_dir(dir.path(""))
            .args(["run", "-q"])
            .arg(&cfg)
            .args(extra)
            .assert()
            .success();
        teams(&dir.path("out"))
    };
    let first = run(&[]);
    let salt = fs::read_to_string(dir.path("out/pseudonyms.csv")).unwrap();
    assert_eq!(run(&[]), first, "a resume keeps every name and result");
    let forced = run(&["--force"]);
    assert_eq!(
        fs::read_to_string(dir.path("out/pseudonyms.csv")).unwrap(),
        salt
    );
    for team in ["team-a", "team-b"] {
        assert_eq!(
            forced[team]["name"], first[team]["name"],
            "--force keeps the salt"
        );
    }
    // `arena report` writes the team pages again from the directory alone.
    let pages = dir.path("out/teams");
    fs::remove_dir_all(&pages).unwrap();
    let output = arena()
        .arg("report")
        .arg(dir.path("out"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8_lossy(&output).contains("2 team pages"));
    for team in ["team-a", "team-b"] {
        assert!(pages.join(format!("{}.html", first[team]["name"])).exists());
    }
}

#[test]
fn the_shipped_championship_runs_in_the_sandbox() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shipped = fs::read_to_string(root.join("configs/class_championship.yaml")).unwrap();
    // The staff engines as this test build has them; the example's own folder.
    let bin = Path::new(&engine("random")).parent().unwrap().to_owned();
    let text = shipped
        .replace("target/release/", &format!("{}/", bin.display()))
        .replace(
            "../examples/submissions",
            &root.join("examples/submissions").display().to_string(),
        );
    let dir = Dir::new();
    let cfg = dir.write("class_championship.yaml", &text);
    // Every team confined: what `arena check` says of each.
    let check = arena()
        .current_dir(root)
        .arg("check")
        .arg(&cfg)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stdout);
    for team in ["team-amber", "team-basalt", "team-cobalt"] {
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("sandbox of {team}:")))
            .unwrap_or_else(|| panic!("no sandbox line for {team}: {said}"));
        assert!(!line.contains("OFF"), "{line}");
    }
    arena()
        .current_dir(root)
        .args(["run", "-q"])
        .arg(&cfg)
        .arg("--output")
        .arg(dir.path("out"))
        .assert()
        .success();
    let teams = teams(&dir.path("out"));
    let got: Vec<(&str, &str, &str)> = teams
        .values()
        .map(|t| {
            (
                t["team"].as_str(),
                t["status"].as_str(),
                t["grade"].as_str(),
            )
        })
        .map(|(team, status, grade)| (team, status.split(':').next().unwrap(), grade))
        .collect();
    assert_eq!(
        got,
        [
            ("team-amber", "played", "D"),
            ("team-basalt", "played", "C"),
            ("team-cobalt", "played", "D"),
            ("team-dune", "forfeited", "F"),
            ("team-ember", "not entered", ""),
        ]
    );
    assert_eq!(teams["team-cobalt"]["submission"], "2026-11-24T18-30");
}

/// A team that hands in a new dated submission after the run: the next run plays that team's
/// games again and keeps everyone else's, without --force.
#[test]
fn a_resubmission_replays_only_that_team_s_games() {
    let dir = Dir::new();
    let subs = dir.path("subs");
    let template = fs::read_to_string(python_engine()).unwrap();
    write(&subs.join("team-b/2026-01-01T10-00/engine.py"), &template);
    let cfg = small_class(&dir, &["random", "greedy"], "rounds: 2\noutput: out\n");
    let run = || {
        let out = arena()
            .current_dir(dir.path(""))
            .arg("run")
            .arg(&cfg)
            .assert()
            .success()
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout)
    };
    run();
    let games = |path: &str| csv_rows(&dir.path(path));
    let before = games("out/games.csv");
    let b = teams(&dir.path("out"))["team-b"]["name"].clone();
    // The day after: team-b hands in a better version, in a new dated folder.
    let greedy = engine("greedy");
    fs::create_dir_all(subs.join("team-b/2026-01-02T09-00")).unwrap();
    fs::copy(&greedy, subs.join("team-b/2026-01-02T09-00/greedy-copy")).unwrap();
    write(
        &subs.join("team-b/2026-01-02T09-00/arena.yaml"),
        "command: ./greedy-copy\n",
    );
    let said = run();
    assert!(said.contains(&format!("new submission of {b}")), "{said}");
    let after = games("out/games.csv");
    assert_eq!(after.len(), before.len(), "every game is there again");
    let of_b = |g: &&BTreeMap<String, String>| g["first"] == b || g["second"] == b;
    // Everyone else's games are the very same rows; team-b's were played again.
    let kept = |rows: &[BTreeMap<String, String>]| -> Vec<BTreeMap<String, String>> {
        rows.iter().filter(|g| !of_b(g)).cloned().collect()
    };
    assert_eq!(kept(&after), kept(&before));
    let dropped = games("out/games.dropped.csv");
    assert_eq!(dropped.len(), before.iter().filter(of_b).count());
    let now = teams(&dir.path("out"));
    assert_eq!(now["team-b"]["submission"], "2026-01-02T09-00");
    assert_eq!(now["team-b"]["name"], b, "the same pseudonym");
    assert_eq!(now["team-b"]["kind"], "arena.yaml");
    // A team withdrawn from the class (its folder removed): its games go, the rest stay.
    fs::remove_dir_all(subs.join("team-a")).unwrap();
    run();
    let a = now["team-a"]["name"].clone();
    let without_a: Vec<BTreeMap<String, String>> = after
        .iter()
        .filter(|g| g["first"] != a && g["second"] != a)
        .cloned()
        .collect();
    assert!(without_a.len() < after.len());
    // Kept as they were, but for their ids: the schedule without team-a numbers them anew.
    let unnumbered = |rows: Vec<BTreeMap<String, String>>| -> Vec<BTreeMap<String, String>> {
        rows.into_iter()
            .map(|mut g| {
                g.remove("game_id");
                g.remove("pair");
                g
            })
            .collect()
    };
    assert_eq!(
        unnumbered(games("out/games.csv")),
        unnumbered(without_a),
        "every other game kept as it was"
    );
    // A changed rung changes every game: refused, as for any run.
    let text = fs::read_to_string(&cfg).unwrap();
    fs::write(
        &cfg,
        text.replace("name: greedy,", "name: greedy, options: { Seed: 1 },"),
    )
    .unwrap();
    fails_saying(
        arena().current_dir(dir.path("")).arg("run").arg(&cfg),
        "engines: `greedy` changed",
    );
}
