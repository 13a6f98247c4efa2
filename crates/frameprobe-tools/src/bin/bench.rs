//! `frameprobe-bench`: builds the reference workload (a real trace repeated N times with its
//! timestamps, FrameTimeline cookies/tokens and Choreographer/RenderThread vsync ids shifted
//! copy by copy) and measures `frameprobe` on it (wall time, MB/s and peak RSS) side by side
//! with trace_processor when one is on PATH (or `--tp BIN`), then judges issue 19's speed goals
//! each on the workload it names (206 MB for the ratios, 1 GB for the absolute ones).
//!
//!     frameprobe-bench --trace ../shared/traces/androidx_api35_startup_cold_classinit.perfetto-trace
//!
//! With `--fleet DIR` it measures the many-trace mode instead: `analyze DIR --format jsonl`
//! at `--jobs 1` pinned to one CPU and at each `--fleet-jobs` value (median of `--runs`),
//! traces/s, speed-up over one CPU and peak RSS.
//!
//!     scripts/fleet-dir.sh ../shared/traces /tmp/fleet 200 3
//!     frameprobe-bench --fleet /tmp/fleet --fleet-jobs 1,2 --runs 5

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Parser;
use frameprobe::trace::wire::{put_field, put_varint, read_varint, Fields, Value};
use frameprobe_tools::speed::{self, best_of, run_child, Measured};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Stat {
    Median,
    Fastest,
}

impl Stat {
    fn measure(self, runs: u32, run: impl FnMut() -> Result<Measured>) -> Result<Measured> {
        match self {
            Stat::Median => speed::median_of(runs, run),
            Stat::Fastest => best_of(runs, run),
        }
    }

    /// Runs frameprobe and trace_processor in turn, `runs` times each, so that a slow spell
    /// of a shared host lands on both sides of the ratio; each side is then summed up alone.
    fn measure_in_turn(
        self,
        runs: u32,
        mut fp: impl FnMut() -> Result<Measured>,
        mut tp: Option<impl FnMut() -> Result<Measured>>,
    ) -> Result<(Measured, Option<Measured>)> {
        let (mut fps, mut tps) = (Vec::new(), Vec::new());
        for _ in 0..runs.max(1) {
            fps.push(fp()?);
            if let Some(tp) = tp.as_mut() {
                tps.push(tp()?);
            }
        }
        let sum_up = |runs: Vec<Measured>| {
            let n = runs.len() as u32;
            let mut runs = runs.into_iter();
            self.measure(n, || runs.next().context("one run per call"))
        };
        let tp = if tps.is_empty() {
            None
        } else {
            Some(sum_up(tps)?)
        };
        Ok((sum_up(fps)?, tp))
    }
}

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
    /// trace_processor (shell) to measure side by side; default: `trace_processor_shell` or
    /// `trace_processor` on PATH, else frameprobe is measured alone.
    #[arg(long, value_name = "BIN")]
    tp: Option<PathBuf>,
    /// Runs per measurement (with --fleet, the median is reported).
    #[arg(long, default_value_t = 3)]
    runs: u32,
    /// Which of the runs is reported: the median (as the issue's figures are) or the fastest.
    #[arg(long, value_enum, default_value_t = Stat::Median)]
    stat: Stat,
    /// Only write the workloads.
    #[arg(long)]
    only_generate: bool,
    /// Measure `analyze DIR --format jsonl` over this directory of traces instead (see
    /// `scripts/fleet-dir.sh`); `--runs` gives the runs per --jobs value (median reported).
    #[arg(long, value_name = "DIR")]
    fleet: Option<PathBuf>,
    /// With --fleet: the --jobs values to compare (after `--jobs 1` pinned to one CPU, which
    /// the speed-up is over).
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    fleet_jobs: Vec<usize>,
    /// Frame counts of one app's long session (generated, with FrameTimeline and without):
    /// `analyze` time per MB from the first to the last must stay linear, where matching
    /// each frame by a scan would grow with the square of the frames. Empty to skip.
    #[arg(long, value_delimiter = ',', default_value = "3200,32000")]
    session_frames: Vec<u32>,
}

/// One app's long session, generated: (label, API level).
const SESSIONS: [(&str, u64); 2] = [
    ("FrameTimeline, API 34", 34),
    ("no FrameTimeline, API 28", 28),
];

fn session_path(dir: &Path, api: u64, frames: u32) -> PathBuf {
    dir.join(format!("session_api{api}_{frames}.perfetto-trace"))
}

