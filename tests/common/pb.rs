//! Hand-made traces for end-to-end tests: protobuf messages written field by field with the
//! Perfetto field numbers each test names.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub use frameprobe::trace::wire::Value;
use frameprobe::trace::wire::{put_field, put_varint};

/// A message from (field, value) pairs, in order.
pub fn msg(fields: &[(u32, Value<'_>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (id, v) in fields {
        put_field(&mut out, *id, *v);
    }
    out
}

/// A varint field whose value is a signed number (two's complement, as protobuf int64).
pub fn int(v: i64) -> Value<'static> {
    Value::Varint(v as u64)
}

/// One `Trace.packet` (field 1) holding `packet`.
pub fn trace_packet(packet: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, (1 << 3) | 2);
    put_varint(&mut out, packet.len() as u64);
    out.extend_from_slice(packet);
    out
}

/// An ftrace `print` event (FtraceEvent.timestamp = 1, pid = 2, print = 3; print.buf = 2).
pub fn print_event(ts: u64, pid: u64, buf: &str) -> Vec<u8> {
    let print = msg(&[(2, Value::Bytes(buf.as_bytes()))]);
    msg(&[
        (1, Value::Varint(ts)),
        (2, Value::Varint(pid)),
        (3, Value::Bytes(&print)),
    ])
}

/// A TracePacket with an FtraceEventBundle (field 1) of `events` on `cpu`, extra bundle
/// fields appended (e.g. the ftrace clock), on packet sequence 1.
pub fn ftrace_packet(cpu: u64, events: &[Vec<u8>], extra: &[(u32, Value<'_>)]) -> Vec<u8> {
    let mut b = msg(&[(1, Value::Varint(cpu))]);
    for e in events {
        put_field(&mut b, 2, Value::Bytes(e));
    }
    for (id, v) in extra {
        put_field(&mut b, *id, *v);
    }
    trace_packet(&msg(&[(1, Value::Bytes(&b)), (10, Value::Varint(1))]))
}

/// A TracingServiceEvent packet (field 69) with one of its flags (2 tracing_started,
/// 3 all_data_sources_flushed, 4 read_tracing_buffers_completed) at `ts`.
pub fn service_event(ts: u64, flag: u32) -> Vec<u8> {
    let ev = msg(&[(flag, Value::Varint(1))]);
    trace_packet(&msg(&[
        (8, Value::Varint(ts)),
        (69, Value::Bytes(&ev)),
        (10, Value::Varint(2)),
    ]))
}

/// Writes `bytes` to a fresh file named `name` in a per-test temporary directory.
pub fn write_trace(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

pub fn remove_trace(path: &Path) {
    if let Some(dir) = path.parent() {
        std::fs::remove_dir_all(dir).ok();
    }
}
