//! The tokenizer's defences, on hand-made packets: nesting and budget limits on
//! compressed packets, ftrace bundles from CPUs the device cannot have, and the filter on
//! wanted ftrace events.

use std::io::Write;

use super::*;
use crate::import::{load_source, LoadOptions};
use crate::trace::reader::TraceSource;
use crate::trace::wire::{put_field, Msg};

/// Frames packets as a `Trace` (field 1 each).
fn trace(packets: &[Msg]) -> Vec<u8> {
    let mut t = Msg::default();
    for p in packets {
        t = t.msg(1, Msg(p.0.clone()));
    }
    t.0
}

fn zlib(bytes: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(bytes).unwrap();
    z.finish().unwrap()
}

/// A TracePacket whose compressed_packets (field 50) holds `inner` as a Trace.
fn compressed(inner: &[Msg]) -> Msg {
    let mut m = Msg::default();
    put_field(
        &mut m.0,
        f::COMPRESSED_PACKETS,
        Value::Bytes(&zlib(&trace(inner))),
    );
    m
}

/// A marker packet: a TraceConfig with duration_ms = 7 sets `trace_config_duration_ms`.
fn marker() -> Msg {
    Msg::default().msg(f::TRACE_CONFIG, Msg::default().int(3, 7))
}

fn load(bytes: Vec<u8>) -> crate::import::Loaded {
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    load_source(TraceSource::from_bytes("t", bytes).unwrap(), opts).unwrap()
}

fn nested(depth: u32) -> Vec<u8> {
    let mut p = marker();
    for _ in 0..depth {
        p = compressed(&[p]);
    }
    // A plain packet first, so the nested one starts at a known offset.
    let head = trace(&[marker()]);
    let mut bytes = head.clone();
    bytes.extend(trace(&[p]));
    bytes
}

#[test]
fn compressed_packets_expand_up_to_the_nesting_limit() {
    let l = load(nested(MAX_COMPRESSION_NESTING));
    assert_eq!(l.store.stat_value("compressed_packets_nesting_too_deep"), 0);
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);
}

#[test]
fn deeper_nesting_is_skipped_counted_and_located() {
    let bytes = nested(MAX_COMPRESSION_NESTING + 1);
    let offset = trace(&[marker()]).len();
    let l = load(bytes);
    assert_eq!(l.store.stat_value("compressed_packets_nesting_too_deep"), 1);
    assert_eq!(l.warnings.len(), 1);
    assert!(
        l.warnings[0].contains(&format!("byte offset {offset}")),
        "{}",
        l.warnings[0]
    );
}

#[test]
fn a_few_thousand_levels_cost_nothing() {
    // Each level only wraps the one below: deflate of deflate barely grows.
    let l = load(nested(3_100));
    assert_eq!(l.store.stat_value("compressed_packets_nesting_too_deep"), 1);
}

/// Tokenizes `bytes` (a Trace) with a budget of `limit` decompressed bytes.
fn tokenize_with_budget(bytes: &[u8], limit: u64) -> (crate::import::Importer, Tokenizer) {
    use crate::import::pipeline;
    let mut tok = Tokenizer::new(Wanted {
        ftrace: Vec::new(),
        compact_sched: false,
        packets: Vec::new(),
    });
    tok.budget = Budget::new(limit);
    let (imp, ()) = pipeline::run(
        crate::import::Importer::new(),
        pipeline::Threads::One,
        pipeline::BatchSize::default(),
        |host| {
            for (i, p) in Fields::new(bytes).map_while(Result::ok).enumerate() {
                tok.packet(p.1.as_bytes(), i as u64, host);
            }
            tok.finish(host);
        },
    );
    (imp, tok)
}

#[test]
fn the_budget_spans_blobs_and_nesting() {
    // Three blobs, each expanding to a 400 KB padding packet and a marker.
    let pad = Msg::default().str(f::TRACE_CONFIG, &"x".repeat(400_000));
    let blob = || compressed(&[pad.clone(), marker()]);
    let bytes = trace(&[blob(), compressed(&[blob()]), blob()]);
    // Enough for everything: 3 × 400 KB, plus the small outer layer of the nested pair.
    let (imp, tok) = tokenize_with_budget(&bytes, 2_000_000);
    assert_eq!(imp.ctx.store.stat_value(limits::BUDGET_STAT), 0);
    assert!(tok.budget.used > 1_200_000, "{}", tok.budget.used);
    // 700 KB: the first blob and the nested pair's outer layer fit; the blob nested in it
    // (packet 1) and the last one (packet 2) do not.
    let (imp, tok) = tokenize_with_budget(&bytes, 700_000);
    assert_eq!(imp.ctx.store.stat_value(limits::BUDGET_STAT), 2);
    assert!(tok.budget.exhausted());
    assert_eq!(tok.warnings.len(), 2, "{:?}", tok.warnings);
    assert!(
        tok.warnings[0].contains("byte offset 1"),
        "{:?}",
        tok.warnings
    );
    assert!(
        tok.warnings[1].contains("byte offset 2"),
        "{:?}",
        tok.warnings
    );
}

