//! A saved `frameprobe check --format json` report as `compare`'s baseline
//! (`compare --baseline report.json --candidate DIR`): each test's pooled `metrics` against
//! the candidate's. The saved report has no frames to resample, so a change is judged by
//! the absolute and relative thresholds alone, without a confidence interval.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::compare::{self, Comparison, Thresholds, Verdict};
use super::measure::Iteration;
use super::metrics::Metric;
use super::MacrobenchmarkMetrics;
use crate::analysis::definitions::METRIC_VERSION;

const SCHEMA: &str = "frameprobe.check/v1";

#[derive(Debug, Deserialize)]
struct SavedReport {
    schema: String,
    metric_version: u32,
    tests: Vec<SavedTest>,
}

#[derive(Debug, Deserialize)]
pub struct SavedTest {
    test: String,
    #[serde(default)]
    metrics: BTreeMap<String, Option<f64>>,
    pub macrobenchmark: Option<MacrobenchmarkMetrics>,
}

impl SavedTest {
    pub fn value(&self, m: Metric) -> Option<f64> {
        self.metrics.get(&m.name()).copied().flatten()
    }
}

/// Whether the baseline is one saved report rather than traces or output directories.
pub fn is_saved_report(inputs: &[PathBuf]) -> bool {
    matches!(inputs, [p] if p.is_file()
        && p.extension().is_some_and(|e| e == "json")
        && !super::benchmark_data::is_benchmark_data(p))
}

/// The saved report's tests by name; refused when it is no check report or was made with
/// other frame definitions (another metric version).
pub fn load(path: &Path) -> anyhow::Result<BTreeMap<String, SavedTest>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    let r: SavedReport = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a saved `frameprobe check --format json` report: {e}",
            path.display()
        )
    })?;
    if r.schema != SCHEMA {
        anyhow::bail!(
            "{}: schema {:?}, expected {SCHEMA:?} (save a baseline with `frameprobe check ... --format json`)",
            path.display(),
            r.schema
        );
    }
    if r.metric_version != METRIC_VERSION {
        anyhow::bail!(
            "{}: made with metric version {}, this frameprobe computes version {METRIC_VERSION}; the numbers are not comparable: re-run check on the baseline's traces",
            path.display(),
            r.metric_version
        );
    }
    Ok(r.tests.into_iter().map(|t| (t.test.clone(), t)).collect())
}

/// `metric` of the candidate against the saved value.
pub fn compare(
    metric: Metric,
    saved: Option<f64>,
    cand: &[&Iteration],
    th: &Thresholds,
) -> Comparison {
    let c = metric.value(cand).map(compare::round);
    let diff = saved.zip(c).map(|(b, c)| c - b);
    Comparison {
        metric: metric.name(),
        unit: metric.unit(),
        baseline: saved,
        candidate: c,
        difference: diff.map(compare::round),
        relative_pct: saved
            .zip(diff)
            .filter(|(b, _)| b.abs() > f64::EPSILON)
            .map(|(b, d)| compare::round(d * 100.0 / b.abs())),
        ci_low: None,
        ci_high: None,
        verdict: match (saved, diff) {
            _ if !metric.higher_is_worse() => Verdict::Informational,
            (Some(b), Some(d)) => compare::verdict(metric, b, d, th, None),
            _ => Verdict::CannotEvaluate,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_alone_judge_a_saved_baseline() {
        let it = Iteration {
            mb_frames: vec![(20_000_000, Some(4_000_000)); 30],
            process_found: true,
            ..Default::default()
        };
        let th = Thresholds::default();
        // 20 ms against 15: +5 ms, +33%: past 1 ms and 10%.
        let c = compare(Metric::CpuMs(50), Some(15.0), &[&it], &th);
        assert_eq!(c.verdict, Verdict::Regression);
        assert_eq!(c.difference, Some(5.0));
        // Against 19.5: +0.5 ms is under the absolute threshold.
        let c = compare(Metric::CpuMs(50), Some(19.5), &[&it], &th);
        assert_eq!(c.verdict, Verdict::NoSignificantChange);
        let c = compare(Metric::FrameCount, Some(10.0), &[&it], &th);
        assert_eq!(c.verdict, Verdict::Informational);
        assert_eq!(
            compare(Metric::CpuMs(50), None, &[&it], &th).verdict,
            Verdict::CannotEvaluate
        );
    }
}
