//! Flow events between slices (trace_processor's FlowTracker): a flow id is *active* from
//! the slice that begins it; each later slice with the id adds a `flow` row from the
//! earlier slice to the later one (by timestamp) and becomes the flow's last slice, until a
//! slice terminates it. Legacy v1 flows (`s`/`t`/`f` phases) are identified by
//! (id, category, name) and bind to the innermost slice open on their track.

use rustc_hash::FxHashMap;

use crate::store::slices::SliceTracker;
use crate::store::strings::StrId;
use crate::store::{FlowRow, Severity, SliceId, Store, TrackId};

#[derive(Default)]
pub struct FlowTracker {
    /// Active flows: id -> the last slice on the flow.
    last_slice: FxHashMap<u64, SliceId>,
    v1_ids: FxHashMap<(u64, Option<StrId>, Option<StrId>), u64>,
    next_v1_id: u64,
    /// v1 flow ends waiting for the next slice on their track.
    pending_on_track: FxHashMap<TrackId, Vec<u64>>,
}

impl FlowTracker {
    pub fn is_active(&self, flow: u64) -> bool {
        self.last_slice.contains_key(&flow)
    }

    pub fn begin(&mut self, store: &mut Store, slice: SliceId, flow: u64) {
        if self.last_slice.contains_key(&flow) {
            store.stat(
                "flow_duplicate_id",
                Severity::Error,
                "A flow began with an id that was already active; the begin was ignored.",
            );
            return;
        }
        self.last_slice.insert(flow, slice);
    }

    pub fn step(&mut self, store: &mut Store, slice: SliceId, flow: u64) {
        let Some(last) = self.last_slice.get_mut(&flow) else {
            store.stat(
                "flow_step_without_start",
                Severity::Info,
                "A flow step had no active flow with its id.",
            );
            return;
        };
        let prev = std::mem::replace(last, slice);
        insert(store, prev, slice, flow);
    }

    /// Ends a flow at `slice`; `close` forgets the id (terminating flows), otherwise the
    /// flow can still be stepped from its previous slice.
    pub fn end(&mut self, store: &mut Store, slice: SliceId, flow: u64, close: bool) {
        let Some(&prev) = self.last_slice.get(&flow) else {
            store.stat(
                "flow_end_without_start",
                Severity::Info,
                "A flow end had no active flow with its id.",
            );
            return;
        };
        if close {
            self.last_slice.remove(&flow);
        }
        insert(store, prev, slice, flow);
    }

    /// The flow id of a legacy v1 flow event.
    pub fn v1_id(&mut self, source: u64, cat: Option<StrId>, name: Option<StrId>) -> u64 {
        let next = &mut self.next_v1_id;
        *self.v1_ids.entry((source, cat, name)).or_insert_with(|| {
            *next += 1;
            *next - 1
        })
    }

    /// v1 flow begin / step on the innermost open slice of `track`.
    pub fn begin_on_track(
        &mut self,
        store: &mut Store,
        slices: &SliceTracker,
        track: TrackId,
        flow: u64,
        step: bool,
    ) {
        let Some(slice) = slices.top_of(track) else {
            no_enclosing_slice(store);
            return;
        };
        if step {
            self.step(store, slice, flow);
        } else {
            self.begin(store, slice, flow);
        }
    }

    /// v1 flow end: on the innermost open slice when bound to it, else on the next slice
    /// that begins on `track`.
    pub fn end_on_track(
        &mut self,
        store: &mut Store,
        slices: &SliceTracker,
        track: TrackId,
        flow: u64,
        bind_enclosing: bool,
    ) {
        if !bind_enclosing {
            self.pending_on_track.entry(track).or_default().push(flow);
            return;
        }
        match slices.top_of(track) {
            Some(slice) => self.end(store, slice, flow, false),
            None => no_enclosing_slice(store),
        }
    }

    /// A slice began on `track`: pending v1 flow ends arrive at it.
    pub fn slice_began(&mut self, store: &mut Store, track: TrackId, slice: SliceId) {
        if self.pending_on_track.is_empty() {
            return;
        }
        let Some(flows) = self.pending_on_track.remove(&track) else {
            return;
        };
        for flow in flows {
            if let Some(&out) = self.last_slice.get(&flow) {
                store.flows.push(FlowRow {
                    slice_out: out,
                    slice_in: slice,
                    trace_id: Some(flow as i64),
                });
            }
        }
    }
}

fn no_enclosing_slice(store: &mut Store) {
    store.stat(
        "flow_no_enclosing_slice",
        Severity::Error,
        "A flow event had no open slice on its track to attach to.",
    );
}

/// A flow row, oriented from the earlier slice to the later one.
fn insert(store: &mut Store, a: SliceId, b: SliceId, flow: u64) {
    let (ta, tb) = (store.slices[a as usize].ts, store.slices[b as usize].ts);
    let (slice_out, slice_in) = if ta > tb { (b, a) } else { (a, b) };
    store.flows.push(FlowRow {
        slice_out,
        slice_in,
        trace_id: Some(flow as i64),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::NewSlice;

    fn slice(store: &mut Store, ts: i64) -> SliceId {
        store.push_slice(NewSlice {
            ts,
            ..Default::default()
        })
    }

    fn rows(store: &Store) -> Vec<(SliceId, SliceId)> {
        store
            .flows
            .iter()
            .map(|f| (f.slice_out, f.slice_in))
            .collect()
    }

    #[test]
    fn rows_carry_the_flow_id() {
        let mut s = Store::default();
        let mut f = FlowTracker::default();
        let (a, b) = (slice(&mut s, 1), slice(&mut s, 2));
        f.begin(&mut s, a, 42);
        f.end(&mut s, b, 42, true);
        assert_eq!(s.flows[0].trace_id, Some(42));
    }

    #[test]
    fn chain_of_steps_then_terminate() {
        let mut s = Store::default();
        let mut f = FlowTracker::default();
        let (a, b, c) = (slice(&mut s, 10), slice(&mut s, 20), slice(&mut s, 30));
        f.begin(&mut s, a, 7);
        f.step(&mut s, b, 7);
        f.end(&mut s, c, 7, true);
        assert_eq!(rows(&s), [(a, b), (b, c)]);
        assert!(!f.is_active(7));
        f.step(&mut s, c, 7);
        assert_eq!(s.stat_value("flow_step_without_start"), 1);
    }

    #[test]
    fn rows_point_forward_in_time_and_duplicates_are_counted() {
        let mut s = Store::default();
        let mut f = FlowTracker::default();
        let (late, early) = (slice(&mut s, 50), slice(&mut s, 5));
        f.begin(&mut s, late, 1);
        f.begin(&mut s, early, 1);
        assert_eq!(s.stat_value("flow_duplicate_id"), 1);
        f.end(&mut s, early, 1, false);
        assert_eq!(rows(&s), [(early, late)]);
        assert!(f.is_active(1));
    }

    #[test]
    fn v1_ids_are_per_id_category_and_name() {
        let mut f = FlowTracker::default();
        let a = f.v1_id(1, None, None);
        assert_eq!(f.v1_id(1, None, None), a);
        assert_ne!(f.v1_id(1, Some(StrId::from_index(3)), None), a);
    }
}
