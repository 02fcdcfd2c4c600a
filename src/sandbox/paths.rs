//! What a sandboxed engine may read: its own folder, what its command needs to run (the
//! interpreter of a script, through its shebang chain and `env`, and an interpreter's prefix,
//! which holds a version manager's shims and versions), the system libraries, and the `read`
//! paths of the config.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// System paths every engine may read: programs, libraries, the loader's cache and what a
/// language runtime reads at start (time zone, CPU count). Missing ones are skipped.
pub const SYSTEM: &[&str] = &[
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/bin",
    "/sbin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ssl",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
    "/dev/null",
    "/proc",
    "/sys/devices/system/cpu",
];

/// How deep a shebang chain is followed (the kernel allows 4 levels of interpreters).
const MAX_CHAIN: usize = 5;

/// The paths (files or folders) an engine run as `program` with `args` may read, besides
/// [`SYSTEM`] and the config's `read`: the folder of the program and of its first argument
/// that is not a flag (nor the value of Python's `-W`/`-X`: `python3 -W ignore engine.py` finds
/// `engine.py`) when it names an existing file (a script, a library), and for each interpreter
/// on the way (the shebang chain, a name `env` looks up on PATH, a program found on PATH) its
/// folder and its prefix (`…/bin/python3` → `…`; `~/.pyenv/shims/python3` → `~/.pyenv`), both
/// as found and with symlinks resolved.
pub fn read_only_paths(program: &Path, found_on_path: bool, args: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    add_program(&mut out, program, found_on_path, 0);
    // The script of an interpreter (`python3 engine.py`, `java -jar engine.jar`) or the
    // adapter's `--library x.so`: the first argument that is not a flag. Only that one: an
    // engine's other arguments (a file it is told to open, say) are not its folder.
    if let Some(first) = first_operand(args) {
        let path = Path::new(first);
        if path.is_absolute() && path.is_file() {
            add_folder(&mut out, path, false);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The first argument that is not a flag, skipping the value of Python's `-W` and `-X` (the
/// interpreter flags that take their value as the next argument).
fn first_operand(args: &[String]) -> Option<&String> {
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
        } else if a == "-W" || a == "-X" {
            skip_next = true;
        } else if !a.starts_with('-') {
            return Some(a);
        }
    }
    None
}

/// Adds a program's folder (and prefix when it is an interpreter) and follows its shebang.
fn add_program(out: &mut Vec<PathBuf>, program: &Path, interpreter: bool, depth: usize) {
    if depth > MAX_CHAIN {
        return;
    }
    add_folder(out, program, interpreter);
    let Some((interp, arg)) = shebang(program) else {
        return;
    };
    add_program(out, &interp, true, depth + 1);
    // `#!/usr/bin/env python3`: the name env looks up on PATH.
    if interp.file_name().is_some_and(|n| n == "env") {
        if let Some(found) = arg.and_then(|name| on_path(&name)) {
            add_program(out, &found, true, depth + 1);
        }
    }
}

/// Adds the folder of `file`, as given and resolved; with `prefix`, their parents too.
fn add_folder(out: &mut Vec<PathBuf>, file: &Path, prefix: bool) {
    let mut forms = vec![file.to_path_buf()];
    if let Ok(real) = fs::canonicalize(file) {
        forms.push(real);
    }
    for form in forms {
        let Some(dir) = form.parent() else { continue };
        out.push(dir.to_path_buf());
        if prefix {
            if let Some(up) = dir.parent().filter(|p| p.parent().is_some()) {
                out.push(up.to_path_buf());
            }
        }
    }
}

/// A script's interpreter and the first word after it (`#!/usr/bin/env -S python3 -u` →
/// `/usr/bin/env`, `python3`).
fn shebang(file: &Path) -> Option<(PathBuf, Option<String>)> {
    let mut head = [0u8; 256];
    let n = fs::File::open(file).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let text = std::str::from_utf8(line).ok()?;
    let mut words = text.split_whitespace();
    let interp = PathBuf::from(words.next()?);
    let arg = words.find(|w| !w.starts_with('-')).map(str::to_owned);
    Some((interp, arg))
}

/// A program name looked up on arena's PATH (which the engine inherits).
fn on_path(name: &str) -> Option<PathBuf> {
    crate::engine::resolve_program(name, Path::new("/")).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_script_is_the_first_operand_after_python_flags_values() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let first = |a: &[&str]| first_operand(&args(a)).cloned();
        assert_eq!(
            first(&["-W", "ignore", "/e/engine.py"]),
            Some("/e/engine.py".into())
        );
        assert_eq!(
            first(&["-u", "-X", "dev", "e.py", "x"]),
            Some("e.py".into())
        );
        // A file named later (an engine told to open it) is not the script.
        assert_eq!(
            first(&["--escape", "read", "--target", "/s"]),
            Some("read".into())
        );
        assert_eq!(first(&["-u"]), None);
        // And so its folder is not allowed.
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "x").unwrap();
        let secret = secret.display().to_string();
        let allowed = read_only_paths(Path::new("/bin/true"), false, &args(&["-t", "x", &secret]));
        assert!(!allowed.contains(&dir.path().to_path_buf()), "{allowed:?}");
        let allowed = read_only_paths(Path::new("/bin/true"), false, &args(&["-W", "i", &secret]));
        assert!(allowed.contains(&dir.path().to_path_buf()), "{allowed:?}");
    }

    #[test]
    fn a_script_brings_its_env_interpreter_and_its_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("manager");
        fs::create_dir_all(prefix.join("shims")).unwrap();
        let shim = prefix.join("shims/fakepython");
        fs::write(&shim, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&shim, fs::Permissions::from_mode(0o755)).unwrap();
        let engine_dir = dir.path().join("team");
        fs::create_dir_all(&engine_dir).unwrap();
        let script = engine_dir.join("engine.py");
        fs::write(&script, format!("#!{} -u\nprint()\n", shim.display())).unwrap();
        let paths = read_only_paths(&script, false, &[]);
        assert!(paths.contains(&engine_dir), "{paths:?}");
        assert!(paths.contains(&prefix.join("shims")), "{paths:?}");
        assert!(
            paths.contains(&prefix),
            "the interpreter's prefix: {paths:?}"
        );
        assert!(
            !paths.contains(&dir.path().to_path_buf()),
            "the engine's own parent is not allowed: {paths:?}"
        );
    }
}
