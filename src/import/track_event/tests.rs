//! End-to-end tests of TrackEvent import on hand-made traces; expected values follow
//! Perfetto's documented rules (TrackEvent / TrackDescriptor / TracePacket protos and
//! trace_processor's behaviour), not this code's output.

use crate::import::{load_source, LoadOptions};
use crate::store::args::ArgValue;
use crate::store::Store;
use crate::trace::reader::TraceSource;
use crate::trace::wire::{put_field, Value};

/// A protobuf message under construction.
#[derive(Default, Clone)]
struct Msg(Vec<u8>);

impl Msg {
    fn new() -> Self {
        Msg::default()
    }
    fn int(mut self, field: u32, v: i64) -> Self {
        put_field(&mut self.0, field, Value::Varint(v as u64));
        self
    }
    fn fixed64(mut self, field: u32, v: u64) -> Self {
        put_field(&mut self.0, field, Value::Fixed64(v));
        self
    }
    fn str(mut self, field: u32, s: &str) -> Self {
        put_field(&mut self.0, field, Value::Bytes(s.as_bytes()));
        self
    }
    fn msg(mut self, field: u32, m: Msg) -> Self {
        put_field(&mut self.0, field, Value::Bytes(&m.0));
        self
    }
}

// TracePacket fields.
const TS: u32 = 8;
const SEQ: u32 = 10;
const TRACK_EVENT: u32 = 11;
const INTERNED: u32 = 12;
const FLAGS: u32 = 13;
const DROPPED: u32 = 42;
const THREAD_DESCRIPTOR: u32 = 44;
const CLOCK_SNAPSHOT: u32 = 6;
const DEFAULTS: u32 = 59;
const TRACK_DESCRIPTOR: u32 = 60;
const CLEARED: i64 = 1;
const NEEDS_STATE: i64 = 2;

fn load(packets: &[Msg]) -> Store {
    let mut trace = Vec::new();
    for p in packets {
        put_field(&mut trace, 1, Value::Bytes(&p.0));
    }
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    load_source(TraceSource::from_bytes("t", trace).unwrap(), opts)
        .unwrap()
        .store
}

fn packet(seq: i64, ts: i64) -> Msg {
    Msg::new().int(SEQ, seq).int(TS, ts)
}

fn name(iid: i64, s: &str) -> Msg {
    Msg::new().int(1, iid).str(2, s)
}

fn thread_track(uuid: i64, pid: i64, tid: i64, thread_name: &str) -> Msg {
    Msg::new()
        .int(1, uuid)
        .msg(4, Msg::new().int(1, pid).int(2, tid).str(5, thread_name))
}

/// (name, ts, dur, depth) of every slice.
fn slices(s: &Store) -> Vec<(String, i64, i64, u32)> {
    s.slices
        .iter()
        .map(|r| {
            (
                s.opt_str(r.name).unwrap_or("").to_string(),
                r.ts,
                r.dur,
                r.depth(),
            )
        })
        .collect()
}

fn args_of(s: &Store, slice: usize) -> Vec<(String, ArgValue)> {
    let Some(id) = s.slices[slice].arg_set_id.get() else {
        return Vec::new();
    };
    s.args
        .set(id)
        .iter()
        .map(|a| (s.str(a.key).to_string(), a.value.clone()))
        .collect()
}

#[test]
fn slices_nest_on_the_track_of_a_thread_descriptor() {
    let s = load(&[
        packet(1, 100)
            .int(FLAGS, CLEARED)
            .msg(
                INTERNED,
                Msg::new().msg(1, name(1, "cat")).msg(2, name(1, "outer")),
            )
            .msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "Worker")),
        packet(1, 100).int(FLAGS, NEEDS_STATE).msg(
            TRACK_EVENT,
            Msg::new().int(9, 1).int(11, 10).int(3, 1).int(10, 1),
        ),
        packet(1, 110).int(FLAGS, NEEDS_STATE).msg(
            TRACK_EVENT,
            Msg::new().int(9, 1).int(11, 10).str(23, "inner"),
        ),
        packet(1, 115).int(FLAGS, NEEDS_STATE).msg(
            TRACK_EVENT,
            Msg::new().int(9, 3).int(11, 10).str(23, "mark"),
        ),
        packet(1, 120)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 2).int(11, 10)),
        packet(1, 150)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 2).int(11, 10)),
    ]);
    assert_eq!(
        slices(&s),
        [
            ("outer".into(), 100, 50, 0),
            ("inner".into(), 110, 10, 1),
            ("mark".into(), 115, 0, 2),
        ]
    );
    assert_eq!(s.opt_str(s.slice_category(0)), Some("cat"));
    assert_eq!(s.slice_parent(1), Some(0));
    // The descriptor names the thread and puts it in its process.
    let t = s.threads.iter().find(|t| t.tid == 6).unwrap();
    assert_eq!(s.opt_str(t.name), Some("Worker"));
    assert_eq!(s.processes[t.upid.unwrap() as usize].pid, 5);
}

