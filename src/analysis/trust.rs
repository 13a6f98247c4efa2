//! How far the numbers of a trace (and of each process in it) can be trusted:
//! `trusted`, `degraded` (usable; read the reasons) or `inconclusive` (the numbers do not
//! describe a user's device, or rest on too little), with every reason that lowered it.
//!
//! Trace reasons: an emulator or a software renderer (build fingerprint, kernel, SoC and
//! hardware strings, GPU names, emulator-only processes); missing sources (FrameTimeline,
//! atrace view slices, sched); data lost by the tracing service or the kernel (trace stats,
//! ftrace stats); a truncated trace; no clock snapshot or clock conversion failures; an
//! unknown API level or refresh rate. Process reasons: a name guessed from a layer or cut to
//! the kernel's 15 characters, too few frames for a rate or a percentile, sources missing for
//! that process only.

use serde::Serialize;

use super::report_model::Sources;
use crate::import::{ftrace_stats, trace_stats};
use crate::store::{MetaValue, Store};
use crate::trace::fields;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    Trusted,
    Degraded,
    Inconclusive,
}

impl Grade {
    pub fn as_str(self) -> &'static str {
        match self {
            Grade::Trusted => "trusted",
            Grade::Degraded => "degraded",
            Grade::Inconclusive => "inconclusive",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// Stable id (e.g. `emulator`, `no_frame_timeline`, `too_few_frames`).
    pub id: &'static str,
    pub grade: Grade,
    /// "trace" or "process".
    pub scope: &'static str,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trust {
    pub grade: Grade,
    pub reasons: Vec<Reason>,
}

impl Trust {
    pub fn of(reasons: Vec<Reason>) -> Self {
        Trust {
            grade: reasons
                .iter()
                .map(|r| r.grade)
                .max()
                .unwrap_or(Grade::Trusted),
            reasons,
        }
    }

