//! ftrace recorded with a kernel clock userspace cannot read ("global"/"local", e.g. kernel
//! 3.10 phones): each bundle carries an (ftrace, boot) timestamp pair taken when the buffer
//! was read, and every event converts through the latest pair at or before it (the first
//! pair for events older than every pair), as trace_processor does.

mod common;

use frameprobe::trace::wire::{put_field, Value};

fn msg(fields: &[(u32, Value<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, v) in fields {
        put_field(&mut out, *id, *v);
    }
    out
}

/// An ftrace `print` event (FtraceEvent.timestamp = 1, pid = 2, print = 3; print.buf = 2).
fn print(ts: u64, pid: u64, buf: &str) -> Vec<u8> {
    let print = msg(&[(2, Value::Bytes(buf.as_bytes()))]);
    msg(&[
        (1, Value::Varint(ts)),
        (2, Value::Varint(pid)),
        (3, Value::Bytes(&print)),
    ])
}

/// A TracePacket holding one FtraceEventBundle on cpu 0 with ftrace_clock GLOBAL (2) and the
/// bundle's (ftrace_timestamp, boot_timestamp) pair.
fn bundle(ftrace_ts: u64, boot_ts: u64, events: &[Vec<u8>]) -> Vec<u8> {
    let mut b = msg(&[(1, Value::Varint(0))]);
    for e in events {
        put_field(&mut b, 2, Value::Bytes(e));
    }
    put_field(&mut b, 5, Value::Varint(2));
    put_field(&mut b, 6, Value::Varint(ftrace_ts));
    put_field(&mut b, 7, Value::Varint(boot_ts));
    let packet = msg(&[(1, Value::Bytes(&b)), (10, Value::Varint(1))]);
    msg(&[(1, Value::Bytes(&packet))])
}

#[test]
fn global_clock_ftrace_converts_through_the_bundle_snapshots() {
    let dir = std::env::temp_dir().join(format!("frameprobe-ftrace-clock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("global_clock.perfetto-trace");
    // Snapshot 1: ftrace 1_000_000 = boot 5_000_000 (offset +4_000_000).
    // Snapshot 2: ftrace 2_000_000 = boot 6_000_010 (offset +4_000_010: the clocks drifted).
    let mut bytes = bundle(
        1_000_000,
        5_000_000,
        &[print(900_000, 10, "B|10|first"), print(950_000, 10, "E|10")],
    );
    bytes.extend(bundle(
        2_000_000,
        6_000_010,
        &[
            print(1_500_000, 10, "B|10|second"),
            print(2_100_000, 10, "E|10"),
        ],
    ));
    std::fs::write(&trace, bytes).unwrap();

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
    std::fs::remove_dir_all(&dir).ok();
}
