//! The progress bar of a many-trace command: on standard error, and only when that is a
//! terminal (a pipe or a CI log gets no bar), so output for machines stays clean.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// The environment variable that overrides the terminal test: `always` or `never`.
pub const PROGRESS_ENV: &str = "FRAMEPROBE_PROGRESS";

/// Whether to draw a bar: the override when it is `always`/`never`, else whether standard
/// error is a terminal.
pub fn wanted(setting: Option<&str>, stderr_is_terminal: bool) -> bool {
    match setting.map(str::trim) {
        Some("always") => true,
        Some("never") => false,
        _ => stderr_is_terminal,
    }
}

/// Traces done of the total, input MB/s and the time left; or nothing at all.
pub struct Progress {
    bar: Option<ProgressBar>,
    bytes: Arc<AtomicU64>,
}

impl Progress {
    /// A bar for `traces` traces, shown if [`wanted`] says so for this process.
    pub fn new(traces: usize) -> Self {
        let setting = std::env::var(PROGRESS_ENV).ok();
        let show = wanted(setting.as_deref(), std::io::stderr().is_terminal());
        let bytes = Arc::new(AtomicU64::new(0));
        let bar = show.then(|| {
            let bar = ProgressBar::with_draw_target(
                Some(traces as u64),
                ProgressDrawTarget::stderr_with_hz(4),
            );
            let seen = Arc::clone(&bytes);
            let style =
                ProgressStyle::with_template("{bar:30} {pos}/{len} traces  {mb_per_s}  ETA {eta}")
                    .expect("a valid template")
                    .with_key(
                        "mb_per_s",
                        move |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                            let secs = s.elapsed().as_secs_f64().max(1e-3);
                            let mb = seen.load(Ordering::Relaxed) as f64 / 1e6;
                            let _ = write!(w, "{:.1} MB/s", mb / secs);
                        },
                    );
            bar.set_style(style);
            bar
        });
        Self { bar, bytes }
    }

    /// One more trace done, of `bytes` input bytes.
    pub fn done(&self, bytes: u64) {
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if let Some(b) = &self.bar {
            b.inc(1);
        }
    }

    /// A message line on standard error that does not tear the bar.
    pub fn message(&self, line: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_decides_unless_overridden() {
        assert!(wanted(None, true));
        assert!(!wanted(None, false));
        assert!(wanted(Some("always"), false));
        assert!(!wanted(Some("never"), true));
        // Anything else leaves the decision to the terminal test.
        assert!(wanted(Some("sometimes"), true));
        assert!(!wanted(Some(""), false));
    }
}
