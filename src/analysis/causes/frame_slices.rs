//! The doFrame and DrawFrame a cause chain follows.
//!
//! The frame model joins a frame to its process's main-thread doFrame and RenderThread
//! DrawFrame. Perfetto's `android_frames_choreographer_do_frame` and `android_frames_draw_frame`
//! look further: every `Choreographer#doFrame <id>` and `DrawFrame* <id>` slice of the process,
//! on any thread. A Looper thread with its own Choreographer (SystemUI's `wmshell.splashscreen`
//! drawing an app's starting window) is one; for such frames the chain falls back to the slices
//! of the frame's vsync id, so their time is attributed instead of left as "no frame slices".

use rustc_hash::FxHashMap;

use super::context::Ctx;
use crate::analysis::frame_model::Frame;
use crate::analysis::index::{frame_id_of, Index, Span};
use crate::analysis::named_slices::Named;
use crate::store::{SliceId, Upid, Utid};

/// How the chain found its frame slices.
pub const BY_FRAME_MODEL: &str = "frame_model";
pub const BY_VSYNC_ID: &str = "vsync_id_any_thread";

/// `Choreographer#doFrame <id>` and `DrawFrame* <id>` slices per (process, vsync id), on any
/// thread, each list in slice id (= time) order.
#[derive(Default)]
pub struct ByVsync {
    pub do_frames: FxHashMap<(Upid, i64), Vec<SliceId>>,
    pub draw_frames: FxHashMap<(Upid, i64), Vec<SliceId>>,
}

impl ByVsync {
    /// `utid_of_track`: the thread of each thread slice track.
    pub fn build(idx: &Index<'_>, utid_of_track: &[Option<Utid>]) -> Self {
        let store = idx.store;
        // 0: neither, 1: doFrame, 2: DrawFrame; decided once per interned name.
        let kind: Vec<u8> = store
            .strings
            .iter()
            .map(|n| {
                if n.starts_with("Choreographer#doFrame") {
                    1
                } else if n.starts_with("DrawFrame") {
                    2
                } else {
                    0
                }
            })
            .collect();
        let mut out = ByVsync::default();
        for &id in idx.named.ids(Named::FrameSlice) {
            let s = &store.slices[id as usize];
            let Some(name) = s.name else { continue };
            let k = kind[name.index() as usize];
            if k == 0 {
                continue;
            }
            let Some(upid) = utid_of_track
                .get(s.track_id as usize)
                .copied()
                .flatten()
                .and_then(|u| store.threads[u as usize].upid)
            else {
                continue;
            };
            // Perfetto casts the second word; 0 (not a number, "- resynced …") and -1 are no
            // frame ids.
            let Some(vsync) = frame_id_of(store.str(name)).filter(|&v| v != 0 && v != -1) else {
                continue;
            };
            let map = if k == 1 {
                &mut out.do_frames
            } else {
                &mut out.draw_frames
            };
            map.entry((upid, vsync)).or_default().push(id);
        }
        out
    }
}

/// The frame's doFrame and DrawFrame, and how they were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSlices {
    pub ui: Option<Span>,
    pub rt: Option<Span>,
    pub matched_by: Option<&'static str>,
}

fn span(ctx: &Ctx<'_>, id: SliceId) -> Span {
    let s = &ctx.store.slices[id as usize];
    Span {
        id,
        ts: s.ts,
        dur: s.dur,
    }
}

