//! What follows the RenderThread in a frame's window: the GPU finishing the buffer,
//! SurfaceFlinger latching and presenting it. The RenderThread's own categories (shader
//! compiles, texture uploads, flush commands, buffer queue and fence waits) are slice rules
//! of [`super::categories`].

use super::categories::Category;
use super::model::{GpuDetail, Link};
use crate::analysis::blame::ms;
use crate::analysis::frames::Frame;

pub fn after_render_thread(frame: &Frame, start: i64, end: i64) -> Link {
    let c = Category::GpuComposition;
    let b = frame.buffer.as_ref();
    let phase_ms =
        |s: Option<crate::analysis::index::Span>| s.filter(|s| s.complete()).map(|s| ms(s.dur));
    Link {
        category: c.id(),
        label: c.label(),
        family: c.family(),
        phase: "gpu_composition",
        thread: None,
        ts: start,
        dur_ns: end - start,
        ms: ms(end - start),
        slice_id: None,
        slice_name: None,
        slice_ts: None,
        slice_dur_ns: None,
        context_slice_ids: Vec::new(),
        rule: if frame.rt.is_some() || frame.ui.is_some() {
            "window time after the app's last thread phase ended".to_string()
        } else {
            "no doFrame or DrawFrame for this frame: the whole window".to_string()
        },
        binder: None,
        lock: None,
        gc: None,
        cpu: None,
        io: None,
        gpu: Some(GpuDetail {
            gpu_ms: b.and_then(|b| phase_ms(b.gpu)),
            surfaceflinger_ms: b.and_then(|b| phase_ms(b.sf)),
            display_jank_tag: frame
                .timeline
                .as_ref()
                .and_then(|t| t.display.as_ref().map(|d| d.jank_tag.clone())),
        }),
        woken_by: None,
    }
}
