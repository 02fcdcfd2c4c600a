//! `report.html` and `results.xlsx` (issue 13): written by `arena run` and rebuilt by `arena
//! report`, through the real binary. The HTML is parsed with `scraper` and its structure
//! checked; board SVG of known positions is compared with the files in `tests/snapshots/`
//! (regenerate with `UPDATE_SNAPSHOTS=1 cargo test --test report` and review the diff); the
//! workbook is read back with `calamine`.

mod util;

use std::fs;
use std::path::Path;

use arena::games::{AnyPosition, BoardSpec};
use arena::report::html::board;
use calamine::{Data, Reader, Xlsx};
use scraper::{Html, Selector};
use util::{Dir, arena, engine, python_engine, read_games};

/// Every game on small boards of each kind, with an engine that makes an illegal move, so the
/// report has faults to show.
fn config(dir: &Dir) -> std::path::PathBuf {
    let text = format!(
        "name: report-test
seed: 5
rounds: 1
time_control: {{ movetime_ms: 20 }}
boards:
  - {{ game: seven_colors, size: 6, topology: torus }}
  - {{ game: amazons, shape: donut, width: 6 }}
  - {{ game: awale, pits: 4 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy}, games: [seven_colors, awale] }}
  - {{ name: python-random, command: python3, args: [{python}] }}
  - {{ name: cheat, command: {hostile}, args: [--illegal, --at, '3'] }}
output: {out}
",
        random = engine("random"),
        greedy = engine("greedy"),
        hostile = engine("hostile"),
        python = python_engine(),
        out = dir.path("out").display(),
    );
    dir.write("report.yaml", &text)
}

fn select<'a>(doc: &'a Html, css: &str) -> Vec<scraper::ElementRef<'a>> {
    doc.select(&Selector::parse(css).unwrap()).collect()
}

/// The games embedded in the page's viewer data.
fn embedded(doc: &Html) -> Vec<serde_json::Value> {
    let script = select(doc, "script#game-data");
    let text: String = script[0].text().collect();
    serde_json::from_str::<Vec<serde_json::Value>>(&text).unwrap()
}

fn run_tournament(dir: &Dir) -> std::path::PathBuf {
    let path = config(dir);
    arena().args(["run", "-q"]).arg(&path).assert().success();
    dir.path("out")
}

