//! FrameTracer GraphicsFrameEvent buffer events (TracePacket field 57), imported as
//! trace_processor does: a zero-duration slice per event on "Buffer: <id> <layer>", and the
//! phases rebuilt per buffer id + layer: APP_ (Dequeue→Queue), GPU_ (Queue→AcquireFence),
//! SF_ (Latch→PresentFence) and Display_<layer> (present→next present).

use prost::Message;
use rustc_hash::FxHashMap;

use super::Ctx;
use crate::protos::GraphicsFrameEvent;
use crate::store::args::{ArgValue, ArgsBuilder};
use crate::store::slices::SliceTracker;
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{EventType, FrameSliceRow, Severity, SliceId, TrackId, TrackScope};

const KIND: &str = "graphics_frame_event";
const PARSER_ERROR: &str = "graphics_frame_event_parser_errors";
const PARSER_ERROR_DESC: &str =
    "GraphicsFrameEvent buffer events without a buffer id, or of a type without a phase.";

mod ev {
    pub const DEQUEUE: i32 = 1;
    pub const QUEUE: i32 = 2;
    pub const ACQUIRE_FENCE: i32 = 4;
    pub const LATCH: i32 = 5;
    pub const PRESENT_FENCE: i32 = 8;
}

const EVENT_NAMES: [&str; 14] = [
    "unspecified_event",
    "Dequeue",
    "Queue",
    "Post",
    "AcquireFenceSignaled",
    "Latch",
    "HWCCompositionQueued",
    "FallbackComposition",
    "PresentFenceSignaled",
    "ReleaseFenceSignaled",
    "Modify",
    "Detach",
    "Attach",
    "Cancel",
];

/// Per buffer+layer timestamps used for the latency args of each raw event.
#[derive(Default)]
struct BufferTimes {
    queue_ts: i64,
    acquire_ts: i64,
    latch_ts: i64,
}

/// The open phase of a buffer+layer.
#[derive(Clone, Copy)]
enum Phase {
    None,
    Dequeued { slice: SliceId, ts: i64 },
    Queued { track: TrackId },
    Latched { track: TrackId },
}

struct PhaseState {
    phase: Phase,
    last_acquire_ts: Option<i64>,
}

/// The tracks an event goes on, each named after its buffer and layer.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Lane {
    Buffer,
    App,
    Gpu,
    Sf,
    Display,
}

/// A buffer and layer as the event names them: `named` tells a missing layer name (shown
/// as "") from one spelled "no_layer_name", which share `layer_id`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct BufferLayer {
    buffer_id: u32,
    named: bool,
    layer_id: StrId,
}

#[derive(Default)]
pub struct GraphicsFrameImporter {
    buffers: FxHashMap<StrId, BufferTimes>,
    phases: FxHashMap<StrId, PhaseState>,
    /// Display_ track of each layer once it has presented.
    display: FxHashMap<StrId, TrackId>,
    /// The id of each buffer and layer's "<buffer id><layer>" text, the key trace_processor
    /// tracks a buffer by (two buffers whose texts coincide share it, as there).
    keys: FxHashMap<BufferLayer, StrId>,
    /// Each lane's track, found once: formatting and interning its name took a fifth of a
    /// long session's import.
    tracks: FxHashMap<(Lane, BufferLayer, Option<u32>), TrackId>,
}

struct Event<'a> {
    ts: i64,
    kind: i32,
    has_kind: bool,
    frame_number: u32,
    layer: &'a str,
    buffer: BufferLayer,
    key: StrId,
    duration: i64,
    machine_id: Option<u32>,
}

