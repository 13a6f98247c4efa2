//! The CI gate: `check` (limits) and `compare` (baseline vs candidate) over Macrobenchmark
//! iteration traces, with reports for CI systems.

pub mod check;
pub mod compare;
pub mod inputs;
pub mod isolate;
pub mod measure;
pub mod metrics;
pub mod output;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::analysis::definitions::METRIC_VERSION;
use crate::analysis::frame_timing::percentile;
use crate::analysis::trust::{self, Grade, Reason, Trust};
use check::{Outcome, Rule, RuleResult};
use compare::{Comparison, Thresholds, Verdict};
use measure::Iteration;

pub const EXIT_PASS: u8 = 0;
pub const EXIT_FAIL: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

#[derive(Debug, Clone, Serialize)]
pub struct IterationInfo {
    pub path: String,
    pub process_found: bool,
    pub frames: usize,
    pub timeline_frames: usize,
    pub api_level: u32,
    pub problem: Option<String>,
    /// The iteration's trust grade (its frame count is judged on the pooled frames).
    pub trust: Trust,
}

/// P50..P99 in Macrobenchmark's JSON spelling.
#[derive(Debug, Clone, Serialize)]
pub struct Pcts {
    #[serde(rename = "P50")]
    pub p50: f64,
    #[serde(rename = "P90")]
    pub p90: f64,
    #[serde(rename = "P95")]
    pub p95: f64,
    #[serde(rename = "P99")]
    pub p99: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CountStats {
    pub minimum: f64,
    pub maximum: f64,
    pub median: f64,
    pub runs: Vec<f64>,
}

/// The numbers Macrobenchmark's FrameTimingMetric reports, to put beside its own JSON.
#[derive(Debug, Clone, Serialize)]
pub struct MacrobenchmarkMetrics {
    #[serde(rename = "frameDurationCpuMs")]
    pub frame_duration_cpu_ms: Option<Pcts>,
    #[serde(rename = "frameOverrunMs")]
    pub frame_overrun_ms: Option<Pcts>,
    #[serde(rename = "frameCount")]
    pub frame_count: CountStats,
}

fn pcts(mut v: Vec<f64>) -> Option<Pcts> {
    v.sort_by(f64::total_cmp);
    let r = |x: f64| (x * 1e6).round() / 1e6;
    Some(Pcts {
        p50: r(percentile(&v, 50)?),
        p90: r(percentile(&v, 90)?),
        p95: r(percentile(&v, 95)?),
        p99: r(percentile(&v, 99)?),
    })
}

pub fn macrobenchmark_metrics(its: &[&Iteration]) -> MacrobenchmarkMetrics {
    let cpu: Vec<f64> = its
        .iter()
        .flat_map(|i| &i.mb_frames)
        .map(|f| f.0 as f64 / 1e6)
        .collect();
    let over: Option<Vec<f64>> = its
        .iter()
        .flat_map(|i| &i.mb_frames)
        .map(|f| f.1.map(|o| o as f64 / 1e6))
        .collect();
    let mut runs: Vec<f64> = its.iter().map(|i| i.mb_frames.len() as f64).collect();
    let raw_runs = runs.clone();
    runs.sort_by(f64::total_cmp);
    MacrobenchmarkMetrics {
        frame_duration_cpu_ms: pcts(cpu),
        frame_overrun_ms: over.filter(|v| !v.is_empty()).and_then(pcts),
        frame_count: CountStats {
            minimum: runs.first().copied().unwrap_or(0.0),
            maximum: runs.last().copied().unwrap_or(0.0),
            median: percentile(&runs, 50).unwrap_or(0.0),
            runs: raw_runs,
        },
    }
}

/// Loads and measures every input; problems are collected, never hidden.
pub struct Measured {
    pub tests: BTreeMap<String, Vec<Iteration>>,
    pub errors: Vec<String>,
    /// Each trace's load warnings, prefixed with its path.
    pub warnings: Vec<String>,
}

pub fn measure_inputs(inputs: &[PathBuf], package: &str, jobs: usize) -> Measured {
    let mut errors = Vec::new();
    let paths = match inputs::expand(inputs) {
        Ok(p) => p,
        Err(e) => {
            return Measured {
                tests: BTreeMap::new(),
                errors: vec![e.to_string()],
                warnings: Vec::new(),
            };
        }
    };
    let results = measure::measure_all(&paths, package, jobs);
    let mut tests: BTreeMap<String, Vec<Iteration>> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (p, r) in paths.iter().zip(results) {
        match r {
            Ok(it) => {
                warnings.extend(it.warnings.iter().map(|w| format!("{}: {w}", p.display())));
                if !it.process_found {
                    errors.push(format!("{}: no process matches {package:?}", p.display()));
                } else if let Some(prob) = &it.problem {
                    errors.push(format!("{}: {prob}", p.display()));
                }
                tests.entry(inputs::test_name(p)).or_default().push(it);
            }
            Err(e) => errors.push(format!("{}: cannot read: {e:#}", p.display())),
        }
    }
    Measured {
        tests,
        errors,
        warnings,
    }
}

fn info(it: &Iteration) -> IterationInfo {
    IterationInfo {
        path: it.path.display().to_string(),
        process_found: it.process_found,
        frames: it.mb_frames.len(),
        timeline_frames: it.timeline_tags.len(),
        api_level: it.api_level,
        problem: it.problem.clone(),
        trust: Trust::of(it.trust_reasons.clone()),
    }
}

/// A test's trust: every iteration's reasons (once each) and the pooled frame count.
fn test_trust(its: &[&Iteration], frames: usize) -> Trust {
    let mut reasons: Vec<Reason> = Vec::new();
    for r in its.iter().flat_map(|i| &i.trust_reasons) {
        if !reasons.contains(r) {
            reasons.push(r.clone());
        }
    }
    reasons.extend(trust::frame_count_reasons(frames));
    Trust::of(reasons)
}

#[derive(Debug, Clone, Serialize)]
pub struct TestCheck {
    pub test: String,
    /// How far the test's numbers can be trusted (every iteration, pooled frame count).
    pub trust: Trust,
    pub iterations: Vec<IterationInfo>,
    pub rules: Vec<RuleResult>,
    pub macrobenchmark: MacrobenchmarkMetrics,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    /// The version of the frame definitions behind the numbers.
    pub metric_version: u32,
    pub process: String,
    pub outcome: &'static str,
    pub exit_code: u8,
    /// The worst test's grade; `inconclusive` fails the gate (exit 2) unless allowed.
    pub trust: Grade,
    pub allow_inconclusive: bool,
    pub tests: Vec<TestCheck>,
    pub errors: Vec<String>,
    /// Load warnings of the traces (damage skipped, with byte offsets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn outcome_name(code: u8) -> &'static str {
    match code {
        EXIT_PASS => "pass",
        EXIT_FAIL => "fail",
        _ => "error",
    }
}

/// Evaluates `rules`; an `inconclusive` test (emulator, too few frames, ...) is an error
/// (exit 2) unless `allow_inconclusive`.
pub fn run_check(
    inputs: &[PathBuf],
    package: &str,
    rules: &[Rule],
    jobs: usize,
    allow_inconclusive: bool,
) -> CheckReport {
    let m = measure_inputs(inputs, package, jobs);
    let mut errors = m.errors;
    let mut tests = Vec::new();
    let mut failed = false;
    let mut inconclusive = false;
    for (name, its) in &m.tests {
        let usable: Vec<&Iteration> = its.iter().filter(|i| i.process_found).collect();
        let frames: usize = usable.iter().map(|i| i.mb_frames.len()).sum();
        if frames == 0 {
            errors.push(format!("{name}: no frames of {package:?} to evaluate"));
        }
        let results: Vec<RuleResult> = rules.iter().map(|r| check::evaluate(r, &usable)).collect();
        for (r, res) in rules.iter().zip(&results) {
            match res.outcome {
                Outcome::Fail if r.metric == metrics::Metric::FrameCount => errors.push(format!(
                    "{name}: too few frames ({} < {})",
                    res.value.unwrap_or(0.0),
                    r.limit
                )),
                Outcome::Fail => failed = true,
                Outcome::CannotEvaluate => errors.push(format!(
                    "{name}: {} cannot be evaluated on these traces",
                    res.metric
                )),
                Outcome::Pass => {}
            }
        }
        let trust = test_trust(&usable, frames);
        if trust.grade == Grade::Inconclusive && !usable.is_empty() {
            inconclusive = true;
            if !allow_inconclusive {
                let why: Vec<String> = trust
                    .reasons
                    .iter()
                    .filter(|r| r.grade == Grade::Inconclusive)
                    .map(|r| r.text.clone())
                    .collect();
                errors.push(format!(
                    "{name}: inconclusive ({}); pass --allow-inconclusive to gate on it anyway",
                    why.join("; ")
                ));
            }
        }
        tests.push(TestCheck {
            test: name.clone(),
            trust,
            iterations: its.iter().map(info).collect(),
            rules: results,
            macrobenchmark: macrobenchmark_metrics(&usable),
        });
    }
    if rules.is_empty() {
        errors.push(
            "no rules given (use --max-jank-rate, --max-p95-overrun-ms, ..., --rule or --config)"
                .into(),
        );
    }
    let code = if !errors.is_empty() {
        EXIT_ERROR
    } else if failed {
        EXIT_FAIL
    } else {
        EXIT_PASS
    };
    let only_trust =
        code == EXIT_ERROR && inconclusive && errors.iter().all(|e| e.contains(": inconclusive ("));
    CheckReport {
        schema: "frameprobe.check/v1",
        tool_version: env!("CARGO_PKG_VERSION"),
        metric_version: METRIC_VERSION,
        process: package.to_string(),
        outcome: if only_trust {
            "inconclusive"
        } else {
            outcome_name(code)
        },
        exit_code: code,
        trust: tests
            .iter()
            .map(|t| t.trust.grade)
            .max()
            .unwrap_or(Grade::Trusted),
        allow_inconclusive,
        tests,
        errors,
        warnings: m.warnings,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct TestComparison {
    pub test: String,
    pub baseline: Vec<IterationInfo>,
    pub candidate: Vec<IterationInfo>,
    pub baseline_macrobenchmark: MacrobenchmarkMetrics,
    pub candidate_macrobenchmark: MacrobenchmarkMetrics,
    pub metrics: Vec<Comparison>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    /// The version of the frame definitions behind the numbers.
    pub metric_version: u32,
    pub process: String,
    pub outcome: &'static str,
    pub exit_code: u8,
    pub thresholds: ThresholdsOut,
    pub tests: Vec<TestComparison>,
    pub errors: Vec<String>,
    /// Load warnings of the traces (damage skipped, with byte offsets).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThresholdsOut {
    pub abs_ms: f64,
    pub abs_pct_points: f64,
    pub abs_frames: f64,
    pub rel_pct: f64,
    pub confidence: f64,
    pub resamples: usize,
    pub seed: u64,
}

pub fn run_compare(
    baseline: &[PathBuf],
    candidate: &[PathBuf],
    package: &str,
    th: &Thresholds,
    jobs: usize,
) -> CompareReport {
    let b = measure_inputs(baseline, package, jobs);
    let c = measure_inputs(candidate, package, jobs);
    let mut errors: Vec<String> = b.errors.iter().map(|e| format!("baseline: {e}")).collect();
    errors.extend(c.errors.iter().map(|e| format!("candidate: {e}")));
    // Tests pair by name; a single test on each side pairs whatever the names.
    let pairs: Vec<(String, &Vec<Iteration>, &Vec<Iteration>)> =
        if b.tests.len() == 1 && c.tests.len() == 1 {
            let (bn, bv) = b.tests.iter().next().unwrap();
            let (_, cv) = c.tests.iter().next().unwrap();
            vec![(bn.clone(), bv, cv)]
        } else {
            let mut v = Vec::new();
            for (name, bv) in &b.tests {
                match c.tests.get(name) {
                    Some(cv) => v.push((name.clone(), bv, cv)),
                    None => errors.push(format!("{name}: no candidate traces for this test")),
                }
            }
            for name in c.tests.keys().filter(|n| !b.tests.contains_key(*n)) {
                errors.push(format!("{name}: no baseline traces for this test"));
            }
            v
        };
    let mut tests = Vec::new();
    let mut regressed = false;
    for (name, bv, cv) in pairs {
        let bu: Vec<&Iteration> = bv.iter().filter(|i| i.process_found).collect();
        let cu: Vec<&Iteration> = cv.iter().filter(|i| i.process_found).collect();
        if bu.is_empty() || cu.is_empty() {
            errors.push(format!("{name}: no usable iterations on one side"));
            continue;
        }
        let metrics: Vec<Comparison> = metrics::compare_set()
            .into_iter()
            .map(|m| compare::compare(m, &bu, &cu, th))
            .collect();
        regressed |= metrics.iter().any(|m| m.verdict == Verdict::Regression);
        tests.push(TestComparison {
            test: name,
            baseline: bv.iter().map(info).collect(),
            candidate: cv.iter().map(info).collect(),
            baseline_macrobenchmark: macrobenchmark_metrics(&bu),
            candidate_macrobenchmark: macrobenchmark_metrics(&cu),
            metrics,
        });
    }
    let code = if !errors.is_empty() {
        EXIT_ERROR
    } else if regressed {
        EXIT_FAIL
    } else {
        EXIT_PASS
    };
    CompareReport {
        schema: "frameprobe.compare/v1",
        tool_version: env!("CARGO_PKG_VERSION"),
        metric_version: METRIC_VERSION,
        process: package.to_string(),
        outcome: outcome_name(code),
        exit_code: code,
        thresholds: ThresholdsOut {
            abs_ms: th.abs_ms,
            abs_pct_points: th.abs_pct,
            abs_frames: th.abs_frames,
            rel_pct: th.rel_pct,
            confidence: th.confidence,
            resamples: th.resamples,
            seed: th.seed,
        },
        tests,
        errors,
        warnings: b
            .warnings
            .iter()
            .map(|w| format!("baseline: {w}"))
            .chain(c.warnings.iter().map(|w| format!("candidate: {w}")))
            .collect(),
    }
}
