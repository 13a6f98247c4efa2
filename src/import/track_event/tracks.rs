//! Tracks declared by TrackDescriptors (trace_processor's TrackEventTracker).
//!
//! A descriptor is *reserved* when its packet is tokenized (file order) and *resolved* the
//! first time something needs it: a descriptor with a thread is the thread's track, one
//! with a process the process's, one with neither inherits the scope of its parent (or is
//! global). Tracks are created lazily, on the first event:
//! - a thread's own descriptor uses the thread's ordinary track (the one atrace uses), unless
//!   it asks not to be merged with system tracks;
//! - counters get counter tracks; tracks that must not be merged with their siblings get a
//!   track of their own (keyed by uuid);
//! - everything else is merged with its same-named siblings into as few non-overlapping
//!   tracks as possible (trace_processor's "merged" tracks, through the track compressor).

use rustc_hash::{FxHashMap, FxHashSet};

use crate::import::Ctx;
use crate::store::args::{ArgSetId, ArgValue};
use crate::store::processes::ThreadNamePriority;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{EventType, Severity, Store, TrackId, TrackScope, Upid, Utid};

/// Counter details of a counter descriptor.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CounterDetails {
    pub category: Option<StrId>,
    pub unit_multiplier: i64,
    pub is_incremental: bool,
    pub unit: Option<StrId>,
    pub builtin_type: Option<StrId>,
    pub y_axis_share_key: Option<StrId>,
}

impl CounterDetails {
    fn same_track(&self, o: &CounterDetails) -> bool {
        (
            self.category,
            self.unit_multiplier,
            self.is_incremental,
            self.builtin_type,
            self.y_axis_share_key,
        ) == (
            o.category,
            o.unit_multiplier,
            o.is_incremental,
            o.builtin_type,
            o.y_axis_share_key,
        )
    }
}

/// TrackDescriptor.SiblingMergeBehavior as trace_processor uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Merge {
    #[default]
    ByName,
    None,
    ByKey,
}

/// TrackDescriptor.ChildTracksOrdering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChildOrdering {
    #[default]
    Unknown,
    Lexicographic,
    Chronological,
    Explicit,
}

/// What a TrackDescriptor declared, as known at tokenization.
#[derive(Debug, Clone, Default)]
pub struct Reservation {
    pub parent_uuid: u64,
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    pub min_ts: i64,
    pub name: Option<StrId>,
    pub description: Option<StrId>,
    /// The thread's descriptor asked not to share the thread's ordinary track.
    pub use_separate_track: bool,
    pub is_counter: bool,
    pub is_state: bool,
    pub use_synthetic_tid: bool,
    pub counter: Option<CounterDetails>,
    pub ordering: ChildOrdering,
    pub sibling_order_rank: Option<i32>,
    pub merge: Merge,
    pub merge_key: Option<StrId>,
}

impl Reservation {
    /// Two reservations of one uuid must describe the same track.
    fn same_track(&self, o: &Reservation) -> bool {
        let counters = match (&self.counter, &o.counter) {
            (None, None) => true,
            (Some(a), Some(b)) => a.same_track(b),
            _ => false,
        };
        counters
            && (
                self.parent_uuid,
                self.pid,
                self.tid,
                self.is_counter,
                self.is_state,
                self.merge,
                self.merge_key,
            ) == (
                o.parent_uuid,
                o.pid,
                o.tid,
                o.is_counter,
                o.is_state,
                o.merge,
                o.merge_key,
            )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Thread(Utid),
    Process(Upid),
    Global,
}

/// Where a descriptor track belongs; `is_root` when the descriptor itself names the thread
/// or process (rather than inheriting it from a parent).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    pub scope: Scope,
    pub is_counter: bool,
    pub is_state: bool,
    pub is_root: bool,
}

