//! The `handshake` and `games` checks: `ugi` … `ugiok`, the games and options declared.

use super::*;

impl Battery<'_> {
    pub(super) fn handshake(&mut self) {
        let origin = Instant::now();
        match self.start() {
            Err((detail, lines)) => {
                self.push("handshake", fail(detail), lines, origin);
                self.dead = Some("handshake".into());
            }
            Ok((mut engine, identity)) => {
                let lines = engine.take_transcript();
                let options_bad: Vec<String> = lines
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
                let known: Vec<GameKind> = arena_knows
                    .iter()
                    .copied()
                    .filter(|g| self.target.games.as_ref().is_none_or(|w| w.contains(g)))
                    .collect();
                let unknown: Vec<&String> = declared
                    .iter()
                    .filter(|d| d.parse::<GameKind>().is_err())
                    .collect();
                let undeclared: Vec<&str> = self
                    .target
                    .options
                    .iter()
                    .filter(|(name, _)| identity.option(name).is_none())
                    .map(|(name, _)| name.as_str())
                    .collect();
                let extra: Vec<String> = identity
                    .options
                    .iter()
                    .map(|o| o.name.clone())
                    .filter(|n| {
                        !n.eq_ignore_ascii_case(protocol::VARIANT_OPTION)
                            && !n.eq_ignore_ascii_case(protocol::SEED_OPTION)
                    })
                    .collect();
                let name = identity.name.clone();
                self.games = known.clone();
                self.identity = identity;
                let games: Vec<&str> = known.iter().map(|g| g.name()).collect();
                let mut detail = format!(
                    "`ugiok` received; id name {}; games {}",
                    name.as_deref().unwrap_or("(none)"),
                    if games.is_empty() {
                        "(none)".into()
                    } else {
                        games.join(", ")
                    }
                );
                if !extra.is_empty() {
                    let _ = write!(detail, "; other options: {}", extra.join(", "));
                }
                let outcome = if !options_bad.is_empty() {
                    fail(format!(
                        "option lines that do not parse: {}",
                        options_bad.join(" | ")
                    ))
                } else if known.is_empty() && !arena_knows.is_empty() {
                    let names: Vec<&str> = arena_knows.iter().map(|g| g.name()).collect();
                    fail(format!(
                        "declares {}, none of the games to check (--games, --boards or the config's `games`)",
                        names.join(", ")
                    ))
                } else if known.is_empty() {
                    fail(format!(
                        "option UGI_Variant declares no game arena knows (declared: {}; known: seven_colors, amazons, awale)",
                        if declared.is_empty() {
                            "nothing".into()
                        } else {
                            declared.join(", ")
                        }
                    ))
                } else if name.is_none() {
                    (Verdict::Warn, format!("no `id name`; {detail}"))
                } else if !unknown.is_empty() || !undeclared.is_empty() {
                    let mut warn = detail.clone();
                    if !unknown.is_empty() {
                        let list: Vec<&str> = unknown.iter().map(|s| s.as_str()).collect();
                        let _ = write!(warn, "; unknown games declared: {}", list.join(", "));
                    }
                    if !undeclared.is_empty() {
                        let _ = write!(
                            warn,
                            "; config options the engine does not declare: {}",
                            undeclared.join(", ")
                        );
                    }
                    (Verdict::Warn, warn)
                } else {
                    pass(detail)
                };
                let failed = outcome.0 == Verdict::Fail;
                self.push("handshake", outcome, lines, origin);
                if !failed {
                    self.engine = Some(engine);
                } else {
                    self.dead = Some("handshake".into());
                }
                // Games asked for (boards, `--games`, the config) that the engine does not
                // declare: it would not play them, which a teacher wants to see, not guess.
                if let Some(wanted) = &self.target.games {
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
        }
    }
}
