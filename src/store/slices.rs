//! Slice stacks per track (trace_processor's slice tracker): begin/end pairing with depth and
//! parent, complete ("scoped") slices, and the rule that a slice whose end has passed is
//! popped before the next one starts.

use super::args::{ArgSetId, ArgValue};
use super::strings::StrId;
use super::{NewSlice, Severity, SliceId, Store, TrackId};

/// trace_processor's marker for "not ended yet".
pub const PENDING_DUR: i64 = -1;
const MAX_DEPTH: usize = 512;
const _: () = assert!(MAX_DEPTH as u32 <= super::slice_row::MAX_DEPTH);

/// The open slices of one track, innermost last, and the stack positions of those that
/// already have a duration (only those can be popped by a later event: a look at the stack
/// visits them alone, not the begun slices between them).
#[derive(Default)]
struct Stack {
    ids: Vec<SliceId>,
    /// Ascending; the top one is the last.
    complete_at: Vec<u32>,
}

impl Stack {
    /// Pops the slices whose end has passed before an event at `new_ts` (of `new_dur`,
    /// PENDING_DUR for a begin or an end); false when a complete event overlaps a parent and
    /// is dropped. trace_processor's MaybeCloseStack, which walks the whole stack from the
    /// top: a begun slice only tells the complete slice below it that it has an open
    /// descendant.
    fn close_passed(&mut self, store: &mut Store, new_ts: i64, new_dur: i64) -> bool {
        let Self { ids, complete_at } = self;
        let mut incomplete_descendent = false;
        // Positions from `above` up were looked at (or are gone).
        let mut above = ids.len();
        let mut k = complete_at.len();
        while k > 0 {
            k -= 1;
            let i = complete_at[k] as usize;
            if i + 1 < above {
                incomplete_descendent = true;
            }
            above = i;
            let r = &store.slices[ids[i] as usize];
            let (dur, end) = (r.dur, r.ts + r.dur);
            if incomplete_descendent {
                if new_ts <= end {
                    continue;
                }
                store.stat(
                    "misplaced_end_event",
                    Severity::DataLoss,
                    "A slice ended after its parent; children were truncated to the parent's end.",
                );
                while ids.len() > i + 1 {
                    let child = ids.pop().unwrap();
                    let c = &mut store.slices[child as usize];
                    if c.dur != PENDING_DUR {
                        complete_at.pop();
                    }
                    c.dur = end - c.ts;
                }
                ids.pop();
                complete_at.pop();
                incomplete_descendent = false;
                continue;
            }
            let ends_before = end < new_ts;
            let ends_same_and_drop = end == new_ts && !(dur == 0 && new_dur == 0);
            if ends_before || ends_same_and_drop {
                // The top, as trace_processor pops it: `i` itself unless a complete slice
                // above it is still open at `new_ts`.
                ids.pop();
                complete_at.pop();
                continue;
            }
            if new_dur == PENDING_DUR {
                continue;
            }
            if new_ts < end && new_ts + new_dur > end {
                store.stat(
                    "slice_drop_overlapping_complete_event",
                    Severity::Error,
                    "A complete slice overlapped its parent and was dropped.",
                );
                return false;
            }
        }
        true
    }

    /// Stack position of the innermost open slice matching `category`/`name` (None matches
    /// anything; a slice without a name matches any name).
    fn matching_open(
        &self,
        store: &Store,
        category: Option<StrId>,
        name: Option<StrId>,
    ) -> Option<usize> {
        self.ids.iter().rposition(|&sid| {
            let r = &store.slices[sid as usize];
            if r.dur != PENDING_DUR {
                return false;
            }
            if category.is_some() && store.slice_category(sid) != category {
                return false;
            }
            if let (Some(n), Some(other)) = (name, r.name) {
                if n != other {
                    return false;
                }
            }
            true
        })
    }
}

#[derive(Default)]
pub struct SliceTracker {
    stacks: rustc_hash::FxHashMap<TrackId, Stack>,
}