/// A descriptor's set of merged tracks, kept to route each slice to one of them.
#[derive(Debug, Clone, Copy)]
struct MergedSet {
    kind: &'static str,
    scope: TrackScope,
    /// Identifies the set among the sets of this kind and scope.
    key: i64,
    name: Option<StrId>,
    parent_uuid: u64,
    merge_type: i64,
    /// Parent of the set's tracks (when the parent descriptor is not a thread or process).
    parent_track: Option<TrackId>,
    /// For the source args of the set's tracks.
    seq: Option<u32>,
    is_root_in_scope: bool,
}

#[derive(Debug, Clone, Copy)]
enum Interned {
    Track(TrackId),
    Merged(MergedSet),
}

struct State {
    reservation: Reservation,
    resolved: Option<Resolved>,
    track: Option<Interned>,
}

/// Which slot of a merged set an event needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    Begin,
    End,
    Instant,
    Counter,
    /// Events of legacy phases: only tracks of their own (not merged sets) accept them.
    Legacy,
    /// The track as a parent of other tracks.
    Parent,
}

const DEFAULT_TRACK_UUID: u64 = 0;
const MAX_ANCESTORS: usize = 100;

#[derive(Default)]
pub struct DescriptorTracks {
    states: FxHashMap<u64, State>,
    uuid_by_utid: FxHashMap<Utid, u64>,
    uuid_by_upid: FxHashMap<Upid, u64>,
    sequences_with_first_packet: FxHashSet<u32>,
}

/// Tid that cannot collide with another process's tid (pid in the high 32 bits).
pub fn synthetic_tid(tid: i64, pid: i64) -> i64 {
    (pid << 32) | tid
}

pub fn is_synthetic_tid(tid: i64) -> bool {
    tid as u64 & 0xffff_ffff_0000_0000 != 0
}

/// Whether a reservation can be taken at all: the default track has no parent.
pub fn accepts(uuid: u64, r: &Reservation) -> bool {
    !(uuid == DEFAULT_TRACK_UUID && r.parent_uuid != 0)
}

impl DescriptorTracks {
    pub fn on_first_packet_on_sequence(&mut self, seq: u32) {
        self.sequences_with_first_packet.insert(seq);
    }

    /// Records what a TrackDescriptor declared (at tokenization, in file order).
    pub fn reserve(&mut self, store: &mut Store, uuid: u64, r: Reservation) {
        if !accepts(uuid, &r) {
            store.stat(
                "track_descriptor_default_track_with_parent",
                Severity::Error,
                "The default track (uuid 0) was given a parent; the descriptor was ignored.",
            );
            return;
        }
        let Some(state) = self.states.get_mut(&uuid) else {
            self.states.insert(
                uuid,
                State {
                    reservation: r,
                    resolved: None,
                    track: None,
                },
            );
            return;
        };
        let old = &mut state.reservation;
        if !old.same_track(&r) {
            store.stat(
                "track_descriptor_conflicting_reservation",
                Severity::Error,
                "Two TrackDescriptors with one uuid described different tracks; the later one was ignored.",
            );
            return;
        }
        if let Some(name) = r.name {
            let unmergeable = r.merge == Merge::None;
            if old.name.is_none() || unmergeable {
                old.name = Some(name);
            }
            // A track of its own follows its descriptor's latest name.
            if unmergeable {
                if let Some(Interned::Track(t)) = state.track {
                    store.tracks[t as usize].name = Some(name);
                }
            }
        }
        old.min_ts = old.min_ts.min(r.min_ts);
    }

    #[cfg(test)]
    pub fn reservation(&self, uuid: u64) -> Option<&Reservation> {
        self.states.get(&uuid).map(|s| &s.reservation)
    }

    /// Where the track belongs; creates its thread or process on first use. None when its
    /// hierarchy is broken (missing parent, loop, too deep).
    pub fn resolve(&mut self, ctx: &mut Ctx, uuid: u64) -> Option<Resolved> {
        if let Some(r) = self.states.get(&uuid).and_then(|s| s.resolved) {
            return Some(r);
        }
        let resolved = self.resolve_uncached(ctx, uuid);
        if let Some(s) = self.states.get_mut(&uuid) {
            s.resolved = resolved;
        }
        resolved
    }

