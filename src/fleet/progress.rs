//! The progress bar of a many-trace command: on standard error, and only when that is a
//! terminal (a pipe or a CI log gets no bar), so output for machines stays clean.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle, TermLike};

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
    /// On a terminal the bar goes away at the end; a forced one stays, as a last log line.
    clear_at_end: bool,
}

impl Progress {
    /// A bar for `traces` traces, shown if there are several and [`wanted`] says so.
    pub fn new(traces: usize) -> Self {
        let setting = std::env::var(PROGRESS_ENV).ok();
        let terminal = std::io::stderr().is_terminal();
        let show = traces > 1 && wanted(setting.as_deref(), terminal);
        let bytes = Arc::new(AtomicU64::new(0));
        let bar = show.then(|| {
            // indicatif draws nothing on a non-terminal: `always` writes to stderr as is.
            let target = if terminal {
                ProgressDrawTarget::stderr_with_hz(4)
            } else {
                ProgressDrawTarget::term_like_with_hz(Box::new(PlainStderr), 4)
            };
            let bar = ProgressBar::with_draw_target(Some(traces as u64), target);
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
        Self {
            bar,
            bytes,
            clear_at_end: terminal,
        }
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
        match &self.bar {
            Some(b) if self.clear_at_end => b.finish_and_clear(),
            Some(b) => b.finish(),
            None => {}
        }
    }
}

/// Standard error as a terminal of 80 columns, for a bar forced on where there is none.
#[derive(Debug)]
struct PlainStderr;

impl PlainStderr {
    fn put(&self, s: &str) -> std::io::Result<()> {
        std::io::stderr().lock().write_all(s.as_bytes())
    }
}

impl TermLike for PlainStderr {
    fn width(&self) -> u16 {
        80
    }
    fn move_cursor_up(&self, n: usize) -> std::io::Result<()> {
        self.put(&format!("\x1b[{n}A"))
    }
    fn move_cursor_down(&self, n: usize) -> std::io::Result<()> {
        self.put(&format!("\x1b[{n}B"))
    }
    fn move_cursor_right(&self, n: usize) -> std::io::Result<()> {
        self.put(&format!("\x1b[{n}C"))
    }
    fn move_cursor_left(&self, n: usize) -> std::io::Result<()> {
        self.put(&format!("\x1b[{n}D"))
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.put(&format!("{s}\n"))
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        self.put(s)
    }
    fn clear_line(&self) -> std::io::Result<()> {
        self.put("\r\x1b[2K")
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
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
