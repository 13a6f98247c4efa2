//! What the CI gate measures in one trace (one Macrobenchmark iteration) for a package:
//! Macrobenchmark's frames and values, and the FrameTimeline verdict of each app frame.
//! Traces are measured in parallel, each loaded, reduced and dropped, so memory stays at
//! about `jobs` traces.

use std::path::{Path, PathBuf};

use crate::analysis::frame_model;
use crate::analysis::frame_timing;
use crate::analysis::frames;
use crate::analysis::index::Index;
use crate::analysis::interactions::summary::select;
use crate::analysis::interactions::InteractionOptions;
use crate::analysis::macrobenchmark::{input_for, inputs_by_process, process_matches_package};
use crate::analysis::named_slices::NamedSlices;
use crate::analysis::refresh::{PeriodSource, VsyncTimeline};
use crate::analysis::time_range::{RangeReport, RangeSpec};
use crate::analysis::trust::{self, Reason};
use crate::import::{load, LoadOptions};

/// Which app a trace is measured for.
#[derive(Debug, Clone)]
pub enum Target {
    /// A package (`--process`), matched as Macrobenchmark matches it.
    Package(String),
    /// The app a Macrobenchmark test package measured, found in the trace (see
    /// [`infer_package`]); None when there is no benchmarkData.json to name the test package.
    Infer(Option<String>),
}

#[derive(Debug, Clone, Default)]
pub struct Iteration {
    pub path: PathBuf,
    /// The package measured (given, or inferred from the trace).
    pub package: String,
    /// Its iteration number in a benchmarkData.json, when it came from one.
    pub iteration: Option<usize>,
    /// Frames Macrobenchmark counts (cpu and, on API 31+, overrun).
    pub mb_frames: Vec<(i64, Option<i64>)>,
    /// Every FrameTimeline app frame's jank tag.
    pub timeline_tags: Vec<String>,
    /// analyze's verdicts of the app's processes (reconciliation rows, top causes).
    pub analyzed: super::analyzed::Analyzed,
    pub process_found: bool,
    pub api_level: u32,
    pub problem: Option<String>,
    /// Why this iteration's numbers are less than trusted (the trace's reasons and the
    /// package's, except its frame count, which the gate judges on the pooled frames).
    pub trust_reasons: Vec<Reason>,
    /// The loader's warnings (damage, refused blobs, dropped bundles), with byte offsets.
    pub warnings: Vec<String>,
    /// The range measured (`--from` / `--to`), in this trace's times.
    pub range: Option<RangeReport>,
}

/// How the gate loads a trace: as analyze does, without a progress bar.
pub fn load_options() -> LoadOptions {
    LoadOptions {
        progress: false,
        ..crate::single_trace::analysis_load_options()
    }
}