    fn resolve_uncached(&mut self, ctx: &mut Ctx, uuid: u64) -> Option<Resolved> {
        if !self.states.contains_key(&uuid) {
            // An undeclared uuid: the default track (0) is named, others are not.
            let name = (uuid == DEFAULT_TRACK_UUID).then(|| ctx.store.intern("Default Track"));
            self.reserve(
                &mut ctx.store,
                uuid,
                Reservation {
                    name,
                    ..Default::default()
                },
            );
        }
        if !self.hierarchy_is_valid(&mut ctx.store, uuid) {
            return None;
        }
        let r = self.states[&uuid].reservation.clone();
        if r.use_synthetic_tid {
            if let (Some(tid), Some(pid)) = (r.tid, r.pid) {
                self.states.get_mut(&uuid)?.reservation.tid = Some(synthetic_tid(tid, pid));
            }
        }
        let r = self.states[&uuid].reservation.clone();
        let parent = if r.parent_uuid != DEFAULT_TRACK_UUID {
            self.resolve(ctx, r.parent_uuid)
        } else {
            None
        };
        let (is_counter, is_state) = (r.is_counter, r.is_state);
        if let (Some(tid), Some(pid)) = (r.tid, r.pid) {
            let store = &mut ctx.store;
            let mut utid = ctx.procs.update_thread(store, tid, pid);
            if let Some(old) = self.uuid_by_utid.insert(utid, uuid) {
                if old != uuid {
                    // One thread, two descriptors: the tid was reused by a new thread.
                    utid = ctx.procs.start_new_thread_at(store, None, tid);
                    ctx.procs.update_thread(store, tid, pid);
                    self.uuid_by_utid.insert(utid, uuid);
                }
            }
            return Some(Resolved {
                scope: Scope::Thread(utid),
                is_counter,
                is_state,
                is_root: true,
            });
        }
        if let Some(pid) = r.pid {
            let store = &mut ctx.store;
            let mut upid = ctx.procs.get_or_create_process(store, pid);
            if let Some(old) = self.uuid_by_upid.insert(upid, uuid) {
                if old != uuid {
                    // One process, two descriptors: the pid was reused by a new process.
                    upid = ctx.procs.start_new_process(
                        store,
                        None,
                        None,
                        pid,
                        None,
                        ThreadNamePriority::TrackDescriptor,
                    );
                    self.uuid_by_upid.insert(upid, uuid);
                }
            }
            return Some(Resolved {
                scope: Scope::Process(upid),
                is_counter,
                is_state,
                is_root: true,
            });
        }
        let scope = match parent.map(|p| p.scope) {
            Some(Scope::Thread(u)) => Scope::Thread(u),
            Some(Scope::Process(u)) => Scope::Process(u),
            _ => Scope::Global,
        };
        Some(Resolved {
            scope,
            is_counter,
            is_state,
            is_root: false,
        })
    }

    fn hierarchy_is_valid(&self, store: &mut Store, uuid: u64) -> bool {
        let mut seen: Vec<u64> = Vec::new();
        let mut cur = uuid;
        for _ in 0..MAX_ANCESTORS {
            if cur == DEFAULT_TRACK_UUID {
                return true;
            }
            if seen.contains(&cur) {
                store.stat(
                    "track_event_track_hierarchy_loop",
                    Severity::Error,
                    "TrackDescriptor parents formed a loop; events on those tracks were dropped.",
                );
                return false;
            }
            let Some(s) = self.states.get(&cur) else {
                store.stat(
                    "track_hierarchy_missing_uuid",
                    Severity::Info,
                    "A TrackDescriptor's parent was never declared; events on it were dropped.",
                );
                return false;
            };
            seen.push(cur);
            cur = s.reservation.parent_uuid;
        }
        store.stat(
            "track_event_track_hierarchy_too_deep",
            Severity::Error,
            "A TrackDescriptor had more than 100 ancestors; events on it were dropped.",
        );
        false
    }