#[test]
fn warnings_of_one_kind_are_capped_and_summarised() {
    let bytes = trace(&vec![compressed(&[marker()]); 10]);
    let (imp, tok) = tokenize_with_budget(&bytes, 1);
    assert_eq!(imp.ctx.store.stat_value(limits::BUDGET_STAT), 10);
    assert_eq!(tok.warnings.len(), WARNINGS_PER_KIND as usize + 1);
    assert!(tok.warnings.last().unwrap().starts_with("7 more warnings"));
}

/// An ftrace bundle (FtraceEventBundle) for `cpu` holding atrace prints at `prints`
/// (ts, "B|1|name" or "E|1"), with the v47+ previous_bundle_end_timestamp when given.
fn bundle(cpu: u32, prev_end: Option<i64>, prints: &[(i64, &str)]) -> Msg {
    let mut b = Msg::default().int(1, i64::from(cpu));
    for (ts, buf) in prints {
        let ev = Msg::default()
            .int(1, *ts)
            .int(2, 1)
            .msg(3, Msg::default().int(1, 0).str(2, buf));
        b = b.msg(2, ev);
    }
    if let Some(p) = prev_end {
        b = b.int(10, p);
    }
    Msg::default()
        .int(f::TRUSTED_PACKET_SEQUENCE_ID, 1)
        .msg(f::FTRACE_EVENTS, b)
}

fn system_info(num_cpus: u32) -> Msg {
    Msg::default().msg(f::SYSTEM_INFO, Msg::default().int(8, i64::from(num_cpus)))
}

/// Four slices on CPU 0 between 1 and 8 ms, then a first bundle for `cpu` claiming its data
/// is only complete from 9 ms (which, if believed, crops every slice before it).
fn late_first_bundle(cpu: u32, info: Option<u32>) -> crate::import::Loaded {
    let mut packets: Vec<Msg> = info.map(system_info).into_iter().collect();
    let ms = 1_000_000;
    packets.push(bundle(
        0,
        Some(0),
        &[
            (ms, "B|1|a"),
            (2 * ms, "E|1"),
            (3 * ms, "B|1|b"),
            (4 * ms, "E|1"),
            (5 * ms, "B|1|c"),
            (6 * ms, "E|1"),
            (7 * ms, "B|1|d"),
            (8 * ms, "E|1"),
        ],
    ));
    packets.push(bundle(
        cpu,
        Some(9 * ms),
        &[(10 * ms, "B|1|e"), (11 * ms, "E|1")],
    ));
    load(trace(&packets))
}

#[test]
fn a_bundle_from_a_cpu_the_device_lacks_is_dropped_not_believed() {
    // SystemInfo says 4 CPUs: CPU 127 cannot exist.
    let l = late_first_bundle(127, Some(4));
    assert_eq!(l.store.stat_value("ftrace_bundle_cpu_out_of_range"), 1);
    assert_eq!(l.store.metadata_int("ftrace_latest_data_start_ns"), Some(0));
    assert_eq!(l.store.slices.len(), 4);
    assert_eq!(l.warnings.len(), 1);
    assert!(l.warnings[0].contains("CPU 127, but the device has 4 CPUs"));
    // Without SystemInfo the bound is trace_processor's 1024.
    let l = late_first_bundle(1024, None);
    assert_eq!(l.store.stat_value("ftrace_bundle_cpu_out_of_range"), 1);
    assert_eq!(l.store.slices.len(), 4);
}

#[test]
fn a_real_cpu_first_seen_late_moves_the_cut_off_as_in_trace_processor() {
    // CPU 3 of 4: its data start is believed, so only the slice after 9 ms survives.
    let l = late_first_bundle(3, Some(4));
    assert_eq!(l.store.stat_value("ftrace_bundle_cpu_out_of_range"), 0);
    assert_eq!(
        l.store.metadata_int("ftrace_latest_data_start_ns"),
        Some(9_000_000)
    );
    assert_eq!(l.store.slices.len(), 1);
}

/// The wanted-event bitset keeps exactly the ids it was given, across word boundaries
/// (63/64/65, 127/128) and ids far past the largest.
#[test]
fn wanted_ftrace_ids_are_kept_exactly() {
    let ids = [0, 1, 63, 64, 128, 347, 511];
    let set = IdSet::of(&ids);
    for id in 0..2048 {
        assert_eq!(set.contains(id), ids.contains(&id), "id {id}");
    }
    assert!(!IdSet::of(&[]).contains(0));
}

