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

/// Every team's pseudonym, distinct, and never another team's real name: a collision (rare:
/// 102,400 names) is resolved in name order by a suffix `-b`, `-c`…, so the result depends
/// only on the salt and the set of teams.
pub fn assign(salt: &[u8; 32], teams: &[String]) -> BTreeMap<String, String> {
    let sorted: BTreeSet<&String> = teams.iter().collect();
    let mut used = BTreeSet::new();
    let mut out = BTreeMap::new();
    for &team in &sorted {
        let base = pseudonym(salt, team);
        let mut name = base.clone();
        let mut suffix = b'b';
        while sorted.contains(&name) || !used.insert(name.clone()) {
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

/// `text` with each `(from, to)` of `replacements` replaced, longest `from` first (so a
/// team folder's path is replaced before a shorter one that starts it). Applied with the paths
/// of the team folders (see [`crate::class::Roster::path_redactions`]) to what engines print
/// (a crash's last stderr lines often quote a submission's path) before it reaches a public
/// file; words are left alone, so a team called `engine` does not rewrite every "engine".
pub fn redact(text: &str, replacements: &[(String, String)]) -> String {
    let mut sorted: Vec<&(String, String)> = replacements
        .iter()
        .filter(|(from, _)| !from.is_empty())
        .collect();
    sorted.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    let mut out = text.to_owned();
    for (from, to) in sorted {
        if out.contains(from.as_str()) {
            out = out.replace(from.as_str(), to);
        }
    }
    out
}

/// A keyed digest of `text` (32 hex digits, SipHash-2-4-128 keyed with the salt's first 16
/// bytes): what an anonymized `config.resolved.yaml` records of a team's engine entry, so
/// that a changed submission still changes the config while the entry's paths (which name the
/// team) stay out. Without the salt it tells nothing, and no one can craft two entries of one
/// digest.
pub fn digest(salt: &[u8; 32], text: &str) -> String {
    let mut key = [0u8; 16];
    key.copy_from_slice(&salt[..16]);
    let hash: u128 = siphasher::sip128::SipHasher24::new_with_key(&key)
        .hash(text.as_bytes())
        .into();
    format!("{hash:032x}")
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
    fn redaction_replaces_paths_not_words() {
        let paths = [
            (
                "/srv/subs/engine".to_owned(),
                "submissions/calm-yak-02".to_owned(),
            ),
            (
                "/srv/subs/engine-x".to_owned(),
                "submissions/noble-ocelot-55".to_owned(),
            ),
        ];
        let text = "File \"/srv/subs/engine-x/engine.py\", line 3; /srv/subs/engine/engine: the engine exited";
        assert_eq!(
            redact(text, &paths),
            "File \"submissions/noble-ocelot-55/engine.py\", line 3; submissions/calm-yak-02/engine: the engine exited"
        );
        assert_eq!(redact("nothing here", &paths), "nothing here");
    }

    #[test]
    fn a_digest_is_keyed_and_follows_the_text() {
        let (a, b) = ([1u8; 32], [2u8; 32]);
        assert_eq!(digest(&a, "command: x"), digest(&a, "command: x"));
        assert_ne!(digest(&a, "command: x"), digest(&a, "command: y"));
        assert_ne!(digest(&a, "command: x"), digest(&b, "command: x"));
        assert_eq!(digest(&a, "").len(), 32);
    }

    #[test]
    fn a_pseudonym_is_never_another_team_s_name() {
        let salt = [0u8; 32];
        // team-a's pseudonym is another folder's name: team-a takes the next one.
        let teams = ["team-a".to_owned(), "noble-ocelot-55".to_owned()];
        let map = assign(&salt, &teams);
        assert_eq!(map["team-a"], "noble-ocelot-55-b");
        for p in map.values() {
            assert!(!teams.contains(p), "{p}");
        }
    }
}
