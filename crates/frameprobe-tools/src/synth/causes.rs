//! A synthetic trace with planted frame causes: every other frame of an app at 60 Hz is made
//! late by one known cause, and the plan says which and for how long.
//!
//! - a synchronous binder call from the UI thread to a system_server binder thread (raw
//!   binder_transaction / binder_transaction_received ftrace events, so the importer builds
//!   the `binder transaction` / `binder reply` slices and their flow as on a device), the
//!   server running an AIDL method;
//! - a contended monitor lock held by the app's `bg-worker` thread (ART's slice name);
//! - a GC wait (`GC: Wait For Completion Alloc`) while HeapTaskDaemon runs a GC;
//! - a Runnable stretch: the UI thread preempted by the `hog` thread of another app;
//! - a shader compile on the RenderThread.
//!
//! The UI thread sleeps through the waits (sched_switch with prev_state S) and is switched out
//! Runnable (prev_state R) for the preemption, on CPU 0: a little core by the CpuInfo packet's
//! capacities ([`CPU_CAPACITY`]), at [`CPU0_FREQ_KHZ`] by cpufreq. A CUJ (`J<SYNTH_CUJ>`) can
//! span the frames, with the FrameTracker markers trace_processor's `android.cujs` reads.

use super::{cfg_comm, header, Streams, SurfaceFrame, SynthConfig, APP_DEADLINE_MISSED, JANK_NONE};
use frameprobe::protos::{ftrace_event, process_tree, FtraceEvent, ProcessTree, TracePacket};
use frameprobe::trace::ftrace_ids as fid;
use frameprobe::trace::wire::{put_field, Value};

pub const APP_PID: i32 = 4242;
pub const APP_NAME: &str = "com.android.frameprobe.causes";
pub const RENDER_TID: i32 = 4263;
pub const OWNER_TID: i32 = 4250;
pub const GC_TID: i32 = 4251;
pub const SERVER_PID: i32 = 1000;
pub const BINDER_TID: i32 = 1010;
pub const HOG_PID: i32 = 5000;
pub const CUJ: &str = "J<SYNTH_CUJ>";
pub const AIDL_METHOD: &str = "AIDL::java::IPackageManager::getPackageInfo::server";
pub const LOCK_SLICE: &str = "monitor contention with owner bg-worker (4250) at void com.example.Cache.load()(Cache.java:10) waiters=0 blocking from void com.example.Ui.bind()(Ui.java:20)";
pub const GC_SLICE: &str = "young concurrent copying GC";
pub const OWNER_SLICE: &str = "Cache.load";

/// Each CPU's sysfs capacity in the CpuInfo packet: CPUs 0-1 little, 2-3 big.
pub const CPU_CAPACITY: [u32; 4] = [160, 160, 1024, 1024];
/// CPU 0's frequency (cpu_frequency) from before the first frame on.
pub const CPU0_FREQ_KHZ: u32 = 1_200_000;

const PERIOD: i64 = 16_666_667;
const MS: i64 = 1_000_000;

/// A planted cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    Binder,
    Lock,
    GcWait,
    Runnable,
    ShaderCompile,
}

impl Cause {
    pub const ALL: [Cause; 5] = [
        Cause::Binder,
        Cause::Lock,
        Cause::GcWait,
        Cause::Runnable,
        Cause::ShaderCompile,
    ];

    /// The frameprobe category the cause must be reported as.
    pub fn category(self) -> &'static str {
        match self {
            Cause::Binder => "binder",
            Cause::Lock => "monitor_contention",
            Cause::GcWait => "gc_wait",
            Cause::Runnable => "cpu_contention",
            Cause::ShaderCompile => "shader_compile",
        }
    }

    /// How long it lasts (all longer than the rest of the frame's work).
    pub fn ns(self) -> i64 {
        match self {
            Cause::Binder => 20 * MS,
            Cause::Lock => 18 * MS,
            Cause::GcWait => 17 * MS,
            Cause::Runnable => 19 * MS,
            Cause::ShaderCompile => 22 * MS,
        }
    }
}

