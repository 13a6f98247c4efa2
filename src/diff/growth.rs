//! The slices that grew in one interaction, and each frame pair's largest grown slice.
//!
//! Per (thread role, normalised name) the time is summed over the interaction's frames, as
//! self time (the slice minus its children) and wall time. Self time ranks: when `inflate`
//! nested in doFrame grows, doFrame's wall time grows as much but its self time does not, so
//! the leaf that grew comes first. A name is claimed to have grown when its mean time per
//! frame (frames it did not run in count 0) rose by at least the absolute threshold (ms)
//! and the relative one, each side has at least the gate's minimum of frames (10) pooled
//! over its iterations, and the bootstrap interval of that rise (`compare`'s two-level
//! resampling of iterations and frames, its seed rule) excludes zero: self time first, else
//! wall time. A name no baseline frame of the interaction ran is `new` when it ran in every
//! candidate iteration for at least the absolute threshold (wall time) in each: one new
//! call in one frame is a fact, not noise, though its interval spans zero. Claims are ranked by the
//! self time added in the candidate's janky frames (paired frames' difference; an unpaired
//! candidate frame counts whole), then by the self time added overall.

use std::collections::BTreeSet;

use serde::Serialize;

use super::align::{align, Pairs};
use super::matching::Matched;
use super::sample::{FrameSample, Role, SliceKey, SliceTime};
use crate::analysis::trust::MIN_FRAMES;
use crate::gate::compare::{bootstrap, round, verdict_at, Thresholds, Verdict};
use crate::gate::metrics::resample_values;

/// What made the claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GrewBy {
    SelfTime,
    WallTime,
    New,
}

/// A slice name that grew in one interaction. Times are ms per iteration (the mean over a
/// side's iterations).
#[derive(Debug, Clone, Serialize)]
pub struct GrownSlice {
    pub role: Role,
    pub name: String,
    pub grew_by: GrewBy,
    /// No baseline frame of the interaction ran a slice of this name.
    pub new: bool,
    pub base_self_ms: f64,
    pub cand_self_ms: f64,
    pub added_self_ms: f64,
    pub base_wall_ms: f64,
    pub cand_wall_ms: f64,
    pub added_wall_ms: f64,
    /// Frames that ran it.
    pub base_frames: f64,
    pub cand_frames: f64,
    /// Self time per frame that ran it.
    pub base_per_frame_ms: f64,
    pub cand_per_frame_ms: f64,
    pub added_per_frame_ms: f64,
    /// Self time added in the candidate's janky frames: the rank.
    pub added_janky_ms: f64,
    /// The bootstrap interval of the rise in mean time per frame (self, or wall when wall
    /// time made the claim); a `new` name is claimed whatever its interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_low_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_high_ms: Option<f64>,
}

/// A frame pair's largest grown slice (self time), with where it is in each trace.
#[derive(Debug, Clone, Serialize)]
pub struct FramePair {
    /// Frame start in the baseline's and the candidate's first iteration (absent: unpaired).
    pub base_frame_ts: Option<i64>,
    pub cand_frame_ts: Option<i64>,
    pub cand_janky: bool,
    pub role: Role,
    pub name: String,
    pub added_ms: f64,
    /// Start of the slice's largest instance in each trace (absent where it did not run).
    pub base_slice_ts: Option<i64>,
    pub cand_slice_ts: Option<i64>,
}

const NS_PER_MS: f64 = 1e6;

/// Per-frame values of one slice key, per iteration.
fn per_frame(
    windows: &[Vec<&FrameSample>],
    key: &SliceKey,
    of: fn(&SliceTime) -> i64,
) -> Vec<Vec<f64>> {
    windows
        .iter()
        .map(|fs| {
            fs.iter()
                .map(|f| f.slices.get(key).map_or(0.0, |t| of(t) as f64 / NS_PER_MS))
                .collect()
        })
        .collect()
}

fn mean_per_frame(its: &[Vec<f64>]) -> Option<f64> {
    let n: usize = its.iter().map(Vec::len).sum();
    (n > 0).then(|| its.iter().flatten().sum::<f64>() / n as f64)
}

