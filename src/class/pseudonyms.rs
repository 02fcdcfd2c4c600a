//! Stable pseudonyms for a public leaderboard (`anonymize: true`).
//!
//! A team's pseudonym (`amber-otter-17`) is a keyed function of its name: ChaCha20 keyed with a
//! 256-bit secret salt, on the stream numbered by the name's 64-bit FNV-1a hash. The same salt
//! and name give the same pseudonym in every run (and next year, if the teacher keeps the
//! salt); without the salt, knowing one's own pseudonym tells nothing about another team's.
//! The salt and the mapping live in `OUTPUT/pseudonyms.csv`, which only the teacher keeps:
//! no other output file holds a real name when anonymized.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

/// The file, in the output directory, holding the salt and every team's pseudonym.
pub const FILE: &str = "pseudonyms.csv";

const ADJECTIVES: [&str; 32] = [
    "amber", "bold", "brisk", "calm", "clever", "coral", "crimson", "dusky", "eager", "fancy",
    "gentle", "golden", "hazel", "indigo", "jade", "keen", "lively", "lunar", "mellow", "misty",
    "noble", "olive", "polar", "quiet", "rapid", "rosy", "silver", "snowy", "sunny", "swift",
    "tidy", "witty",
];
const ANIMALS: [&str; 32] = [
    "badger", "beaver", "bison", "crane", "eagle", "falcon", "ferret", "finch", "fox", "gecko",
    "heron", "ibex", "jackal", "koala", "lemur", "lynx", "marten", "moose", "newt", "ocelot",
    "otter", "owl", "panda", "puffin", "quail", "raven", "robin", "salmon", "seal", "tapir",
    "walrus", "yak",
];

/// A salt of 32 random bytes from the operating system.
///
/// # Errors
/// When the system's random source cannot be read.
pub fn new_salt() -> Result<[u8; 32], String> {
    let mut salt = [0u8; 32];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut salt))
        .map_err(|e| format!("/dev/urandom: {e}"))?;
    Ok(salt)
}