#[test]
fn print_text_is_read_whatever_the_layout() {
    let kernel_ip = 0xffff_ffc0_1234_5678u64;
    let mut with_ip = Vec::new();
    put_varint(&mut with_ip, 1 << 3);
    put_varint(&mut with_ip, kernel_ip);
    put_field(&mut with_ip, 2, Value::Bytes(b"B|123|doFrame"));
    assert_eq!(
        with_ip.len(),
        1 + 10 + 2 + 13,
        "the kernel address is a 10-byte varint"
    );
    assert_eq!(print_buf(&with_ip), b"B|123|doFrame");
    let mut no_ip = Vec::new();
    put_field(&mut no_ip, 2, Value::Bytes(b"E|123"));
    assert_eq!(print_buf(&no_ip), b"E|123");
    // The buf first, then the ip: still the buf.
    let mut buf_first = no_ip.clone();
    put_varint(&mut buf_first, 1 << 3);
    put_varint(&mut buf_first, kernel_ip);
    assert_eq!(print_buf(&buf_first), b"E|123");
    // Two bufs: the last one.
    let mut two = with_ip.clone();
    put_field(&mut two, 2, Value::Bytes(b"C|1|x|2"));
    assert_eq!(print_buf(&two), b"C|1|x|2");
    // A buf longer than the message, and an ip varint that never ends: no text.
    assert_eq!(print_buf(&with_ip[..with_ip.len() - 1]), b"");
    let endless: Vec<u8> = std::iter::once(1 << 3).chain([0xff; 11]).collect();
    assert_eq!(print_buf(&endless), b"");
    assert_eq!(print_buf(&[]), b"");

    // Mutations of well-formed prints read the same as by the protobuf rules.
    let mut rng = crate::rng::Rng::new(7);
    for _ in 0..20_000 {
        let mut p = Vec::new();
        if rng.chance(0.8) {
            put_varint(&mut p, 1 << 3);
            put_varint(&mut p, rng.next_u64() >> rng.range(0, 63));
        }
        let text: Vec<u8> = (0..rng.range(0, 200))
            .map(|_| rng.range(32, 126) as u8)
            .collect();
        put_field(&mut p, 2, Value::Bytes(&text));
        damage(&mut rng, &mut p, 3);
        assert_eq!(print_buf(&p), print_buf_by_fields(&p), "print {p:02x?}");
    }
}

/// An ftrace event's timestamp, pid and own message: read without the field loop for the
/// kernel's layout, and the same as by the protobuf rules for any event.
#[test]
fn ftrace_event_envelope_is_read_whatever_the_layout() {
    let print = fid::PRINT;
    let mut kernel = Vec::new();
    put_field(&mut kernel, 1, Value::Varint(1_234_567_890_123));
    put_field(&mut kernel, 2, Value::Varint(4321));
    put_field(&mut kernel, print, Value::Bytes(b"\x12\x05E|123"));
    let plain = plain_envelope(&kernel).expect("the kernel's layout takes the fixed-tag path");
    assert_eq!(
        plain,
        Envelope {
            ts: Some(1_234_567_890_123),
            pid: Some(4321),
            event_id: print,
            payload: b"\x12\x05E|123",
        }
    );
    assert_eq!(envelope_by_fields(&kernel), plain);

    let mut rng = crate::rng::Rng::new(11);
    for _ in 0..20_000 {
        let mut ev = Vec::new();
        if rng.chance(0.9) {
            put_field(
                &mut ev,
                1,
                Value::Varint(rng.next_u64() >> rng.range(0, 63)),
            );
        }
        for _ in 0..rng.range(0, 2) {
            put_field(
                &mut ev,
                2,
                Value::Varint(rng.next_u64() >> rng.range(0, 63)),
            );
        }
        let body: Vec<u8> = (0..rng.range(0, 40))
            .map(|_| rng.next_u64() as u8)
            .collect();
        put_field(&mut ev, rng.range(1, 600) as u32, Value::Bytes(&body));
        // A varint field 1 after the message: a second timestamp.
        damage(&mut rng, &mut ev, 1);
        if let Some(plain) = plain_envelope(&ev) {
            assert_eq!(plain, envelope_by_fields(&ev), "event {ev:02x?}");
        }
    }
}

/// One of: nothing, a cut, a byte overwritten, a byte appended, a varint field `extra`
/// appended, or a continuation byte inserted (a varint that runs on).
fn damage(rng: &mut crate::rng::Rng, m: &mut Vec<u8>, extra: u32) {
    match rng.range(0, 5) {
        0 => {}
        1 => m.truncate(rng.range(0, m.len() as i64) as usize),
        2 => {
            let at = rng.range(0, m.len() as i64 - 1) as usize;
            m[at] = rng.next_u64() as u8;
        }
        3 => m.push(rng.next_u64() as u8),
        4 => put_field(m, extra, Value::Varint(rng.next_u64())),
        _ => {
            let at = rng.range(0, m.len() as i64) as usize;
            m.insert(at, 0x80);
        }
    }
}
