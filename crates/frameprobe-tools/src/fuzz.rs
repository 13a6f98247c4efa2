//! A mutation fuzzer for the reader and importers (an equivalent of a cargo-fuzz target that
//! runs on a stable toolchain): inputs derived from seed traces by byte flips, truncation,
//! splicing and structure-aware edits inside packets are loaded in-process; any panic is a
//! finding, saved with the seed that reproduces it.

use std::panic::{catch_unwind, AssertUnwindSafe};

use frameprobe::import::{load_source, LoadOptions};
use frameprobe::rng::Rng;
use frameprobe::trace::reader::TraceSource;
use frameprobe::trace::wire::{put_varint, read_varint};

/// What each input goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Reader, tokenizer, sorter and importers (`load_source`).
    Reader,
    /// The same, then the frame analysis over whatever was imported.
    ReaderAndAnalysis,
}

/// Loads one input; returns Err with the panic message if anything panicked.
pub fn run_one(input: &[u8]) -> Result<(), String> {
    run_target(input, Target::ReaderAndAnalysis)
}

/// Runs one input through `target`; Err with the panic message if anything panicked.
pub fn run_target(input: &[u8], target: Target) -> Result<(), String> {
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    let bytes = input.to_vec();
    let r = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(src) = TraceSource::from_bytes("fuzz", bytes) {
            if let Ok(loaded) = load_source(src, opts) {
                if target == Target::Reader {
                    return;
                }
                // The analysis must cope with whatever was imported too.
                let a = frameprobe::analysis::AnalyzeOptions {
                    top: 3,
                    ..Default::default()
                };
                let _ = frameprobe::analysis::analyze(&loaded.store, &a, "fuzz");
            }
        }
    }));
    r.map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "panic".into())
    })
}

/// Byte ranges of the top-level packets' payloads.
fn packets(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < bytes.len() {
        let Ok((tag, p)) = read_varint(bytes, pos) else {
            break;
        };
        if tag != 0x0a {
            break;
        }
        let Ok((len, p2)) = read_varint(bytes, p) else {
            break;
        };
        let end = p2 + len as usize;
        if end > bytes.len() {
            break;
        }
        out.push((p2, end));
        pos = end;
    }
    out
}

/// Rewrites one packet with a mutated payload (framing kept valid).
fn mutate_packet(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let ps = packets(bytes);
    if ps.is_empty() {
        return bytes.to_vec();
    }
    let (a, b) = ps[rng.range(0, ps.len() as i64 - 1) as usize];
    let mut payload = bytes[a..b].to_vec();
    let edits = 1 + rng.range(0, 3) as usize;
    mutate_bytes(&mut payload, rng, edits);
    let mut out = Vec::with_capacity(bytes.len() + 16);
    // Everything before the packet's tag/length, the new packet, everything after.
    let head = ps.iter().position(|p| p.0 == a).unwrap();
    let start_of_frame = if head == 0 { 0 } else { ps[head - 1].1 };
    out.extend_from_slice(&bytes[..start_of_frame]);
    out.push(0x0a);
    put_varint(&mut out, payload.len() as u64);
    out.extend_from_slice(&payload);
    out.extend_from_slice(&bytes[b..]);
    out
}

fn mutate_bytes(buf: &mut Vec<u8>, rng: &mut Rng, edits: usize) {
    for _ in 0..edits {
        if buf.is_empty() {
            buf.push(rng.next_u64() as u8);
            continue;
        }
        let i = rng.range(0, buf.len() as i64 - 1) as usize;
        match rng.range(0, 5) {
            0 => buf[i] ^= 1 << rng.range(0, 7),
            1 => buf[i] = rng.next_u64() as u8,
            2 => {
                buf.remove(i);
            }
            3 => buf.insert(i, rng.next_u64() as u8),
            4 => buf[i] = [0x00, 0x7f, 0x80, 0xff][rng.range(0, 3) as usize],
            _ => {
                let n = rng.range(1, 8) as usize;
                let j = (i + n).min(buf.len());
                let chunk = buf[i..j].to_vec();
                let k = rng.range(0, buf.len() as i64 - 1) as usize;
                buf.splice(k..k, chunk);
            }
        }
    }
}

/// Frames `payload` as one top-level packet whose only field is `field`.
fn packet_with(field: u32, payload: &[u8]) -> Vec<u8> {
    let mut pkt = Vec::with_capacity(payload.len() + 8);
    frameprobe::trace::wire::put_field(
        &mut pkt,
        field,
        frameprobe::trace::wire::Value::Bytes(payload),
    );
    let mut out = vec![0x0a];
    put_varint(&mut out, pkt.len() as u64);
    out.extend(pkt);
    out
}

