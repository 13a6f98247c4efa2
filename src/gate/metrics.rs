//! The metrics the CI gate evaluates, computed over a set of iterations with their frames
//! pooled the way Macrobenchmark pools them (every frame of every iteration in one list).

use crate::analysis::frame_timing::percentile;
use crate::rng::Rng;
use crate::trace::frame_timeline_vocab as vocab;

use super::analyzed::AnalyzedMetric;
use super::measure::Iteration;

/// A metric name and how to compute it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    FrameCount,
    /// Janky (Self Jank, Other Jank, Dropped Frame) FrameTimeline frames, percent.
    JankRate,
    /// Percent of FrameTimeline frames with this jank tag.
    TagRate(&'static str),
    CpuMs(u32),
    OverrunMs(u32),
    /// Frames whose CPU time is over 700 ms (Android vitals' frozen frame, the same
    /// definition as analyze's `vitals.frozen`).
    FrozenFrames,
    /// A metric from analyze's verdicts (per-definition jank rates, vsyncs, causes).
    Analyzed(AnalyzedMetric),
}

pub const TAGS: [&str; 5] = [
    vocab::TAG_SELF,
    vocab::TAG_OTHER,
    vocab::TAG_DROPPED,
    vocab::TAG_BUFFER_STUFFING,
    vocab::TAG_SF_STUFFING,
];

impl Metric {
    pub fn name(&self) -> String {
        match self {
            Metric::FrameCount => "frame_count".into(),
            Metric::JankRate => "jank_rate_pct".into(),
            Metric::TagRate(t) => format!("jank_rate_pct[{t}]"),
            Metric::CpuMs(p) => format!("frame_cpu_ms_p{p}"),
            Metric::OverrunMs(p) => format!("frame_overrun_ms_p{p}"),
            Metric::FrozenFrames => "frozen_frames".into(),
            Metric::Analyzed(a) => a.name(),
        }
    }

    pub fn parse(s: &str) -> Option<Metric> {
        let pct = |rest: &str| rest.parse::<u32>().ok().filter(|p| *p <= 100);
        match s {
            "frame_count" => Some(Metric::FrameCount),
            "jank_rate_pct" | "jank_rate" => Some(Metric::JankRate),
            "frozen_frames" => Some(Metric::FrozenFrames),
            _ => {
                if let Some(a) = AnalyzedMetric::parse(s) {
                    return Some(Metric::Analyzed(a));
                }
                if let Some(r) = s.strip_prefix("frame_cpu_ms_p") {
                    return pct(r).map(Metric::CpuMs);
                }
                if let Some(r) = s.strip_prefix("frame_overrun_ms_p") {
                    return pct(r).map(Metric::OverrunMs);
                }
                // Macrobenchmark's own names: `frameDurationCpuMs_P95` (also `.P95`).
                for (mb, make) in [
                    ("frameDurationCpuMs", Metric::CpuMs as fn(u32) -> Metric),
                    ("frameOverrunMs", Metric::OverrunMs),
                ] {
                    if let Some(r) = s.strip_prefix(mb) {
                        let r = r.strip_prefix("_P").or_else(|| r.strip_prefix(".P"))?;
                        return pct(r).filter(|p| [50, 90, 95, 99].contains(p)).map(make);
                    }
                }
                let tag = s.strip_prefix("jank_rate_pct[")?.strip_suffix(']')?;
                TAGS.iter().find(|t| **t == tag).map(|t| Metric::TagRate(t))
            }
        }
    }

    /// The error for a name `parse` does not know, listing the names it does.
    pub fn unknown(name: &str) -> anyhow::Error {
        let definitions: Vec<&str> = crate::analysis::definitions::Definition::ALL
            .into_iter()
            .map(|d| d.key())
            .collect();
        anyhow::anyhow!(
            "unknown metric {name:?}; known: frame_count, jank_rate_pct, jank_rate_pct[TAG] \
             (TAG: {}), frame_cpu_ms_pNN, frame_overrun_ms_pNN, frameDurationCpuMs_P50|P90|P95|P99, \
             frameOverrunMs_P50|P90|P95|P99, frozen_frames, jank_rate_pct_DEFINITION \
             (DEFINITION: {}), missed_vsyncs, frames_missed_vsync, slow_frames, \
             cause_ms[CATEGORY] (the cause ids of analyze --format json)",
            TAGS.join(", "),
            definitions.join(", ")
        )
    }

