//! Renderings of check/compare reports: a table for people, Markdown for pull-request
//! comments and GitHub's step summary, JUnit XML (one test case per rule or metric).

use std::fmt::Write;

use crate::gate::check::{Bound, Outcome, RuleResult};
use crate::gate::compare::{Comparison, Verdict};
use crate::gate::{BenchmarkInfo, CheckReport, CompareReport, MacrobenchmarkMetrics, TestCheck};
use crate::report::grid;

fn num(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{x:.2}"))
}

pub fn rule_text(r: &RuleResult) -> String {
    let op = match r.bound {
        Bound::Max => "<=",
        Bound::Min => ">=",
    };
    format!("{} {op} {} {}", r.metric, r.limit, r.unit)
}

fn outcome_text(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "PASS",
        Outcome::Fail => "FAIL",
        Outcome::CannotEvaluate => "CANNOT EVALUATE",
    }
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => "REGRESSION",
        Verdict::Improvement => "improvement",
        Verdict::NoSignificantChange => "no significant change",
        Verdict::Informational => "(info)",
        Verdict::CannotEvaluate => "cannot evaluate",
    }
}

fn per_iteration(r: &RuleResult) -> String {
    r.per_iteration
        .iter()
        .map(|v| num(*v))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Macrobenchmark's metrics in one line (check and compare, text and HTML).
pub(crate) fn macro_text(m: &MacrobenchmarkMetrics) -> String {
    let p = |x: &Option<crate::gate::Pcts>| {
        x.as_ref().map_or("n/a".into(), |p| {
            format!(
                "P50 {:.2} P90 {:.2} P95 {:.2} P99 {:.2}",
                p.p50, p.p90, p.p95, p.p99
            )
        })
    };
    format!(
        "frameDurationCpuMs {}; frameOverrunMs {}; frameCount median {} (min {}, max {})",
        p(&m.frame_duration_cpu_ms),
        p(&m.frame_overrun_ms),
        m.frame_count.median,
        m.frame_count.minimum,
        m.frame_count.maximum
    )
}

/// The test's heading: its benchmark name, iterations and the package measured.
fn test_heading(t: &TestCheck) -> String {
    let mut packages: Vec<&str> = t.iterations.iter().map(|i| i.package.as_str()).collect();
    packages.sort();
    packages.dedup();
    format!(
        "{} — {} iterations of {}",
        t.label(),
        t.iterations.len(),
        packages.join(", ")
    )
}

/// The device and run a benchmarkData.json describes, in one line.
fn device_line(b: &BenchmarkInfo) -> String {
    let c = &b.context;
    let v = |x: &Option<String>| x.clone().unwrap_or_else(|| "?".into());
    format!(
        "{} {} (API {}), fingerprint {}; CPU clocks {}; compilation {}; thermal throttling sleep {} s",
        v(&c.build.brand),
        v(&c.build.model),
        c.build.version.sdk.map_or("?".into(), |s| s.to_string()),
        v(&c.build.fingerprint),
        match c.cpu_locked {
            Some(true) => "locked",
            Some(false) => "not locked",
            None => "unknown",
        },
        v(&c.compilation_mode),
        b.thermal_throttle_sleep_seconds.unwrap_or(0)
    )
}

const RULE_HEAD: [&str; 5] = ["rule", "measured", "over", "per iteration", "result"];

fn rule_row(x: &RuleResult) -> [String; 5] {
    [
        rule_text(x),
        num(x.value),
        x.denominator.clone(),
        per_iteration(x),
        outcome_text(x.outcome).into(),
    ]
}

/// benchmarkData.json's numbers beside frameprobe's: the pooled percentiles, and only the
/// per-iteration rows that differ (all of them match on a faithful run).
fn repro_rows(b: &BenchmarkInfo) -> (Vec<[String; 4]>, usize) {
    let mut rows = Vec::new();
    let mut matching_iteration_rows = 0;
    for r in &b.reproduction {
        if r.iteration.is_some() && r.matches {
            matching_iteration_rows += 1;
            continue;
        }
        let what = match r.iteration {
            Some(i) => format!("{} (iteration {i})", r.metric),
            None => r.metric.clone(),
        };
        let diff = match r.difference {
            Some(d) if r.metric.ends_with(" runs") => format!("max {d:.6} ms per frame"),
            Some(d) => format!("{d:+.6}"),
            None => "n/a".into(),
        };
        let mark = if r.matches { "" } else { " MISMATCH" };
        rows.push([
            what,
            r.json.map_or("n/a".into(), |v| format!("{v:.6}")),
            r.frameprobe.map_or("n/a".into(), |v| format!("{v:.6}")),
            format!("{diff}{mark}"),
        ]);
    }
    (rows, matching_iteration_rows)
}

const REPRO_HEAD: [&str; 4] = [
    "Macrobenchmark metric",
    "benchmarkData.json",
    "frameprobe",
    "difference",
];

pub fn check_table(r: &CheckReport) -> String {
    let mut out = String::new();
    if let Some(range) = &r.range {
        let _ = writeln!(out, "range: {range}\n");
    }
    if !r.interactions.is_empty() {
        let _ = writeln!(
            out,
            "interactions: only frames of {}\n",
            r.interactions.join(", ")
        );
    }
    for t in &r.tests {
        let _ = writeln!(out, "{}", test_heading(t));
        if let Some(b) = &t.benchmark {
            let _ = writeln!(out, "device: {}", device_line(b));
        }
        let mut rows = vec![RULE_HEAD.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        rows.extend(t.rules.iter().map(|x| rule_row(x).to_vec()));
        let _ = writeln!(out, "{}", grid(rows));
        let _ = writeln!(out, "Macrobenchmark: {}", macro_text(&t.macrobenchmark));
        if let Some(b) = &t.benchmark {
            let (rr, same) = repro_rows(b);
            let mut rows = vec![REPRO_HEAD.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
            rows.extend(rr.into_iter().map(|r| r.to_vec()));
            let _ = writeln!(
                out,
                "reproduced from the traces ({same} per-iteration rows match and are not shown):\n{}",
                grid(rows)
            );
        }
        let _ = writeln!(
            out,
            "trust: {}\n",
            crate::report::verdicts::trust_line(&t.trust)
        );
    }
    let _ = writeln!(out, "metric version: {}", r.metric_version);
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for e in &r.errors {
        let _ = writeln!(out, "error: {e}");
    }
    let _ = writeln!(
        out,
        "result: {} (exit {})",
        r.outcome.to_uppercase(),
        r.exit_code
    );
    out
}

/// Text for Markdown outside code spans: table pipes escaped, `<`/`>` as entities (they
/// are decoded there).
pub fn md(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A code span holding `s` verbatim: entities are not decoded inside code spans, so none
/// are written; the fence is longer than any backtick run in `s` (CommonMark's rule), and a
/// table pipe is escaped, which GitHub's tables undo inside code spans too.
pub fn md_code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let body = s.replace('|', "\\|").replace(['\n', '\r'], " ");
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{body}{pad}{fence}")
}

/// The heading of a gate report: an icon for pass / fail / could not evaluate.
fn md_title(command: &str, exit_code: u8, outcome: &str, process: &str) -> String {
    let icon = match exit_code {
        0 => "✅",
        1 => "❌",
        _ => "⚠️",
    };
    format!(
        "## {icon} frameprobe {command}: {} for {}\n\n",
        outcome.to_uppercase(),
        md_code(process)
    )
}

pub fn check_markdown(r: &CheckReport) -> String {
    let mut out = md_title("check", r.exit_code, r.outcome, &r.process);
    if let Some(range) = &r.range {
        let _ = writeln!(out, "Range: {}\n", md(range));
    }
    if !r.interactions.is_empty() {
        let _ = writeln!(
            out,
            "Interactions: only frames of {}\n",
            md(&r.interactions.join(", "))
        );
    }
    for t in &r.tests {
        let _ = writeln!(out, "### {}\n", md(&test_heading(t)));
        if let Some(b) = &t.benchmark {
            let _ = writeln!(out, "Device: {}\n", md(&device_line(b)));
        }
        let _ = writeln!(
            out,
            "| {} |\n|{}|",
            RULE_HEAD.join(" | "),
            vec!["---"; RULE_HEAD.len()].join("|")
        );
        for x in &t.rules {
            let [rule, value, over, per_it, result] = rule_row(x);
            let result = if x.outcome == Outcome::Pass {
                result
            } else {
                format!("**{result}**")
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                md_code(&rule),
                md(&value),
                md(&over),
                md(&per_it),
                result
            );
        }
        let _ = writeln!(
            out,
            "\nMacrobenchmark: {}\n",
            md(&macro_text(&t.macrobenchmark))
        );
        if let Some(b) = &t.benchmark {
            let (rows, same) = repro_rows(b);
            let _ = writeln!(
                out,
                "Reproduced from the traces ({same} per-iteration rows match and are not shown):\n\n| {} |\n|{}|",
                REPRO_HEAD.join(" | "),
                vec!["---"; REPRO_HEAD.len()].join("|")
            );
            for [m, j, o, d] in rows {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    md_code(&m),
                    md(&j),
                    md(&o),
                    md(&d)
                );
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "Trust: {}\n",
            md(&crate::report::verdicts::trust_line(&t.trust))
        );
    }
    let _ = writeln!(out, "Metric version: {}\n", r.metric_version);
    if !r.warnings.is_empty() {
        let _ = writeln!(out, "**Warnings:**\n");
        for w in &r.warnings {
            let _ = writeln!(out, "- {}", md(w));
        }
        out.push('\n');
    }
    if !r.errors.is_empty() {
        let _ = writeln!(out, "**Could not evaluate:**\n");
        for e in &r.errors {
            let _ = writeln!(out, "- {}", md(e));
        }
    }
    out
}

fn cmp_row(c: &Comparison) -> Vec<String> {
    vec![
        format!("{} ({})", c.metric, c.unit),
        num(c.baseline),
        num(c.candidate),
        match (c.difference, c.relative_pct) {
            (Some(d), Some(p)) => format!("{d:+.2} ({p:+.1}%)"),
            (Some(d), None) => format!("{d:+.2}"),
            _ => "n/a".into(),
        },
        match (c.ci_low, c.ci_high) {
            (Some(l), Some(h)) => format!("[{l:+.2}, {h:+.2}]"),
            _ => "n/a".into(),
        },
        verdict_text(c.verdict).into(),
    ]
}

const CMP_HEAD: [&str; 6] = [
    "metric",
    "baseline",
    "candidate",
    "change",
    "95% CI of change",
    "verdict",
];

pub fn compare_table(r: &CompareReport) -> String {
    let mut out = String::new();
    for t in &r.tests {
        let _ = writeln!(
            out,
            "{} — baseline {} vs candidate {} iterations of {}",
            t.test,
            t.baseline.len(),
            t.candidate.len(),
            r.process
        );
        let mut rows = vec![CMP_HEAD.iter().map(|s| s.to_string()).collect::<Vec<_>>()];
        rows.extend(t.metrics.iter().map(cmp_row));
        let _ = writeln!(out, "{}", grid(rows));
        let _ = writeln!(
            out,
            "baseline  Macrobenchmark: {}",
            macro_text(&t.baseline_macrobenchmark)
        );
        let _ = writeln!(
            out,
            "candidate Macrobenchmark: {}\n",
            macro_text(&t.candidate_macrobenchmark)
        );
    }
    for e in &r.errors {
        let _ = writeln!(out, "error: {e}");
    }
    let _ = writeln!(out, "metric version: {}", r.metric_version);
    let _ = writeln!(
        out,
        "result: {} (exit {})",
        r.outcome.to_uppercase(),
        r.exit_code
    );
    out
}

pub fn compare_markdown(r: &CompareReport) -> String {
    let mut out = md_title("compare", r.exit_code, r.outcome, &r.process);
    for t in &r.tests {
        let _ = writeln!(
            out,
            "### {} (baseline {} vs candidate {} iterations)\n",
            md(&t.test),
            t.baseline.len(),
            t.candidate.len()
        );
        let _ = writeln!(
            out,
            "| {} |\n|{}|",
            CMP_HEAD.join(" | "),
            vec!["---"; CMP_HEAD.len()].join("|")
        );
        for c in &t.metrics {
            let row = cmp_row(c);
            let mut cells: Vec<String> = row.iter().map(|x| md(x)).collect();
            if c.verdict == Verdict::Regression {
                cells[5] = format!("**{}**", cells[5]);
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "Metric version: {}\n", r.metric_version);
    if !r.errors.is_empty() {
        let _ = writeln!(out, "**Could not evaluate:**\n");
        for e in &r.errors {
            let _ = writeln!(out, "- {}", md(e));
        }
    }
    out
}

/// XML text escaping for attribute values and element text.
pub fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                o.push_str(&format!("&#{};", c as u32))
            }
            c => o.push(c),
        }
    }
    o
}

struct Case {
    name: String,
    failure: Option<String>,
    error: Option<String>,
}

/// A test suite: its name, its `<properties>` (e.g. the metric version, so an archived
/// result says which definitions produced it) and its cases.
type Suite = (String, Vec<(&'static str, String)>, Vec<Case>);

fn junit(suite_name: &str, suites: Vec<Suite>, errors: &[String]) -> String {
    let total: usize = suites.iter().map(|s| s.2.len()).sum::<usize>() + errors.len();
    let failures: usize = suites
        .iter()
        .flat_map(|s| &s.2)
        .filter(|c| c.failure.is_some())
        .count();
    let errs: usize = suites
        .iter()
        .flat_map(|s| &s.2)
        .filter(|c| c.error.is_some())
        .count()
        + errors.len();
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<testsuites name=\"{}\" tests=\"{total}\" failures=\"{failures}\" errors=\"{errs}\">",
        xml_escape(suite_name)
    );
    for (name, properties, cases) in &suites {
        let f = cases.iter().filter(|c| c.failure.is_some()).count();
        let e = cases.iter().filter(|c| c.error.is_some()).count();
        let _ = writeln!(
            o,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"{e}\">",
            xml_escape(name),
            cases.len()
        );
        if !properties.is_empty() {
            o.push_str("    <properties>\n");
            for (k, v) in properties {
                let _ = writeln!(
                    o,
                    "      <property name=\"{k}\" value=\"{}\"/>",
                    xml_escape(v)
                );
            }
            o.push_str("    </properties>\n");
        }
        for c in cases {
            let _ = write!(
                o,
                "    <testcase classname=\"{}\" name=\"{}\"",
                xml_escape(&format!("frameprobe.{name}")),
                xml_escape(&c.name)
            );
            match (&c.failure, &c.error) {
                (Some(m), _) => {
                    let _ = writeln!(
                        o,
                        ">\n      <failure message=\"{}\"/>\n    </testcase>",
                        xml_escape(m)
                    );
                }
                (None, Some(m)) => {
                    let _ = writeln!(
                        o,
                        ">\n      <error message=\"{}\"/>\n    </testcase>",
                        xml_escape(m)
                    );
                }
                _ => {
                    let _ = writeln!(o, "/>");
                }
            }
        }
        let _ = writeln!(o, "  </testsuite>");
    }
    if !errors.is_empty() {
        let _ = writeln!(
            o,
            "  <testsuite name=\"inputs\" tests=\"{}\" failures=\"0\" errors=\"{}\">",
            errors.len(),
            errors.len()
        );
        for (i, e) in errors.iter().enumerate() {
            let _ = writeln!(o, "    <testcase classname=\"frameprobe.inputs\" name=\"input {}\">\n      <error message=\"{}\"/>\n    </testcase>", i + 1, xml_escape(e));
        }
        let _ = writeln!(o, "  </testsuite>");
    }
    o.push_str("</testsuites>\n");
    o
}

pub fn check_junit(r: &CheckReport) -> String {
    let suites = r
        .tests
        .iter()
        .map(|t| {
            let cases = t
                .rules
                .iter()
                .map(|x| Case {
                    name: rule_text(x),
                    failure: (x.outcome == Outcome::Fail).then(|| {
                        format!(
                            "measured {} {}, limit {} {} (over {})",
                            num(x.value),
                            x.unit,
                            x.limit,
                            x.unit,
                            x.denominator
                        )
                    }),
                    error: (x.outcome == Outcome::CannotEvaluate)
                        .then(|| "cannot be evaluated on these traces".to_string()),
                })
                .collect();
            let properties = vec![
                ("metric_version", r.metric_version.to_string()),
                ("trust", t.trust.grade.as_str().to_string()),
            ];
            (t.label(), properties, cases)
        })
        .collect();
    junit("frameprobe check", suites, &r.errors)
}

pub fn compare_junit(r: &CompareReport) -> String {
    let suites = r
        .tests
        .iter()
        .map(|t| {
            let cases = t
                .metrics
                .iter()
                .map(|c| Case {
                    name: c.metric.clone(),
                    failure: (c.verdict == Verdict::Regression).then(|| {
                        format!(
                            "regression: {} -> {} {} (95% CI of change {}..{})",
                            num(c.baseline),
                            num(c.candidate),
                            c.unit,
                            num(c.ci_low),
                            num(c.ci_high)
                        )
                    }),
                    error: None,
                })
                .collect();
            let properties = vec![("metric_version", r.metric_version.to_string())];
            (t.test.clone(), properties, cases)
        })
        .collect();
    junit("frameprobe compare", suites, &r.errors)
}
