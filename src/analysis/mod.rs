//! Frame analysis over the imported tables: the frame model, Macrobenchmark's and Perfetto's
//! frame metrics, FrameTimeline classification, blame and summaries.

pub mod blame;
pub mod buffers;
pub mod definitions;
pub mod frame_timing;
pub mod frames;
pub mod glob;
pub mod hwui;
pub mod index;
pub mod jank;
pub mod macrobenchmark;
pub mod monitor_contention_name;
pub mod perfetto_stats;
pub mod refresh;
pub mod report_model;
pub mod span_join;
pub mod sql_functions;
pub mod stdlib;
pub mod summary;
pub mod thread_state;

use std::collections::{BTreeMap, HashSet};

use crate::store::android_version::{parse_fingerprint, sdk_for_release};
use crate::store::{MetaValue, Store, Upid};
use blame::ms;
use frames::Frame;
use index::Index;
use report_model::*;
use thread_state::ThreadStateIndex;

/// What to analyze and how much detail to return.
#[derive(Debug, Clone, Default)]
pub struct AnalyzeOptions {
    /// Process names (glob) or pids; empty means every process that produced frames.
    pub processes: Vec<String>,
    /// Layer name glob.
    pub layer: Option<String>,
    /// How many of the worst frames to explain per process.
    pub top: usize,
    /// Return every frame (for the `frames` command).
    pub all_frames: bool,
    pub only_janky: bool,
}

const DEFAULT_BUDGET_NS: i64 = 16_666_667;

/// The sources present in the trace.
pub fn sources(store: &Store) -> Sources {
    let kinds: HashSet<&str> = store.tracks.iter().map(|t| store.str(t.kind)).collect();
    let thread_track = |id: u32| {
        matches!(
            store.tracks[id as usize].scope,
            crate::store::TrackScope::Thread(_)
        )
    };
    Sources {
        atrace: store.slices.iter().any(|s| thread_track(s.track_id)),
        frame_timeline: !store.frame_timeline.is_empty(),
        frame_tracer: kinds.contains("graphics_frame_event"),
        sched: !store.sched.is_empty(),
        process_tree: store.metadata.contains_key("has_process_tree")
            || store.processes.iter().any(|p| p.cmdline.is_some()),
    }
}

/// The device API level and whether the trace says it: the `android_sdk_version` metadata
/// (SystemInfo, else trace_processor's reading of the build fingerprint), else the public
/// API level of the fingerprint's release, else assumed from the data (FrameTimeline exists
/// from 31).
pub fn api_level(store: &Store) -> (u32, bool) {
    if let Some(v) = store.metadata_int("android_sdk_version") {
        return (v as u32, true);
    }
    let from_fingerprint = match store.metadata.get("android_build_fingerprint") {
        Some(MetaValue::Str(fp)) => parse_fingerprint(fp).and_then(|f| sdk_for_release(f.release)),
        _ => None,
    };
    match from_fingerprint {
        Some(v) => (v, true),
        None if store.frame_timeline.is_empty() => (30, false),
        None => (31, false),
    }
}

/// Whether `-p` selects the process: a pid, or a glob matching one of its names (the name
/// in the process table, or its command line's argv0, which keeps the full package name
/// when a kernel rename left the 15-character comm as the name).
fn matches_process(opts: &AnalyzeOptions, pid: i64, names: &[Option<&str>]) -> bool {
    opts.processes.is_empty()
        || opts.processes.iter().any(|p| match p.parse::<i64>() {
            Ok(n) => n == pid,
            Err(_) => names.iter().flatten().any(|n| glob::glob(p, n)),
        })
}

/// The frame budget: the median expected surface frame of the process, else 60 Hz.
fn budget(frames: &[Frame]) -> (i64, &'static str) {
    let mut d: Vec<i64> = frames
        .iter()
        .filter_map(|f| f.timeline.as_ref().and_then(|t| t.expected))
        .filter(|e| e.dur > 0)
        .map(|e| e.dur)
        .collect();
    if d.is_empty() {
        return (
            DEFAULT_BUDGET_NS,
            "default 60 Hz (no expected FrameTimeline frames)",
        );
    }
    d.sort();
    (
        d[d.len() / 2],
        "median expected surface frame (FrameTimeline)",
    )
}

