//! `arena check-engine` through the binary: the reference engines and the Python template pass,
//! each hostile mode fails exactly the check it should (with the protocol lines that show it),
//! the folder mode writes check-engines.csv, and bad usage exits 2.
//!
//! Every run passes `--margin 1000` so that a loaded machine does not turn a slow answer into a
//! failure; the verdicts asserted here do not depend on timing.

mod util;

use std::collections::BTreeSet;

use serde_json::Value;
use util::{Dir, arena, engine, python_engine};

/// One check as the JSON gives it: name, verdict, detail, transcript lines.
type Row = (String, String, String, Vec<String>);

/// Runs `arena check-engine --quick --json` on a command; returns the exit code and the first
/// engine's checks as (name, verdict, detail, transcript lines).
fn check(extra: &[&str], command: &[String]) -> (i32, Vec<Row>) {
    let output = arena()
        .args(["check-engine", "--quick", "--json", "--margin", "1000"])
        .args(extra)
        .arg("--")
        .args(command)
        .output()
        .expect("run arena");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let checks = json[0]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_owned(),
                c["verdict"].as_str().unwrap().to_owned(),
                c["detail"].as_str().unwrap().to_owned(),
                c["transcript"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l.as_str().unwrap().to_owned())
                    .collect(),
            )
        })
        .collect();
    (output.status.code().expect("exit code"), checks)
}

fn failed(checks: &[Row]) -> BTreeSet<String> {
    checks
        .iter()
        .filter(|c| c.1 == "fail")
        .map(|c| c.0.clone())
        .collect()
}

fn hostile(args: &[&str]) -> Vec<String> {
    std::iter::once(engine("hostile"))
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect()
}

#[test]
fn reference_engines_and_the_python_template_pass() {
    let mut commands: Vec<Vec<String>> = ["random", "greedy", "mobility", "alphabeta", "mcts"]
        .iter()
        .map(|name| vec![engine(name)])
        .collect();
    commands.push(vec!["python3".into(), python_engine()]);
    for command in commands {
        let (code, checks) = check(&[], &command);
        assert!(
            failed(&checks).is_empty(),
            "{command:?}: {:?}",
            checks.iter().filter(|c| c.1 == "fail").collect::<Vec<_>>()
        );
        assert_eq!(code, 0, "{command:?}");
        // Every game the engine declares got its positions checked, none skipped.
        let positions: Vec<_> = checks
            .iter()
            .filter(|c| c.0.starts_with("positions "))
            .collect();
        assert!(!positions.is_empty(), "{command:?}");
        assert!(positions.iter().all(|c| c.1 == "pass"), "{positions:?}");
        let verdict = |name: &str| {
            checks
                .iter()
                .find(|c| c.0 == name)
                .map(|c| c.1.clone())
                .unwrap_or_else(|| panic!("no check {name}"))
        };
        for name in ["handshake", "isready", "quit", "second game"] {
            assert_eq!(verdict(name), "pass", "{command:?} {name}");
        }
        // Engines that answer at once cannot be stopped: `skipped`, never a vacuous pass.
        let stop = checks.iter().find(|c| c.0 == "stop").expect("stop check");
        if command[0].ends_with("mcts") {
            assert_eq!(stop.1, "pass", "{stop:?}");
            assert!(stop.2.contains("after `stop`"), "{stop:?}");
        } else {
            assert!(stop.1 == "pass" || stop.1 == "skipped", "{stop:?}");
        }
    }
}

