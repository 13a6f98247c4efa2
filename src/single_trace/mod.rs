//! One trace in, what a single-trace command computes out: the path shared by the CLI
//! (`analyze`, `frames`, `query`) and the Python extension (`crates/frameprobe-py`), so both
//! give the same rows and the same error messages.

mod empty;
pub mod query;

use std::path::Path;

use anyhow::{Context, Result};

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::{analyze, AnalyzeOptions};
use crate::import::{load, LoadOptions, Loaded};
use crate::store::{Store, TrackRow};

pub use empty::{empty_report_message, no_frames_message, no_match_message};

/// What analyze needs from a trace (kernel and system counters are skipped but for CPU
/// frequency; thread states split the UI thread's time in blame and causes, and their
/// Running rows say what ran on a CPU, so the `sched` rows are only counted; FrameTimeline
/// slices get no args, as their columns hold the same values). The importers take a
/// second thread from the same size as for `query`: the batches between the threads add
/// 3 MiB or so to the load's peak, which the 20-byte thread states leave room for under
/// the file's size (docs/speed.md, "CPU, sixth round").
pub fn analysis_load_options() -> LoadOptions {
    LoadOptions {
        sched_rows: false,
        frame_timeline_args: false,
        binder_args: false,
        kernel_counters: false,
        system_counters: false,
        system_properties: false,
        counter_tracks: Some(analysis_reads_counter_track),
        ..LoadOptions::all()
    }
}

/// The counter tracks analyze reads: per-CPU frequency (CPU contention) and
/// SurfaceFlinger's vsync counters (the refresh period).
fn analysis_reads_counter_track(store: &Store, track: &TrackRow) -> bool {
    crate::analysis::causes::cpu::frequency_track_cpu(store, track).is_some()
        || crate::analysis::refresh::vsync_counter_kind(store, track).is_some()
}

/// Loads a trace, naming the file in the error. An unreadable file, an empty file or one
/// without a single packet is an error: the loader (`import::load_source`) refuses those.
pub fn load_trace(path: &Path, opts: LoadOptions) -> Result<Loaded> {
    load(path, opts).with_context(|| format!("cannot load {}", path.display()))
}

/// One analyzed trace: the report (its `warnings` include the loader's), what the caller
/// computed from the same store, and the loader's warnings (damage after a good prefix) for
/// the caller to show.
pub struct AnalyzedTrace<T> {
    pub report: AnalyzeReport,
    pub also: T,
    pub load_warnings: Vec<String>,
}

/// Loads and analyzes one trace behind a panic guard: a panic is this trace's error.
pub fn analyze_trace<T>(
    path: &Path,
    opts: &AnalyzeOptions,
    also: impl FnOnce(&Store) -> T,
) -> Result<AnalyzedTrace<T>> {
    crate::gate::isolate::run_isolated(|| {
        let loaded = load_trace(path, analysis_load_options())?;
        let mut report = analyze(&loaded.store, opts, &path.display().to_string());
        report.warnings.extend(loaded.warnings.iter().cloned());
        let also = also(&loaded.store);
        drop_elsewhere(loaded.store);
        Ok(AnalyzedTrace {
            report,
            also,
            load_warnings: loaded.warnings,
        })
    })
}

/// Frees a store on a thread of its own, so that the report is written meanwhile: a store
/// holds millions of allocations (x300: 54 ms to free, while the JSON took 92 ms on the
/// other core). Where no thread can be had, it is freed here.
fn drop_elsewhere(store: Store) {
    // A failed spawn drops the closure, and the store with it, on this thread.
    let _ = std::thread::Builder::new()
        .name("free-store".into())
        .spawn(move || drop(store));
}

/// [`analyze_trace`] for a caller that has only this trace: a report without a frame is an
/// error, with the message the CLI prints for it.
pub fn analyze_one(path: &Path, opts: &AnalyzeOptions) -> Result<AnalyzedTrace<()>> {
    let done = analyze_trace(path, opts, |_| ())?;
    match empty_report_message(&done.report, opts) {
        Some(msg) => Err(anyhow::anyhow!(msg)),
        None => Ok(done),
    }
}
