//! Matching a frame to its buffer in FrameTracer data. FrameTracer frame numbers and
//! FrameTimeline tokens are different ids and must not be joined by equality; the match is
//! made by layer and time (the buffer dequeued while the RenderThread drew the frame), then
//! followed by buffer id and frame number through the GPU_ and SF_ phases.

use serde::Serialize;

use super::frames::Frame;
use super::index::{Index, Phase, PhaseSlice, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The buffer was dequeued and queued inside the frame's DrawFrame.
    High,
    /// Only the start (dequeue) or only the GPU phase lines up with the frame.
    Medium,
    /// Matched by the FrameTimeline span alone.
    Low,
}

impl Confidence {
    /// The word written in every output (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

impl BufferMatch {
    /// "buffer 11, frame 6296", naming only the ids FrameTracer gave.
    pub fn ids(&self) -> String {
        let mut parts = Vec::new();
        if let Some(b) = self.buffer_id {
            parts.push(format!("buffer {b}"));
        }
        if let Some(f) = self.frame_number {
            parts.push(format!("frame {f}"));
        }
        if parts.is_empty() {
            "buffer without id".to_string()
        } else {
            parts.join(", ")
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BufferMatch {
    pub layer: String,
    pub buffer_id: Option<u32>,
    pub frame_number: Option<i64>,
    /// APP_: the producer held the buffer (dequeue -> queue).
    pub app: Option<Span>,
    /// GPU_: waiting for the producer's fence (queue -> acquire fence signalled).
    pub gpu: Option<Span>,
    /// SF_: SurfaceFlinger from latch to present.
    pub sf: Option<Span>,
    pub confidence: Confidence,
}

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