#[test]
fn run_writes_a_self_contained_report_with_every_section() {
    let dir = Dir::new();
    let out = run_tournament(&dir);
    let records = read_games(&out.join("games.csv"));
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(!html.contains("http"), "no URL: the page must open offline");
    assert!(
        !html.contains("<link") && !html.contains("src="),
        "nothing loaded"
    );
    let doc = Html::parse_document(&html);
    for id in [
        "config",
        "standings",
        "crosstable",
        "boards",
        "terminations",
        "time",
        "list",
        "viewer",
    ] {
        assert_eq!(select(&doc, &format!("section#{id}")).len(), 1, "{id}");
    }
    assert!(
        select(&doc, "section#sprt").is_empty(),
        "no sprt.csv, no SPRT"
    );
    // Config summary: the engines with their commands.
    let commands: Vec<String> = select(&doc, "#config table.engines td code")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    assert!(commands.iter().any(|c| c.ends_with("random_engine.py")));
    assert_eq!(commands.len(), 4);
    // Standings of scope all: one row per engine and one error bar each.
    let all = select(
        &doc,
        "#standings div.scope[data-scope=all] table.standings tbody tr",
    );
    assert_eq!(all.len(), 4);
    let bars = select(
        &doc,
        "#standings div.scope[data-scope=all] svg.elo circle.dot",
    );
    assert_eq!(bars.len(), 4);
    // One scope per game, and per board in the boards section.
    assert_eq!(select(&doc, "#standings div.scope").len(), 4);
    assert_eq!(select(&doc, "#boards div.scope").len(), 3);
    assert_eq!(select(&doc, "#boards table.boards tbody tr").len(), 3);
    assert_eq!(select(&doc, "#crosstable table.cross tbody tr").len(), 4);
    // The cheat's illegal moves are counted against it.
    let cheat = select(&doc, "#terminations table.terms tbody tr")
        .into_iter()
        .find(|r| r.text().next() == Some("cheat"))
        .expect("a row for cheat");
    let illegal = records
        .iter()
        .filter(|r| r.termination.name() == "illegal_move")
        .count();
    assert!(illegal > 0, "the hostile engine made no illegal move");
    let cells: Vec<String> = cheat
        .select(&Selector::parse("td").unwrap())
        .map(|c| c.text().collect())
        .collect();
    assert_eq!(cells[4], illegal.to_string(), "{cells:?}");
    // Every game is listed and embedded, with one frame change list per ply.
    assert_eq!(select(&doc, "#games tbody tr").len(), records.len());
    let games = embedded(&doc);
    assert_eq!(games.len(), records.len());
    for (g, r) in games.iter().zip(&records) {
        assert_eq!(g["id"], r.game_id);
        assert_eq!(g["d"].as_array().unwrap().len() as u32, r.plies);
        assert_eq!(g["m"].as_array().unwrap().len() as u32, r.plies);
        assert_eq!(
            select(&doc, &format!("template#sk-{}", g["k"].as_str().unwrap())).len(),
            1
        );
    }
    // Applying every ply's changes to the start gives the final position's picture, as
    // computed by the rules, and the last overlay is that of the last move.
    for (g, r) in games.iter().zip(&records) {
        let numbers = |v: &serde_json::Value| -> Vec<u32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect()
        };
        let mut slots = numbers(&g["s0"]);
        for d in g["d"].as_array().unwrap() {
            for pair in numbers(d).chunks(2) {
                slots[pair[0] as usize] = pair[1];
            }
        }
        let mut pos = AnyPosition::from_fen(r.game.parse().unwrap(), &r.start_fen).unwrap();
        let mut last = None;
        for mv in r.moves.split_whitespace() {
            last = Some((pos.clone(), mv.to_owned()));
            pos.play_text(mv).unwrap();
        }
        let frame = board::frame(&pos, last.as_ref().map(|(p, m)| (p, m.as_str())));
        assert_eq!(slots, frame.slots, "game {}", r.game_id);
        if r.plies > 0 {
            assert_eq!(g["o"][r.plies as usize - 1], frame.overlay.as_str());
        }
    }
    // One skeleton per board geometry.
    assert_eq!(select(&doc, "template").len(), 3);
    assert!(out.join("results.xlsx").exists());
}

