//! Frames of one interaction paired between baseline and candidate.
//!
//! The rule: with as many frames on both sides, the nth frame pairs with the nth. With
//! different counts, each frame gets a vsync slot, round((frame start - the interaction's
//! first frame start) / the side's median vsync period), and frames of the same slot pair
//! (in order, when two layers share a slot); a frame whose slot the other side lacks stays
//! unpaired (a frame the change added or removed).

use serde::Serialize;

use super::sample::FrameSample;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlignRule {
    Order,
    VsyncSlot,
}

/// (baseline index, candidate index) pairs in time order; None for an unpaired frame.
pub type Pairs = Vec<(Option<usize>, Option<usize>)>;

pub fn align(base: &[FrameSample], cand: &[FrameSample]) -> (AlignRule, Pairs) {
    if base.len() == cand.len() {
        let pairs = (0..base.len()).map(|i| (Some(i), Some(i))).collect();
        return (AlignRule::Order, pairs);
    }
    let (b, c) = (slots(base), slots(cand));
    let mut pairs = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < b.len() || j < c.len() {
        match (b.get(i), c.get(j)) {
            (Some(x), Some(y)) if x == y => {
                pairs.push((Some(i), Some(j)));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x < y => {
                pairs.push((Some(i), None));
                i += 1;
            }
            (Some(_), None) => {
                pairs.push((Some(i), None));
                i += 1;
            }
            _ => {
                pairs.push((None, Some(j)));
                j += 1;
            }
        }
    }
    (AlignRule::VsyncSlot, pairs)
}

/// Each frame's vsync slot from the side's first frame.
fn slots(frames: &[FrameSample]) -> Vec<i64> {
    let mut periods: Vec<i64> = frames
        .iter()
        .map(|f| f.period_ns)
        .filter(|&p| p > 0)
        .collect();
    periods.sort_unstable();
    let period = periods
        .get(periods.len() / 2)
        .copied()
        .unwrap_or(16_666_667);
    let t0 = frames.first().map_or(0, |f| f.ts);
    frames
        .iter()
        .map(|f| ((f.ts - t0) as f64 / period as f64).round() as i64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(starts_ms: &[f64]) -> Vec<FrameSample> {
        starts_ms
            .iter()
            .map(|&t| FrameSample {
                ts: (t * 1e6) as i64,
                period_ns: 10_000_000,
                ..Default::default()
            })
            .collect()
    }

    #[test]
    fn equal_counts_pair_by_order() {
        let (rule, p) = align(&frames(&[0.0, 10.0, 20.0]), &frames(&[5.0, 40.0, 41.0]));
        assert_eq!(rule, AlignRule::Order);
        assert_eq!(
            p,
            [(Some(0), Some(0)), (Some(1), Some(1)), (Some(2), Some(2))]
        );
    }

    #[test]
    fn a_missing_vsync_leaves_its_frame_unpaired() {
        // 100 Hz. The candidate skipped the frame of slot 2 (20 ms) and its later frames are
        // a little late (slot 3 at 31.4 ms, slot 4 at 40.3 ms): they still pair by slot.
        let (rule, p) = align(
            &frames(&[0.0, 10.0, 20.0, 30.0, 40.0]),
            &frames(&[0.0, 10.2, 31.4, 40.3]),
        );
        assert_eq!(rule, AlignRule::VsyncSlot);
        assert_eq!(
            p,
            [
                (Some(0), Some(0)),
                (Some(1), Some(1)),
                (Some(2), None),
                (Some(3), Some(2)),
                (Some(4), Some(3))
            ]
        );
        // An extra candidate frame in a slot the baseline lacks.
        let (_, p) = align(&frames(&[0.0, 20.0]), &frames(&[0.0, 10.0, 20.0]));
        assert_eq!(p, [(Some(0), Some(0)), (None, Some(1)), (Some(1), Some(2))]);
    }
}
