//! Per interaction and side: frame count, janky frames per definition, and P50/P90/P99 of
//! the frame metrics as frameprobe defines them (frame duration: the actual surface frame,
//! else doFrame start to the last DrawFrame's end; overrun and CPU time as Macrobenchmark
//! defines them, see [`crate::analysis::frame_model::Frame`]). Counts are per iteration
//! (the mean over a side's iterations); percentiles pool every iteration's frames, as
//! Macrobenchmark pools them.

use serde::Serialize;

use super::sample::FrameSample;
use crate::analysis::definitions::Definition;
use crate::analysis::frame_timing::percentile;
use crate::gate::compare::round;

/// A value on both sides and the change.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Change {
    pub base: Option<f64>,
    pub cand: Option<f64>,
    pub delta: Option<f64>,
}

impl Change {
    pub fn new(base: Option<f64>, cand: Option<f64>) -> Self {
        Change {
            base: base.map(round),
            cand: cand.map(round),
            delta: base.zip(cand).map(|(b, c)| round(c - b)),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct JankyCount {
    pub definition: Definition,
    pub frames: Change,
}

#[derive(Debug, Clone, Serialize)]
pub struct Percentiles {
    /// `frame_duration_ms`, `overrun_ms` or `cpu_ms`.
    pub metric: &'static str,
    pub p50: Change,
    pub p90: Change,
    pub p99: Change,
}

#[derive(Debug, Clone, Serialize)]
pub struct InteractionSummary {
    pub frames: Change,
    /// frameprobe's janky verdict (analyze's `janky` column).
    pub janky: Change,
    pub janky_by_definition: Vec<JankyCount>,
    pub metrics: Vec<Percentiles>,
}

type Side<'a> = [Vec<&'a FrameSample>];

fn count(side: &Side<'_>, keep: impl Fn(&FrameSample) -> bool) -> f64 {
    side.iter().flatten().filter(|f| keep(f)).count() as f64 / side.len().max(1) as f64
}

fn pcts(side: &Side<'_>, of: fn(&FrameSample) -> Option<i64>) -> [Option<f64>; 3] {
    let mut v: Vec<f64> = side
        .iter()
        .flatten()
        .filter_map(|f| of(f))
        .map(|ns| ns as f64 / 1e6)
        .collect();
    v.sort_by(f64::total_cmp);
    [50, 90, 99].map(|p| percentile(&v, p))
}

pub fn summarize(base: &Side<'_>, cand: &Side<'_>) -> InteractionSummary {
    let both = |keep: &dyn Fn(&FrameSample) -> bool| {
        Change::new(Some(count(base, keep)), Some(count(cand, keep)))
    };
    let metric = |name: &'static str, of: fn(&FrameSample) -> Option<i64>| {
        let (b, c) = (pcts(base, of), pcts(cand, of));
        Percentiles {
            metric: name,
            p50: Change::new(b[0], c[0]),
            p90: Change::new(b[1], c[1]),
            p99: Change::new(b[2], c[2]),
        }
    };
    InteractionSummary {
        frames: both(&|_| true),
        janky: both(&|f| f.janky),
        janky_by_definition: Definition::ALL
            .into_iter()
            .map(|d| JankyCount {
                definition: d,
                frames: both(&|f| f.flagged.contains(&d)),
            })
            .collect(),
        metrics: vec![
            metric("frame_duration_ms", |f| Some(f.dur_ns).filter(|d| *d >= 0)),
            metric("overrun_ms", |f| f.overrun_ns),
            metric("cpu_ms", |f| f.cpu_ns),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(dur_ms: i64, janky: bool) -> FrameSample {
        FrameSample {
            dur_ns: dur_ms * 1_000_000,
            cpu_ns: Some(dur_ms * 1_000_000 / 2),
            janky,
            flagged: if janky {
                [Definition::FrameTimeline].into()
            } else {
                Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn counts_are_per_iteration_and_percentiles_pool_frames() {
        // Two baseline iterations of 2 frames (one janky in the first), one candidate
        // iteration of 3 frames (two janky). Per iteration: 2 vs 3 frames, 0.5 vs 2 janky.
        // Pooled durations 10, 20, 30, 40 ms: P50 = 25 by linear interpolation
        // (androidx MetricResult's rule, frame_timing::percentile); candidate 10/50/60: 50.
        let (a, b, c) = (
            vec![f(10, true), f(20, false)],
            vec![f(30, false), f(40, false)],
            vec![f(10, true), f(50, true), f(60, false)],
        );
        let base: Vec<Vec<&FrameSample>> = vec![a.iter().collect(), b.iter().collect()];
        let cand: Vec<Vec<&FrameSample>> = vec![c.iter().collect()];
        let s = summarize(&base, &cand);
        assert_eq!(s.frames, Change::new(Some(2.0), Some(3.0)));
        assert_eq!(s.janky.delta, Some(1.5));
        assert_eq!(s.janky_by_definition[0].frames.cand, Some(2.0));
        assert_eq!(s.metrics[0].p50, Change::new(Some(25.0), Some(50.0)));
        assert_eq!(
            s.metrics[1].p50.base, None,
            "no overrun without FrameTimeline"
        );
        assert_eq!(s.metrics[2].p50.base, Some(12.5));
    }
}
