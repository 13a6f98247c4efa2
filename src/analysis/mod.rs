//! Frame analysis over the imported tables: the frame model, Macrobenchmark's and Perfetto's
//! frame metrics, FrameTimeline classification, blame and summaries.

pub mod blame;
pub mod buffers;
pub mod causes;
pub mod definitions;
pub mod doctor;
pub mod frame_model;
pub mod frame_timing;
pub mod frames;
pub mod glob;
pub mod grouped;
pub mod hwui;
pub mod index;
pub mod interactions;
pub mod inventory;
pub mod jank;
pub mod macrobenchmark;
pub mod max_tree;
pub mod monitor_contention_name;
pub mod named_slices;
pub mod perfetto_stats;
pub mod process_verdicts;
pub mod reconcile;
pub mod refresh;
pub mod report_model;
pub mod slice_name;
pub mod span_join;
pub mod sql_functions;
pub mod stdlib;
pub mod summary;
pub mod thread_state;
pub mod time_range;
pub mod trust;
pub mod units;
pub mod work_list;

use std::collections::{BTreeMap, HashSet};

use crate::store::android_version::{parse_fingerprint, sdk_for_release};
use crate::store::{MetaValue, Store, Upid};
use frame_model::Frame;
use index::Index;
use named_slices::NamedSlices;
use report_model::*;
use thread_state::ThreadStateIndex;
use units::{ms, ms_since};

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
    /// Only frames starting in this range (`--from` / `--to`).
    pub range: time_range::RangeSpec,
    /// `--interaction` globs make matching app sections interactions and keep only the
    /// frames of interactions whose label matches; the idle gap that ends a burst.
    pub interactions: interactions::InteractionOptions,
}

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
        sched: store.sched_slice_count() > 0,
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

#[allow(clippy::too_many_arguments)]
fn frame_report(
    idx: &Index<'_>,
    trace_start: i64,
    states: &ThreadStateIndex<'_>,
    f: &Frame,
    with_blame: bool,
    hwui: Option<hwui::HwuiFrame>,
    timing: &process_verdicts::FrameTiming,
    definitions: &definitions::FrameDefinitions,
    missed_vsyncs: Option<u32>,
    causes: Option<causes::CauseChain>,
) -> FrameReport {
    let t = f.timeline.as_ref();
    let janky = process_verdicts::janky(f, timing);
    FrameReport {
        frame_id: f.frame_id,
        layer: f.layer.clone(),
        ts: f.ts,
        ts_rel_ms: ms_since(f.ts, trace_start),
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
        blame: (with_blame && janky).then(|| blame::blame(idx, states, f, timing.budget_ns)),
        hwui,
        causes,
        budget_ms: ms(timing.budget_ns),
        budget_source: timing.budget_source,
        vsync_period_ms: (timing.period_ns as f64 / 1e4).round() / 100.0,
        refresh_hz: refresh::hz(timing.period_ns),
        vsync_period_source: timing.period_source,
        missed_vsyncs,
        definitions: definitions.clone(),
    }
}

/// The median of the frames' own budgets, for the process header.
fn median_budget(timing: &[process_verdicts::FrameTiming]) -> (i64, &'static str) {
    let mut b: Vec<i64> = timing.iter().map(|t| t.budget_ns).collect();
    if b.is_empty() {
        return (refresh::ASSUMED_PERIOD_NS, process_verdicts::BUDGET_ASSUMED);
    }
    b.sort_unstable();
    (
        b[b.len() / 2],
        "median of the frames' own budgets: each its expected surface frame, else its vsync period",
    )
}

/// What the main thread computes from the store alone while the frame database is built.
struct Ahead {
    vsync: refresh::VsyncTimeline,
    mb_inputs: std::collections::HashMap<Upid, frame_timing::MbInput>,
    lookups: Option<causes::context::Prebuilt>,
    /// Chain totals worked out while the database was still busy.
    early: causes::early::EarlyTotals,
}

/// The processes in the order the per-process loop takes them: most frames first.
fn largest_process_first(by_process: &std::collections::HashMap<Upid, Vec<Frame>>) -> Vec<Upid> {
    let mut v: Vec<(Upid, usize)> = by_process.iter().map(|(u, f)| (*u, f.len())).collect();
    v.sort_by_key(|&(u, n)| (std::cmp::Reverse(n), u));
    v.into_iter().map(|(u, _)| u).collect()
}

