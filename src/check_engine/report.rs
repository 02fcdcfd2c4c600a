//! The battery's report: text for the terminal, `check-engines.csv`, and the summary table of
//! a run over several engines (JSON is serde's).

use super::*;

/// The report of one engine as text: one line per check, the transcript under failures.
pub fn render(report: &EngineReport) -> String {
    let mut out = format!("check-engine: {}\n", report.engine);
    let width = report
        .checks
        .iter()
        .map(|c| c.name.chars().count())
        .max()
        .unwrap_or(0);
    for check in &report.checks {
        let verdict = match check.verdict {
            Verdict::Fail => "FAIL",
            v => v.name(),
        };
        let _ = writeln!(
            out,
            "  {verdict:<7}  {:<width$}  {}",
            check.name, check.detail
        );
        for line in &check.transcript {
            let _ = writeln!(out, "             {line}");
        }
    }
    // `n/a` only where it occurs (library engines), so other summaries read as before.
    let not_applicable = match report.count(Verdict::NotApplicable) {
        0 => String::new(),
        n => format!(", {n} n/a"),
    };
    let _ = writeln!(
        out,
        "{}: {} pass, {} warn, {} fail, {} skipped{not_applicable} in {:.1} s",
        report.engine,
        report.count(Verdict::Pass),
        report.count(Verdict::Warn),
        report.count(Verdict::Fail),
        report.count(Verdict::Skipped),
        report.seconds
    );
    out
}

/// One row of `check-engines.csv`.
#[derive(Serialize)]
struct Row<'a> {
    engine: &'a str,
    check: &'a str,
    verdict: &'static str,
    detail: String,
}

/// Writes `check-engines.csv` (engine, check, verdict, detail; the failure's transcript is
/// appended to its detail, lines joined by ` | `) into `dir`, creating it.
///
/// # Errors
/// A message naming the file when it cannot be written.
pub fn write_csv(dir: &Path, reports: &[EngineReport]) -> Result<PathBuf, String> {
    let path = dir.join("check-engines.csv");
    let write = || -> Result<(), Box<dyn std::error::Error>> {
        std::fs::create_dir_all(dir)?;
        let mut csv = csv::Writer::from_path(&path)?;
        for report in reports {
            for check in &report.checks {
                let mut detail = check.detail.clone();
                if !check.transcript.is_empty() {
                    let _ = write!(detail, " | {}", check.transcript.join(" | "));
                }
                csv.serialize(Row {
                    engine: &report.engine,
                    check: &check.name,
                    verdict: check.verdict.name(),
                    detail,
                })?;
            }
        }
        csv.flush()?;
        Ok(())
    };
    write().map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

/// The summary table of a folder run: one row per engine with its counts and failed checks.
pub fn summary(reports: &[EngineReport]) -> String {
    let width = reports
        .iter()
        .map(|r| r.engine.chars().count())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = format!(
        "{:<width$}  pass  warn  fail  skip  failed checks\n",
        "engine"
    );
    for r in reports {
        let failed: Vec<&str> = r
            .checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .map(|c| c.name.as_str())
            .collect();
        let _ = writeln!(
            out,
            "{:<width$}  {:>4}  {:>4}  {:>4}  {:>4}  {}",
            r.engine,
            r.count(Verdict::Pass),
            r.count(Verdict::Warn),
            r.count(Verdict::Fail),
            r.count(Verdict::Skipped) + r.count(Verdict::NotApplicable),
            if failed.is_empty() {
                "-".into()
            } else {
                failed.join(", ")
            }
        );
    }
    out
}