fn write_sessions(a: &Args) -> Result<()> {
    for (_, api) in SESSIONS {
        for &frames in &a.session_frames {
            let cfg = frameprobe_tools::synth::SynthConfig {
                frames,
                sdk_version: api,
                frame_timeline: api >= 31,
                ..Default::default()
            };
            let p = session_path(&a.dir, api, frames);
            std::fs::write(&p, frameprobe_tools::synth::generate(&cfg).bytes)?;
        }
    }
    Ok(())
}

/// `analyze` on each session length: seconds, MB/s and the growth of the time per MB from
/// the shortest session to the longest, against the issue's 1.1x.
fn measure_sessions(a: &Args) -> Result<Vec<speed::Verdict>> {
    let mut verdicts = Vec::new();
    for (label, api) in SESSIONS {
        let mut per_mb = Vec::new();
        for &frames in &a.session_frames {
            let p = session_path(&a.dir, api, frames);
            let mb = std::fs::metadata(&p)?.len() as f64 / 1e6;
            let argv = ["analyze", &p.display().to_string(), "--format", "json"].map(String::from);
            let err = a.dir.join("frameprobe.stderr");
            let m = a
                .stat
                .measure(a.runs, || run_child(Command::new(&a.bin).args(&argv), &err))?;
            println!(
                "{:<42} {:>6} {:>8.1} {:>8.3} {:>8.1} {:>9.1}",
                format!("analyze, one app ({label})"),
                frames,
                mb,
                m.secs,
                mb / m.secs,
                m.peak_mib
            );
            per_mb.push(m.secs / mb);
        }
        if let (Some(first), Some(last), [from, .., to]) =
            (per_mb.first(), per_mb.last(), a.session_frames.as_slice())
        {
            let what = format!("analyze, one app's {from} to {to} frames ({label})");
            verdicts.push(speed::growth(&what, *first, *last, 1.1));
        }
    }
    Ok(verdicts)
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

/// The TracingServiceEvent kind a packet carries (its oneof field number), if any.
fn service_event_kind(p: &[u8]) -> Option<u32> {
    const SERVICE_EVENT: u32 = 69;
    let (_, ev) = Fields::new(p)
        .flatten()
        .find(|(id, _)| *id == SERVICE_EVENT)?;
    let Value::Bytes(ev) = ev else { return None };
    Fields::new(ev).flatten().next().map(|(kind, _)| kind)
}

/// Whether copy `k` of `copies` keeps a packet: the workload is one recording session, so
/// tracing starts in the first copy and stops in the last. Repeating the start would make
/// the importer crop every ftrace event before the latest start it has read (Perfetto's
/// rule), a number of copies that does not grow with the workload.
fn keeps_packet(p: &[u8], k: u32, copies: u32) -> bool {
    const ALL_DATA_SOURCES_STARTED: u32 = 1;
    const TRACING_STARTED: u32 = 2;
    const TRACING_DISABLED: u32 = 5;
    match service_event_kind(p) {
        Some(ALL_DATA_SOURCES_STARTED | TRACING_STARTED) => k == 0,
        Some(TRACING_DISABLED) => k + 1 == copies,
        _ => true,
    }
}

/// Writes `copies` shifted copies of `trace` one after the other.
fn make_workload(trace: &[u8], copies: u32, out: &Path) -> Result<u64> {
    let (lo, hi) = trace_span(trace);
    if lo > hi {
        bail!("the trace has no timestamps");
    }
    let step = (hi - lo) + 1_000_000_000;
    let mut buf = Vec::with_capacity(trace.len() * copies as usize);
    for k in 0..copies {
        let s = Shift {
            ts: i64::from(k) * step,
            ids: i64::from(k) * 10_000_000,
        };
        for (id, v) in Fields::new(trace).flatten() {
            match (id, v) {
                (1, Value::Bytes(p)) if !keeps_packet(p, k, copies) => {}
                (1, Value::Bytes(p)) => put_field(&mut buf, 1, Value::Bytes(&packet(p, &s))),
                _ => put_field(&mut buf, id, v),
            }
        }
    }
    std::fs::write(out, &buf).with_context(|| format!("writing {}", out.display()))?;
    Ok(buf.len() as u64)
}

fn workload_path(dir: &Path, copies: u32) -> PathBuf {
    dir.join(format!("workload_x{copies}.perfetto-trace"))
}

/// One comparison: a frameprobe command and the trace_processor query doing the same work.
struct Comparison {
    label: &'static str,
    /// frameprobe's arguments; `{}` is the workload.
    frameprobe: &'static [&'static str],
    /// The SQL trace_processor runs on the workload (`-q FILE`).
    tp_sql: &'static str,
}

