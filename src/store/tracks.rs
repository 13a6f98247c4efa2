//! Track interning: one track per (type, what it is attached to, name), created on first use
//! so that ids come out in the order trace_processor assigns them.

use super::args::ArgValue;
use super::strings::StrId;
use super::{EventType, Store, TrackId, TrackRow, TrackScope};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct TrackKey {
    kind: StrId,
    scope: TrackScope,
    name: Option<StrId>,
    /// Extra dimension (e.g. a cookie or a compression slot); 0 when unused.
    extra: i64,
    machine_id: Option<u32>,
}

/// The value of an extra track dimension (beyond the scope and the name).
#[derive(Debug, Clone, Copy)]
pub enum DimValue<'a> {
    Int(i64),
    Str(&'a str),
}

/// A track to look up or create.
#[derive(Debug, Clone, Copy)]
pub struct TrackSpec<'a> {
    pub kind: &'static str,
    pub event_type: EventType,
    pub scope: TrackScope,
    pub name: Option<StrId>,
    /// When true, the name is part of the track's identity (trace_processor "name as dimension").
    pub name_is_dimension: bool,
    pub extra: i64,
    /// Extra dimension args written after the scope's (e.g. a counter key); they must be
    /// determined by (kind, scope, extra), which is what identifies the track.
    pub dims: &'a [(&'a str, DimValue<'a>)],
    pub machine_id: Option<u32>,
}

impl<'a> TrackSpec<'a> {
    pub fn new(kind: &'static str, event_type: EventType, scope: TrackScope) -> Self {
        TrackSpec {
            kind,
            event_type,
            scope,
            name: None,
            name_is_dimension: false,
            extra: 0,
            dims: &[],
            machine_id: None,
        }
    }
    pub fn named(mut self, name: StrId) -> Self {
        self.name = Some(name);
        self
    }
    pub fn name_dimension(mut self, name: StrId) -> Self {
        self.name = Some(name);
        self.name_is_dimension = true;
        self
    }
    pub fn extra(mut self, extra: i64) -> Self {
        self.extra = extra;
        self
    }
    pub fn dims(mut self, dims: &'a [(&'a str, DimValue<'a>)]) -> Self {
        self.dims = dims;
        self
    }
    pub fn machine(mut self, machine_id: Option<u32>) -> Self {
        self.machine_id = machine_id;
        self
    }
}

#[derive(Default)]
pub struct TrackTracker {
    index: rustc_hash::FxHashMap<TrackKey, TrackId>,
}

impl TrackTracker {
    pub fn intern(&mut self, store: &mut Store, spec: TrackSpec<'_>) -> TrackId {
        let kind = store.intern_static(spec.kind);
        let key = TrackKey {
            kind,
            scope: spec.scope,
            name: if spec.name_is_dimension {
                spec.name
            } else {
                None
            },
            extra: spec.extra,
            machine_id: spec.machine_id,
        };
        if let Some(&id) = self.index.get(&key) {
            return id;
        }
        let id = Self::create(store, spec);
        self.index.insert(key, id);
        id
    }

    /// The slice track of a thread (trace_processor's `InternThreadTrack`): atrace, kernel
    /// and binder slices of one thread share it, so they nest on one stack.
    pub fn thread_track(&mut self, store: &mut Store, utid: super::Utid) -> TrackId {
        let spec = TrackSpec::new(
            "thread_execution",
            EventType::Slice,
            TrackScope::Thread(utid),
        );
        self.intern(store, spec)
    }

    /// Creates a track that is never shared (e.g. one slot of a compressed set).
    pub fn create(store: &mut Store, spec: TrackSpec<'_>) -> TrackId {
        let kind = store.intern_static(spec.kind);
        let mut dims: Vec<(StrId, ArgValue)> = Vec::new();
        match spec.scope {
            TrackScope::Global => {}
            TrackScope::Thread(u) => dims.push((store.intern("utid"), ArgValue::Int(u as i64))),
            TrackScope::Process(u) => dims.push((store.intern("upid"), ArgValue::Int(u as i64))),
            TrackScope::Cpu(c) => dims.push((store.intern("cpu"), ArgValue::Int(c as i64))),
        }
        for &(key, value) in spec.dims {
            let value = match value {
                DimValue::Int(v) => ArgValue::Int(v),
                DimValue::Str(v) => ArgValue::Str(store.intern(v)),
            };
            dims.push((store.intern(key), value));
        }
        if spec.name_is_dimension {
            if let Some(n) = spec.name {
                dims.push((store.intern("name"), ArgValue::Str(n)));
            }
        }
        let dimension_arg_set_id = store.args.insert_set(dims);
        let id = store.tracks.len() as TrackId;
        store.tracks.push(TrackRow {
            name: spec.name,
            kind,
            event_type: spec.event_type,
            scope: spec.scope,
            dimension_arg_set_id,
            source_arg_set_id: None,
            machine_id: spec.machine_id,
            counter_unit: None,
            parent_id: None,
        });
        id
    }
}
