//! Synthetic Android traces: an app scrolling at a fixed refresh rate, with the data sources
//! frameprobe reads (process tree, compact sched, atrace doFrame/DrawFrames, FrameTimeline,
//! FrameTracer). Deterministic for a seed. Used for the sample traces in `testdata/`, for
//! tests that need a known answer (the returned plan says what each frame really did) and for
//! CI-gate tests that inject regressions.

pub mod causes;
pub mod interactions;
pub mod refresh;

use prost::Message;

use frameprobe::protos::{
    self, clock_snapshot, frame_timeline_event as fte, ftrace_event, ftrace_event_bundle,
    graphics_frame_event as gfe, process_tree, ClockSnapshot, FrameTimelineEvent, FtraceEvent,
    FtraceEventBundle, GraphicsFrameEvent, ProcessTree, SystemInfo, Trace, TracePacket,
};
use frameprobe::rng::Rng;

/// What to generate.
#[derive(Debug, Clone)]
pub struct SynthConfig {
    pub seed: u64,
    pub frames: u32,
    pub refresh_hz: u32,
    /// Fraction of frames whose UI work is slowed down (0..1).
    pub jank_rate: f64,
    /// Extra UI-thread work on a slowed frame.
    pub slow_extra_ns: i64,
    /// Typical UI-thread work per frame and its jitter (uniform ±).
    pub ui_work_ns: i64,
    pub rt_work_ns: i64,
    pub work_jitter_ns: i64,
    pub gpu_work_ns: i64,
    pub pid: i32,
    pub process_name: String,
    pub atrace: bool,
    pub frame_timeline: bool,
    pub frame_tracer: bool,
    pub sched: bool,
    /// 30 and below: frame slices named without a vsync id ([`frame_slice_name`]).
    pub sdk_version: u64,
    /// Boot-time of the first vsync.
    pub start_ns: i64,
    /// Offset added to MONOTONIC to get BOOTTIME (SurfaceFlinger writes MONOTONIC).
    pub boot_minus_mono_ns: i64,
    /// Refresh-rate phases (rate in Hz, frames), in order; empty: `refresh_hz` throughout.
    pub refresh_phases: Vec<(u32, u32)>,
    /// Write SurfaceFlinger's `VsyncPeriod` counter at each rate switch (needs atrace).
    pub vsync_period_counters: bool,
    /// (frame index, ns): before that frame the app draws nothing for this long (the
    /// display keeps its vsync; the app is idle), so frames come in bursts.
    pub pauses: Vec<(u32, i64)>,
    /// Extra UI-thread work nested in doFrame right after the input callback, lengthening
    /// the frame (the input, traversal and measure slices keep their lengths).
    pub extra_ui: Vec<ExtraUi>,
}

/// Extra work in one frame's doFrame.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraUi {
    pub frame: u32,
    /// The atrace slice around it; None: untraced time (for a call the caller writes).
    pub name: Option<String>,
    pub ns: i64,
}

impl Default for SynthConfig {
    fn default() -> Self {
        SynthConfig {
            seed: 1,
            frames: 120,
            refresh_hz: 60,
            jank_rate: 0.1,
            slow_extra_ns: 14_000_000,
            ui_work_ns: 4_000_000,
            rt_work_ns: 3_000_000,
            work_jitter_ns: 1_000_000,
            gpu_work_ns: 2_000_000,
            pid: 4242,
            process_name: "com.example.scroller".into(),
            atrace: true,
            frame_timeline: true,
            frame_tracer: true,
            sched: true,
            sdk_version: 34,
            start_ns: 10_000_000_000,
            boot_minus_mono_ns: 3_000_000_000,
            refresh_phases: Vec::new(),
            vsync_period_counters: false,
            pauses: Vec::new(),
            extra_ui: Vec::new(),
        }
    }
}

/// HWUI's name for a frame's doFrame or DrawFrame slice: Android 12 (API 31) added the vsync
/// id, and the RenderThread's became `DrawFrames <id>`; before, the bare name.
fn frame_slice_name(cfg: &SynthConfig, legacy: &str, vsync_id: i64) -> String {
    match (cfg.sdk_version <= 30, legacy) {
        (true, _) => legacy.to_string(),
        (false, "DrawFrame") => format!("DrawFrames {vsync_id}"),
        (false, _) => format!("{legacy} {vsync_id}"),
    }
}