fn compress(bytes: &[u8], zstd: bool) -> Vec<u8> {
    use std::io::Write;
    if zstd {
        return zstd::encode_all(bytes, 1).unwrap_or_default();
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = z.write_all(bytes);
    z.finish().unwrap_or_default()
}

/// The shapes hostile inputs take: packets wrapped in (nested) compressed_packets, zero
/// padding, a gzip / zstd whole file, a packet field number past 2^29.
fn mutate_structure(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    use frameprobe::trace::fields as f;
    match rng.range(0, 4) {
        0 => {
            // A slice of the packets, compressed 1..12 levels deep (past the limit of 8).
            let ps = packets(seed);
            if ps.is_empty() {
                return seed.to_vec();
            }
            let a = rng.range(0, ps.len() as i64 - 1) as usize;
            let b = (a + rng.range(1, 16) as usize).min(ps.len());
            let start = if a == 0 { 0 } else { ps[a - 1].1 };
            let mut inner = seed[start..ps[b - 1].1].to_vec();
            for _ in 0..rng.range(1, 12) {
                let zstd = rng.chance(0.5);
                let field = if zstd {
                    f::ZSTD_COMPRESSED_PACKETS
                } else {
                    f::COMPRESSED_PACKETS
                };
                inner = packet_with(field, &compress(&inner, zstd));
            }
            let mut out = seed[..start].to_vec();
            out.extend(inner);
            out.extend_from_slice(&seed[ps[b - 1].1..]);
            out
        }
        1 => {
            // Zero padding (odd or even) somewhere between packets or at the end.
            let ps = packets(seed);
            let at = ps
                .get(rng.range(0, ps.len() as i64) as usize)
                .map_or(seed.len(), |p| p.1);
            let mut out = seed[..at].to_vec();
            out.extend(std::iter::repeat_n(0u8, rng.range(1, 5000) as usize));
            out.extend_from_slice(&seed[at..]);
            out
        }
        2 => {
            // The whole (possibly damaged) file gzip- or zstd-compressed.
            let mut b = seed.to_vec();
            if rng.chance(0.5) {
                let edits = 1 + rng.range(0, 3) as usize;
                mutate_bytes(&mut b, rng, edits);
            }
            if rng.chance(0.5) {
                return zstd::encode_all(&b[..], 1).unwrap_or_default();
            }
            use std::io::Write;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let _ = gz.write_all(&b);
            gz.finish().unwrap_or_default()
        }
        _ => {
            // A field number past protobuf's maximum inside a packet.
            let mut pkt = Vec::new();
            let field =
                (1u64 << 29) + rng.range(0, 1 << 20) as u64 + (rng.range(0, 1) as u64) * (1 << 32);
            put_varint(&mut pkt, (field << 3) | 2);
            put_varint(&mut pkt, 1);
            pkt.push(0);
            let mut out = seed.to_vec();
            out.push(0x0a);
            put_varint(&mut out, pkt.len() as u64);
            out.extend(pkt);
            out
        }
    }
}

/// One fuzz input derived from `seed` by `rng`.
pub fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    if rng.chance(0.15) {
        return mutate_structure(seed, rng);
    }
    match rng.range(0, 3) {
        0 => mutate_packet(seed, rng),
        1 => {
            let mut b = seed.to_vec();
            let edits = 1 + rng.range(0, 7) as usize;
            mutate_bytes(&mut b, rng, edits);
            b
        }
        2 => seed[..rng.range(0, seed.len() as i64) as usize].to_vec(),
        _ => {
            // Splice two halves of the trace out of order.
            let cut = rng.range(0, seed.len() as i64) as usize;
            let mut b = seed[cut..].to_vec();
            b.extend_from_slice(&seed[..cut]);
            b
        }
    }
}

/// Runs `iterations` inputs from `seeds`; returns (iterations run, findings).
pub fn campaign(
    seeds: &[Vec<u8>],
    iterations: u64,
    seed: u64,
) -> (u64, Vec<(u64, String, Vec<u8>)>) {
    campaign_on(
        seeds,
        iterations,
        seed,
        Target::ReaderAndAnalysis,
        &mut |_| {},
    )
}

/// [`campaign`] through `target`, calling `progress` with the count every 10,000 inputs.
pub fn campaign_on(
    seeds: &[Vec<u8>],
    iterations: u64,
    seed: u64,
    target: Target,
    progress: &mut dyn FnMut(u64),
) -> (u64, Vec<(u64, String, Vec<u8>)>) {
    let mut rng = Rng::new(seed);
    let mut findings = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..iterations {
        let s = &seeds[rng.range(0, seeds.len() as i64 - 1) as usize];
        let input = mutate(s, &mut rng);
        if let Err(msg) = run_target(&input, target) {
            findings.push((i, msg, input));
        }
        if (i + 1) % 10_000 == 0 {
            progress(i + 1);
        }
    }
    std::panic::set_hook(hook);
    (iterations, findings)
}

/// Small seed traces: the generator's frames with every data source, and variants.
pub fn generated_seeds() -> Vec<Vec<u8>> {
    use crate::synth::{generate, SynthConfig};
    vec![
        generate(&SynthConfig {
            frames: 8,
            ..Default::default()
        })
        .bytes,
        generate(&SynthConfig {
            frames: 5,
            frame_timeline: false,
            sdk_version: 28,
            ..Default::default()
        })
        .bytes,
        generate(&SynthConfig {
            frames: 5,
            atrace: false,
            sched: false,
            ..Default::default()
        })
        .bytes,
    ]
}