#[test]
fn every_board_type_of_a_declared_game_is_checked() {
    let (_, checks) = check(&[], &[engine("random")]);
    let names: BTreeSet<&str> = checks.iter().map(|c| c.0.as_str()).collect();
    for board in [
        "positions seven_colors-random-10",
        "positions seven_colors-diagonal-10",
        "positions seven_colors-torus-10",
        "positions amazons-square-10",
        "positions amazons-donut-9",
        "positions amazons-clover-10",
        "positions amazons-eight-8",
        "positions awale-6",
        "positions awale-10",
        "positions awale-3",
        "positions awale-6-capture",
        "positions awale-6-forbidden",
    ] {
        assert!(names.contains(board), "missing {board} in {names:?}");
    }
    // --games keeps the positions of those games only.
    let (code, checks) = check(&["--games", "awale"], &[engine("random")]);
    assert_eq!(code, 0);
    let boards: Vec<&str> = checks
        .iter()
        .filter_map(|c| c.0.strip_prefix("positions "))
        .collect();
    assert_eq!(boards.len(), 5, "{boards:?}");
    assert!(boards.iter().all(|b| b.starts_with("awale")), "{boards:?}");
    // --boards replaces the built-in boards, and only their games are checked.
    let (code, checks) = check(
        &[
            "--boards",
            "{game: awale, pits: 8, name: eight-pits}",
            "{game: amazons, shape: donut, width: 12}",
        ],
        &[engine("random")],
    );
    assert_eq!(code, 0);
    let boards: BTreeSet<&str> = checks
        .iter()
        .filter_map(|c| c.0.strip_prefix("positions "))
        .collect();
    assert_eq!(
        boards,
        BTreeSet::from(["eight-pits", "amazons-donut-12"]),
        "{checks:?}"
    );
    // A requested game the engine does not declare is a warning naming it; the rest is checked.
    let (code, checks) = check(
        &[
            "--boards",
            "{game: amazons, shape: square, width: 6}",
            "{game: awale, pits: 8}",
        ],
        &[engine("greedy")],
    );
    assert_eq!(code, 0);
    let games = checks
        .iter()
        .find(|c| c.0 == "games")
        .expect("a games check");
    assert_eq!(games.1, "warn", "{games:?}");
    assert!(games.2.contains("does not declare amazons"), "{games:?}");
    assert!(
        checks
            .iter()
            .any(|c| c.0 == "positions awale-8" && c.1 == "pass")
    );
    // A board the engine does not declare leaves nothing to check.
    let (code, checks) = check(
        &["--boards", "{game: amazons, shape: square, width: 6}"],
        &[engine("greedy")],
    );
    assert_eq!(code, 1);
    assert!(failed(&checks).contains("handshake"), "{checks:?}");
    // greedy declares seven_colors and awale only: no Amazons positions.
    let (_, checks) = check(&[], &[engine("greedy")]);
    assert!(!checks.iter().any(|c| c.0.starts_with("positions amazons")));
    assert!(checks.iter().any(|c| c.0.starts_with("positions awale")));
}

#[test]
fn no_ugi_fails_the_handshake_and_skips_the_rest() {
    let (code, checks) = check(&["--handshake-ms", "300"], &hostile(&["--no-ugi"]));
    assert_eq!(code, 1);
    assert_eq!(failed(&checks), BTreeSet::from(["handshake".to_owned()]));
    let handshake = &checks[0];
    assert!(handshake.2.contains("ugiok"), "{handshake:?}");
    assert!(
        handshake.3.iter().any(|l| l.ends_with("ugi")),
        "{handshake:?}"
    );
    assert!(checks[1..].iter().all(|c| c.1 == "skipped"), "{checks:?}");
}

#[test]
fn a_hang_fails_the_movetime_check() {
    // The first `go` of the battery is `go movetime`.
    let (code, checks) = check(&[], &hostile(&["--hang", "--at", "1"]));
    assert_eq!(code, 1);
    assert_eq!(failed(&checks), BTreeSet::from(["go movetime".to_owned()]));
    let hung = checks.iter().find(|c| c.0 == "go movetime").unwrap();
    assert!(hung.2.contains("no bestmove"), "{hung:?}");
    assert!(
        hung.3.iter().any(|l| l.contains("go movetime 100")),
        "{hung:?}"
    );
    assert!(hung.3.iter().any(|l| l.ends_with("stop")), "{hung:?}");
}

#[test]
fn a_crash_fails_the_positions_check_where_it_happens() {
    // Five `go`s come before the positions: movetime, depth, nodes, low clock, long search.
    let (code, checks) = check(&[], &hostile(&["--crash", "--at", "6"]));
    assert_eq!(code, 1);
    assert_eq!(
        failed(&checks),
        BTreeSet::from(["positions seven_colors-random-10".to_owned()])
    );
    let crashed = checks.iter().find(|c| c.1 == "fail").unwrap();
    assert!(crashed.2.contains("exit status: 3"), "{crashed:?}");
    assert!(
        crashed.3.iter().any(|l| l.contains("position fen")),
        "{crashed:?}"
    );
    // Later checks are skipped, naming where the engine stopped.
    assert!(
        checks
            .iter()
            .any(|c| c.1 == "skipped" && c.2.contains("positions seven_colors-random-10"))
    );
}

