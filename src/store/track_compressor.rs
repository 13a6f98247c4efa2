//! Spreads overlapping slices of one logical track over several tracks of the same name so
//! that each track nests properly (trace_processor's track compressor). Slots are reused in
//! order: by matching cookie first, then the first idle slot, else a new track.

use super::strings::StrId;
use super::tracks::{TrackSpec, TrackTracker};
use super::{Store, TrackId, TrackScope};

enum Slot {
    Cookie { cookie: i64, nest: u32 },
    Timestamp { ts_end: i64 },
}

struct TrackState {
    slot: Slot,
    track: Option<TrackId>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct SetKey {
    kind: StrId,
    scope: TrackScope,
    name: Option<StrId>,
    /// The spec's extra dimension (e.g. the parent track of merged descriptor tracks).
    extra: i64,
    machine_id: Option<u32>,
}

#[derive(Default)]
pub struct TrackCompressor {
    sets: rustc_hash::FxHashMap<SetKey, Vec<TrackState>>,
}

impl TrackCompressor {
    fn set(&mut self, store: &mut Store, spec: &TrackSpec<'_>) -> &mut Vec<TrackState> {
        let key = SetKey {
            kind: store.intern_static(spec.kind),
            scope: spec.scope,
            name: if spec.name_is_dimension {
                spec.name
            } else {
                None
            },
            extra: spec.extra,
            machine_id: spec.machine_id,
        };
        self.sets.entry(key).or_default()
    }

    fn slot_for_cookie(tracks: &mut Vec<TrackState>, cookie: i64) -> usize {
        if let Some(i) = tracks
            .iter()
            .position(|t| matches!(t.slot, Slot::Cookie { cookie: c, .. } if c == cookie))
        {
            return i;
        }
        if let Some(i) = tracks
            .iter()
            .position(|t| matches!(t.slot, Slot::Cookie { nest: 0, .. }))
        {
            tracks[i].slot = Slot::Cookie { cookie, nest: 0 };
            return i;
        }
        tracks.push(TrackState {
            slot: Slot::Cookie { cookie, nest: 0 },
            track: None,
        });
        tracks.len() - 1
    }

    fn track_of(store: &mut Store, state: &mut TrackState, spec: &TrackSpec<'_>) -> TrackId {
        *state
            .track
            .get_or_insert_with(|| TrackTracker::create(store, *spec))
    }

    /// Track for a slice that begins with `cookie` (nestable: several begins may share it).
    pub fn begin(&mut self, store: &mut Store, spec: TrackSpec<'_>, cookie: i64) -> TrackId {
        let tracks = self.set(store, &spec);
        let i = Self::slot_for_cookie(tracks, cookie);
        if let Slot::Cookie { nest, .. } = &mut tracks[i].slot {
            *nest += 1;
        }
        Self::track_of(store, &mut tracks[i], &spec)
    }

    /// Track for a begin that never nests (atrace `S`): repeated begins with one cookie keep
    /// one slot busy and a single end frees it (trace_processor's legacy unnestable tracks).
    pub fn begin_unnestable(
        &mut self,
        store: &mut Store,
        spec: TrackSpec<'_>,
        cookie: i64,
    ) -> TrackId {
        let tracks = self.set(store, &spec);
        let i = Self::slot_for_cookie(tracks, cookie);
        if let Slot::Cookie { nest, .. } = &mut tracks[i].slot {
            *nest = 1;
        }
        Self::track_of(store, &mut tracks[i], &spec)
    }

    /// Track for the end of the slice with `cookie`.
    pub fn end(&mut self, store: &mut Store, spec: TrackSpec<'_>, cookie: i64) -> TrackId {
        let tracks = self.set(store, &spec);
        let i = Self::slot_for_cookie(tracks, cookie);
        if let Slot::Cookie { nest, .. } = &mut tracks[i].slot {
            *nest = nest.saturating_sub(1);
        }
        Self::track_of(store, &mut tracks[i], &spec)
    }

    /// The set's first track (created for cookie 0 when the set is empty), e.g. to be the
    /// parent of other tracks.
    pub fn default_track(&mut self, store: &mut Store, spec: TrackSpec<'_>) -> TrackId {
        let tracks = self.set(store, &spec);
        if tracks.is_empty() {
            Self::slot_for_cookie(tracks, 0);
        }
        Self::track_of(store, &mut tracks[0], &spec)
    }

    /// Track for a slice with a known duration: the first slot free at `ts`.
    pub fn scoped(&mut self, store: &mut Store, spec: TrackSpec<'_>, ts: i64, dur: i64) -> TrackId {
        let tracks = self.set(store, &spec);
        let i = match tracks
            .iter()
            .position(|t| matches!(t.slot, Slot::Timestamp { ts_end } if ts_end <= ts))
        {
            Some(i) => {
                tracks[i].slot = Slot::Timestamp { ts_end: ts + dur };
                i
            }
            None => {
                tracks.push(TrackState {
                    slot: Slot::Timestamp { ts_end: ts + dur },
                    track: None,
                });
                tracks.len() - 1
            }
        };
        Self::track_of(store, &mut tracks[i], &spec)
    }
}
