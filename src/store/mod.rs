//! The in-memory store: tables shaped like trace_processor's, filled by the importers and
//! written to SQLite (or read directly by the analysis) afterwards.

pub mod android_version;
pub mod args;
pub mod in_place_tables;
pub mod opt_id;
pub mod prefault;
pub mod processes;
pub mod read_only;
pub mod slice_row;
pub mod slices;
pub mod sqlite;
pub mod strings;
pub mod thread_states;
pub mod trace_info;
pub mod track_compressor;
pub mod tracks;
pub mod virtual_table;

use std::collections::BTreeMap;

use args::{ArgSetId, ArgTable};
pub use opt_id::OptId;
pub use slice_row::{NewSlice, SliceRow};
use strings::{StrId, StringPool};
pub use thread_states::{ThreadStateRow, ThreadStates};

pub type Upid = u32;
pub type Utid = u32;
pub type TrackId = u32;
pub type SliceId = u32;

#[derive(Debug, Clone, Default)]
pub struct ProcessRow {
    pub pid: i64,
    pub name: Option<StrId>,
    pub start_ts: Option<i64>,
    pub end_ts: Option<i64>,
    pub parent_upid: Option<Upid>,
    pub uid: Option<i64>,
    pub android_appid: Option<i64>,
    pub android_user_id: Option<i64>,
    pub cmdline: Option<StrId>,
    pub arg_set_id: Option<ArgSetId>,
    pub machine_id: Option<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct ThreadRow {
    pub tid: i64,
    pub name: Option<StrId>,
    pub start_ts: Option<i64>,
    pub end_ts: Option<i64>,
    pub upid: Option<Upid>,
    pub is_main_thread: Option<bool>,
    pub is_idle: bool,
    pub machine_id: Option<u32>,
    pub arg_set_id: Option<ArgSetId>,
}

/// What a track is attached to; mirrors trace_processor's track dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TrackScope {
    Global,
    Thread(Utid),
    Process(Upid),
    Cpu(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    Slice,
    Counter,
}

#[derive(Debug, Clone)]
pub struct TrackRow {
    pub name: Option<StrId>,
    /// trace_processor's track `type` (classification), e.g. "thread", "cpu_frequency".
    pub kind: StrId,
    pub event_type: EventType,
    pub scope: TrackScope,
    pub dimension_arg_set_id: Option<ArgSetId>,
    pub source_arg_set_id: Option<ArgSetId>,
    pub machine_id: Option<u32>,
    pub counter_unit: Option<StrId>,
    /// The enclosing track (TrackDescriptor hierarchies).
    pub parent_id: Option<TrackId>,
}

/// Thread-time columns of a slice (`thread_ts`, `thread_dur`, ...), known for few slices
/// (TrackEvents with thread time or instruction counts), so kept apart from [`SliceRow`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SliceThreadTimes {
    pub thread_ts: Option<i64>,
    pub thread_dur: Option<i64>,
    pub thread_instruction_count: Option<i64>,
    pub thread_instruction_delta: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct CounterRow {
    pub ts: i64,
    pub track_id: TrackId,
    pub arg_set_id: OptId,
    pub value: f64,
}

#[derive(Debug, Clone)]
pub struct SchedRow {
    pub ts: i64,
    pub dur: i64,
    pub cpu: u32,
    pub utid: Utid,
    pub end_state: Option<StrId>,
    pub priority: i32,
}

/// A sched_waking of a thread that was already running or runnable, which changes no
/// state (trace_processor's `spurious_sched_wakeup`).
#[derive(Debug, Clone)]
pub struct SpuriousWakeupRow {
    pub ts: i64,
    /// The woken thread's current `thread_state` row.
    pub thread_state_id: u32,
    pub irq_context: Option<bool>,
    pub utid: Utid,
    pub waker_utid: Utid,
}

#[derive(Debug, Clone)]
pub struct FlowRow {
    pub slice_out: SliceId,
    pub slice_in: SliceId,
    /// The producer's flow id (TrackEvent flows); None for flows the importer inferred.
    pub trace_id: Option<i64>,
}

/// Extra columns of `expected_frame_timeline_slice` / `actual_frame_timeline_slice`.
#[derive(Debug, Clone, Default)]
pub struct FrameTimelineRow {
    pub slice_id: SliceId,
    pub actual: bool,
    pub upid: Upid,
    pub display_frame_token: i64,
    pub surface_frame_token: Option<i64>,
    pub layer_name: Option<StrId>,
    pub present_type: Option<StrId>,
    pub on_time_finish: Option<i64>,
    pub gpu_composition: Option<i64>,
    pub jank_type: Option<StrId>,
    pub jank_severity_type: Option<StrId>,
    pub prediction_type: Option<StrId>,
    pub jank_tag: Option<StrId>,
    pub jank_tag_experimental: Option<StrId>,
    pub jank_score: Option<f64>,
    pub latched_unsignaled_count: Option<i64>,
    pub addressable_unsignaled_latch_count: Option<i64>,
    pub latched_fence_state: Option<StrId>,
    /// Raw bitmask, kept for the analysis.
    pub jank_type_mask: Option<i32>,
    pub present_type_raw: Option<i32>,
}

/// Extra columns of `frame_slice` (FrameTracer events and phases).
#[derive(Debug, Clone, Default)]
pub struct FrameSliceRow {
    pub slice_id: SliceId,
    pub layer_name: Option<StrId>,
    pub frame_number: Option<i64>,
    pub queue_to_acquire_time: Option<i64>,
    pub acquire_to_latch_time: Option<i64>,
    pub latch_to_present_time: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Info,
    DataLoss,
    Error,
}

impl Severity {
    pub fn as_str(&self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::DataLoss => "data_loss",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug, Clone)]
pub struct StatEntry {
    pub severity: Severity,
    pub description: &'static str,
    pub value: i64,
}

#[derive(Debug, Clone)]
pub enum MetaValue {
    Int(i64),
    Str(String),
}

/// Everything imported from one trace.
#[derive(Default)]
pub struct Store {
    pub strings: StringPool,
    pub args: ArgTable,
    pub processes: Vec<ProcessRow>,
    pub threads: Vec<ThreadRow>,
    pub tracks: Vec<TrackRow>,
    pub slices: Vec<SliceRow>,
    /// The slice columns kept out of the rows (read them through `slice_parent` and
    /// `slice_category`).
    pub slice_extras: slice_row::SliceExtras,
    /// Thread-time columns of the slices that have them.
    pub slice_thread_times: rustc_hash::FxHashMap<SliceId, SliceThreadTimes>,
    pub counters: Vec<CounterRow>,
    /// The counter rows a command chose not to keep (`LoadOptions::counter_tracks`): how
    /// many, and their extent for `trace_bounds`.
    pub counters_not_kept: RowsNotKept,
    pub sched: Vec<SchedRow>,
    /// The `sched` rows a command chose not to keep (`LoadOptions::sched_rows`): how many,
    /// and their extent for `trace_bounds`.
    pub sched_not_kept: RowsNotKept,
    pub thread_states: ThreadStates,
    /// How far the slice and thread-state rows' pages are faulted in ahead of them.
    pub ahead: prefault::TablesAhead,
    /// `thread_state.blocked_function` by row: sched_blocked_reason names one for few rows.
    pub blocked_functions: rustc_hash::FxHashMap<u32, StrId>,
    pub spurious_wakeups: Vec<SpuriousWakeupRow>,
    pub flows: Vec<FlowRow>,
    pub frame_timeline: Vec<FrameTimelineRow>,
    pub frame_slices: Vec<FrameSliceRow>,
    /// (stat name, index) -> entry; index is -1 for unindexed stats.
    pub stats: BTreeMap<(&'static str, i64), StatEntry>,
    pub metadata: BTreeMap<String, MetaValue>,
    /// What the recording holds and asked for (not a trace_processor table).
    pub trace_info: trace_info::TraceInfo,
    /// First and last timestamp of the ftrace events trace_processor's raw table
    /// (`ftrace_event`) would hold; frameprobe keeps no such table, only its bounds.
    pub ftrace_event_bounds: Option<(i64, i64)>,
}

/// What is left of rows a command chose not to keep: their count and time extent.
#[derive(Debug, Default, Clone, Copy)]
pub struct RowsNotKept {
    pub rows: usize,
    /// Earliest start and latest end (or start, while unfinished).
    pub bounds: Option<(i64, i64)>,
}

impl RowsNotKept {
    pub fn see(&mut self, ts: i64) {
        widen(&mut self.bounds, ts);
    }
}

/// Widens a (first, last) timestamp range to cover `ts`.
fn widen(bounds: &mut Option<(i64, i64)>, ts: i64) {
    let b = bounds.get_or_insert((ts, ts));
    *b = (b.0.min(ts), b.1.max(ts));
}

impl Store {
    pub fn intern(&mut self, s: &str) -> StrId {
        self.strings.intern(s)
    }