    /// Unit for people ("ms", "%", "frames").
    pub fn unit(&self) -> &'static str {
        match self {
            Metric::FrameCount | Metric::FrozenFrames => "frames",
            Metric::JankRate | Metric::TagRate(_) => "%",
            Metric::CpuMs(_) | Metric::OverrunMs(_) => "ms",
            Metric::Analyzed(a) => a.unit(),
        }
    }

    /// Whether a larger value is worse (frame count is not).
    pub fn higher_is_worse(&self) -> bool {
        !matches!(self, Metric::FrameCount)
    }

    /// The value over the pooled frames of `its`; None when the data does not allow it
    /// (no FrameTimeline for rates, API < 31 for overrun, no frames).
    pub fn value(&self, its: &[&Iteration]) -> Option<f64> {
        match self {
            Metric::Analyzed(a) => a.value(its),
            Metric::FrameCount => Some(its.iter().map(|i| i.mb_frames.len()).sum::<usize>() as f64),
            Metric::FrozenFrames => Some(
                its.iter()
                    .flat_map(|i| &i.mb_frames)
                    .filter(|f| crate::analysis::definitions::vitals::is_frozen(f.0))
                    .count() as f64,
            ),
            Metric::JankRate | Metric::TagRate(_) => {
                let total: usize = its.iter().map(|i| i.timeline_tags.len()).sum();
                if total == 0 {
                    return None;
                }
                let hit = its
                    .iter()
                    .flat_map(|i| &i.timeline_tags)
                    .filter(|t| match self {
                        Metric::TagRate(x) => t.as_str() == *x,
                        _ => crate::trace::frame_timeline_vocab::user_visible_jank_tag(t),
                    })
                    .count();
                Some(hit as f64 * 100.0 / total as f64)
            }
            Metric::CpuMs(p) => pooled(
                its.iter()
                    .flat_map(|i| i.mb_frames.iter().map(|f| Some(f.0))),
                *p,
            ),
            Metric::OverrunMs(p) => {
                pooled(its.iter().flat_map(|i| i.mb_frames.iter().map(|f| f.1)), *p)
            }
        }
    }
}

fn pooled(values: impl Iterator<Item = Option<i64>>, p: u32) -> Option<f64> {
    let mut v: Vec<f64> = values
        .map(|x| x.map(|n| n as f64 / 1e6))
        .collect::<Option<Vec<_>>>()?;
    v.sort_by(f64::total_cmp);
    percentile(&v, p)
}

/// The metrics `compare` reports, in order.
pub fn compare_set() -> Vec<Metric> {
    let mut m = vec![Metric::FrameCount, Metric::JankRate];
    m.extend(TAGS.iter().map(|t| Metric::TagRate(t)));
    m.extend([50, 90, 95, 99].map(Metric::CpuMs));
    m.extend([50, 90, 95, 99].map(Metric::OverrunMs));
    m.push(Metric::FrozenFrames);
    m
}

/// A two-level bootstrap resample: iterations with replacement, then each chosen
/// iteration's frames with replacement.
pub fn resample(its: &[&Iteration], rng: &mut Rng) -> Vec<Iteration> {
    (0..its.len())
        .map(|_| {
            let it = its[pick(its.len(), rng)];
            Iteration {
                mb_frames: redraw(&it.mb_frames, rng),
                timeline_tags: redraw(&it.timeline_tags, rng),
                ..it.clone()
            }
        })
        .collect()
}

/// [`resample`] over any per-frame values: iterations, then each one's values.
pub fn resample_values<T: Clone>(its: &[&[T]], rng: &mut Rng) -> Vec<Vec<T>> {
    (0..its.len())
        .map(|_| redraw(its[pick(its.len(), rng)], rng))
        .collect()
}

/// One of `n` items, uniformly.
fn pick(n: usize, rng: &mut Rng) -> usize {
    rng.range(0, n as i64 - 1) as usize
}

/// As many draws from `v`, with replacement.
fn redraw<T: Clone>(v: &[T], rng: &mut Rng) -> Vec<T> {
    (0..v.len())
        .map(|_| v[pick(v.len(), rng)].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn it(cpu_ms: &[i64], tags: &[&str]) -> Iteration {
        Iteration {
            mb_frames: cpu_ms
                .iter()
                .map(|c| (c * 1_000_000, Some(c * 1_000_000 - 16_000_000)))
                .collect(),
            timeline_tags: tags.iter().map(|t| t.to_string()).collect(),
            process_found: true,
            api_level: 33,
            ..Default::default()
        }
    }

    #[test]
    fn pooled_values() {
        let a = it(&[1, 2, 3], &["No Jank", "Self Jank"]);
        let b = it(&[4, 5, 800], &["Buffer Stuffing", "Other Jank"]);
        let its = [&a, &b];
        assert_eq!(Metric::FrameCount.value(&its), Some(6.0));
        assert_eq!(Metric::JankRate.value(&its), Some(50.0));
        assert_eq!(Metric::TagRate("Buffer Stuffing").value(&its), Some(25.0));
        assert_eq!(Metric::CpuMs(50).value(&its), Some(3.5));
        assert_eq!(Metric::OverrunMs(50).value(&its), Some(3.5 - 16.0));
        assert_eq!(Metric::FrozenFrames.value(&its), Some(1.0));
    }

    #[test]
    fn names_round_trip() {
        for m in compare_set() {
            assert_eq!(Metric::parse(&m.name()), Some(m));
        }
        assert_eq!(Metric::parse("frame_cpu_ms_p101"), None);
    }

    #[test]
    fn overrun_is_unavailable_when_any_frame_lacks_it() {
        let mut a = it(&[1, 2], &[]);
        a.mb_frames[0].1 = None;
        assert_eq!(Metric::OverrunMs(90).value(&[&a]), None);
        assert_eq!(Metric::JankRate.value(&[&a]), None);
    }
}
