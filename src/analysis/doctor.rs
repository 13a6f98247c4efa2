//! `frameprobe doctor`: what a trace holds for frame analysis — its duration, device and API
//! level, refresh rates, which frame data sources are present or missing (and whether the
//! config asked for them), what each missing one costs the analysis with the Perfetto trace
//! config snippet (textproto) that adds it, the other data it carries, the processes with
//! frames and their layers, and the trust grade.

use serde::Serialize;

use super::definitions::METRIC_VERSION;
use super::frames;
use super::index::Index;
use super::inventory::{self, FrameProcess};
use super::refresh::{self, PeriodSource, RefreshRate, VsyncTimeline};
use super::trust::{self, Trust};
use crate::store::trace_info::ConfigInfo;
use crate::store::{MetaValue, Store};
use crate::trace::fields as f;

pub const SCHEMA: &str = "frameprobe.doctor/v1";

/// The frame data sources doctor checks, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceId {
    FrameTimeline,
    FrameTracer,
    AtraceView,
    Atrace,
    Sched,
    ProcessTree,
    ClockSnapshot,
}

impl SourceId {
    pub const ALL: [SourceId; 7] = [
        SourceId::FrameTimeline,
        SourceId::FrameTracer,
        SourceId::AtraceView,
        SourceId::Atrace,
        SourceId::Sched,
        SourceId::ProcessTree,
        SourceId::ClockSnapshot,
    ];

