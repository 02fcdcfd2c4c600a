//! Every config shipped in `configs/` is valid as a user would run it: it parses, every board
//! makes a start position, and it plans (engines resolved, bounds checked) once the engines are
//! built. The course configs (`configs/course/`) all play 10×10 Seven Colors, two engines.

mod util;

use std::fs;
use std::path::{Path, PathBuf};

use arena::config::{self, Overrides};
use arena::games::GameKind;
use util::{Dir, engine};

/// Every `.yaml` under `dir`, recursively, sorted.
fn configs(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(configs(&path));
        } else if path.extension().is_some_and(|e| e == "yaml") {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn every_shipped_config_parses_and_plans() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let all = configs(&root.join("configs"));
    assert!(all.len() >= 10, "{all:?}");
    // The configs name release binaries; the tests have the test-profile ones.
    let built = Path::new(&engine("random"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let dir = Dir::new();
    for path in &all {
        let text = fs::read_to_string(path).unwrap();
        // The copy lives elsewhere: a submissions folder relative to configs/ is given whole.
        let text_here = text
            .replace("target/release", &built)
            .replace("../examples/", &format!("{}/examples/", root.display()));
        let local = dir.write("config.yaml", &text_here);
        let config = config::read(&local).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for board in &config.boards {
            board
                .start_position(1)
                .unwrap_or_else(|e| panic!("{}: board {}: {e}", path.display(), board.name()));
        }
        let course = path.parent().is_some_and(|p| p.ends_with("course"));
        if course {
            assert_eq!(config.engines.len(), 2, "{}", path.display());
            assert_eq!(config.boards.len(), 1, "{}", path.display());
            assert_eq!(config.boards[0].kind(), GameKind::SevenColors);
            assert!(
                text.contains("size: 10,") && text.starts_with("# Published:"),
                "{}: a course config plays 10x10 and quotes its figure first",
                path.display()
            );
        }
        config
            .plan(&local, root, &Overrides::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
