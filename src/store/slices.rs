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

/// The open slices of one track, innermost last, and how many of them already have a
/// duration (only those can be popped by a later event; with none, nothing needs a look).
#[derive(Default)]
struct Stack {
    ids: Vec<SliceId>,
    complete: u32,
}

impl Stack {
    /// Pops the slices whose end has passed before an event at `new_ts` (of `new_dur`,
    /// PENDING_DUR for a begin or an end); false when a complete event overlaps a parent and
    /// is dropped. trace_processor's MaybeCloseStack.
    fn close_passed(&mut self, store: &mut Store, new_ts: i64, new_dur: i64) -> bool {
        if self.complete == 0 {
            return true;
        }
        let stack = &mut self.ids;
        let complete = &mut self.complete;
        let mut incomplete_descendent = false;
        let mut i = stack.len() as isize - 1;
        while i >= 0 {
            let sid = stack[i as usize];
            let (start, dur) = {
                let r = &store.slices[sid as usize];
                (r.ts, r.dur)
            };
            let end = start + dur;
            if dur == PENDING_DUR {
                incomplete_descendent = true;
                i -= 1;
                continue;
            }
            if incomplete_descendent {
                if new_ts <= end {
                    i -= 1;
                    continue;
                }
                store.stat(
                    "misplaced_end_event",
                    Severity::DataLoss,
                    "A slice ended after its parent; children were truncated to the parent's end.",
                );
                while stack.len() as isize - 1 > i {
                    let child = stack.pop().unwrap();
                    let c = &mut store.slices[child as usize];
                    if c.dur != PENDING_DUR {
                        *complete -= 1;
                    }
                    c.dur = end - c.ts;
                }
                stack.pop();
                *complete -= 1;
                incomplete_descendent = false;
                i -= 1;
                continue;
            }
            let ends_before = end < new_ts;
            let ends_same_and_drop = end == new_ts && !(dur == 0 && new_dur == 0);
            if ends_before || ends_same_and_drop {
                stack.pop();
                *complete -= 1;
                i -= 1;
                continue;
            }
            if new_dur == PENDING_DUR {
                i -= 1;
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
            i -= 1;
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
        stack.ids.push(id);
        stack.complete += (dur != PENDING_DUR) as u32;
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
            st.complete += 1;
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
