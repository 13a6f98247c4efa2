//! Builds the frame model ([`super::frame_model`]): one row per app frame, per process and
//! layer, joining the UI thread's
//! doFrame, the RenderThread's DrawFrame, the expected and actual surface frames, the display
//! frame that presented it, and the FrameTracer phases of its buffer.
//!
//! With FrameTimeline, every actual surface frame is a frame (a token drawn on two layers is
//! two frames). Without it (API <= 30), each main-thread doFrame with the DrawFrames that
//! start before the next doFrame is a frame, as Perfetto's stdlib does for old devices.

use std::collections::HashMap;

use super::buffers::match_buffer;
use super::frame_model::{DisplayFrame, Frame, Timeline};
use super::index::{frame_id_of, Index, Span};
use crate::store::{FrameTimelineRow, Store, Upid};

fn span_of(store: &Store, id: u32) -> Span {
    let r = &store.slices[id as usize];
    Span {
        id,
        ts: r.ts,
        dur: r.dur,
    }
}

fn text(store: &Store, id: Option<crate::store::strings::StrId>) -> String {
    store.opt_str(id).unwrap_or("").to_string()
}

/// FrameTimeline rows grouped for the frame model.
struct TimelineRows<'a> {
    actual_surface: HashMap<Upid, Vec<&'a FrameTimelineRow>>,
    expected_surface: HashMap<(Upid, i64), &'a FrameTimelineRow>,
    actual_display: HashMap<i64, &'a FrameTimelineRow>,
}

fn timeline_rows(store: &Store) -> TimelineRows<'_> {
    let mut t = TimelineRows {
        actual_surface: HashMap::new(),
        expected_surface: HashMap::new(),
        actual_display: HashMap::new(),
    };
    for r in &store.frame_timeline {
        match (r.actual, r.surface_frame_token) {
            (true, Some(_)) => t.actual_surface.entry(r.upid).or_default().push(r),
            (false, Some(tok)) => {
                t.expected_surface.entry((r.upid, tok)).or_insert(r);
            }
            (true, None) => {
                t.actual_display.entry(r.display_frame_token).or_insert(r);
            }
            (false, None) => {}
        }
    }
    t
}

/// Builds every process's frames.
pub fn build(idx: &Index<'_>) -> HashMap<Upid, Vec<Frame>> {
    let store = idx.store;
    let rows = timeline_rows(store);
    let mut out: HashMap<Upid, Vec<Frame>> = HashMap::new();
    for (&upid, actuals) in &rows.actual_surface {
        let frames = with_timeline(idx, &rows, upid, actuals);
        out.insert(upid, frames);
    }
    for (&upid, dos) in &idx.do_frames {
        if out.contains_key(&upid) {
            continue;
        }
        out.insert(upid, without_timeline(idx, upid, dos));
    }
    for frames in out.values_mut() {
        frames.sort_by_key(|f| (f.ts, f.layer.clone()));
        for f in frames.iter_mut() {
            // A doFrame drawing two windows posts two DrawFrames of one vsync id: each
            // layer's frame gets the one that drew its window.
            if let (Some(ui), Some(rt)) = (f.ui, f.rt) {
                f.rt = Some(super::hwui::draw_frame_for(idx, f, ui, rt));
            }
            f.buffer = match_buffer(idx, f);
        }
    }
    out
}

