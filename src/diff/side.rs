//! One side of a diff read from disk: its traces found as the gate finds them (traces,
//! directories searched for traces, Macrobenchmark output directories with their
//! benchmarkData.json), each trace one iteration, reduced to its interactions' windows.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::matching::{Window, WindowKey};
use super::sample::{AppThreads, FrameSample};
use super::SideInfo;
use crate::analysis::causes::context::Ctx;
use crate::analysis::glob::glob;
use crate::analysis::index::Index;
use crate::analysis::interactions::{detect, InteractionOptions};
use crate::analysis::thread_state::ThreadStateIndex;
use crate::analysis::{analyze, frames, AnalyzeOptions};
use crate::gate::{inputs, isolate, macrobench_dir, measure};
use crate::store::Upid;

/// What to read of each trace.
#[derive(Debug, Clone, Default)]
pub struct SideOptions {
    /// Only processes whose name matches one of these globs (all when empty).
    pub processes: Vec<String>,
    pub interactions: InteractionOptions,
    pub jobs: usize,
}

/// The traces of `inputs`, in iteration order. They must be one test's iterations: several
/// Macrobenchmark tests on one side would pool unrelated runs.
pub fn traces(inputs_: &[PathBuf]) -> Result<Vec<PathBuf>> {
    for i in inputs_ {
        if !i.exists() {
            bail!("{} does not exist", i.display());
        }
    }
    let found = macrobench_dir::discover(inputs_)?;
    if let Some(e) = found.errors.first() {
        bail!("{e}");
    }
    let mut by_test: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for b in &found.benchmarks {
        by_test
            .entry(b.result.key())
            .or_default()
            .extend(b.traces.iter().cloned());
    }
    for (t, _) in &found.loose {
        by_test
            .entry(inputs::test_name(t))
            .or_default()
            .push(t.clone());
    }
    // Loose traces with different names are iterations of one run unless a benchmark
    // groups them otherwise.
    if found.benchmarks.len() > 1 {
        let names: Vec<&str> = by_test.keys().map(String::as_str).collect();
        bail!(
            "{} holds {} Macrobenchmark tests ({}); give one test's traces per side",
            inputs_
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            names.len(),
            names.join(", ")
        );
    }
    let out: Vec<PathBuf> = by_test.into_values().flatten().collect();
    if out.is_empty() {
        bail!("no traces (*.perfetto-trace, *.pftrace) found in {inputs_:?}");
    }
    Ok(out)
}

/// One trace's interactions as windows of frame samples, and its load warnings.
pub fn windows_of(path: &Path, opts: &SideOptions) -> Result<(Vec<Window>, Vec<String>)> {
    let loaded = crate::import::load(path, measure::load_options())?;
    let store = &loaded.store;
    let report = analyze(
        store,
        &AnalyzeOptions {
            all_frames: true,
            ..Default::default()
        },
        &path.display().to_string(),
    );
    let idx = Index::new(store);
    let model = frames::build(&idx);
    let found = detect(store, &idx.named, &model, &opts.interactions, None)
        .with_context(|| format!("detecting interactions in {}", path.display()))?;
    let states = ThreadStateIndex::all(store);
    let ctx = Ctx::new(&idx, &states);
    let mut threads: HashMap<Upid, AppThreads> = HashMap::new();
    let mut out = Vec::new();
    for i in found {
        let Some(p) = report.processes.iter().find(|p| p.upid == i.upid) else {
            continue;
        };
        let name = p.name.clone().unwrap_or_else(|| format!("pid {}", p.pid));
        if !opts.processes.is_empty() && !opts.processes.iter().any(|g| glob(g, &name)) {
            continue;
        }
        // analyze reports every frame of the model, in its order.
        let Some(fs) = model
            .get(&i.upid)
            .filter(|fs| fs.len() == p.all_frames.len())
        else {
            continue;
        };
        let app = threads
            .entry(i.upid)
            .or_insert_with(|| AppThreads::of(&ctx, i.upid));
        let frames = i
            .frames
            .iter()
            .map(|&k| FrameSample::new(&ctx, app, &fs[k], &p.all_frames[k]))
            .collect();
        out.push(Window {
            key: WindowKey {
                process: name,
                source: i.source.name().to_string(),
                label: i.label.clone(),
                ordinal: i.ordinal,
            },
            ts: i.ts,
            dur: i.dur,
            frames,
        });
    }
    Ok((out, loaded.warnings.clone()))
}

/// A side: its traces, each trace's windows (one list per iteration), the load warnings.
pub fn load_side(
    inputs_: &[PathBuf],
    opts: &SideOptions,
) -> Result<(SideInfo, Vec<Vec<Window>>, Vec<String>)> {
    let paths = traces(inputs_)?;
    let results = isolate::each_isolated(&paths, opts.jobs, |p| windows_of(p, opts));
    let mut info = SideInfo {
        traces: Vec::new(),
        interactions: Vec::new(),
    };
    let mut windows = Vec::new();
    let mut warnings = Vec::new();
    for (p, r) in paths.iter().zip(results) {
        let (w, warn) = r.with_context(|| format!("cannot read {}", p.display()))?;
        info.traces.push(p.display().to_string());
        info.interactions.push(w.len());
        warnings.extend(warn.into_iter().map(|x| format!("{}: {x}", p.display())));
        windows.push(w);
    }
    Ok((info, windows, warnings))
}