#[test]
fn report_rebuilds_with_a_bounded_sample_and_reads_moves_and_sprt() {
    let dir = Dir::new();
    let out = run_tournament(&dir);
    let records = read_games(&out.join("games.csv"));
    fs::remove_file(out.join("report.html")).unwrap();
    fs::write(
        out.join("sprt.csv"),
        "pairs,games,llr,lower,upper,elo,elo_ci_low,elo_ci_high\n\
         1,2,0.1,-2.94,2.94,10.0,-50.0,70.0\n2,4,0.9,-2.94,2.94,35.5,-5.0,80.0\n",
    )
    .unwrap();
    let first = &records[0];
    let first_move = first.moves.split_whitespace().next().unwrap();
    fs::write(
        out.join("moves.csv"),
        format!(
            "game_id,ply,side,engine,move,time_ms,depth,seldepth,score_cp,score_mate,nodes,nps,pv\n\
             {},1,1,{},{first_move},17,4,6,-25,,1000,58000,{first_move}\n",
            first.game_id, first.first
        ),
    )
    .unwrap();
    let assert = arena()
        .args(["report"])
        .arg(&out)
        .args(["--games", "3"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("3 in the viewer"), "{stdout}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let doc = Html::parse_document(&html);
    let games = embedded(&doc);
    assert_eq!(games.len(), 3);
    assert_eq!(select(&doc, "#games tbody tr").len(), 3);
    assert!(html.contains(&format!("embeds 3 of {} games", records.len())));
    assert_eq!(select(&doc, "section#sprt svg.sprt polyline.llr").len(), 1);
    assert!(html.contains("LLR 0.900 in [-2.940, 2.940]"));
    // moves.csv: the time table gains its columns, the first game its ply note.
    assert!(html.contains("<th>median ms</th>"));
    let game0 = games.iter().find(|g| g["id"] == first.game_id).unwrap();
    assert_eq!(game0["n"][0], "17 ms, depth 4, score -25 cp");
    // --games all embeds every game.
    arena()
        .args(["report"])
        .arg(&out)
        .args(["--games", "all"])
        .assert()
        .success();
    let doc = Html::parse_document(&fs::read_to_string(out.join("report.html")).unwrap());
    assert_eq!(embedded(&doc).len(), records.len());
}

// See: issue 23, items 8 and 9 of "what a newcomer and a teacher tripped over".
#[test]
fn the_summary_quotes_the_first_failure_and_explains_the_flags() {
    let dir = Dir::new();
    let hostile = engine("hostile");
    let path = dir.write(
        "fail.yaml",
        &format!(
            "name: fail
seed: 3
rounds: 2
time_control: {{ movetime_ms: 20 }}
boards:
  - {{ game: awale, pits: 4 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: cheat, command: {hostile}, args: [--illegal, --at, '3'] }}
  - {{ name: noisy, command: sh, args: [-c, 'echo fatal: no weights >&2; exec {hostile} --crash --at 2'] }}
output: {out}
",
            random = engine("random"),
            out = dir.path("out").display(),
        ),
    );
    let out = arena().arg("run").arg(&path).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let records = read_games(&dir.path("out/games.csv"));
    let line = |engine: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("failures of {engine}: ")))
            .unwrap_or_else(|| panic!("no failures line of {engine}: {stdout}"))
            .to_owned()
    };
    // The first failure is quoted with its game id and the referee's detail (ply, rule).
    let cheat = line("cheat");
    let first = records
        .iter()
        .find(|r| r.termination.to_string() == "illegal_move")
        .expect("an illegal move");
    assert!(
        cheat.contains(&format!(
            "; first in game {}: {}",
            first.game_id, first.detail
        )),
        "{cheat}"
    );
    assert!(
        cheat.contains(" at ply ") && cheat.contains("illegal move"),
        "{cheat}"
    );
    // Its stderr log is empty: not pointed at. The noisy engine's has a line: pointed at.
    assert!(!cheat.contains("stderr:"), "{cheat}");
    let noisy = line("noisy");
    assert!(noisy.contains("crash"), "{noisy}");
    assert!(noisy.contains("fatal: no weights"), "{noisy}");
    assert!(
        noisy.contains("noisy.w") && noisy.contains(".stderr.log"),
        "{noisy}"
    );

    // Every flag shown in the table is explained once, on one legend line under it.
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("rank"))
        .skip(1)
        .take_while(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(table.len(), 3, "{stdout}");
    let legends: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("flags: "))
        .collect();
    let mut words: Vec<&str> = table
        .iter()
        .flat_map(|l| l.split_whitespace().skip(6))
        .collect();
    if table
        .iter()
        .any(|l| l.split_whitespace().nth(3) == Some("open"))
    {
        words.push("open");
    }
    assert!(
        !words.is_empty(),
        "a cheat and a crasher give flags: {stdout}"
    );
    assert_eq!(legends.len(), 1, "{stdout}");
    for word in words {
        assert!(
            legends[0].contains(&format!("{word}: ")),
            "{word}: {stdout}"
        );
    }
}

