//! The config keys of the Swiss and knockout formats, checked and resolved: how many game
//! pairs a pairing plays, the bye's points, the tie-breaks, and the seeded order.

use crate::config::{Config, Format};

/// Default game pairs per pairing (or match).
pub const GAMES_PER_PAIRING: u32 = 1;
/// Default points of a Swiss bye: a pairing won.
pub const BYE_SCORE: f64 = 1.0;
/// Default most tie-break pairs of a tied knockout match.
pub const TIEBREAK_PAIRS: u32 = 3;
/// Most game pairs a pairing or tie-break may ask for (a bound, so counts cannot overflow).
const MAX_PAIRS: u32 = 1000;

/// A Swiss or knockout tournament's settings, resolved with their defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    /// Swiss or knockout, with what belongs to each.
    pub kind: Kind,
    /// Game pairs every pairing (match) plays, ≥ 1.
    pub games_per_pairing: u32,
    /// Engine indices (config order) in seeded order: the strongest first, by
    /// `initial_rating` (higher first, ties in config order), else the config order.
    pub seeds: Vec<usize>,
}

/// What differs between the two formats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Swiss: `rounds` rounds; a bye scores `bye_score` points (a pairing won is 1).
    Swiss {
        /// Swiss rounds.
        rounds: u32,
        /// Points of a bye, in 0..=1.
        bye_score: f64,
    },
    /// Knockout: a tied match plays up to `tiebreak_pairs` more game pairs, one at a time.
    Knockout {
        /// Most tie-break pairs per match.
        tiebreak_pairs: u32,
    },
}

impl Paired {
    /// The settings of `config`, `None` for a round robin or gauntlet. Assumes
    /// [`validate`] passed.
    pub fn of(config: &Config) -> Option<Paired> {
        let kind = match config.format {
            Format::Swiss => Kind::Swiss {
                rounds: config.rounds,
                bye_score: config.bye_score.unwrap_or(BYE_SCORE),
            },
            Format::Knockout => Kind::Knockout {
                tiebreak_pairs: config.tiebreak_pairs.unwrap_or(TIEBREAK_PAIRS),
            },
            Format::RoundRobin | Format::Gauntlet | Format::Ladder => return None,
        };
        let mut seeds: Vec<usize> = (0..config.engines.len()).collect();
        // A stable sort: equal ratings (or none) keep the config order.
        seeds.sort_by(|&a, &b| {
            let rating = |e: usize| config.engines[e].initial_rating.unwrap_or(0.0);
            rating(b).total_cmp(&rating(a))
        });
        Some(Paired {
            kind,
            games_per_pairing: config.games_per_pairing.unwrap_or(GAMES_PER_PAIRING),
            seeds,
        })
    }

    /// Start-position slots the tournament may use: each game pair of a pairing, and each
    /// tie-break pair, is played on its own slot (the `round` column of games.csv). Swiss
    /// round r uses slots (r−1)·k+1 ..= r·k for k game pairs per pairing; knockout round r
    /// uses (r−1)·(k+T)+1 ..= (r−1)·(k+T)+k, then one slot per tie-break pair, T at most.
    pub fn slots(&self, engines: usize) -> u32 {
        let k = self.games_per_pairing;
        match self.kind {
            Kind::Swiss { rounds, .. } => rounds * k,
            Kind::Knockout { tiebreak_pairs } => {
                super::knockout::rounds(engines) * (k + tiebreak_pairs)
            }
        }
    }
}

/// The name of a format as written in a config.
pub fn format_name(format: Format) -> &'static str {
    match format {
        Format::RoundRobin => "round_robin",
        Format::Gauntlet => "gauntlet",
        Format::Swiss => "swiss",
        Format::Knockout => "knockout",
        Format::Ladder => "ladder",
    }
}

/// The most games a Swiss or knockout of `engines` engines plays (knockout: every tie-break
/// played); 0 for other formats.
pub fn max_games(config: &Config, engines: usize) -> u64 {
    let n = engines as u64;
    let k = u64::from(config.games_per_pairing.unwrap_or(GAMES_PER_PAIRING));
    match config.format {
        Format::Swiss => u64::from(config.rounds) * (n / 2) * 2 * k,
        // N − 1 matches: each eliminates one engine.
        Format::Knockout => {
            let t = u64::from(config.tiebreak_pairs.unwrap_or(TIEBREAK_PAIRS));
            n.saturating_sub(1) * 2 * (k + t)
        }
        Format::RoundRobin | Format::Gauntlet | Format::Ladder => 0,
    }
}

/// The games of a Swiss or knockout without tie-breaks: Swiss, exactly; knockout, the
/// regular games of its N − 1 matches.
pub fn regular_games(config: &Config, engines: usize) -> u64 {
    let n = engines as u64;
    let k = u64::from(config.games_per_pairing.unwrap_or(GAMES_PER_PAIRING));
    match config.format {
        Format::Knockout => n.saturating_sub(1) * 2 * k,
        _ => max_games(config, engines),
    }
}

