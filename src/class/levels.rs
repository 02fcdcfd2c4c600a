//! A team's level on the staff ladder, and the grade it maps to. Pure.
//!
//! The ladder lists reference engines, weakest first. A team **beats** a rung when its score
//! against it is above 50% *and* the lower end of the interval of its Elo difference over that
//! rung (pairs.csv's `ci_low`, from the same head-to-head estimate) is above 0, i.e. the
//! interval of its score lies above 50%. An exact 50% is not a win; an unbounded lower end
//! (`open`, after a 0% score) is not above 0; an upper end that is `open` (after a 100% score)
//! does not matter. Its **level** is the highest rung it beats, even when it fails a lower one
//! (a team that beats `alphabeta` but not `greedy` has level `alphabeta`: the ladder grades
//! what a team can do), or none.

use std::collections::BTreeMap;

/// A team's results against one rung: from pairs.csv, seen from the team.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Against {
    /// Games played against the rung.
    pub games: u64,
    /// The team's points per game (%).
    pub score_pct: f64,
    /// Lower end of the interval of its Elo difference over the rung; `None` when unbounded.
    pub ci_low: Option<f64>,
}

impl Against {
    /// Whether this result beats the rung, by the rule of the module.
    pub fn beats(&self) -> bool {
        self.games > 0 && self.score_pct > 50.0 && self.ci_low.is_some_and(|low| low > 0.0)
    }
}

/// The level's name when no rung is beaten, as `grades` spells it.
pub const NONE: &str = "none";

/// The highest rung of `ladder` (weakest first) that `results` (by rung name) beat, or `None`.
pub fn level<'a>(ladder: &'a [String], results: &BTreeMap<String, Against>) -> Option<&'a str> {
    ladder
        .iter()
        .rev()
        .find(|rung| results.get(*rung).is_some_and(Against::beats))
        .map(String::as_str)
}

/// The grade of `level` in `grades` (rung name or [`NONE`] → grade), if the config maps it.
pub fn grade<'a>(grades: &'a BTreeMap<String, String>, level: Option<&str>) -> Option<&'a str> {
    grades.get(level.unwrap_or(NONE)).map(String::as_str)
}

/// Why `grades` cannot be used with `ladder`: a key that is neither a rung nor [`NONE`].
///
/// # Errors
/// The message names the key and the rungs.
pub fn check_grades(ladder: &[String], grades: &BTreeMap<String, String>) -> Result<(), String> {
    for key in grades.keys() {
        if key != NONE && !ladder.contains(key) {
            return Err(format!(
                "grades: `{key}` is not a rung of the ladder ({}) nor `{NONE}`",
                ladder.join(", ")
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ladder() -> Vec<String> {
        ["random", "greedy", "alphabeta"].map(String::from).to_vec()
    }

    fn against(score_pct: f64, ci_low: Option<f64>) -> Against {
        Against {
            games: 10,
            score_pct,
            ci_low,
        }
    }

    #[test]
    fn beating_needs_a_score_above_half_and_an_interval_above_zero() {
        assert!(against(70.0, Some(12.0)).beats());
        assert!(against(100.0, Some(150.0)).beats(), "upper end open");
        assert!(
            !against(70.0, Some(-3.0)).beats(),
            "interval reaches below 0"
        );
        assert!(!against(50.0, Some(0.5)).beats(), "a tie is no win");
        assert!(!against(0.0, None).beats());
        assert!(!against(60.0, None).beats(), "unbounded lower end");
        let none = Against {
            games: 0,
            ..against(100.0, Some(1.0))
        };
        assert!(!none.beats(), "no game, no win");
    }

    #[test]
    fn the_level_is_the_highest_rung_beaten() {
        let ladder = ladder();
        let mut results = BTreeMap::new();
        assert_eq!(level(&ladder, &results), None);
        results.insert("random".to_owned(), against(90.0, Some(80.0)));
        results.insert("greedy".to_owned(), against(55.0, Some(-20.0)));
        results.insert("alphabeta".to_owned(), against(10.0, None));
        assert_eq!(level(&ladder, &results), Some("random"));
        results.insert("alphabeta".to_owned(), against(65.0, Some(4.0)));
        assert_eq!(
            level(&ladder, &results),
            Some("alphabeta"),
            "a failed rung below"
        );
    }

    #[test]
    fn grades_map_levels_and_name_only_rungs() {
        let ladder = ladder();
        let grades: BTreeMap<String, String> = [("alphabeta", "A"), ("random", "E"), ("none", "F")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .into();
        assert_eq!(grade(&grades, Some("alphabeta")), Some("A"));
        assert_eq!(grade(&grades, None), Some("F"));
        assert_eq!(grade(&grades, Some("greedy")), None, "unmapped level");
        assert!(check_grades(&ladder, &grades).is_ok());
        let bad: BTreeMap<String, String> = [("mcts".to_owned(), "B".to_owned())].into();
        assert!(check_grades(&ladder, &bad).unwrap_err().contains("`mcts`"));
    }
}