impl GraphicsFrameImporter {
    pub fn event(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8], machine_id: Option<u32>) {
        let Ok(frame) = GraphicsFrameEvent::decode(data) else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let Some(b) = frame.buffer_event else { return };
        let Some(buffer_id) = b.buffer_id else {
            ctx.store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC);
            return;
        };
        let layer = b.layer_name.as_deref().unwrap_or("");
        let buffer = BufferLayer {
            buffer_id,
            named: b.layer_name.is_some(),
            layer_id: match &b.layer_name {
                Some(l) => ctx.store.intern(l),
                None => ctx.store.intern_static("no_layer_name"),
            },
        };
        let key = *self
            .keys
            .entry(buffer)
            .or_insert_with(|| ctx.store.intern(&format!("{buffer_id}{layer}")));
        let e = Event {
            ts,
            kind: b.r#type.unwrap_or(0),
            has_kind: b.r#type.is_some(),
            frame_number: b.frame_number.unwrap_or(0),
            layer,
            buffer,
            key,
            duration: b.duration_ns.map(|d| d as i64).unwrap_or(0),
            machine_id,
        };
        self.buffer_event(ctx, &e);
        self.phase_event(ctx, &e);
    }

    /// The event's track on `lane`: "Buffer: <id> <layer>", "APP_<id> <layer>", ...,
    /// "Display_<layer>".
    fn track(&mut self, ctx: &mut Ctx, lane: Lane, e: &Event<'_>) -> TrackId {
        let mut buffer = e.buffer;
        if lane == Lane::Display {
            buffer.buffer_id = 0;
        }
        *self
            .tracks
            .entry((lane, buffer, e.machine_id))
            .or_insert_with(|| {
                let (id, layer) = (e.buffer.buffer_id, e.layer);
                let name = match lane {
                    Lane::Buffer => format!("Buffer: {id} {layer}"),
                    Lane::App => format!("APP_{id} {layer}"),
                    Lane::Gpu => format!("GPU_{id} {layer}"),
                    Lane::Sf => format!("SF_{id} {layer}"),
                    Lane::Display => format!("Display_{layer}"),
                };
                let name = ctx.store.intern(&name);
                let spec = TrackSpec::new(KIND, EventType::Slice, TrackScope::Global)
                    .name_dimension(name)
                    .machine(e.machine_id);
                ctx.tracks.intern(&mut ctx.store, spec)
            })
    }

    fn buffer_event(&mut self, ctx: &mut Ctx, e: &Event<'_>) {
        let t = self.buffers.entry(e.key).or_default();
        match e.kind {
            ev::DEQUEUE => {}
            ev::ACQUIRE_FENCE => t.acquire_ts = e.ts,
            ev::QUEUE => t.queue_ts = e.ts,
            ev::LATCH => t.latch_ts = e.ts,
            _ => ctx
                .store
                .stat(PARSER_ERROR, Severity::Error, PARSER_ERROR_DESC),
        }
        let queue_to_acquire = (t.acquire_ts - t.queue_ts).max(0);
        let acquire_to_latch = t.latch_ts - t.acquire_ts;
        let latch_to_present = e.ts - t.latch_ts;
        let name = match usize::try_from(e.kind)
            .ok()
            .and_then(|k| EVENT_NAMES.get(k))
        {
            Some(n) if e.has_kind => *n,
            _ => "unknown_event",
        };
        let track = self.track(ctx, Lane::Buffer, e);
        let s = &mut ctx.store;
        let mut a = ArgsBuilder::default();
        a.add(
            s.intern_static("frame_number"),
            ArgValue::Int(e.frame_number as i64),
        )
        .add(
            s.intern_static("layer_name"),
            ArgValue::Str(e.buffer.layer_id),
        )
        .add(
            s.intern_static("queue_to_acquire_time"),
            ArgValue::Int(queue_to_acquire),
        )
        .add(
            s.intern_static("acquire_to_latch_time"),
            ArgValue::Int(acquire_to_latch),
        )
        .add(
            s.intern_static("latch_to_present_time"),
            ArgValue::Int(latch_to_present),
        );
        let args = s.args.insert_set(a.args);
        let name = Some(s.intern_static(name));
        if let Some(id) =
            ctx.slices
                .scoped(&mut ctx.store, e.ts, track, None, name, e.duration, args)
        {
            ctx.store.frame_slices.push(FrameSliceRow {
                slice_id: id,
                layer_name: Some(e.buffer.layer_id),
                frame_number: Some(e.frame_number as i64),
                queue_to_acquire_time: Some(queue_to_acquire),
                acquire_to_latch_time: Some(acquire_to_latch),
                latch_to_present_time: Some(latch_to_present),
            });
        }
    }

    /// Opens a phase slice named after the frame number (or the timestamp for frame 0).
    fn phase_slice(&self, ctx: &mut Ctx, e: &Event<'_>, track: TrackId) -> Option<SliceId> {
        let s = &mut ctx.store;
        let name = Some(s.intern_int(if e.frame_number != 0 {
            e.frame_number.into()
        } else {
            e.ts
        }));
        let mut a = ArgsBuilder::default();
        a.add(
            s.intern_static("frame_number"),
            ArgValue::Int(e.frame_number as i64),
        )
        .add(
            s.intern_static("layer_name"),
            ArgValue::Str(e.buffer.layer_id),
        );
        let args = s.args.insert_set(a.args);
        let id = ctx
            .slices
            .begin(&mut ctx.store, e.ts, track, None, name, args)?;
        ctx.store.frame_slices.push(FrameSliceRow {
            slice_id: id,
            layer_name: Some(e.buffer.layer_id),
            frame_number: Some(e.frame_number as i64),
            ..Default::default()
        });
        Some(id)
    }

    /// Renames an APP_ phase whose Queue never came to "0" with frame number 0.
    fn abandon_dequeue(ctx: &mut Ctx, slice: SliceId) {
        let zero = ctx.store.intern_static("0");
        ctx.store.slices[slice as usize].name = Some(zero);
        let track = ctx.store.slices[slice as usize].track_id;
        // Like trace_processor, the frame number goes on the innermost open slice of the track.
        if let Some(top) = open_slice_on(ctx, track) {
            let k = ctx.store.intern_static("frame_number");
            SliceTracker::add_args(&mut ctx.store, top, vec![(k, ArgValue::Int(0))]);
            set_frame_number(ctx, top, 0);
        }
    }

    fn phase_event(&mut self, ctx: &mut Ctx, e: &Event<'_>) {
        let st = self.phases.entry(e.key).or_insert(PhaseState {
            phase: Phase::None,
            last_acquire_ts: None,
        });
        match e.kind {
            ev::DEQUEUE => {
                if let Phase::Dequeued { slice, .. } = st.phase {
                    Self::abandon_dequeue(ctx, slice);
                    st.phase = Phase::None;
                }
                let track = self.track(ctx, Lane::App, e);
                let res = self.phase_slice(ctx, e, track);
                if let Some(slice) = res {
                    self.phases.get_mut(&e.key).unwrap().phase =
                        Phase::Dequeued { slice, ts: e.ts };
                }
            }
            ev::QUEUE => {
                if let Phase::Dequeued {
                    slice,
                    ts: dequeue_ts,
                } = st.phase
                {
                    let track = ctx.store.slices[slice as usize].track_id;
                    if let Some(ended) = ctx.slices.end(&mut ctx.store, e.ts, track, None, None) {
                        let k = ctx.store.intern_static("frame_number");
                        let v = ArgValue::Int(e.frame_number as i64);
                        SliceTracker::add_args(&mut ctx.store, ended, vec![(k, v)]);
                        set_frame_number(ctx, ended, e.frame_number as i64);
                    }
                    let name = ctx.store.intern_int(e.frame_number.into());
                    ctx.store.slices[slice as usize].name = Some(name);
                    // The acquire fence signalled before this queue: no GPU wait to show.
                    if st.last_acquire_ts.is_some_and(|a| a > dequeue_ts) {
                        st.phase = Phase::None;
                        return;
                    }
                }
                let track = self.track(ctx, Lane::Gpu, e);
                self.phase_slice(ctx, e, track);
                self.phases.get_mut(&e.key).unwrap().phase = Phase::Queued { track };
            }
            ev::ACQUIRE_FENCE => {
                if let Phase::Queued { track } = st.phase {
                    ctx.slices.end(&mut ctx.store, e.ts, track, None, None);
                    st.phase = Phase::None;
                }
                st.last_acquire_ts = Some(e.ts);
            }
            ev::LATCH => {
                if let Phase::Dequeued { slice, .. } = st.phase {
                    Self::abandon_dequeue(ctx, slice);
                }
                let track = self.track(ctx, Lane::Sf, e);
                self.phase_slice(ctx, e, track);
                self.phases.get_mut(&e.key).unwrap().phase = Phase::Latched { track };
            }
            ev::PRESENT_FENCE => {
                if let Phase::Latched { track } = st.phase {
                    ctx.slices.end(&mut ctx.store, e.ts, track, None, None);
                    st.phase = Phase::None;
                }
                // trace_processor ends the previous present of the layer on its Display_ track;
                // for a layer's first present it looks up a default (zero) track id and so ends
                // whatever is open on track 0. Mirrored so both tools build the same slices.
                let prev = self.display.get(&e.buffer.layer_id).copied().unwrap_or(0);
                ctx.slices.end(&mut ctx.store, e.ts, prev, None, None);
                let track = self.track(ctx, Lane::Display, e);
                self.phase_slice(ctx, e, track);
                self.display.insert(e.buffer.layer_id, track);
            }
            _ => {}
        }
    }

    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}

