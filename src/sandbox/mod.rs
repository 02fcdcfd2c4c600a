//! A sandbox for untrusted engines (issue 24): no network, a confined filesystem, capped
//! memory, processes and file size, a reduced environment, and no thinking on the opponent's
//! time. See docs/sandbox.md for the threat model and each part's kernel requirement.
//!
//! The config key `sandbox` (top level and per engine) is a [`Setting`]: `off`, `on`, or a map
//! of [`Parts`]. A run resolves it per engine ([`Setting::parts`]); [`probe`] says what this
//! machine can enforce, and [`refusal`] refuses a run whose sandbox needs a part it cannot.
//! Each engine process is then started with a [`Prepared`] sandbox ([`Prepared::new`], built
//! before the fork), whose pre-exec hook applies it between fork and exec with system calls only.

mod child;
mod paths;
mod probe;
mod seccomp;
pub mod suspend;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use child::Prepared;
pub use paths::{SYSTEM, read_only_paths};
pub use probe::{Support, probe};

/// `memory_mb` of `sandbox: on` (MiB of address space).
pub const DEFAULT_MEMORY_MB: u64 = 1024;
/// `processes` of `sandbox: on` (processes and threads of one engine process's sandbox).
pub const DEFAULT_PROCESSES: u64 = 16;
/// `file_size_mb` of `sandbox: on` (MiB, the largest file the engine may write).
pub const DEFAULT_FILE_SIZE_MB: u64 = 64;

/// The config's `sandbox` value: `off`, `on`, or a map of parts (keys left out take their
/// `on` value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Setting {
    /// No sandbox: the engine runs with the user's rights (the default).
    Off,
    /// Every part at its `on` value.
    On,
    /// Parts chosen one by one.
    Parts(Parts),
}

/// `filesystem:` of a sandbox.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filesystem {
    /// Landlock: read-only access to the engine's folder, its interpreter and system
    /// libraries and the `read` paths; read-write only to a private working directory.
    #[default]
    Confined,
    /// The user's own access rights.
    Open,
}

/// A limit that can be turned off: a number (≥ 1), or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit(
    /// The value, in the key's unit; `None` for `off`.
    pub Option<u64>,
);

impl Serialize for Limit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(n) => s.serialize_u64(n),
            None => s.serialize_str("off"),
        }
    }
}