const COMPARISONS: [Comparison; 2] = [
    Comparison {
        label: "query: load + select count(*) from slice",
        frameprobe: &["query", "{}", "select count(*) from slice"],
        tp_sql: "select count(*) from slice;",
    },
    Comparison {
        label: "analyze vs load + android_frame_stats",
        frameprobe: &["analyze", "{}", "--format", "json"],
        tp_sql: "INCLUDE PERFETTO MODULE android.frames.per_frame_metrics;\nselect count(*) from android_frame_stats;",
    },
];

/// One comparison on one workload: frameprobe, and trace_processor when there is one.
struct Row {
    copies: u32,
    bytes: u64,
    fp: Measured,
    tp: Option<Measured>,
}

/// frameprobe on `workload`, and trace_processor in turn with it when there is one.
fn measure_side_by_side(
    a: &Args,
    tp: Option<&Path>,
    c: &Comparison,
    workload: &Path,
) -> Result<(Measured, Option<Measured>)> {
    let w = workload.display().to_string();
    let argv: Vec<&str> = c
        .frameprobe
        .iter()
        .map(|&x| if x == "{}" { w.as_str() } else { x })
        .collect();
    let fp_err = a.dir.join("frameprobe.stderr");
    let sql = a.dir.join("tp-query.sql");
    std::fs::write(&sql, c.tp_sql)?;
    let tp_err = a.dir.join("tp.stderr");
    a.stat.measure_in_turn(
        a.runs,
        || run_child(Command::new(&a.bin).args(&argv), &fp_err),
        tp.map(|tp| {
            let (sql, tp_err) = (&sql, &tp_err);
            move || run_child(Command::new(tp).arg("-q").arg(sql).arg(workload), tp_err)
        }),
    )
}

/// Rows each workload imports (slices + sched + counters), for the time per row.
fn rows_imported(bin: &Path, workload: &Path) -> Result<f64> {
    let out = Command::new(bin)
        .args(["query", &workload.display().to_string(), "--format", "csv"])
        .arg("SELECT (SELECT count(*) FROM slice) + (SELECT count(*) FROM sched) + (SELECT count(*) FROM counter)")
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse::<f64>().ok())
        .unwrap_or(f64::NAN))
}

/// The issue states its ratio, memory and growth goals on a 206 MB trace (the api35 trace
/// repeated 60 times) against one a tenth of that size.
const ISSUE_BYTES: f64 = 206e6;

/// The workload nearest the issue's 206 MB, where its ratio goals are judged.
fn issue_workload(rows: &[Row]) -> Option<&Row> {
    rows.iter().min_by(|a, b| {
        let off = |r: &Row| (r.bytes as f64 / ISSUE_BYTES).ln().abs();
        off(a).total_cmp(&off(b))
    })
}

/// The issue's goals, each on the workload it names: ratios, memory and growth on the one
/// nearest 206 MB (growth from the smallest), the 1 GB goals on the largest if it is that big.
fn goals(query: &[Row], analyze: &[Row]) -> (Option<u32>, Vec<speed::Verdict>) {
    let mut out = Vec::new();
    let (Some(q), Some(an), Some(small), Some(largest)) = (
        issue_workload(query),
        issue_workload(analyze),
        analyze.first(),
        analyze.last(),
    ) else {
        return (None, out);
    };
    if let Some(tp) = an.tp {
        out.push(speed::ratio("analyze time", an.fp.secs, tp.secs, 0.15));
    }
    out.push(speed::memory_vs_file(
        "analyze",
        an.fp.peak_mib,
        an.bytes,
        1.0,
    ));
    if let Some(tp) = q.tp {
        out.push(speed::ratio("query load time", q.fp.secs, tp.secs, 0.35));
        out.push(speed::ratio(
            "query load memory",
            q.fp.peak_mib,
            tp.peak_mib,
            0.35,
        ));
    }
    let per_mb = |r: &Row| r.fp.secs / (r.bytes as f64 / 1e6);
    if small.bytes < an.bytes {
        out.push(speed::growth("analyze", per_mb(small), per_mb(an), 1.1));
    }
    if largest.bytes > an.bytes {
        out.push(speed::growth(
            "analyze (largest)",
            per_mb(small),
            per_mb(largest),
            1.1,
        ));
    }
    if largest.bytes >= 1_000_000_000 {
        out.push(speed::at_most(
            "analyze of a 1 GB trace: time",
            largest.fp.secs,
            6.0,
            "s",
        ));
        let mb = largest.fp.peak_mib * (1 << 20) as f64 / 1e6;
        out.push(speed::at_most(
            "analyze of a 1 GB trace: peak RSS",
            mb,
            1200.0,
            "MB",
        ));
    }
    (Some(an.copies), out)
}