/// The ground truth of one generated frame (boot-time nanoseconds).
#[derive(Debug, Clone)]
pub struct PlannedFrame {
    pub vsync_id: i64,
    pub display_token: i64,
    pub expected_start: i64,
    pub expected_end: i64,
    pub ui_start: i64,
    pub ui_end: i64,
    pub rt_start: i64,
    pub rt_end: i64,
    pub gpu_done: i64,
    pub actual_end: i64,
    pub slowed: bool,
    /// FrameTimeline jank bitmask written for the surface frame.
    pub jank_type: i32,
    pub present_type: i32,
    pub on_time_finish: bool,
    /// Time the UI thread was runnable but not running during doFrame (preemption).
    pub ui_runnable_ns: i64,
    /// The vsync period the frame ran at.
    pub vsync_period_ns: i64,
    /// End of the input callback (the `input` slice).
    pub input_end: i64,
    /// The spans of the frame's [`ExtraUi`] work, in the order given.
    pub extra_ui: Vec<(i64, i64)>,
}

pub struct SynthTrace {
    pub bytes: Vec<u8>,
    pub frames: Vec<PlannedFrame>,
    pub layer_name: String,
    pub render_tid: i32,
    pub sf_pid: i32,
}

const SF_PID: i32 = 515;
const BOOTTIME: u32 = 6;
const MONOTONIC: u32 = 3;
const APP_DEADLINE_MISSED: i32 = 64;
const BUFFER_STUFFING: i32 = 128;
const JANK_NONE: i32 = 1;
const PRESENT_ON_TIME: i32 = 1;
const PRESENT_LATE: i32 = 2;

/// Collects packets per data source; they are written source by source (not in global time
/// order), as a real trace buffer is, so readers must sort.
#[derive(Default)]
struct Streams {
    header: Vec<TracePacket>,
    ftrace: Vec<(i64, u32, FtraceEvent)>,
    sched: Vec<(i64, u32, i64, i32, i32, String)>,
    frame_timeline: Vec<TracePacket>,
    graphics: Vec<TracePacket>,
}

fn print(ts: i64, tid: i32, buf: String) -> FtraceEvent {
    FtraceEvent {
        timestamp: Some(ts as u64),
        pid: Some(tid as u32),
        event: Some(ftrace_event::Event::Print(protos::PrintFtraceEvent {
            ip: None,
            buf: Some(buf),
        })),
        ..Default::default()
    }
}

impl Streams {
    fn slice(&mut self, cpu: u32, tid: i32, tgid: i32, start: i64, end: i64, name: &str) {
        self.ftrace
            .push((start, cpu, print(start, tid, format!("B|{tgid}|{name}"))));
        self.ftrace
            .push((end, cpu, print(end, tid, format!("E|{tgid}"))));
    }

    fn ft_packet(&mut self, mono_ts: i64, ev: fte::Event) {
        self.frame_timeline.push(TracePacket {
            timestamp: Some(mono_ts as u64),
            timestamp_clock_id: Some(MONOTONIC),
            trusted_packet_sequence_id: Some(7),
            frame_timeline_event: Some(FrameTimelineEvent { event: Some(ev) }),
            ..Default::default()
        });
    }

    fn buffer(
        &mut self,
        mono_ts: i64,
        kind: gfe::BufferEventType,
        buffer_id: u32,
        frame: u32,
        layer: &str,
    ) {
        self.graphics.push(TracePacket {
            timestamp: Some(mono_ts as u64),
            timestamp_clock_id: Some(MONOTONIC),
            trusted_packet_sequence_id: Some(8),
            graphics_frame_event: Some(GraphicsFrameEvent {
                buffer_event: Some(gfe::BufferEvent {
                    frame_number: Some(frame),
                    r#type: Some(kind as i32),
                    layer_name: Some(layer.to_string()),
                    duration_ns: None,
                    buffer_id: Some(buffer_id),
                }),
            }),
            ..Default::default()
        });
    }
}