/// The ground truth of one frame (boot-time nanoseconds).
#[derive(Debug, Clone)]
pub struct PlantedFrame {
    pub vsync_id: i64,
    pub expected_start: i64,
    pub actual_end: i64,
    pub ui_start: i64,
    pub ui_end: i64,
    pub rt_start: i64,
    pub rt_end: i64,
    /// The planted cause and its start; None for an on-time frame.
    pub cause: Option<Cause>,
    pub cause_start: i64,
}

pub struct PlantedTrace {
    pub bytes: Vec<u8>,
    pub frames: Vec<PlantedFrame>,
    pub layer_name: String,
    /// The CUJ's span, when one was written.
    pub cuj: Option<(i64, i64)>,
}

/// One stretch of a thread on a CPU and the state it leaves in (0 R, 1 S).
struct Run {
    cpu: u32,
    tid: i32,
    comm: String,
    start: i64,
    end: i64,
    exit: i64,
}

fn run(cpu: u32, tid: i32, comm: &str, start: i64, end: i64, exit: i64) -> Run {
    Run {
        cpu,
        tid,
        comm: comm.to_string(),
        start,
        end,
        exit,
    }
}

const S: i64 = 1;
const R: i64 = 0;

/// Binder driver events written raw (the generated protos do not carry them).
#[derive(Default)]
pub(super) struct Binder {
    events: Vec<(i64, i32, u32, Vec<u8>)>,
    next_id: u64,
}

fn varints(fields: &[(u32, u64)]) -> Vec<u8> {
    let mut b = Vec::new();
    for &(f, v) in fields {
        put_field(&mut b, f, Value::Varint(v));
    }
    b
}

impl Binder {
    /// A synchronous call from (`pid`, `tid`) served by `server_tid` of `server_pid`.
    pub(super) fn call(&mut self, from: (i32, i32), server: (i32, i32), start: i64, end: i64) {
        let (call, reply) = (self.next_id + 1, self.next_id + 2);
        self.next_id += 2;
        let txn = |id: u64, to: (i32, i32), is_reply: bool, flags: u64| {
            varints(&[
                (1, id),
                (2, 7),
                (3, to.0 as u64),
                (4, to.1 as u64),
                (5, is_reply as u64),
                (6, 3),
                (7, flags),
            ])
        };
        self.events.push((
            start,
            from.1,
            fid::BINDER_TRANSACTION,
            txn(call, (server.0, 0), false, 0x10),
        ));
        self.events.push((
            start + 50_000,
            server.1,
            fid::BINDER_TRANSACTION_RECEIVED,
            varints(&[(1, call)]),
        ));
        self.events.push((
            end - 50_000,
            server.1,
            fid::BINDER_TRANSACTION,
            txn(reply, from, true, 0),
        ));
        self.events.push((
            end,
            from.1,
            fid::BINDER_TRANSACTION_RECEIVED,
            varints(&[(1, reply)]),
        ));
    }

    /// The events as one ftrace bundle packet on CPU 3, framed as a `Trace.packet` field.
    pub(super) fn packet(mut self) -> Vec<u8> {
        self.events.sort_by_key(|e| e.0);
        let mut bundle = Vec::new();
        put_field(&mut bundle, 1, Value::Varint(3));
        for (ts, tid, id, payload) in &self.events {
            let mut ev = varints(&[(1, *ts as u64), (2, *tid as u64)]);
            put_field(&mut ev, *id, Value::Bytes(payload));
            put_field(&mut bundle, 2, Value::Bytes(&ev));
        }
        let mut packet = Vec::new();
        put_field(&mut packet, 1, Value::Bytes(&bundle));
        put_field(&mut packet, 10, Value::Varint(20));
        let mut out = Vec::new();
        put_field(&mut out, 1, Value::Bytes(&packet));
        out
    }
}