impl SliceTracker {
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        store: &mut Store,
        ts: i64,
        dur: i64,
        track: TrackId,
        category: Option<StrId>,
        name: Option<StrId>,
        args: Option<ArgSetId>,
    ) -> Option<SliceId> {
        // A track's stack is only ever made here; a start the stack refuses had one already.
        let stack = self.stacks.entry(track).or_default();
        if !stack.close_passed(store, ts, dur) {
            return None;
        }
        let depth = stack.ids.len();
        if depth >= MAX_DEPTH {
            store.stat(
                "slice_max_depth_exceeded",
                Severity::Error,
                "Slice nesting deeper than 512 levels; the slice was dropped.",
            );
            return None;
        }
        let parent_id = stack.ids.last().copied();
        let id = store.push_slice(NewSlice {
            ts,
            dur,
            track_id: track,
            category,
            name,
            depth: depth as u32,
            parent_id,
            arg_set_id: args,
        });
        if dur != PENDING_DUR {
            stack.complete_at.push(depth as u32);
        }
        stack.ids.push(id);
        Some(id)
    }

    /// Opens a slice that a later [`end`](Self::end) closes.
    pub fn begin(
        &mut self,
        store: &mut Store,
        ts: i64,
        track: TrackId,
        category: Option<StrId>,
        name: Option<StrId>,
        args: Option<ArgSetId>,
    ) -> Option<SliceId> {
        self.start(store, ts, PENDING_DUR, track, category, name, args)
    }

    /// A slice whose duration is known up front (0 for instants).
    #[allow(clippy::too_many_arguments)]
    pub fn scoped(
        &mut self,
        store: &mut Store,
        ts: i64,
        track: TrackId,
        category: Option<StrId>,
        name: Option<StrId>,
        dur: i64,
        args: Option<ArgSetId>,
    ) -> Option<SliceId> {
        if dur < 0 {
            store.stat(
                "slice_negative_duration",
                Severity::Error,
                "A slice with a negative duration was dropped.",
            );
            return None;
        }
        self.start(store, ts, dur, track, category, name, args)
    }

    /// Closes the innermost open slice matching `category`/`name` (None matches anything).
    pub fn end(
        &mut self,
        store: &mut Store,
        ts: i64,
        track: TrackId,
        category: Option<StrId>,
        name: Option<StrId>,
    ) -> Option<SliceId> {
        let st = self.stacks.get_mut(&track)?;
        if !st.close_passed(store, ts, PENDING_DUR) {
            return None;
        }
        let idx = st.matching_open(store, category, name)?;
        let stack = &mut st.ids;
        let sid = stack[idx];
        let r = &mut store.slices[sid as usize];
        r.dur = ts - r.ts;
        if idx == stack.len() - 1 {
            stack.pop();
        } else {
            // Stays on the stack with its duration, until an event after its end pops it.
            let at = st.complete_at.partition_point(|&p| (p as usize) < idx);
            st.complete_at.insert(at, idx as u32);
        }
        Some(sid)
    }

    /// The innermost open slice of `track` matching `category`/`name`, as trace_processor's
    /// AddArgs finds it (no stack maintenance, unlike [`end`](Self::end)).
    pub fn find_open(
        &self,
        store: &Store,
        track: TrackId,
        category: Option<StrId>,
        name: Option<StrId>,
    ) -> Option<SliceId> {
        let stack = self.stacks.get(&track)?;
        Some(stack.ids[stack.matching_open(store, category, name)?])
    }

    /// Merges extra args into an existing slice's set.
    pub fn add_args(store: &mut Store, sid: SliceId, extra: Vec<(StrId, ArgValue)>) {
        Self::merge_args(
            store,
            sid,
            extra.into_iter().map(|(k, v)| (k, k, v)).collect(),
        );
    }

    /// Merges extra (flat key, key, value) args into an existing slice's set: a key already
    /// there takes the new value in place (trace_processor's "add or update").
    pub fn merge_args(store: &mut Store, sid: SliceId, extra: Vec<(StrId, StrId, ArgValue)>) {
        if extra.is_empty() {
            return;
        }
        let mut all: Vec<(StrId, StrId, ArgValue)> =
            match store.slices[sid as usize].arg_set_id.get() {
                Some(id) => store
                    .args
                    .set(id)
                    .iter()
                    .map(|a| (a.flat_key, a.key, a.value.clone()))
                    .collect(),
                None => Vec::new(),
            };
        for (fk, k, v) in extra {
            if let Some(slot) = all.iter_mut().find(|(_, kk, _)| *kk == k) {
                slot.0 = fk;
                slot.2 = v;
            } else {
                all.push((fk, k, v));
            }
        }
        store.slices[sid as usize].arg_set_id = store.args.insert_set_with_flat_keys(all).into();
    }

    pub fn top_of(&self, track: TrackId) -> Option<SliceId> {
        self.stacks.get(&track).and_then(|s| s.ids.last().copied())
    }
}