/// Mean over iterations of each iteration's sum.
fn per_iteration(its: &[Vec<f64>]) -> f64 {
    its.iter().map(|v| v.iter().sum::<f64>()).sum::<f64>() / its.len().max(1) as f64
}

fn frames_with(its: &[Vec<f64>]) -> f64 {
    its.iter().flatten().filter(|v| **v > 0.0).count() as f64 / its.len().max(1) as f64
}

/// The bootstrap interval of the rise in mean time per frame.
fn interval(
    th: &Thresholds,
    seed_name: &str,
    base: &[Vec<f64>],
    cand: &[Vec<f64>],
) -> Option<(f64, f64)> {
    let (bs, cs): (Vec<&[f64]>, Vec<&[f64]>) = (
        base.iter().map(Vec::as_slice).collect(),
        cand.iter().map(Vec::as_slice).collect(),
    );
    bootstrap(th, seed_name, |rng| {
        let rb = resample_values(&bs, rng);
        let rc = resample_values(&cs, rng);
        Some(mean_per_frame(&rc)? - mean_per_frame(&rb)?)
    })
}

/// Whether a side has frames enough for a claim: the gate's minimum for a rate or a
/// percentile ([`MIN_FRAMES`]), pooled over iterations. Fewer frames say too little of the
/// frame-to-frame spread for the bootstrap to bound it (a single frame's interval is a
/// point).
pub fn enough_frames(its: &[Vec<f64>]) -> bool {
    its.iter().map(Vec::len).sum::<usize>() >= MIN_FRAMES
}

/// The interval when the mean per frame rose past both thresholds and the interval
/// excludes zero.
fn rose(
    th: &Thresholds,
    seed_name: &str,
    base: &[Vec<f64>],
    cand: &[Vec<f64>],
) -> Option<(f64, f64)> {
    let (b, c) = (mean_per_frame(base)?, mean_per_frame(cand)?);
    let diff = c - b;
    if diff < th.abs_ms || !enough_frames(base) || !enough_frames(cand) {
        return None;
    }
    let i = interval(th, seed_name, base, cand)?;
    (verdict_at(th.abs_ms, b, diff, th, Some(i)) == Verdict::Regression).then_some(i)
}

/// The frames of each iteration's window of the interaction.
pub fn frames_of<'a>(windows: &[&'a super::matching::Window]) -> Vec<Vec<&'a FrameSample>> {
    windows.iter().map(|w| w.frames.iter().collect()).collect()
}

/// The frame pairs of each iteration pair (baseline iteration i with candidate iteration i).
pub fn iteration_pairs(m: &Matched<'_>) -> Vec<Pairs> {
    m.base
        .iter()
        .zip(&m.cand)
        .map(|(b, c)| align(&b.frames, &c.frames).1)
        .collect()
}

/// Self time of `key` the candidate added in its janky frames, per iteration pair.
fn added_janky(m: &Matched<'_>, pairs: &[Pairs], key: &SliceKey) -> f64 {
    let mut sum = 0i64;
    for ((b, c), ps) in m.base.iter().zip(&m.cand).zip(pairs) {
        for &(bi, ci) in ps {
            let Some(cf) = ci.map(|j| &c.frames[j]).filter(|f| f.janky) else {
                continue;
            };
            sum += cf.self_ns(key) - bi.map_or(0, |i| b.frames[i].self_ns(key));
        }
    }
    sum as f64 / NS_PER_MS / pairs.len().max(1) as f64
}