/// One app frame's FrameTimeline events (boot-time nanoseconds): expected and actual surface
/// frames, and the display frame that presents it (one period late when it missed).
struct SurfaceFrame<'a> {
    vsync_id: i64,
    display_token: i64,
    pid: i32,
    layer: &'a str,
    expected_start: i64,
    expected_end: i64,
    actual_start: i64,
    actual_end: i64,
    jank_type: i32,
    period: i64,
}

impl Streams {
    fn surface_frame(&mut self, cookie: &mut i64, boot_minus_mono_ns: i64, f: &SurfaceFrame<'_>) {
        let mono = |boot: i64| boot - boot_minus_mono_ns;
        let late = f.actual_end > f.expected_end;
        let present_type = if late { PRESENT_LATE } else { PRESENT_ON_TIME };
        let (period, expected_end, display_token, pid) =
            (f.period, f.expected_end, f.display_token, f.pid);
        let c_exp = *cookie;
        let c_act = *cookie + 1;
        let c_dexp = *cookie + 2;
        let c_dact = *cookie + 3;
        *cookie += 4;
        let present = expected_end + if late { period } else { 0 };
        self.ft_packet(
            mono(f.expected_start),
            fte::Event::ExpectedSurfaceFrameStart(fte::ExpectedSurfaceFrameStart {
                cookie: Some(c_exp),
                token: Some(f.vsync_id),
                display_frame_token: Some(display_token),
                pid: Some(pid),
                layer_name: Some(f.layer.to_string()),
            }),
        );
        self.ft_packet(
            mono(expected_end),
            fte::Event::FrameEnd(fte::FrameEnd {
                cookie: Some(c_exp),
            }),
        );
        self.ft_packet(
            mono(f.actual_start),
            fte::Event::ActualSurfaceFrameStart(fte::ActualSurfaceFrameStart {
                cookie: Some(c_act),
                token: Some(f.vsync_id),
                display_frame_token: Some(display_token),
                pid: Some(pid),
                layer_name: Some(f.layer.to_string()),
                present_type: Some(present_type),
                on_time_finish: Some(!late),
                gpu_composition: Some(false),
                jank_type: Some(f.jank_type),
                prediction_type: Some(1),
                is_buffer: Some(true),
                jank_severity_type: Some(if late { 3 } else { 1 }),
                ..Default::default()
            }),
        );
        self.ft_packet(
            mono(f.actual_end),
            fte::Event::FrameEnd(fte::FrameEnd {
                cookie: Some(c_act),
            }),
        );
        self.ft_packet(
            mono(expected_end),
            fte::Event::ExpectedDisplayFrameStart(fte::ExpectedDisplayFrameStart {
                cookie: Some(c_dexp),
                token: Some(display_token),
                pid: Some(SF_PID),
            }),
        );
        self.ft_packet(
            mono(expected_end + period),
            fte::Event::FrameEnd(fte::FrameEnd {
                cookie: Some(c_dexp),
            }),
        );
        self.ft_packet(
            mono(present - period / 2),
            fte::Event::ActualDisplayFrameStart(fte::ActualDisplayFrameStart {
                cookie: Some(c_dact),
                token: Some(display_token),
                pid: Some(SF_PID),
                present_type: Some(PRESENT_ON_TIME),
                on_time_finish: Some(true),
                gpu_composition: Some(false),
                jank_type: Some(JANK_NONE),
                prediction_type: Some(1),
                jank_severity_type: Some(1),
                ..Default::default()
            }),
        );
        self.ft_packet(
            mono(present + period / 4),
            fte::Event::FrameEnd(fte::FrameEnd {
                cookie: Some(c_dact),
            }),
        );
    }
}

