//! ftrace recorded with a kernel clock userspace cannot read ("global"/"local", e.g. kernel
//! 3.10 phones): each bundle carries an (ftrace, boot) timestamp pair taken when the buffer
//! was read, and every event converts through the latest pair at or before it (the first
//! pair for events older than every pair), as trace_processor does.

mod common;

use common::pb::{ftrace_packet, print_event, remove_trace, write_trace, Value};

/// A bundle on cpu 0 with ftrace_clock GLOBAL (field 5 = 2) and its (ftrace_timestamp = 6,
/// boot_timestamp = 7) pair.
fn global_clock_bundle(ftrace_ts: u64, boot_ts: u64, events: &[Vec<u8>]) -> Vec<u8> {
    ftrace_packet(
        0,
        events,
        &[
            (5, Value::Varint(2)),
            (6, Value::Varint(ftrace_ts)),
            (7, Value::Varint(boot_ts)),
        ],
    )
}

#[test]
fn global_clock_ftrace_converts_through_the_bundle_snapshots() {
    // Snapshot 1: ftrace 1_000_000 = boot 5_000_000 (offset +4_000_000).
    // Snapshot 2: ftrace 2_000_000 = boot 6_000_010 (offset +4_000_010: the clocks drifted).
    let mut bytes = global_clock_bundle(
        1_000_000,
        5_000_000,
        &[
            print_event(900_000, 10, "B|10|first"),
            print_event(950_000, 10, "E|10"),
        ],
    );
    bytes.extend(global_clock_bundle(
        2_000_000,
        6_000_010,
        &[
            print_event(1_500_000, 10, "B|10|second"),
            print_event(2_100_000, 10, "E|10"),
        ],
    ));
    let trace = write_trace("ftrace-clock", "global_clock.perfetto-trace", &bytes);

    let rows = common::query_csv(&trace, "select name, ts, dur from slice order by ts");
    let expected = [
        // Older than every pair: the first pair applies.
        ["first", "4900000", "50000"],
        // Begins before the second pair (first offset), ends after it (second offset).
        ["second", "5500000", "600010"],
    ];
    assert_eq!(rows.len(), 3, "{rows:?}");
    for (row, want) in rows[1..].iter().zip(expected) {
        assert_eq!(row, &want.map(String::from).to_vec());
    }
    remove_trace(&trace);
}
