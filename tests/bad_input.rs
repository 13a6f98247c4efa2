//! Bad input never panics and never loses what could be read.

mod common;

use std::io::Write;

use frameprobe::import::{load_source, LoadOptions};
use frameprobe::trace::reader::TraceSource;
use frameprobe::trace::wire::put_varint;

fn opts() -> LoadOptions {
    LoadOptions {
        progress: false,
        ..LoadOptions::all()
    }
}

fn slices_in(bytes: Vec<u8>) -> Result<(usize, Vec<String>), String> {
    let l = load_source(TraceSource::from_bytes("t", bytes).unwrap(), opts())
        .map_err(|e| e.to_string())?;
    Ok((l.store.slices.len(), l.warnings))
}

/// Byte offsets where packets start (field 1, length-delimited, at the top level).
fn packet_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        starts.push(pos);
        let (len, p) = frameprobe::trace::wire::read_varint(bytes, pos + 1).unwrap();
        pos = p + len as usize;
    }
    starts
}

#[test]
fn truncation_at_many_offsets_keeps_every_complete_packet() {
    let full = std::fs::read(common::sample_trace()).unwrap();
    let starts = packet_starts(&full);
    let (all, warnings) = slices_in(full.clone()).unwrap();
    assert!(warnings.is_empty());
    let mut prev = 0;
    // Every 97th byte plus every packet boundary (±1).
    let mut cuts: Vec<usize> = (1..full.len()).step_by(97).collect();
    for &s in &starts[1..] {
        cuts.extend([s - 1, s, s + 1]);
    }
    cuts.sort();
    cuts.dedup();
    for cut in cuts {
        match slices_in(full[..cut].to_vec()) {
            Ok((n, warnings)) => {
                let at_boundary = starts.contains(&cut);
                assert_eq!(
                    warnings.is_empty(),
                    at_boundary,
                    "cut at {cut}: {warnings:?}"
                );
                if let Some(w) = warnings.first() {
                    assert!(w.contains("byte offset"), "warning names the offset: {w}");
                }
                assert!(n <= all);
                assert!(n >= prev, "cutting later never loses slices ({cut})");
                prev = n;
            }
            // Only a cut inside the very first packet leaves nothing to import.
            Err(e) => assert!(cut <= starts[1], "cut at {cut} failed: {e}"),
        }
    }
    assert_eq!(slices_in(full).unwrap().0, all);
}

#[test]
fn random_bytes_give_a_one_line_error_and_exit_2() {
    let dir = std::env::temp_dir().join(format!("frameprobe-garbage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = frameprobe::rng::Rng::new(99);
    for i in 0..20 {
        let bytes: Vec<u8> = (0..(i * 37 + 5)).map(|_| rng.next_u64() as u8).collect();
        let p = dir.join(format!("g{i}.bin"));
        std::fs::write(&p, &bytes).unwrap();
        let out = common::run(&["query", p.to_str().unwrap(), "select count(*) from slice"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{err}");
        if !out.status.success() {
            assert_eq!(out.status.code(), Some(2));
            assert_eq!(err.trim().lines().count(), 1, "one-line error: {err}");
        }
    }
}

#[test]
fn oversized_length_prefix_is_reported_at_its_offset() {
    let mut bytes = std::fs::read(common::sample_trace()).unwrap();
    let good = bytes.len();
    // A packet claiming 1 TiB follows the real ones.
    bytes.extend_from_slice(&[0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 1, 2, 3]);
    let (n, warnings) = slices_in(bytes).unwrap();
    assert_eq!(
        n,
        slices_in(std::fs::read(common::sample_trace()).unwrap())
            .unwrap()
            .0
    );
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].contains(&format!("byte offset {good}")),
        "{}",
        warnings[0]
    );
}

fn packet_with(field_tag: u8, field_tag2: Option<u8>, payload: &[u8]) -> Vec<u8> {
    // TracePacket { <field>: payload } framed as Trace.packet.
    let mut pkt = vec![field_tag];
    if let Some(t) = field_tag2 {
        pkt.push(t);
    }
    put_varint(&mut pkt, payload.len() as u64);
    pkt.extend_from_slice(payload);
    let mut out = vec![0x0a];
    put_varint(&mut out, pkt.len() as u64);
    out.extend(pkt);
    out
}

#[test]
fn compression_bombs_are_refused_and_the_rest_imports() {
    let zeros = vec![0u8; 129 << 20];
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&zeros).unwrap();
    let deflate_bomb = z.finish().unwrap();
    let zstd_bomb = zstd::encode_all(&zeros[..], 1).unwrap();
    drop(zeros);
    let mut bytes = std::fs::read(common::sample_trace()).unwrap();
    // compressed_packets = 50 (tag 0x92 0x03), zstd_compressed_packets = 133 (tag 0xaa 0x08).
    bytes.extend(packet_with(0x92, Some(0x03), &deflate_bomb));
    bytes.extend(packet_with(0xaa, Some(0x08), &zstd_bomb));
    let l = load_source(TraceSource::from_bytes("t", bytes).unwrap(), opts()).unwrap();
    // Both bombs are refused. The first goes past the per-blob cap (128 MiB), which it
    // spends from the trace's 256 MiB decompression budget (the floor for a small file); the
    // second then finds only 128 MiB left and is refused for want of budget.
    assert_eq!(l.store.stat_value("compressed_packets_invalid"), 1);
    assert_eq!(l.store.stat_value("decompression_budget_exceeded"), 1);
    let sample = slices_in(std::fs::read(common::sample_trace()).unwrap())
        .unwrap()
        .0;
    assert_eq!(l.store.slices.len(), sample);
}

#[test]
fn compressed_packets_are_expanded_in_place() {
    let sample = std::fs::read(common::sample_trace()).unwrap();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&sample).unwrap();
    let wrapped = packet_with(0x92, Some(0x03), &z.finish().unwrap());
    let zs = packet_with(0xaa, Some(0x08), &zstd::encode_all(&sample[..], 3).unwrap());
    let n = slices_in(sample).unwrap().0;
    assert!(n > 0);
    assert_eq!(slices_in(wrapped).unwrap().0, n);
    assert_eq!(slices_in(zs).unwrap().0, n);
}

#[test]
fn gzip_file_and_stdin_are_read() {
    let sample = std::fs::read(common::sample_trace()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&sample).unwrap();
    let gz = gz.finish().unwrap();
    let p = std::env::temp_dir().join(format!(
        "frameprobe-gz-{}.perfetto-trace.gz",
        std::process::id()
    ));
    std::fs::write(&p, &gz).unwrap();
    let sql = "select count(*) as n from actual_frame_timeline_slice";
    let plain = common::query_csv(&common::sample_trace(), sql);
    assert_eq!(common::query_csv(&p, sql), plain);
    let mut child = std::process::Command::new(common::bin())
        .args(["query", "-", sql, "--format", "csv"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&gz).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        common::parse_csv(&String::from_utf8(out.stdout).unwrap()),
        plain
    );
}