fn with_timeline(
    idx: &Index<'_>,
    rows: &TimelineRows<'_>,
    upid: Upid,
    actuals: &[&FrameTimelineRow],
) -> Vec<Frame> {
    let store = idx.store;
    let empty = Vec::new();
    let dos = idx.do_frames.get(&upid).unwrap_or(&empty);
    let draws = idx.draw_frames.get(&upid).unwrap_or(&empty);
    let mut do_by_id: HashMap<i64, Vec<Span>> = HashMap::new();
    for d in dos {
        if let Some(id) = frame_id_of(
            store
                .opt_str(store.slices[d.id as usize].name)
                .unwrap_or(""),
        ) {
            do_by_id.entry(id).or_default().push(*d);
        }
    }
    let mut draw_by_id: HashMap<i64, Vec<Span>> = HashMap::new();
    for d in draws {
        if let Some(id) = frame_id_of(
            store
                .opt_str(store.slices[d.id as usize].name)
                .unwrap_or(""),
        ) {
            draw_by_id.entry(id).or_default().push(*d);
        }
    }
    let mut frames = Vec::with_capacity(actuals.len());
    for a in actuals {
        let token = a.surface_frame_token.unwrap_or(0);
        let actual = span_of(store, a.slice_id);
        // The doFrame of the same vsync; when ids disagree (b/279088460) the doFrame whose
        // midpoint the actual frame covers and which starts no later than 50 µs after it.
        let ui = do_by_id
            .get(&token)
            .and_then(|v| v.iter().min_by_key(|d| (d.ts - actual.ts).abs()).copied())
            .or_else(|| {
                dos.iter()
                    .rev()
                    .find(|d| {
                        let mid = d.ts + d.dur.max(0) / 2;
                        actual.ts < d.ts + 50_000 && mid >= actual.ts && mid <= actual.end()
                    })
                    .copied()
            });
        let ui_id = ui.and_then(|u| {
            frame_id_of(
                store
                    .opt_str(store.slices[u.id as usize].name)
                    .unwrap_or(""),
            )
        });
        let rt = ui_id
            .and_then(|id| draw_by_id.get(&id))
            .and_then(|v| v.iter().find(|r| ui.is_some_and(|u| r.ts >= u.ts)).copied());
        let expected = rows
            .expected_surface
            .get(&(upid, token))
            .map(|e| span_of(store, e.slice_id));
        let display = rows
            .actual_display
            .get(&a.display_frame_token)
            .map(|d| DisplayFrame {
                span: span_of(store, d.slice_id),
                jank_type: text(store, d.jank_type),
                jank_tag: text(store, d.jank_tag),
                present_type: text(store, d.present_type),
            });
        frames.push(Frame {
            upid,
            layer: store.opt_str(a.layer_name).map(str::to_string),
            frame_id: Some(token),
            ts: actual.ts,
            dur: actual.dur,
            ui,
            rt,
            timeline: Some(Timeline {
                actual,
                expected,
                token,
                display_token: a.display_frame_token,
                jank_type: text(store, a.jank_type),
                jank_mask: a.jank_type_mask.unwrap_or(0),
                jank_tag: text(store, a.jank_tag),
                present_type: text(store, a.present_type),
                on_time_finish: a.on_time_finish == Some(1),
                gpu_composition: a.gpu_composition == Some(1),
                prediction_type: text(store, a.prediction_type),
                display,
            }),
            buffer: None,
        });
    }
    frames
}

fn without_timeline(idx: &Index<'_>, upid: Upid, dos: &[Span]) -> Vec<Frame> {
    let store = idx.store;
    let empty = Vec::new();
    let draws = idx.draw_frames.get(&upid).unwrap_or(&empty);
    let mut frames = Vec::new();
    for (i, d) in dos.iter().enumerate() {
        let next = dos.get(i + 1).map_or(i64::MAX, |n| n.ts);
        let mine: Vec<&Span> = draws
            .iter()
            .filter(|r| r.ts >= d.ts && r.ts < next)
            .collect();
        let rt = mine.iter().max_by_key(|r| r.end()).map(|r| **r);
        let end = rt.map_or(d.end(), |r| r.end());
        frames.push(Frame {
            upid,
            layer: None,
            frame_id: frame_id_of(
                store
                    .opt_str(store.slices[d.id as usize].name)
                    .unwrap_or(""),
            ),
            ts: d.ts,
            dur: if d.complete() { end - d.ts } else { -1 },
            ui: Some(*d),
            rt,
            timeline: None,
            buffer: None,
        });
    }
    frames
}