fn open_slice_on(ctx: &Ctx, track: TrackId) -> Option<SliceId> {
    ctx.slices.innermost_open(&ctx.store, track)
}

fn set_frame_number(ctx: &mut Ctx, slice: SliceId, n: i64) {
    if let Some(row) = ctx
        .store
        .frame_slices
        .iter_mut()
        .rev()
        .find(|r| r.slice_id == slice)
    {
        row.frame_number = Some(n);
    }
}

#[cfg(test)]
mod tests {
    //! One case per FrameTracer phase rule (trace_processor's GraphicsFrameEventParser).
    use super::*;
    use crate::protos::graphics_frame_event::{BufferEvent, BufferEventType as T};

    struct Run {
        ctx: Ctx,
        imp: GraphicsFrameImporter,
    }

    impl Run {
        fn new() -> Self {
            Run {
                ctx: Ctx::new(),
                imp: GraphicsFrameImporter::default(),
            }
        }
        fn ev(
            &mut self,
            ts: i64,
            kind: Option<i32>,
            buffer: Option<u32>,
            frame: u32,
            layer: Option<&str>,
        ) {
            let e = GraphicsFrameEvent {
                buffer_event: Some(BufferEvent {
                    frame_number: Some(frame),
                    r#type: kind,
                    layer_name: layer.map(str::to_string),
                    duration_ns: None,
                    buffer_id: buffer,
                }),
            };
            self.imp.event(&mut self.ctx, ts, &e.encode_to_vec(), None);
        }
        fn at(&mut self, ts: i64, kind: T, buffer: u32, frame: u32, layer: &str) {
            self.ev(ts, Some(kind as i32), Some(buffer), frame, Some(layer));
        }
        /// (ts, dur, slice name) of the slices on the track with this name.
        fn track(&self, name: &str) -> Vec<(i64, i64, String)> {
            let s = &self.ctx.store;
            let ids: Vec<u32> = (0..s.tracks.len() as u32)
                .filter(|&i| s.opt_str(s.tracks[i as usize].name) == Some(name))
                .collect();
            s.slices
                .iter()
                .filter(|r| ids.contains(&r.track_id))
                .map(|r| (r.ts, r.dur, s.opt_str(r.name).unwrap_or("").to_string()))
                .collect()
        }
    }

