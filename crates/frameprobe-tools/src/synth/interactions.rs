//! A synthetic app with interactions: an optional startup (system_server's
//! `launchingActivity#1` up to the end of the first frame), then bursts of frames separated
//! by idle gaps. Each burst can carry RecyclerView `RV Scroll` steps (one per frame, inside
//! the frame's input callback, as RecyclerView traces them), a CUJ (`J<NAME>` with its
//! FrameTracker markers) and an app trace section around it. The plan says which frames
//! belong to which interaction by frameprobe's priority rule (CUJ, section, scroll, startup,
//! idle burst). Work times jitter with the seed, so two seeds give a re-timed copy.

use frameprobe::analysis::interactions::InteractionSource;
use frameprobe::protos::{process_tree, ProcessTree, TracePacket};

use super::causes::{Binder, Cuj};
use super::{encode, generate, ExtraUi, Streams, SynthConfig, SynthTrace};

/// system_server, which traces app launches.
pub const SYSTEM_SERVER_PID: i32 = 1000;
/// The app: a `com.android.*` name, which `android.cujs` requires of a CUJ's process.
pub const APP_NAME: &str = "com.android.frameprobe.interactions";
/// The CPU whose ftrace stream carries the interaction slices (the frames use 0 and 1).
const CPU: u32 = 2;
/// system_server's binder thread that serves [`InteractionsConfig::binder_call`].
pub const BINDER_TID: i32 = 1010;
/// The name of [`InteractionsConfig::inflate`]'s slice.
pub const INFLATE: &str = "inflate";

/// One burst of frames and what marks it.
#[derive(Debug, Clone, Default)]
pub struct Burst {
    pub frames: u32,
    /// `RV Scroll` inside every frame's input callback.
    pub scroll: bool,
    /// A CUJ name (without `J<>`) over the burst.
    pub cuj: Option<String>,
    /// An app trace section around the burst.
    pub section: Option<String>,
}

#[derive(Debug, Clone)]
pub struct InteractionsConfig {
    /// Frames, refresh rate, work times and their jitter; `frames`, `pauses`, `pid` and
    /// `process_name` are set from the bursts.
    pub synth: SynthConfig,
    /// Frames drawn for the startup (0: no startup).
    pub startup_frames: u32,
    pub bursts: Vec<Burst>,
    /// The idle gap before each burst, in vsync periods.
    pub idle_vsyncs: u32,
    /// (burst index, ns): an `inflate` slice of this length nested in every doFrame of
    /// that burst, lengthening its frames.
    pub inflate: Option<(usize, i64)>,
    /// (burst index, frame index in the burst, ns): a synchronous binder call of this
    /// length from the UI thread, inside that frame's doFrame, served by system_server's
    /// [`BINDER_TID`] (raw binder_transaction events, as [`super::causes`] writes them).
    pub binder_call: Option<(usize, usize, i64)>,
}

impl Default for InteractionsConfig {
    /// A startup, then three scrolls of 30 frames, 30 vsyncs (500 ms at 60 Hz) apart.
    fn default() -> Self {
        let scroll = Burst {
            frames: 30,
            scroll: true,
            ..Burst::default()
        };
        InteractionsConfig {
            synth: SynthConfig::default(),
            startup_frames: 1,
            bursts: vec![scroll.clone(), scroll.clone(), scroll],
            idle_vsyncs: 30,
            inflate: None,
            binder_call: None,
        }
    }
}

/// The ground truth of one interaction.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedInteraction {
    pub source: InteractionSource,
    pub label: String,
    /// Indices into [`SynthTrace::frames`] (the app's only layer, so also into frameprobe's
    /// frames of the app).
    pub frames: std::ops::Range<usize>,
    /// The marking slice (CUJ, section, merged scroll steps, launch) or, for an idle burst,
    /// None.
    pub window: Option<(i64, i64)>,
}

pub struct InteractionsTrace {
    pub trace: SynthTrace,
    pub plan: Vec<PlannedInteraction>,
}

