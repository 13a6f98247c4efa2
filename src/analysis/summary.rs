//! Per process and layer summaries: frame counts, jank counts and rates per jank tag and per
//! jank reason (denominators stated), deadline misses, duration distributions with
//! Macrobenchmark's percentile definition, the longest run of janky frames and the present
//! cadence.

use std::collections::BTreeMap;

use serde::Serialize;

use super::definitions::over_budget;
use super::frame_model::Frame;
use super::frame_timing::percentile;
use super::index::{Index, Phase};
use super::units::ms;
use crate::trace::frame_timeline_vocab::jank_reasons;

/// A distribution in milliseconds (P50..P99 by linear interpolation, as Macrobenchmark).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Dist {
    pub count: usize,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

impl Dist {
    pub fn of_ns(values: impl IntoIterator<Item = i64>) -> Option<Dist> {
        let mut v: Vec<f64> = values.into_iter().map(|n| n as f64 / 1e6).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let round = |x: f64| (x * 1e6).round() / 1e6;
        Some(Dist {
            count: v.len(),
            p50: round(percentile(&v, 50)?),
            p90: round(percentile(&v, 90)?),
            p95: round(percentile(&v, 95)?),
            p99: round(percentile(&v, 99)?),
            max: round(*v.last()?),
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Count {
    pub frames: usize,
    /// Percent of the denominator.
    pub rate_pct: f64,
}

fn count(n: usize, of: usize) -> Count {
    Count {
        frames: n,
        rate_pct: if of == 0 {
            0.0
        } else {
            (n as f64 * 10000.0 / of as f64).round() / 100.0
        },
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Durations {
    /// doFrame on the UI thread.
    pub ui_ms: Option<Dist>,
    /// RenderThread end - UI start (Macrobenchmark frameDurationCpu).
    pub cpu_ms: Option<Dist>,
    /// Macrobenchmark frameOverrun (needs FrameTimeline).
    pub overrun_ms: Option<Dist>,
    /// The actual surface frame's duration (FrameTimeline).
    pub actual_ms: Option<Dist>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cadence {
    pub presents: usize,
    pub median_interval_ms: f64,
    pub effective_hz: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LayerSummary {
    pub layer: Option<String>,
    pub frames: usize,
    /// Frames FrameTimeline classified (the denominator of every rate below). The
    /// FrameTimeline counts are null, never 0, when it classified none.
    pub frames_with_timeline: usize,
    /// Self Jank + Other Jank + Dropped Frame.
    pub janky: Option<Count>,
    pub by_jank_tag: Option<BTreeMap<String, Count>>,
    pub by_jank_reason: Option<BTreeMap<String, Count>>,
    /// Frames whose app work did not finish on time (on_time_finish = 0).
    pub deadline_missed: Option<Count>,
    pub durations: Durations,
    pub longest_janky_streak: usize,
    pub present_cadence: Option<Cadence>,
    /// Frames over their own budget by CPU time (else UI time), of the frames with one;
    /// null when no frame has a duration.
    pub slow_frames: Option<Count>,
}

/// `budgets` holds each frame's own budget (parallel to `frames`).
pub fn summarize(
    idx: &Index<'_>,
    layer: Option<&str>,
    frames: &[&Frame],
    budgets: &[i64],
) -> LayerSummary {
    let with_tl: Vec<&&Frame> = frames.iter().filter(|f| f.timeline.is_some()).collect();
    let n_tl = with_tl.len();
    let mut by_tag: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for f in &with_tl {
        let t = f.timeline.as_ref().unwrap();
        *by_tag.entry(t.jank_tag.clone()).or_default() += 1;
        for r in jank_reasons(t.jank_mask) {
            *by_reason.entry(r.to_string()).or_default() += 1;
        }
    }
    let janky = with_tl.iter().filter(|f| f.ft_janky()).count();
    let missed = with_tl
        .iter()
        .filter(|f| !f.timeline.as_ref().unwrap().on_time_finish)
        .count();
    let mut streak = 0;
    let mut best = 0;
    for (f, &b) in frames.iter().zip(budgets) {
        let bad = if f.timeline.is_some() {
            f.ft_janky()
        } else {
            over_budget::over(f, b) == Some(true)
        };
        streak = if bad { streak + 1 } else { 0 };
        best = best.max(streak);
    }
    let timed: Vec<(i64, i64)> = frames
        .iter()
        .zip(budgets)
        .filter_map(|(f, &b)| Some((over_budget::time_ns(f)?, b)))
        .collect();
    let slow = timed
        .iter()
        .filter(|&&(c, b)| over_budget::is_over(c, b))
        .count();
    let with_tl = |c: Count| (n_tl > 0).then_some(c);
    let per = |m: BTreeMap<String, usize>| -> Option<BTreeMap<String, Count>> {
        (n_tl > 0).then(|| m.into_iter().map(|(k, v)| (k, count(v, n_tl))).collect())
    };
    LayerSummary {
        layer: layer.map(str::to_string),
        frames: frames.len(),
        frames_with_timeline: n_tl,
        janky: with_tl(count(janky, n_tl)),
        by_jank_tag: per(by_tag),
        by_jank_reason: per(by_reason),
        deadline_missed: with_tl(count(missed, n_tl)),
        durations: Durations {
            ui_ms: Dist::of_ns(frames.iter().filter_map(|f| f.ui_ns())),
            cpu_ms: Dist::of_ns(frames.iter().filter_map(|f| f.cpu_ns())),
            overrun_ms: Dist::of_ns(frames.iter().filter_map(|f| f.overrun_ns())),
            actual_ms: Dist::of_ns(
                frames
                    .iter()
                    .filter_map(|f| f.timeline.as_ref().map(|t| t.actual))
                    .filter(|a| a.complete())
                    .map(|a| a.dur),
            ),
        },
        longest_janky_streak: best,
        present_cadence: layer.and_then(|l| cadence(idx, l)),
        slow_frames: (!timed.is_empty()).then(|| count(slow, timed.len())),
    }
}

/// Present-to-present intervals of the layer's Display_ phases (FrameTracer).
fn cadence(idx: &Index<'_>, layer: &str) -> Option<Cadence> {
    let strip = |s: &str| s.strip_prefix("TX - ").unwrap_or(s).to_string();
    let key = idx
        .phases
        .keys()
        .find(|(l, p)| *p == Phase::Display && strip(l) == strip(layer))?;
    let mut d: Vec<i64> = idx.phases[key]
        .iter()
        .filter(|p| p.span.dur > 0)
        .map(|p| p.span.dur)
        .collect();
    if d.is_empty() {
        return None;
    }
    d.sort();
    let median = d[d.len() / 2];
    Some(Cadence {
        presents: d.len(),
        median_interval_ms: ms(median),
        effective_hz: (1e11 / median as f64).round() / 100.0,
    })
}