    fn full_frame(r: &mut Run, t0: i64, buffer: u32, frame: u32, layer: &str) {
        r.at(t0, T::Dequeue, buffer, frame, layer);
        r.at(t0 + 10, T::Queue, buffer, frame, layer);
        r.at(t0 + 15, T::AcquireFence, buffer, frame, layer);
        r.at(t0 + 20, T::Latch, buffer, frame, layer);
        r.at(t0 + 30, T::PresentFence, buffer, frame, layer);
    }

    #[test]
    fn complete_frame_builds_every_phase() {
        let mut r = Run::new();
        full_frame(&mut r, 100, 1, 7, "L");
        assert_eq!(r.track("APP_1 L"), [(100, 10, "7".to_string())]);
        assert_eq!(r.track("GPU_1 L"), [(110, 5, "7".to_string())]);
        assert_eq!(r.track("SF_1 L"), [(120, 10, "7".to_string())]);
        // The last present of a layer has no next present: its Display_ slice stays open.
        assert_eq!(r.track("Display_L"), [(130, -1, "7".to_string())]);
        assert_eq!(r.track("Buffer: 1 L").len(), 5);
    }

    #[test]
    fn display_phase_runs_present_to_present() {
        let mut r = Run::new();
        full_frame(&mut r, 100, 1, 7, "L");
        full_frame(&mut r, 200, 2, 8, "L");
        assert_eq!(
            r.track("Display_L"),
            [(130, 100, "7".to_string()), (230, -1, "8".to_string())]
        );
    }

    #[test]
    fn missing_queue_renames_the_app_phase_to_zero() {
        let mut r = Run::new();
        r.at(100, T::Dequeue, 1, 7, "L");
        // A second dequeue while the first is still open: the first is abandoned.
        r.at(150, T::Dequeue, 1, 8, "L");
        r.at(160, T::Queue, 1, 8, "L");
        let app = r.track("APP_1 L");
        assert_eq!(app[0].2, "0", "abandoned dequeue is renamed 0");
        assert_eq!(app[1], (150, 10, "8".to_string()));
        let s = &r.ctx.store;
        let zero = s.frame_slices.iter().find(|f| {
            s.slices[f.slice_id as usize].ts == 100
                && s.opt_str(s.slices[f.slice_id as usize].name) == Some("0")
        });
        assert_eq!(zero.unwrap().frame_number, Some(0));
    }

    #[test]
    fn latch_while_dequeued_also_abandons_the_app_phase() {
        let mut r = Run::new();
        r.at(100, T::Dequeue, 1, 7, "L");
        r.at(120, T::Latch, 1, 7, "L");
        assert_eq!(r.track("APP_1 L")[0].2, "0");
        assert_eq!(r.track("SF_1 L"), [(120, -1, "7".to_string())]);
    }