/// The janky frames, in the order the per-process loop takes them.
fn janky_frames_largest_process_first<'f>(
    by_process: &'f std::collections::HashMap<Upid, Vec<Frame>>,
    vsync: &'f refresh::VsyncTimeline,
) -> impl Iterator<Item = &'f Frame> {
    largest_process_first(by_process)
        .into_iter()
        .flat_map(|u| &by_process[&u])
        .filter(|f| process_verdicts::janky(f, &process_verdicts::timing(f, vsync)))
}

pub fn analyze(store: &Store, opts: &AnalyzeOptions, trace: &str) -> AnalyzeReport {
    // The stdlib frame tables (SQLite) need only the store: they are built on a second core
    // while this one works out the database's slice ids and the trace bounds (each handed
    // over before the database needs it), the frame model, the thread states and what else
    // needs only the store.
    let (bounds_to_db, bounds_for_db) = std::sync::mpsc::sync_channel(1);
    let bounds_for_db = std::sync::Mutex::new(bounds_for_db);
    let (ids_to_db, ids_for_db) = std::sync::mpsc::sync_channel(1);
    let ids_for_db = std::sync::Mutex::new(ids_for_db);
    let (db, bounds, range, idx, mut by_process, states, ahead) = std::thread::scope(|s| {
        let work = || {
            perfetto_stats::FrameDbWork::run(
                store,
                || ids_for_db.lock().ok()?.recv().ok(),
                || bounds_for_db.lock().ok()?.recv().ok(),
            )
        };
        // SQLite's parser recurses: a stack as large as the per-trace workers' own.
        let db = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(s, work);
        // Moved in, so that a panic here drops them and the database's thread stops waiting.
        let (ids_to_db, bounds_to_db) = (ids_to_db, bounds_to_db);
        // The database's slices are found among the named ones the index needs too: here,
        // because the database's side is the longer one (docs/speed.md, eleventh round).
        let named = NamedSlices::collect(store);
        let _ = ids_to_db.try_send(named.frame_db_ids(store));
        let bounds = store.bounds();
        let range = opts.range.resolve(bounds.0);
        // Never full: one message, received at most once.
        let _ = bounds_to_db.try_send((bounds, range));
        let idx = Index::with_named(store, named);
        let by_process = frames::build(&idx);
        // Every thread's states: the causes follow binder servers, lock owners and GC threads.
        let states = ThreadStateIndex::all(store);
        let mut ahead = Ahead {
            vsync: refresh::VsyncTimeline::new(store),
            mb_inputs: macrobenchmark::inputs_by_process(store, &idx.named),
            // Built on first use otherwise: only janky frames read them.
            lookups: match &db {
                Ok(h) if !h.is_finished() && !by_process.is_empty() => {
                    Some(causes::context::Prebuilt::build(&idx))
                }
                _ => None,
            },
            early: Default::default(),
        };
        // With several traces in flight the other core is theirs: no wait to fill. (The
        // lookups are built only while the database is busy.)
        if let (Ok(h), false) = (&db, crate::import::pipeline::several_loads()) {
            if let Some(lookups) = ahead.lookups.take() {
                let ctx = causes::context::Ctx::new(&idx, &states).with_prebuilt(Some(lookups));
                let janky = janky_frames_largest_process_first(&by_process, &ahead.vsync);
                // Shown for sure: every frame, or every frame of a process with no more
                // frames than the report explains.
                let shown = |f: &Frame| opts.all_frames || by_process[&f.upid].len() <= opts.top;
                ahead.early =
                    causes::early::EarlyTotals::work_out(&ctx, janky, shown, || !h.is_finished());
                ahead.lookups = ctx.into_prebuilt();
            }
        }
        let db = match db {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: build it here.
            Err(_) => work(),
        };
        (db, bounds, range, idx, by_process, states, ahead)
    });
    let trace_start = bounds.0;
    let perfetto_stats::FrameDbWork {
        conn: frame_db,
        stats: stdlib,
        cuj_frames,
    } = db;
    let trace_has_frames = !by_process.is_empty();
    let mut warnings = Vec::new();
    // The one place the range and --interaction select frames: everything below sees only
    // these.
    let (detected, mut membership) = interactions::summary::select(
        store,
        &idx.named,
        &mut by_process,
        range,
        &opts.interactions,
        frame_db.as_ref().ok(),
    );
    drop(frame_db);
    let detected = detected.unwrap_or_else(|e| {
        warnings.push(format!("interactions could not be detected: {e:#}"));
        Vec::new()
    });
    let (api, api_known) = api_level(store);
    let srcs = sources(store);
    let vsync = ahead.vsync;
    let frame_slices = !idx.do_frames.is_empty() || !idx.draw_frames.is_empty();
    let facts = trust::TraceFacts::from_store(
        store,
        &srcs,
        frame_slices,
        vsync.source != refresh::PeriodSource::Assumed,
    );
    let trace_trust = trust::Trust::of(trust::trace_reasons(&facts));
    if !api_known {
        warnings.push(format!(
            "the trace does not say the device's API level; assuming {api}"
        ));
    }
    let filtered = !opts.processes.is_empty() || opts.layer.is_some();
    let inventory = if filtered {
        inventory::list(&idx, &by_process)
    } else {
        Vec::new()
    };
    let wanted = largest_process_first(&by_process);
    let mb_inputs: std::collections::HashMap<Upid, _> = ahead
        .mb_inputs
        .into_iter()
        .map(|(u, i)| (u, i.within(range)))
        .collect();
    let stdlib = stdlib.unwrap_or_else(|e| {
        warnings.push(format!(
            "Perfetto stdlib frame stats could not be computed: {e:#}"
        ));
        Default::default()
    });
    let cuj_frames = cuj_frames.unwrap_or_else(|e| {
        warnings.push(format!(
            "CUJ frame boundaries could not be computed (blocking calls are summed over each cause window): {e:#}"
        ));
        Default::default()
    });
    let early = ahead.early;
    let cause_ctx = causes::context::Ctx::new(&idx, &states)
        .with_prebuilt(ahead.lookups)
        .with_cuj_frames(cuj_frames);
    // Processes are independent of one another: two threads take the next in turn (the
    // largest first), and the reports keep the order of `wanted`.
    let work: Vec<_> = wanted
        .into_iter()
        .map(|upid| {
            let frames = by_process.remove(&upid).unwrap_or_default();
            let member = membership.remove(&upid).unwrap_or_default();
            (upid, frames, member)
        })
        .collect();
    let one_process = |(upid, mut frames, mut member): (Upid, Vec<Frame>, _)| {
        if let Some(g) = &opts.layer {
            interactions::summary::retain_aligned(&mut frames, &mut member, |f, _| {
                f.layer.as_deref().is_some_and(|l| glob::glob(g, l))
            });
        }
        if frames.is_empty() {
            return None;
        }
        let p = &store.processes[upid as usize];
        let (name, name_source) =
            inventory::display_name(&idx, upid, &inventory::layer_names(&frames));
        let argv0 = store.opt_str(p.cmdline).and_then(|c| c.split(' ').next());
        if !matches_process(opts, p.pid, &[name.as_deref(), argv0]) {
            return None;
        }
        let v = process_verdicts::judge(
            &process_verdicts::Inputs {
                idx: &idx,
                upid,
                vsync: &vsync,
                stdlib: &stdlib,
                mb_input: mb_inputs.get(&upid),
                api,
                with_extras: opts.layer.is_none(),
            },
            &frames,
        );
        let periods: Vec<i64> = v.timing.iter().map(|t| t.period_ns).collect();
        let (budget_ns, budget_source) = median_budget(&v.timing);
        let mut layers = Vec::new();
        let mut groups: BTreeMap<Option<String>, Vec<usize>> = BTreeMap::new();
        for (i, f) in frames.iter().enumerate() {
            groups.entry(f.layer.clone()).or_default().push(i);
        }
        for (layer, ix) in &groups {
            let fs: Vec<&Frame> = ix.iter().map(|&i| &frames[i]).collect();
            let budgets: Vec<i64> = ix.iter().map(|&i| v.timing[i].budget_ns).collect();
            layers.push(summary::summarize(&idx, layer.as_deref(), &fs, &budgets));
        }
        layers.sort_by_key(|l| std::cmp::Reverse(l.frames));
        // A cause chain for every janky frame, and their aggregate.
        let janky: Vec<bool> = frames
            .iter()
            .zip(&v.timing)
            .map(|(f, t)| process_verdicts::janky(f, t))
            .collect();
        let worst_ix: Vec<usize> = process_verdicts::worst_order(&frames, &v)
            .into_iter()
            .take(opts.top)
            .collect();
        // Whole chains only where the report shows them: the worst frames, or every frame.
        let mut shown = vec![opts.all_frames; frames.len()];
        for &i in &worst_ix {
            shown[i] = true;
        }
        let chains = causes::chains_of(&cause_ctx, &frames, &janky, &shown, &early);
        let mut cause_agg = causes::Aggregate::default();
        for i in (0..frames.len()).filter(|&i| janky[i]) {
            cause_agg.add(frames[i].layer.as_deref(), chains.totals[i].as_ref());
        }
        let interactions = interactions::summary::summarize(
            &detected,
            &interactions::summary::ProcessFrames {
                frames: &frames,
                member: &member,
                defs: &v.defs,
                janky: &janky,
                chains: &chains.totals,
                trace_start,
            },
        );
        let report = |i: usize, with_blame: bool| {
            frame_report(
                &idx,
                trace_start,
                &states,
                &frames[i],
                with_blame,
                v.hwui.frames[i].clone(),
                &v.timing[i],
                &v.defs[i],
                v.missed_vsyncs[i],
                chains.whole[i].clone(),
            )
        };
        let worst = worst_ix.iter().map(|&i| report(i, true)).collect();
        let all_frames = if opts.all_frames {
            (0..frames.len())
                .map(|i| report(i, false))
                .filter(|r| !opts.only_janky || r.janky)
                .collect()
        } else {
            Vec::new()
        };
        let mut notes = Vec::new();
        if frames.iter().all(|f| f.timeline.is_none()) {
            notes.push("no FrameTimeline for this process: overrun and jank tags are not available; slow frames are judged by CPU time against each frame's vsync period".to_string());
        }
        if frames.iter().all(|f| f.ui.is_none()) {
            notes.push("no atrace doFrame/DrawFrame slices for this process: UI and CPU durations are not available".to_string());
        }
        let process_trust = trace_trust.with(trust::process_reasons(
            &trust::ProcessFacts {
                name: name.clone(),
                name_source,
                has_cmdline: p.cmdline.is_some(),
                frames: Some(frames.len()),
                frames_with_timeline: frames.iter().filter(|f| f.timeline.is_some()).count(),
                frames_with_ui: frames.iter().filter(|f| f.ui.is_some()).count(),
            },
            &facts,
        ));
        let process = ProcessReport {
            upid,
            pid: p.pid,
            name: name.clone(),
            name_source,
            frames: frames.len(),
            budget_ms: ms(budget_ns),
            budget_source,
            refresh_rates: v.refresh_rates.clone(),
            trust: process_trust,
            layers,
            macrobenchmark: v
                .mb
                .measured
                .as_ref()
                .map(|l| macrobenchmark::block_of(l, api)),
            perfetto_frame_stats: stdlib.by_process.get(&upid).cloned(),
            hwui: v.hwui.summary.clone().map(|mut h| {
                if api < 31 {
                    h.note.push_str(&format!(
                        "; this device (API {api}) ran an older JankTracker: the deadline path (Janky frames, Frame deadline missed) arrived in Android 12"
                    ));
                }
                h
            }),
            reconciliation: v.reconciliation.clone(),
            worst_frames: worst,
            causes: (cause_agg.janky_frames() > 0).then(|| cause_agg.summary()),
            interactions,
            all_frames,
            notes,
        };
        Some((process, periods))
    };
    let mut processes = Vec::new();
    let mut all_periods = Vec::new();
    for (report, periods) in work_list::map_in_order(work, 2, one_process)
        .into_iter()
        .flatten()
    {
        processes.push(report);
        all_periods.extend(periods);
    }
    let interaction_labels: Vec<String> = if opts.interactions.sections.is_empty() {
        Vec::new()
    } else {
        let set: std::collections::BTreeSet<&str> =
            detected.iter().map(|i| i.label.as_str()).collect();
        set.into_iter().map(str::to_string).collect()
    };
    let processes_with_frames = if filtered && processes.is_empty() {
        let mut wanted = opts.processes.clone();
        wanted.extend(opts.layer.clone());
        inventory::closest_first(inventory, &wanted)
    } else {
        Vec::new()
    };
    AnalyzeReport {
        schema: SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        metric_version: definitions::METRIC_VERSION,
        trace: trace.to_string(),
        trace_start_ns: trace_start,
        sources: srcs,
        api_level: Some(api),
        trust: trace_trust,
        refresh_rates: refresh::rates(all_periods),
        vsync_period_source: vsync.source,
        range: opts.range.report(bounds).map(|mut r| {
            r.trace_has_frames = trace_has_frames;
            r
        }),
        processes,
        processes_with_frames,
        interaction_labels,
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