// See: issue 23, item 11 of "what a newcomer and a teacher tripped over".
#[test]
fn the_config_section_shows_the_test_adjudication_openings_and_libraries() {
    let dir = Dir::new();
    let path = dir.write(
        "small.yaml",
        &format!(
            "name: small
seed: 2
time_control: {{ movetime_ms: 20 }}
boards:
  - {{ game: awale, pits: 4 }}
engines:
  - {{ name: random, command: {random} }}
  - {{ name: greedy, command: {greedy} }}
output: {out}
",
            random = engine("random"),
            greedy = engine("greedy"),
            out = dir.path("out").display(),
        ),
    );
    arena().args(["run", "-q"]).arg(&path).assert().success();
    // The keys such a run writes into config.resolved.yaml; the page only reads them.
    let resolved = dir.path("out/config.resolved.yaml");
    let mut config: serde_yaml::Value =
        serde_yaml::from_str(&fs::read_to_string(&resolved).unwrap()).unwrap();
    let extra: serde_yaml::Value = serde_yaml::from_str(
        "sprt: { elo0: 0, elo1: 10, alpha: 0.05, beta: 0.05, model: normalized, pentanomial: true }
adjudication: { resign: { score_cp: 1000, moves: 3 } }
on_engine_failure: forfeit
",
    )
    .unwrap();
    for (k, v) in extra.as_mapping().unwrap() {
        config[k.as_str().unwrap()] = v.clone();
    }
    config["boards"][0]["openings"] =
        serde_yaml::from_str("{ file: openings/awale-4.txt, order: random }").unwrap();
    let library: serde_yaml::Value = serde_yaml::from_str(
        "{ name: walker, library: players/walker.so, directions: west3, restart: per_game }",
    )
    .unwrap();
    config["engines"].as_sequence_mut().unwrap().push(library);
    fs::write(&resolved, serde_yaml::to_string(&config).unwrap()).unwrap();
    arena()
        .arg("report")
        .arg(dir.path("out"))
        .assert()
        .success();

    let doc = Html::parse_document(&fs::read_to_string(dir.path("out/report.html")).unwrap());
    let settings: Vec<(String, String)> = select(&doc, "#config table.kv tr")
        .iter()
        .map(|tr| {
            let th: String = select_in(tr, "th")[0].text().collect();
            let td: String = select_in(tr, "td")[0].text().collect();
            (th, td)
        })
        .collect();
    let value = |key: &str| {
        settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {key} in {settings:?}"))
    };
    assert!(value("sprt").contains("elo1: 10") && value("sprt").contains("normalized"));
    assert_eq!(
        value("adjudication"),
        "{resign: {score_cp: 1000, moves: 3}}"
    );
    assert_eq!(value("on_engine_failure"), "forfeit");
    let openings: Vec<String> = select(&doc, "#config ul.boards code.openings")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    assert_eq!(openings, ["{file: openings/awale-4.txt, order: random}"]);
    let programs: Vec<String> = select(&doc, "#config table.engines td code")
        .iter()
        .map(|c| c.text().collect())
        .collect();
    assert_eq!(programs.len(), 3);
    assert_eq!(
        programs[2],
        "library: players/walker.so, directions: west3 (restart: per_game)"
    );
}

/// Elements under `element` matching `css`.
fn select_in<'a>(element: &scraper::ElementRef<'a>, css: &str) -> Vec<scraper::ElementRef<'a>> {
    element.select(&Selector::parse(css).unwrap()).collect()
}