/// Dotted name components two package names share from the start.
fn shared_components(a: &str, b: &str) -> usize {
    a.split('.')
        .zip(b.split('.'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The app a Macrobenchmark test package (`com.example.app.benchmark`) measured: among the
/// trace's processes with Choreographer and RenderThread frames, other than the test package
/// itself, the one sharing the most leading name components with it (at least two, e.g.
/// `com.example`; more frames break a tie). Macrobenchmark writes the target package nowhere
/// in its JSON, so this is what is left to go by; `--process` overrides it.
pub fn infer_package(store: &crate::store::Store, test_package: &str) -> anyhow::Result<String> {
    let mut best: Option<(usize, usize, String)> = None;
    let mut seen: Vec<String> = Vec::new();
    for (upid, input) in inputs_by_process(store, &NamedSlices::collect(store)) {
        if input.ui.is_empty() || input.rt.is_empty() {
            continue;
        }
        let Some(name) = store.opt_str(store.processes[upid as usize].name) else {
            continue;
        };
        let pkg = name.split(':').next().unwrap_or(name).to_string();
        seen.push(pkg.clone());
        if pkg == test_package {
            continue;
        }
        let score = (shared_components(&pkg, test_package), input.rt.len(), pkg);
        // Ties go to the first name in order, so the choice never depends on hash order.
        let key = |s: &(usize, usize, String)| (s.0, s.1, std::cmp::Reverse(s.2.clone()));
        if score.0 >= 2 && best.as_ref().is_none_or(|b| key(&score) > key(b)) {
            best = Some(score);
        }
    }
    match best {
        Some((_, _, p)) => Ok(p),
        None => {
            seen.sort();
            seen.dedup();
            anyhow::bail!(
                "cannot tell which app the test package {test_package:?} measured: no process with frames shares its name's start (processes with frames: {}); pass --process",
                if seen.is_empty() { "none".to_string() } else { seen.join(", ") }
            )
        }
    }
}

/// Measures the target app in one trace: the frames starting in `range`.
pub fn measure(path: &Path, target: &Target, range: RangeSpec) -> anyhow::Result<Iteration> {
    measure_selected(path, target, range, &InteractionOptions::default())
}

/// [`measure`], keeping with `--interaction` globs only the frames of matching interactions
/// (Macrobenchmark's frames too: those whose doFrame is one of theirs).
pub fn measure_selected(
    path: &Path,
    target: &Target,
    range: RangeSpec,
    interactions: &InteractionOptions,
) -> anyhow::Result<Iteration> {
    // An empty input or one without packets is refused by the loader.
    let loaded = load(path, load_options())?;
    let store = &loaded.store;
    let package = match target {
        Target::Package(p) => p.clone(),
        Target::Infer(Some(test_package)) => infer_package(store, test_package)?,
        Target::Infer(None) => anyhow::bail!(
            "no --process given and no benchmarkData.json beside this trace to infer the app from"
        ),
    };
    let package = package.as_str();
    let upids: Vec<u32> = (0..store.processes.len() as u32)
        .filter(|&u| {
            u != 0
                && store
                    .opt_str(store.processes[u as usize].name)
                    .is_some_and(|n| process_matches_package(n, package))
        })
        .collect();
    let (api, _) = crate::analysis::api_level(store);
    let bounds = store.bounds();
    let span = range.resolve(bounds.0);
    let mut it = Iteration {
        path: path.to_path_buf(),
        package: package.to_string(),
        process_found: !upids.is_empty(),
        api_level: api,
        warnings: loaded.warnings.clone(),
        range: range.report(bounds),
        ..Default::default()
    };
    if upids.is_empty() {
        return Ok(it);
    }
    let idx = Index::new(store);
    let mut model = frames::build(&idx);
    // The same frames analyze keeps for the range and interactions.
    let (detected, _) = select(store, &idx.named, &mut model, span, interactions, None);
    if let Err(e) = detected {
        it.warnings
            .push(format!("interactions could not be detected: {e:#}"));
    }
    let selected_ui: Option<std::collections::HashSet<i64>> = (!interactions.sections.is_empty())
        .then(|| {
            upids
                .iter()
                .flat_map(|u| model.get(u).into_iter().flatten())
                .filter_map(|f| f.ui.map(|u| u.ts))
                .collect()
        });
    match frame_timing::frames(&input_for(store, &idx.named, &upids).within(span), api) {
        Ok(fs) => {
            it.mb_frames = fs
                .iter()
                .filter(|f| selected_ui.as_ref().is_none_or(|s| s.contains(&f.ui.ts)))
                .map(|f| f.metrics())
                .map(|m| (m.duration_cpu_ns, m.overrun_ns))
                .collect();
        }
        Err(p) => it.problem = Some(p.to_string()),
    }
    for u in &upids {
        for f in model.get(u).into_iter().flatten() {
            if let Some(t) = &f.timeline {
                it.timeline_tags.push(t.jank_tag.clone());
            }
        }
    }
    it.trust_reasons = trust_reasons(store, &idx, &model, &upids);
    it.analyzed = analyzed(store, path, &upids, range, interactions);
    Ok(it)
}

/// analyze's report of the app's processes, summed (selected by pid, kept by upid).
fn analyzed(
    store: &crate::store::Store,
    path: &Path,
    upids: &[u32],
    range: RangeSpec,
    interactions: &InteractionOptions,
) -> super::analyzed::Analyzed {
    let opts = crate::analysis::AnalyzeOptions {
        interactions: interactions.clone(),
        processes: upids
            .iter()
            .map(|&u| store.processes[u as usize].pid.to_string())
            .collect(),
        range,
        ..Default::default()
    };
    let report = crate::analysis::analyze(store, &opts, &path.display().to_string());
    let ours: Vec<_> = report
        .processes
        .iter()
        .filter(|p| upids.contains(&p.upid))
        .collect();
    super::analyzed::Analyzed::of(&ours)
}

/// The trace's trust reasons and those of the package's processes (frame counts aside).
fn trust_reasons(
    store: &crate::store::Store,
    idx: &Index<'_>,
    model: &std::collections::HashMap<u32, Vec<frame_model::Frame>>,
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
    paths: &[(PathBuf, Target)],
    jobs: usize,
    range: RangeSpec,
) -> Vec<anyhow::Result<Iteration>> {
    measure_all_selected(paths, jobs, range, &InteractionOptions::default())
}

/// [`measure_all`] with `--interaction` (see [`measure_selected`]).
pub fn measure_all_selected(
    paths: &[(PathBuf, Target)],
    jobs: usize,
    range: RangeSpec,
    interactions: &InteractionOptions,
) -> Vec<anyhow::Result<Iteration>> {
    super::isolate::each_isolated(paths, jobs, |(p, t)| {
        measure_selected(p, t, range, interactions)
    })
}

pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}