fn frame_report(
    idx: &Index<'_>,
    states: &ThreadStateIndex<'_>,
    f: &Frame,
    budget_ns: i64,
    with_blame: bool,
    hwui: Option<hwui::HwuiFrame>,
) -> FrameReport {
    let t = f.timeline.as_ref();
    let janky = if t.is_some() {
        f.ft_janky()
    } else {
        f.cpu_ns().or(f.ui_ns()).is_some_and(|c| c > budget_ns)
    };
    FrameReport {
        frame_id: f.frame_id,
        layer: f.layer.clone(),
        ts: f.ts,
        dur_ms: (f.dur >= 0).then(|| ms(f.dur)),
        ui_ms: f.ui_ns().map(ms),
        cpu_ms: f.cpu_ns().map(ms),
        overrun_ms: f.overrun_ns().map(ms),
        jank_tag: t.map(|t| t.jank_tag.clone()),
        jank_type: t.map(|t| t.jank_type.clone()),
        present_type: t.map(|t| t.present_type.clone()),
        on_time_finish: t.map(|t| t.on_time_finish),
        gpu_composition: t.map(|t| t.gpu_composition),
        display_frame_token: t.map(|t| t.display_token),
        display_jank_tag: t.and_then(|t| t.display.as_ref().map(|d| d.jank_tag.clone())),
        janky,
        do_frame_slice_id: f.ui.map(|u| u.id),
        draw_frame_slice_id: f.rt.map(|r| r.id),
        buffer: f.buffer.clone(),
        blame: (with_blame && janky).then(|| blame::blame(idx, states, f, budget_ns)),
        hwui,
    }
}

/// How bad a frame is, for picking the worst ones: FrameTimeline jank first, then overrun,
/// then CPU time.
fn badness(f: &Frame) -> (bool, i64) {
    (
        f.ft_janky(),
        f.overrun_ns()
            .or(f.cpu_ns())
            .or(f.ui_ns())
            .unwrap_or(i64::MIN),
    )
}

