//! Trust reasons end to end on generated traces: a complete trace is trusted; ring-buffer
//! overwrites in TraceStats and ftrace overruns in FtraceStats, a truncated file, a trace
//! without its ClockSnapshot and a trace without FrameTimeline each lower the grade with
//! their reason.

mod common;

use std::path::PathBuf;

use frameprobe::trace::wire::{put_field, Fields, Value};
use frameprobe_tools::synth::{generate, SynthConfig};
use serde_json::Value as Json;

fn write(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-trust-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

fn trust(bytes: &[u8], name: &str) -> (String, Vec<(String, String)>) {
    let p = write(name, bytes);
    let out = common::run(&["analyze", p.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Json = serde_json::from_slice(&out.stdout).unwrap();
    let reasons = v["trust"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (v["trust"]["grade"].as_str().unwrap().to_string(), reasons)
}

/// A TracePacket holding `field` = `payload`, as a Trace's field 1.
fn packet(field: u32, payload: &[u8]) -> Vec<u8> {
    let mut p = Vec::new();
    put_field(&mut p, field, Value::Bytes(payload));
    let mut out = Vec::new();
    put_field(&mut out, 1, Value::Bytes(&p));
    out
}

fn msg(fields: &[(u32, u64)]) -> Vec<u8> {
    let mut m = Vec::new();
    for &(f, v) in fields {
        put_field(&mut m, f, Value::Varint(v));
    }
    m
}

fn base() -> Vec<u8> {
    generate(&SynthConfig {
        frames: 60,
        ..Default::default()
    })
    .bytes
}

#[test]
fn a_complete_trace_is_trusted() {
    let (grade, reasons) = trust(&base(), "ok.perfetto-trace");
    assert_eq!(grade, "trusted", "{reasons:?}");
}

#[test]
fn recording_losses_degrade() {
    // TraceStats: buffer 0 of 64 MiB overwrote 7 chunks (BufferStats field 3,
    // chunks_overwritten).
    let mut bytes = base();
    let mut stats = Vec::new();
    put_field(&mut stats, 1, Value::Bytes(&msg(&[(12, 64 << 20), (3, 7)])));
    bytes.extend(packet(35, &stats));
    // FtraceStats: cpu 0 overran 0 then 12 events (begin and end phases).
    let cpu = |overrun| msg(&[(1, 0), (3, overrun)]);
    for (phase, overrun) in [(1, 0), (2, 12)] {
        let mut s = msg(&[(1, phase)]);
        put_field(&mut s, 2, Value::Bytes(&cpu(overrun)));
        bytes.extend(packet(34, &s));
    }
    let (grade, reasons) = trust(&bytes, "lost.perfetto-trace");
    assert_eq!(grade, "degraded");
    let lost: Vec<&String> = reasons
        .iter()
        .filter(|r| r.0 == "lost_data")
        .map(|r| &r.1)
        .collect();
    assert!(
        lost.iter()
            .any(|t| t.contains("traced_buf_chunks_overwritten = 7")),
        "{lost:?}"
    );
    assert!(
        lost.iter()
            .any(|t| t.contains("ftrace_cpu_overrun_delta = 12")),
        "{lost:?}"
    );
}

#[test]
fn truncation_missing_clocks_and_missing_frame_timeline_degrade() {
    let bytes = base();
    // Cut in the middle of the last packet.
    let (grade, reasons) = trust(&bytes[..bytes.len() - 7], "cut.perfetto-trace");
    assert_eq!(grade, "degraded");
    assert!(reasons.iter().any(|r| r.0 == "truncated"), "{reasons:?}");

    // Without its ClockSnapshot, SurfaceFlinger's MONOTONIC packets cannot be placed.
    let mut no_clock = Vec::new();
    for f in Fields::new(&bytes) {
        let (id, v) = f.unwrap();
        let is_snapshot = Fields::new(v.as_bytes()).any(|x| matches!(x, Ok((6, _))));
        if !is_snapshot {
            put_field(&mut no_clock, id, v);
        }
    }
    let (grade, reasons) = trust(&no_clock, "noclock.perfetto-trace");
    assert_eq!(grade, "degraded");
    let ids: Vec<&str> = reasons.iter().map(|r| r.0.as_str()).collect();
    assert!(ids.contains(&"no_clock_snapshot"), "{ids:?}");
    assert!(ids.contains(&"clock_sync_failures"), "{ids:?}");

    let legacy = generate(&SynthConfig {
        frames: 60,
        frame_timeline: false,
        sdk_version: 30,
        ..Default::default()
    })
    .bytes;
    let (grade, reasons) = trust(&legacy, "legacy.perfetto-trace");
    assert_eq!(grade, "degraded");
    assert!(reasons
        .iter()
        .any(|r| r.0 == "no_frame_timeline" && r.1.contains("API 30")));
}
