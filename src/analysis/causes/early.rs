//! Chain totals worked out before the frame database is joined. After the load the main
//! thread finishes its own share first and would then wait for the database's SQL (about
//! 70 ms on the 200 MB bench trace); it spends that wait on the janky frames' chains, which
//! need only the store and the index. The per-process loop then takes their totals instead
//! of working them out again on the critical path. The frames a report is sure to show
//! (see [`EarlyTotals::work_out`]) are attributed whole, and the loop takes that too.

use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::context::Ctx;
use super::{attributed, Attributed, ChainTotals, Depth};
use crate::analysis::frame_model::Frame;
use crate::store::{SliceId, Upid};

/// What a chain is computed from, beyond the shared lookups: a frame's process, extent and
/// frame slices. Frames later dropped by a range, an interaction or a layer filter are only
/// left out of the lookups; frames with the same key have the same chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FrameKey {
    upid: Upid,
    frame_id: Option<i64>,
    ts: i64,
    dur: i64,
    ui: Option<SliceId>,
    rt: Option<SliceId>,
    actual: Option<SliceId>,
    expected: Option<SliceId>,
}

impl FrameKey {
    fn of(f: &Frame) -> Self {
        FrameKey {
            upid: f.upid,
            frame_id: f.frame_id,
            ts: f.ts,
            dur: f.dur,
            ui: f.ui.map(|s| s.id),
            rt: f.rt.map(|s| s.id),
            actual: f.timeline.as_ref().map(|t| t.actual.id),
            expected: f.timeline.as_ref().and_then(|t| t.expected.map(|s| s.id)),
        }
    }
}

/// Most frames attributed whole ahead: each holds its links and evidence until the loop
/// takes it (11 KiB for a typical chain of the bench trace, 60 to 75 KiB for its 1.1 s
/// startup frames), while the totals are a few hundred bytes.
const MOST_WHOLE_AHEAD: usize = 256;

/// One frame's chain worked out ahead: its totals (None where the frame has no chain) and,
/// for a frame sure to be shown, its whole attribution until the loop takes it.
struct ChainAhead {
    totals: Option<ChainTotals>,
    whole: Mutex<Option<Option<Attributed>>>,
}

/// Chains worked out ahead, by frame.
#[derive(Default)]
pub struct EarlyTotals(FxHashMap<FrameKey, ChainAhead>);

impl EarlyTotals {
    /// The chain totals of `frames`, in order, for as long as `keep_going` says (checked
    /// before each frame: a chain takes well under a millisecond). The frames `shown` marks
    /// (those a report is sure to show: it would otherwise attribute them twice, for the
    /// totals here and whole in the loop) are attributed whole, up to [`MOST_WHOLE_AHEAD`].
    pub fn work_out<'f>(
        ctx: &Ctx<'_>,
        frames: impl IntoIterator<Item = &'f Frame>,
        shown: impl Fn(&Frame) -> bool,
        keep_going: impl Fn() -> bool,
    ) -> Self {
        let mut out = FxHashMap::default();
        let mut whole_left = MOST_WHOLE_AHEAD;
        for f in frames {
            if !keep_going() {
                break;
            }
            let whole = whole_left > 0 && shown(f);
            let a = attributed(ctx, f, Depth::shown(whole));
            let totals = a.as_ref().map(Attributed::totals);
            whole_left -= whole as usize;
            let whole = Mutex::new(whole.then_some(a));
            out.insert(FrameKey::of(f), ChainAhead { totals, whole });
        }
        EarlyTotals(out)
    }

    /// The totals worked out for `frame`; None when it was not reached.
    pub fn get(&self, frame: &Frame) -> Option<&Option<ChainTotals>> {
        self.0.get(&FrameKey::of(frame)).map(|a| &a.totals)
    }

    /// The whole attribution worked out for `frame`, taken: None when it was not, or was
    /// already taken (frames with the same key have the same chain).
    pub(super) fn take_whole(&self, frame: &Frame) -> Option<Option<Attributed>> {
        let ahead = self.0.get(&FrameKey::of(frame))?;
        ahead.whole.lock().ok()?.take()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frame_model::Timeline;
    use crate::analysis::index::Span;

    /// Frames that differ in any one of the things a chain is computed from never share
    /// worked-out totals.
    #[test]
    fn frames_differing_in_anything_a_chain_reads_have_their_own_keys() {
        fn span(id: SliceId, ts: i64) -> Span {
            Span { id, ts, dur: 5 }
        }
        let base = Frame {
            upid: 3,
            frame_id: Some(70),
            ts: 100,
            dur: 20,
            ui: Some(span(1, 100)),
            rt: Some(span(2, 110)),
            timeline: Some(Timeline {
                actual: span(4, 100),
                expected: Some(span(5, 100)),
                token: 70,
                display_token: 71,
                jank_type: "App Deadline Missed".into(),
                jank_mask: 64,
                jank_tag: "Self Jank".into(),
                present_type: "Late Present".into(),
                on_time_finish: false,
                gpu_composition: false,
                prediction_type: "Valid Prediction".into(),
                display: None,
            }),
            ..Default::default()
        };
        let changes: [fn(&mut Frame); 8] = [
            |f| f.upid = 4,
            |f| f.frame_id = None,
            |f| f.ts += 1,
            |f| f.dur += 1,
            |f| f.ui = Some(span(9, 100)),
            |f| f.rt = None,
            |f| f.timeline.as_mut().unwrap().actual.id = 9,
            |f| f.timeline.as_mut().unwrap().expected = None,
        ];
        let mut keys = vec![FrameKey::of(&base)];
        for change in &changes {
            let mut f = base.clone();
            change(&mut f);
            keys.push(FrameKey::of(&f));
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(keys.iter().filter(|o| *o == k).count(), 1, "change {i}");
        }
        assert_eq!(FrameKey::of(&base.clone()), keys[0]);
    }
}