/// Generates a trace for `cfg`.
pub fn generate(cfg: &SynthConfig) -> SynthTrace {
    let mut rng = Rng::new(cfg.seed);
    let period = 1_000_000_000i64 / cfg.refresh_hz.max(1) as i64;
    let pid = cfg.pid;
    let render_tid = pid + 21;
    let layer = format!("{}/{}.MainActivity#0", cfg.process_name, cfg.process_name);
    let mono = |boot: i64| boot - cfg.boot_minus_mono_ns;
    let mut s = Streams::default();
    header(&mut s, cfg, render_tid, period);
    let schedule = refresh::Schedule::new(cfg);
    if cfg.vsync_period_counters && cfg.atrace {
        refresh::period_counters(&mut s, &schedule);
    }

    // The app was running before the first frame (as in a real trace, where ftrace data
    // starts before SurfaceFlinger's): its first atrace slices open and close early.
    if cfg.atrace {
        let t0 = cfg.start_ns - 200_000_000;
        s.slice(0, pid, pid, t0, t0 + 5_000_000, "activityResume");
        s.slice(
            1,
            render_tid,
            pid,
            t0 + 1_000_000,
            t0 + 2_000_000,
            "initialize",
        );
    }
    let mut frames = Vec::new();
    let mut prev_late = false;
    let mut cookie = 1i64;
    // The UI thread and the RenderThread each run one frame at a time.
    let mut ui_free = 0i64;
    let mut rt_free = 0i64;
    for i in 0..cfg.frames as i64 {
        let period = schedule.period(i as usize);
        let vsync = schedule.vsync(i as usize);
        let vsync_id = 100_000 + i * 3;
        let display_token = 500_000 + i * 3 + 1;
        let slowed = rng.chance(cfg.jank_rate);
        let jitter = |r: &mut Rng| r.range(-cfg.work_jitter_ns, cfg.work_jitter_ns);
        let ui_start = (vsync + 400_000).max(ui_free + 100_000);
        let mut ui_dur = (cfg.ui_work_ns + jitter(&mut rng)).max(200_000);
        let mut ui_runnable = 0;
        if slowed {
            ui_dur += cfg.slow_extra_ns;
            ui_runnable = cfg.slow_extra_ns / 2;
        }
        let extras: Vec<&ExtraUi> = cfg
            .extra_ui
            .iter()
            .filter(|e| e.frame as i64 == i)
            .collect();
        let extra_ns: i64 = extras.iter().map(|e| e.ns).sum();
        let ui_end = ui_start + ui_dur + extra_ns;
        // The RenderThread starts drawing while doFrame waits for the frame-state sync.
        let rt_start = (ui_end - 300_000)
            .max(ui_start + 100_000)
            .max(rt_free + 50_000);
        let rt_end = rt_start + (cfg.rt_work_ns + jitter(&mut rng)).max(200_000);
        ui_free = ui_end;
        rt_free = rt_end;
        let gpu_done = rt_end + cfg.gpu_work_ns;
        let expected_start = vsync;
        let expected_end = vsync + period;
        let actual_end = gpu_done.max(rt_end);
        let late = actual_end > expected_end;
        let jank_type = match (late, prev_late) {
            (true, _) => APP_DEADLINE_MISSED,
            (false, true) => BUFFER_STUFFING,
            _ => JANK_NONE,
        };
        let present_type = if late { PRESENT_LATE } else { PRESENT_ON_TIME };
        prev_late = late;

        // atrace on the UI thread (cpu 0) and RenderThread (cpu 1).
        if cfg.atrace {
            s.slice(
                0,
                pid,
                pid,
                ui_start,
                ui_end,
                &frame_slice_name(cfg, "Choreographer#doFrame", vsync_id),
            );
            let a = ui_start + 50_000;
            s.slice(0, pid, pid, a, a + ui_dur / 4, "input");
            for (e, span) in extras.iter().zip(extra_spans(a + ui_dur / 4, &extras)) {
                if let Some(name) = &e.name {
                    s.slice(0, pid, pid, span.0, span.1, name);
                }
            }
            let b = a + ui_dur / 4 + 20_000 + extra_ns;
            s.slice(0, pid, pid, b, ui_end - 30_000, "traversal");
            s.slice(
                0,
                pid,
                pid,
                b + 10_000,
                b + (ui_end - 30_000 - b) / 2,
                "measure",
            );
            s.slice(
                1,
                render_tid,
                pid,
                rt_start,
                rt_end,
                &frame_slice_name(cfg, "DrawFrame", vsync_id),
            );
            s.slice(
                1,
                render_tid,
                pid,
                rt_start + 20_000,
                rt_start + (rt_end - rt_start) / 3,
                "syncFrameState",
            );
            s.slice(
                1,
                render_tid,
                pid,
                rt_end - 400_000,
                rt_end - 50_000,
                "queueBuffer",
            );
        }
        if cfg.sched {
            // The UI thread runs during doFrame; a slowed frame is preempted for half its extra
            // time by a kworker (runnable, prev_state R).
            s.sched
                .push((ui_start, 0, 1, pid, 120, cfg_comm(&cfg.process_name)));
            if ui_runnable > 0 {
                let pre = ui_start + ui_dur / 4;
                s.sched.push((pre, 0, 0, 88, 120, "kworker/0:1".into()));
                s.sched.push((
                    pre + ui_runnable,
                    0,
                    1,
                    pid,
                    120,
                    cfg_comm(&cfg.process_name),
                ));
            }
            s.sched.push((ui_end, 0, 1, 0, 120, "swapper/0".into()));
            s.sched
                .push((rt_start, 1, 1, render_tid, 110, "RenderThread".into()));
            s.sched.push((rt_end, 1, 1, 0, 120, "swapper/1".into()));
        }
        if cfg.frame_timeline {
            s.surface_frame(
                &mut cookie,
                cfg.boot_minus_mono_ns,
                &SurfaceFrame {
                    vsync_id,
                    display_token,
                    pid,
                    layer: &layer,
                    expected_start,
                    expected_end,
                    actual_start: ui_start,
                    actual_end,
                    jank_type,
                    period,
                },
            );
        }
        if cfg.frame_tracer {
            use gfe::BufferEventType as T;
            let buffer_id = (i % 3) as u32 + 1;
            let frame_number = i as u32 + 1;
            let latch = expected_end.max(gpu_done) + 500_000;
            let present = latch + period;
            s.buffer(
                mono(rt_start + 100_000),
                T::Dequeue,
                buffer_id,
                frame_number,
                &layer,
            );
            s.buffer(mono(rt_end), T::Queue, buffer_id, frame_number, &layer);
            s.buffer(
                mono(gpu_done),
                T::AcquireFence,
                buffer_id,
                frame_number,
                &layer,
            );
            s.buffer(mono(latch), T::Latch, buffer_id, frame_number, &layer);
            s.buffer(
                mono(present),
                T::PresentFence,
                buffer_id,
                frame_number,
                &layer,
            );
        }
        frames.push(PlannedFrame {
            vsync_id,
            display_token,
            expected_start,
            expected_end,
            ui_start,
            ui_end,
            rt_start,
            rt_end,
            gpu_done,
            actual_end,
            slowed,
            jank_type,
            present_type,
            on_time_finish: !late,
            ui_runnable_ns: ui_runnable,
            vsync_period_ns: period,
            input_end: ui_start + 50_000 + ui_dur / 4,
            extra_ui: extra_spans(ui_start + 50_000 + ui_dur / 4, &extras),
        });
    }
    let bytes = encode(s, cfg);
    SynthTrace {
        bytes,
        frames,
        layer_name: layer,
        render_tid,
        sf_pid: SF_PID,
    }
}

