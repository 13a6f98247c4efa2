//! DMA fences and DRM vblanks (trace_processor's drm tracker):
//! - a fence timeline (one per fence context) is a global track "fence-<timeline>-<context>"
//!   holding one "fence" slice at a time, from a fence's creation (`dma_fence_init`, or
//!   `dma_fence_emit` on timelines that have it) to its signal; later fences queue behind;
//! - `dma_fence_wait_start/end` are "dma_fence_wait" slices on the waiting thread's track;
//! - `drm_vblank_event(_delivered)` are "signal" / "deliver" instants on "vblank-<crtc>".
//!
//! GPU scheduler jobs (`drm_sched_*`, `drm_run_job`) are not imported: Android phone GPUs
//! (Mali, Adreno, PowerVR) do not use the DRM scheduler.

use std::collections::VecDeque;

use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec, TrackTracker};
use crate::store::{EventType, Store, TrackId, TrackScope};
use crate::trace::wire::{Fields, Value};

/// Meta-fences (arrays, chains) live on "unbound" timelines created on the fly; they are
/// ignored rather than given a track each.
const UNBOUND_TIMELINE: &[u8] = b"unbound";

/// One fence context: its track and the fences not yet signaled, oldest first.
struct Timeline {
    track: TrackId,
    pending: VecDeque<u32>,
    /// Once a timeline reports `dma_fence_emit`, its (earlier) init events are ignored.
    has_emit: bool,
}

#[derive(Clone, Copy)]
struct Names {
    fence: StrId,
    wait: StrId,
    context: StrId,
    seqno: StrId,
    vblank_signal: StrId,
    vblank_deliver: StrId,
    vblank_seqno: StrId,
}

impl Names {
    fn new(s: &mut Store) -> Names {
        Names {
            fence: s.intern("fence"),
            wait: s.intern("dma_fence_wait"),
            context: s.intern("fence context"),
            seqno: s.intern("fence seqno"),
            vblank_signal: s.intern("signal"),
            vblank_deliver: s.intern("deliver"),
            vblank_seqno: s.intern("vblank seqno"),
        }
    }
}

/// The fields of a dma_fence_* event: context (1), driver (2), seqno (3), timeline (4).
struct Fence<'a> {
    context: u32,
    seqno: u32,
    timeline: &'a [u8],
}

fn decode_fence(data: &[u8]) -> Fence<'_> {
    let mut f = Fence {
        context: 0,
        seqno: 0,
        timeline: &[],
    };
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        match (id, v) {
            (1, v) => f.context = v.as_u32(),
            (3, v) => f.seqno = v.as_u32(),
            (4, Value::Bytes(b)) => f.timeline = b,
            _ => {}
        }
    }
    f
}

#[derive(Default)]
pub struct DrmEvents {
    names: Option<Names>,
    timelines: rustc_hash::FxHashMap<u32, Timeline>,
}

impl DrmEvents {
    fn names(&mut self, store: &mut Store) -> Names {
        *self.names.get_or_insert_with(|| Names::new(store))
    }

