//! What the CI gate measures in one trace (one Macrobenchmark iteration) for a package:
//! Macrobenchmark's frames and values, and the FrameTimeline verdict of each app frame.
//! Traces are measured in parallel, each loaded, reduced and dropped, so memory stays at
//! about `jobs` traces.

use std::path::{Path, PathBuf};

use crate::analysis::frame_timing;
use crate::analysis::frames;
use crate::analysis::index::Index;
use crate::analysis::macrobenchmark::{input_for, process_matches_package};
use crate::analysis::refresh::{PeriodSource, VsyncTimeline};
use crate::analysis::trust::{self, Reason};
use crate::import::{load, LoadOptions};

#[derive(Debug, Clone, Default)]
pub struct Iteration {
    pub path: PathBuf,
    /// Frames Macrobenchmark counts (cpu and, on API 31+, overrun).
    pub mb_frames: Vec<(i64, Option<i64>)>,
    /// Every FrameTimeline app frame's jank tag.
    pub timeline_tags: Vec<String>,
    pub process_found: bool,
    pub api_level: u32,
    pub problem: Option<String>,
    /// Why this iteration's numbers are less than trusted (the trace's reasons and the
    /// package's, except its frame count, which the gate judges on the pooled frames).
    pub trust_reasons: Vec<Reason>,
    /// The loader's warnings (damage, refused blobs, dropped bundles), with byte offsets.
    pub warnings: Vec<String>,
}

fn load_options() -> LoadOptions {
    LoadOptions {
        progress: false,
        ..crate::cli::analyze::analysis_load_options()
    }
}

/// Measures `package` in one trace.
pub fn measure(path: &Path, package: &str) -> anyhow::Result<Iteration> {
    // An empty input or one without packets is refused by the loader.
    let loaded = load(path, load_options())?;
    let store = &loaded.store;
    let upids: Vec<u32> = (0..store.processes.len() as u32)
        .filter(|&u| {
            u != 0
                && store
                    .opt_str(store.processes[u as usize].name)
                    .is_some_and(|n| process_matches_package(n, package))
        })
        .collect();
    let (api, _) = crate::analysis::api_level(store);
    let mut it = Iteration {
        path: path.to_path_buf(),
        process_found: !upids.is_empty(),
        api_level: api,
        warnings: loaded.warnings.clone(),
        ..Default::default()
    };
    if upids.is_empty() {
        return Ok(it);
    }
    match frame_timing::frames(&input_for(store, &upids), api) {
        Ok(fs) => {
            it.mb_frames = fs
                .iter()
                .map(|f| f.metrics())
                .map(|m| (m.duration_cpu_ns, m.overrun_ns))
                .collect();
        }
        Err(p) => it.problem = Some(p.to_string()),
    }
    let idx = Index::new(store);
    let model = frames::build(&idx);
    for u in &upids {
        for f in model.get(u).into_iter().flatten() {
            if let Some(t) = &f.timeline {
                it.timeline_tags.push(t.jank_tag.clone());
            }
        }
    }
    it.trust_reasons = trust_reasons(store, &idx, &model, &upids);
    Ok(it)
}

/// The trace's trust reasons and those of the package's processes (frame counts aside).
fn trust_reasons(
    store: &crate::store::Store,
    idx: &Index<'_>,
    model: &std::collections::HashMap<u32, Vec<frames::Frame>>,
    upids: &[u32],
) -> Vec<Reason> {
    let srcs = crate::analysis::sources(store);
    let frame_slices = !idx.do_frames.is_empty() || !idx.draw_frames.is_empty();
    let known = VsyncTimeline::new(store).source != PeriodSource::Assumed;
    let facts = trust::TraceFacts::from_store(store, &srcs, frame_slices, known);
    let mut out = trust::trace_reasons(&facts);
    for &u in upids {
        let p = &store.processes[u as usize];
        let fs = model.get(&u).map_or(&[][..], |v| v.as_slice());
        let reasons = trust::process_reasons(
            &trust::ProcessFacts {
                name: store.opt_str(p.name).map(str::to_string),
                name_source: Some("process"),
                has_cmdline: p.cmdline.is_some(),
                frames: None,
                frames_with_timeline: fs.iter().filter(|f| f.timeline.is_some()).count(),
                frames_with_ui: fs.iter().filter(|f| f.ui.is_some()).count(),
            },
            &facts,
        );
        for r in reasons {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    out
}

/// Measures every trace with `jobs` workers; results keep the input order.
pub fn measure_all(
    paths: &[PathBuf],
    package: &str,
    jobs: usize,
) -> Vec<anyhow::Result<Iteration>> {
    super::isolate::each_isolated(paths, jobs, |p| measure(p, package))
}

pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
