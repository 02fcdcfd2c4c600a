//! The `sandbox` check, last: a fresh process under the engine's sandbox (`sandbox: on` when
//! the config gives it none) plays a few moves of its first board, unless an earlier check
//! failed; when it cannot, the paths the kernel refused, from its stderr, say what to add
//! under `sandbox.read`. That fails the check where the config gives the engine a sandbox, and
//! warns otherwise.

use super::*;

/// Moves the sandboxed engine plays from the start.
const SANDBOX_PLIES: usize = 4;

impl Battery<'_> {
    /// Runs the `sandbox` check.
    pub(super) fn sandboxed(&mut self) {
        let origin = Instant::now();
        let (outcome, lines) = self.sandbox_outcome();
        self.push("sandbox", outcome, lines, origin);
    }

    fn sandbox_outcome(&self) -> (Outcome, Vec<TranscriptLine>) {
        // It asks whether the engine *still* plays: meaningless for one that fails unconfined.
        if self.checks.iter().any(|c| c.verdict == Verdict::Fail) {
            return (
                (
                    Verdict::Skipped,
                    "the engine fails checks unconfined; fix those first".into(),
                ),
                Vec::new(),
            );
        }
        let parts = self.target.launch.sandbox.clone().unwrap_or_default();
        let support = crate::sandbox::probe();
        if let Some(why) = crate::sandbox::refusal(&self.target.name, &parts, support) {
            return ((Verdict::Skipped, why), Vec::new());
        }
        let Some(game) = self.games.first().copied() else {
            return ((Verdict::Skipped, "no game to play".into()), Vec::new());
        };
        let Some(board) = self.settings.boards(game).into_iter().next() else {
            return ((Verdict::Skipped, "no board to play".into()), Vec::new());
        };
        let mut launch = self.target.launch.clone();
        launch.sandbox = Some(parts.clone());
        let mut engine = match Engine::spawn(&launch) {
            Ok(engine) => engine,
            Err(e) => return (fail(format!("under the sandbox: {e}")), Vec::new()),
        };
        engine.record_transcript();
        let played = engine
            .handshake(self.settings.handshake)
            .map_err(|e| describe(&mut engine, &e))
            .and_then(|_| {
                for (name, value) in &self.target.options {
                    let line = Command::SetOption {
                        name: name.clone(),
                        value: value.clone(),
                    };
                    engine.send(&line).map_err(|e| e.to_string())?;
                }
                self.play_from_start(&mut engine, &board, &[true], SANDBOX_PLIES)
            });
        let outcome = match played {
            Ok((plies, _)) => pass(format!("plays under {} ({plies} moves)", parts.describe())),
            Err(e) => {
                let refused: Vec<String> = engine
                    .stderr_lines(40)
                    .into_iter()
                    .filter(|l| {
                        let l = l.to_lowercase();
                        l.contains("denied") || l.contains("not permitted")
                    })
                    .take(3)
                    .collect();
                let hint = if refused.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; refused by the sandbox: `{}` (add what it needs under `sandbox.read`, or read it from the engine's own folder)",
                        refused.join(" | ")
                    )
                };
                let detail = format!("does not play under the sandbox: {e}{hint}");
                // A failure only where the config asks for the sandbox; a warning otherwise.
                if self.target.launch.sandbox.is_some() {
                    fail(detail)
                } else {
                    (Verdict::Warn, detail)
                }
            }
        };
        (outcome, engine.take_transcript())
    }
}