    /// The track an event on descriptor `uuid` goes to. `event_name` names tracks whose
    /// descriptor has no name (trace_processor names them after their first event).
    pub fn track_for(
        &mut self,
        ctx: &mut Ctx,
        uuid: u64,
        event_name: Option<StrId>,
        seq: Option<u32>,
        usage: Use,
    ) -> Option<TrackId> {
        let interned = self.intern(ctx, uuid, event_name, seq)?;
        match (interned, usage) {
            (Interned::Track(t), _) => Some(t),
            (Interned::Merged(_), Use::Legacy) => None,
            (Interned::Merged(set), _) => Some(self.merged_track(ctx, &set, uuid, usage)),
        }
    }

    /// The track of a merged set this event goes to (the set's tracks are slots of the
    /// track compressor, reused once free; the cookie is the descriptor's uuid).
    fn merged_track(&self, ctx: &mut Ctx, set: &MergedSet, uuid: u64, usage: Use) -> TrackId {
        let dims = [
            ("parent_track_uuid", DimValue::Int(set.parent_uuid as i64)),
            ("merge_key_type", DimValue::Int(set.merge_type)),
        ];
        let mut spec = TrackSpec::new(set.kind, EventType::Slice, set.scope)
            .extra(set.key)
            .dims(&dims);
        spec.name = set.name;
        let before = ctx.store.tracks.len();
        let cookie = uuid as i64;
        let store = &mut ctx.store;
        let track = match usage {
            Use::Begin | Use::Counter | Use::Legacy => ctx.compressor.begin(store, spec, cookie),
            Use::End => ctx.compressor.end(store, spec, cookie),
            Use::Instant => {
                ctx.compressor.begin(store, spec, cookie);
                ctx.compressor.end(store, spec, cookie)
            }
            Use::Parent => ctx.compressor.default_track(store, spec),
        };
        if ctx.store.tracks.len() > before {
            let args = self.track_args(&mut ctx.store, uuid, set.seq, set.is_root_in_scope);
            let row = &mut ctx.store.tracks[track as usize];
            row.source_arg_set_id = args;
            row.parent_id = set.parent_track;
        }
        track
    }

    fn intern(
        &mut self,
        ctx: &mut Ctx,
        uuid: u64,
        event_name: Option<StrId>,
        seq: Option<u32>,
    ) -> Option<Interned> {
        if let Some(t) = self.states.get(&uuid).and_then(|s| s.track) {
            return Some(t);
        }
        let interned = self.intern_uncached(ctx, uuid, event_name, seq)?;
        self.states.get_mut(&uuid)?.track = Some(interned);
        Some(interned)
    }

