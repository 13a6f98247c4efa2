//! `compare`: baseline versus candidate per metric, with a bootstrap confidence interval for
//! the difference (iterations and frames resampled, fixed seed), calling a regression only
//! when the absolute and relative changes both pass their thresholds and the interval
//! excludes zero.

use serde::Serialize;

use super::measure::Iteration;
use super::metrics::{resample, Metric};
use crate::rng::Rng;

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
    let Some((lo, hi)) = bootstrap(th, &metric.name(), |rng| {
        let rb = resample(base, rng);
        let rc = resample(cand, rng);
        let rb: Vec<&Iteration> = rb.iter().collect();
        let rc: Vec<&Iteration> = rc.iter().collect();
        Some(metric.value(&rc)? - metric.value(&rb)?)
    }) else {
        return out;
    };
    out.ci_low = Some(round(lo));
    out.ci_high = Some(round(hi));
    if !metric.higher_is_worse() {
        out.verdict = Verdict::Informational;
        return out;
    }
    out.verdict = verdict(metric, b, diff, th, Some((lo, hi)));
    out
}

/// The `th.confidence` bootstrap interval of a difference: `th.resamples` draws of `one`
/// (which resamples both sides and returns candidate minus baseline, None when a draw has
/// no value), from a generator seeded by `th.seed` and `name`, so each named quantity's
/// interval is reproducible on its own. None when no draw had a value.
pub fn bootstrap(
    th: &Thresholds,
    name: &str,
    mut one: impl FnMut(&mut Rng) -> Option<f64>,
) -> Option<(f64, f64)> {
    let mut rng = Rng::new(
        th.seed
            ^ name
                .bytes()
                .fold(0u64, |h, x| h.wrapping_mul(31).wrapping_add(x as u64)),
    );
    let mut diffs: Vec<f64> = (0..th.resamples).filter_map(|_| one(&mut rng)).collect();
    if diffs.is_empty() {
        return None;
    }
    diffs.sort_by(f64::total_cmp);
    let alpha = (1.0 - th.confidence) / 2.0;
    Some((quantile(&diffs, alpha), quantile(&diffs, 1.0 - alpha)))
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
    let abs_needed = match metric.unit() {
        "ms" => th.abs_ms,
        "%" => th.abs_pct,
        _ => th.abs_frames,
    };
    verdict_at(abs_needed, b, diff, th, interval)
}