    /// The id as in JSON.
    pub fn key(self) -> &'static str {
        match self {
            SourceId::FrameTimeline => "frame_timeline",
            SourceId::FrameTracer => "frame_tracer",
            SourceId::AtraceView => "atrace_view",
            SourceId::Atrace => "atrace",
            SourceId::Sched => "sched",
            SourceId::ProcessTree => "process_tree",
            SourceId::ClockSnapshot => "clock_snapshot",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SourceId::FrameTimeline => "FrameTimeline (SurfaceFlinger expected/actual frames)",
            SourceId::FrameTracer => "FrameTracer (graphics_frame_event buffer phases)",
            SourceId::AtraceView => {
                "atrace view/gfx frame slices (Choreographer#doFrame, DrawFrame)"
            }
            SourceId::Atrace => "atrace (userspace trace sections)",
            SourceId::Sched => "scheduling (sched_switch / compact sched)",
            SourceId::ProcessTree => "process tree (process names and command lines)",
            SourceId::ClockSnapshot => "clock snapshots",
        }
    }

    /// What the analysis loses without the source.
    fn cost(self) -> &'static str {
        match self {
            SourceId::FrameTimeline => "no jank tags, present types, deadlines or overrun: no FrameTimeline, Perfetto stdlib or missed-vsync verdicts, no Macrobenchmark frameOverrunMs (on API 31+ Macrobenchmark fails without it); budgets fall back to the vsync period and frames come from doFrame/DrawFrame alone",
            SourceId::FrameTracer => "no buffer match: HWUI's GPU completion falls back to DrawFrame end, blame has no GPU fence wait or SurfaceFlinger latch-to-present, and there is no present cadence",
            SourceId::AtraceView => "no UI-thread or RenderThread times: no HWUI, Macrobenchmark or Vitals verdicts, no Perfetto stdlib CPU time, and blame cannot split the frame; frames come from FrameTimeline alone",
            SourceId::Atrace => "no trace sections at all: blame has no hot spots and no doFrame/DrawFrame",
            SourceId::Sched => "no thread states: blame cannot tell whether the UI thread or RenderThread ran, waited for a CPU or slept",
            SourceId::ProcessTree => "process names come from 15-character kernel comms or are guessed from layer names, so --process by package name can miss and Macrobenchmark's package match may fail",
            SourceId::ClockSnapshot => "timestamps of clocks other than the trace clock (SurfaceFlinger writes MONOTONIC) cannot be aligned and their events are dropped",
        }
    }

    /// The trace config snippet (textproto) that adds the source.
    fn config(self) -> Option<&'static str> {
        Some(match self {
            SourceId::FrameTimeline => {
                "data_sources {\n  config {\n    name: \"android.surfaceflinger.frametimeline\"\n  }\n}\n"
            }
            SourceId::FrameTracer => {
                "data_sources {\n  config {\n    name: \"android.surfaceflinger.frame\"\n  }\n}\n"
            }
            SourceId::AtraceView => "data_sources {\n  config {\n    name: \"linux.ftrace\"\n    ftrace_config {\n      atrace_categories: \"gfx\"\n      atrace_categories: \"view\"\n    }\n  }\n}\n",
            SourceId::Atrace => "data_sources {\n  config {\n    name: \"linux.ftrace\"\n    ftrace_config {\n      atrace_apps: \"*\"\n    }\n  }\n}\n",
            SourceId::Sched => "data_sources {\n  config {\n    name: \"linux.ftrace\"\n    ftrace_config {\n      ftrace_events: \"sched/sched_switch\"\n      ftrace_events: \"sched/sched_waking\"\n      ftrace_events: \"power/suspend_resume\"\n    }\n  }\n}\n",
            SourceId::ProcessTree => "data_sources {\n  config {\n    name: \"linux.process_stats\"\n    process_stats_config {\n      scan_all_processes_on_start: true\n    }\n  }\n}\n",
            SourceId::ClockSnapshot => return None,
        })
    }

    /// Whether the trace config asked for the source.
    fn requested(self, c: &ConfigInfo) -> bool {
        let ds = |n: &str| c.data_sources.iter().any(|d| d == n);
        match self {
            SourceId::FrameTimeline => ds("android.surfaceflinger.frametimeline"),
            SourceId::FrameTracer => ds("android.surfaceflinger.frame"),
            SourceId::AtraceView => c
                .atrace_categories
                .iter()
                .any(|a| a == "view" || a == "gfx"),
            SourceId::Atrace => !c.atrace_categories.is_empty() || !c.atrace_apps.is_empty(),
            // The atrace category "sched" enables sched_switch too.
            SourceId::Sched => {
                c.ftrace_events
                    .iter()
                    .any(|e| e == "sched/sched_switch" || e == "sched_switch" || e == "sched/*")
                    || c.atrace_categories.iter().any(|a| a == "sched")
            }
            SourceId::ProcessTree => ds("linux.process_stats"),
            SourceId::ClockSnapshot => true,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SourceStatus {
    pub id: SourceId,
    pub name: &'static str,
    pub present: bool,
    /// What was found (counts), or what was looked for.
    pub evidence: String,
    /// Whether the trace config asked for it (null without a config in the trace).
    pub requested: Option<bool>,
    /// When missing: what the analysis loses.
    pub cost: Option<&'static str>,
    /// When missing: the trace config snippet that adds it.
    pub config: Option<&'static str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OtherData {
    pub packet: String,
    pub field: u32,
    pub packets: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Device {
    pub build_fingerprint: Option<String>,
    pub api_level: u32,
    pub api_level_known: bool,
    pub manufacturer: Option<String>,
    pub soc_model: Option<String>,
    pub kernel_release: Option<String>,
    pub machine: Option<String>,
    pub tracing_service_version: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    pub metric_version: u32,
    pub trace: String,
    pub packets: u64,
    pub duration_ms: Option<f64>,
    pub device: Device,
    pub refresh_rates: Vec<RefreshRate>,
    pub vsync_period_source: PeriodSource,
    pub sources: Vec<SourceStatus>,
    /// Every missing source's snippet in one `data_sources` list (ftrace pieces merged).
    pub config_to_add: Option<String>,
    pub other_data: Vec<OtherData>,
    /// atrace / ftrace events the recording failed to enable.
    pub setup_errors: Vec<String>,
    pub processes: Vec<FrameProcess>,
    pub trust: Trust,
}

/// TracePacket payload names for the "other data" list (fields doctor reports as sources
/// or that only describe the recording are left out).
const OTHER_PACKETS: [(u32, &str); 23] = [
    (7, "sys_stats"),
    (9, "process_stats"),
    (11, "track_event"),
    (37, "profile_packet"),
    (38, "battery"),
    (39, "android_log"),
    (40, "power_rails"),
    (47, "packages_list"),
    (52, "gpu_counter_event"),
    (53, "gpu_render_stage_event"),
    (60, "track_descriptor"),
    (62, "vulkan_memory_event"),
    (66, "perf_sample"),
    (70, "initial_display_state"),
    (71, "gpu_mem_total_event"),
    (78, "ui_state"),
    (83, "android_game_intervention_list"),
    (84, "statsd_atom"),
    (86, "android_system_property"),
    (89, "trace_uuid"),
    (91, "entity_state_residency"),
    (128, "gpu_info"),
    (135, "stack_sample"),
];
/// Fields doctor reports elsewhere (sources, device, recording health).
const KNOWN: [u32; 13] = [0, 1, 2, 6, 33, 34, 35, 36, 45, 57, 69, 76, 87];

fn meta_str(store: &Store, key: &str) -> Option<String> {
    match store.metadata.get(key) {
        Some(MetaValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// Counts of frame slices by name on any thread: (doFrame, DrawFrame, any thread slice).
fn atrace_counts(store: &Store) -> (usize, usize, usize) {
    let mut kind = vec![0u8; store.strings.len()];
    for (k, n) in kind.iter_mut().zip(store.strings.iter()) {
        *k = if n.starts_with("Choreographer#doFrame") {
            1
        } else if n.starts_with("DrawFrame") {
            2
        } else {
            0
        };
    }
    let (mut d, mut r, mut all) = (0, 0, 0);
    for s in &store.slices {
        if !matches!(
            store.tracks[s.track_id as usize].scope,
            crate::store::TrackScope::Thread(_)
        ) {
            continue;
        }
        all += 1;
        match s.name.map(|n| kind[n.index() as usize]) {
            Some(1) => d += 1,
            Some(2) => r += 1,
            _ => {}
        }
    }
    (d, r, all)
}

/// Each frame data source: present or missing, what a missing one costs and its config.
pub fn source_statuses(store: &Store) -> Vec<SourceStatus> {
    let info = &store.trace_info;
    let (do_frames, draw_frames, sections) = atrace_counts(store);
    let ft = &store.frame_timeline;
    let surface = ft
        .iter()
        .filter(|r| r.actual && r.surface_frame_token.is_some())
        .count();
    let display = ft
        .iter()
        .filter(|r| r.actual && r.surface_frame_token.is_none())
        .count();
    let config = info.config.as_ref();
    // A source made of one packet kind: present when the trace has any.
    let packets = |field: u32, kind: &str| {
        let n = info.packets_of(field);
        (n > 0, plural(n as usize, &format!("{kind} packet")))
    };
    SourceId::ALL
        .iter()
        .map(|&id| {
            let (present, evidence) = match id {
                SourceId::FrameTimeline => {
                    let (present, n) = packets(f::FRAME_TIMELINE_EVENT, "frame_timeline_event");
                    let frames = format!(
                        "{}, {}",
                        plural(surface, "actual surface frame"),
                        plural(display, "actual display frame")
                    );
                    (present, format!("{n}: {frames}"))
                }
                SourceId::FrameTracer => packets(f::GRAPHICS_FRAME_EVENT, "graphics_frame_event"),
                SourceId::AtraceView => (
                    do_frames + draw_frames > 0,
                    format!(
                        "{}, {}",
                        plural(do_frames, "Choreographer#doFrame slice"),
                        plural(draw_frames, "DrawFrame slice")
                    ),
                ),
                SourceId::Atrace => {
                    let mut e = plural(sections, "thread slice");
                    if let Some(c) = config {
                        e.push_str(&format!(
                            "; config: atrace_categories [{}], atrace_apps [{}]",
                            c.atrace_categories.join(", "),
                            c.atrace_apps.join(", ")
                        ));
                    }
                    (sections > 0, e)
                }
                SourceId::Sched => (
                    store.sched_slice_count() > 0,
                    plural(store.sched_slice_count(), "sched_switch event"),
                ),
                SourceId::ProcessTree => packets(f::PROCESS_TREE, "process_tree"),
                SourceId::ClockSnapshot => packets(f::CLOCK_SNAPSHOT, "clock_snapshot"),
            };
            SourceStatus {
                id,
                name: id.name(),
                present,
                evidence,
                requested: config.map(|c| id.requested(c)),
                cost: (!present).then(|| id.cost()),
                config: if present { None } else { id.config() },
            }
        })
        .collect()
}

/// One config fragment adding every missing source: the ftrace pieces in one linux.ftrace.
pub fn combined_config(missing: &[SourceId]) -> Option<String> {
    let mut ftrace: Vec<&str> = Vec::new();
    let mut out = String::new();
    for id in missing {
        match id {
            SourceId::AtraceView => {
                ftrace.extend(["atrace_categories: \"gfx\"", "atrace_categories: \"view\""])
            }
            SourceId::Atrace => ftrace.push("atrace_apps: \"*\""),
            SourceId::Sched => ftrace.extend([
                "ftrace_events: \"sched/sched_switch\"",
                "ftrace_events: \"sched/sched_waking\"",
                "ftrace_events: \"power/suspend_resume\"",
            ]),
            other => {
                if let Some(c) = other.config() {
                    out.push_str(c);
                }
            }
        }
    }
    if !ftrace.is_empty() {
        out.push_str(
            "data_sources {\n  config {\n    name: \"linux.ftrace\"\n    ftrace_config {\n",
        );
        for l in ftrace {
            out.push_str("      ");
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("    }\n  }\n}\n");
    }
    (!out.is_empty()).then_some(out)
}

pub fn doctor(store: &Store, trace: &str, packets: u64) -> DoctorReport {
    let idx = Index::new(store);
    let by_process = frames::build(&idx);
    let vsync = VsyncTimeline::new(store);
    let srcs = super::sources(store);
    let frame_slices = !idx.do_frames.is_empty() || !idx.draw_frames.is_empty();
    let facts = trust::TraceFacts::from_store(
        store,
        &srcs,
        frame_slices,
        vsync.source != PeriodSource::Assumed,
    );
    let periods = by_process
        .values()
        .flatten()
        .map(|f| super::process_verdicts::timing(f, &vsync).period_ns);
    let sources = source_statuses(store);
    let missing: Vec<SourceId> = sources
        .iter()
        .filter(|s| !s.present)
        .map(|s| s.id)
        .collect();
    let other_data = store
        .trace_info
        .packet_kinds
        .iter()
        .filter(|(k, _)| !KNOWN.contains(k))
        .map(|(&k, &n)| OtherData {
            packet: OTHER_PACKETS
                .iter()
                .find(|p| p.0 == k)
                .map_or_else(|| format!("field {k}"), |p| p.1.to_string()),
            field: k,
            packets: n,
        })
        .collect();
    let (lo, hi) = store.bounds();
    let (api, api_known) = super::api_level(store);
    DoctorReport {
        schema: SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        metric_version: METRIC_VERSION,
        trace: trace.to_string(),
        packets,
        duration_ms: (hi > lo).then(|| ((hi - lo) as f64 / 1e4).round() / 100.0),
        device: Device {
            build_fingerprint: meta_str(store, "android_build_fingerprint"),
            api_level: api,
            api_level_known: api_known,
            manufacturer: meta_str(store, "android_device_manufacturer"),
            soc_model: meta_str(store, "android_soc_model"),
            kernel_release: meta_str(store, "system_release"),
            machine: meta_str(store, "system_machine"),
            tracing_service_version: meta_str(store, "tracing_service_version"),
        },
        refresh_rates: refresh::rates(periods),
        vsync_period_source: vsync.source,
        config_to_add: combined_config(&missing),
        sources,
        other_data,
        setup_errors: store.trace_info.ftrace_setup_errors.clone(),
        processes: inventory::list(&idx, &by_process),
        trust: Trust::of(trust::trace_reasons(&facts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_missing_source_but_clocks_has_a_snippet() {
        for id in SourceId::ALL {
            assert_eq!(
                id.config().is_some(),
                id != SourceId::ClockSnapshot,
                "{id:?}"
            );
            assert!(!id.cost().is_empty());
            assert_eq!(serde_json::to_value(id).unwrap(), id.key());
        }
    }

    #[test]
    fn ftrace_pieces_merge_into_one_data_source() {
        let c = combined_config(&[
            SourceId::FrameTimeline,
            SourceId::AtraceView,
            SourceId::Sched,
        ])
        .unwrap();
        assert_eq!(c.matches("name: \"linux.ftrace\"").count(), 1);
        assert!(c.contains("name: \"android.surfaceflinger.frametimeline\""));
        assert!(c.contains("atrace_categories: \"view\""));
        assert!(c.contains("ftrace_events: \"sched/sched_switch\""));
        // Balanced braces: a valid textproto fragment.
        assert_eq!(c.matches('{').count(), c.matches('}').count());
        assert_eq!(combined_config(&[SourceId::ClockSnapshot]), None);
    }

    #[test]
    fn requested_sources_follow_the_config() {
        let c = ConfigInfo {
            data_sources: vec![
                "linux.ftrace".into(),
                "android.surfaceflinger.frametimeline".into(),
            ],
            atrace_categories: vec!["view".into()],
            ftrace_events: vec!["sched/sched_switch".into()],
            ..Default::default()
        };
        assert!(SourceId::FrameTimeline.requested(&c));
        assert!(!SourceId::FrameTracer.requested(&c));
        assert!(SourceId::AtraceView.requested(&c));
        assert!(SourceId::Sched.requested(&c));
        assert!(!SourceId::ProcessTree.requested(&c));
    }
}
