//! `frameprobe-bench --fleet DIR`: `analyze DIR --format jsonl` with several `--jobs`
//! values, the median wall time of N runs each, traces/s, input MB/s, the speed-up over one
//! core and peak RSS.
//!
//! The many-trace goal compares `--jobs 2` with the throughput of one core. One job alone no
//! longer stays on one core (a large trace loads on two threads, and the per-process
//! reports and cause chains share both cores), so the one-core figure is `--jobs 1` with
//! the process pinned to one CPU.

use std::os::unix::process::CommandExt;
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

/// How many CPUs a run may use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cpus {
    /// Whatever the bench itself may use.
    All,
    /// The first CPU the bench may use.
    One,
}

/// Runs `bin analyze DIR --format jsonl --jobs JOBS` once. Exit 2 (some trace failed) is
/// part of the workload (the fleet directory holds corrupt files); anything else is an error.
pub fn run_once(bin: &Path, dir: &Path, jobs: usize, cpus: Cpus) -> Result<FleetRun> {
    let mut cmd = Command::new(bin);
    cmd.args(["analyze", &dir.display().to_string(), "--format", "jsonl"])
        .args(["--jobs", &jobs.to_string()])
        .env("FRAMEPROBE_REPORT_PEAK_RSS", "1")
        .env("FRAMEPROBE_PROGRESS", "never")
        .stdin(Stdio::null());
    if cpus == Cpus::One {
        let cpu = first_cpu()?;
        // SAFETY: between fork and exec the closure only calls sched_setaffinity on
        // memory it owns (no allocation, no lock).
        unsafe {
            cmd.pre_exec(move || pin_to(cpu));
        }
    }
    let t = Instant::now();
    let out = cmd
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

/// The lowest CPU this process may run on.
fn first_cpu() -> Result<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for this process.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) } == 0;
    if !ok {
        bail!("sched_getaffinity: {}", std::io::Error::last_os_error());
    }
    (0..libc::CPU_SETSIZE as usize)
        // SAFETY: the index is below CPU_SETSIZE.
        .find(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .context("this process may run on no CPU")
}

/// Restricts the calling process to `cpu` (called in the child before exec).
fn pin_to(cpu: usize) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; `cpu` is below CPU_SETSIZE (found by `first_cpu`).
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    unsafe { libc::CPU_SET(cpu, &mut set) };
    match unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
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

/// Measures `--jobs 1` on one CPU, then every `jobs` value, `runs` times each (interleaved,
/// so a slow spell on a shared machine hits each alike), and prints one row per setting
/// with the speed-up over the one-CPU row.
pub fn bench(bin: &Path, dir: &Path, jobs: &[usize], runs: u32) -> Result<()> {
    let traces: Vec<PathBuf> = frameprobe::fleet::discover::find_traces(&[dir.to_path_buf()])?;
    let bytes: u64 = traces
        .iter()
        .map(|t| std::fs::metadata(t).map_or(0, |m| m.len()))
        .sum();
    let settings: Vec<(usize, Cpus)> = std::iter::once((1, Cpus::One))
        .chain(jobs.iter().map(|&j| (j, Cpus::All)))
        .collect();
    let mut times = vec![Vec::new(); settings.len()];
    let mut peaks = vec![0u64; settings.len()];
    let mut counts = vec![(0, 0); settings.len()];
    for _ in 0..runs.max(1) {
        for (k, &(j, cpus)) in settings.iter().enumerate() {
            let r = run_once(bin, dir, j, cpus)?;
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
        "{:>10} {:>10} {:>10} {:>9} {:>9} {:>14} {:>8}",
        "jobs", "seconds", "traces/s", "MB/s", "speed-up", "peak RSS MiB", "failed"
    );
    let mut base = None;
    let mut two_core = None;
    for (k, &(j, cpus)) in settings.iter().enumerate() {
        let secs = crate::speed::median(&mut times[k]);
        let base_secs = *base.get_or_insert(secs);
        let label = match cpus {
            Cpus::One => format!("{j}, 1 CPU"),
            Cpus::All => j.to_string(),
        };
        println!(
            "{:>10} {:>10.2} {:>10.1} {:>9.1} {:>8.2}x {:>14.1} {:>8}",
            label,
            secs,
            counts[k].0 as f64 / secs,
            bytes as f64 / 1e6 / secs,
            base_secs / secs,
            peaks[k] as f64 / 1024.0,
            counts[k].1
        );
        if j == 2 && cpus == Cpus::All {
            two_core = Some(base_secs / secs);
        }
    }
    if let Some(s) = two_core {
        println!(
            "{}",
            crate::speed::at_least("many traces: --jobs 2 over one CPU", s, 1.8)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_child_runs_on_one_cpu_only() {
        let cpu = first_cpu().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "grep Cpus_allowed_list /proc/self/status"]);
        // SAFETY: as in `run_once`.
        unsafe {
            cmd.pre_exec(move || pin_to(cpu));
        }
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        assert_eq!(
            out.split_whitespace().last(),
            Some(cpu.to_string().as_str())
        );
    }
}
