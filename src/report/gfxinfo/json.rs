//! The `frameprobe.gfxinfo/v1` JSON contract as serde structs (docs/gfxinfo.md). Windows
//! and frames are serialized while the dump is replayed, so a window of a million frames
//! never exists as a value.

use std::cell::RefCell;
use std::io::Write;

use serde::ser::{Error as _, SerializeSeq};
use serde::{Serialize, Serializer};

use super::printed_matches;
use crate::gfxinfo::jank_tracker::FrameVerdict;
use crate::gfxinfo::parser::{self, PrintedSummary, StartIntervalOrder, SummarySource};
use crate::gfxinfo::replay::{self, FrameReport, IntervalSource, ReplayOptions, WindowReport};
use crate::gfxinfo::summary::{Counter, Summary};

/// The JSON contract's version tag.
pub const SCHEMA: &str = "frameprobe.gfxinfo/v1";

/// The options the dump was replayed with, as given on the command line.
#[derive(Serialize)]
pub struct OptionsJson {
    pub app_offset_ns: Option<i64>,
    pub sf_offset_ns: Option<i64>,
    pub dequeue_forgiveness_ns: i64,
    pub frame_interval_ns: Option<i64>,
}

#[derive(Serialize)]
struct Doc<'a> {
    schema: &'static str,
    metric_version: u32,
    file: &'a str,
    options: OptionsJson,
    warnings: Vec<WarningJson<'a>>,
    windows: Windows<'a>,
}

#[derive(Serialize)]
struct WarningJson<'a> {
    line: usize,
    message: &'a str,
}

/// The 14 counters `dumpsys gfxinfo` prints, in its order.
#[derive(Serialize)]
struct Counters<T> {
    total_frames: T,
    janky_frames: T,
    janky_frames_legacy: T,
    missed_vsync: T,
    high_input_latency: T,
    slow_ui_thread: T,
    slow_bitmap_uploads: T,
    slow_issue_draw_commands: T,
    frame_deadline_missed: T,
    frame_deadline_missed_legacy: T,
    p50_ms: T,
    p90_ms: T,
    p95_ms: T,
    p99_ms: T,
}

impl<T: Copy> Counters<T> {
    fn from_fn(get: impl Fn(Counter) -> T) -> Self {
        // Counter::all() is in the printed order, which a summary unit test pins.
        let v: Vec<T> = Counter::all().into_iter().map(get).collect();
        Self {
            total_frames: v[0],
            janky_frames: v[1],
            janky_frames_legacy: v[2],
            missed_vsync: v[3],
            high_input_latency: v[4],
            slow_ui_thread: v[5],
            slow_bitmap_uploads: v[6],
            slow_issue_draw_commands: v[7],
            frame_deadline_missed: v[8],
            frame_deadline_missed_legacy: v[9],
            p50_ms: v[10],
            p90_ms: v[11],
            p95_ms: v[12],
            p99_ms: v[13],
        }
    }
}

/// GPU percentiles in ms (50, 90, 95, 99).
#[derive(Serialize)]
struct GpuPercentiles<T> {
    gpu_p50_ms: T,
    gpu_p90_ms: T,
    gpu_p95_ms: T,
    gpu_p99_ms: T,
}

impl<T: Copy> GpuPercentiles<T> {
    fn new(p: [T; 4]) -> Self {
        let [gpu_p50_ms, gpu_p90_ms, gpu_p95_ms, gpu_p99_ms] = p;
        Self {
            gpu_p50_ms,
            gpu_p90_ms,
            gpu_p95_ms,
            gpu_p99_ms,
        }
    }
}

/// The recomputed summary; histograms list non-empty buckets as [label ms, frames].
#[derive(Serialize)]
struct SummaryJson {
    #[serde(flatten)]
    counters: Counters<u32>,
    #[serde(flatten)]
    gpu: GpuPercentiles<u32>,
    histogram: Vec<[u32; 2]>,
    gpu_histogram: Vec<[u32; 2]>,
}

impl SummaryJson {
    fn new(s: &Summary) -> Self {
        let nonzero = |h: &[crate::gfxinfo::profile_data::HistogramEntry]| {
            h.iter()
                .filter(|e| e.frame_count > 0)
                .map(|e| [e.render_time_ms, e.frame_count])
                .collect()
        };
        Self {
            counters: Counters::from_fn(|c| s.get(c)),
            gpu: GpuPercentiles::new(s.gpu_percentiles_ms),
            histogram: nonzero(&s.histogram),
            gpu_histogram: nonzero(&s.gpu_histogram),
        }
    }
}

/// The summary HWUI printed: null where the dump lacks the line.
#[derive(Serialize)]
struct PrintedJson {
    line: usize,
    stats_since_ns: Option<u64>,
    filtered: bool,
    #[serde(flatten)]
    counters: Counters<Option<u32>>,
    #[serde(flatten)]
    gpu: GpuPercentiles<Option<u32>>,
    histogram: Option<Vec<[u32; 2]>>,
    gpu_histogram: Option<Vec<[u32; 2]>>,
}

