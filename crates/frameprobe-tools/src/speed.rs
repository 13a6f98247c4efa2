//! The speed goals of `frameprobe-bench` (issue 19): one child process measured for wall time
//! and its own peak RSS, and the goals judged from frameprobe's and trace_processor's figures
//! measured side by side in one run.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// One run of one command.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Measured {
    pub secs: f64,
    pub peak_mib: f64,
}

/// Runs `cmd` to the end, output discarded, and measures it. The peak RSS is the child's own
/// (`wait4`), so it works for any binary, trace_processor included.
pub fn run_child(cmd: &mut Command, stderr_to: &Path) -> Result<Measured> {
    let err = std::fs::File::create(stderr_to)
        .with_context(|| format!("creating {}", stderr_to.display()))?;
    let started = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::from(err))
        .spawn()
        .with_context(|| format!("starting {:?}", cmd.get_program()))?;
    let mut status = 0;
    // SAFETY: rusage is plain data, zero is a valid value for every field.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not yet waited for; both pointers are valid.
    let waited = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let secs = started.elapsed().as_secs_f64();
    if waited < 0 {
        bail!(
            "waiting for {:?}: {}",
            cmd.get_program(),
            std::io::Error::last_os_error()
        );
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let text = std::fs::read_to_string(stderr_to).unwrap_or_default();
        bail!(
            "{:?} {:?} failed: {text}",
            cmd.get_program(),
            cmd.get_args().collect::<Vec<_>>()
        );
    }
    Ok(Measured {
        secs,
        // Linux reports ru_maxrss in KiB.
        peak_mib: usage.ru_maxrss as f64 / 1024.0,
    })
}

/// The fastest of `runs` runs (with its own peak RSS).
pub fn best_of(runs: u32, mut run: impl FnMut() -> Result<Measured>) -> Result<Measured> {
    let mut best: Option<Measured> = None;
    for _ in 0..runs.max(1) {
        let r = run()?;
        if best.is_none_or(|b| r.secs < b.secs) {
            best = Some(r);
        }
    }
    Ok(best.expect("at least one run"))
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

/// The median time and the median peak RSS of `runs` runs: the figures are medians
/// of 5.
pub fn median_of(runs: u32, mut run: impl FnMut() -> Result<Measured>) -> Result<Measured> {
    let all = (0..runs.max(1))
        .map(|_| run())
        .collect::<Result<Vec<_>>>()?;
    let (mut secs, mut peaks): (Vec<f64>, Vec<f64>) =
        all.iter().map(|m| (m.secs, m.peak_mib)).unzip();
    Ok(Measured {
        secs: median(&mut secs),
        peak_mib: median(&mut peaks),
    })
}

/// One goal of the issue, judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub goal: String,
    pub measured: String,
    pub met: bool,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mark = if self.met { "met" } else { "NOT MET" };
        write!(f, "goal {:<52} {:<30} {mark}", self.goal, self.measured)
    }
}

/// frameprobe's figure as a share of trace_processor's, against a ceiling.
pub fn ratio(what: &str, fp: f64, tp: f64, ceiling: f64) -> Verdict {
    let r = fp / tp;
    Verdict {
        goal: format!("{what} <= {ceiling:.2}x trace_processor"),
        measured: format!("{r:.2}x ({fp:.2} vs {tp:.2})"),
        met: r <= ceiling,
    }
}

/// Peak memory as a share of the trace file's size.
pub fn memory_vs_file(what: &str, peak_mib: f64, file_bytes: u64, ceiling: f64) -> Verdict {
    let file_mib = file_bytes as f64 / (1 << 20) as f64;
    let r = peak_mib / file_mib;
    Verdict {
        goal: format!("{what} peak RSS <= {ceiling:.1}x the file"),
        measured: format!("{r:.2}x ({peak_mib:.0} MiB, file {file_mib:.0} MiB)"),
        met: r <= ceiling,
    }
}

