//! `frameprobe-bench --fleet DIR`: `analyze DIR --format jsonl` with several `--jobs`
//! values, the median wall time of N runs each, traces/s, input MB/s, the speed-up over the
//! first value and peak RSS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// One run of the fleet command.
pub struct FleetRun {
    pub secs: f64,
    pub peak_kib: u64,
    /// JSON lines written: one per trace.
    pub lines: usize,
    pub failed: usize,
}

/// Runs `bin analyze DIR --format jsonl --jobs JOBS` once. Exit 2 (some trace failed) is
/// part of the workload (the fleet directory holds corrupt files); anything else is an error.
pub fn run_once(bin: &Path, dir: &Path, jobs: usize) -> Result<FleetRun> {
    let t = Instant::now();
    let out = Command::new(bin)
        .args(["analyze", &dir.display().to_string(), "--format", "jsonl"])
        .args(["--jobs", &jobs.to_string()])
        .env("FRAMEPROBE_REPORT_PEAK_RSS", "1")
        .env("FRAMEPROBE_PROGRESS", "never")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    if !matches!(out.status.code(), Some(0 | 2)) || out.stdout.is_empty() {
        bail!("{} analyze {} failed: {err}", bin.display(), dir.display());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(FleetRun {
        secs,
        peak_kib: peak_rss_kib(&err)?,
        lines: text.lines().count(),
        failed: text.matches("\"status\":\"error\"").count(),
    })
}

/// The `peak_rss_kib=` figure frameprobe prints on standard error when
/// `FRAMEPROBE_REPORT_PEAK_RSS` is set.
pub fn peak_rss_kib(stderr: &str) -> Result<u64> {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak_rss_kib="))
        .and_then(|v| v.trim().parse().ok())
        .context("frameprobe did not report its peak RSS")
}

/// The median of `xs` (the mean of the middle two for an even count).
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => xs[n / 2],
        _ => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// Measures every `jobs` value `runs` times (interleaved, so a slow spell on a shared
/// machine hits each alike) and prints one row per value.
pub fn bench(bin: &Path, dir: &Path, jobs: &[usize], runs: u32) -> Result<()> {
    let traces: Vec<PathBuf> = frameprobe::fleet::discover::find_traces(&[dir.to_path_buf()])?;
    let bytes: u64 = traces
        .iter()
        .map(|t| std::fs::metadata(t).map_or(0, |m| m.len()))
        .sum();
    let mut times = vec![Vec::new(); jobs.len()];
    let mut peaks = vec![0u64; jobs.len()];
    let mut counts = vec![(0, 0); jobs.len()];
    for _ in 0..runs.max(1) {
        for (k, &j) in jobs.iter().enumerate() {
            let r = run_once(bin, dir, j)?;
            if r.lines != traces.len() {
                bail!("--jobs {j}: {} lines for {} traces", r.lines, traces.len());
            }
            times[k].push(r.secs);
            peaks[k] = peaks[k].max(r.peak_kib);
            counts[k] = (r.lines, r.failed);
        }
    }
    println!(
        "fleet: {} traces ({:.1} MB) in {}, median of {} runs",
        traces.len(),
        bytes as f64 / 1e6,
        dir.display(),
        runs.max(1)
    );
    println!(
        "{:>6} {:>10} {:>10} {:>9} {:>9} {:>14} {:>8}",
        "jobs", "seconds", "traces/s", "MB/s", "speed-up", "peak RSS MiB", "failed"
    );
    let mut base = None;
    let mut two_core = None;
    for (k, &j) in jobs.iter().enumerate() {
        let secs = median(&mut times[k]);
        let base_secs = *base.get_or_insert(secs);
        println!(
            "{:>6} {:>10.2} {:>10.1} {:>9.1} {:>8.2}x {:>14.1} {:>8}",
            j,
            secs,
            counts[k].0 as f64 / secs,
            bytes as f64 / 1e6 / secs,
            base_secs / secs,
            peaks[k] as f64 / 1024.0,
            counts[k].1
        );
        if j == 2 && jobs.first() == Some(&1) {
            two_core = Some(base_secs / secs);
        }
    }
    if let Some(s) = two_core {
        println!(
            "{}",
            crate::speed::at_least("many traces: --jobs 2 over --jobs 1", s, 1.8)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&mut []).is_nan());
    }
}