impl PrintedJson {
    fn new(p: &PrintedSummary) -> Self {
        let nonzero = |h: &Option<Vec<(u32, u32)>>| {
            h.as_ref()
                .map(|h| h.iter().filter(|e| e.1 > 0).map(|e| [e.0, e.1]).collect())
        };
        Self {
            line: p.line,
            stats_since_ns: p.stats_since_ns,
            filtered: p.filtered,
            counters: Counters::from_fn(|c| p.get(c)),
            gpu: GpuPercentiles::new(p.gpu_percentiles_ms),
            histogram: nonzero(&p.histogram),
            gpu_histogram: nonzero(&p.gpu_histogram),
        }
    }
}

#[derive(Serialize)]
struct IntervalJson {
    source: &'static str,
    ns: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    header_pitfall: Option<bool>,
    /// Present (possibly null) for the column source only.
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_by_data: Option<Option<bool>>,
}

impl IntervalJson {
    fn new(i: IntervalSource) -> Self {
        let given = |source, ns| Self {
            source,
            ns: Some(ns),
            header_pitfall: None,
            decided_by_data: None,
        };
        match i {
            IntervalSource::Column(order) => Self {
                source: "column",
                ns: None,
                header_pitfall: Some(matches!(order, StartIntervalOrder::Swapped { .. })),
                decided_by_data: Some(match order {
                    StartIntervalOrder::Swapped { decided_by_data }
                    | StartIntervalOrder::AsNamed { decided_by_data } => Some(decided_by_data),
                    StartIntervalOrder::NotApplicable => None,
                }),
            },
            IntervalSource::Given(ns) => given("given", ns),
            IntervalSource::Inferred(ns) => given("inferred", ns),
            IntervalSource::Default(ns) => given("default", ns),
        }
    }
}

/// A window with its frames streamed from the replay.
#[derive(Serialize)]
struct WindowJson<'a> {
    window: &'a str,
    process: Option<&'a str>,
    pid: Option<u32>,
    profiledata_line: usize,
    columns: Option<usize>,
    rows: usize,
    bad_rows: usize,
    judged_frames: usize,
    frame_interval: Option<IntervalJson>,
    problem: Option<&'a str>,
    summary: Option<SummaryJson>,
    hwui_summary: Option<PrintedJson>,
    hwui_summary_source: Option<&'static str>,
    hwui_summary_covers_rows: bool,
    hwui_summary_matches: Option<bool>,
    frames: Frames<'a>,
}

impl<'a> WindowJson<'a> {
    fn new(w: &'a WindowReport, frames: Frames<'a>) -> Self {
        Self {
            window: &w.window,
            process: w.process.as_deref(),
            pid: w.pid,
            profiledata_line: w.block_line,
            columns: w.column_count,
            rows: w.rows,
            bad_rows: w.bad_rows,
            judged_frames: w.judged,
            frame_interval: w.interval.map(IntervalJson::new),
            problem: w.problem.as_deref(),
            summary: w.summary.as_ref().map(SummaryJson::new),
            hwui_summary: w.printed.as_ref().map(PrintedJson::new),
            hwui_summary_source: w.printed_source.map(|s| match s {
                SummarySource::Window => "window",
                SummarySource::Process => "process",
            }),
            hwui_summary_covers_rows: w.printed_covers_rows,
            hwui_summary_matches: printed_matches(w),
            frames,
        }
    }
}

#[derive(Serialize)]
struct ReasonJson {
    jank_type: &'static str,
    duration_ns: i64,
    threshold_ns: i64,
}

/// JankTracker's verdict on a frame; the defaults (not counted, not janky, no types) for a
/// frame it never judged, with the verdict-only keys left out.
#[derive(Serialize)]
struct VerdictJson {
    counted: bool,
    janky: bool,
    janky_legacy: bool,
    jank_types: Vec<&'static str>,
    reasons: Vec<ReasonJson>,
    #[serde(flatten)]
    detail: Option<VerdictDetail>,
}

#[derive(Serialize)]
struct VerdictDetail {
    exempt: bool,
    triple_buffered: bool,
    triple_buffered_legacy: bool,
    davey: bool,
    total_duration_ns: Option<i64>,
    legacy_duration_ns: i64,
    dequeue_forgiven_ns: i64,
    deadline_ns: Option<i64>,
    gpu_draw_time_ns: Option<i64>,
}

impl VerdictJson {
    fn new(v: Option<&FrameVerdict>) -> Self {
        let Some(v) = v else {
            return Self {
                counted: false,
                janky: false,
                janky_legacy: false,
                jank_types: Vec::new(),
                reasons: Vec::new(),
                detail: None,
            };
        };
        Self {
            counted: v.counted,
            janky: v.janky,
            janky_legacy: v.janky_legacy(),
            jank_types: v.jank_types.iter().map(|t| t.key()).collect(),
            reasons: v
                .causes
                .iter()
                .filter(|c| c.fired)
                .map(|c| ReasonJson {
                    jank_type: c.jank_type.key(),
                    duration_ns: c.duration_ns,
                    threshold_ns: c.threshold_ns,
                })
                .collect(),
            detail: Some(VerdictDetail {
                exempt: v.exempt,
                triple_buffered: v.triple_buffered,
                triple_buffered_legacy: v.legacy.triple_buffered(),
                davey: v.davey,
                total_duration_ns: v.counted.then_some(v.total_duration_ns),
                legacy_duration_ns: v.legacy.duration_ns,
                dequeue_forgiven_ns: v.legacy.forgiven_ns,
                deadline_ns: v.deadline_ns,
                gpu_draw_time_ns: v.gpu_draw_time_ns,
            }),
        }
    }
}