    pub fn intern_static(&mut self, s: &'static str) -> StrId {
        self.strings.intern_static(s)
    }

    pub fn intern_int(&mut self, n: i64) -> StrId {
        self.strings.intern_int(n)
    }

    pub fn str(&self, id: StrId) -> &str {
        self.strings.get(id)
    }

    pub fn opt_str(&self, id: Option<StrId>) -> Option<&str> {
        id.map(|i| self.strings.get(i))
    }

    /// From sched_blocked_reason: the kernel function a blocked `thread_state` row waited in.
    pub fn blocked_function(&self, row: u32) -> Option<StrId> {
        self.blocked_functions.get(&row).copied()
    }

    /// Counts something the importers had to drop or could not interpret.
    pub fn stat(&mut self, name: &'static str, severity: Severity, description: &'static str) {
        self.stat_add(name, -1, severity, description, 1);
    }

    pub fn stat_add(
        &mut self,
        name: &'static str,
        idx: i64,
        severity: Severity,
        description: &'static str,
        n: i64,
    ) {
        self.stats
            .entry((name, idx))
            .or_insert(StatEntry {
                severity,
                description,
                value: 0,
            })
            .value += n;
    }

    /// Sets a stat to a value (trace_processor's SetStats / SetIndexedStats).
    pub fn stat_set(
        &mut self,
        name: &'static str,
        idx: i64,
        severity: Severity,
        description: &'static str,
        value: i64,
    ) {
        self.stats.insert(
            (name, idx),
            StatEntry {
                severity,
                description,
                value,
            },
        );
    }

