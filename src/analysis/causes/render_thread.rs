//! What follows the RenderThread in a frame's window: the GPU finishing the buffer,
//! SurfaceFlinger latching and presenting it. The RenderThread's own categories (shader
//! compiles, texture uploads, flush commands, buffer queue and fence waits) are slice rules
//! of [`super::categories`].

use super::categories::Category;
use super::model::{GpuDetail, Link, NamedMs};
use super::timeline::Piece;
use crate::analysis::frame_model::Frame;
use crate::analysis::units::ms;

/// `has_frame_slices`: the chain found a doFrame or DrawFrame for the frame.
pub fn after_render_thread(frame: &Frame, has_frame_slices: bool, start: i64, end: i64) -> Link {
    let c = if has_frame_slices {
        Category::GpuComposition
    } else {
        Category::NoFrameSlices
    };
    let b = frame.buffer.as_ref();
    let phase_ms =
        |s: Option<crate::analysis::index::Span>| s.filter(|s| s.complete()).map(|s| ms(s.dur));
    Link {
        category: c.id(),
        label: c.label(),
        family: c.family(),
        phase: if c == Category::GpuComposition {
            "gpu_composition"
        } else {
            "no_frame_slices"
        },
        ts: start,
        dur_ns: end - start,
        ms: ms(end - start),
        rule: if c == Category::GpuComposition {
            "window time after the app's last thread phase ended".to_string()
        } else {
            "no doFrame or DrawFrame for this frame: the whole window".to_string()
        },
        gpu: Some(Box::new(GpuDetail {
            gpu_ms: b.and_then(|b| phase_ms(b.gpu)),
            surfaceflinger_ms: b.and_then(|b| phase_ms(b.sf)),
            display_jank_tag: frame
                .timeline
                .as_ref()
                .and_then(|t| t.display.as_ref().map(|d| d.jank_tag.clone())),
        })),
        ..Default::default()
    }
}

/// How many RenderThread categories a wait lists.
const ACTIVITY: usize = 3;

/// What the RenderThread did while the UI thread waited for it: the RenderThread's own
/// attribution over the frame window (`rt_pieces`, computed once per frame) intersected
/// with the wait's pieces, summed by category.
pub fn activity(rt_pieces: &[Piece], pieces: &[&Piece]) -> Vec<NamedMs> {
    let mut by: Vec<(Category, i64)> = Vec::new();
    for p in pieces {
        let from = rt_pieces.partition_point(|q| q.end <= p.start);
        for q in rt_pieces[from..].iter().take_while(|q| q.start < p.end) {
            let d = q.end.min(p.end) - q.start.max(p.start);
            if d <= 0 {
                continue;
            }
            match by.iter_mut().find(|e| e.0 == q.category) {
                Some(e) => e.1 += d,
                None => by.push((q.category, d)),
            }
        }
    }
    by.sort_by_key(|e| std::cmp::Reverse(e.1));
    by.into_iter()
        .take(ACTIVITY)
        .map(|(c, d)| NamedMs {
            name: c.id().to_string(),
            ms: ms(d),
        })
        .collect()
}

/// ", RenderThread meanwhile: shader_compile 300.0 ms, running_self 40.0 ms".
pub fn phrase(a: &[NamedMs]) -> String {
    if a.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = a
        .iter()
        .map(|n| format!("{} {:.1} ms", n.name, n.ms))
        .collect();
    format!(", RenderThread meanwhile: {}", parts.join(", "))
}