#[test]
fn packets_needing_incremental_state_wait_for_a_clear_and_stop_at_a_loss() {
    let event = |ts, n: &str| {
        packet(1, ts)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 3).int(11, 10).str(23, n))
    };
    let s = load(&[
        packet(1, 10).msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T")),
        // Before the first clear the sequence's state is not valid.
        event(20, "before clear"),
        packet(1, 30).int(FLAGS, CLEARED),
        event(40, "valid"),
        // A loss invalidates the state; interned data is ignored until the next clear.
        packet(1, 50)
            .int(DROPPED, 1)
            .msg(INTERNED, Msg::new().msg(2, name(1, "x"))),
        event(60, "after loss"),
        packet(1, 70).int(FLAGS, CLEARED),
        event(80, "cleared again"),
    ]);
    let names: Vec<_> = slices(&s).into_iter().map(|x| x.0).collect();
    assert_eq!(names, ["valid", "cleared again"]);
    assert_eq!(
        s.stat_value("packet_skipped_seq_needs_incremental_state_invalid"),
        2
    );
    assert_eq!(
        s.stat_value("interned_data_skipped_incremental_state_invalid"),
        1
    );
}

#[test]
fn interned_names_are_looked_up_in_the_interval_the_event_was_read_in() {
    // Iid 1 names "first" until the clear, then "second"; the later-read event sorts first.
    let ev = |ts| {
        packet(1, ts)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 3).int(11, 10).int(10, 1))
    };
    let s = load(&[
        packet(1, 0)
            .int(FLAGS, CLEARED)
            .msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T"))
            .msg(INTERNED, Msg::new().msg(2, name(1, "first"))),
        ev(500),
        packet(1, 0)
            .int(FLAGS, CLEARED)
            .msg(INTERNED, Msg::new().msg(2, name(1, "second"))),
        ev(300),
        // Unknown iid: no name, counted.
        packet(1, 600)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 3).int(11, 10).int(10, 9)),
    ]);
    let got: Vec<_> = slices(&s).into_iter().map(|x| (x.0, x.1)).collect();
    assert_eq!(
        got,
        [
            ("second".to_string(), 300),
            ("first".to_string(), 500),
            (String::new(), 600)
        ]
    );
    assert!(s.stat_value("interned_data_tokenizer_errors") >= 1);
}

#[test]
fn sequence_scoped_incremental_clock_accumulates_deltas() {
    // Clock 64 (sequence scoped, incremental, ns) equals BOOTTIME 1000 at the snapshot.
    let snapshot = Msg::new()
        .msg(1, Msg::new().int(1, 6).int(2, 1000))
        .msg(1, Msg::new().int(1, 64).int(2, 1000).int(3, 1).int(4, 1));
    let defaults = Msg::new().int(58, 64).msg(11, Msg::new().int(11, 10));
    let s = load(&[
        Msg::new()
            .int(SEQ, 3)
            .int(FLAGS, CLEARED)
            .msg(DEFAULTS, defaults)
            .msg(CLOCK_SNAPSHOT, snapshot),
        packet(3, 0).msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T")),
        packet(3, 5)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 1).str(23, "s")),
        packet(3, 20)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 2)),
    ]);
    // 1000 + 0 + 5 = 1005, then + 20 = 1025; the track comes from the defaults.
    assert_eq!(slices(&s), [("s".into(), 1005, 20, 0)]);
}