impl SliceTracker {
    /// The innermost slice of `track` that is still open (dur -1), as trace_processor's
    /// AddArgs with no name/category finds it.
    pub fn innermost_open(&self, store: &Store, track: TrackId) -> Option<SliceId> {
        let stack = self.stacks.get(&track)?;
        stack
            .ids
            .iter()
            .rev()
            .copied()
            .find(|&s| store.slices[s as usize].dur == PENDING_DUR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRACK: TrackId = 0;

    /// (depth, parent, dur) of slice `id`.
    fn shape(s: &Store, id: SliceId) -> (u32, Option<SliceId>, i64) {
        (
            s.slices[id as usize].depth(),
            s.slice_parent(id),
            s.slices[id as usize].dur,
        )
    }

    fn stat(s: &Store, name: &str) -> i64 {
        s.stats
            .iter()
            .find(|((n, _), _)| *n == name)
            .map_or(0, |(_, e)| e.value)
    }

    fn begin(t: &mut SliceTracker, s: &mut Store, ts: i64) -> SliceId {
        t.begin(s, ts, TRACK, None, None, None).unwrap()
    }

    fn scoped(t: &mut SliceTracker, s: &mut Store, ts: i64, dur: i64) -> Option<SliceId> {
        t.scoped(s, ts, TRACK, None, None, dur, None)
    }

    fn begin_named(t: &mut SliceTracker, s: &mut Store, ts: i64, name: &str) -> SliceId {
        let name = Some(s.intern(name));
        t.begin(s, ts, TRACK, None, name, None).unwrap()
    }

    fn end_named(t: &mut SliceTracker, s: &mut Store, ts: i64, name: &str) -> Option<SliceId> {
        let name = Some(s.intern(name));
        t.end(s, ts, TRACK, None, name)
    }

    #[test]
    fn complete_slices_in_a_row_are_siblings() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let a = scoped(&mut t, &mut s, 0, 10).unwrap();
        let b = scoped(&mut t, &mut s, 10, 5).unwrap();
        let c = scoped(&mut t, &mut s, 20, 0).unwrap();
        assert_eq!(shape(&s, a), (0, None, 10));
        assert_eq!(
            shape(&s, b),
            (0, None, 5),
            "a ends where b starts: popped first"
        );
        assert_eq!(shape(&s, c), (0, None, 0));
        // An instant at the very end of another instant nests in it (trace_processor keeps
        // zero-duration slices at the same timestamp nested).
        let d = scoped(&mut t, &mut s, 20, 0).unwrap();
        assert_eq!(shape(&s, d), (1, Some(c), 0));
    }

    #[test]
    fn begun_slices_above_a_complete_one_are_cut_at_its_end() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let parent = scoped(&mut t, &mut s, 0, 100).unwrap();
        let x = begin(&mut t, &mut s, 10);
        let y = begin(&mut t, &mut s, 20);
        // Still inside the parent: nothing is popped, the next begin nests under y.
        let z = begin(&mut t, &mut s, 100);
        assert_eq!(shape(&s, z), (3, Some(y), PENDING_DUR));
        assert_eq!(stat(&s, "misplaced_end_event"), 0);
        // Past the parent's end: the begun slices above it end where it ends, all leave.
        let after = begin(&mut t, &mut s, 150);
        assert_eq!(stat(&s, "misplaced_end_event"), 1);
        assert_eq!(shape(&s, x), (1, Some(parent), 90));
        assert_eq!(shape(&s, y), (2, Some(x), 80));
        assert_eq!(shape(&s, z), (3, Some(y), 0));
        assert_eq!(shape(&s, after), (0, None, PENDING_DUR));
    }

