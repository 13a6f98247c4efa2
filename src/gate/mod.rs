//! The CI gate: `check` (limits) and `compare` (baseline vs candidate) over Macrobenchmark
//! iteration traces, with reports for CI systems.

pub mod analyzed;
pub mod annotations;
pub mod benchmark_data;
pub mod check;
pub mod compare;
pub mod inputs;
pub mod isolate;
pub mod macrobench_dir;
pub mod measure;
pub mod metrics;
pub mod reproduce;
pub mod saved_baseline;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::analysis::definitions::METRIC_VERSION;
use crate::analysis::frame_timing::percentile;
use crate::analysis::time_range::{RangeReport, RangeSpec};
use crate::analysis::trust::{self, Grade, Reason, Trust};
use check::{Outcome, Rule, RuleResult};
use compare::{Comparison, Thresholds, Verdict};
pub use macrobench_dir::BenchmarkInfo;
use measure::{Iteration, Target};

pub const EXIT_PASS: u8 = 0;
pub const EXIT_FAIL: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

#[derive(Debug, Clone, Serialize)]
pub struct IterationInfo {
    pub path: String,
    /// Its number in the benchmark's benchmarkData.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iteration: Option<usize>,
    /// The package measured (given with --process, or inferred).
    pub package: String,
    pub process_found: bool,
    pub frames: usize,
    pub timeline_frames: usize,
    pub api_level: u32,
    pub problem: Option<String>,
    /// The iteration's trust grade (its frame count is judged on the pooled frames).
    pub trust: Trust,
    /// The range measured (`--from` / `--to`) in this trace's times; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<RangeReport>,
}

/// P50..P99 in Macrobenchmark's JSON spelling.
#[derive(Debug, Clone, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CountStats {
    pub minimum: f64,
    pub maximum: f64,
    pub median: f64,
    pub runs: Vec<f64>,
}

/// The numbers Macrobenchmark's FrameTimingMetric reports, to put beside its own JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// The benchmarkData.json entry of each test that has one.
    pub benchmarks: BTreeMap<String, macrobench_dir::Benchmark>,
    pub errors: Vec<String>,
    /// Each trace's load warnings, prefixed with its path.
    pub warnings: Vec<String>,
}

/// Measures every trace of `inputs` (Macrobenchmark output directories, benchmarkData.json
/// files, traces). Without `process` each benchmark's app is inferred from its test package.
/// With `range`, only the frames starting in it are measured.
pub fn measure_inputs(
    inputs: &[PathBuf],
    process: Option<&str>,
    jobs: usize,
    range: RangeSpec,
) -> Measured {
    measure_inputs_selected(inputs, process, jobs, range, &Default::default())
}