#[test]
fn flows_chain_slices_until_terminated() {
    let ev = |ts, n: &str, flow: Option<u64>, term: Option<u64>| {
        let mut e = Msg::new().int(9, 3).int(11, 10).str(23, n);
        if let Some(f) = flow {
            e = e.fixed64(47, f);
        }
        if let Some(t) = term {
            e = e.fixed64(48, t);
        }
        packet(1, ts).int(FLAGS, NEEDS_STATE).msg(TRACK_EVENT, e)
    };
    let s = load(&[
        packet(1, 0)
            .int(FLAGS, CLEARED)
            .msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T")),
        ev(10, "post", Some(7), None),
        ev(20, "hop", Some(7), None),
        ev(30, "run", None, Some(7)),
        // Terminated: this id starts a new flow, and a terminating id that is not
        // active starts nothing.
        ev(40, "again", Some(7), None),
        ev(50, "stray", None, Some(99)),
    ]);
    let rows: Vec<_> = s.flows.iter().map(|f| (f.slice_out, f.slice_in)).collect();
    assert_eq!(rows, [(0, 1), (1, 2)]);
}

#[test]
fn debug_annotations_become_debug_args() {
    let annotation = |n: &str, v: Msg| {
        Msg::new()
            .str(10, n)
            .0
            .into_iter()
            .chain(v.0)
            .collect::<Vec<u8>>()
    };
    let int_ann = annotation("count", Msg::new().int(4, -2));
    let str_ann = annotation("what", Msg::new().int(17, 3));
    let mut e = Msg::new().int(9, 3).int(11, 10).str(23, "e");
    put_field(&mut e.0, 4, Value::Bytes(&int_ann));
    put_field(&mut e.0, 4, Value::Bytes(&str_ann));
    // Interned name for a third annotation.
    e = e.msg(4, Msg::new().int(1, 2).int(2, 1));
    let s = load(&[
        packet(1, 0)
            .int(FLAGS, CLEARED)
            .msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T"))
            .msg(
                INTERNED,
                Msg::new()
                    .msg(3, name(2, "flag.on"))
                    .msg(29, name(3, "interned value")),
            ),
        packet(1, 10).int(FLAGS, NEEDS_STATE).msg(TRACK_EVENT, e),
    ]);
    let what = s.strings.lookup("interned value").unwrap();
    assert_eq!(
        args_of(&s, 0),
        [
            ("debug.count".to_string(), ArgValue::Int(-2)),
            ("debug.what".to_string(), ArgValue::Str(what)),
            ("debug.flag_on".to_string(), ArgValue::Bool(true)),
        ]
    );
}

#[test]
fn incremental_counter_values_accumulate_in_the_track_unit() {
    let counter = Msg::new().int(4, 1000).int(5, 1);
    let s = load(&[
        packet(1, 0).int(FLAGS, CLEARED).msg(
            TRACK_DESCRIPTOR,
            Msg::new().int(1, 20).str(2, "bytes").msg(8, counter),
        ),
        packet(1, 10)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 4).int(11, 20).int(30, 2)),
        packet(1, 20)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 4).int(11, 20).int(30, 3)),
        // Not a counter track: dropped.
        packet(1, 30)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 4).int(11, 21).int(30, 3)),
    ]);
    let values: Vec<_> = s.counters.iter().map(|c| (c.ts, c.value)).collect();
    assert_eq!(values, [(10, 2000.0), (20, 5000.0)]);
    let t = &s.tracks[s.counters[0].track_id as usize];
    assert_eq!(s.opt_str(t.name), Some("bytes"));
    assert_eq!(s.str(t.kind), "global_counter_track_event");
    assert_eq!(s.stat_value("track_event_counter_invalid_track_uuid"), 1);
}