    fn intern_uncached(
        &mut self,
        ctx: &mut Ctx,
        uuid: u64,
        event_name: Option<StrId>,
        seq: Option<u32>,
    ) -> Option<Interned> {
        let resolved = self.resolve(ctx, uuid)?;
        let r = self.states[&uuid].reservation.clone();
        let (parent_track, parent) = if r.parent_uuid != DEFAULT_TRACK_UUID {
            let t = self.track_for(ctx, r.parent_uuid, None, seq, Use::Parent);
            (t, self.resolve(ctx, r.parent_uuid))
        } else {
            (None, None)
        };
        let unit = r.counter.as_ref().and_then(|c| c.unit);
        if resolved.is_root {
            let (scope, kind_counter, kind_slice) = match resolved.scope {
                Scope::Thread(u) => (
                    TrackScope::Thread(u),
                    "thread_counter_track_event",
                    "thread_track_event",
                ),
                Scope::Process(u) => (
                    TrackScope::Process(u),
                    "process_counter_track_event",
                    "process_track_event",
                ),
                Scope::Global => unreachable!("root tracks have a thread or a process"),
            };
            if !resolved.is_counter
                && !r.use_separate_track
                && matches!(resolved.scope, Scope::Thread(_))
            {
                if let Scope::Thread(utid) = resolved.scope {
                    return Some(Interned::Track(
                        ctx.tracks.thread_track(&mut ctx.store, utid),
                    ));
                }
            }
            let kind = if resolved.is_counter {
                kind_counter
            } else {
                kind_slice
            };
            let t = self.own_track(ctx, kind, scope, uuid, r.name, unit, true, seq);
            return Some(Interned::Track(t));
        }

        let name = r.name.or(event_name);
        // A track under a thread or process descriptor that is not itself that thread's or
        // process's own descriptor gets the parent as its parent track.
        let child_parent = parent.filter(|p| !p.is_root).and(parent_track);
        if let Some(p) = parent {
            let scope = match p.scope {
                Scope::Thread(u) => Some((
                    TrackScope::Thread(u),
                    "thread_counter_track_event",
                    "thread_track_event",
                    "thread_merged_track_event",
                )),
                Scope::Process(u) => Some((
                    TrackScope::Process(u),
                    "process_counter_track_event",
                    "process_track_event",
                    "process_merged_track_event",
                )),
                Scope::Global => None,
            };
            if let Some((scope, counter_kind, slice_kind, merged_kind)) = scope {
                if r.is_counter {
                    let t =
                        self.own_track(ctx, counter_kind, scope, uuid, r.name, unit, false, seq);
                    ctx.store.tracks[t as usize].parent_id = child_parent;
                    return Some(Interned::Track(t));
                }
                if r.merge == Merge::None || r.is_state {
                    let t = self.own_track(ctx, slice_kind, scope, uuid, name, None, false, seq);
                    ctx.store.tracks[t as usize].parent_id = child_parent;
                    return Some(Interned::Track(t));
                }
                let mut set = merged_set(merged_kind, scope, &r, name, child_parent);
                set.seq = seq;
                return Some(Interned::Merged(set));
            }
        }
        let is_root_in_scope = uuid == DEFAULT_TRACK_UUID;
        if r.is_counter {
            let t = self.own_track(
                ctx,
                "global_counter_track_event",
                TrackScope::Global,
                uuid,
                r.name,
                unit,
                is_root_in_scope,
                seq,
            );
            ctx.store.tracks[t as usize].parent_id = parent_track;
            return Some(Interned::Track(t));
        }
        if r.merge == Merge::None || r.is_state {
            let t = self.own_track(
                ctx,
                "global_track_event",
                TrackScope::Global,
                uuid,
                name,
                None,
                is_root_in_scope,
                seq,
            );
            ctx.store.tracks[t as usize].parent_id = parent_track;
            return Some(Interned::Track(t));
        }
        let mut set = merged_set(
            "global_merged_track_event",
            TrackScope::Global,
            &r,
            name,
            parent_track,
        );
        set.seq = seq;
        set.is_root_in_scope = is_root_in_scope;
        Some(Interned::Merged(set))
    }

    /// A track of this descriptor's own, keyed by its uuid.
    #[allow(clippy::too_many_arguments)]
    fn own_track(
        &self,
        ctx: &mut Ctx,
        kind: &'static str,
        scope: TrackScope,
        uuid: u64,
        name: Option<StrId>,
        unit: Option<StrId>,
        is_root_in_scope: bool,
        seq: Option<u32>,
    ) -> TrackId {
        let is_counter = kind.contains("counter");
        let dims = [("track_uuid", DimValue::Int(uuid as i64))];
        let event_type = if is_counter {
            EventType::Counter
        } else {
            EventType::Slice
        };
        let mut spec = TrackSpec::new(kind, event_type, scope)
            .extra(uuid as i64)
            .dims(&dims);
        spec.name = name;
        let before = ctx.store.tracks.len();
        let t = ctx.tracks.intern(&mut ctx.store, spec);
        if ctx.store.tracks.len() > before {
            let args = self.track_args(&mut ctx.store, uuid, seq, is_root_in_scope);
            let row = &mut ctx.store.tracks[t as usize];
            row.source_arg_set_id = args;
            row.counter_unit = unit;
        }
        t
    }