    pub fn stat_value(&self, name: &str) -> i64 {
        self.stats
            .iter()
            .filter(|((n, _), _)| *n == name)
            .map(|(_, e)| e.value)
            .sum()
    }

    pub fn set_metadata(&mut self, key: &str, value: MetaValue) {
        self.metadata.insert(key.to_string(), value);
    }

    /// `trace_bounds` as trace_processor v58 computes it: the earliest and latest timestamp
    /// over the ftrace_event, sched, counter, slice and thread_state rows (the end of a row
    /// with a duration; an unfinished row counts as its start). (0, 0) for an empty trace;
    /// a single instant gets an end one nanosecond after its start.
    pub fn bounds(&self) -> (i64, i64) {
        let mut lo = i64::MAX;
        let mut hi = 0i64;
        let mut see = |start: i64, end: i64| {
            lo = lo.min(start);
            hi = hi.max(end);
        };
        if let Some((first, last)) = self.ftrace_event_bounds {
            see(first, last);
        }
        for r in &self.sched {
            see(r.ts, r.ts.saturating_add(r.dur.max(0)));
        }
        if let Some((first, last)) = self.sched_not_kept.bounds {
            see(first, last);
        }
        for r in &self.counters {
            see(r.ts, r.ts);
        }
        if let Some((first, last)) = self.counters_not_kept.bounds {
            see(first, last);
        }
        for r in &self.slices {
            see(r.ts, r.ts.saturating_add(r.dur.max(0)));
        }
        for (ts, dur) in self.thread_states.times() {
            see(ts, ts.saturating_add(dur.max(0)));
        }
        match (lo, hi) {
            (i64::MAX, _) => (0, 0),
            (lo, hi) if lo == hi => (lo, hi.saturating_add(1)),
            b => b,
        }
    }

    /// Drops the counter rows on tracks `keep` rejects, leaving their count and extent in
    /// `counters_not_kept`. Tracks are judged once each, as they are now (named and kinded).
    pub fn keep_counter_rows(&mut self, keep: impl Fn(&Store, &TrackRow) -> bool) {
        let kept: Vec<bool> = self.tracks.iter().map(|t| keep(self, t)).collect();
        let mut counters = std::mem::take(&mut self.counters);
        let dropped = &mut self.counters_not_kept;
        counters.retain(|r| {
            let keep = kept.get(r.track_id as usize).copied().unwrap_or(true);
            if !keep {
                dropped.rows += 1;
                dropped.see(r.ts);
            }
            keep
        });
        counters.shrink_to_fit();
        self.counters = counters;
    }

    /// Context switches seen (`sched` rows, kept or not).
    pub fn sched_slice_count(&self) -> usize {
        self.sched.len() + self.sched_not_kept.rows
    }

    /// Widens `ftrace_event_bounds` by one raw ftrace event.
    pub fn see_ftrace_event(&mut self, ts: i64) {
        widen(&mut self.ftrace_event_bounds, ts);
    }