/// [`verdict`] with the absolute threshold given (`th.rel_pct` still applies).
pub fn verdict_at(
    abs_needed: f64,
    b: f64,
    diff: f64,
    th: &Thresholds,
    interval: Option<(f64, f64)>,
) -> Verdict {
    let (lo, hi) = interval.unwrap_or((diff, diff));
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
    use std::collections::BTreeMap;

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

    /// An iteration of frames with these CPU times (ms) and no overrun.
    fn frames(cpu_ms: &[i64]) -> Iteration {
        Iteration {
            mb_frames: cpu_ms.iter().map(|c| (c * 1_000_000, None)).collect(),
            process_found: true,
            ..Default::default()
        }
    }

    /// The median of a sorted list: the middle value, or the mean of the two middle ones.
    fn median(sorted: &[i64]) -> f64 {
        let m = sorted.len();
        if m % 2 == 1 {
            sorted[m / 2] as f64
        } else {
            (sorted[m / 2 - 1] + sorted[m / 2]) as f64 / 2.0
        }
    }

    /// Independent model of the two-level bootstrap: the exact distribution of one side's
    /// pooled median, enumerating for each of the n slots every iteration (1/n each) and
    /// then every draw of that iteration's m frames (1/m each), merging outcomes that pool
    /// the same frames. Returns (median ms, probability).
    fn exact_medians(its: &[&[i64]]) -> Vec<(f64, f64)> {
        let mut states: BTreeMap<Vec<i64>, f64> = BTreeMap::from([(Vec::new(), 1.0)]);
        for _slot in its {
            let mut next = BTreeMap::new();
            for it in its {
                let mut s: BTreeMap<Vec<i64>, f64> = states
                    .iter()
                    .map(|(k, p)| (k.clone(), p / its.len() as f64))
                    .collect();
                for _draw in it.iter() {
                    let mut t = BTreeMap::new();
                    for (k, p) in &s {
                        for &f in it.iter() {
                            let mut k = k.clone();
                            k.insert(k.partition_point(|x| *x <= f), f);
                            *t.entry(k).or_insert(0.0) += p / it.len() as f64;
                        }
                    }
                    s = t;
                }
                for (k, p) in s {
                    *next.entry(k).or_insert(0.0) += p;
                }
            }
            states = next;
        }
        states.iter().map(|(k, p)| (median(k), *p)).collect()
    }

    /// The exact distribution of candidate minus baseline median, keyed by half
    /// milliseconds (every median here is a multiple of 0.5 ms).
    fn exact_differences(base: &[&[i64]], cand: &[&[i64]]) -> BTreeMap<i64, f64> {
        let mut d = BTreeMap::new();
        for (x, p) in exact_medians(base) {
            for (y, q) in exact_medians(cand) {
                *d.entry(((y - x) * 2.0).round() as i64).or_insert(0.0) += p * q;
            }
        }
        d
    }

    /// The q-quantile of a discrete distribution: the smallest value whose cumulative
    /// probability reaches q. The atom must hold q with a margin of 1.5 points on both
    /// sides (3 standard errors of a 1000-resample estimate near 2.5%), so that the Monte
    /// Carlo interval of `compare` lands on the same value.
    fn exact_quantile(d: &BTreeMap<i64, f64>, q: f64) -> f64 {
        let mut below = 0.0;
        for (&v, &p) in d {
            if below + p >= q {
                assert!(
                    below <= q - 0.015 && below + p >= q + 0.015,
                    "{q} too close to an edge"
                );
                return v as f64 / 2.0;
            }
            below += p;
        }
        unreachable!("probabilities add up to 1")
    }

    #[test]
    fn the_exact_model_agrees_with_hand_calculation() {
        // One slot, one iteration of frames 2 and 10 ms: medians 2, 6, 10 with 1/4, 1/2, 1/4.
        assert_eq!(
            exact_medians(&[&[2, 10]]),
            [(2.0, 0.25), (6.0, 0.5), (10.0, 0.25)]
        );
        // Two single-frame iterations 5 and 15 ms: medians 5, 10, 15 with 1/4, 1/2, 1/4.
        let mut m = exact_medians(&[&[5], &[15]]);
        m.sort_by(|a, b| a.0.total_cmp(&b.0));
        assert_eq!(m, [(5.0, 0.25), (10.0, 0.5), (15.0, 0.25)]);
    }

    #[test]
    fn intervals_and_verdicts_match_an_exact_enumeration_of_the_bootstrap() {
        // (baseline, candidate, interval the exact model must give, verdict). The intervals
        // are the model's; the hand-derived ones are written out where the sets are small.
        type Case<'a> = (
            &'a [&'a [i64]],
            &'a [&'a [i64]],
            Option<(f64, f64)>,
            Verdict,
        );
        let cases: [Case; 9] = [
            // 5/15 vs 6/18 ms iterations: +2 ms (+20%), differences -9 (1/16) .. 13 (1/16):
            // the interval straddles zero, so no verdict. With the upper bound in place of
            // the lower one this would read as a regression.
            (
                &[&[5], &[15]],
                &[&[6], &[18]],
                Some((-9.0, 13.0)),
                Verdict::NoSignificantChange,
            ),
            // Mirror image: with the lower bound in place of the upper, an improvement.
            (
                &[&[6], &[18]],
                &[&[5], &[15]],
                Some((-13.0, 9.0)),
                Verdict::NoSignificantChange,
            ),
            // 5/6 vs 10/12 ms: medians 5..6 and 10..12, differences 4 (1/16) .. 7 (1/16).
            (
                &[&[5], &[6]],
                &[&[10], &[12]],
                Some((4.0, 7.0)),
                Verdict::Regression,
            ),
            (
                &[&[10], &[12]],
                &[&[5], &[6]],
                Some((-7.0, -4.0)),
                Verdict::Improvement,
            ),
            // Only frame resampling moves the median: -8 (1/16) .. 8 (1/16).
            (
                &[&[2, 10]],
                &[&[2, 10]],
                Some((-8.0, 8.0)),
                Verdict::NoSignificantChange,
            ),
            // Both levels at once: +2 ms (+50%) but an interval of [-5, 6].
            (
                &[&[2, 10], &[4]],
                &[&[6, 8], &[5]],
                None,
                Verdict::NoSignificantChange,
            ),
            // Closed form: every frame the same on each side, so every resample's difference
            // is exactly +3 ms and the interval is [3, 3].
            (
                &[&[4, 4], &[4]],
                &[&[7], &[7, 7]],
                Some((3.0, 3.0)),
                Verdict::Regression,
            ),
            // 10/10 vs 10/14 ms: +2 ms (+20%), differences 0 (1/4), 2 (1/2), 4 (1/4): the
            // interval [0, 4] touches zero and does not exclude it. And the mirror image.
            (
                &[&[10], &[10]],
                &[&[10], &[14]],
                Some((0.0, 4.0)),
                Verdict::NoSignificantChange,
            ),
            (
                &[&[10], &[14]],
                &[&[10], &[10]],
                Some((-4.0, 0.0)),
                Verdict::NoSignificantChange,
            ),
        ];
        for (base, cand, hand, verdict) in cases {
            let d = exact_differences(base, cand);
            let exact = (exact_quantile(&d, 0.025), exact_quantile(&d, 0.975));
            if let Some(hand) = hand {
                assert_eq!(exact, hand, "model vs hand, {base:?} -> {cand:?}");
            }
            let (b, c): (Vec<Iteration>, Vec<Iteration>) = (
                base.iter().map(|f| frames(f)).collect(),
                cand.iter().map(|f| frames(f)).collect(),
            );
            let got = compare(
                Metric::CpuMs(50),
                &b.iter().collect::<Vec<_>>(),
                &c.iter().collect::<Vec<_>>(),
                &Thresholds::default(),
            );
            assert_eq!(
                (got.ci_low, got.ci_high),
                (Some(exact.0), Some(exact.1)),
                "{base:?} -> {cand:?}"
            );
            assert_eq!(got.verdict, verdict, "{base:?} -> {cand:?}: {got:?}");
        }
    }

    #[test]
    fn quantile_interpolates_linearly_between_closest_ranks() {
        // Hand calculation with the "linear" rule (R type 7, numpy's default): position
        // q·(n−1), then interpolate between the two neighbouring order statistics.
        let v = [0.0, 10.0, 20.0, 30.0];
        assert_eq!(quantile(&v, 0.0), 0.0);
        assert_eq!(quantile(&v, 0.5), 15.0); // position 1.5
        assert!((quantile(&v, 0.9) - 27.0).abs() < 1e-9); // position 2.7
        assert_eq!(quantile(&v, 1.0), 30.0);
        assert_eq!(quantile(&[4.0], 0.975), 4.0);
    }

    #[test]
    fn relative_change_is_against_the_baseline_and_absent_from_zero() {
        // 10 -> 12 ms is +2 ms, +20% of the baseline; 12 -> 10 is -2 ms, -16.6667%.
        let (b, c) = (frames(&[10]), frames(&[12]));
        let up = compare(Metric::CpuMs(50), &[&b], &[&c], &Thresholds::default());
        assert_eq!((up.difference, up.relative_pct), (Some(2.0), Some(20.0)));
        let down = compare(Metric::CpuMs(50), &[&c], &[&b], &Thresholds::default());
        assert_eq!(
            (down.difference, down.relative_pct),
            (Some(-2.0), Some(-16.6667))
        );
        // No frozen frame (> 700 ms) in the baseline, one in the candidate: +1 frame, and no
        // percentage of a zero baseline.
        let frozen = frames(&[800]);
        let f = compare(
            Metric::FrozenFrames,
            &[&b],
            &[&frozen],
            &Thresholds::default(),
        );
        assert_eq!((f.difference, f.relative_pct), (Some(1.0), None));
    }

    #[test]
    fn each_unit_has_its_own_absolute_threshold() {
        // 10 -> 12 ms in every frame: +2 ms (+20%), interval exactly [2, 2]. A regression
        // at the default 1 ms, none when durations need 3 ms (the frame count's 1 would pass).
        let (b, c) = (frames(&[10]), frames(&[12]));
        let th = Thresholds {
            abs_ms: 3.0,
            ..Thresholds::default()
        };
        let run = |th: &Thresholds| compare(Metric::CpuMs(50), &[&b, &b], &[&c, &c], th).verdict;
        assert_eq!(run(&Thresholds::default()), Verdict::Regression);
        assert_eq!(run(&th), Verdict::NoSignificantChange);
        // Jank rate 0% -> 1.5% (3 janky frames in 200, in each of 4 iterations): +1.5 points,
        // under the 2-point rate threshold though past the frame count's 1; 0% -> 2.5% passes.
        // A resample keeps no janky frame with probability about e^-12 (12 of 800 pooled),
        // so the interval is above zero either way.
        let tagged = |janky: usize| Iteration {
            timeline_tags: (0..200)
                .map(|i| if i < janky { "Self Jank" } else { "No Jank" }.to_string())
                .collect(),
            process_found: true,
            ..Default::default()
        };
        let (none, three, five) = (tagged(0), tagged(3), tagged(5));
        let rate = |cand: &Iteration| {
            compare(
                Metric::JankRate,
                &[&none; 4],
                &[cand; 4],
                &Thresholds::default(),
            )
        };
        let small = rate(&three);
        assert_eq!(small.difference, Some(1.5));
        assert!(small.ci_low.unwrap() > 0.0, "{small:?}");
        assert_eq!(small.verdict, Verdict::NoSignificantChange);
        assert_eq!(rate(&five).verdict, Verdict::Regression);
    }

    #[test]
    fn the_relative_threshold_is_a_share_of_the_baseline() {
        // Every frame the same, so the interval is the difference itself. 100 -> 105 ms is
        // +5 ms but only +5%, under the 10% threshold; 40 -> 45 ms is +5 ms and +12.5%.
        let verdict = |b: i64, c: i64| {
            let (b, c) = (frames(&[b]), frames(&[c]));
            compare(Metric::CpuMs(50), &[&b], &[&c], &Thresholds::default()).verdict
        };
        assert_eq!(verdict(100, 105), Verdict::NoSignificantChange);
        assert_eq!(verdict(105, 100), Verdict::NoSignificantChange);
        assert_eq!(verdict(40, 45), Verdict::Regression);
        assert_eq!(verdict(45, 40), Verdict::Improvement);
    }

    #[test]
    fn tags_inside_an_iteration_are_resampled_and_frame_count_has_no_verdict() {
        // One iteration tagged Self Jank / No Jank on both sides: a resample's jank rate is
        // 0, 50 or 100% with 1/4, 1/2, 1/4, so the difference is -100 points with
        // probability 1/16 and +100 likewise: the 95% interval is [-100, 100].
        let it = Iteration {
            timeline_tags: vec!["Self Jank".into(), "No Jank".into()],
            process_found: true,
            ..Default::default()
        };
        let c = compare(Metric::JankRate, &[&it], &[&it], &Thresholds::default());
        assert_eq!((c.ci_low, c.ci_high), (Some(-100.0), Some(100.0)));
        // Twice the frames is not worse: the frame count is reported without a verdict.
        let (one, two) = (frames(&[10]), frames(&[10, 10]));
        let n = compare(Metric::FrameCount, &[&one], &[&two], &Thresholds::default());
        assert_eq!(n.difference, Some(1.0));
        assert_eq!(n.verdict, Verdict::Informational);
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