/// Linear growth: seconds per MB on a larger workload within `ceiling` times the smallest's.
pub fn growth(what: &str, small_per_mb: f64, large_per_mb: f64, ceiling: f64) -> Verdict {
    let r = large_per_mb / small_per_mb;
    Verdict {
        goal: format!("{what} time/MB <= {ceiling:.1}x the smallest's"),
        measured: format!(
            "{r:.2}x ({:.2} vs {:.2} ms/MB)",
            large_per_mb * 1e3,
            small_per_mb * 1e3
        ),
        met: r <= ceiling,
    }
}

/// A floor (the many-trace speed-up on two cores).
pub fn at_least(what: &str, value: f64, floor: f64) -> Verdict {
    Verdict {
        goal: format!("{what} >= {floor:.2}x"),
        measured: format!("{value:.2}x"),
        met: value >= floor,
    }
}

/// An absolute ceiling (the 1 GB workload's seconds and memory).
pub fn at_most(what: &str, value: f64, ceiling: f64, unit: &str) -> Verdict {
    Verdict {
        goal: format!("{what} <= {ceiling} {unit}"),
        measured: format!("{value:.2} {unit}"),
        met: value <= ceiling,
    }
}

/// The trace_processor binary to compare with: `--tp`, else the first of the usual names on
/// PATH.
pub fn find_trace_processor(given: Option<&Path>) -> Option<std::path::PathBuf> {
    if let Some(p) = given {
        return Some(p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["trace_processor_shell", "trace_processor"].map(|n| d.join(n)))
        .find(|p| p.is_file())
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

    #[test]
    fn the_median_time_and_peak_are_reported() {
        let mut times = [3.0, 1.0, 2.0, 9.0].into_iter();
        let m = median_of(4, || {
            let secs = times.next().unwrap();
            Ok(Measured {
                secs,
                peak_mib: secs * 10.0,
            })
        })
        .unwrap();
        assert_eq!((m.secs, m.peak_mib), (2.5, 25.0));
        let mut times = [3.0, 1.0, 2.0].into_iter();
        let fastest = best_of(3, || {
            Ok(Measured {
                secs: times.next().unwrap(),
                peak_mib: 0.0,
            })
        })
        .unwrap();
        assert_eq!(fastest.secs, 1.0);
    }

    #[test]
    fn ratios_are_judged_against_their_ceiling() {
        // 0.9 s against 6 s is 0.15x: exactly on the analyze goal, so met.
        assert!(ratio("analyze time", 0.9, 6.0, 0.15).met);
        assert!(!ratio("analyze time", 0.91, 6.0, 0.15).met);
        // 206 MB file = 196.5 MiB; 330 MiB is 1.68x: over the 1.0x ceiling.
        let v = memory_vs_file("analyze", 330.0, 206_000_000, 1.0);
        assert!(!v.met);
        assert!(v.measured.starts_with("1.68x"), "{}", v.measured);
        assert!(memory_vs_file("analyze", 190.0, 206_000_000, 1.0).met);
        // 10.5 vs 10 ms/MB is 1.05x, within 1.1x; 11.5 is not.
        assert!(growth("analyze", 0.010, 0.0105, 1.1).met);
        assert!(!growth("analyze", 0.010, 0.0115, 1.1).met);
        assert!(at_most("1 GB analyze", 5.9, 6.0, "s").met);
        assert!(at_least("speed-up", 1.8, 1.8).met);
        assert!(!at_least("speed-up", 1.78, 1.8).met);
        assert!(!at_most("1 GB analyze", 6.1, 6.0, "s").met);
    }

    #[test]
    fn a_child_is_timed_and_its_own_peak_rss_reported() {
        let err = std::env::temp_dir().join(format!("speed-test-{}", std::process::id()));
        // A shell that allocates ~64 MiB (a string of 64 Mi characters) peaks above that.
        let big = best_of(1, || {
            run_child(
                Command::new("sh").args([
                    "-c",
                    "x=$(head -c 67108864 /dev/zero | tr '\\0' a); echo ${#x}",
                ]),
                &err,
            )
        })
        .unwrap();
        let small = run_child(Command::new("true").arg("x"), &err).unwrap();
        assert!(big.peak_mib > 64.0, "{big:?}");
        assert!(small.peak_mib < 16.0, "{small:?}");
        assert!(run_child(&mut Command::new("false"), &err).is_err());
        std::fs::remove_file(&err).ok();
    }
}