/// Every claimed slice of the interaction, ranked.
pub fn grown_slices(m: &Matched<'_>, pairs: &[Pairs], th: &Thresholds) -> Vec<GrownSlice> {
    let (bf, cf) = (frames_of(&m.base), frames_of(&m.cand));
    let keys: BTreeSet<&SliceKey> = bf
        .iter()
        .chain(&cf)
        .flatten()
        .flat_map(|f| f.slices.keys())
        .collect();
    let mut out = Vec::new();
    for key in keys {
        let self_of = |t: &SliceTime| t.self_ns;
        let wall_of = |t: &SliceTime| t.wall_ns;
        let (bs, cs) = (per_frame(&bf, key, self_of), per_frame(&cf, key, self_of));
        let (bw, cw) = (per_frame(&bf, key, wall_of), per_frame(&cf, key, wall_of));
        let in_base = bf.iter().flatten().any(|f| f.slices.contains_key(key));
        let seed = |what: &str| format!("diff:{}:{}:{what}", key.0.label(), key.1);
        let claim = if !in_base {
            let every = cw.iter().all(|it| it.iter().sum::<f64>() >= th.abs_ms);
            every.then(|| (GrewBy::New, interval(th, &seed("self"), &bs, &cs)))
        } else if let Some(i) = rose(th, &seed("self"), &bs, &cs) {
            Some((GrewBy::SelfTime, Some(i)))
        } else {
            rose(th, &seed("wall"), &bw, &cw).map(|i| (GrewBy::WallTime, Some(i)))
        };
        let Some((grew_by, interval)) = claim else {
            continue;
        };
        let (b_self, c_self) = (per_iteration(&bs), per_iteration(&cs));
        let (b_n, c_n) = (frames_with(&bs), frames_with(&cs));
        let per = |total: f64, n: f64| if n > 0.0 { total / n } else { 0.0 };
        out.push(GrownSlice {
            role: key.0,
            name: key.1.clone(),
            grew_by,
            new: !in_base,
            base_self_ms: round(b_self),
            cand_self_ms: round(c_self),
            added_self_ms: round(c_self - b_self),
            base_wall_ms: round(per_iteration(&bw)),
            cand_wall_ms: round(per_iteration(&cw)),
            added_wall_ms: round(per_iteration(&cw) - per_iteration(&bw)),
            base_frames: round(b_n),
            cand_frames: round(c_n),
            base_per_frame_ms: round(per(b_self, b_n)),
            cand_per_frame_ms: round(per(c_self, c_n)),
            added_per_frame_ms: round(per(c_self, c_n) - per(b_self, b_n)),
            added_janky_ms: round(added_janky(m, pairs, key)),
            ci_low_ms: interval.map(|i| round(i.0)),
            ci_high_ms: interval.map(|i| round(i.1)),
        });
    }
    out.sort_by(|a, b| {
        b.added_janky_ms
            .total_cmp(&a.added_janky_ms)
            .then(b.added_self_ms.total_cmp(&a.added_self_ms))
            .then((a.role, &a.name).cmp(&(b.role, &b.name)))
    });
    out
}