    /// trace_processor's source args of descriptor tracks.
    fn track_args(
        &self,
        store: &mut Store,
        uuid: u64,
        seq: Option<u32>,
        is_root_in_scope: bool,
    ) -> Option<ArgSetId> {
        let r = &self.states.get(&uuid)?.reservation;
        let mut args: Vec<(StrId, ArgValue)> = vec![
            (
                store.intern("source"),
                ArgValue::Str(store.intern("descriptor")),
            ),
            (store.intern("trace_id"), ArgValue::Int(uuid as i64)),
            (
                store.intern("is_root_in_scope"),
                ArgValue::Bool(is_root_in_scope),
            ),
        ];
        if let Some(c) = &r.counter {
            if let Some(cat) = c.category {
                args.push((store.intern("category"), ArgValue::Str(cat)));
            }
            if let Some(b) = c.builtin_type {
                args.push((store.intern("builtin_counter_type"), ArgValue::Str(b)));
            }
            if let Some(k) = c.y_axis_share_key {
                args.push((store.intern("y_axis_share_key"), ArgValue::Str(k)));
            }
        }
        if seq.is_some_and(|s| self.sequences_with_first_packet.contains(&s)) {
            args.push((
                store.intern("has_first_packet_on_sequence"),
                ArgValue::Bool(true),
            ));
        }
        let ordering = match r.ordering {
            ChildOrdering::Lexicographic => Some("lexicographic"),
            ChildOrdering::Chronological => Some("chronological"),
            ChildOrdering::Explicit => Some("explicit"),
            ChildOrdering::Unknown => None,
        };
        if let Some(o) = ordering {
            args.push((
                store.intern("child_ordering"),
                ArgValue::Str(store.intern(o)),
            ));
        }
        if let Some(rank) = r.sibling_order_rank {
            args.push((
                store.intern("sibling_order_rank"),
                ArgValue::Int(rank as i64),
            ));
        }
        if let Some(d) = r.description {
            args.push((store.intern("description"), ArgValue::Str(d)));
        }
        store.args.insert_set(args)
    }
}