pub fn analyze(store: &Store, opts: &AnalyzeOptions, trace: &str) -> AnalyzeReport {
    let idx = Index::new(store);
    let mut by_process = frames::build(&idx);
    let (api, api_known) = api_level(store);
    let srcs = sources(store);
    let mut warnings = Vec::new();
    if !api_known {
        warnings.push(format!(
            "the trace does not say the device's API level; assuming {api}"
        ));
    }
    let wanted: Vec<Upid> = {
        let mut v: Vec<(Upid, usize)> = by_process.iter().map(|(u, f)| (*u, f.len())).collect();
        v.sort_by_key(|&(u, n)| (std::cmp::Reverse(n), u));
        v.into_iter().map(|(u, _)| u).collect()
    };
    let mut ui_threads = HashSet::new();
    for u in &wanted {
        if let Some(m) = idx.threads.get(u).and_then(|t| t.main) {
            ui_threads.insert(m);
        }
    }
    let states = ThreadStateIndex::new(store, &ui_threads);
    let mb_inputs = macrobenchmark::inputs_by_process(store);
    let stdlib = perfetto_stats::compute(store).unwrap_or_else(|e| {
        warnings.push(format!(
            "Perfetto stdlib frame stats could not be computed: {e:#}"
        ));
        Default::default()
    });
    let mut processes = Vec::new();
    for upid in wanted {
        let mut frames = by_process.remove(&upid).unwrap_or_default();
        if let Some(g) = &opts.layer {
            frames.retain(|f| f.layer.as_deref().is_some_and(|l| glob::glob(g, l)));
        }
        if frames.is_empty() {
            continue;
        }
        let p = &store.processes[upid as usize];
        let layers_seen: Vec<String> = {
            let mut l: Vec<String> = frames.iter().filter_map(|f| f.layer.clone()).collect();
            l.sort();
            l.dedup();
            l
        };
        let (name, name_source) = match store.opt_str(p.name) {
            Some(n) => (Some(n.to_string()), Some("process")),
            None => match idx.process_name(upid, &layers_seen) {
                Some(n) => (Some(n), Some("layer")),
                None => (None, None),
            },
        };
        let argv0 = store.opt_str(p.cmdline).and_then(|c| c.split(' ').next());
        if !matches_process(opts, p.pid, &[name.as_deref(), argv0]) {
            continue;
        }
        let (budget_ns, budget_source) = budget(&frames);
        let mut layers = Vec::new();
        let mut groups: BTreeMap<Option<String>, Vec<&Frame>> = BTreeMap::new();
        for f in &frames {
            groups.entry(f.layer.clone()).or_default().push(f);
        }
        for (layer, fs) in &groups {
            layers.push(summary::summarize(&idx, layer.as_deref(), fs, budget_ns));
        }
        layers.sort_by_key(|l| std::cmp::Reverse(l.frames));
        let hwui_verdicts = hwui::judge_process(&idx, &frames, budget_ns);
        let mut order: Vec<(usize, &Frame)> = frames.iter().enumerate().collect();
        order.sort_by_key(|(_, f)| std::cmp::Reverse(badness(f)));
        let worst = order
            .iter()
            .take(opts.top)
            .filter(|(_, f)| badness(f).0 || f.timeline.is_none())
            .map(|&(i, f)| {
                frame_report(
                    &idx,
                    &states,
                    f,
                    budget_ns,
                    true,
                    hwui_verdicts.frames[i].clone(),
                )
            })
            .collect();
        let all_frames = if opts.all_frames {
            frames
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    frame_report(
                        &idx,
                        &states,
                        f,
                        budget_ns,
                        false,
                        hwui_verdicts.frames[i].clone(),
                    )
                })
                .filter(|r| !opts.only_janky || r.janky)
                .collect()
        } else {
            Vec::new()
        };
        let mut notes = Vec::new();
        if frames.iter().all(|f| f.timeline.is_none()) {
            notes.push("no FrameTimeline for this process: overrun and jank tags are not available; slow frames are judged by CPU time against the budget".to_string());
        }
        if frames.iter().all(|f| f.ui.is_none()) {
            notes.push("no atrace doFrame/DrawFrame slices for this process: UI and CPU durations are not available".to_string());
        }
        processes.push(ProcessReport {
            upid,
            pid: p.pid,
            name: name.clone(),
            name_source,
            frames: frames.len(),
            budget_ms: ms(budget_ns),
            budget_source,
            layers,
            macrobenchmark: macrobenchmark::block_for_process(&mb_inputs, upid, api),
            perfetto_frame_stats: stdlib.by_process.get(&upid).cloned(),
            hwui: hwui_verdicts.summary.map(|mut h| {
                if api < 31 {
                    h.note.push_str(&format!(
                        "; this device (API {api}) ran an older JankTracker: the deadline path (Janky frames, Frame deadline missed) arrived in Android 12"
                    ));
                }
                h
            }),
            worst_frames: worst,
            all_frames,
            notes,
        });
    }
    AnalyzeReport {
        schema: SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        trace: trace.to_string(),
        sources: srcs,
        api_level: Some(api),
        processes,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(meta: &[(&str, MetaValue)]) -> Store {
        let mut s = Store::default();
        for (k, v) in meta {
            s.set_metadata(k, v.clone());
        }
        s
    }

    #[test]
    fn api_level_from_metadata_then_fingerprint_then_assumed() {
        let fp = |f: &str| ("android_build_fingerprint", MetaValue::Str(f.to_string()));
        let sdk = ("android_sdk_version", MetaValue::Int(33));
        let s = store(&[sdk.clone(), fp("g/c/c:7.0/NRD91N/3318108:user/k")]);
        assert_eq!(api_level(&s), (33, true));
        // Releases trace_processor leaves unmapped still give the public API level.
        let s = store(&[fp("g/c/c:13/TQ3A.230705.001/10216780:user/release-keys")]);
        assert_eq!(api_level(&s), (33, true));
        let s = store(&[fp("g/b/b:8.1.0/OPM1/4:user/k")]);
        assert_eq!(api_level(&s), (27, true));
        assert_eq!(api_level(&store(&[])), (30, false));
        assert_eq!(api_level(&store(&[fp("garbage")])), (30, false));
    }

    #[test]
    fn process_filter_matches_pid_name_or_argv0() {
        let opts = AnalyzeOptions {
            processes: vec!["androidx.*.target".into(), "42".into()],
            ..Default::default()
        };
        let full = Some("androidx.benchmark.target");
        assert!(matches_process(&opts, 7, &[Some("enchmark.target"), full]));
        assert!(matches_process(&opts, 42, &[None, None]));
        assert!(!matches_process(&opts, 7, &[Some("enchmark.target"), None]));
        assert!(matches_process(&AnalyzeOptions::default(), 7, &[None]));
    }
}