    /// The timeline of a fence context, created (and named) on first sight.
    fn timeline<'a>(
        timelines: &'a mut rustc_hash::FxHashMap<u32, Timeline>,
        ctx: &mut Ctx,
        f: &Fence<'_>,
    ) -> &'a mut Timeline {
        timelines.entry(f.context).or_insert_with(|| {
            let timeline = String::from_utf8_lossy(f.timeline);
            let name = ctx.store.intern(&format!("fence-{timeline}-{}", f.context));
            let dims = [
                ("name", DimValue::Str(&timeline)),
                ("context", DimValue::Int(f.context as i64)),
            ];
            let spec = TrackSpec::new("drm_fence", EventType::Slice, TrackScope::Global)
                .named(name)
                .dims(&dims)
                .machine(ctx.procs.machine_id);
            Timeline {
                track: TrackTracker::create(&mut ctx.store, spec),
                pending: VecDeque::new(),
                has_emit: false,
            }
        })
    }

    /// Opens the "fence" slice of the oldest pending fence.
    fn begin_fence_slice(ctx: &mut Ctx, names: Names, ts: i64, tl: &Timeline) {
        let Some(&seqno) = tl.pending.front() else {
            return;
        };
        let args = ctx
            .store
            .args
            .insert_set(vec![(names.seqno, ArgValue::UInt(seqno as u64))]);
        ctx.slices
            .begin(&mut ctx.store, ts, tl.track, None, Some(names.fence), args);
    }

    pub fn fence_init(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode_fence(data);
        if f.timeline == UNBOUND_TIMELINE {
            return;
        }
        let names = self.names(&mut ctx.store);
        let tl = Self::timeline(&mut self.timelines, ctx, &f);
        if tl.has_emit {
            return;
        }
        tl.pending.push_back(f.seqno);
        if tl.pending.len() == 1 {
            Self::begin_fence_slice(ctx, names, ts, tl);
        }
    }

    /// The first emit on a timeline drops what init events queued (emit is more accurate).
    pub fn fence_emit(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode_fence(data);
        if f.timeline == UNBOUND_TIMELINE {
            return;
        }
        let names = self.names(&mut ctx.store);
        let tl = Self::timeline(&mut self.timelines, ctx, &f);
        if !tl.has_emit {
            tl.has_emit = true;
            if !tl.pending.is_empty() {
                ctx.slices.end(&mut ctx.store, ts, tl.track, None, None);
                tl.pending.clear();
            }
        }
        tl.pending.push_back(f.seqno);
        if tl.pending.len() == 1 {
            Self::begin_fence_slice(ctx, names, ts, tl);
        }
    }

    /// Ends the oldest pending fence unless the signaled one is older still.
    pub fn fence_signaled(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode_fence(data);
        if f.timeline == UNBOUND_TIMELINE {
            return;
        }
        let names = self.names(&mut ctx.store);
        let tl = Self::timeline(&mut self.timelines, ctx, &f);
        match tl.pending.front() {
            Some(&oldest) if f.seqno >= oldest => {}
            _ => return,
        }
        tl.pending.pop_front();
        ctx.slices.end(&mut ctx.store, ts, tl.track, None, None);
        Self::begin_fence_slice(ctx, names, ts, tl);
    }

    pub fn fence_wait_start(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let f = decode_fence(data);
        let names = self.names(&mut ctx.store);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let track = ctx.tracks.thread_track(&mut ctx.store, utid);
        let args = ctx.store.args.insert_set(vec![
            (names.context, ArgValue::UInt(f.context as u64)),
            (names.seqno, ArgValue::UInt(f.seqno as u64)),
        ]);
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, Some(names.wait), args);
    }

    pub fn fence_wait_end(&mut self, ctx: &mut Ctx, ts: i64, pid: i64) {
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let track = ctx.tracks.thread_track(&mut ctx.store, utid);
        ctx.slices.end(&mut ctx.store, ts, track, None, None);
    }

    /// `drm_vblank_event` (`delivered` = false) or `drm_vblank_event_delivered`: both
    /// have crtc (1) and seq (3).
    pub fn vblank(&mut self, ctx: &mut Ctx, ts: i64, delivered: bool, data: &[u8]) {
        let (mut crtc, mut seq) = (0u32, 0u32);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => crtc = v.as_i32() as u32,
                3 => seq = v.as_u32(),
                _ => {}
            }
        }
        let names = self.names(&mut ctx.store);
        let name = ctx.store.intern(&format!("vblank-{crtc}"));
        let dims = [("drm_crtc", DimValue::Int(crtc as i64))];
        let spec = TrackSpec::new("drm_vblank", EventType::Slice, TrackScope::Global)
            .named(name)
            .extra(crtc as i64)
            .dims(&dims)
            .machine(ctx.procs.machine_id);
        let track = ctx.tracks.intern(&mut ctx.store, spec);
        let slice = if delivered {
            names.vblank_deliver
        } else {
            names.vblank_signal
        };
        let args = ctx
            .store
            .args
            .insert_set(vec![(names.vblank_seqno, ArgValue::UInt(seq as u64))]);
        ctx.slices
            .scoped(&mut ctx.store, ts, track, None, Some(slice), 0, args);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::put_varint;

    fn fence(context: u32, seqno: u32, timeline: &str) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, 1 << 3);
        put_varint(&mut out, context as u64);
        put_varint(&mut out, 3 << 3);
        put_varint(&mut out, seqno as u64);
        put_varint(&mut out, (4 << 3) | 2);
        put_varint(&mut out, timeline.len() as u64);
        out.extend_from_slice(timeline.as_bytes());
        out
    }

    /// (name, ts, dur, seqno arg) of every slice.
    fn slices(ctx: &Ctx) -> Vec<(String, i64, i64, Option<u64>)> {
        let s = &ctx.store;
        s.slices
            .iter()
            .map(|r| {
                let seq = match s
                    .args
                    .get_by_name(&s.strings, r.arg_set_id.get(), "fence seqno")
                {
                    Some(ArgValue::UInt(v)) => Some(*v),
                    _ => None,
                };
                (s.opt_str(r.name).unwrap().to_string(), r.ts, r.dur, seq)
            })
            .collect()
    }

    #[test]
    fn fences_queue_on_their_timeline_until_signaled() {
        let mut ctx = Ctx::new();
        let mut d = DrmEvents::default();
        d.fence_init(&mut ctx, 10, &fence(5, 1, "gpu"));
        d.fence_init(&mut ctx, 12, &fence(5, 2, "gpu"));
        // A stale signal (older than the oldest pending fence) changes nothing.
        d.fence_signaled(&mut ctx, 14, &fence(5, 0, "gpu"));
        d.fence_signaled(&mut ctx, 20, &fence(5, 1, "gpu"));
        d.fence_signaled(&mut ctx, 30, &fence(5, 2, "gpu"));
        // Unbound timelines are ignored.
        d.fence_init(&mut ctx, 40, &fence(9, 1, "unbound"));
        assert_eq!(
            slices(&ctx),
            [
                ("fence".into(), 10, 10, Some(1)),
                ("fence".into(), 20, 10, Some(2))
            ]
        );
        let s = &ctx.store;
        assert_eq!(s.tracks.len(), 1);
        assert_eq!(s.opt_str(s.tracks[0].name), Some("fence-gpu-5"));
        assert_eq!(s.str(s.tracks[0].kind), "drm_fence");
    }

    #[test]
    fn emit_replaces_init_on_a_timeline() {
        let mut ctx = Ctx::new();
        let mut d = DrmEvents::default();
        d.fence_init(&mut ctx, 10, &fence(3, 7, "kgsl"));
        d.fence_emit(&mut ctx, 15, &fence(3, 7, "kgsl"));
        d.fence_init(&mut ctx, 16, &fence(3, 8, "kgsl"));
        d.fence_signaled(&mut ctx, 25, &fence(3, 7, "kgsl"));
        assert_eq!(
            slices(&ctx),
            [
                ("fence".into(), 10, 5, Some(7)),
                ("fence".into(), 15, 10, Some(7))
            ]
        );
    }

    #[test]
    fn waits_nest_on_the_waiting_thread() {
        let mut ctx = Ctx::new();
        let mut d = DrmEvents::default();
        d.fence_wait_start(&mut ctx, 100, 42, &fence(5, 9, ""));
        d.fence_wait_end(&mut ctx, 130, 42);
        let s = &ctx.store;
        assert_eq!(slices(&ctx), [("dma_fence_wait".into(), 100, 30, Some(9))]);
        let ctx_arg = s
            .args
            .get_by_name(&s.strings, s.slices[0].arg_set_id.get(), "fence context");
        assert_eq!(ctx_arg, Some(&ArgValue::UInt(5)));
        assert_eq!(
            s.str(s.tracks[s.slices[0].track_id as usize].kind),
            "thread_execution"
        );
    }

    #[test]
    fn vblanks_are_instants_per_crtc() {
        let mut ctx = Ctx::new();
        let mut d = DrmEvents::default();
        let mut e = Vec::new();
        put_varint(&mut e, 1 << 3);
        put_varint(&mut e, 1);
        put_varint(&mut e, 3 << 3);
        put_varint(&mut e, 500);
        d.vblank(&mut ctx, 1, false, &e);
        d.vblank(&mut ctx, 2, true, &e);
        let s = &ctx.store;
        assert_eq!(s.slices.len(), 2);
        assert_eq!(s.slices[0].track_id, s.slices[1].track_id);
        assert_eq!(s.opt_str(s.tracks[0].name), Some("vblank-1"));
        assert_eq!(s.opt_str(s.slices[1].name), Some("deliver"));
        let seq = s
            .args
            .get_by_name(&s.strings, s.slices[0].arg_set_id.get(), "vblank seqno");
        assert_eq!(seq, Some(&ArgValue::UInt(500)));
    }
}
