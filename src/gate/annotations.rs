//! GitHub Actions annotations (`::error title=…::…`) for a gate report, written when
//! `GITHUB_ACTIONS=true`. The escaping is the Actions toolkit's (`@actions/core`
//! `command.ts`: `%`, CR and LF in the message; also `:` and `,` in properties).

use super::check::Outcome;
use super::compare::Verdict;
use super::{CheckReport, CompareReport};

/// Whether the process runs inside a GitHub Actions job.
pub fn enabled() -> bool {
    std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true")
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(level: &str, title: &str, message: &str) -> String {
    format!(
        "::{level} title={}::{}",
        escape_property(title),
        escape_data(message)
    )
}

/// One annotation per failed or unevaluable rule, per error and per warning.
pub fn check(r: &CheckReport) -> Vec<String> {
    let mut out = Vec::new();
    for t in &r.tests {
        for x in &t.rules {
            let level = match x.outcome {
                Outcome::Pass => continue,
                Outcome::Fail => "error",
                Outcome::CannotEvaluate => "warning",
            };
            out.push(command(
                level,
                &format!("frameprobe check: {}", t.label()),
                &format!(
                    "{}: measured {} (limit {} {}) over {}",
                    crate::report::gate::rule_text(x),
                    x.value.map_or("n/a".into(), |v| format!("{v:.2}")),
                    x.limit,
                    x.unit,
                    x.denominator
                ),
            ));
        }
    }
    out.extend(
        r.errors
            .iter()
            .map(|e| command("error", "frameprobe check", e)),
    );
    out.extend(
        r.warnings
            .iter()
            .map(|w| command("warning", "frameprobe check", w)),
    );
    out
}

/// One annotation per regression and per error.
pub fn compare(r: &CompareReport) -> Vec<String> {
    let mut out = Vec::new();
    for t in &r.tests {
        for c in t
            .metrics
            .iter()
            .filter(|c| c.verdict == Verdict::Regression)
        {
            out.push(command(
                "error",
                &format!("frameprobe compare: {}", t.test),
                &format!(
                    "{} regressed: {} -> {} {}",
                    c.metric,
                    c.baseline.map_or("n/a".into(), |v| format!("{v:.2}")),
                    c.candidate.map_or("n/a".into(), |v| format!("{v:.2}")),
                    c.unit
                ),
            ));
        }
    }
    out.extend(
        r.errors
            .iter()
            .map(|e| command("error", "frameprobe compare", e)),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_actions_toolkit() {
        assert_eq!(
            command("error", "a: b, c", "50% of\nframes"),
            "::error title=a%3A b%2C c::50%25 of%0Aframes"
        );
    }
}