fn fnv1a(text: &str) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for b in text.bytes() {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The pseudonym of `team` under `salt`, before collisions are resolved: 32 × 32 × 100
/// combinations.
pub fn pseudonym(salt: &[u8; 32], team: &str) -> String {
    let mut rng = ChaCha20Rng::from_seed(*salt);
    rng.set_stream(fnv1a(team));
    let word = rng.next_u64();
    format!(
        "{}-{}-{:02}",
        ADJECTIVES[(word % 32) as usize],
        ANIMALS[((word >> 5) % 32) as usize],
        (word >> 10) % 100
    )
}

/// Every team's pseudonym, distinct: a collision (rare: 102,400 names) is resolved in name
/// order by a suffix `-b`, `-c`…, so the result depends only on the salt and the set of teams.
pub fn assign(salt: &[u8; 32], teams: &[String]) -> BTreeMap<String, String> {
    let sorted: BTreeSet<&String> = teams.iter().collect();
    let mut used = BTreeSet::new();
    let mut out = BTreeMap::new();
    for team in sorted {
        let base = pseudonym(salt, team);
        let mut name = base.clone();
        let mut suffix = b'b';
        while !used.insert(name.clone()) {
            name = format!("{base}-{}", suffix as char);
            suffix += 1;
        }
        out.insert(team.clone(), name);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The salt of `OUTPUT/pseudonyms.csv`, or `None` when there is no such file.
///
/// # Errors
/// When the file exists but holds no valid salt line (`salt,<64 hex digits>`).
pub fn read_salt(dir: &Path) -> Result<Option<[u8; 32]>, String> {
    let path = dir.join(FILE);
    let Ok(text) = fs::read_to_string(&path) else {
        return Ok(None);
    };
    text.lines()
        .find_map(|line| line.strip_prefix("salt,").and_then(unhex))
        .map(Some)
        .ok_or_else(|| format!("{}: no `salt,<64 hex digits>` line", path.display()))
}

/// Writes `OUTPUT/pseudonyms.csv`: the salt, then `team,pseudonym` per team.
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn write(dir: &Path, salt: &[u8; 32], map: &BTreeMap<String, String>) -> Result<(), String> {
    let path = dir.join(FILE);
    let mut text = format!(
        "# Private: the real team behind each pseudonym. Keep this file; never publish it.\n\
         salt,{}\nteam,pseudonym\n",
        hex(salt)
    );
    for (team, pseudonym) in map {
        text.push_str(&format!("{team},{pseudonym}\n"));
    }
    fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `text` with every real team name of `map` (team → pseudonym) replaced by its pseudonym,
/// where it stands as a whole name (not inside a longer name: `team-a` is not replaced in
/// `team-ab`). Applied to what engines print (a crash's last stderr lines, which often
/// quote a submission's path) before it reaches a public file.
pub fn redact(text: &str, map: &BTreeMap<String, String>) -> String {
    let part_of_name = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = text.to_owned();
    // Longest first, so `team-ab` is replaced before `team-a` could match inside it.
    let mut teams: Vec<(&String, &String)> = map.iter().filter(|(t, _)| !t.is_empty()).collect();
    teams.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
    for (team, pseudonym) in teams {
        let mut result = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(at) = rest.find(team.as_str()) {
            let before = rest[..at].chars().next_back();
            let after = rest[at + team.len()..].chars().next();
            result.push_str(&rest[..at]);
            if before.is_some_and(part_of_name) || after.is_some_and(part_of_name) {
                result.push_str(team);
            } else {
                result.push_str(pseudonym);
            }
            rest = &rest[at + team.len()..];
        }
        result.push_str(rest);
        out = result;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudonyms_are_stable_keyed_and_distinct() {
        let salt = [7u8; 32];
        let other = [8u8; 32];
        assert_eq!(pseudonym(&salt, "team-a"), pseudonym(&salt, "team-a"));
        assert_ne!(pseudonym(&salt, "team-a"), pseudonym(&other, "team-a"));
        // Known value: a change of the derivation would rename every team of a kept salt.
        assert_eq!(pseudonym(&[0u8; 32], "team-a"), "noble-ocelot-55");
        let teams: Vec<String> = (0..500).map(|i| format!("team{i}")).collect();
        let map = assign(&salt, &teams);
        let distinct: BTreeSet<&String> = map.values().collect();
        assert_eq!(distinct.len(), 500);
        for (team, p) in &map {
            assert!(!p.contains(team.as_str()));
        }
        // The order teams are given in does not matter.
        let mut reversed = teams.clone();
        reversed.reverse();
        assert_eq!(assign(&salt, &reversed), map);
    }

    #[test]
    fn the_salt_round_trips_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_salt(dir.path()), Ok(None));
        let salt = new_salt().unwrap();
        let map = assign(&salt, &["x".to_owned(), "y".to_owned()]);
        write(dir.path(), &salt, &map).unwrap();
        assert_eq!(read_salt(dir.path()), Ok(Some(salt)));
        fs::write(dir.path().join(FILE), "team,pseudonym\n").unwrap();
        assert!(read_salt(dir.path()).is_err());
    }

    #[test]
    fn redaction_replaces_whole_team_names_only() {
        let map: BTreeMap<String, String> =
            [("team-a", "noble-ocelot-55"), ("team-ab", "calm-yak-02")]
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .into();
        let text = "File \"/srv/subs/team-a/engine.py\", line 3 (team-ab, not xteam-a); team-a.";
        assert_eq!(
            redact(text, &map),
            "File \"/srv/subs/noble-ocelot-55/engine.py\", line 3 (calm-yak-02, not xteam-a); noble-ocelot-55."
        );
        assert_eq!(redact("nothing here", &map), "nothing here");
    }
}