impl<'de> Deserialize<'de> for Limit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Limit, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Limit;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a positive number or `off`")
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Limit, E> {
                if n == 0 {
                    return Err(E::custom("must be at least 1 (or `off`)"));
                }
                Ok(Limit(Some(n)))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Limit, E> {
                u64::try_from(n)
                    .map_err(|_| E::custom("must be at least 1 (or `off`)"))
                    .and_then(|n| self.visit_u64(n))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Limit, E> {
                match s {
                    "off" => Ok(Limit(None)),
                    _ => Err(E::custom(format!("`{s}`: a positive number or `off`"))),
                }
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The parts of a sandbox. Defaults are those of `sandbox: on`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parts {
    /// Whether the engine may use the network (`false`: a network namespace of its own, with
    /// no interface but a loopback that is down).
    #[serde(default)]
    pub network: bool,
    /// `confined` (Landlock) or `open`.
    #[serde(default)]
    pub filesystem: Filesystem,
    /// Extra paths the engine may read (files or folders), relative to the directory arena
    /// runs in (as engine commands are); absolute once the config is planned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<PathBuf>,
    /// Address space of the engine process and of each of its children (MiB, RLIMIT_AS).
    #[serde(default = "default_memory")]
    pub memory_mb: Limit,
    /// Processes and threads in the engine's sandbox, its first thread included.
    #[serde(default = "default_processes")]
    pub processes: Limit,
    /// Largest file the engine may write (MiB, RLIMIT_FSIZE).
    #[serde(default = "default_file_size")]
    pub file_size_mb: Limit,
    /// Whether the engine's process group is stopped between its `bestmove` and arena's next
    /// line to it.
    #[serde(default = "yes")]
    pub suspend_idle: bool,
}

fn default_memory() -> Limit {
    Limit(Some(DEFAULT_MEMORY_MB))
}
fn default_processes() -> Limit {
    Limit(Some(DEFAULT_PROCESSES))
}
fn default_file_size() -> Limit {
    Limit(Some(DEFAULT_FILE_SIZE_MB))
}
fn yes() -> bool {
    true
}

impl Default for Parts {
    fn default() -> Parts {
        Parts {
            network: false,
            filesystem: Filesystem::Confined,
            read: Vec::new(),
            memory_mb: default_memory(),
            processes: default_processes(),
            file_size_mb: default_file_size(),
            suspend_idle: true,
        }
    }
}

impl Parts {
    /// One line: what an engine under these parts may do (`network no, filesystem confined
    /// (read: …), memory 1024 MiB, …`).
    pub fn describe(&self) -> String {
        let limit = |l: Limit, unit: &str| match l.0 {
            Some(n) => format!("{n}{unit}"),
            None => "unlimited".into(),
        };
        let read = if self.read.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = self.read.iter().map(|p| p.display().to_string()).collect();
            format!(" + read {}", list.join(", "))
        };
        format!(
            "network {}, filesystem {}{read}, memory {}, processes {}, file size {}, suspend_idle {}",
            if self.network { "yes" } else { "no" },
            match self.filesystem {
                Filesystem::Confined => "confined",
                Filesystem::Open => "open",
            },
            limit(self.memory_mb, " MiB"),
            limit(self.processes, ""),
            limit(self.file_size_mb, " MiB"),
            if self.suspend_idle { "on" } else { "off" },
        )
    }
}

impl Setting {
    /// The parts in force, `None` for `off`.
    pub fn parts(&self) -> Option<Parts> {
        match self {
            Setting::Off => None,
            Setting::On => Some(Parts::default()),
            Setting::Parts(parts) => Some(parts.clone()),
        }
    }

    /// The same setting with relative `read` paths made absolute against `base` (the
    /// directory arena runs in), checked to exist.
    ///
    /// # Errors
    /// A message naming the path that does not exist or is empty, or a `memory_mb` too large
    /// to be a cap.
    pub fn resolved(&self, base: &Path) -> Result<Setting, String> {
        let Setting::Parts(parts) = self else {
            return Ok(self.clone());
        };
        let mut parts = parts.clone();
        // Beyond this, a cap is no cap (and MiB → bytes would overflow): say so.
        const MAX_MEMORY_MB: u64 = 1 << 24;
        if parts.memory_mb.0.is_some_and(|mb| mb > MAX_MEMORY_MB) {
            return Err(format!(
                "sandbox.memory_mb: at most {MAX_MEMORY_MB} (16 TiB); write `memory_mb: off` for no cap"
            ));
        }
        for path in &mut parts.read {
            if path.as_os_str().is_empty() {
                return Err(
                    "sandbox.read: an empty path would allow the whole directory arena runs in; name the files or folders"
                        .into(),
                );
            }
            let full = base.join(&*path);
            if !full.exists() {
                return Err(format!(
                    "sandbox.read: `{}` does not exist (resolved against {}, the directory arena runs in)",
                    full.display(),
                    base.display()
                ));
            }
            *path = full;
        }
        Ok(Setting::Parts(parts))
    }
}

impl Serialize for Setting {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Setting::Off => s.serialize_str("off"),
            Setting::On => s.serialize_str("on"),
            Setting::Parts(parts) => parts.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Setting {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Setting, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Setting;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`off`, `on` or a map of sandbox parts")
            }
            fn visit_bool<E: serde::de::Error>(self, on: bool) -> Result<Setting, E> {
                Ok(if on { Setting::On } else { Setting::Off })
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Setting, E> {
                match s {
                    "on" => Ok(Setting::On),
                    "off" => Ok(Setting::Off),
                    _ => Err(E::custom(format!(
                        "`{s}`: expected `off`, `on` or a map of sandbox parts"
                    ))),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Setting, A::Error> {
                Parts::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(Setting::Parts)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The sandbox parts of a planned engine, `None` when it runs unconfined.
pub fn of(spec: &crate::config::EngineSpec) -> Option<Parts> {
    spec.sandbox.as_ref().and_then(Setting::parts)
}

/// Sets each planned engine's `sandbox` to the one in force (its own, else `global`, else
/// `off`; `off` for all with `no_sandbox`), with `read` paths resolved against `base`, and
/// refuses a sandbox this machine cannot enforce.
///
/// # Errors
/// A message naming the engine, the missing part and the key that turns it off, or a `read`
/// path that does not exist.
pub fn plan(
    engines: &mut [crate::config::PlanEngine],
    global: Option<&Setting>,
    base: &Path,
    no_sandbox: bool,
) -> Result<(), String> {
    for (i, engine) in engines.iter_mut().enumerate() {
        let label = format!("engines[{i}] ({})", engine.spec.name);
        let setting = if no_sandbox {
            Setting::Off
        } else {
            engine
                .spec
                .sandbox
                .as_ref()
                .or(global)
                .unwrap_or(&Setting::Off)
                .resolved(base)
                .map_err(|e| format!("{label}: {e}"))?
        };
        if let Some(parts) = setting.parts() {
            if let Some(why) = refusal(&label, &parts, probe()) {
                return Err(why);
            }
        }
        engine.spec.sandbox = Some(setting);
    }
    Ok(())
}

/// `arena check`'s sandbox lines: per engine what its sandbox allows, then, when any engine
/// has one, what this machine enforces (a refused part has already stopped the plan).
pub fn print_check(engines: &[crate::config::PlanEngine]) {
    let mut any = false;
    for engine in engines {
        match of(&engine.spec) {
            Some(parts) => {
                any = true;
                println!("sandbox of {}: {}", engine.spec.name, parts.describe());
            }
            None => println!(
                "sandbox of {}: OFF (runs with your rights: files, network, processes)",
                engine.spec.name
            ),
        }
    }
    if any {
        for line in probe().describe() {
            println!("sandbox on this machine: {line}");
        }
    }
}

/// Why the machine cannot run `engine` (labelled `label` in messages) under `parts`, naming
/// the missing part and the key that turns it off; `None` when it can.
pub fn refusal(label: &str, parts: &Parts, support: &Support) -> Option<String> {
    let root = support.root;
    // As root, the namespaces also shed the capabilities root has outside them.
    if root || !parts.network || parts.processes.0.is_some() {
        if let Err(why) = &support.namespaces {
            let key = if root {
                "sandbox: off"
            } else if parts.network {
                "sandbox.processes: off"
            } else {
                "sandbox.network: true"
            };
            return Some(format!(
                "{label}: this machine cannot run the engine in a network and user namespace of its own ({why}); enable unprivileged user namespaces or set `{key}` (docs/sandbox.md)"
            ));
        }
    }
    if parts.filesystem == Filesystem::Confined && support.landlock_abi.is_none() {
        return Some(format!(
            "{label}: this machine cannot confine the filesystem: Landlock is not available (Linux ≥ 5.13 with `landlock` in the `lsm=` boot list); set `sandbox.filesystem: open` (docs/sandbox.md)"
        ));
    }
    if parts.processes.0.is_some() && root {
        if let Err(why) = &support.pids_cgroup {
            return Some(format!(
                "{label}: arena runs as root, where RLIMIT_NPROC does not apply, and the pids cgroup is not usable ({why}); set `sandbox.processes: off` (docs/sandbox.md)"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Setting, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    #[test]
    fn an_empty_read_path_and_an_unbounded_memory_cap_are_refused() {
        let base = Path::new("/");
        let empty = parse("{ read: [''] }").unwrap();
        assert!(empty.resolved(base).unwrap_err().contains("empty path"));
        let huge = parse("{ memory_mb: 18446744073709551615 }").unwrap();
        assert!(huge.resolved(base).unwrap_err().contains("memory_mb"));
        assert!(parse("{ memory_mb: 4096 }").unwrap().resolved(base).is_ok());
    }

    #[test]
    fn words_and_maps_parse_with_on_defaults() {
        assert_eq!(parse("on").unwrap(), Setting::On);
        assert_eq!(parse("off").unwrap(), Setting::Off);
        let Setting::Parts(parts) = parse("{ network: true, memory_mb: off }").unwrap() else {
            panic!("a map is parts");
        };
        assert!(parts.network);
        assert_eq!(parts.memory_mb, Limit(None));
        assert_eq!(parts.processes, Limit(Some(DEFAULT_PROCESSES)));
        assert!(parts.suspend_idle);
        assert!(parse("maybe").unwrap_err().contains("expected `off`, `on`"));
        assert!(
            parse("{ memory_mb: 0 }")
                .unwrap_err()
                .contains("at least 1")
        );
        assert!(parse("{ network: no_such }").is_err());
        assert!(parse("{ netwrok: true }").unwrap_err().contains("netwrok"));
    }

    #[test]
    fn a_setting_round_trips_through_yaml() {
        for text in [
            "on",
            "off",
            "{ filesystem: open, read: [/etc], processes: off }",
        ] {
            let setting = parse(text).unwrap();
            let again = serde_yaml::to_string(&setting).unwrap();
            assert_eq!(parse(&again).unwrap(), setting, "{text}");
        }
    }

    #[test]
    fn refusal_names_the_part_and_the_key() {
        let none = Support {
            root: false,
            landlock_abi: None,
            namespaces: Err("unshare: EPERM".into()),
            pids_cgroup: Err("absent".into()),
        };
        let why = refusal("engines[0] (x)", &Parts::default(), &none).unwrap();
        assert!(why.contains("sandbox.network: true"), "{why}");
        let open_net = Parts {
            network: true,
            processes: Limit(None),
            ..Parts::default()
        };
        let why = refusal("engines[0] (x)", &open_net, &none).unwrap();
        assert!(why.contains("sandbox.filesystem: open"), "{why}");
        let all = Support {
            root: false,
            landlock_abi: Some(1),
            namespaces: Ok(()),
            pids_cgroup: Err("needs root".into()),
        };
        assert_eq!(refusal("e", &Parts::default(), &all), None);
        // As root, the process cap needs the pids cgroup, and the namespaces are always used.
        let root = Support { root: true, ..all };
        let why = refusal("e", &Parts::default(), &root).unwrap();
        assert!(why.contains("sandbox.processes: off"), "{why}");
        let root_no_ns = Support {
            namespaces: Err("EPERM".into()),
            pids_cgroup: Ok(()),
            ..root
        };
        let why = refusal("e", &open_net, &root_no_ns).unwrap();
        assert!(why.contains("`sandbox: off`"), "{why}");
    }
}