/// Where the viewer is once headless Chromium has loaded `page` at `fragment`: the page's
/// scroll offset, the viewer's top in the window and the window's height (px), measured by a
/// script added to a copy of the page after its own.
fn viewer_position(page: &Path, fragment: &str) -> (f64, f64, f64) {
    let chrome = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("this test needs Chromium: apt-get install chromium");
    let probe = page.with_file_name("probe.html");
    let html = fs::read_to_string(page).unwrap().replace(
        "</body>",
        "<script>window.addEventListener('load', function () { setTimeout(function () {\
         var top = document.getElementById('viewer').getBoundingClientRect().top;\
         document.body.setAttribute('data-probe', scrollY + ' ' + top + ' ' + innerHeight);\
         }, 300); });</script></body>",
    );
    fs::write(&probe, html).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(chrome)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
        ])
        .args([
            "--virtual-time-budget=3000",
            "--window-size=1200,900",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("file://{}{fragment}", probe.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout);
    let at = dom.find("data-probe=\"").expect("the probe ran") + "data-probe=\"".len();
    let values: Vec<f64> = dom[at..]
        .split('"')
        .next()
        .unwrap()
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    (values[0], values[1], values[2])
}

// See: issue 23, item 12 of "what a newcomer and a teacher tripped over": a link to a game
// opened directly showed the top of the page (for a game the page does not embed, always).
#[test]
fn a_link_to_a_game_opens_at_the_viewer() {
    let dir = Dir::new();
    let out = run_tournament(&dir);
    let records = read_games(&out.join("games.csv"));
    arena()
        .arg("report")
        .arg(&out)
        .args(["--games", "3"])
        .assert()
        .success();
    let page = out.join("report.html");
    let doc = Html::parse_document(&fs::read_to_string(&page).unwrap());
    let shown: Vec<u64> = embedded(&doc)
        .iter()
        .map(|g| g["id"].as_u64().unwrap())
        .collect();
    let missing = records
        .iter()
        .map(|r| r.game_id)
        .find(|id| !shown.contains(id))
        .expect("a game left out of the sample");
    for fragment in [
        format!("#game={}&ply=2", shown[1]),
        format!("#game={missing}&ply=50"),
    ] {
        let (scrolled, top, height) = viewer_position(&page, &fragment);
        assert!(scrolled > 0.0, "{fragment}: not scrolled");
        assert!(
            (0.0..height).contains(&top),
            "{fragment}: the viewer is at {top} px in a {height} px window"
        );
    }
    // Without a game in the link the page opens at its top.
    assert_eq!(viewer_position(&page, "").0, 0.0);
}

#[test]
fn a_game_that_does_not_replay_is_shown_up_to_the_bad_ply_and_named() {
    let dir = Dir::new();
    let out = run_tournament(&dir);
    let mut records = read_games(&out.join("games.csv"));
    let awale = records
        .iter_mut()
        .find(|r| r.game == "awale" && r.plies >= 3)
        .unwrap();
    let mut moves: Vec<&str> = awale.moves.split_whitespace().collect();
    moves[2] = "9"; // no pit 9 on a 4-pit board
    awale.moves = moves.join(" ");
    let id = awale.game_id;
    arena::report::files::rewrite_games(&out.join("games.csv"), &records).unwrap();
    let assert = arena().args(["report"]).arg(&out).assert().success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(
        stderr.contains(&format!("game {id}: ply 3: cannot parse move `9`")),
        "{stderr}"
    );
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    let doc = Html::parse_document(&html);
    let game = embedded(&doc).into_iter().find(|g| g["id"] == id).unwrap();
    assert_eq!(
        game["m"].as_array().unwrap().len(),
        2,
        "plies before the bad one"
    );
    assert!(
        game["e"]
            .as_str()
            .unwrap()
            .contains("the replay stops here")
    );
    assert!(html.contains("Replays that stopped"));
}

#[test]
fn report_usage_errors_exit_2() {
    let dir = Dir::new();
    let missing = arena()
        .args(["report"])
        .arg(dir.path("nothing"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&missing.get_output().stderr).into_owned();
    assert!(stderr.contains("games.csv: no such file"), "{stderr}");
    fs::create_dir_all(dir.path("out")).unwrap();
    fs::write(dir.path("out/games.csv"), "").unwrap();
    let bad = arena()
        .args(["report"])
        .arg(dir.path("out"))
        .args(["--games", "many"])
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(
        stderr.contains("--games: expected `all` or a number"),
        "{stderr}"
    );
}

#[test]
fn workbook_has_typed_sheets_matching_the_csv_files() {
    let dir = Dir::new();
    let out = run_tournament(&dir);
    let records = read_games(&out.join("games.csv"));
    let mut book: Xlsx<_> = calamine::open_workbook(out.join("results.xlsx")).unwrap();
    assert_eq!(book.sheet_names(), vec!["games", "ratings", "pairs"]);
    let games = book.worksheet_range("games").unwrap();
    assert_eq!(games.height(), records.len() + 1);
    let header: Vec<String> = games
        .rows()
        .next()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    let csv_header = fs::read_to_string(out.join("games.csv")).unwrap();
    assert_eq!(header.join(","), csv_header.lines().next().unwrap());
    for (row, r) in games.rows().skip(1).zip(&records) {
        assert_eq!(row[0], Data::Float(r.game_id as f64), "game_id is a number");
        assert_eq!(row[7], Data::String(r.result.clone()), "result stays text");
        assert_eq!(row[9], Data::Float(f64::from(r.plies)));
        assert_eq!(
            row[16].to_string(),
            r.moves,
            "moves stay text, even one pit number"
        );
    }
    let ratings = book.worksheet_range("ratings").unwrap();
    let csv_rows = fs::read_to_string(out.join("ratings.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(ratings.height(), csv_rows);
    assert!(
        matches!(ratings.rows().nth(1).unwrap()[3], Data::Float(_)),
        "elo is a number"
    );
    let pairs = book.worksheet_range("pairs").unwrap();
    let csv_rows = fs::read_to_string(out.join("pairs.csv"))
        .unwrap()
        .lines()
        .count();
    assert_eq!(pairs.height(), csv_rows);
}

/// A position after `moves` from board `spec` (seed fixed), and the one before its last move.
fn position(spec: &str, seed: u64, moves: &[&str]) -> (AnyPosition, Option<(AnyPosition, String)>) {
    let spec: BoardSpec = serde_yaml::from_str(spec).unwrap();
    let mut pos = spec.start_position(seed).unwrap();
    let mut before = None;
    for mv in moves {
        before = Some((pos.clone(), (*mv).to_owned()));
        pos.play_text(mv).unwrap();
    }
    (pos, before)
}

fn check_snapshot(name: &str, svg: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.svg"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        fs::write(&path, svg).unwrap();
    }
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{}: missing; run with UPDATE_SNAPSHOTS=1", path.display()));
    assert!(
        expected == svg,
        "{name}: the SVG differs from {}",
        path.display()
    );
}

fn count(svg: &str, css: &str) -> usize {
    let doc = Html::parse_fragment(svg);
    select(&doc, css).len()
}

#[test]
fn seven_colors_boards_match_snapshots() {
    for (name, spec, moves) in [
        (
            "seven_colors_plane",
            "{game: seven_colors, size: 6}",
            &["A", "B", "C"][..],
        ),
        (
            "seven_colors_torus",
            "{game: seven_colors, size: 6, topology: torus}",
            &["D", "E"][..],
        ),
        (
            "seven_colors_diagonal",
            "{game: seven_colors, size: 5, layout: diagonal}",
            &["B"][..],
        ),
    ] {
        let (pos, before) = position(spec, 11, moves);
        let svg = board::svg(&pos, before.as_ref().map(|(p, m)| (p, m.as_str())));
        let AnyPosition::SevenColors(sc) = &pos else {
            unreachable!()
        };
        let n = sc.size();
        // Every cell drawn once, each zone with its own class, an outline around each zone.
        assert_eq!(count(&svg, "rect[data-s]"), n * n, "{name}");
        for (class, side) in [
            ("z1", arena::games::Side::First),
            ("z2", arena::games::Side::Second),
        ] {
            assert_eq!(
                count(&svg, &format!("rect.{class}")) as u32,
                sc.owned(side),
                "{name}"
            );
        }
        assert!(
            count(&svg, "path.e1") >= 4 && count(&svg, "path.e2") >= 4,
            "{name}"
        );
        assert_eq!(count(&svg, "path[data-s]"), 2 * n * (n + 1), "{name}");
        check_snapshot(name, &svg);
    }
}

#[test]
fn amazons_boards_of_every_shape_match_snapshots() {
    for (name, spec, holes) in [
        (
            "amazons_square",
            "{game: amazons, shape: square, width: 5}",
            0,
        ),
        (
            "amazons_donut",
            "{game: amazons, shape: donut, width: 6}",
            4,
        ),
        (
            "amazons_clover",
            "{game: amazons, shape: clover, width: 5}",
            4,
        ),
        (
            "amazons_eight",
            "{game: amazons, shape: eight, width: 8}",
            8,
        ),
    ] {
        let (start, _) = position(spec, 3, &[]);
        let first = start.legal_move_texts()[0].clone();
        let (pos, before) = position(spec, 3, &[&first]);
        let svg = board::svg(&pos, before.as_ref().map(|(p, m)| (p, m.as_str())));
        let AnyPosition::Amazons(a) = &pos else {
            unreachable!()
        };
        let m = a.width();
        assert_eq!(count(&svg, "rect.hole"), holes, "{name}");
        assert_eq!(count(&svg, "rect[data-s]"), m * m - holes, "{name}");
        assert_eq!(count(&svg, "rect.x"), 1, "{name}: the arrow just shot");
        assert_eq!(
            count(&svg, "circle.q1"),
            a.queens(arena::games::Side::First).len(),
            "{name}"
        );
        assert_eq!(
            count(&svg, "circle.q2"),
            a.queens(arena::games::Side::Second).len(),
            "{name}"
        );
        assert_eq!(count(&svg, "g.ov line.path"), 1, "{name}: the queen's path");
        assert_eq!(
            count(&svg, "g.ov line.shot"),
            1,
            "{name}: the arrow's flight"
        );
        check_snapshot(name, &svg);
    }
}

#[test]
fn awale_boards_of_any_pit_count_match_snapshots() {
    for (name, spec, moves, last) in [
        (
            "awale_6",
            "{game: awale, pits: 6}",
            &["3", "2"][..],
            11usize,
        ),
        ("awale_2", "{game: awale, pits: 2, seeds: 3}", &["1"][..], 3),
        ("awale_10", "{game: awale, pits: 10}", &["10"][..], 13),
    ] {
        let (pos, before) = position(spec, 0, moves);
        let svg = board::svg(&pos, before.as_ref().map(|(p, m)| (p, m.as_str())));
        let AnyPosition::Awale(a) = &pos else {
            unreachable!()
        };
        let doc = Html::parse_fragment(&svg);
        let seeds: Vec<String> = select(&doc, "text[data-t]")
            .iter()
            .map(|t| t.text().collect())
            .collect();
        let mut expected: Vec<String> = a.pits().iter().map(u16::to_string).collect();
        expected.push(a.captured(arena::games::Side::First).to_string());
        expected.push(a.captured(arena::games::Side::Second).to_string());
        assert_eq!(
            seeds, expected,
            "{name}: every pit's count, then the stores"
        );
        assert_eq!(count(&svg, "circle.pit"), 2 * a.pits_per_row(), "{name}");
        // The last sown pit's ring sits on that pit's circle.
        let (before, mv) = before.unwrap();
        let AnyPosition::Awale(b) = &before else {
            unreachable!()
        };
        let pit = usize::from(arena::games::Game::parse_move(b, &mv).unwrap());
        assert_eq!(b.last_sown(pit), Some(last), "{name}");
        let ring = select(&doc, "circle.last")[0].value();
        let pits = select(&doc, "circle.pit");
        let target = pits[last].value();
        assert_eq!(
            (target.attr("cx"), target.attr("cy")),
            (ring.attr("cx"), ring.attr("cy")),
            "{name}: the ring marks the last sown pit"
        );
        check_snapshot(name, &svg);
    }
}
