//! A mutation fuzzer for the reader and importers (an equivalent of a cargo-fuzz target that
//! runs on a stable toolchain): inputs derived from seed traces by byte flips, truncation,
//! splicing and structure-aware edits inside packets are loaded in-process; any panic is a
//! finding, saved with the seed that reproduces it.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::import::{load_source, LoadOptions};
use crate::synth::Rng;
use crate::trace::reader::TraceSource;
use crate::trace::wire::{put_varint, read_varint};

/// Loads one input; returns Err with the panic message if anything panicked.
pub fn run_one(input: &[u8]) -> Result<(), String> {
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    let bytes = input.to_vec();
    let r = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(src) = TraceSource::from_bytes("fuzz", bytes) {
            if let Ok(loaded) = load_source(src, opts) {
                // The analysis must cope with whatever was imported too.
                let a = crate::analysis::AnalyzeOptions {
                    top: 3,
                    ..Default::default()
                };
                let _ = crate::analysis::analyze(&loaded.store, &a, "fuzz");
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

/// One fuzz input derived from `seed` by `rng`.
pub fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
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
    let mut rng = Rng::new(seed);
    let mut findings = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for i in 0..iterations {
        let s = &seeds[rng.range(0, seeds.len() as i64 - 1) as usize];
        let input = mutate(s, &mut rng);
        if let Err(msg) = run_one(&input) {
            findings.push((i, msg, input));
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
