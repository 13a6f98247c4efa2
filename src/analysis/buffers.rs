//! Matching a frame to its buffer in FrameTracer data. FrameTracer frame numbers and
//! FrameTimeline tokens are different ids and must not be joined by equality; the match is
//! made by layer and time (the buffer dequeued while the RenderThread drew the frame), then
//! followed by buffer id and frame number through the GPU_ and SF_ phases.

use super::frame_model::{BufferMatch, Confidence, Frame};
use super::index::{Index, Phase, PhaseSlice, Span};

/// Layers of FrameTracer that belong to the frame's FrameTimeline layer (names can differ by a
/// "TX - " prefix) or, without one, to its process name.
fn candidate_layers<'a>(idx: &'a Index<'_>, frame: &Frame) -> Vec<&'a str> {
    fn strip(s: &str) -> &str {
        s.strip_prefix("TX - ").unwrap_or(s)
    }
    let process = idx
        .store
        .opt_str(idx.store.processes[frame.upid as usize].name);
    let mut layers: Vec<&str> = idx
        .phases
        .keys()
        .map(|(l, _)| l.as_str())
        .filter(|l| match (&frame.layer, process) {
            (Some(fl), _) => {
                strip(fl) == strip(l)
                    || strip(l).contains(strip(fl))
                    || strip(fl).contains(strip(l))
            }
            (None, Some(p)) => l.contains(p),
            (None, None) => false,
        })
        .collect();
    layers.sort();
    layers.dedup();
    layers
}

fn phases<'a>(idx: &'a Index<'_>, layer: &str, p: Phase) -> &'a [PhaseSlice] {
    idx.phases
        .get(&(layer.to_string(), p))
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// First phase slice starting at or after `from`.
fn first_from(list: &[PhaseSlice], from: i64) -> usize {
    list.partition_point(|p| p.span.ts < from)
}

fn follow(idx: &Index<'_>, layer: &str, start: &PhaseSlice) -> (Option<Span>, Option<Span>) {
    let same =
        |p: &PhaseSlice| p.buffer_id == start.buffer_id && p.frame_number == start.frame_number;
    let gpu = phases(idx, layer, Phase::Gpu);
    let sf = phases(idx, layer, Phase::Sf);
    let g = gpu[first_from(gpu, start.span.ts)..]
        .iter()
        .take(64)
        .find(|p| same(p))
        .map(|p| p.span);
    let s = sf[first_from(sf, start.span.ts)..]
        .iter()
        .take(64)
        .find(|p| same(p))
        .map(|p| p.span);
    (g, s)
}

pub fn match_buffer(idx: &Index<'_>, frame: &Frame) -> Option<BufferMatch> {
    if idx.phases.is_empty() {
        return None;
    }
    let layers = candidate_layers(idx, frame);
    for layer in layers {
        let apps = phases(idx, layer, Phase::App);
        if let Some(rt) = frame.rt.filter(|r| r.complete()) {
            let i = first_from(apps, rt.ts);
            if let Some(app) = apps.get(i).filter(|a| a.span.ts <= rt.end()) {
                let queued_in_draw = app.span.complete() && app.span.end() <= rt.end() + 1_000_000;
                let (gpu, sf) = follow(idx, layer, app);
                return Some(BufferMatch {
                    layer: layer.to_string(),
                    buffer_id: app.buffer_id,
                    frame_number: app.frame_number,
                    app: Some(app.span),
                    gpu,
                    sf,
                    confidence: if queued_in_draw {
                        Confidence::High
                    } else {
                        Confidence::Medium
                    },
                });
            }
            // No dequeue inside the draw: a GPU phase starting at the draw's queue.
            let gpus = phases(idx, layer, Phase::Gpu);
            let j = first_from(gpus, rt.end() - 1_000_000);
            if let Some(g) = gpus.get(j).filter(|g| g.span.ts <= rt.end() + 2_000_000) {
                let (_, sf) = follow(idx, layer, g);
                return Some(BufferMatch {
                    layer: layer.to_string(),
                    buffer_id: g.buffer_id,
                    frame_number: g.frame_number,
                    app: None,
                    gpu: Some(g.span),
                    sf,
                    confidence: Confidence::Medium,
                });
            }
        } else if let Some(t) = &frame.timeline {
            // FrameTimeline only: the first SF latch inside the actual frame's span.
            let sfs = phases(idx, layer, Phase::Sf);
            let k = first_from(sfs, t.actual.ts);
            if let Some(s) = sfs.get(k).filter(|s| s.span.ts <= t.actual.end()) {
                return Some(BufferMatch {
                    layer: layer.to_string(),
                    buffer_id: s.buffer_id,
                    frame_number: s.frame_number,
                    app: None,
                    gpu: None,
                    sf: Some(s.span),
                    confidence: Confidence::Low,
                });
            }
        }
    }
    None
}