/// A CpuInfo packet (TracePacket field 67) with one Cpu per capacity, framed as a
/// `Trace.packet` field (the generated protos do not carry CpuInfo).
fn cpu_info_packet(capacities: &[u32]) -> Vec<u8> {
    let mut info = Vec::new();
    for &c in capacities {
        let mut cpu = Vec::new();
        put_field(&mut cpu, 1, Value::Bytes(b"AArch64 Processor"));
        put_field(&mut cpu, 3, Value::Varint(c as u64));
        put_field(&mut info, 1, Value::Bytes(&cpu));
    }
    let mut packet = Vec::new();
    put_field(&mut packet, 67, Value::Bytes(&info));
    put_field(&mut packet, 10, Value::Varint(21));
    let mut out = Vec::new();
    put_field(&mut out, 1, Value::Bytes(&packet));
    out
}

fn sched_from_runs(s: &mut Streams, mut runs: Vec<Run>) {
    runs.sort_by_key(|r| (r.cpu, r.start));
    for (k, r) in runs.iter().enumerate() {
        let prev = k
            .checked_sub(1)
            .map(|p| &runs[p])
            .filter(|p| p.cpu == r.cpu && p.end == r.start);
        let prev_state = prev.map_or(R, |p| p.exit);
        s.sched
            .push((r.start, r.cpu, prev_state, r.tid, 120, r.comm.clone()));
        let next = runs
            .get(k + 1)
            .filter(|n| n.cpu == r.cpu && n.start == r.end);
        if next.is_none() {
            s.sched
                .push((r.end, r.cpu, r.exit, 0, 120, format!("swapper/{}", r.cpu)));
        }
    }
}

fn extra_processes(s: &mut Streams, boot0: i64) {
    let proc = |pid: i32, cmdline: &str| process_tree::Process {
        pid: Some(pid),
        ppid: Some(1),
        cmdline: vec![cmdline.to_string()],
        uid: Some(10_124),
        ..Default::default()
    };
    let thread = |tid: i32, name: &str, tgid: i32| process_tree::Thread {
        tid: Some(tid),
        name: Some(name.to_string()),
        tgid: Some(tgid),
    };
    s.header.push(TracePacket {
        timestamp: Some((boot0 + 2_000) as u64),
        trusted_packet_sequence_id: Some(2),
        process_tree: Some(ProcessTree {
            processes: vec![
                proc(SERVER_PID, "system_server"),
                proc(HOG_PID, "com.example.hog"),
            ],
            threads: vec![
                thread(OWNER_TID, "bg-worker", APP_PID),
                thread(GC_TID, "HeapTaskDaemon", APP_PID),
                thread(BINDER_TID, "binder:1000_2", SERVER_PID),
                thread(HOG_PID, "hog", HOG_PID),
            ],
            collection_end_timestamp: None,
        }),
        ..Default::default()
    });
}

