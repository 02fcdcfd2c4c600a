//! The `directions` check (`--directions`): a course library's games against random moves
//! under each `dir.h` convention, to tell a wrong `directions:` from a buggy player.

use super::*;

use crate::player_library::Directions;

/// Sides of the games played on each board per convention (true: the library moves first).
const SIDES: [bool; 4] = [true, false, true, false];

/// How a library did under one convention.
enum Trial {
    /// Every move legal: the engine's plies.
    Clean(usize),
    /// An illegal move: the first, with the rule it breaks.
    Illegal(String),
    /// Something else went wrong (a crash, a hang, no start).
    Failed(String),
}

/// The `directions` check of `target`: `n/a` unless it is a library engine.
pub(super) fn check(target: &Target, settings: &Settings) -> Check {
    let (verdict, detail) = match configured(target) {
        None => (
            Verdict::NotApplicable,
            "n/a: not a `library:` engine (directions are a course library's dir.h)".into(),
        ),
        Some(configured) => judge(
            configured,
            trial(target, settings, Directions::Clockwise),
            trial(target, settings, Directions::West3),
        ),
    };
    Check {
        name: "directions".into(),
        verdict,
        detail,
        transcript: Vec::new(),
    }
}

/// The convention on a library engine's adapter command line (`--directions X`).
fn configured(target: &Target) -> Option<Directions> {
    if !target.from_start {
        return None;
    }
    let args = &target.launch.args;
    let at = args.iter().position(|a| a == "--directions")?;
    args.get(at + 1)?.parse().ok()
}

/// Plays [`SIDES`] on every Amazons board of `settings` with the adapter told `directions`.
fn trial(target: &Target, settings: &Settings, directions: Directions) -> Trial {
    let mut target = target.clone();
    if let Some(at) = target.launch.args.iter().position(|a| a == "--directions") {
        if let Some(value) = target.launch.args.get_mut(at + 1) {
            *value = directions.name().into();
        }
    }
    // Every game in a fresh process: a library's global state must not carry over.
    target.fresh_per_game = true;
    let battery = Battery {
        target: &target,
        settings: settings.clone(),
        engine: None,
        identity: Identity::default(),
        games: vec![GameKind::Amazons],
        checks: Vec::new(),
        received: Vec::new(),
        dead: None,
    };
    let mut engine = match battery.start() {
        Ok((engine, _)) => engine,
        Err((message, _)) => return Trial::Failed(message),
    };
    let own = if settings.quick { 12 } else { usize::MAX };
    let mut plies = 0;
    for board in settings.boards(GameKind::Amazons) {
        match battery.play_from_start(&mut engine, &board, &SIDES, own) {
            Ok((played, _)) => plies += played,
            Err(e) if e.starts_with("illegal move") => {
                return Trial::Illegal(format!("on {}: {e}", board.name()));
            }
            Err(e) => return Trial::Failed(format!("on {}: {e}", board.name())),
        }
    }
    Trial::Clean(plies)
}

/// The verdict from the trials under clockwise (`under_a`) and west3 (`under_b`), against
/// the `configured` convention.
fn judge(configured: Directions, under_a: Trial, under_b: Trial) -> Outcome {
    let (a, b) = (Directions::Clockwise, Directions::West3);
    let say = |d: Directions, t: &Trial| match t {
        Trial::Clean(plies) => format!("{d}: {plies} legal moves"),
        Trial::Illegal(e) | Trial::Failed(e) => format!("{d}: {e}"),
    };
    let both = format!("{}; {}", say(a, &under_a), say(b, &under_b));
    match (&under_a, &under_b) {
        (Trial::Clean(_), Trial::Illegal(_)) | (Trial::Illegal(_), Trial::Clean(_)) => {
            let right = if matches!(under_a, Trial::Clean(_)) {
                a
            } else {
                b
            };
            if right == configured {
                pass(format!(
                    "only {right} plays legally, as the config says ({both})"
                ))
            } else {
                fail(format!(
                    "only {right} plays legally, and the config says {configured}: set \
                     `directions: {right}` ({both})"
                ))
            }
        }
        (Trial::Illegal(_), Trial::Illegal(_)) => fail(format!(
            "illegal moves under both conventions: the player's own bug, not its header ({both})"
        )),
        (Trial::Clean(_), Trial::Clean(_)) => (
            Verdict::Warn,
            format!(
                "legal under both conventions: these games do not tell them apart (the player \
                 may not use the graph's direction codes) ({both})"
            ),
        ),
        _ => fail(format!("could not play under both conventions ({both})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verdict_names_the_convention_that_plays_legally() {
        let clean = || Trial::Clean(40);
        let illegal = || Trial::Illegal("illegal move `1-2-3`".into());
        let (cw, w3) = (Directions::Clockwise, Directions::West3);
        assert_eq!(judge(cw, clean(), illegal()).0, Verdict::Pass);
        let wrong = judge(cw, illegal(), clean());
        assert_eq!(wrong.0, Verdict::Fail);
        assert!(wrong.1.contains("set `directions: west3`"), "{}", wrong.1);
        assert_eq!(judge(w3, illegal(), clean()).0, Verdict::Pass);
        let bug = judge(cw, illegal(), illegal());
        assert!(bug.1.contains("the player's own bug"), "{}", bug.1);
        assert_eq!(judge(cw, clean(), clean()).0, Verdict::Warn);
    }
}