    #[test]
    fn only_complete_slices_below_a_begun_one_see_an_open_descendant() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let outer = scoped(&mut t, &mut s, 0, 1000).unwrap();
        let open = begin(&mut t, &mut s, 10);
        let inner = scoped(&mut t, &mut s, 20, 30).unwrap();
        // Past `inner`'s end, inside `outer`'s: `inner` (nothing open above it) is popped,
        // `outer` (with `open` above it) stays, and nothing is cut.
        let next = begin(&mut t, &mut s, 60);
        assert_eq!(shape(&s, inner), (2, Some(open), 30));
        assert_eq!(shape(&s, next), (2, Some(open), PENDING_DUR));
        assert_eq!(shape(&s, open).2, PENDING_DUR);
        assert_eq!(stat(&s, "misplaced_end_event"), 0);
        // Past `outer`'s end: `open` and `next` are cut to it.
        begin(&mut t, &mut s, 2000);
        assert_eq!(stat(&s, "misplaced_end_event"), 1);
        assert_eq!(shape(&s, open), (1, Some(outer), 990));
        assert_eq!(shape(&s, next), (2, Some(open), 940));
    }

    #[test]
    fn an_end_below_the_top_leaves_a_complete_slice_on_the_stack() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let a = begin_named(&mut t, &mut s, 0, "a");
        let b = begin_named(&mut t, &mut s, 5, "b");
        // `a` ends first (by name): it keeps its place under the still open `b`.
        assert_eq!(end_named(&mut t, &mut s, 10, "a"), Some(a));
        assert_eq!(shape(&s, a), (0, None, 10));
        let c = begin(&mut t, &mut s, 8);
        assert_eq!(shape(&s, c), (2, Some(b), PENDING_DUR), "before a's end");
        // After `a`'s end with `b` and `c` still open above it: they are cut at 10.
        let d = begin(&mut t, &mut s, 12);
        assert_eq!(stat(&s, "misplaced_end_event"), 1);
        assert_eq!(shape(&s, b), (1, Some(a), 5));
        assert_eq!(shape(&s, c), (2, Some(b), 2));
        assert_eq!(shape(&s, d), (0, None, PENDING_DUR));
    }

    #[test]
    fn a_cut_leaves_the_complete_slices_below_it_on_their_own() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let a = begin_named(&mut t, &mut s, 0, "a");
        let b = begin_named(&mut t, &mut s, 1, "b");
        let c = begin_named(&mut t, &mut s, 2, "c");
        // `a`, then `b` end under the still open `c` (at the same time: a later end would
        // find `a`'s end passed and cut `b` and `c` at it).
        assert_eq!(end_named(&mut t, &mut s, 10, "a"), Some(a));
        assert_eq!(end_named(&mut t, &mut s, 10, "b"), Some(b));
        assert_eq!(stat(&s, "misplaced_end_event"), 0);
        let d = begin(&mut t, &mut s, 25);
        // `c` is cut at `b`'s end (one misplaced end); `a`, with nothing open above it any
        // more, simply ends before 25.
        assert_eq!(stat(&s, "misplaced_end_event"), 1);
        assert_eq!(shape(&s, c), (2, Some(b), 8));
        assert_eq!(shape(&s, a), (0, None, 10));
        assert_eq!(shape(&s, d), (0, None, PENDING_DUR));
    }

    #[test]
    fn a_complete_slice_overlapping_its_parent_is_dropped() {
        let (mut t, mut s) = (SliceTracker::default(), Store::default());
        let parent = scoped(&mut t, &mut s, 0, 100).unwrap();
        assert_eq!(scoped(&mut t, &mut s, 50, 80), None);
        assert_eq!(stat(&s, "slice_drop_overlapping_complete_event"), 1);
        let child = scoped(&mut t, &mut s, 50, 20).unwrap();
        assert_eq!(shape(&s, child), (1, Some(parent), 20));
    }
}