#[derive(Serialize)]
struct FrameMetricsJson {
    unknown_delay_ns: i64,
    input_handling_ns: i64,
    animation_ns: i64,
    layout_measure_ns: i64,
    draw_ns: i64,
    sync_ns: i64,
    command_issue_ns: i64,
    swap_buffers_ns: i64,
    total_ns: i64,
    gpu_ns: Option<i64>,
    deadline_ns: Option<i64>,
    first_draw_frame: bool,
}

#[derive(Serialize)]
struct JankStatsJson {
    ui_duration_ns: i64,
    jank_threshold_ns: i64,
    is_jank: bool,
    frame_overrun_ns: Option<i64>,
}

#[derive(Serialize)]
struct FrameJson {
    line: usize,
    vsync_id: Option<i64>,
    intended_vsync_ns: i64,
    flags: i64,
    frame_interval_ns: i64,
    judged: bool,
    not_judged_reason: Option<&'static str>,
    #[serde(flatten)]
    verdict: VerdictJson,
    frame_metrics: Option<FrameMetricsJson>,
    jank_stats: Option<JankStatsJson>,
}

impl FrameJson {
    fn new(f: &FrameReport) -> Self {
        Self {
            line: f.line,
            vsync_id: f.vsync_id,
            intended_vsync_ns: f.intended_vsync_ns,
            flags: f.flags,
            frame_interval_ns: f.frame_interval_ns,
            judged: f.verdict.is_some(),
            not_judged_reason: f.not_judged.map(|n| n.key()),
            verdict: VerdictJson::new(f.verdict.as_ref()),
            frame_metrics: f.metrics.as_ref().map(|x| FrameMetricsJson {
                unknown_delay_ns: x.unknown_delay_ns,
                input_handling_ns: x.input_handling_ns,
                animation_ns: x.animation_ns,
                layout_measure_ns: x.layout_measure_ns,
                draw_ns: x.draw_ns,
                sync_ns: x.sync_ns,
                command_issue_ns: x.command_issue_ns,
                swap_buffers_ns: x.swap_buffers_ns,
                total_ns: x.total_ns,
                gpu_ns: x.gpu_ns,
                deadline_ns: x.deadline_ns,
                first_draw_frame: x.first_draw_frame,
            }),
            jank_stats: f.jank_stats.as_ref().map(|j| JankStatsJson {
                ui_duration_ns: j.ui_duration_ns,
                jank_threshold_ns: j.jank_threshold_ns,
                is_jank: j.is_jank,
                frame_overrun_ns: j.frame_overrun_ns,
            }),
        }
    }
}

/// Every window, each replayed once for its summary and again for its frames.
struct Windows<'a> {
    dump: &'a parser::Dump,
    opts: &'a ReplayOptions,
    summary_only: bool,
}

impl Serialize for Windows<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.dump.windows.len()))?;
        for win in &self.dump.windows {
            let w = replay::replay_window_each(win, self.opts, &mut |_| {});
            let frames = Frames {
                win: (!self.summary_only).then_some(win),
                opts: self.opts,
            };
            seq.serialize_element(&WindowJson::new(&w, frames))?;
        }
        seq.end()
    }
}

/// A window's frames, serialized one at a time as the replay hands them out.
struct Frames<'a> {
    win: Option<&'a parser::WindowDump>,
    opts: &'a ReplayOptions,
}

impl Serialize for Frames<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        let Some(win) = self.win else {
            return seq.end();
        };
        let failed = RefCell::new(None);
        replay::replay_window_each(win, self.opts, &mut |f| {
            if failed.borrow().is_none() {
                if let Err(e) = seq.serialize_element(&FrameJson::new(&f)) {
                    *failed.borrow_mut() = Some(e.to_string());
                }
            }
        });
        if let Some(e) = failed.into_inner() {
            return Err(S::Error::custom(e));
        }
        seq.end()
    }
}

/// The whole document, pretty-printed and streamed to `out`.
pub fn write(
    out: &mut dyn Write,
    file: &str,
    options: OptionsJson,
    dump: &parser::Dump,
    opts: &ReplayOptions,
    summary_only: bool,
) -> anyhow::Result<()> {
    let doc = Doc {
        schema: SCHEMA,
        metric_version: crate::analysis::definitions::METRIC_VERSION,
        file,
        options,
        warnings: dump
            .diagnostics
            .iter()
            .map(|d| WarningJson {
                line: d.line,
                message: &d.message,
            })
            .collect(),
        windows: Windows {
            dump,
            opts,
            summary_only,
        },
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)?;
    Ok(())
}
