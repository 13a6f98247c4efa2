//! `thread_state` end to end: hand-made traces for sched_blocked_reason and its interned
//! kernel symbols, and the real traces against trace_processor v58.2's answers (the oracle
//! CSVs in ../shared/perfetto-oracle).

mod common;

use frameprobe::import::{load_source, LoadOptions};
use frameprobe::store::Store;
use frameprobe::trace::reader::TraceSource;
use frameprobe::trace::wire::put_varint;

fn varint_field(out: &mut Vec<u8>, field: u32, v: u64) {
    put_varint(out, (field as u64) << 3);
    put_varint(out, v);
}

fn bytes_field(out: &mut Vec<u8>, field: u32, b: &[u8]) {
    put_varint(out, ((field as u64) << 3) | 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// An FtraceEvent: timestamp, emitting pid, then the event (oneof field `id`).
fn event(ts: u64, pid: u64, id: u32, payload: &[u8]) -> Vec<u8> {
    let mut e = Vec::new();
    varint_field(&mut e, 1, ts);
    varint_field(&mut e, 2, pid);
    bytes_field(&mut e, id, payload);
    e
}

fn sched_switch(ts: u64, prev: u64, prev_state: u64, next: u64) -> Vec<u8> {
    let mut p = Vec::new();
    bytes_field(&mut p, 1, b"prev");
    varint_field(&mut p, 2, prev);
    varint_field(&mut p, 3, 120);
    varint_field(&mut p, 4, prev_state);
    bytes_field(&mut p, 5, b"next");
    varint_field(&mut p, 6, next);
    varint_field(&mut p, 7, 120);
    event(ts, prev, 4, &p)
}

fn sched_waking(ts: u64, waker: u64, wakee: u64) -> Vec<u8> {
    let mut p = Vec::new();
    bytes_field(&mut p, 1, b"wakee");
    varint_field(&mut p, 2, wakee);
    varint_field(&mut p, 3, 120);
    event(ts, waker, 20, &p)
}

fn blocked_reason(ts: u64, emitter: u64, pid: u64, caller: u64, io_wait: u64) -> Vec<u8> {
    let mut p = Vec::new();
    varint_field(&mut p, 1, pid);
    varint_field(&mut p, 2, caller);
    varint_field(&mut p, 3, io_wait);
    event(ts, emitter, 18, &p)
}

/// A TracePacket on sequence 1 holding one CPU's ftrace bundle, optionally with kernel
/// symbols (InternedData field 26) and SEQ_INCREMENTAL_STATE_CLEARED.
fn bundle_packet(cpu: u64, events: &[Vec<u8>], symbols: &[(u64, &str)], cleared: bool) -> Vec<u8> {
    let mut bundle = Vec::new();
    varint_field(&mut bundle, 1, cpu);
    for e in events {
        bytes_field(&mut bundle, 2, e);
    }
    let mut packet = Vec::new();
    bytes_field(&mut packet, 1, &bundle);
    varint_field(&mut packet, 10, 1);
    if cleared {
        varint_field(&mut packet, 13, 1);
    }
    if !symbols.is_empty() {
        let mut interned = Vec::new();
        for (iid, name) in symbols {
            let mut sym = Vec::new();
            varint_field(&mut sym, 1, *iid);
            bytes_field(&mut sym, 2, name.as_bytes());
            bytes_field(&mut interned, 26, &sym);
        }
        bytes_field(&mut packet, 12, &interned);
    }
    let mut out = Vec::new();
    bytes_field(&mut out, 1, &packet);
    out
}

fn load(trace: Vec<u8>) -> Store {
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    load_source(TraceSource::from_bytes("t", trace).unwrap(), opts)
        .unwrap()
        .store
}

/// (state, io_wait, blocked_function) of every row of thread `tid`, in order.
fn states_of(s: &Store, tid: i64) -> Vec<(String, Option<bool>, Option<String>)> {
    s.thread_states
        .iter()
        .zip(0..)
        .filter(|(r, _)| s.threads[r.utid as usize].tid == tid)
        .map(|(r, row)| {
            (
                s.opt_str(r.state()).unwrap_or("NULL").to_string(),
                r.io_wait(),
                s.opt_str(s.blocked_function(row)).map(str::to_string),
            )
        })
        .collect()
}

fn row(
    state: &str,
    io_wait: Option<bool>,
    f: Option<&str>,
) -> (String, Option<bool>, Option<String>) {
    (state.to_string(), io_wait, f.map(str::to_string))
}

// prev_state 2 is TASK_UNINTERRUPTIBLE ("D") on every kernel.
const D: u64 = 2;

#[test]
fn blocked_reason_caller_resolves_through_the_sequences_kernel_symbols() {
    let mut trace = bundle_packet(
        0,
        &[
            sched_switch(1_000, 10, D, 20),
            sched_waking(2_000, 20, 10),
            blocked_reason(2_001, 20, 10, 1, 1),
        ],
        &[(1, "io_schedule")],
        true,
    );
    // Another bundle on the same sequence: the symbol table still holds; iid 7 has no
    // symbol, so its blocked_function stays NULL while io_wait is set.
    trace.extend(bundle_packet(
        1,
        &[
            sched_switch(1_500, 11, D, 21),
            sched_waking(2_500, 21, 11),
            blocked_reason(2_501, 21, 11, 7, 0),
        ],
        &[],
        false,
    ));
    let s = load(trace);
    assert_eq!(
        states_of(&s, 10),
        [
            row("D", Some(true), Some("io_schedule")),
            row("R", None, None)
        ]
    );
    assert_eq!(
        states_of(&s, 11),
        [row("D", Some(false), None), row("R", None, None)]
    );
}

#[test]
fn cleared_incremental_state_forgets_kernel_symbols() {
    let mut trace = bundle_packet(0, &[], &[(1, "io_schedule")], true);
    trace.extend(bundle_packet(
        0,
        &[
            sched_switch(1_000, 10, D, 20),
            blocked_reason(1_001, 20, 10, 1, 1),
        ],
        &[],
        true,
    ));
    let s = load(trace);
    assert_eq!(states_of(&s, 10), [row("D", Some(true), None)]);
}

#[test]
fn blocked_reason_creates_its_thread_even_without_states() {
    let s = load(bundle_packet(
        0,
        &[blocked_reason(1_000, 30, 31, 1, 1)],
        &[],
        true,
    ));
    assert!(s.threads.iter().any(|t| t.tid == 31));
    assert!(s.threads.iter().any(|t| t.tid == 30));
    assert!(s.thread_states.is_empty());
}

const QUERY: &str = "select state, io_wait, count(*) as n, sum(dur) as total_dur, \
     count(distinct utid) as threads from thread_state group by state, io_wait \
     order by state, io_wait";

/// Traces whose thread_state matches trace_processor exactly. The api24 cold/sameproc
/// traces also need their ftrace bundles' own clock pairs (FtraceEventBundle ftrace_clock /
/// ftrace_timestamp / boot_timestamp) to put cross-CPU events in trace_processor's order.
#[test]
fn real_traces_match_trace_processor_thread_states() {
    let Some(traces) = common::shared("traces", "real_traces_match_trace_processor_thread_states")
    else {
        return;
    };
    let expected_dir = traces.join("../perfetto-oracle/expected");
    for name in [
        "androidx_api35_startup_cold_classinit",
        "androidx_api32_startup_warm",
        "androidx_api32_odpm_rails",
        "androidx_api24_commas_in_slice_names",
    ] {
        let trace = traces.join(format!("{name}.perfetto-trace"));
        let got = common::query_csv(&trace, QUERY);
        let csv = std::fs::read_to_string(expected_dir.join(name).join("thread_state.csv"))
            .expect("oracle CSV");
        let want: Vec<Vec<String>> = common::parse_csv(&csv)
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .map(|c| if c == "[NULL]" { String::new() } else { c })
                    .collect()
            })
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// The api35 facts that motivated the blocked-reason work, spelled out: 66 D states with no
/// sched_blocked_reason (28.5 ms), 382 D states waiting for I/O.
#[test]
fn api35_uninterruptible_sleep_split_by_io_wait() {
    let Some(traces) = common::shared("traces", "api35_uninterruptible_sleep_split_by_io_wait")
    else {
        return;
    };
    let trace = traces.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let rows = common::query_csv(
        &trace,
        "select io_wait, count(*), sum(dur) from thread_state where state = 'D' \
         group by io_wait order by io_wait",
    );
    assert_eq!(
        rows[1..],
        [
            vec!["".to_string(), "66".into(), "28539462".into()],
            vec!["0".into(), "557".into(), "5205842903".into()],
            vec!["1".into(), "382".into(), "307616479".into()],
        ]
    );
}