#[test]
fn illegal_moves_fail_only_positions_checks() {
    let (code, checks) = check(&[], &hostile(&["--illegal"]));
    assert_eq!(code, 1);
    let failed = failed(&checks);
    // hostile has illegal moves to play in Amazons and Awale only.
    assert!(failed.contains("positions amazons-square-10"), "{failed:?}");
    assert!(
        failed.iter().any(|n| n.starts_with("positions awale")),
        "{failed:?}"
    );
    assert!(
        failed
            .iter()
            .all(|n| n.starts_with("positions amazons") || n.starts_with("positions awale")),
        "{failed:?}"
    );
    for c in checks.iter().filter(|c| c.1 == "fail") {
        assert!(c.2.contains("illegal move"), "{c:?}");
        assert!(c.3.iter().any(|l| l.contains("bestmove")), "{c:?}");
    }
}

#[test]
fn an_engine_that_never_feeds_fails_each_awale_positions_check_on_a_must_feed_position() {
    let (code, checks) = check(&[], &hostile(&["--no-feed"]));
    assert_eq!(code, 1);
    let failed = failed(&checks);
    assert_eq!(
        failed,
        BTreeSet::from([
            "positions awale-6".to_owned(),
            "positions awale-10".to_owned(),
            "positions awale-3".to_owned(),
            "positions awale-6-capture".to_owned(),
            "positions awale-6-forbidden".to_owned(),
        ]),
        "{checks:?}"
    );
    for check in checks.iter().filter(|c| c.1 == "fail") {
        assert!(
            check.2.contains("(must feed)") && check.2.contains("does not feed"),
            "{check:?}"
        );
    }
}

#[test]
fn ignoring_quit_fails_the_quit_check() {
    let (code, checks) = check(&[], &hostile(&["--ignore-quit"]));
    assert_eq!(code, 1);
    assert_eq!(failed(&checks), BTreeSet::from(["quit".to_owned()]));
    let quit = checks.iter().find(|c| c.0 == "quit").unwrap();
    assert!(quit.3.iter().any(|l| l.ends_with("quit")), "{quit:?}");
}

#[test]
fn garbage_on_stdout_is_a_warning() {
    let (code, checks) = check(&[], &hostile(&["--garbage"]));
    assert_eq!(code, 0, "{checks:?}");
    assert!(failed(&checks).is_empty());
    let stdout = checks.iter().find(|c| c.0 == "stdout").unwrap();
    assert_eq!(stdout.1, "warn");
    assert!(stdout.2.contains("hello runner"), "{stdout:?}");
    // A clean hostile engine has no stray lines.
    let (_, checks) = check(&[], &hostile(&[]));
    assert_eq!(checks.iter().find(|c| c.0 == "stdout").unwrap().1, "pass");
}

#[test]
fn text_output_shows_the_transcript_under_a_failure() {
    let output = arena()
        .args(["check-engine", "--quick", "--margin", "1000", "--"])
        .args(hostile(&["--crash", "--at", "6"]))
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    assert!(
        text.contains("FAIL     positions seven_colors-random-10"),
        "{text}"
    );
    assert!(text.contains("ms  go movetime 50"), "{text}");
    assert!(text.contains("1 fail"), "{text}");
}

#[test]
fn folder_mode_writes_one_csv_row_per_engine_and_check() {
    let dir = Dir::new();
    let config = dir.write(
        "class.yaml",
        &format!(
            "name: class
time_control: {{ movetime_ms: 50, margin_ms: 1000 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: good, command: {random} }}
  - {{ name: crashes, command: {hostile}, args: [--crash, --at, '6'] }}
output: {out}
",
            random = engine("random"),
            hostile = engine("hostile"),
            out = dir.path("out").display(),
        ),
    );
    let output = arena()
        .args([
            "check-engine",
            "--quick",
            "--margin",
            "1000",
            "--all",
            "--config",
        ])
        .arg(&config)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    // The summary table: one row per engine, the failed check named.
    let good = text.lines().find(|l| l.starts_with("good ")).expect(&text);
    assert!(good.ends_with(" -"), "{good}");
    let bad = text
        .lines()
        .find(|l| l.starts_with("crashes "))
        .expect(&text);
    // With --config, the config's boards are checked (its one Awale board), not the built-in
    // ones.
    assert!(bad.contains("positions awale-6"), "{bad}");
    assert!(!text.contains("seven_colors"), "{text}");
    let mut csv = csv::Reader::from_path(dir.path("out/check-engines.csv")).unwrap();
    assert_eq!(
        csv.headers().unwrap(),
        vec!["engine", "check", "verdict", "detail"]
    );
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let of = |engine: &str| rows.iter().filter(|r| &r[0] == engine).count();
    assert!(of("good") > 10 && of("crashes") > 10, "{rows:?}");
    let fail = rows.iter().find(|r| &r[2] == "fail").unwrap();
    assert_eq!(&fail[0], "crashes");
    assert!(fail[3].contains("position fen"), "{fail:?}");
    // --engine picks one, and --output overrides the directory (only with --all is a CSV
    // written by default).
    arena()
        .args(["check-engine", "--quick", "--engine", "good", "--config"])
        .arg(&config)
        .args(["--output"])
        .arg(dir.path("one"))
        .assert()
        .code(0);
    let one = std::fs::read_to_string(dir.path("one/check-engines.csv")).unwrap();
    assert!(one.lines().skip(1).all(|l| l.starts_with("good,")), "{one}");
}