/// The frame model's slices; what it lacks, the slices of the frame's vsync id elsewhere in
/// the process: the doFrame starting nearest the frame, the first DrawFrame at or after it.
pub fn resolve(ctx: &Ctx<'_>, frame: &Frame) -> FrameSlices {
    if frame.ui.is_some() && frame.rt.is_some() {
        return FrameSlices {
            ui: frame.ui,
            rt: frame.rt,
            matched_by: Some(BY_FRAME_MODEL),
        };
    }
    let mut ui = frame.ui;
    let mut rt = frame.rt;
    let mut fell_back = false;
    if let Some(vsync) = frame.frame_id {
        let by = ctx.by_vsync();
        if ui.is_none() {
            ui = by
                .do_frames
                .get(&(frame.upid, vsync))
                .and_then(|v| {
                    v.iter()
                        .min_by_key(|&&id| (span(ctx, id).ts - frame.ts).abs())
                })
                .map(|&id| span(ctx, id));
            fell_back |= ui.is_some();
        }
        if rt.is_none() {
            let from = ui.map_or(frame.ts, |u| u.ts);
            rt = by.draw_frames.get(&(frame.upid, vsync)).and_then(|v| {
                v.iter()
                    .map(|&id| span(ctx, id))
                    .find(|r| r.ts >= from || ui.is_none())
            });
            fell_back |= rt.is_some();
        }
    }
    let matched_by = match (ui.is_some() || rt.is_some(), fell_back) {
        (false, _) => None,
        (true, true) => Some(BY_VSYNC_ID),
        (true, false) => Some(BY_FRAME_MODEL),
    };
    FrameSlices { ui, rt, matched_by }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::index::Index;
    use crate::analysis::thread_state::ThreadStateIndex;
    use crate::store::{NewSlice, ProcessRow, Store};

    /// Process 1 (pid 100): main thread 100 (utid 0), a Looper thread 101 (utid 1), a
    /// RenderThread 102 (utid 2); each thread one slice track.
    fn store(slices: &[(u32, i64, i64, &str)]) -> Store {
        let mut s = Store::with_thread_tracks(&[100, 101, 102]);
        s.processes.push(ProcessRow::default());
        s.processes.push(ProcessRow {
            pid: 100,
            ..Default::default()
        });
        for (utid, name) in ["app", "ll.splashscreen", "RenderThread"]
            .into_iter()
            .enumerate()
        {
            s.threads[utid].upid = Some(1);
            s.threads[utid].name = Some(s.intern(name));
        }
        for &(track_id, ts, dur, name) in slices {
            let name = Some(s.intern(name));
            s.push_slice(NewSlice {
                ts,
                dur,
                track_id,
                name,
                ..Default::default()
            });
        }
        s
    }

    fn frame(frame_id: Option<i64>, ts: i64, ui: Option<Span>, rt: Option<Span>) -> Frame {
        Frame {
            upid: 1,
            layer: None,
            frame_id,
            ts,
            dur: 10,
            ui,
            rt,
            timeline: None,
            buffer: None,
        }
    }

    #[test]
    fn vsync_id_slices_on_any_thread_when_the_model_has_none() {
        // doFrame 7 on the Looper thread (twice: the nearer one wins), DrawFrames 7 on the
        // RenderThread (one before the doFrame, ignored), a resynced doFrame and doFrame 0.
        let s = store(&[
            (1, 100, 20, "Choreographer#doFrame 7"),
            (2, 90, 5, "DrawFrames 7"),
            (2, 125, 30, "DrawFrames 7"),
            (1, 500, 20, "Choreographer#doFrame 7"),
            (0, 110, 5, "Choreographer#doFrame - resynced to 7 in 2.0ms"),
            (0, 200, 5, "Choreographer#doFrame 0"),
        ]);
        let idx = Index::new(&s);
        let states = ThreadStateIndex::all(&s);
        let ctx = Ctx::new(&idx, &states);
        let by = ctx.by_vsync();
        assert_eq!(by.do_frames[&(1, 7)], [0, 3]);
        assert!(!by.do_frames.contains_key(&(1, 0)));
        let fs = resolve(&ctx, &frame(Some(7), 102, None, None));
        assert_eq!(fs.ui.map(|u| u.id), Some(0));
        assert_eq!(fs.rt.map(|r| r.id), Some(2));
        assert_eq!(fs.matched_by, Some(BY_VSYNC_ID));
        // The frame model's own slices are kept.
        let own = Span {
            id: 3,
            ts: 500,
            dur: 20,
        };
        let fs = resolve(&ctx, &frame(Some(7), 102, Some(own), Some(own)));
        assert_eq!(fs.ui, Some(own));
        assert_eq!(fs.matched_by, Some(BY_FRAME_MODEL));
        // Another vsync id, or none: nothing.
        let fs = resolve(&ctx, &frame(Some(8), 102, None, None));
        assert_eq!((fs.ui, fs.rt, fs.matched_by), (None, None, None));
        let fs = resolve(&ctx, &frame(None, 102, None, None));
        assert_eq!(fs.matched_by, None);
    }
}
