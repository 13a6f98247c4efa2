//! Running a command's per-trace work over many traces: on worker threads (the gate's
//! isolating pool: an explicit stack, a panic is that trace's error), results handed to the
//! caller on its own thread as each trace finishes, or in input order when sorted.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::progress::Progress;
use super::reorder::Reorder;
use crate::gate::isolate::each_isolated_streaming;

/// What one trace gave: the command's value and the import warnings to print.
pub struct Done<T> {
    pub value: T,
    pub warnings: Vec<String>,
}

#[derive(Clone, Copy, Debug)]
pub struct RunOptions {
    /// Traces handled at once.
    pub jobs: usize,
    /// Results in input order (else in the order they finish).
    pub sorted: bool,
    /// Print each failed trace's error on standard error (a single trace's error is the
    /// command's, printed once by the caller).
    pub report_errors: bool,
}

/// Runs `one` on every trace and hands each result to `emit`. Import warnings (and errors,
/// if asked) go to standard error, and a progress bar shows when standard error is a
/// terminal. Returns how many traces failed; an error from `emit` (a closed pipe) stops the
/// run and is returned.
pub fn each_trace<T: Send>(
    traces: &[PathBuf],
    opts: RunOptions,
    one: impl Fn(&Path) -> Result<Done<T>> + Sync,
    mut emit: impl FnMut(&Path, Result<T>) -> Result<()>,
) -> Result<usize> {
    let progress = Progress::new(traces.len());
    let mut order = Reorder::default();
    let mut failed = 0;
    let mut stopped = None;
    each_isolated_streaming(
        traces,
        opts.jobs,
        |t| one(t),
        |i, r| {
            let t = &traces[i];
            progress.done(std::fs::metadata(t).map_or(0, |m| m.len()));
            let r = match r {
                Ok(done) => {
                    for w in &done.warnings {
                        progress.message(&format!("warning: {}: {w}", t.display()));
                    }
                    Ok(done.value)
                }
                Err(e) => {
                    failed += 1;
                    if opts.report_errors {
                        progress.message(&format!("error: {e:#}"));
                    }
                    Err(e)
                }
            };
            let ready = if opts.sorted {
                order.push(i, (i, r))
            } else {
                vec![(i, r)]
            };
            for (i, r) in ready {
                if let Err(e) = emit(&traces[i], r) {
                    stopped = Some(e);
                    return false;
                }
            }
            true
        },
    );
    match stopped {
        Some(e) => Err(e),
        None => Ok(failed),
    }
}