/// The set of merged tracks a descriptor joins: same parent, same merge key (its name, or
/// its explicit sibling merge key).
fn merged_set(
    kind: &'static str,
    scope: TrackScope,
    r: &Reservation,
    name: Option<StrId>,
    parent_track: Option<TrackId>,
) -> MergedSet {
    let (merge_type, key) = match r.merge {
        Merge::ByKey => (2, r.merge_key),
        _ => (0, name),
    };
    let key_id = key.map_or(u32::MAX, |k| k.index()) as u64;
    let mixed = r.parent_uuid.rotate_left(17) ^ (merge_type as u64) << 62 ^ key_id;
    MergedSet {
        kind,
        scope,
        key: mixed as i64,
        name,
        parent_uuid: r.parent_uuid,
        merge_type,
        parent_track,
        seq: None,
        is_root_in_scope: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> Ctx {
        Ctx::new()
    }

    fn thread(pid: i64, tid: i64, parent: u64) -> Reservation {
        Reservation {
            pid: Some(pid),
            tid: Some(tid),
            parent_uuid: parent,
            ..Default::default()
        }
    }

    #[test]
    fn thread_descriptor_uses_the_threads_own_track_unless_it_opts_out() {
        let mut c = ctx();
        let mut t = DescriptorTracks::default();
        t.reserve(&mut c.store, 1, thread(10, 11, 0));
        t.reserve(
            &mut c.store,
            2,
            Reservation {
                use_separate_track: true,
                ..thread(10, 12, 0)
            },
        );
        let a = t.track_for(&mut c, 1, None, None, Use::Begin).unwrap();
        let utid = c.procs.get_thread_or_null(&c.store, 11, Some(10)).unwrap();
        assert_eq!(
            c.store.str(c.store.tracks[a as usize].kind),
            "thread_execution"
        );
        assert_eq!(c.store.tracks[a as usize].scope, TrackScope::Thread(utid));
        let b = t.track_for(&mut c, 2, None, None, Use::Begin).unwrap();
        assert_eq!(
            c.store.str(c.store.tracks[b as usize].kind),
            "thread_track_event"
        );
    }

    #[test]
    fn unnamed_child_of_a_process_is_named_after_its_first_event_and_merged_by_name() {
        let mut c = ctx();
        let mut t = DescriptorTracks::default();
        t.reserve(
            &mut c.store,
            100,
            Reservation {
                pid: Some(42),
                ..Default::default()
            },
        );
        let name = c.store.intern("net");
        for uuid in [101, 102] {
            t.reserve(
                &mut c.store,
                uuid,
                Reservation {
                    parent_uuid: 100,
                    name: Some(name),
                    ..Default::default()
                },
            );
        }
        // Two overlapping slices on sibling tracks of one name: two tracks of the set.
        let a = t.track_for(&mut c, 101, None, None, Use::Begin).unwrap();
        let b = t.track_for(&mut c, 102, None, None, Use::Begin).unwrap();
        assert_ne!(a, b);
        assert_eq!(c.store.tracks[a as usize].name, Some(name));
        assert_eq!(
            c.store.str(c.store.tracks[a as usize].kind),
            "process_merged_track_event"
        );
        // Once 101's slice ended, 102 can share its track.
        assert_eq!(t.track_for(&mut c, 101, None, None, Use::End), Some(a));
        assert_eq!(t.track_for(&mut c, 102, None, None, Use::End), Some(b));
        let unnamed = c.store.intern("first event");
        t.reserve(
            &mut c.store,
            103,
            Reservation {
                parent_uuid: 100,
                merge: Merge::None,
                ..Default::default()
            },
        );
        let u = t
            .track_for(&mut c, 103, Some(unnamed), None, Use::Instant)
            .unwrap();
        assert_eq!(c.store.tracks[u as usize].name, Some(unnamed));
        assert_eq!(
            c.store.str(c.store.tracks[u as usize].kind),
            "process_track_event"
        );
    }

    #[test]
    fn broken_hierarchies_resolve_to_nothing() {
        let mut c = ctx();
        let mut t = DescriptorTracks::default();
        t.reserve(
            &mut c.store,
            5,
            Reservation {
                parent_uuid: 6,
                ..Default::default()
            },
        );
        assert!(t.resolve(&mut c, 5).is_none());
        assert_eq!(c.store.stat_value("track_hierarchy_missing_uuid"), 1);
        t.reserve(
            &mut c.store,
            6,
            Reservation {
                parent_uuid: 5,
                ..Default::default()
            },
        );
        assert!(t.resolve(&mut c, 6).is_none());
        assert_eq!(c.store.stat_value("track_event_track_hierarchy_loop"), 1);
    }

    #[test]
    fn conflicting_reservation_is_refused() {
        let mut c = ctx();
        let mut t = DescriptorTracks::default();
        t.reserve(&mut c.store, 1, thread(10, 11, 0));
        t.reserve(&mut c.store, 1, thread(10, 99, 0));
        assert_eq!(
            c.store
                .stat_value("track_descriptor_conflicting_reservation"),
            1
        );
        assert_eq!(t.reservation(1).unwrap().tid, Some(11));
    }

    #[test]
    fn tid_reuse_across_descriptors_starts_a_new_thread() {
        let mut c = ctx();
        let mut t = DescriptorTracks::default();
        t.reserve(&mut c.store, 1, thread(10, 11, 0));
        t.reserve(&mut c.store, 2, thread(10, 11, 0));
        let a = t.resolve(&mut c, 1).unwrap();
        let b = t.resolve(&mut c, 2).unwrap();
        assert_ne!(a.scope, b.scope);
    }
}
