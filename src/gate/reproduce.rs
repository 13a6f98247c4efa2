//! A benchmark's own numbers from its benchmarkData.json beside frameprobe's, recomputed from
//! its traces with the Macrobenchmark block: frameDurationCpuMs and frameOverrunMs
//! P50/P90/P95/P99 over the pooled frames and each iteration's `runs`, and frameCount per
//! iteration. Percentiles follow androidx `MetricResult.getPercentile` (linear
//! interpolation at p/100 × (n − 1), `analysis::frame_timing::percentile`); ms are ns / 1e6
//! (`Metric.kt`, `nsToDoubleMs`); sampled metrics pool every iteration's frames
//! (`MetricResultExtensions.kt`, `mergeToSampledMetricResults`).
//!
//! A difference beyond [`TOLERANCE_MS`] is a warning naming the benchmark and iteration: a
//! different androidx version, a missing trace or a renamed process make them differ, and
//! this is how a user learns whether frameprobe's numbers are Macrobenchmark's on their runs.

use serde::Serialize;

use super::benchmark_data::TestResult;
use super::measure::Iteration;
use crate::analysis::frame_timing::percentile;

pub const TOLERANCE_MS: f64 = 0.001;

#[derive(Debug, Clone, Serialize)]
pub struct ReproRow {
    /// `frameDurationCpuMs P95`, `frameOverrunMs runs`, `frameCount`.
    pub metric: String,
    /// None: pooled over the iterations.
    pub iteration: Option<usize>,
    /// For `runs` rows: the number of frames on each side.
    pub json: Option<f64>,
    pub frameprobe: Option<f64>,
    /// frameprobe − JSON; for `runs` rows the largest per-frame difference (ms).
    pub difference: Option<f64>,
    pub matches: bool,
}

/// A frame's value of a sampled metric, in ms (None: the trace does not give it).
type FrameValue = fn(&(i64, Option<i64>)) -> Option<f64>;

const SAMPLED: [(&str, FrameValue); 2] = [
    ("frameDurationCpuMs", |f| Some(f.0 as f64 / 1e6)),
    ("frameOverrunMs", |f| f.1.map(|o| o as f64 / 1e6)),
];

fn row(metric: String, iteration: Option<usize>, json: Option<f64>, ours: Option<f64>) -> ReproRow {
    let difference = json.zip(ours).map(|(j, o)| o - j);
    ReproRow {
        metric,
        iteration,
        json,
        frameprobe: ours,
        difference,
        matches: difference.is_some_and(|d| d.abs() <= TOLERANCE_MS),
    }
}

