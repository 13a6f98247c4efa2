//! `frameprobe-bench`: builds the reference workload (a real trace repeated N times with its
//! timestamps, FrameTimeline cookies/tokens and Choreographer/RenderThread vsync ids shifted
//! copy by copy) and measures `frameprobe` on it: wall time, MB/s and peak RSS.
//!
//!     frameprobe-bench --trace ../shared/traces/androidx_api35_startup_cold_classinit.perfetto-trace
//!
//! With `--fleet DIR` it measures the many-trace mode instead: `analyze DIR --format jsonl`
//! at each `--fleet-jobs` value (median of `--runs`), traces/s, speed-up and peak RSS.
//!
//!     scripts/fleet-dir.sh ../shared/traces /tmp/fleet 200 3
//!     frameprobe-bench --fleet /tmp/fleet --fleet-jobs 1,2 --runs 5

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Parser;
use frameprobe::trace::wire::{put_field, put_varint, read_varint, Fields, Value};

#[derive(Parser)]
#[command(about = "Measure frameprobe on a repeated real trace")]
struct Args {
    /// The trace to repeat.
    #[arg(
        long,
        default_value = "../shared/traces/androidx_api35_startup_cold_classinit.perfetto-trace"
    )]
    trace: PathBuf,
    /// Copy counts to measure (each is a workload of that many copies).
    #[arg(long, value_delimiter = ',', default_value = "6,30,60")]
    copies: Vec<u32>,
    /// Where the workloads are written.
    #[arg(long, default_value = "bench-out")]
    dir: PathBuf,
    /// frameprobe binary to measure.
    #[arg(long, default_value = "target/release/frameprobe")]
    bin: PathBuf,
    /// Commands to time, each run as `frameprobe <cmd...> WORKLOAD <rest>`; `{}` marks the trace.
    #[arg(long, default_values_t = ["query {} select count(*) from slice".to_string(), "analyze {} --format json".to_string()])]
    cmd: Vec<String>,
    /// Runs per measurement (the fastest is reported; with --fleet, the median).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Only write the workloads.
    #[arg(long)]
    only_generate: bool,
    /// Measure `analyze DIR --format jsonl` over this directory of traces instead (see
    /// `scripts/fleet-dir.sh`); `--runs` gives the runs per --jobs value (median reported).
    #[arg(long, value_name = "DIR")]
    fleet: Option<PathBuf>,
    /// With --fleet: the --jobs values to compare (the speed-up is over the first).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    fleet_jobs: Vec<usize>,
}