/// [`measure_inputs`] keeping, with `--interaction` globs, only the frames of matching
/// interactions.
pub fn measure_inputs_selected(
    inputs: &[PathBuf],
    process: Option<&str>,
    jobs: usize,
    range: RangeSpec,
    interactions: &crate::analysis::interactions::InteractionOptions,
) -> Measured {
    let mut m = Measured {
        tests: BTreeMap::new(),
        benchmarks: BTreeMap::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
    };
    let found = match macrobench_dir::discover(inputs) {
        Ok(d) => d,
        Err(e) => {
            m.errors.push(format!("{e:#}"));
            return m;
        }
    };
    m.errors = found.errors;
    let target = |hint: &Option<String>| match process {
        Some(p) => Target::Package(p.to_string()),
        None => Target::Infer(hint.clone()),
    };
    let mut work: Vec<(PathBuf, Target)> = Vec::new();
    let mut slots: Vec<(String, Option<usize>)> = Vec::new();
    for b in found.benchmarks {
        // The same benchmark run on several devices stays one test per device.
        let mut key = b.result.key();
        if m.benchmarks.contains_key(&key) {
            let device = b.json.parent().and_then(|d| d.file_name());
            key = format!(
                "{key}@{}",
                device.map_or("?".into(), |d| d.to_string_lossy())
            );
        }
        if b.traces.is_empty() {
            m.errors.push(format!(
                "{}: no traces for this benchmark in {} (no profilerOutputs, no {key}_iterNNN_*.perfetto-trace beside it)",
                b.result.display(),
                b.json.display()
            ));
        }
        for (i, t) in b.traces.iter().enumerate() {
            if !t.is_file() {
                m.errors.push(format!(
                    "{} iteration {i}: trace {} (listed in {}) is missing",
                    b.result.display(),
                    t.display(),
                    b.json.display()
                ));
                continue;
            }
            work.push((t.clone(), target(&b.test_package)));
            slots.push((key.clone(), Some(i)));
        }
        m.tests.entry(key.clone()).or_default();
        m.benchmarks.insert(key, b);
    }
    for (t, hint) in &found.loose {
        work.push((t.clone(), target(hint)));
        slots.push((inputs::test_name(t), None));
    }
    let results = measure::measure_all_selected(&work, jobs, range, interactions);
    for (((p, _), (key, iteration)), r) in work.iter().zip(slots).zip(results) {
        let at = match (m.benchmarks.get(&key), iteration) {
            (Some(b), Some(i)) => format!("{} iteration {i} ({})", b.result.display(), p.display()),
            _ => p.display().to_string(),
        };
        match r {
            Ok(mut it) => {
                it.iteration = iteration;
                m.warnings
                    .extend(it.warnings.iter().map(|w| format!("{}: {w}", p.display())));
                if !it.process_found {
                    m.errors
                        .push(format!("{at}: no process matches {:?}", it.package));
                } else if let Some(prob) = &it.problem {
                    m.errors.push(format!("{at}: {prob}"));
                }
                m.tests.entry(key).or_default().push(it);
            }
            Err(e) => m.errors.push(format!("{at}: cannot read: {e:#}")),
        }
    }
    m
}

/// `--process`, else every package measured, in order, comma-separated.
fn process_label<'a>(process: Option<&str>, its: impl Iterator<Item = &'a Iteration>) -> String {
    if let Some(p) = process {
        return p.to_string();
    }
    let mut v: Vec<&str> = its
        .filter(|i| i.process_found)
        .map(|i| i.package.as_str())
        .collect();
    v.sort();
    v.dedup();
    if v.is_empty() {
        return "no app found".into();
    }
    v.join(", ")
}