/// Every comparison for one benchmark; `its[i]` is iteration i as measured (None: its trace
/// is missing or unreadable). Warnings name `display` and the iteration.
pub fn reproduce(
    display: &str,
    json: &TestResult,
    its: &[Option<&Iteration>],
) -> (Vec<ReproRow>, Vec<String>) {
    let mut rows = Vec::new();
    let mut warnings = Vec::new();
    for (i, it) in its.iter().enumerate() {
        if it.is_none() {
            warnings.push(format!(
                "{display} iteration {i}: its trace is missing or unreadable, so the benchmark's pooled numbers cannot be reproduced"
            ));
        }
    }
    for (name, value) in SAMPLED {
        let Some(m) = json.sampled_metrics.get(name) else {
            continue;
        };
        let per_it: Vec<Option<Vec<f64>>> = its
            .iter()
            .map(|it| it.and_then(|i| i.mb_frames.iter().map(value).collect()))
            .collect();
        let mut pooled: Vec<f64> = per_it.iter().flatten().flatten().copied().collect();
        pooled.sort_by(f64::total_cmp);
        for (pct, j) in [(50, m.p50), (90, m.p90), (95, m.p95), (99, m.p99)] {
            let ours = percentile(&pooled, pct);
            rows.push(row(format!("{name} P{pct}"), None, j, ours));
        }
        for i in 0..m.runs.len().max(its.len()) {
            let j = m.runs.get(i);
            let ours = per_it.get(i).and_then(|o| o.as_ref());
            let diff = match (j, ours) {
                (Some(j), Some(o)) if j.len() == o.len() => Some(
                    j.iter()
                        .zip(o)
                        .map(|(a, b)| (b - a).abs())
                        .fold(0.0, f64::max),
                ),
                _ => None,
            };
            rows.push(ReproRow {
                metric: format!("{name} runs"),
                iteration: Some(i),
                json: j.map(|v| v.len() as f64),
                frameprobe: ours.map(|v| v.len() as f64),
                difference: diff,
                matches: diff.is_some_and(|d| d <= TOLERANCE_MS),
            });
        }
    }
    if let Some(m) = json.metrics.get("frameCount") {
        for i in 0..m.runs.len().max(its.len()) {
            let ours = its
                .get(i)
                .copied()
                .flatten()
                .map(|it| it.mb_frames.len() as f64);
            rows.push(row(
                "frameCount".into(),
                Some(i),
                m.runs.get(i).copied(),
                ours,
            ));
        }
    }
    for r in rows.iter().filter(|r| !r.matches) {
        // A missing iteration has already been said once.
        if r.iteration
            .is_some_and(|i| its.get(i).is_some_and(|x| x.is_none()))
        {
            continue;
        }
        let at = r
            .iteration
            .map_or("pooled over its iterations".to_string(), |i| {
                format!("iteration {i}")
            });
        let what = match (r.json, r.frameprobe, r.difference) {
            (Some(j), Some(_), Some(d)) if r.metric.ends_with(" runs") => {
                format!("{j} frames each, per-frame values differ by up to {d:.6} ms")
            }
            (Some(j), Some(o), _) if r.metric.ends_with(" runs") => {
                format!("benchmarkData.json has {j} frames, frameprobe {o}")
            }
            (Some(j), Some(o), Some(d)) => {
                format!("benchmarkData.json {j:.6}, frameprobe {o:.6} (difference {d:+.6})")
            }
            (Some(j), None, _) => format!("benchmarkData.json {j}, frameprobe has no value"),
            (None, Some(o), _) => format!("frameprobe {o}, benchmarkData.json has no value"),
            _ => "neither side has a value".into(),
        };
        warnings.push(format!(
            "{display} {at}: {} does not reproduce: {what} (a different androidx version, a missing trace or a renamed process can cause this)",
            r.metric
        ));
    }
    (rows, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::benchmark_data::{SampledMetric, SingleMetric};

    fn it(cpu_ns: &[i64]) -> Iteration {
        Iteration {
            mb_frames: cpu_ns.iter().map(|&c| (c, Some(c - 16_000_000))).collect(),
            process_found: true,
            ..Default::default()
        }
    }

    #[test]
    fn matching_and_edited_numbers() {
        // Two iterations of 10 and 20 ms, then 30 ms: pooled sorted [10, 20, 30]; androidx's
        // P50 is the middle value, P90 = 20 + 0.8 × 10.
        let a = it(&[10_000_000, 20_000_000]);
        let b = it(&[30_000_000]);
        let mut json = TestResult::default();
        json.sampled_metrics.insert(
            "frameDurationCpuMs".into(),
            SampledMetric {
                p50: Some(20.0),
                p90: Some(28.0),
                p95: Some(29.0),
                p99: Some(29.8),
                runs: vec![vec![10.0, 20.0], vec![30.0]],
            },
        );
        json.metrics.insert(
            "frameCount".into(),
            SingleMetric {
                runs: vec![2.0, 1.0],
                ..Default::default()
            },
        );
        let (rows, w) = reproduce("A#x", &json, &[Some(&a), Some(&b)]);
        assert!(w.is_empty(), "{w:?}");
        assert!(rows.iter().all(|r| r.matches));
        json.sampled_metrics
            .get_mut("frameDurationCpuMs")
            .unwrap()
            .p90 = Some(27.9);
        json.metrics.get_mut("frameCount").unwrap().runs[1] = 2.0;
        let (_, w) = reproduce("A#x", &json, &[Some(&a), Some(&b)]);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].contains("A#x pooled") && w[0].contains("P90"),
            "{}",
            w[0]
        );
        assert!(w[1].contains("A#x iteration 1: frameCount"), "{}", w[1]);
        let (_, w) = reproduce("A#x", &json, &[Some(&a), None]);
        assert!(w[0].contains("iteration 1: its trace is missing"), "{w:?}");
    }
}
