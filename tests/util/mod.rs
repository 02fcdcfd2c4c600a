//! Helpers shared by the integration tests: temporary directories and paths to the binaries.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use arena::record::GameRecord;

/// A fresh temporary directory, removed when dropped.
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Dir {
        Dir(tempfile::tempdir().expect("temporary directory"))
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.0.path().join(rel)
    }

    /// Writes a file and returns its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        fs::write(&path, text).expect("write test file");
        path
    }
}

/// The `arena` binary under test.
pub fn arena() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("arena").expect("arena binary")
}

/// A reference engine binary of the `arena-engines` crate, beside `arena`. Whatever subset of
/// the tests runs (`cargo test --test cli`, say), the engines are brought up to date on first
/// use, once per test process, so no test depends on another target having been built first.
pub fn engine(name: &str) -> String {
    static BUILT: std::sync::Once = std::sync::Once::new();
    let dir = Path::new(env!("CARGO_BIN_EXE_arena"))
        .parent()
        .expect("target directory");
    let path = dir.join(name);
    BUILT.call_once(|| {
        // Always asked (a no-op when fresh): `cargo test --test X` builds only arena's targets,
        // so the engines could be stale or missing. The profile `cargo test` builds with, so
        // nothing already built is rebuilt.
        let profile = if dir.file_name().is_some_and(|d| d == "release") {
            "release"
        } else {
            "test"
        };
        let mut cargo = std::process::Command::new(env!("CARGO"));
        cargo
            .args([
                "build",
                "--quiet",
                "-p",
                "arena-engines",
                "--bins",
                "--profile",
                profile,
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"));
        let status = cargo.status().expect("cargo runs");
        assert!(status.success(), "building the engines failed");
    });
    assert!(
        path.exists(),
        "{} is missing after building the engines",
        path.display()
    );
    path.display().to_string()
}

/// The Python template engine.
pub fn python_engine() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("engines/python/random_engine.py")
        .display()
        .to_string()
}

/// Every row of a games.csv.
pub fn read_games(path: &Path) -> Vec<GameRecord> {
    let (records, dropped) = arena::report::files::read_games(path).expect("games.csv reads");
    assert_eq!(dropped, None);
    records
}

/// Records with the timing columns zeroed: what must not change between equivalent runs.
pub fn without_timing(games: Vec<GameRecord>) -> Vec<GameRecord> {
    games
        .into_iter()
        .map(|mut g| {
            g.duration_ms = 0;
            g.first_time_ms = 0;
            g.second_time_ms = 0;
            g
        })
        .collect()
}

/// Whether a test that needs something only root or an installed package gives (`why` says
/// what is missing) is skipped: only when `ARENA_SKIP_ROOT_TESTS=1` says so knowingly, printed.
/// Otherwise the test fails, so `scripts/test.sh` never passes by skipping.
///
/// # Panics
/// When `why` is given and the variable is not set.
#[allow(dead_code)]
pub fn skip_unless_available(why: Option<&str>) -> bool {
    let Some(why) = why else { return false };
    assert!(
        std::env::var("ARENA_SKIP_ROOT_TESTS").as_deref() == Ok("1"),
        "{why}; scripts/test.sh installs the packages (as root); ARENA_SKIP_ROOT_TESTS=1 skips this test knowingly"
    );
    eprintln!("SKIPPED (ARENA_SKIP_ROOT_TESTS=1): {why}");
    true
}

/// Whether the tests run as root (effective uid 0, from `/proc/self/status`).
#[allow(dead_code)]
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

/// The rows of a CSV file (with a header) as maps column → text.
pub fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let headers = reader.headers().expect("a header row").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("a CSV row");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// Compiles `tests/players/<source>.c` into `<dir>/<name>.so`, a course player library, with
/// the given dir.h version (`clockwise` or `west3`), linked with GSL when asked.
pub fn compile_player(
    dir: &Path,
    name: &str,
    source: &str,
    directions: &str,
    with_gsl: bool,
) -> PathBuf {
    let players = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/players");
    let out = dir.join(format!("{name}.so"));
    let mut gcc = std::process::Command::new("gcc");
    gcc.args(["-std=gnu99", "-O1", "-Wall", "-Werror", "-shared", "-fPIC"])
        .arg(format!("-I{}", players.display()))
        .arg(format!(
            "-I{}",
            players.join(format!("dir-{directions}")).display()
        ))
        .arg("-o")
        .arg(&out)
        .arg(players.join(format!("{source}.c")));
    if with_gsl {
        gcc.args(["-lgsl", "-lgslcblas"]);
    }
    let status = gcc.status().unwrap_or_else(|e| {
        panic!("cannot run gcc ({e}): install gcc and libgsl-dev (scripts/test.sh does)")
    });
    assert!(
        status.success(),
        "gcc failed on {source}.c: are GSL's headers there? (apt-get install libgsl-dev; scripts/test.sh does)"
    );
    out
}

/// Starts `arena ARGS` and returns it with the URL it printed on stderr (`… http://…/`).
pub fn start_serving(args: &[&str]) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start arena");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            if let (false, Some(at)) = (sent, line.find("http://")) {
                let url = line[at..]
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_owned();
                let _ = tx.send(url);
                sent = true;
            }
        }
    });
    let url = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("arena printed the live page's URL");
    (child, url)
}
