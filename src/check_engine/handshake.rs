//! The `handshake` and `games` checks: `ugi` … `ugiok`, the games and options declared.

use super::*;

/// What the handshake declared, sorted against what arena knows and what is to be checked.
struct Declared {
    /// `option` lines that do not parse.
    options_bad: Vec<String>,
    /// `UGI_Variant`'s values (its `var`s and default).
    declared: Vec<String>,
    /// Declared games that arena knows.
    arena_knows: Vec<GameKind>,
    /// Of those, the games to check (`--games`, `--boards`, the config's `games`).
    known: Vec<GameKind>,
    /// Declared games that arena does not know.
    unknown: Vec<String>,
    /// Config options the engine does not declare.
    undeclared: Vec<String>,
    /// Options other than `UGI_Variant` and `Seed`.
    extra: Vec<String>,
}

impl Declared {
    /// Sorts the handshake's `lines` and `identity` for `target`.
    fn read(identity: &Identity, lines: &[TranscriptLine], target: &Target) -> Declared {
        let options_bad = lines
            .iter()
            .filter(|l| !l.sent && l.text.split_whitespace().next() == Some("option"))
            .filter(|l| Reply::parse(&l.text).is_err())
            .map(|l| l.text.clone())
            .collect();
        let declared: Vec<String> = identity
            .option(protocol::VARIANT_OPTION)
            .map(|o| {
                let mut v = o.vars.clone();
                v.extend(o.default.clone());
                v
            })
            .unwrap_or_default();
        let arena_knows: Vec<GameKind> = GameKind::ALL
            .into_iter()
            .filter(|g| declared.iter().any(|d| d == g.name()))
            .collect();
        let known = arena_knows
            .iter()
            .copied()
            .filter(|g| target.games.as_ref().is_none_or(|w| w.contains(g)))
            .collect();
        let unknown = declared
            .iter()
            .filter(|d| d.parse::<GameKind>().is_err())
            .cloned()
            .collect();
        let undeclared = target
            .options
            .iter()
            .filter(|(name, _)| identity.option(name).is_none())
            .map(|(name, _)| name.clone())
            .collect();
        let extra = identity
            .options
            .iter()
            .map(|o| o.name.clone())
            .filter(|n| {
                !n.eq_ignore_ascii_case(protocol::VARIANT_OPTION)
                    && !n.eq_ignore_ascii_case(protocol::SEED_OPTION)
            })
            .collect();
        Declared {
            options_bad,
            declared,
            arena_knows,
            known,
            unknown,
            undeclared,
            extra,
        }
    }

    /// The `handshake` check's verdict: a fail for bad option lines or no game to check, a
    /// warning for a missing `id name`, unknown games or undeclared config options.
    fn verdict(&self, name: Option<&str>) -> Outcome {
        let games: Vec<&str> = self.known.iter().map(|g| g.name()).collect();
        let mut detail = format!(
            "`ugiok` received; id name {}; games {}",
            name.unwrap_or("(none)"),
            if games.is_empty() {
                "(none)".into()
            } else {
                games.join(", ")
            }
        );
        if !self.extra.is_empty() {
            let _ = write!(detail, "; other options: {}", self.extra.join(", "));
        }
        if !self.options_bad.is_empty() {
            fail(format!(
                "option lines that do not parse: {}",
                self.options_bad.join(" | ")
            ))
        } else if self.known.is_empty() && !self.arena_knows.is_empty() {
            let names: Vec<&str> = self.arena_knows.iter().map(|g| g.name()).collect();
            fail(format!(
                "declares {}, none of the games to check (--games, --boards or the config's `games`)",
                names.join(", ")
            ))
        } else if self.known.is_empty() {
            fail(format!(
                "option UGI_Variant declares no game arena knows (declared: {}; known: seven_colors, amazons, awale)",
                if self.declared.is_empty() {
                    "nothing".into()
                } else {
                    self.declared.join(", ")
                }
            ))
        } else if name.is_none() {
            (Verdict::Warn, format!("no `id name`; {detail}"))
        } else if !self.unknown.is_empty() || !self.undeclared.is_empty() {
            if !self.unknown.is_empty() {
                let _ = write!(
                    detail,
                    "; unknown games declared: {}",
                    self.unknown.join(", ")
                );
            }
            if !self.undeclared.is_empty() {
                let _ = write!(
                    detail,
                    "; config options the engine does not declare: {}",
                    self.undeclared.join(", ")
                );
            }
            (Verdict::Warn, detail)
        } else {
            pass(detail)
        }
    }
}

impl Battery<'_> {
    /// The `handshake` check, then the `games` check when games to check were named.
    pub(super) fn handshake(&mut self) {
        let origin = Instant::now();
        let (engine, identity) = match self.start() {
            Ok(started) => started,
            Err((detail, lines)) => {
                self.push("handshake", fail(detail), lines, origin);
                self.dead = Some("handshake".into());
                return;
            }
        };
        let mut engine = engine;
        let lines = engine.take_transcript();
        let found = Declared::read(&identity, &lines, self.target);
        let outcome = found.verdict(identity.name.as_deref());
        self.games = found.known.clone();
        self.identity = identity;
        let failed = outcome.0 == Verdict::Fail;
        self.push("handshake", outcome, lines, origin);
        if failed {
            self.dead = Some("handshake".into());
        } else {
            self.engine = Some(engine);
        }
        self.games_check(&found.arena_knows);
    }

    /// Games asked for (boards, `--games`, the config) that the engine does not declare: it
    /// would not play them, which a teacher wants to see, not guess.
    fn games_check(&mut self, arena_knows: &[GameKind]) {
        let Some(wanted) = &self.target.games else {
            return;
        };
        let missing: Vec<&str> = wanted
            .iter()
            .filter(|g| !arena_knows.contains(g))
            .map(|g| g.name())
            .collect();
        let outcome = if missing.is_empty() {
            pass("declares every game to check")
        } else {
            (
                Verdict::Warn,
                format!(
                    "does not declare {}: it would not play those boards (UGI_Variant)",
                    missing.join(", ")
                ),
            )
        };
        self.push("games", outcome, Vec::new(), Instant::now());
    }
}