/// The spans of a frame's extra work: one after another from 10 us after the input callback.
fn extra_spans(input_end: i64, extras: &[&ExtraUi]) -> Vec<(i64, i64)> {
    let mut t = input_end + 10_000;
    extras
        .iter()
        .map(|e| {
            t += e.ns;
            (t - e.ns, t)
        })
        .collect()
}

/// The kernel's 16-byte comm of the app's main thread.
fn cfg_comm(name: &str) -> String {
    let tail = name.rsplit('.').next().unwrap_or(name);
    tail.chars().take(15).collect()
}

fn header(s: &mut Streams, cfg: &SynthConfig, render_tid: i32, _period: i64) {
    let boot0 = cfg.start_ns - 1_000_000_000;
    s.header.push(TracePacket {
        timestamp: Some(boot0 as u64),
        trusted_packet_sequence_id: Some(1),
        clock_snapshot: Some(ClockSnapshot {
            clocks: vec![
                clock_snapshot::Clock {
                    clock_id: Some(BOOTTIME),
                    timestamp: Some(boot0 as u64),
                    ..Default::default()
                },
                clock_snapshot::Clock {
                    clock_id: Some(MONOTONIC),
                    timestamp: Some((boot0 - cfg.boot_minus_mono_ns) as u64),
                    ..Default::default()
                },
            ],
            primary_trace_clock: None,
        }),
        ..Default::default()
    });
    s.header.push(TracePacket {
        trusted_packet_sequence_id: Some(1),
        system_info: Some(SystemInfo {
            utsname: Some(protos::Utsname {
                sysname: Some("Linux".into()),
                release: Some("6.1.0-frameprobe-synth".into()),
                machine: Some("aarch64".into()),
                version: None,
            }),
            android_build_fingerprint: Some("frameprobe/synth/synth:14/SYNTH/1:userdebug".into()),
            android_sdk_version: Some(cfg.sdk_version),
            ..Default::default()
        }),
        ..Default::default()
    });
    let proc = |pid: i32, ppid: i32, cmdline: &str| process_tree::Process {
        pid: Some(pid),
        ppid: Some(ppid),
        cmdline: vec![cmdline.to_string()],
        uid: Some(10_123),
        ..Default::default()
    };
    s.header.push(TracePacket {
        timestamp: Some((boot0 + 1_000) as u64),
        trusted_packet_sequence_id: Some(2),
        process_tree: Some(ProcessTree {
            processes: vec![
                proc(1, 0, "/system/bin/init"),
                proc(SF_PID, 1, "/system/bin/surfaceflinger"),
                proc(cfg.pid, 1, &cfg.process_name),
            ],
            threads: vec![process_tree::Thread {
                tid: Some(render_tid),
                name: Some("RenderThread".into()),
                tgid: Some(cfg.pid),
            }],
            collection_end_timestamp: None,
        }),
        ..Default::default()
    });
}