pub fn generate_interactions(cfg: &InteractionsConfig) -> InteractionsTrace {
    let total: u32 = cfg.startup_frames + cfg.bursts.iter().map(|b| b.frames).sum::<u32>();
    let period = 1_000_000_000i64 / i64::from(cfg.synth.refresh_hz.max(1));
    let mut pauses = Vec::new();
    let mut first = cfg.startup_frames;
    let mut ranges = Vec::new();
    for b in &cfg.bursts {
        if first > 0 {
            pauses.push((first, i64::from(cfg.idle_vsyncs) * period));
        }
        ranges.push(first as usize..(first + b.frames) as usize);
        first += b.frames;
    }
    let mut extra_ui = cfg.synth.extra_ui.clone();
    if let Some((b, ns)) = cfg.inflate {
        extra_ui.extend(ranges[b].clone().map(|frame| ExtraUi {
            frame: frame as u32,
            name: Some(INFLATE.into()),
            ns,
        }));
    }
    // The call's frame, and which of that frame's extra spans is the call.
    let call = cfg.binder_call.map(|(b, k, ns)| {
        let frame = ranges[b].start + k;
        let nth = extra_ui
            .iter()
            .filter(|e| e.frame as usize == frame)
            .count();
        extra_ui.push(ExtraUi {
            frame: frame as u32,
            name: None,
            ns,
        });
        (frame, nth)
    });
    let synth = SynthConfig {
        frames: total,
        pauses,
        process_name: APP_NAME.to_string(),
        extra_ui,
        ..cfg.synth.clone()
    };
    let mut trace = generate(&synth);
    let pid = synth.pid;
    let f = &trace.frames;
    let mut s = Streams::default();
    let mut plan = Vec::new();
    if cfg.startup_frames > 0 {
        let last = &f[cfg.startup_frames as usize - 1];
        let window = (synth.start_ns - 250_000_000, last.actual_end);
        launch(&mut s, &synth, window);
        plan.push(PlannedInteraction {
            source: InteractionSource::Startup,
            label: "startup".into(),
            frames: 0..cfg.startup_frames as usize,
            window: Some(window),
        });
    }
    for (k, (b, r)) in cfg.bursts.iter().zip(&ranges).enumerate() {
        let (a, z) = (&f[r.start], &f[r.end - 1]);
        let mut marks: Vec<(InteractionSource, String, (i64, i64))> = Vec::new();
        if b.scroll {
            for p in &f[r.clone()] {
                // Inside the synthesiser's `input` slice: [ui_start + 50 us, input_end].
                let input = p.ui_start + 50_000;
                s.slice(
                    CPU,
                    pid,
                    pid,
                    input + 10_000,
                    p.input_end - 10_000,
                    "RV Scroll",
                );
            }
            let steps = (a.ui_start + 60_000, z.input_end - 10_000);
            marks.push((InteractionSource::Scroll, "RV Scroll".into(), steps));
        }
        if let Some(name) = &b.section {
            let w = (a.ui_start - 50_000, z.ui_end + 50_000);
            s.slice(CPU, pid, pid, w.0, w.1, name);
            marks.push((InteractionSource::Section, name.clone(), w));
        }
        if let Some(name) = &b.cuj {
            let w = (a.expected_start - 1_000_000, z.actual_end + 1_000_000);
            let slice = format!("J<{name}>");
            Cuj {
                cpu: CPU,
                pid,
                slice: &slice,
                cookie: 100 + k as i64,
                start: w.0,
                end: w.1,
                begin_vsync: a.vsync_id,
                end_vsync: z.vsync_id,
            }
            .write(&mut s);
            marks.push((InteractionSource::Cuj, name.clone(), w));
        }
        // The highest-priority mark wins the burst's frames.
        marks.sort_by_key(|m| m.0);
        plan.push(match marks.into_iter().next() {
            Some((source, label, w)) => PlannedInteraction {
                source,
                label,
                frames: r.clone(),
                window: Some(w),
            },
            None => PlannedInteraction {
                source: InteractionSource::Idle,
                label: "burst".into(),
                frames: r.clone(),
                window: None,
            },
        });
    }
    if let Some((frame, nth)) = call {
        let (start, end) = trace.frames[frame].extra_ui[nth];
        binder_server(&mut s, &synth);
        let mut binder = Binder::default();
        binder.call((pid, pid), (SYSTEM_SERVER_PID, BINDER_TID), start, end);
        trace.bytes.extend(binder.packet());
    }
    trace.bytes.extend(encode(s, &synth));
    InteractionsTrace { trace, plan }
}

/// system_server and its binder thread.
fn binder_server(s: &mut Streams, cfg: &SynthConfig) {
    s.header.push(TracePacket {
        timestamp: Some((cfg.start_ns - 998_000_000) as u64),
        trusted_packet_sequence_id: Some(2),
        process_tree: Some(ProcessTree {
            processes: vec![process_tree::Process {
                pid: Some(SYSTEM_SERVER_PID),
                ppid: Some(1),
                cmdline: vec!["system_server".into()],
                uid: Some(1000),
                ..Default::default()
            }],
            threads: vec![process_tree::Thread {
                tid: Some(BINDER_TID),
                name: Some("binder:1000_2".into()),
                tgid: Some(SYSTEM_SERVER_PID),
            }],
            collection_end_timestamp: None,
        }),
        ..Default::default()
    });
}

/// system_server's launch of the app: `launchingActivity#1` over the window (an async slice
/// on its process track) and the `launchingActivity#1:completed-cold:PACKAGE` instant.
fn launch(s: &mut Streams, cfg: &SynthConfig, (start, end): (i64, i64)) {
    let ss = SYSTEM_SERVER_PID;
    s.header.push(TracePacket {
        timestamp: Some((cfg.start_ns - 999_000_000) as u64),
        trusted_packet_sequence_id: Some(2),
        process_tree: Some(ProcessTree {
            processes: vec![process_tree::Process {
                pid: Some(ss),
                ppid: Some(1),
                cmdline: vec!["system_server".into()],
                uid: Some(1000),
                ..Default::default()
            }],
            threads: Vec::new(),
            collection_end_timestamp: None,
        }),
        ..Default::default()
    });
    for (ts, phase) in [(start, 'S'), (end, 'F')] {
        s.ftrace.push((
            ts,
            CPU + 1,
            super::print(ts, ss, format!("{phase}|{ss}|launchingActivity#1|1")),
        ));
    }
    let done = format!("launchingActivity#1:completed-cold:{}", cfg.process_name);
    s.slice(CPU + 1, ss, ss, end + 1_000, end + 1_000, &done);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_covers_every_frame_once_in_order() {
        let t = generate_interactions(&InteractionsConfig::default());
        let mut next = 0;
        for p in &t.plan {
            assert_eq!(p.frames.start, next);
            next = p.frames.end;
        }
        assert_eq!(next, t.trace.frames.len());
        // Bursts are separated by the idle gap: 30 vsyncs without a frame.
        let f = &t.trace.frames;
        let gap = f[1].expected_start - f[0].expected_start;
        assert_eq!(gap, 31 * f[0].vsync_period_ns);
    }
}