/// Generates the trace: an on-time frame, then each planted cause followed by an on-time
/// frame; frames three vsyncs apart so that no lateness carries over.
pub fn generate(with_cuj: bool) -> PlantedTrace {
    let cfg = SynthConfig {
        pid: APP_PID,
        process_name: APP_NAME.to_string(),
        frame_tracer: false,
        ..SynthConfig::default()
    };
    let layer = format!("{APP_NAME}/{APP_NAME}.MainActivity#0");
    let ui_comm = cfg_comm(APP_NAME);
    let ui_comm = ui_comm.as_str();
    let mut s = Streams::default();
    header(&mut s, &cfg, RENDER_TID, PERIOD);
    extra_processes(&mut s, cfg.start_ns - 1_000_000_000);
    let mut runs = Vec::new();
    let mut binder = Binder::default();
    let t0 = cfg.start_ns - 100 * MS;
    runs.push(run(0, APP_PID, ui_comm, t0, t0 + MS, S));
    runs.push(run(1, RENDER_TID, "RenderThread", t0, t0 + MS, S));
    // trace_processor takes each CPU's first compact switch only to learn who runs there.
    runs.push(run(2, BINDER_TID, "binder:1000_2", t0, t0 + MS, S));
    s.ftrace.push((
        t0,
        0,
        FtraceEvent {
            timestamp: Some(t0 as u64),
            pid: Some(0),
            event: Some(ftrace_event::Event::CpuFrequency(
                frameprobe::protos::CpuFrequencyFtraceEvent {
                    state: Some(CPU0_FREQ_KHZ),
                    cpu_id: Some(0),
                },
            )),
            ..Default::default()
        },
    ));
    let (app, pid) = (APP_PID, APP_PID);
    let mut plan: Vec<Option<Cause>> = vec![None];
    for c in Cause::ALL {
        plan.push(Some(c));
        plan.push(None);
    }
    let mut frames = Vec::new();
    let mut cookie = 1;
    for (i, cause) in plan.iter().copied().enumerate() {
        let v = cfg.start_ns + i as i64 * 3 * PERIOD;
        let vsync_id = 100_000 + i as i64 * 3;
        let ui_start = v + MS / 2;
        let on_ui = cause.is_some_and(|c| c != Cause::ShaderCompile);
        let planted = cause.map_or(0, Cause::ns);
        let x0 = ui_start + MS;
        let x1 = x0 + if on_ui { planted } else { 0 };
        let ui_end = x1 + 2 * MS;
        s.slice(
            0,
            app,
            pid,
            ui_start,
            ui_end,
            &format!("Choreographer#doFrame {vsync_id}"),
        );
        match cause {
            Some(Cause::Binder) => {
                runs.push(run(0, app, ui_comm, ui_start, x0, S));
                runs.push(run(0, app, ui_comm, x1, ui_end, S));
                binder.call((pid, app), (SERVER_PID, BINDER_TID), x0, x1);
                runs.push(run(
                    2,
                    BINDER_TID,
                    "binder:1000_2",
                    x0 + 50_000,
                    x1 - 50_000,
                    S,
                ));
                s.slice(
                    2,
                    BINDER_TID,
                    SERVER_PID,
                    x0 + 100_000,
                    x1 - 100_000,
                    AIDL_METHOD,
                );
            }
            Some(Cause::Lock) => {
                runs.push(run(0, app, ui_comm, ui_start, x0, S));
                runs.push(run(0, app, ui_comm, x1, ui_end, S));
                s.slice(0, app, pid, x0, x1, LOCK_SLICE);
                runs.push(run(2, OWNER_TID, "bg-worker", x0 - 2 * MS, x1, S));
                s.slice(2, OWNER_TID, pid, x0 - 2 * MS, x1, OWNER_SLICE);
            }
            Some(Cause::GcWait) => {
                runs.push(run(0, app, ui_comm, ui_start, x0, S));
                runs.push(run(0, app, ui_comm, x1, ui_end, S));
                s.slice(0, app, pid, x0, x1, "GC: Wait For Completion Alloc");
                runs.push(run(2, GC_TID, "HeapTaskDaemon", x0 - 3 * MS, x1, S));
                s.slice(2, GC_TID, pid, x0 - 3 * MS, x1, GC_SLICE);
            }
            Some(Cause::Runnable) => {
                runs.push(run(0, app, ui_comm, ui_start, x0, R));
                runs.push(run(0, HOG_PID, "hog", x0, x1, S));
                runs.push(run(0, app, ui_comm, x1, ui_end, S));
            }
            Some(Cause::ShaderCompile) | None => {
                runs.push(run(0, app, ui_comm, ui_start, ui_end, S));
            }
        }
        let rt_start = ui_end;
        let shader = if cause == Some(Cause::ShaderCompile) {
            planted
        } else {
            0
        };
        let rt_end = rt_start + 2 * MS + shader;
        s.slice(
            1,
            RENDER_TID,
            pid,
            rt_start,
            rt_end,
            &format!("DrawFrames {vsync_id}"),
        );
        if shader > 0 {
            let a = rt_start + MS / 2;
            s.slice(1, RENDER_TID, pid, a, a + shader, "shader_compile");
        }
        runs.push(run(1, RENDER_TID, "RenderThread", rt_start, rt_end, S));
        let actual_end = rt_end + MS;
        let late = actual_end > v + PERIOD;
        s.surface_frame(
            &mut cookie,
            cfg.boot_minus_mono_ns,
            &SurfaceFrame {
                vsync_id,
                display_token: 500_000 + i as i64 * 3 + 1,
                pid,
                layer: &layer,
                expected_start: v,
                expected_end: v + PERIOD,
                actual_start: ui_start,
                actual_end,
                jank_type: if late { APP_DEADLINE_MISSED } else { JANK_NONE },
                period: PERIOD,
            },
        );
        frames.push(PlantedFrame {
            vsync_id,
            expected_start: v,
            actual_end,
            ui_start,
            ui_end,
            rt_start,
            rt_end,
            cause,
            cause_start: if on_ui { x0 } else { rt_start + MS / 2 },
        });
    }
    let cuj = with_cuj.then(|| cuj_markers(&mut s, &frames));
    sched_from_runs(&mut s, runs);
    let mut bytes = super::encode(s, &cfg);
    bytes.extend(binder.packet());
    bytes.extend(cpu_info_packet(&CPU_CAPACITY));
    PlantedTrace {
        bytes,
        frames,
        layer_name: layer,
        cuj,
    }
}