    pub fn metadata_int(&self, key: &str) -> Option<i64> {
        match self.metadata.get(key) {
            Some(MetaValue::Int(v)) => Some(*v),
            _ => None,
        }
    }
}

#[cfg(test)]
impl Store {
    /// Test stores: threads with these tids (utids in order), each with its thread slice
    /// track (track id = utid).
    pub fn with_thread_tracks(tids: &[i64]) -> Store {
        let mut s = Store::default();
        let kind = s.intern("thread");
        for (utid, &tid) in tids.iter().enumerate() {
            s.threads.push(ThreadRow {
                tid,
                ..Default::default()
            });
            s.tracks.push(TrackRow {
                name: None,
                kind,
                event_type: EventType::Slice,
                scope: TrackScope::Thread(utid as Utid),
                dimension_arg_set_id: None,
                source_arg_set_id: None,
                machine_id: None,
                counter_unit: None,
                parent_id: None,
            });
        }
        s
    }
}

#[cfg(test)]
mod bounds_tests {
    use super::*;

    fn slice(ts: i64, dur: i64) -> NewSlice {
        NewSlice {
            ts,
            dur,
            ..Default::default()
        }
    }

    // Expected values are worked by hand from trace_processor v58's rule
    // (storage_tables.cc GetTimestampBounds, trace_processor_impl.cc
    // AggregatePluginTimestampBounds).
    #[test]
    fn bounds_follow_trace_processors_rule() {
        let mut s = Store::default();
        assert_eq!(s.bounds(), (0, 0), "empty trace");
        s.counters.push(CounterRow {
            ts: 500,
            track_id: 0,
            value: 1.0,
            arg_set_id: None.into(),
        });
        assert_eq!(s.bounds(), (500, 501), "one instant: end is start + 1");
        // An unfinished slice counts as its start; a finished one as its end.
        s.push_slice(slice(300, -1));
        s.push_slice(slice(400, 250));
        assert_eq!(s.bounds(), (300, 650));
        // A thread state still open at the end counts as its start, a closed one as its end.
        let mut open = ThreadStateRow::new(200, 1, None, None, None, None);
        s.thread_states.push(open);
        open.ts = 600;
        open.dur = 100;
        s.thread_states.push(open);
        assert_eq!(s.bounds(), (200, 700));
        // Raw ftrace events (a soft-dropped wakeup before everything else) widen both ends.
        s.see_ftrace_event(150);
        s.see_ftrace_event(900);
        s.see_ftrace_event(160);
        assert_eq!(s.bounds(), (150, 900));
    }

    /// Counter rows a command does not keep still count, and still bound the trace.
    #[test]
    fn counters_not_kept_keep_their_count_and_extent() {
        let mut s = Store::default();
        let (name, kind) = (s.intern("kept"), s.intern("atrace_counter"));
        for name in [Some(name), None] {
            s.tracks.push(TrackRow {
                name,
                kind,
                event_type: EventType::Counter,
                scope: TrackScope::Global,
                dimension_arg_set_id: None,
                source_arg_set_id: None,
                machine_id: None,
                counter_unit: None,
                parent_id: None,
            });
        }
        for (ts, track_id) in [(100, 1), (200, 0), (300, 1), (400, 0), (500, 1)] {
            s.counters.push(CounterRow {
                ts,
                track_id,
                value: ts as f64,
                arg_set_id: None.into(),
            });
        }
        s.keep_counter_rows(|_, t| t.name.is_some());
        let kept: Vec<i64> = s.counters.iter().map(|c| c.ts).collect();
        assert_eq!(kept, [200, 400]);
        assert_eq!(s.counters_not_kept.rows, 3);
        assert_eq!(
            s.bounds(),
            (100, 500),
            "the dropped rows are the first and last"
        );
    }
}

#[cfg(test)]
mod row_size_tests {
    use super::*;
    use std::mem::size_of;

    /// Millions of these rows are held at once (a 200 MB trace has ~1.8 M slices and ~2.3 M
    /// thread states), so every byte per row is megabytes of peak memory (issue 19). The
    /// figures are the sums of the fields' sizes, rounded up to 8-byte alignment.
    #[test]
    fn rows_stay_packed() {
        // A missing name costs no extra word.
        assert_eq!(size_of::<Option<StrId>>(), 4);
        // Slices are packed further in `slice_row` (32 bytes, tested there).
        // ts, dur: 16; cpu, utid, end_state, priority: 16.
        assert_eq!(size_of::<SchedRow>(), 32);
        // Thread states are packed further in `thread_states` (24 bytes, tested there).
        // ts: 8; track, arg set: 8; value: 8.
        assert_eq!(size_of::<CounterRow>(), 24);
    }
}