    /// This grade with more reasons.
    pub fn with(&self, more: Vec<Reason>) -> Self {
        let mut r = self.reasons.clone();
        r.extend(more);
        Trust::of(r)
    }
}

/// Every reason id the grades can carry (README, "Trust grades", documents each).
pub const REASON_IDS: [&str; 22] = [
    "emulator",
    "clocks_unlocked",
    "thermal_throttled",
    "software_rendering",
    "virtual_machine",
    "no_frame_source",
    "no_frame_timeline",
    "no_atrace_view",
    "no_sched",
    "api_level_unknown",
    "lost_data",
    "truncated",
    "no_clock_snapshot",
    "clock_sync_failures",
    "refresh_rate_unknown",
    "unnamed_process",
    "name_guessed",
    "name_truncated",
    "too_few_frames",
    "few_frames",
    "no_frame_timeline_for_process",
    "no_atrace_for_process",
];

/// Fewer frames than this: no rate or percentile means anything.
pub const MIN_FRAMES: usize = 10;
/// Fewer frames than this: P90 and above rest on one or two frames.
pub const FEW_FRAMES: usize = 20;

/// Substrings (lowercase) that only emulators and virtual devices put in their build,
/// kernel, hardware and process names.
const EMULATOR_MARKERS: [&str; 10] = [
    "goldfish",
    "ranchu",
    "sdk_gphone",
    "emulator",
    "emu64",
    "generic_x86",
    "cuttlefish",
    "vsoc_",
    "qemu",
    "gce_x86",
];
/// GPU / renderer names of software rendering.
const SOFTWARE_GPU_MARKERS: [&str; 4] = ["swiftshader", "llvmpipe", "softpipe", "android emulator"];

/// The device and recording facts the trace grade is computed from.
#[derive(Debug, Clone, Default)]
pub struct TraceFacts {
    /// (what, value) of every device string: fingerprint, kernel, SoC, hardware.
    pub device_strings: Vec<(&'static str, String)>,
    pub guest_soc_model: Option<String>,
    pub gpus: Vec<String>,
    /// A process whose name only exists on emulators.
    pub emulator_process: Option<String>,
    pub api: u32,
    pub api_known: bool,
    pub sources: Sources,
    /// Any main-thread doFrame or RenderThread DrawFrame in the trace.
    pub frame_slices: bool,
    /// (stat, total) of every data-loss stat above zero.
    pub lost: Vec<(&'static str, i64)>,
    pub truncated: bool,
    pub clock_snapshots: u64,
    pub clock_sync_failures: i64,
    pub refresh_rate_known: bool,
}

fn meta_str(store: &Store, key: &str) -> Option<String> {
    match store.metadata.get(key) {
        Some(MetaValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Data-loss stats the grade reads (trace_processor names).
const LOSS: [&str; 4] = [
    "ftrace_cpu_has_data_loss",
    "packet_skipped_seq_needs_incremental_state_invalid",
    "sorter_push_event_out_of_order",
    "frame_timeline_unpaired_end_event",
];

impl TraceFacts {
    pub fn from_store(
        store: &Store,
        sources: &Sources,
        frame_slices: bool,
        refresh_rate_known: bool,
    ) -> Self {
        let mut device_strings = Vec::new();
        for (what, key) in [
            ("build fingerprint", "android_build_fingerprint"),
            ("kernel release", "system_release"),
            ("kernel version", "system_version"),
            ("SoC model", "android_soc_model"),
            ("hardware revision", "android_hardware_revision"),
            ("manufacturer", "android_device_manufacturer"),
        ] {
            if let Some(v) = meta_str(store, key) {
                device_strings.push((what, v));
            }
        }
        let emulator_process = store.processes.iter().find_map(|p| {
            [p.name, p.cmdline]
                .into_iter()
                .flatten()
                .map(|s| store.str(s))
                .find(|n| {
                    let n = n.to_ascii_lowercase();
                    ["qemu-props", "goldfish", "ranchu"]
                        .iter()
                        .any(|m| n.contains(m))
                })
                .map(str::to_string)
        });
        let lost = trace_stats::LOSS_STATS
            .iter()
            .chain(ftrace_stats::LOSS_STATS.iter())
            .chain(LOSS.iter())
            .map(|&n| (n, store.stat_value(n)))
            .filter(|&(_, v)| v > 0)
            .collect();
        let (api, api_known) = super::api_level(store);
        TraceFacts {
            device_strings,
            guest_soc_model: meta_str(store, "android_guest_soc_model"),
            gpus: store.trace_info.gpus.clone(),
            emulator_process,
            api,
            api_known,
            sources: sources.clone(),
            frame_slices,
            lost,
            truncated: store.stat_value("trace_truncated_or_corrupt") > 0,
            clock_snapshots: store.trace_info.packets_of(fields::CLOCK_SNAPSHOT),
            clock_sync_failures: store.stat_value("clock_sync_failure"),
            refresh_rate_known,
        }
    }
}

fn reason(id: &'static str, grade: Grade, text: String) -> Reason {
    Reason {
        id,
        grade,
        scope: "trace",
        text,
    }
}

/// Which of the device strings names an emulator, in words.
fn names_emulator(device_strings: &[(&'static str, String)]) -> Option<String> {
    device_strings.iter().find_map(|(what, v)| {
        let l = v.to_ascii_lowercase();
        EMULATOR_MARKERS
            .iter()
            .find(|m| l.contains(*m))
            .map(|m| format!("the {what} {v:?} names an emulator ({m})"))
    })
}

fn emulator_reason(why: String) -> Reason {
    reason(
        "emulator",
        Grade::Inconclusive,
        format!("recorded on an emulator: {why}; frame timings of a virtual GPU and display say nothing about a device"),
    )
}

/// What a Macrobenchmark run's benchmarkData.json says about its device and run
/// (`context.build`, `context.cpuLocked`, `thermalThrottleSleepSeconds`).
#[derive(Debug, Clone, Default)]
pub struct RunFacts {
    pub device_strings: Vec<(&'static str, String)>,
    pub cpu_locked: Option<bool>,
    pub thermal_throttle_sleep_seconds: Option<i64>,
    /// The user accepts unlocked clocks (most unrooted devices): degraded, not inconclusive.
    pub allow_unlocked_clocks: bool,
}

/// The reasons a Macrobenchmark run's own context gives.
pub fn run_reasons(f: &RunFacts) -> Vec<Reason> {
    let mut out = Vec::new();
    if let Some(why) = names_emulator(&f.device_strings) {
        out.push(emulator_reason(why));
    }
    if f.cpu_locked == Some(false) {
        out.push(reason(
            "clocks_unlocked",
            if f.allow_unlocked_clocks { Grade::Degraded } else { Grade::Inconclusive },
            "the CPU clocks were not locked (benchmarkData.json context.cpuLocked = false): frequency scaling moves frame times from run to run".into(),
        ));
    }
    if let Some(s) = f.thermal_throttle_sleep_seconds.filter(|s| *s > 0) {
        out.push(reason(
            "thermal_throttled",
            Grade::Degraded,
            format!("the device throttled for heat and the benchmark slept {s} s to cool down (thermalThrottleSleepSeconds)"),
        ));
    }
    out
}

/// The reasons that apply to the whole trace.
pub fn trace_reasons(f: &TraceFacts) -> Vec<Reason> {
    use Grade::*;
    let mut out = Vec::new();
    let emulator = names_emulator(&f.device_strings);
    let emulator = emulator.or_else(|| {
        f.emulator_process
            .as_ref()
            .map(|p| format!("the emulator-only process {p:?} runs on it"))
    });
    if let Some(why) = emulator {
        out.push(emulator_reason(why));
    }
    if let Some(g) = f.gpus.iter().find(|g| {
        let l = g.to_ascii_lowercase();
        SOFTWARE_GPU_MARKERS.iter().any(|m| l.contains(m))
    }) {
        out.push(reason(
            "software_rendering",
            Inconclusive,
            format!(
                "the GPU is a software renderer ({g}): GPU and frame timings are not a device's"
            ),
        ));
    }
    if let Some(g) = &f.guest_soc_model {
        out.push(reason(
            "virtual_machine",
            Degraded,
            format!("recorded in a virtual machine (guest SoC {g})"),
        ));
    }
    if !f.sources.frame_timeline && !f.frame_slices {
        out.push(reason(
            "no_frame_source",
            Inconclusive,
            "neither FrameTimeline nor atrace doFrame/DrawFrame slices: no frame can be judged"
                .into(),
        ));
    } else {
        if !f.sources.frame_timeline {
            let text = if f.api_known && f.api < 31 {
                format!("no FrameTimeline (the device, API {}, predates it): jank tags, present types and overrun are unavailable; frames are judged by CPU time against their vsync period", f.api)
            } else {
                "FrameTimeline was not recorded (android.surfaceflinger.frametimeline): jank tags, present types and overrun are unavailable".into()
            };
            out.push(reason("no_frame_timeline", Degraded, text));
        }
        if !f.frame_slices {
            out.push(reason(
                "no_atrace_view",
                Degraded,
                "no atrace doFrame/DrawFrame slices (atrace categories view, gfx): no UI or RenderThread times, so HWUI, Macrobenchmark and Vitals verdicts are unavailable".into(),
            ));
        }
    }
    if !f.sources.sched {
        out.push(reason(
            "no_sched",
            Degraded,
            "no scheduling data (sched_switch): blame cannot say whether a thread ran, waited for a CPU or slept".into(),
        ));
    }
    if !f.api_known {
        out.push(reason(
            "api_level_unknown",
            Degraded,
            format!(
                "the trace does not say the device's API level; assumed {}",
                f.api
            ),
        ));
    }
    for (stat, n) in &f.lost {
        out.push(reason(
            "lost_data",
            Degraded,
            format!("data was lost while recording: {stat} = {n} (a ring buffer overrun or dropped events; frames near the loss can lack slices)"),
        ));
    }
    if f.truncated {
        out.push(reason(
            "truncated",
            Degraded,
            "the trace is truncated or damaged: everything after the damage is missing".into(),
        ));
    }
    if f.clock_snapshots == 0 {
        out.push(reason(
            "no_clock_snapshot",
            Degraded,
            "no ClockSnapshot packet: timestamps of clocks other than the trace clock (SurfaceFlinger's) cannot be aligned".into(),
        ));
    }
    if f.clock_sync_failures > 0 {
        out.push(reason(
            "clock_sync_failures",
            Degraded,
            format!(
                "{} packets were dropped because their clock could not be converted",
                f.clock_sync_failures
            ),
        ));
    }
    if !f.refresh_rate_known && (f.sources.frame_timeline || f.frame_slices) {
        out.push(reason(
            "refresh_rate_unknown",
            Degraded,
            "nothing in the trace gives the vsync period: budgets and missed vsyncs assume 60 Hz"
                .into(),
        ));
    }
    out
}

/// What the process grade is computed from.
#[derive(Debug, Clone, Default)]
pub struct ProcessFacts {
    pub name: Option<String>,
    /// "process" or "layer".
    pub name_source: Option<&'static str>,
    pub has_cmdline: bool,
    /// None: do not judge the frame count (the gate judges the pooled count).
    pub frames: Option<usize>,
    pub frames_with_timeline: usize,
    pub frames_with_ui: usize,
}

fn preason(id: &'static str, grade: Grade, text: String) -> Reason {
    Reason {
        id,
        grade,
        scope: "process",
        text,
    }
}

/// Too few frames for a rate (inconclusive) or for the upper percentiles (degraded).
pub fn frame_count_reasons(frames: usize) -> Vec<Reason> {
    use Grade::*;
    if frames < MIN_FRAMES {
        vec![preason(
            "too_few_frames",
            Inconclusive,
            format!(
                "only {} frame{}: too few for a rate or a percentile",
                frames,
                if frames == 1 { "" } else { "s" }
            ),
        )]
    } else if frames < FEW_FRAMES {
        vec![preason(
            "few_frames",
            Degraded,
            format!("only {frames} frames: P90 and above rest on one or two frames"),
        )]
    } else {
        Vec::new()
    }
}

/// The reasons that apply to one process (its frames in the analysis; with `frames` =
/// None, as the CI gate does for one iteration, the frame count is left out).
pub fn process_reasons(p: &ProcessFacts, trace: &TraceFacts) -> Vec<Reason> {
    use Grade::*;
    let mut out = Vec::new();
    match (&p.name, p.name_source) {
        (None, _) => out.push(preason(
            "unnamed_process",
            Degraded,
            "the trace names neither the process nor an app package it drew: select it by pid"
                .into(),
        )),
        (Some(n), Some("layer")) => out.push(preason(
            "name_guessed",
            Degraded,
            format!("the process name {n:?} was guessed from its layer name (no process tree)"),
        )),
        (Some(n), _) if !p.has_cmdline && n.chars().count() == 15 => out.push(preason(
            "name_truncated",
            Degraded,
            format!("the process name {n:?} is the kernel's 15-character comm (no command line): the package name may be longer"),
        )),
        _ => {}
    }
    if let Some(n) = p.frames {
        out.extend(frame_count_reasons(n));
    }
    if trace.sources.frame_timeline && p.frames_with_timeline == 0 {
        out.push(preason(
            "no_frame_timeline_for_process",
            Degraded,
            "the trace has FrameTimeline but not for this process: jank tags and overrun are unavailable".into(),
        ));
    }
    if trace.frame_slices && p.frames_with_ui == 0 {
        out.push(preason(
            "no_atrace_for_process",
            Degraded,
            "no doFrame/DrawFrame on this process's main thread and RenderThread: no UI or RenderThread times".into(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phone() -> TraceFacts {
        TraceFacts {
            device_strings: vec![
                (
                    "build fingerprint",
                    "google/cheetah/cheetah:13/TQ3A.230705.001/10216780:user/release-keys".into(),
                ),
                ("kernel release", "5.10.157-android13-4".into()),
            ],
            api: 33,
            api_known: true,
            sources: Sources {
                atrace: true,
                frame_timeline: true,
                frame_tracer: true,
                sched: true,
                process_tree: true,
            },
            frame_slices: true,
            clock_snapshots: 2,
            refresh_rate_known: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_complete_phone_trace_is_trusted() {
        assert_eq!(Trust::of(trace_reasons(&phone())).grade, Grade::Trusted);
    }

    #[test]
    fn emulator_strings_make_it_inconclusive() {
        for (what, v) in [
            (
                "build fingerprint",
                "google/sdk_gphone64_arm64/emu64a:14/UE1A/1:userdebug/dev-keys",
            ),
            ("kernel release", "5.15.41-android14-goldfish"),
            ("SoC model", "ranchu"),
        ] {
            let mut f = phone();
            f.device_strings = vec![(what, v.to_string())];
            let t = Trust::of(trace_reasons(&f));
            assert_eq!(t.grade, Grade::Inconclusive, "{what}");
            assert_eq!(t.reasons[0].id, "emulator");
            assert!(t.reasons[0].text.contains(v), "{}", t.reasons[0].text);
        }
        let mut f = phone();
        f.emulator_process = Some("/vendor/bin/qemu-props".into());
        assert_eq!(trace_reasons(&f)[0].id, "emulator");
        let mut f = phone();
        f.gpus = vec!["Google SwiftShader".into()];
        assert_eq!(trace_reasons(&f)[0].id, "software_rendering");
    }

    #[test]
    fn every_emulator_marker_alone_names_an_emulator() {
        for m in EMULATOR_MARKERS {
            let mut f = phone();
            let v = format!("acme/{m}_product/device:14/AP1A/1:user/release-keys");
            f.device_strings = vec![("build fingerprint", v)];
            let r = trace_reasons(&f);
            assert_eq!(r[0].id, "emulator", "{m}");
            assert!(
                r[0].text.contains(&format!("emulator ({m})")),
                "{}",
                r[0].text
            );
        }
        for g in SOFTWARE_GPU_MARKERS {
            let mut f = phone();
            f.gpus = vec![format!("Vendor {g} renderer")];
            assert_eq!(trace_reasons(&f)[0].id, "software_rendering", "{g}");
        }
        // Case does not matter; a phone's strings name none.
        let mut f = phone();
        f.device_strings = vec![("kernel release", "5.15-Android14-GOLDFISH".into())];
        assert_eq!(trace_reasons(&f)[0].id, "emulator");
        assert!(trace_reasons(&phone()).is_empty());
    }

    #[test]
    fn missing_sources_and_losses_degrade() {
        let mut f = phone();
        f.sources.frame_timeline = false;
        f.api = 24;
        f.sources.sched = false;
        f.lost = vec![("traced_buf_chunks_overwritten", 3)];
        f.clock_snapshots = 0;
        f.truncated = true;
        let t = Trust::of(trace_reasons(&f));
        assert_eq!(t.grade, Grade::Degraded);
        let ids: Vec<&str> = t.reasons.iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "no_frame_timeline",
                "no_sched",
                "lost_data",
                "truncated",
                "no_clock_snapshot"
            ]
        );
        assert!(t.reasons[0].text.contains("API 24"));
        f.frame_slices = false;
        assert_eq!(Trust::of(trace_reasons(&f)).grade, Grade::Inconclusive);
    }

    #[test]
    fn every_reason_id_in_the_code_is_listed() {
        let all = include_str!("trust.rs");
        let src = &all[..all.find("#[cfg(test)]").unwrap()];
        let mut found = Vec::new();
        for part in src.split("reason(").skip(1) {
            let rest = part.trim_start();
            if let Some(r) = rest.strip_prefix('"') {
                found.push(&r[..r.find('"').unwrap()]);
            }
        }
        assert!(found.len() >= REASON_IDS.len(), "{found:?}");
        for id in found {
            assert!(REASON_IDS.contains(&id), "{id} is not in REASON_IDS");
        }
    }

    #[test]
    fn process_names_and_frame_counts() {
        let trace = phone();
        let p = |name: &str, src, cmdline, frames| ProcessFacts {
            name: Some(name.into()),
            name_source: Some(src),
            has_cmdline: cmdline,
            frames: Some(frames),
            frames_with_timeline: frames,
            frames_with_ui: frames,
        };
        let ids = |p: &ProcessFacts| -> Vec<&str> {
            process_reasons(p, &trace).iter().map(|r| r.id).collect()
        };
        assert!(ids(&p("com.example.app", "process", true, 100)).is_empty());
        assert_eq!(
            ids(&p("enchmark.target", "process", false, 100)),
            ["name_truncated"]
        );
        assert!(ids(&p("enchmark.target", "process", true, 100)).is_empty());
        assert_eq!(ids(&p("com.x", "layer", false, 100)), ["name_guessed"]);
        assert_eq!(ids(&p("com.x", "process", true, 3)), ["too_few_frames"]);
        assert_eq!(ids(&p("com.x", "process", true, 12)), ["few_frames"]);
        let r = process_reasons(&p("com.x", "process", true, 3), &trace);
        assert_eq!(Trust::of(r).grade, Grade::Inconclusive);
    }
}