/// A CUJ over every frame: the `J<…>` async slice on the app's process track and the
/// FrameTracker markers (`#UIThread` on the UI thread, begin / end vsync ids).
fn cuj_markers(s: &mut Streams, frames: &[PlantedFrame]) -> (i64, i64) {
    let first = &frames[0];
    let last = &frames[frames.len() - 1];
    let (start, end) = (first.expected_start - MS, last.actual_end + MS);
    let cuj = Cuj {
        cpu: 0,
        pid: APP_PID,
        slice: CUJ,
        cookie: 7,
        start,
        end,
        begin_vsync: first.vsync_id,
        end_vsync: last.vsync_id,
    };
    cuj.write(s);
    (start, end)
}

/// A CUJ as FrameTracker traces it: the `J<NAME>` async slice on the app's process track,
/// and instants on the UI thread (here the main thread) naming the UI thread, the layer and
/// the begin / end vsync ids, which trace_processor's `android.cujs` reads.
pub(super) struct Cuj<'a> {
    /// The CPU whose ftrace stream carries the events.
    pub cpu: u32,
    pub pid: i32,
    /// `J<NAME>`.
    pub slice: &'a str,
    pub cookie: i64,
    pub start: i64,
    pub end: i64,
    pub begin_vsync: i64,
    pub end_vsync: i64,
}

impl Cuj<'_> {
    pub(super) fn write(&self, s: &mut Streams) {
        let (pid, name) = (self.pid, self.slice);
        for (ts, phase) in [(self.start, 'S'), (self.end, 'F')] {
            s.ftrace.push((
                ts,
                self.cpu,
                super::print(ts, pid, format!("{phase}|{pid}|{name}|{}", self.cookie)),
            ));
        }
        let marks = [
            (self.start + 1_000, format!("{name}#UIThread")),
            (
                self.start + 2_000,
                format!("{name}#FT#beginVsync#{}", self.begin_vsync),
            ),
            (self.start + 3_000, format!("{name}#FT#layerId#0")),
            (
                self.end - 1_000,
                format!("{name}#FT#endVsync#{}", self.end_vsync),
            ),
        ];
        for (ts, mark) in marks {
            s.slice(self.cpu, pid, pid, ts, ts, &mark);
        }
    }
}

impl PlantedTrace {
    /// Only the planted frames.
    pub fn planted(&self) -> impl Iterator<Item = &PlantedFrame> {
        self.frames.iter().filter(|f| f.cause.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn every_cause_is_planted_once_and_makes_its_frame_late() {
        let t = generate(false);
        let planted: Vec<_> = t.planted().collect();
        assert_eq!(planted.len(), Cause::ALL.len());
        for f in planted {
            assert!(f.actual_end > f.expected_start + PERIOD, "{:?}", f.cause);
        }
        for f in t.frames.iter().filter(|f| f.cause.is_none()) {
            assert!(f.actual_end <= f.expected_start + PERIOD);
        }
        // The trace decodes as a Trace message.
        assert!(frameprobe::protos::Trace::decode(t.bytes.as_slice()).is_ok());
    }
}