#[test]
fn bad_usage_exits_2() {
    arena().args(["check-engine"]).assert().code(2);
    arena()
        .args(["check-engine", "--", "/nonexistent/engine"])
        .assert()
        .code(2);
    let dir = Dir::new();
    let config = dir.write(
        "c.yaml",
        &format!(
            "time_control: {{ movetime_ms: 50 }}\nboards: [{{ game: awale }}]\nengines:\n  - {{ name: a, command: {} }}\n  - {{ name: b, command: {} }}\n",
            engine("random"),
            engine("random")
        ),
    );
    let out = arena()
        .args(["check-engine", "--engine", "nope", "--config"])
        .arg(&config)
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(String::from_utf8_lossy(&out).contains("no engine called `nope`"));
    arena()
        .args(["check-engine", "--config"])
        .arg(&config)
        .assert()
        .code(2);
    arena()
        .args(["check-engine", "--all", "--"])
        .arg(engine("random"))
        .assert()
        .code(2);
    // A board that is not one: named in the message.
    let out = arena()
        .args(["check-engine", "--boards", "{game: awale, pits: 1}", "--"])
        .arg(engine("random"))
        .assert()
        .code(2)
        .get_output()
        .stderr
        .clone();
    assert!(
        String::from_utf8_lossy(&out).contains("--boards `{game: awale, pits: 1}`"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    arena()
        .args(["check-engine", "--boards", "config", "--"])
        .arg(engine("random"))
        .assert()
        .code(2);
}

/// The Python template made single-threaded: it reads nothing while it "searches" a `go
/// movetime` (up to 3 s), as most student engines.
const SINGLE_THREADED: &str = r#"
import sys, time
sys.path.insert(0, sys.argv[1])
import random_engine
real = sys.stdin
def lines():
    for raw in real:
        words = raw.split()
        if words[:2] == ["go", "movetime"]:
            time.sleep(min(int(words[2]), 3000) / 1000)
        yield raw
sys.stdin = lines()
random_engine.main()
"#;

#[test]
fn a_single_threaded_engine_gets_warnings_for_isready_and_stop_and_the_battery_goes_on() {
    let dir = Dir::new();
    let script = dir.write("single.py", SINGLE_THREADED);
    let template_dir = std::path::Path::new(&python_engine())
        .parent()
        .unwrap()
        .display()
        .to_string();
    let (code, checks) = check(
        &[],
        &["python3".into(), script.display().to_string(), template_dir],
    );
    assert_eq!(code, 0, "{checks:?}");
    assert!(failed(&checks).is_empty(), "{checks:?}");
    let find = |name: &str| checks.iter().find(|c| c.0 == name).expect(name).clone();
    let isready = find("isready in search");
    assert_eq!(isready.1, "warn", "{isready:?}");
    assert!(
        isready.2.contains("reads no command while it searches") && isready.2.contains("UCI"),
        "{isready:?}"
    );
    let stop = find("stop");
    assert_eq!(stop.1, "warn", "{stop:?}");
    // No cascade: every later check ran and passed.
    let after: Vec<&Row> = checks
        .iter()
        .skip_while(|c| c.0 != "stop")
        .skip(1)
        .collect();
    assert!(after.len() > 5, "{checks:?}");
    // `sandbox` warns: the engine imports a module from a folder outside its own.
    assert!(
        after
            .iter()
            .all(|c| c.1 == "pass" || c.0 == "determinism" || c.0 == "sandbox"),
        "{after:?}"
    );
}

#[test]
fn an_engine_that_sends_nothing_gets_the_flush_fix() {
    let (code, checks) = check(
        &["--handshake-ms", "300"],
        &["sh".into(), "-c".into(), "exec sleep 60".into()],
    );
    assert_eq!(code, 1);
    let handshake = &checks[0];
    assert_eq!(handshake.1, "fail", "{handshake:?}");
    for fix in [
        "nothing at all came back",
        "flush=True",
        "setvbuf",
        "System.out.flush()",
    ] {
        assert!(handshake.2.contains(fix), "{fix}: {handshake:?}");
    }
}

#[test]
fn a_command_with_its_script_in_it_is_told_to_use_args() {
    let dir = Dir::new();
    let config = dir.write(
        "c.yaml",
        "time_control: { movetime_ms: 50 }
boards: [{ game: awale }]
engines:
  - { name: js, command: sh my/awale.js }
  - { name: b, command: sh }
",
    );
    let out = arena()
        .args(["check-engine", "--engine", "js", "--config"])
        .arg(&config)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stderr.contains("engines[0] (js)")
            && stderr.contains("write `command: sh` and `args: [my/awale.js]`"),
        "{stderr}"
    );
}

/// `arena check` (the config command) on `engines` (YAML lines) with one Awale board.
fn arena_check(dir: &Dir, engines: &str) -> (i32, String) {
    let config = dir.write(
        "plan.yaml",
        &format!(
            "seed: 1
time_control: {{ depth: 1 }}
boards: [{{ game: awale }}]
engines:
{engines}output: {}
",
            dir.path("out").display()
        ),
    );
    let out = arena().arg("check").arg(&config).output().expect("arena");
    (
        out.status.code().expect("exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn arena_check_quotes_the_stderr_of_an_engine_that_fails() {
    let dir = Dir::new();
    let (code, stdout) = arena_check(
        &dir,
        &format!(
            "  - {{ name: weights, command: sh, args: [-c, 'echo \"fatal: cannot find weights.bin\" >&2; exit 1'] }}\n  - {{ name: r, command: {} }}\n",
            engine("random")
        ),
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("stderr | fatal: cannot find weights.bin"),
        "{stdout}"
    );
    assert!(!stdout.contains("nothing on stderr"), "{stdout}");
    // The scratch logs are gone, and nothing was written into the output directory.
    assert!(!dir.path("out").exists(), "{stdout}");
}

#[test]
fn arena_check_says_which_shard_its_output_holds() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.path("out")).unwrap();
    dir.write("out/shard.yaml", "shard: 0\nshards: 2\n");
    let engines = format!(
        "  - {{ name: a, command: {} }}\n  - {{ name: b, command: {} }}\n",
        engine("random"),
        engine("greedy")
    );
    let (code, stdout) = arena_check(&dir, &engines);
    assert_eq!(code, 0, "{stdout}");
    assert!(
        stdout.contains("holds shard 0/2 (its shard.yaml): `arena run --shard 0/2` resumes it (2 of the 2 games)"),
        "{stdout}"
    );
}

// Issue 23 (a newcomer's report): with --config, `go movetime` is checked under the config's
// time control, the one the engine will play under: an engine late at its first `go` (by three
// times the movetime and 300 ms) fails a config's 50 ms, which the battery's own movetime would
// not show.
#[test]
fn with_a_config_go_movetime_is_checked_under_its_time_control() {
    let dir = Dir::new();
    let config = dir.write(
        "c.yaml",
        &format!(
            "name: c
time_control: {{ movetime_ms: 50, margin_ms: 20 }}
boards:
  - {{ game: awale, pits: 6 }}
engines:
  - {{ name: slow, command: {}, args: [--late, --at, '1'] }}
  - {{ name: other, command: {} }}
output: {}
",
            engine("hostile"),
            engine("random"),
            dir.path("out").display()
        ),
    );
    let output = arena()
        .args([
            "check-engine",
            "--quick",
            "--json",
            "--engine",
            "slow",
            "--config",
        ])
        .arg(&config)
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let movetime = json[0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "go movetime")
        .expect("a go movetime check")
        .clone();
    assert_eq!(movetime["verdict"], "fail", "{movetime}");
    assert!(
        movetime["detail"].as_str().unwrap().contains("movetime 50"),
        "{movetime}"
    );
}