fn encode(mut s: Streams, cfg: &SynthConfig) -> Vec<u8> {
    let mut packets = std::mem::take(&mut s.header);
    // ftrace: one bundle per CPU per ~64 events, in per-CPU order.
    let cpus = s
        .ftrace
        .iter()
        .map(|e| e.1)
        .chain(s.sched.iter().map(|e| e.1))
        .max()
        .map_or(2, |c| c + 1)
        .max(2);
    for cpu in 0..cpus {
        let mut evs: Vec<_> = s.ftrace.iter().filter(|e| e.1 == cpu).cloned().collect();
        evs.sort_by_key(|e| e.0);
        let mut sw: Vec<_> = s.sched.iter().filter(|e| e.1 == cpu).cloned().collect();
        sw.sort_by_key(|e| e.0);
        let chunks = evs.len().max(sw.len()).div_ceil(64).max(1);
        let per_ev = evs.len().div_ceil(chunks).max(1);
        let per_sw = sw.len().div_ceil(chunks).max(1);
        let mut ev_chunks = evs.chunks(per_ev);
        let mut sw_chunks = sw.chunks(per_sw);
        for _ in 0..chunks {
            let events: Vec<FtraceEvent> = ev_chunks
                .next()
                .unwrap_or(&[])
                .iter()
                .map(|e| e.2.clone())
                .collect();
            let compact = sw_chunks.next().filter(|_| cfg.sched).map(compact_sched);
            if events.is_empty() && compact.is_none() {
                continue;
            }
            packets.push(TracePacket {
                trusted_packet_sequence_id: Some(3 + cpu),
                ftrace_events: Some(FtraceEventBundle {
                    cpu: Some(cpu),
                    event: events,
                    compact_sched: compact,
                    ..Default::default()
                }),
                ..Default::default()
            });
        }
    }
    packets.append(&mut s.frame_timeline);
    packets.append(&mut s.graphics);
    Trace { packet: packets }.encode_to_vec()
}

fn compact_sched(sw: &[(i64, u32, i64, i32, i32, String)]) -> ftrace_event_bundle::CompactSched {
    let mut c = ftrace_event_bundle::CompactSched::default();
    let mut last = 0i64;
    for (ts, _cpu, prev_state, next_pid, prio, comm) in sw {
        c.switch_timestamp.push((ts - last) as u64);
        last = *ts;
        c.switch_prev_state.push(*prev_state);
        c.switch_next_pid.push(*next_pid);
        c.switch_next_prio.push(*prio);
        let idx = match c.intern_table.iter().position(|x| x == comm) {
            Some(i) => i,
            None => {
                c.intern_table.push(comm.clone());
                c.intern_table.len() - 1
            }
        };
        c.switch_next_comm_index.push(idx as u32);
    }
    c
}