fn main() -> Result<()> {
    let a = Args::parse();
    if let Some(dir) = &a.fleet {
        return frameprobe_tools::fleet_bench::bench(&a.bin, dir, &a.fleet_jobs, a.runs);
    }
    std::fs::create_dir_all(&a.dir)?;
    if a.only_generate {
        let trace =
            std::fs::read(&a.trace).with_context(|| format!("reading {}", a.trace.display()))?;
        for &n in &a.copies {
            let p = workload_path(&a.dir, n);
            let size = make_workload(&trace, n, &p)?;
            eprintln!(
                "workload x{n}: {:.1} MB -> {}",
                size as f64 / 1e6,
                p.display()
            );
        }
        return write_sessions(&a);
    }
    // The workloads are written by a child: a measured command's peak RSS includes the
    // memory of the process that started it (Linux keeps the high-water mark across exec), so
    // this one must never hold a workload.
    let status = Command::new(std::env::current_exe()?)
        .args(std::env::args_os().skip(1))
        .arg("--only-generate")
        .status()?;
    if !status.success() {
        bail!("writing the workloads failed");
    }
    let mut workloads = Vec::new();
    for &n in &a.copies {
        let p = workload_path(&a.dir, n);
        let size = std::fs::metadata(&p)?.len();
        workloads.push((n, size, p));
    }
    let tp = speed::find_trace_processor(a.tp.as_deref());
    match &tp {
        Some(t) => println!("trace_processor: {}", t.display()),
        None => println!(
            "trace_processor: none on PATH (--tp BIN to compare); frameprobe alone, and only \
             the goals that need no trace_processor figure are judged"
        ),
    }
    let stat = match a.stat {
        Stat::Median => "median",
        Stat::Fastest => "fastest",
    };
    println!("each figure: the {stat} of {} runs", a.runs.max(1));
    println!(
        "{:<42} {:>6} {:>8} {:>8} {:>8} {:>9} {:>8} {:>9} {:>7} {:>7} {:>10}",
        "comparison",
        "copies",
        "MB",
        "fp s",
        "fp MB/s",
        "fp MiB",
        "tp s",
        "tp MiB",
        "time x",
        "mem x",
        "us/row"
    );
    let rows_per: Vec<f64> = workloads
        .iter()
        .map(|(_, _, p)| rows_imported(&a.bin, p))
        .collect::<Result<_>>()?;
    let mut results: Vec<Vec<Row>> = Vec::new();
    for c in &COMPARISONS {
        let mut rows = Vec::new();
        for ((n, size, p), nrows) in workloads.iter().zip(&rows_per) {
            let (fp, tp) = measure_side_by_side(&a, tp.as_deref(), c, p)?;
            let mb = *size as f64 / 1e6;
            let cell =
                |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |v| format!("{v:.prec$}"));
            println!(
                "{:<42} {:>6} {:>8.1} {:>8.3} {:>8.1} {:>9.1} {:>8} {:>9} {:>7} {:>7} {:>10.3}",
                c.label,
                n,
                mb,
                fp.secs,
                mb / fp.secs,
                fp.peak_mib,
                cell(tp.map(|t| t.secs), 3),
                cell(tp.map(|t| t.peak_mib), 1),
                cell(tp.map(|t| fp.secs / t.secs), 2),
                cell(tp.map(|t| fp.peak_mib / t.peak_mib), 2),
                fp.secs * 1e6 / nrows
            );
            rows.push(Row {
                copies: *n,
                bytes: *size,
                fp,
                tp,
            });
        }
        results.push(rows);
    }
    let (judged_on, verdicts) = goals(&results[0], &results[1]);
    if let Some(n) = judged_on {
        println!(
            "goals (ratios, memory and growth on x{n}, the workload nearest the issue's 206 MB; \
             1 GB goals on the largest):"
        );
    }
    for v in &verdicts {
        println!("  {v}");
    }
    let sessions = measure_sessions(&a)?;
    if !sessions.is_empty() {
        println!("goals (growth of one app's long session):");
    }
    for v in &sessions {
        println!("  {v}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two programs alternate run by run, and each side's median is of its own runs.
    #[test]
    fn both_sides_run_in_turn() {
        let order = std::cell::RefCell::new(String::new());
        let run = |side: char, secs: &'static [f64]| {
            let (order, mut next) = (&order, secs.iter());
            move || {
                order.borrow_mut().push(side);
                let secs = *next.next().unwrap();
                Ok(Measured {
                    secs,
                    peak_mib: 1.0,
                })
            }
        };
        let (fp, tp) = Stat::Median
            .measure_in_turn(
                3,
                run('f', &[3.0, 1.0, 2.0]),
                Some(run('t', &[9.0, 7.0, 8.0])),
            )
            .unwrap();
        assert_eq!(order.borrow().as_str(), "ftftft");
        assert_eq!((fp.secs, tp.map(|t| t.secs)), (2.0, Some(8.0)));
        let (fp, tp) = Stat::Fastest
            .measure_in_turn(2, run('f', &[3.0, 1.0]), None::<fn() -> Result<Measured>>)
            .unwrap();
        assert_eq!((fp.secs, tp.is_none()), (1.0, true));
    }

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

    fn row(copies: u32, mb: f64, fp_secs: f64, tp_secs: f64) -> Row {
        Row {
            copies,
            bytes: (mb * 1e6) as u64,
            fp: Measured {
                secs: fp_secs,
                peak_mib: mb * 0.9,
            },
            tp: Some(Measured {
                secs: tp_secs,
                peak_mib: mb * 5.0,
            }),
        }
    }

    /// The issue sets its 0.15x analyze goal on the 206 MB trace: a workload that meets it
    /// only at 1 GB does not meet it, and the 1 GB time is judged on the 1 GB workload.
    #[test]
    fn goals_are_judged_on_the_workloads_the_issue_names() {
        let analyze = [
            row(6, 20.2, 0.16, 0.62),
            row(60, 202.0, 1.16, 6.30),
            row(300, 1010.2, 5.90, 40.4),
        ];
        let query = [
            row(6, 20.2, 0.13, 0.56),
            row(60, 202.0, 0.88, 5.49),
            row(300, 1010.2, 4.75, 38.3),
        ];
        let (on, v) = goals(&query, &analyze);
        assert_eq!(on, Some(60));
        let find = |g: &str| v.iter().find(|x| x.goal.starts_with(g)).unwrap();
        let ratio = find("analyze time <=");
        assert!(!ratio.met, "{ratio}");
        assert!(ratio.measured.starts_with("0.18x"), "{ratio}");
        assert!(find("analyze of a 1 GB trace: time").met);
        assert!(find("query load time").met);
        // Growth is judged at 206 MB and at the largest, each against the smallest.
        assert!(find("analyze time/MB").met);
        assert!(find("analyze (largest) time/MB").met);
    }

    /// A workload of N copies is one session: each copy imports about as many slices as the
    /// trace alone, so time per MB compares like with like across sizes. Repeating the copies'
    /// tracing_started made the import crop about half of a 6-copy workload.
    #[test]
    fn every_copy_imports_as_many_slices_as_the_trace() {
        let trace = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/traces/androidx_api35_startup_cold_classinit.perfetto-trace");
        if !trace.exists() {
            eprintln!(
                "skipped: {} is absent (../shared is not beside the repo)",
                trace.display()
            );
            return;
        }
        let slices = |p: &Path| {
            let loaded =
                frameprobe::import::load(p, frameprobe::import::LoadOptions::all()).unwrap();
            let cropped =
                loaded.store.stats.iter().any(|((name, _), s)| {
                    *name == "ftrace_packet_before_tracing_start" && s.value > 0
                });
            (loaded.store.slices.len(), cropped)
        };
        let (one, cropped) = slices(&trace);
        assert!(one > 1000 && !cropped);
        let dir = std::env::temp_dir().join(format!("frameprobe-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("x4.perfetto-trace");
        make_workload(&std::fs::read(&trace).unwrap(), 4, &out).unwrap();
        // Within 1%: a slice still open at a copy's end is closed by the next copy's end.
        let (four, cropped) = slices(&out);
        assert!(!cropped, "the workload was cropped");
        assert!(
            four <= 4 * one && four * 100 >= 4 * one * 99,
            "{four} slices, one copy has {one}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