/// Counter events are scaled where they are tokenized, from what the descriptors reserved:
/// the first descriptor of a uuid wins, and a descriptor the importers reject reserves
/// nothing.
#[test]
fn counter_scales_follow_the_reservations_the_importers_keep() {
    let counter =
        |multiplier: i64, incremental: i64| Msg::new().int(4, multiplier).int(5, incremental);
    let value = |ts: i64, uuid: i64, v: i64| {
        packet(1, ts)
            .int(FLAGS, NEEDS_STATE)
            .msg(TRACK_EVENT, Msg::new().int(9, 4).int(11, uuid).int(30, v))
    };
    let s = load(&[
        packet(1, 0).int(FLAGS, CLEARED).msg(
            TRACK_DESCRIPTOR,
            Msg::new().int(1, 20).str(2, "kb").msg(8, counter(1000, 0)),
        ),
        // Same uuid, another scale: a conflicting reservation, ignored.
        packet(1, 1).msg(
            TRACK_DESCRIPTOR,
            Msg::new().int(1, 20).str(2, "kb").msg(8, counter(10, 1)),
        ),
        // The default track cannot have a parent: rejected, so uuid 0 is no counter.
        packet(1, 2).msg(
            TRACK_DESCRIPTOR,
            Msg::new().int(1, 0).int(5, 20).msg(8, counter(1, 0)),
        ),
        // No uuid: dropped.
        packet(1, 3).msg(TRACK_DESCRIPTOR, Msg::new().str(2, "lost")),
        value(10, 20, 2),
        value(20, 20, 3),
        value(30, 0, 7),
    ]);
    let values: Vec<_> = s.counters.iter().map(|c| (c.ts, c.value)).collect();
    assert_eq!(values, [(10, 2000.0), (20, 3000.0)]);
    assert_eq!(s.stat_value("track_descriptor_conflicting_reservation"), 1);
    assert_eq!(
        s.stat_value("track_descriptor_default_track_with_parent"),
        1
    );
    assert_eq!(s.stat_value("track_descriptor_missing_uuid"), 1);
    assert_eq!(s.stat_value("track_event_counter_invalid_track_uuid"), 1);
}

#[test]
fn legacy_events_without_a_track_use_the_sequence_thread() {
    let s = load(&[
        packet(2, 0)
            .int(FLAGS, CLEARED)
            .msg(THREAD_DESCRIPTOR, Msg::new().int(1, 7).int(2, 8)),
        // Legacy phase 'X' (complete) with a duration in microseconds.
        packet(2, 1000).int(FLAGS, NEEDS_STATE).msg(
            TRACK_EVENT,
            Msg::new()
                .str(23, "legacy")
                .msg(6, Msg::new().int(2, 'X' as i64).int(3, 4)),
        ),
    ]);
    assert_eq!(slices(&s), [("legacy".into(), 1000, 4000, 0)]);
    let t = &s.tracks[s.slices[0].track_id as usize];
    let utid = match t.scope {
        crate::store::TrackScope::Thread(u) => u,
        other => panic!("{other:?}"),
    };
    assert_eq!(s.threads[utid as usize].tid, 8);
}

#[test]
fn extra_thread_time_counters_fill_counters_and_the_slice_thread_columns() {
    // A thread-time counter track under the thread's track; the default extra counter uuids
    // come from the sequence defaults.
    let defaults = Msg::new().msg(11, Msg::new().int(11, 10).int(31, 30));
    let ev = |ts, ty, thread_ns| {
        packet(1, ts).int(FLAGS, NEEDS_STATE).msg(
            TRACK_EVENT,
            Msg::new().int(9, ty).str(23, "work").int(12, thread_ns),
        )
    };
    let s = load(&[
        packet(1, 0)
            .int(FLAGS, CLEARED)
            .msg(DEFAULTS, defaults)
            .msg(TRACK_DESCRIPTOR, thread_track(10, 5, 6, "T")),
        packet(1, 0).msg(
            TRACK_DESCRIPTOR,
            Msg::new()
                .int(1, 30)
                .int(5, 10)
                .msg(8, Msg::new().int(1, 1)),
        ),
        ev(100, 1, 1000),
        ev(400, 2, 1250),
    ]);
    let values: Vec<_> = s.counters.iter().map(|c| (c.ts, c.value)).collect();
    assert_eq!(values, [(100, 1000.0), (400, 1250.0)]);
    let t = &s.tracks[s.counters[0].track_id as usize];
    assert_eq!(s.opt_str(t.name), Some("thread_time"));
    assert_eq!(s.opt_str(t.counter_unit), Some("ns"));
    assert_eq!(s.str(t.kind), "thread_counter_track_event");
    let times = s.slice_thread_times[&0];
    assert_eq!((times.thread_ts, times.thread_dur), (Some(1000), Some(250)));
    let conn = crate::store::sqlite::to_connection(&s, Default::default()).unwrap();
    let row: (i64, i64) = conn
        .query_row(
            "select thread_ts, thread_dur from slice where id = 0",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(row, (1000, 250));
}