/// Checks the keys of the Swiss and knockout formats: each only with its format, in range,
/// one board, and `initial_rating` for every engine or none.
///
/// # Errors
/// A message naming the key (and the engine) at fault.
pub fn validate(config: &Config) -> Result<(), String> {
    let format = config.format;
    let name = format_name(format);
    let only = |key: &str, with: &str| format!("{key} is only used with {with} (format is {name})");
    let paired = format.pairs_by_results();
    if config.games_per_pairing.is_some() && !paired {
        return Err(only("games_per_pairing", "format: swiss or knockout"));
    }
    if config.bye_score.is_some() && format != Format::Swiss {
        return Err(only("bye_score", "format: swiss"));
    }
    if config.tiebreak_pairs.is_some() && format != Format::Knockout {
        return Err(only("tiebreak_pairs", "format: knockout"));
    }
    let rated: Vec<&str> = config
        .engines
        .iter()
        .filter(|e| e.initial_rating.is_some())
        .map(|e| e.name.as_str())
        .collect();
    if !rated.is_empty() && !paired {
        return Err(format!(
            "engines ({}): initial_rating is only used with format: swiss or knockout (format is {name})",
            rated.join(", ")
        ));
    }
    if !paired {
        return Ok(());
    }
    if let Some(e) = config
        .engines
        .iter()
        .find(|e| e.initial_rating.is_some_and(|r| !r.is_finite()))
    {
        return Err(format!(
            "engine {}: initial_rating must be a finite number",
            e.name
        ));
    }
    if !rated.is_empty() && rated.len() < config.engines.len() {
        let missing: Vec<&str> = config
            .engines
            .iter()
            .filter(|e| e.initial_rating.is_none())
            .map(|e| e.name.as_str())
            .collect();
        return Err(format!(
            "initial_rating is given for some engines but not for {}: give it to every engine or to none (then the config order seeds them)",
            missing.join(", ")
        ));
    }
    if config.boards.len() != 1 {
        return Err(format!(
            "boards: format: {name} plays on exactly one board, got {}",
            config.boards.len()
        ));
    }
    if config.sprt.is_some() {
        return Err(format!("sprt: not with format: {name}"));
    }
    let k = config.games_per_pairing.unwrap_or(GAMES_PER_PAIRING);
    if k == 0 || k > MAX_PAIRS {
        return Err(format!(
            "games_per_pairing must be in 1..={MAX_PAIRS}, got {k}"
        ));
    }
    if let Some(bye) = config.bye_score {
        if !(0.0..=1.0).contains(&bye) {
            return Err(format!(
                "bye_score must be in 0..=1 (a pairing won is 1, drawn 0.5), got {bye}"
            ));
        }
    }
    if let Some(t) = config.tiebreak_pairs {
        if t > MAX_PAIRS {
            return Err(format!(
                "tiebreak_pairs must be in 0..={MAX_PAIRS}, got {t}"
            ));
        }
    }
    if format == Format::Knockout && config.rounds != 1 {
        return Err(format!(
            "rounds: not used by format: knockout (its rounds are ⌈log2 N⌉ = {} for {} engines); remove it, or use games_per_pairing for longer matches",
            super::knockout::rounds(config.engines.len()),
            config.engines.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &str, engines: &str) -> Config {
        let text = format!(
            "time_control: {{ movetime_ms: 50 }}\nboards:\n  - {{ game: awale, pits: 6 }}\nengines:\n{engines}{extra}"
        );
        serde_yaml::from_str(&text).unwrap()
    }

    const THREE: &str = "  - { name: a, command: sh }\n  - { name: b, command: sh }\n  - { name: c, command: sh }\n";

    #[test]
    fn keys_are_checked_against_their_format_and_range() {
        let cases = [
            (
                "format: swiss\ngames_per_pairing: 0\n",
                "games_per_pairing must be in 1..=1000, got 0",
            ),
            (
                "games_per_pairing: 2\n",
                "games_per_pairing is only used with format: swiss or knockout (format is round_robin)",
            ),
            (
                "format: knockout\nbye_score: 1\n",
                "bye_score is only used with format: swiss (format is knockout)",
            ),
            (
                "format: swiss\ntiebreak_pairs: 1\n",
                "tiebreak_pairs is only used with format: knockout",
            ),
            (
                "format: swiss\nbye_score: 1.5\n",
                "bye_score must be in 0..=1",
            ),
            (
                "format: knockout\nrounds: 3\n",
                "rounds: not used by format: knockout (its rounds are ⌈log2 N⌉ = 2 for 3 engines)",
            ),
        ];
        for (extra, message) in cases {
            let err = validate(&config(extra, THREE)).unwrap_err();
            assert!(err.contains(message), "{extra}: {err}");
        }
        let partial = THREE.replace("name: a,", "name: a, initial_rating: 1500,");
        let err = validate(&config("format: swiss\n", &partial)).unwrap_err();
        assert!(err.contains("not for b, c"), "{err}");
        let err = validate(&config("", &partial)).unwrap_err();
        assert!(
            err.contains("engines (a): initial_rating is only used"),
            "{err}"
        );
        validate(&config("format: swiss\nrounds: 4\nbye_score: 0.5\n", THREE)).unwrap();
    }

    #[test]
    fn seeds_follow_initial_rating_then_config_order() {
        let rated = "  - { name: a, command: sh, initial_rating: 10 }\n  - { name: b, command: sh, initial_rating: 30 }\n  - { name: c, command: sh, initial_rating: 10 }\n";
        let p = Paired::of(&config("format: knockout\n", rated)).unwrap();
        assert_eq!(p.seeds, [1, 0, 2]);
        assert_eq!(p.kind, Kind::Knockout { tiebreak_pairs: 3 });
        let p = Paired::of(&config("format: swiss\nrounds: 4\n", THREE)).unwrap();
        assert_eq!(p.seeds, [0, 1, 2]);
        assert_eq!(p.slots(3), 4);
        assert!(Paired::of(&config("", THREE)).is_none());
    }

    #[test]
    fn game_counts() {
        // 9 engines, 4 rounds, 2 pairs: 4 pairings a round x 4 games x 4 rounds.
        let c = config("format: swiss\nrounds: 4\ngames_per_pairing: 2\n", THREE);
        assert_eq!(max_games(&c, 9), 64);
        // 6 engines: 5 matches x 2 games, up to 3 tie-break pairs each.
        let c = config("format: knockout\n", THREE);
        assert_eq!((regular_games(&c, 6), max_games(&c, 6)), (10, 40));
    }
}
