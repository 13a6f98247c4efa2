//! `compare`: baseline versus candidate per metric, with a bootstrap confidence interval for
//! the difference (iterations and frames resampled, fixed seed), calling a regression only
//! when the absolute and relative changes both pass their thresholds and the interval
//! excludes zero.

use serde::Serialize;

use super::measure::Iteration;
use super::metrics::{resample, Metric};
use crate::synth::Rng;

#[derive(Debug, Clone, Copy)]
pub struct Thresholds {
    /// Minimum absolute change for durations (ms).
    pub abs_ms: f64,
    /// Minimum absolute change for rates (percentage points).
    pub abs_pct: f64,
    /// Minimum absolute change for counts (frames).
    pub abs_frames: f64,
    /// Minimum relative change (percent of the baseline).
    pub rel_pct: f64,
    pub resamples: usize,
    pub confidence: f64,
    pub seed: u64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            abs_ms: 1.0,
            abs_pct: 2.0,
            abs_frames: 1.0,
            rel_pct: 10.0,
            resamples: 1000,
            confidence: 0.95,
            seed: 0x5eed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Regression,
    Improvement,
    NoSignificantChange,
    /// Informational metrics (frame count) are reported without a verdict.
    Informational,
    CannotEvaluate,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub metric: String,
    pub unit: &'static str,
    pub baseline: Option<f64>,
    pub candidate: Option<f64>,
    pub difference: Option<f64>,
    pub relative_pct: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub verdict: Verdict,
}

/// Four decimals, as every compared value is reported.
pub fn round(v: f64) -> f64 {
    (v * 1e4).round() / 1e4
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let i = pos.floor() as usize;
    let j = (i + 1).min(sorted.len() - 1);
    sorted[i] + (sorted[j] - sorted[i]) * (pos - i as f64)
}

pub fn compare(
    metric: Metric,
    base: &[&Iteration],
    cand: &[&Iteration],
    th: &Thresholds,
) -> Comparison {
    let (b, c) = (metric.value(base), metric.value(cand));
    let mut out = Comparison {
        metric: metric.name(),
        unit: metric.unit(),
        baseline: b.map(round),
        candidate: c.map(round),
        difference: None,
        relative_pct: None,
        ci_low: None,
        ci_high: None,
        verdict: Verdict::CannotEvaluate,
    };
    let (Some(b), Some(c)) = (b, c) else {
        return out;
    };
    let diff = c - b;
    out.difference = Some(round(diff));
    out.relative_pct = (b.abs() > f64::EPSILON).then(|| round(diff * 100.0 / b.abs()));
    // The seed depends on the metric so each metric's interval is reproducible on its own.
    let mut rng = Rng::new(
        th.seed
            ^ metric
                .name()
                .bytes()
                .fold(0u64, |h, x| h.wrapping_mul(31).wrapping_add(x as u64)),
    );
    let mut diffs = Vec::with_capacity(th.resamples);
    for _ in 0..th.resamples {
        let rb = resample(base, &mut rng);
        let rc = resample(cand, &mut rng);
        let rb: Vec<&Iteration> = rb.iter().collect();
        let rc: Vec<&Iteration> = rc.iter().collect();
        if let (Some(x), Some(y)) = (metric.value(&rb), metric.value(&rc)) {
            diffs.push(y - x);
        }
    }
    if diffs.is_empty() {
        return out;
    }
    diffs.sort_by(f64::total_cmp);
    let alpha = (1.0 - th.confidence) / 2.0;
    let (lo, hi) = (quantile(&diffs, alpha), quantile(&diffs, 1.0 - alpha));
    out.ci_low = Some(round(lo));
    out.ci_high = Some(round(hi));
    if !metric.higher_is_worse() {
        out.verdict = Verdict::Informational;
        return out;
    }
    out.verdict = verdict(metric, b, diff, th, Some((lo, hi)));
    out
}