fn info(it: &Iteration) -> IterationInfo {
    IterationInfo {
        path: it.path.display().to_string(),
        iteration: it.iteration,
        package: it.package.clone(),
        process_found: it.process_found,
        frames: it.mb_frames.len(),
        timeline_frames: it.timeline_tags.len(),
        api_level: it.api_level,
        problem: it.problem.clone(),
        trust: Trust::of(it.trust_reasons.clone()),
        range: it.range.clone(),
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
    /// The benchmarkData.json entry, when the test came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<BenchmarkInfo>,
    /// How far the test's numbers can be trusted (every iteration, pooled frame count).
    pub trust: Trust,
    pub iterations: Vec<IterationInfo>,
    pub rules: Vec<RuleResult>,
    pub macrobenchmark: MacrobenchmarkMetrics,
    /// Every metric `compare` knows, pooled over the iterations: a saved check report is a
    /// baseline for `compare --baseline report.json`.
    pub metrics: BTreeMap<String, Option<f64>>,
}

impl TestCheck {
    /// `Class#method` for a benchmark, else the traces' test name.
    pub fn label(&self) -> String {
        self.benchmark.as_ref().map_or(self.test.clone(), |b| {
            format!("{}#{}", b.class_name, b.name)
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    /// The version of the frame definitions behind the numbers.
    pub metric_version: u32,
    /// The package given with --process, else the packages inferred from the test
    /// packages, comma-separated (each iteration names its own `package`).
    pub process: String,
    pub process_inferred: bool,
    pub outcome: &'static str,
    pub exit_code: u8,
    /// The worst test's grade; `inconclusive` fails the gate (exit 2) unless allowed.
    pub trust: Grade,
    pub allow_inconclusive: bool,
    pub allow_unlocked_clocks: bool,
    /// `--from` / `--to` as given (each iteration has its own in trace times); absent
    /// without them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<String>,
    /// `--interaction` globs: only the frames of matching interactions were measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub interactions: Vec<String>,
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
/// How `check` treats what is not a plain pass or fail.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub jobs: usize,
    pub allow_inconclusive: bool,
    /// Unlocked CPU clocks lower the grade to degraded only.
    pub allow_unlocked_clocks: bool,
    /// Only frames starting in this range (`--from` / `--to`).
    pub range: RangeSpec,
    /// `--interaction`: only the frames of matching interactions.
    pub interactions: crate::analysis::interactions::InteractionOptions,
}

pub fn run_check(
    inputs: &[PathBuf],
    process: Option<&str>,
    rules: &[Rule],
    opts: CheckOptions,
) -> CheckReport {
    let allow_inconclusive = opts.allow_inconclusive;
    let m = measure_inputs_selected(inputs, process, opts.jobs, opts.range, &opts.interactions);
    let mut errors = m.errors;
    let mut warnings = m.warnings;
    let mut tests = Vec::new();
    let mut failed = false;
    let mut inconclusive = false;
    for (name, its) in &m.tests {
        let bench = m.benchmarks.get(name);
        let label = bench.map_or(name.clone(), |b| b.result.display());
        let usable: Vec<&Iteration> = its.iter().filter(|i| i.process_found).collect();
        let frames: usize = usable.iter().map(|i| i.mb_frames.len()).sum();
        if frames == 0 && !usable.is_empty() {
            let why = usable[0]
                .range
                .as_ref()
                .map_or(String::new(), |g| format!(": {}", g.empty_message()));
            errors.push(format!(
                "{label}: no Macrobenchmark frames of {:?} to evaluate{why}",
                usable[0].package
            ));
        }
        let names = macrobench_dir::test_names(name, bench);
        let rules: Vec<&Rule> = rules.iter().filter(|r| r.applies_to(&names)).collect();
        let results: Vec<RuleResult> = rules.iter().map(|r| check::evaluate(r, &usable)).collect();
        for (r, res) in rules.iter().zip(&results) {
            match res.outcome {
                Outcome::Fail if r.metric == metrics::Metric::FrameCount => errors.push(format!(
                    "{label}: too few frames ({} < {})",
                    res.value.unwrap_or(0.0),
                    r.limit
                )),
                Outcome::Fail => failed = true,
                Outcome::CannotEvaluate => errors.push(format!(
                    "{label}: {} cannot be evaluated on these traces",
                    res.metric
                )),
                Outcome::Pass => {}
            }
        }
        let mut trust = test_trust(&usable, frames);
        if let Some(b) = bench {
            trust = trust.with(b.trust_reasons(opts.allow_unlocked_clocks));
        }
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
                    "{label}: inconclusive ({}); pass --allow-inconclusive to gate on it anyway",
                    why.join("; ")
                ));
            }
        }
        // With --from/--to the traces cover part of each iteration: they cannot reproduce
        // Macrobenchmark's whole-iteration values, so the mismatches are no warning.
        let mut repro_warnings = Vec::new();
        let benchmark = bench.map(|b| b.info(its, &mut repro_warnings));
        if !opts.range.is_set() {
            warnings.append(&mut repro_warnings);
        }
        tests.push(TestCheck {
            test: name.clone(),
            benchmark,
            trust,
            iterations: its.iter().map(info).collect(),
            rules: results,
            macrobenchmark: macrobenchmark_metrics(&usable),
            metrics: metrics::compare_set()
                .into_iter()
                .map(|m| (m.name(), m.value(&usable).map(compare::round)))
                .collect(),
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
        process: process_label(process, m.tests.values().flatten()),
        process_inferred: process.is_none(),
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
        allow_unlocked_clocks: opts.allow_unlocked_clocks,
        range: opts.range.is_set().then(|| opts.range.describe()),
        interactions: opts.interactions.sections.clone(),
        tests,
        errors,
        warnings,
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
    /// As in check: the --process package, else the inferred ones.
    pub process: String,
    pub process_inferred: bool,
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
    process: Option<&str>,
    th: &Thresholds,
    jobs: usize,
) -> CompareReport {
    let c = measure_inputs(candidate, process, jobs, RangeSpec::default());
    let mut errors: Vec<String> = Vec::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut tests = Vec::new();
    if saved_baseline::is_saved_report(baseline) {
        match saved_baseline::load(&baseline[0]) {
            Ok(saved) => {
                errors.extend(c.errors.iter().map(|e| format!("candidate: {e}")));
                for (name, st, cv) in pair_tests(&saved, &c.tests, &mut errors) {
                    let cu: Vec<&Iteration> = cv.iter().filter(|i| i.process_found).collect();
                    if cu.is_empty() {
                        errors.push(format!("{name}: no usable candidate iterations"));
                        continue;
                    }
                    tests.push(TestComparison {
                        test: name,
                        baseline: Vec::new(),
                        candidate: cv.iter().map(info).collect(),
                        baseline_macrobenchmark: st
                            .macrobenchmark
                            .clone()
                            .unwrap_or_else(|| macrobenchmark_metrics(&[])),
                        candidate_macrobenchmark: macrobenchmark_metrics(&cu),
                        metrics: metrics::compare_set()
                            .into_iter()
                            .map(|m| saved_baseline::compare(m, st.value(m), &cu, th))
                            .collect(),
                    });
                }
            }
            Err(e) => errors.push(format!("baseline: {e:#}")),
        }
    } else {
        let b = measure_inputs(baseline, process, jobs, RangeSpec::default());
        errors.extend(b.errors.iter().map(|e| format!("baseline: {e}")));
        errors.extend(c.errors.iter().map(|e| format!("candidate: {e}")));
        warnings.extend(b.warnings.iter().map(|w| format!("baseline: {w}")));
        for (name, bv, cv) in pair_tests(&b.tests, &c.tests, &mut errors) {
            let bu: Vec<&Iteration> = bv.iter().filter(|i| i.process_found).collect();
            let cu: Vec<&Iteration> = cv.iter().filter(|i| i.process_found).collect();
            if bu.is_empty() || cu.is_empty() {
                errors.push(format!("{name}: no usable iterations on one side"));
                continue;
            }
            tests.push(TestComparison {
                test: name,
                baseline: bv.iter().map(info).collect(),
                candidate: cv.iter().map(info).collect(),
                baseline_macrobenchmark: macrobenchmark_metrics(&bu),
                candidate_macrobenchmark: macrobenchmark_metrics(&cu),
                metrics: metrics::compare_set()
                    .into_iter()
                    .map(|m| compare::compare(m, &bu, &cu, th))
                    .collect(),
            });
        }
    }
    warnings.extend(c.warnings.iter().map(|w| format!("candidate: {w}")));
    let regressed = tests
        .iter()
        .flat_map(|t| &t.metrics)
        .any(|m| m.verdict == Verdict::Regression);
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
        process: process_label(process, c.tests.values().flatten()),
        process_inferred: process.is_none(),
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
        warnings,
    }
}

/// Tests pair by name; a single test on each side pairs whatever the names.
fn pair_tests<'a, B, C>(
    b: &'a BTreeMap<String, B>,
    c: &'a BTreeMap<String, C>,
    errors: &mut Vec<String>,
) -> Vec<(String, &'a B, &'a C)> {
    if b.len() == 1 && c.len() == 1 {
        let (bn, bv) = b.iter().next().unwrap();
        let (_, cv) = c.iter().next().unwrap();
        return vec![(bn.clone(), bv, cv)];
    }
    let mut v = Vec::new();
    for (name, bv) in b {
        match c.get(name) {
            Some(cv) => v.push((name.clone(), bv, cv)),
            None => errors.push(format!("{name}: no candidate traces for this test")),
        }
    }
    for name in c.keys().filter(|n| !b.contains_key(*n)) {
        errors.push(format!("{name}: no baseline traces for this test"));
    }
    v
}
