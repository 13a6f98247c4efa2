//! Process-scoped async tracks (trace_processor's track compressor, as atrace uses it).
//!
//! Async slices that overlap cannot share one track, so each (kind, process, name) owns a
//! set of tracks. A begin with a cookie takes the track already holding that cookie, else
//! the first track with nothing open, else a new one; instants (`N`) take the first
//! instant track whose last instant has ended. Every track of a set has the same name and
//! differs only in its `track_compressor_idx` dimension (its position in the set).

use std::collections::HashMap;

use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::{EventType, Store, TrackId, TrackRow, TrackScope, Upid};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetKind {
    /// `S`/`F`: tracks named after the slice. Legacy rule: a second begin with the same
    /// cookie does not nest (the first one stays open).
    Slice,
    /// `G`/`H`/`N`: tracks named by the record's track field.
    ForTrack,
}

impl SetKind {
    fn type_name(self) -> &'static str {
        match self {
            SetKind::Slice => "atrace_async_slice",
            SetKind::ForTrack => "atrace_async_slice_for_track",
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Slot {
    Cookie { cookie: i64, open: u32 },
    Instant { ts_end: i64 },
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    slot: Slot,
    track: Option<TrackId>,
}

#[derive(Default)]
pub struct AsyncTracks {
    sets: HashMap<(SetKind, Upid, StrId), Vec<Entry>>,
}

impl AsyncTracks {
    /// The track for an async begin with `cookie`.
    pub fn begin(
        &mut self,
        store: &mut Store,
        kind: SetKind,
        upid: Upid,
        name: StrId,
        cookie: i64,
    ) -> TrackId {
        let set = self.sets.entry((kind, upid, name)).or_default();
        let idx = slot_for_cookie(set, cookie);
        if let Slot::Cookie { open, .. } = &mut set[idx].slot {
            *open = match kind {
                SetKind::Slice => 1,
                SetKind::ForTrack => *open + 1,
            };
        }
        track_of(store, set, idx, kind, upid, name)
    }

    /// The track for an async end with `cookie`.
    pub fn end(
        &mut self,
        store: &mut Store,
        kind: SetKind,
        upid: Upid,
        name: StrId,
        cookie: i64,
    ) -> TrackId {
        let set = self.sets.entry((kind, upid, name)).or_default();
        let idx = slot_for_cookie(set, cookie);
        if let Slot::Cookie { open, .. } = &mut set[idx].slot {
            *open = open.saturating_sub(1);
        }
        track_of(store, set, idx, kind, upid, name)
    }

    /// The track for a slice of known duration (instants use 0).
    pub fn scoped(
        &mut self,
        store: &mut Store,
        kind: SetKind,
        upid: Upid,
        name: StrId,
        ts: i64,
        dur: i64,
    ) -> TrackId {
        let set = self.sets.entry((kind, upid, name)).or_default();
        let free = set
            .iter()
            .position(|e| matches!(e.slot, Slot::Instant { ts_end } if ts_end <= ts));
        let idx = match free {
            Some(i) => {
                set[i].slot = Slot::Instant { ts_end: ts + dur };
                i
            }
            None => {
                set.push(Entry {
                    slot: Slot::Instant { ts_end: ts + dur },
                    track: None,
                });
                set.len() - 1
            }
        };
        track_of(store, set, idx, kind, upid, name)
    }
}

fn slot_for_cookie(set: &mut Vec<Entry>, cookie: i64) -> usize {
    if let Some(i) = set
        .iter()
        .position(|e| matches!(e.slot, Slot::Cookie { cookie: c, .. } if c == cookie))
    {
        return i;
    }
    if let Some(i) = set
        .iter()
        .position(|e| matches!(e.slot, Slot::Cookie { open: 0, .. }))
    {
        set[i].slot = Slot::Cookie { cookie, open: 0 };
        return i;
    }
    set.push(Entry {
        slot: Slot::Cookie { cookie, open: 0 },
        track: None,
    });
    set.len() - 1
}

/// The slot's track, created on first use so ids follow trace_processor's order.
fn track_of(
    store: &mut Store,
    set: &mut [Entry],
    idx: usize,
    kind: SetKind,
    upid: Upid,
    name: StrId,
) -> TrackId {
    if let Some(t) = set[idx].track {
        return t;
    }
    let dims = vec![
        (store.intern("upid"), ArgValue::Int(upid as i64)),
        (store.intern("name"), ArgValue::Str(name)),
        (
            store.intern("track_compressor_idx"),
            ArgValue::Int(idx as i64),
        ),
    ];
    let dimension_arg_set_id = store.args.insert_set(dims);
    let kind_id = store.intern(kind.type_name());
    let id = store.tracks.len() as TrackId;
    store.tracks.push(TrackRow {
        name: Some(name),
        kind: kind_id,
        event_type: EventType::Slice,
        scope: TrackScope::Process(upid),
        dimension_arg_set_id,
        source_arg_set_id: None,
        machine_id: None,
        counter_unit: None,
    });
    set[idx].track = Some(id);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Store, AsyncTracks, StrId) {
        let mut s = Store::default();
        let n = s.intern("x");
        (s, AsyncTracks::default(), n)
    }

    #[test]
    fn distinct_open_cookies_get_distinct_tracks() {
        let (mut s, mut a, n) = setup();
        let t1 = a.begin(&mut s, SetKind::ForTrack, 1, n, 1024);
        let t2 = a.begin(&mut s, SetKind::ForTrack, 1, n, 2048);
        assert_ne!(t1, t2);
        assert_eq!(a.end(&mut s, SetKind::ForTrack, 1, n, 2048), t2);
        // The freed track is reused by the next new cookie.
        assert_eq!(a.begin(&mut s, SetKind::ForTrack, 1, n, 7), t2);
        assert_eq!(s.tracks.len(), 2);
    }

    #[test]
    fn processes_and_kinds_do_not_share_tracks() {
        let (mut s, mut a, n) = setup();
        let t1 = a.begin(&mut s, SetKind::ForTrack, 1, n, 1);
        let t2 = a.begin(&mut s, SetKind::ForTrack, 2, n, 1);
        let t3 = a.begin(&mut s, SetKind::Slice, 1, n, 1);
        assert!(t1 != t2 && t2 != t3 && t1 != t3);
    }

    #[test]
    fn legacy_begin_does_not_nest() {
        let (mut s, mut a, n) = setup();
        let t = a.begin(&mut s, SetKind::Slice, 1, n, 0);
        assert_eq!(a.begin(&mut s, SetKind::Slice, 1, n, 0), t);
        // One end frees the slot despite two begins.
        a.end(&mut s, SetKind::Slice, 1, n, 0);
        assert_eq!(a.begin(&mut s, SetKind::Slice, 1, n, 99), t);
    }

    #[test]
    fn nestable_begin_needs_as_many_ends() {
        let (mut s, mut a, n) = setup();
        let t = a.begin(&mut s, SetKind::ForTrack, 1, n, 0);
        a.begin(&mut s, SetKind::ForTrack, 1, n, 0);
        a.end(&mut s, SetKind::ForTrack, 1, n, 0);
        assert_ne!(a.begin(&mut s, SetKind::ForTrack, 1, n, 99), t);
    }

    #[test]
    fn instants_share_one_track_and_sit_beside_cookie_tracks() {
        let (mut s, mut a, n) = setup();
        let c = a.begin(&mut s, SetKind::ForTrack, 1, n, 5);
        let i1 = a.scoped(&mut s, SetKind::ForTrack, 1, n, 10, 0);
        let i2 = a.scoped(&mut s, SetKind::ForTrack, 1, n, 20, 0);
        assert_ne!(c, i1);
        assert_eq!(i1, i2);
        let dims = s.tracks[i1 as usize].dimension_arg_set_id;
        let key = s.strings.lookup("track_compressor_idx").unwrap();
        assert_eq!(s.args.get(dims, key), Some(&ArgValue::Int(1)));
    }
}
