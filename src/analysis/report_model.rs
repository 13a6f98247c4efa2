//! The analyze report: plain serialisable structs (the JSON contract
//! `frameprobe.analyze/v1`), built by [`super::analyze`].

use serde::Serialize;

use super::blame::Blame;
use super::causes::{CauseChain, CausesSummary};
use super::definitions::FrameDefinitions;
use super::frame_model::BufferMatch;
use super::hwui::{HwuiFrame, HwuiSummary};
use super::inventory::FrameProcess;
use super::reconcile::Reconciliation;
use super::refresh::{PeriodSource, RefreshRate};
use super::summary::{Dist, LayerSummary};
use super::time_range::RangeReport;
use super::trust::Trust;

pub const SCHEMA: &str = "frameprobe.analyze/v1";

#[derive(Debug, Clone, Serialize, Default)]
pub struct Sources {
    pub atrace: bool,
    pub frame_timeline: bool,
    pub frame_tracer: bool,
    pub sched: bool,
    pub process_tree: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct MacrobenchmarkBlock {
    #[serde(rename = "frameCount")]
    pub frame_count: usize,
    #[serde(rename = "frameDurationCpuMs")]
    pub frame_duration_cpu_ms: Option<Dist>,
    #[serde(rename = "frameDurationUiMs")]
    pub frame_duration_ui_ms: Option<Dist>,
    /// Needs API 31+ (FrameTimeline).
    #[serde(rename = "frameOverrunMs")]
    pub frame_overrun_ms: Option<Dist>,
    #[serde(rename = "frameDurationFullMs")]
    pub frame_duration_full_ms: Option<Dist>,
    pub api_level: u32,
    /// Why Macrobenchmark would have failed or returned nothing.
    pub problem: Option<String>,
}

/// Perfetto stdlib `android_frame_stats` counts for the process's frames.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PerfettoFrameStats {
    pub frames: usize,
    pub was_jank: usize,
    pub was_slow_frame: usize,
    pub was_big_jank: usize,
    pub was_huge_jank: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrameReport {
    pub frame_id: Option<i64>,
    pub layer: Option<String>,
    pub ts: i64,
    /// Milliseconds from the trace start (`trace_start()`, where Perfetto UI's time axis
    /// starts).
    pub ts_rel_ms: f64,
    pub dur_ms: Option<f64>,
    pub ui_ms: Option<f64>,
    pub cpu_ms: Option<f64>,
    pub overrun_ms: Option<f64>,
    pub jank_tag: Option<String>,
    pub jank_type: Option<String>,
    pub present_type: Option<String>,
    pub on_time_finish: Option<bool>,
    pub gpu_composition: Option<bool>,
    pub display_frame_token: Option<i64>,
    pub display_jank_tag: Option<String>,
    pub janky: bool,
    pub do_frame_slice_id: Option<u32>,
    pub draw_frame_slice_id: Option<u32>,
    pub buffer: Option<BufferMatch>,
    pub blame: Option<Blame>,
    /// HWUI JankTracker's verdict on the frame rebuilt from atrace; null without a complete
    /// doFrame and DrawFrame.
    pub hwui: Option<HwuiFrame>,
    /// The cause chain over the frame's window; janky frames only (null otherwise, or when
    /// the frame has no complete window).
    pub causes: Option<CauseChain>,
    /// The frame's own budget: its expected surface frame (FrameTimeline), else its vsync
    /// period.
    pub budget_ms: f64,
    pub budget_source: &'static str,
    /// The vsync period the frame ran at, its refresh rate and where the period came from.
    pub vsync_period_ms: f64,
    pub refresh_hz: f64,
    pub vsync_period_source: PeriodSource,
    /// Whole vsyncs missed: ceil(overrun / vsync period); null without an overrun.
    pub missed_vsyncs: Option<u32>,
    /// Every definition's verdict with its rule ids.
    pub definitions: FrameDefinitions,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProcessReport {
    pub upid: u32,
    pub pid: i64,
    pub name: Option<String>,
    /// Where the name came from: "process" (process tree / ftrace) or "layer" (guessed).
    pub name_source: Option<&'static str>,
    pub frames: usize,
    /// The median of the frames' own budgets (each frame is judged against its own).
    pub budget_ms: f64,
    pub budget_source: &'static str,
    /// Frames per refresh rate.
    pub refresh_rates: Vec<RefreshRate>,
    pub trust: Trust,
    pub layers: Vec<LayerSummary>,
    pub macrobenchmark: Option<MacrobenchmarkBlock>,
    pub perfetto_frame_stats: Option<PerfettoFrameStats>,
    /// HWUI JankTracker counters over the frames rebuilt from atrace (an approximation);
    /// null when no frame has a complete doFrame and DrawFrame.
    pub hwui: Option<HwuiSummary>,
    /// Each definition's count and denominator, for the process then for each layer, and the
    /// frames they disagree on with the reason.
    pub reconciliation: Vec<Reconciliation>,
    pub worst_frames: Vec<FrameReport>,
    /// Top causes across the process's janky frames; null when it has none.
    pub causes: Option<CausesSummary>,
    /// The process's interactions with analysed frames, in time order (see README,
    /// "Interactions").
    pub interactions: Vec<super::interactions::summary::InteractionReport>,
    /// Filled only when every frame is requested (`frames` command).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub all_frames: Vec<FrameReport>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AnalyzeReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    /// The version of the frame definitions behind the numbers (see README, "Metric version").
    pub metric_version: u32,
    pub trace: String,
    /// `trace_start()`: the first timestamp of the trace, by trace_processor's rule. Tables
    /// show frame times from it.
    pub trace_start_ns: i64,
    pub sources: Sources,
    pub api_level: Option<u32>,
    /// The trace's trust grade (each process has its own, which includes these reasons).
    pub trust: Trust,
    /// Frames of the reported processes per refresh rate, and where the periods came from.
    pub refresh_rates: Vec<RefreshRate>,
    pub vsync_period_source: PeriodSource,
    /// The analysed range (`--from` / `--to`); absent without one. Every frame figure
    /// counts only the frames starting in it; trust and sources are the whole trace's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<RangeReport>,
    pub processes: Vec<ProcessReport>,
    /// When a --process/--layer filter matched nothing: the processes that have frames,
    /// closest names first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub processes_with_frames: Vec<FrameProcess>,
    /// With `--interaction`: the labels of every interaction the trace has (sorted), so a
    /// filter that matched nothing can say what there is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub interaction_labels: Vec<String>,
    pub warnings: Vec<String>,
}