/// Regression / improvement when the change passes the absolute and the relative
/// thresholds and, when there is an `interval`, it excludes zero.
pub fn verdict(
    metric: Metric,
    b: f64,
    diff: f64,
    th: &Thresholds,
    interval: Option<(f64, f64)>,
) -> Verdict {
    let (lo, hi) = interval.unwrap_or((diff, diff));
    let abs_needed = match metric.unit() {
        "ms" => th.abs_ms,
        "%" => th.abs_pct,
        _ => th.abs_frames,
    };
    let rel_ok = |d: f64| b.abs() <= f64::EPSILON || d.abs() * 100.0 / b.abs() >= th.rel_pct;
    if diff >= abs_needed && rel_ok(diff) && lo > 0.0 {
        Verdict::Regression
    } else if -diff >= abs_needed && rel_ok(diff) && hi < 0.0 {
        Verdict::Improvement
    } else {
        Verdict::NoSignificantChange
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn its(seed: u64, n: usize, base_ms: f64, spread: f64) -> Vec<Iteration> {
        let mut r = Rng::new(seed);
        (0..n)
            .map(|_| Iteration {
                mb_frames: (0..60)
                    .map(|_| {
                        let v = ((base_ms + spread * r.unit()) * 1e6) as i64;
                        (v, Some(v - 16_000_000))
                    })
                    .collect(),
                timeline_tags: (0..60)
                    .map(|_| {
                        if r.chance(0.05) {
                            "Self Jank"
                        } else {
                            "No Jank"
                        }
                        .to_string()
                    })
                    .collect(),
                process_found: true,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn identical_sets_do_not_flag() {
        let a = its(1, 5, 8.0, 4.0);
        let refs: Vec<&Iteration> = a.iter().collect();
        let c = compare(Metric::CpuMs(95), &refs, &refs, &Thresholds::default());
        assert_eq!(c.difference, Some(0.0));
        assert_eq!(c.verdict, Verdict::NoSignificantChange);
    }

    #[test]
    fn a_clear_slowdown_flags_and_is_reproducible() {
        let a = its(1, 5, 8.0, 4.0);
        let b = its(2, 5, 12.0, 4.0);
        let (ra, rb): (Vec<&Iteration>, Vec<&Iteration>) = (a.iter().collect(), b.iter().collect());
        let c1 = compare(Metric::CpuMs(50), &ra, &rb, &Thresholds::default());
        assert_eq!(c1.verdict, Verdict::Regression);
        assert!(c1.ci_low.unwrap() > 0.0);
        let c2 = compare(Metric::CpuMs(50), &ra, &rb, &Thresholds::default());
        assert_eq!((c1.ci_low, c1.ci_high), (c2.ci_low, c2.ci_high));
        let back = compare(Metric::CpuMs(50), &rb, &ra, &Thresholds::default());
        assert_eq!(back.verdict, Verdict::Improvement);
    }

    /// An iteration whose every frame took `cpu_ms`.
    fn flat(cpu_ms: i64) -> Iteration {
        Iteration {
            mb_frames: vec![(cpu_ms * 1_000_000, None); 60],
            process_found: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_big_change_whose_interval_straddles_zero_is_not_a_verdict() {
        // Baseline iterations of 5 and 15 ms frames, candidate 6 and 18 ms: pooled medians
        // 10 and 12 ms, +2 ms (+20%), past both thresholds. Resampling iterations gives
        // baseline medians 5/10/15 ms and candidate 6/12/18 ms with probabilities 1/4, 1/2,
        // 1/4, so the candidate is the lower one with probability 5/16: the 95% interval
        // of the difference has a negative lower and a positive upper bound.
        let (b5, b15, c6, c18) = (flat(5), flat(15), flat(6), flat(18));
        let (base, cand) = (vec![&b5, &b15], vec![&c6, &c18]);
        let c = compare(Metric::CpuMs(50), &base, &cand, &Thresholds::default());
        assert_eq!(c.difference, Some(2.0));
        assert!(c.ci_low.unwrap() < 0.0 && c.ci_high.unwrap() > 0.0, "{c:?}");
        assert_eq!(c.verdict, Verdict::NoSignificantChange);
        let back = compare(Metric::CpuMs(50), &cand, &base, &Thresholds::default());
        assert_eq!(back.difference, Some(-2.0));
        assert_eq!(back.verdict, Verdict::NoSignificantChange);
    }

    #[test]
    fn frames_inside_an_iteration_are_resampled() {
        // One iteration of two frames, 2 and 10 ms, on both sides. Resampling its two frames
        // gives a median of 2, 6 or 10 ms with probabilities 1/4, 1/2, 1/4, so the
        // difference is -8 ms with probability 1/16 (> 2.5%) and +8 ms likewise: the 95%
        // interval is exactly [-8, 8]. Without frame resampling it would be [0, 0].
        let it = Iteration {
            mb_frames: vec![(2_000_000, None), (10_000_000, None)],
            process_found: true,
            ..Default::default()
        };
        let c = compare(Metric::CpuMs(50), &[&it], &[&it], &Thresholds::default());
        assert_eq!((c.ci_low, c.ci_high), (Some(-8.0), Some(8.0)));
    }

    #[test]
    fn small_changes_do_not_flag_even_when_significant() {
        let a = its(1, 8, 8.0, 0.1);
        let b = its(2, 8, 8.5, 0.1);
        let (ra, rb): (Vec<&Iteration>, Vec<&Iteration>) = (a.iter().collect(), b.iter().collect());
        let c = compare(Metric::CpuMs(50), &ra, &rb, &Thresholds::default());
        assert!(c.ci_low.unwrap() > 0.0, "the interval excludes zero");
        assert_eq!(
            c.verdict,
            Verdict::NoSignificantChange,
            "but 0.5 ms is under the 1 ms threshold"
        );
    }
}