/// Each frame pair of the first iteration pair whose largest self-time rise is at least the
/// absolute threshold, with that slice.
pub fn frame_pairs(m: &Matched<'_>, pairs: &[Pairs], th: &Thresholds) -> Vec<FramePair> {
    let (Some(b), Some(c), Some(ps)) = (m.base.first(), m.cand.first(), pairs.first()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &(bi, ci) in ps {
        let Some(cf) = ci.map(|j| &c.frames[j]) else {
            continue;
        };
        let bf = bi.map(|i| &b.frames[i]);
        let best = cf
            .slices
            .iter()
            .map(|(k, t)| (t.self_ns - bf.map_or(0, |f| f.self_ns(k)), k, t))
            .max_by(|x, y| x.0.cmp(&y.0).then(y.1.cmp(x.1)));
        let Some((added, key, t)) = best else {
            continue;
        };
        let added_ms = added as f64 / NS_PER_MS;
        if added_ms < th.abs_ms {
            continue;
        }
        out.push(FramePair {
            base_frame_ts: bf.map(|f| f.ts),
            cand_frame_ts: Some(cf.ts),
            cand_janky: cf.janky,
            role: key.0,
            name: key.1.clone(),
            added_ms: round(added_ms),
            base_slice_ts: bf.and_then(|f| f.slices.get(key)).map(|t| t.top_ts),
            cand_slice_ts: Some(t.top_ts),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::matching::{Window, WindowKey};
    use crate::rng::Rng;

    const MS: i64 = 1_000_000;

    fn time(self_ns: i64, wall_ns: i64) -> SliceTime {
        SliceTime {
            self_ns,
            wall_ns,
            ..Default::default()
        }
    }

    /// A scroll of 30 frames: doFrame (0.1 ms self) around `measure` (3 ms ± 0.5 ms by
    /// `seed`), plus `extra` ms of `inflate` nested in doFrame in every frame when given.
    fn window(seed: u64, extra: Option<i64>, janky: bool) -> Window {
        let mut rng = Rng::new(seed);
        let frames = (0..30)
            .map(|i| {
                let measure = 3 * MS + rng.range(-MS / 2, MS / 2);
                let inflate = extra.unwrap_or(0) * MS;
                let mut slices = std::collections::BTreeMap::new();
                let do_frame = (Role::UiThread, "Choreographer#doFrame N".to_string());
                slices.insert(do_frame, time(MS / 10, MS / 10 + measure + inflate));
                slices.insert((Role::UiThread, "measure".into()), time(measure, measure));
                if extra.is_some() {
                    slices.insert((Role::UiThread, "inflate".into()), time(inflate, inflate));
                }
                FrameSample {
                    ts: i * 16 * MS,
                    period_ns: 16 * MS,
                    janky,
                    slices,
                    ..Default::default()
                }
            })
            .collect();
        Window {
            key: WindowKey {
                process: "app".into(),
                source: "scroll".into(),
                label: "scroll".into(),
                ordinal: 1,
            },
            ts: 0,
            dur: 480 * MS,
            frames,
        }
    }

    fn claims(base: &[Window], cand: &[Window]) -> Vec<GrownSlice> {
        let m = Matched {
            key: base[0].key.clone(),
            base: base.iter().collect(),
            cand: cand.iter().collect(),
        };
        let pairs = iteration_pairs(&m);
        grown_slices(&m, &pairs, &crate::diff::DiffThresholds::default().gate())
    }

    #[test]
    fn a_nested_leaf_that_grew_ranks_above_its_parent() {
        // Expected values are the planted ones: 6 ms of inflate in each of 30 janky frames
        // (180 ms), doFrame's wall time 6 ms longer per frame and its self time unchanged.
        let c = claims(&[window(1, None, false)], &[window(2, Some(6), true)]);
        let names: Vec<&str> = c.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["inflate", "Choreographer#doFrame N"], "{c:#?}");
        let inflate = &c[0];
        assert!(inflate.new);
        assert_eq!(inflate.grew_by, GrewBy::New);
        assert_eq!(inflate.added_per_frame_ms, 6.0);
        assert_eq!(inflate.added_janky_ms, 180.0);
        assert_eq!(c[1].grew_by, GrewBy::WallTime);
        assert!((c[1].added_wall_ms - 180.0).abs() < 30.0 * 0.5 * 2.0);
        assert!(c[1].ci_low_ms.unwrap() > 0.0);
    }

    #[test]
    fn the_same_frames_and_reseeded_noise_make_no_claims() {
        assert!(claims(&[window(1, None, true)], &[window(1, None, true)]).is_empty());
        for seed in 2..12 {
            assert!(claims(&[window(1, None, true)], &[window(seed, None, true)]).is_empty());
        }
    }

    #[test]
    fn several_iterations_claim_a_change_in_every_one_with_an_interval() {
        let base: Vec<Window> = (1..4).map(|s| window(s, Some(1), false)).collect();
        let cand: Vec<Window> = (4..7).map(|s| window(s, Some(3), true)).collect();
        let c = claims(&base, &cand);
        let inflate = c.iter().find(|g| g.name == "inflate").expect("claimed");
        assert_eq!(inflate.grew_by, GrewBy::SelfTime);
        assert!(!inflate.new);
        assert_eq!(inflate.added_per_frame_ms, 2.0);
        let (lo, hi) = (inflate.ci_low_ms.unwrap(), inflate.ci_high_ms.unwrap());
        assert!(lo > 0.0 && lo <= 2.0 && hi >= 2.0, "[{lo}, {hi}]");
        assert!(c.iter().all(|g| g.name != "measure"));
    }
}