/// Rebuilds a message, letting `f` replace fields; `None` copies the field unchanged.
fn rewrite(msg: &[u8], f: &mut dyn FnMut(u32, Value<'_>) -> Option<Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + 16);
    for field in Fields::new(msg) {
        let Ok((id, v)) = field else { break };
        match f(id, v) {
            Some(replacement) => out.extend_from_slice(&replacement),
            None => put_field(&mut out, id, v),
        }
    }
    out
}

fn varint_field(id: u32, v: u64) -> Option<Vec<u8>> {
    let mut o = Vec::new();
    put_field(&mut o, id, Value::Varint(v));
    Some(o)
}

fn bytes_field(id: u32, b: &[u8]) -> Option<Vec<u8>> {
    let mut o = Vec::new();
    put_field(&mut o, id, Value::Bytes(b));
    Some(o)
}

struct Shift {
    ts: i64,
    ids: i64,
}

/// Offsets the number after "Choreographer#doFrame " / "DrawFrames " in an atrace record.
fn shift_vsync_ids(buf: &str, by: i64) -> Option<String> {
    for marker in ["|Choreographer#doFrame ", "|DrawFrames ", "|DrawFrame "] {
        if let Some(p) = buf.find(marker) {
            let start = p + marker.len();
            let digits = buf[start..]
                .bytes()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            let n: i64 = buf[start..start + digits].parse().ok()?;
            return Some(format!(
                "{}{}{}",
                &buf[..start],
                n + by,
                &buf[start + digits..]
            ));
        }
    }
    None
}

fn ftrace_event(ev: &[u8], s: &Shift) -> Vec<u8> {
    rewrite(ev, &mut |id, v| match (id, v) {
        (1, Value::Varint(t)) => varint_field(1, (t as i64 + s.ts) as u64),
        (3, Value::Bytes(p)) => {
            let p2 = rewrite(p, &mut |pid, pv| match (pid, pv) {
                (2, Value::Bytes(b)) => {
                    let text = String::from_utf8_lossy(b);
                    shift_vsync_ids(&text, s.ids).and_then(|t| bytes_field(2, t.as_bytes()))
                }
                _ => None,
            });
            bytes_field(3, &p2)
        }
        _ => None,
    })
}

/// Adds the shift to the first element of a packed delta-encoded timestamp array.
fn shift_packed_first(b: &[u8], by: i64) -> Vec<u8> {
    let Ok((first, p)) = read_varint(b, 0) else {
        return b.to_vec();
    };
    let mut o = Vec::with_capacity(b.len() + 2);
    put_varint(&mut o, (first as i64 + by) as u64);
    o.extend_from_slice(&b[p..]);
    o
}

fn ftrace_bundle(b: &[u8], s: &Shift) -> Vec<u8> {
    rewrite(b, &mut |id, v| match (id, v) {
        (2, Value::Bytes(ev)) => bytes_field(2, &ftrace_event(ev, s)),
        (4, Value::Bytes(c)) => {
            let c2 = rewrite(c, &mut |cid, cv| match (cid, cv) {
                (1 | 7, Value::Bytes(arr)) => bytes_field(cid, &shift_packed_first(arr, s.ts)),
                _ => None,
            });
            bytes_field(4, &c2)
        }
        (9 | 10, Value::Varint(t)) => varint_field(id, (t as i64 + s.ts) as u64),
        _ => None,
    })
}

fn frame_timeline(b: &[u8], s: &Shift) -> Vec<u8> {
    rewrite(b, &mut |kind, v| {
        let Value::Bytes(inner) = v else { return None };
        let surface = kind == 3 || kind == 4;
        let inner2 = rewrite(inner, &mut |id, fv| match (id, fv) {
            // cookie, token, and (surface frames) display_frame_token
            (1 | 2, Value::Varint(x)) => varint_field(id, (x as i64 + s.ids) as u64),
            (3, Value::Varint(x)) if surface => varint_field(3, (x as i64 + s.ids) as u64),
            _ => None,
        });
        bytes_field(kind, &inner2)
    })
}

fn clock_snapshot(b: &[u8], s: &Shift) -> Vec<u8> {
    rewrite(b, &mut |id, v| match (id, v) {
        (1, Value::Bytes(c)) => {
            let c2 = rewrite(c, &mut |cid, cv| match (cid, cv) {
                (2, Value::Varint(t)) => varint_field(2, (t as i64 + s.ts) as u64),
                _ => None,
            });
            bytes_field(1, &c2)
        }
        _ => None,
    })
}

fn packet(p: &[u8], s: &Shift) -> Vec<u8> {
    // Packets on sequence-scoped clocks (>= 64) are shifted through their clock snapshot.
    let mut seq_clock = false;
    for (id, v) in Fields::new(p).flatten() {
        if id == 58 && v.as_u32() >= 64 {
            seq_clock = true;
        }
    }
    rewrite(p, &mut |id, v| match (id, v) {
        (8, Value::Varint(t)) if !seq_clock => varint_field(8, (t as i64 + s.ts) as u64),
        (1, Value::Bytes(b)) => bytes_field(1, &ftrace_bundle(b, s)),
        (6, Value::Bytes(b)) => bytes_field(6, &clock_snapshot(b, s)),
        (76, Value::Bytes(b)) => bytes_field(76, &frame_timeline(b, s)),
        _ => None,
    })
}

/// First and last ftrace event timestamps (BOOTTIME): the span one copy occupies.
fn trace_span(trace: &[u8]) -> (i64, i64) {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (id, v) in Fields::new(trace).flatten() {
        if id != 1 {
            continue;
        }
        for (pid, pv) in Fields::new(v.as_bytes()).flatten() {
            if pid != 1 {
                continue;
            }
            for (bid, bv) in Fields::new(pv.as_bytes()).flatten() {
                if bid != 2 {
                    continue;
                }
                if let Some((_, t)) = Fields::new(bv.as_bytes()).flatten().find(|(f, _)| *f == 1) {
                    lo = lo.min(t.as_i64());
                    hi = hi.max(t.as_i64());
                }
            }
        }
    }
    (lo, hi)
}

/// Writes `copies` shifted copies of `trace` one after the other.
fn make_workload(trace: &[u8], copies: u32, out: &Path) -> Result<u64> {
    let (lo, hi) = trace_span(trace);
    if lo > hi {
        bail!("the trace has no timestamps");
    }
    let step = (hi - lo) + 1_000_000_000;
    let mut buf = Vec::with_capacity(trace.len() * copies as usize);
    for k in 0..copies as i64 {
        let s = Shift {
            ts: k * step,
            ids: k * 10_000_000,
        };
        for (id, v) in Fields::new(trace).flatten() {
            match (id, v) {
                (1, Value::Bytes(p)) => put_field(&mut buf, 1, Value::Bytes(&packet(p, &s))),
                _ => put_field(&mut buf, id, v),
            }
        }
    }
    std::fs::write(out, &buf).with_context(|| format!("writing {}", out.display()))?;
    Ok(buf.len() as u64)
}

struct Run {
    secs: f64,
    peak_mib: f64,
}

fn measure(bin: &Path, cmd: &str, workload: &Path) -> Result<Run> {
    let args: Vec<String> = cmd
        .split(' ')
        .map(|a| {
            if a == "{}" {
                workload.display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let (first, rest) = args.split_first().context("empty command")?;
    let mut argv = vec![first.clone()];
    // Everything after the trace path that is not a flag is one SQL string.
    let mut sql = Vec::new();
    for a in rest {
        if first == "query" && !a.starts_with("--") && a != &workload.display().to_string() {
            sql.push(a.clone());
        } else {
            argv.push(a.clone());
        }
    }
    if !sql.is_empty() {
        argv.insert(2, sql.join(" "));
    }
    let t = Instant::now();
    let out = Command::new(bin)
        .args(&argv)
        .env("FRAMEPROBE_REPORT_PEAK_RSS", "1")
        .output()?;
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        bail!("{} {:?} failed: {err}", bin.display(), argv);
    }
    let peak_kib = frameprobe_tools::fleet_bench::peak_rss_kib(&err)? as f64;
    Ok(Run {
        secs,
        peak_mib: peak_kib / 1024.0,
    })
}

fn main() -> Result<()> {
    let a = Args::parse();
    if let Some(dir) = &a.fleet {
        return frameprobe_tools::fleet_bench::bench(&a.bin, dir, &a.fleet_jobs, a.runs);
    }
    let trace =
        std::fs::read(&a.trace).with_context(|| format!("reading {}", a.trace.display()))?;
    std::fs::create_dir_all(&a.dir)?;
    let mut workloads = Vec::new();
    for &n in &a.copies {
        let p = a.dir.join(format!("workload_x{n}.perfetto-trace"));
        let size = make_workload(&trace, n, &p)?;
        eprintln!(
            "workload x{n}: {:.1} MB -> {}",
            size as f64 / 1e6,
            p.display()
        );
        workloads.push((n, size, p));
    }
    if a.only_generate {
        return Ok(());
    }
    // Rows the import produces per workload: trace_processor's cropping drops the ftrace data
    // of the first copies (before the tracing_started it reads at its first extraction), so
    // small workloads import fewer rows per MB.
    let mut rows = Vec::new();
    for (_, _, p) in &workloads {
        let out = Command::new(&a.bin)
            .args(["query", &p.display().to_string(), "--format", "csv"])
            .arg("SELECT (SELECT count(*) FROM slice) + (SELECT count(*) FROM sched) + (SELECT count(*) FROM counter)")
            .output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        rows.push(
            text.lines()
                .nth(1)
                .and_then(|l| l.trim().parse::<f64>().ok())
                .unwrap_or(f64::NAN),
        );
    }
    println!(
        "{:<44} {:>7} {:>9} {:>9} {:>10} {:>11} {:>12} {:>11}",
        "command", "copies", "MB", "seconds", "MB/s", "peak MiB", "rows", "us/row"
    );
    for cmd in &a.cmd {
        let mut per_mb = Vec::new();
        for ((n, size, p), nrows) in workloads.iter().zip(&rows) {
            let mut best: Option<Run> = None;
            for _ in 0..a.runs {
                let r = measure(&a.bin, cmd, p)?;
                if best.as_ref().is_none_or(|b| r.secs < b.secs) {
                    best = Some(r);
                }
            }
            let r = best.unwrap();
            let mb = *size as f64 / 1e6;
            per_mb.push(r.secs / mb);
            println!(
                "{:<44} {:>7} {:>9.1} {:>9.3} {:>10.1} {:>11.1} {:>12} {:>11.3}",
                cmd.replace("{}", "W"),
                n,
                mb,
                r.secs,
                mb / r.secs,
                r.peak_mib,
                nrows,
                r.secs * 1e6 / nrows
            );
        }
        if per_mb.len() > 1 {
            let (min, max) = per_mb
                .iter()
                .fold((f64::MAX, 0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
            println!(
                "  time per MB varies by {:.1}% across sizes",
                (max / min - 1.0) * 100.0
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vsync_ids_are_shifted() {
        assert_eq!(
            shift_vsync_ids("B|12|Choreographer#doFrame 100", 5).unwrap(),
            "B|12|Choreographer#doFrame 105"
        );
        assert_eq!(
            shift_vsync_ids("B|12|DrawFrames 7", 1).unwrap(),
            "B|12|DrawFrames 8"
        );
        assert!(shift_vsync_ids("B|12|Choreographer#doFrame - resynced to 1 in 2ms", 1).is_none());
        assert!(shift_vsync_ids("B|12|inflate", 1).is_none());
    }
}