    #[test]
    fn missing_acquire_leaves_the_gpu_phase_open() {
        let mut r = Run::new();
        r.at(100, T::Dequeue, 1, 7, "L");
        r.at(110, T::Queue, 1, 7, "L");
        r.at(120, T::Latch, 1, 7, "L");
        assert_eq!(r.track("GPU_1 L"), [(110, -1, "7".to_string())]);
    }

    #[test]
    fn acquire_before_queue_starts_no_gpu_phase() {
        let mut r = Run::new();
        r.at(100, T::Dequeue, 1, 7, "L");
        r.at(105, T::AcquireFence, 1, 7, "L");
        r.at(110, T::Queue, 1, 7, "L");
        assert_eq!(r.track("APP_1 L"), [(100, 10, "7".to_string())]);
        assert!(r.track("GPU_1 L").is_empty());
    }

    #[test]
    fn one_buffer_in_two_layers_keeps_separate_phases() {
        let mut r = Run::new();
        r.at(100, T::Dequeue, 1, 7, "A");
        r.at(101, T::Dequeue, 1, 9, "B");
        r.at(110, T::Queue, 1, 7, "A");
        r.at(120, T::Queue, 1, 9, "B");
        assert_eq!(r.track("APP_1 A"), [(100, 10, "7".to_string())]);
        assert_eq!(r.track("APP_1 B"), [(101, 19, "9".to_string())]);
    }

    #[test]
    fn unknown_type_is_named_unknown_event_and_counted() {
        let mut r = Run::new();
        r.ev(100, Some(42), Some(1), 7, Some("L"));
        r.ev(101, None, Some(1), 7, Some("L"));
        let raw = r.track("Buffer: 1 L");
        assert_eq!(raw[0].2, "unknown_event");
        assert_eq!(raw[1].2, "unknown_event");
        assert_eq!(r.ctx.store.stat_value(PARSER_ERROR), 2);
    }

    #[test]
    fn no_layer_name_still_makes_tracks() {
        let mut r = Run::new();
        r.ev(100, Some(T::Dequeue as i32), Some(3), 7, None);
        r.ev(110, Some(T::Queue as i32), Some(3), 7, None);
        assert_eq!(r.track("Buffer: 3 ").len(), 2);
        assert_eq!(r.track("APP_3 "), [(100, 10, "7".to_string())]);
        let s = &r.ctx.store;
        assert_eq!(
            s.opt_str(s.frame_slices[0].layer_name),
            Some("no_layer_name")
        );
    }

    /// A missing layer name and one spelled "no_layer_name" share the frame slices' layer
    /// name, but not their tracks, phases or Display_ track; and tracks found again later
    /// (each name is looked up once) are the same ones.
    #[test]
    fn a_missing_layer_name_is_not_the_one_spelled_no_layer_name() {
        let mut r = Run::new();
        let ev = |r: &mut Run, ts, t: T, frame, layer| {
            r.ev(ts, Some(t as i32), Some(3), frame, layer);
        };
        ev(&mut r, 100, T::Dequeue, 7, None);
        ev(&mut r, 105, T::Dequeue, 8, Some("no_layer_name"));
        ev(&mut r, 110, T::Queue, 7, None);
        ev(&mut r, 120, T::Queue, 8, Some("no_layer_name"));
        ev(&mut r, 130, T::PresentFence, 7, None);
        ev(&mut r, 140, T::PresentFence, 8, Some("no_layer_name"));
        ev(&mut r, 150, T::Dequeue, 9, None);
        ev(&mut r, 160, T::Queue, 9, None);
        assert_eq!(
            r.track("APP_3 "),
            [(100, 10, "7".to_string()), (150, 10, "9".to_string())]
        );
        assert_eq!(r.track("APP_3 no_layer_name"), [(105, 15, "8".to_string())]);
        assert_eq!(r.track("Buffer: 3 ").len(), 5);
        assert_eq!(r.track("Buffer: 3 no_layer_name").len(), 3);
        // The two share the layer's last present: the second ends the first's Display_ slice.
        assert_eq!(r.track("Display_"), [(130, 10, "7".to_string())]);
        assert_eq!(
            r.track("Display_no_layer_name"),
            [(140, -1, "8".to_string())]
        );
    }

    #[test]
    fn events_without_a_buffer_id_are_counted_and_dropped() {
        let mut r = Run::new();
        r.ev(100, Some(T::Dequeue as i32), None, 7, Some("L"));
        assert!(r.ctx.store.slices.is_empty());
        assert_eq!(r.ctx.store.stat_value(PARSER_ERROR), 1);
    }
}
