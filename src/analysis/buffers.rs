//! Matching a frame to its buffer in FrameTracer data. FrameTracer frame numbers and
//! FrameTimeline tokens are different ids and must not be joined by equality; the match is
//! made by layer and time (the buffer dequeued while the RenderThread drew the frame), then
//! followed by buffer id and frame number through the GPU_ and SF_ phases.

use rustc_hash::FxHashMap;

use super::frame_model::{BufferMatch, Confidence, Frame};
use super::index::{Index, Phase, PhaseSlice, Span};
use crate::store::Upid;

/// A FrameTracer layer's phases, looked up once.
struct LayerPhases<'a> {
    name: &'a str,
    app: &'a [PhaseSlice],
    gpu: &'a [PhaseSlice],
    sf: &'a [PhaseSlice],
}

/// Layers of FrameTracer that belong to the frame's FrameTimeline layer (names can differ by a
/// "TX - " prefix) or, without one, to its process name.
fn candidate_layers<'a>(idx: &'a Index<'_>, frame: &Frame) -> Vec<LayerPhases<'a>> {
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
    let phases = |layer: &str, p: Phase| {
        idx.phases
            .get(&(layer.to_string(), p))
            .map_or(&[][..], Vec::as_slice)
    };
    layers
        .into_iter()
        .map(|name| LayerPhases {
            name,
            app: phases(name, Phase::App),
            gpu: phases(name, Phase::Gpu),
            sf: phases(name, Phase::Sf),
        })
        .collect()
}

/// First phase slice starting at or after `from`.
fn first_from(list: &[PhaseSlice], from: i64) -> usize {
    list.partition_point(|p| p.span.ts < from)
}

fn follow(layer: &LayerPhases<'_>, start: &PhaseSlice) -> (Option<Span>, Option<Span>) {
    let same =
        |p: &PhaseSlice| p.buffer_id == start.buffer_id && p.frame_number == start.frame_number;
    let (gpu, sf) = (layer.gpu, layer.sf);
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
    BufferMatcher::default().match_frame(idx, frame)
}

/// [`match_buffer`] for many frames: the candidate layers depend only on the frame's process
/// and FrameTimeline layer, and testing every FrameTracer layer name against them is most of
/// the work, so they are found once per (process, layer).
#[derive(Default)]
pub struct BufferMatcher<'a> {
    candidates: FxHashMap<Upid, FxHashMap<Option<String>, Vec<LayerPhases<'a>>>>,
}

impl<'a> BufferMatcher<'a> {
    pub fn match_frame(&mut self, idx: &'a Index<'_>, frame: &Frame) -> Option<BufferMatch> {
        if idx.phases.is_empty() {
            return None;
        }
        let of_process = self.candidates.entry(frame.upid).or_default();
        if !of_process.contains_key(&frame.layer) {
            of_process.insert(frame.layer.clone(), candidate_layers(idx, frame));
        }
        of_process[&frame.layer]
            .iter()
            .find_map(|layer| match_in(layer, frame))
    }
}

/// The frame's buffer in one candidate layer, if it has one there.
fn match_in(layer: &LayerPhases<'_>, frame: &Frame) -> Option<BufferMatch> {
    if let Some(rt) = frame.rt.filter(|r| r.complete()) {
        let apps = layer.app;
        let i = first_from(apps, rt.ts);
        if let Some(app) = apps.get(i).filter(|a| a.span.ts <= rt.end()) {
            let queued_in_draw = app.span.complete() && app.span.end() <= rt.end() + 1_000_000;
            let (gpu, sf) = follow(layer, app);
            return Some(BufferMatch {
                layer: layer.name.to_string(),
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
        let gpus = layer.gpu;
        let j = first_from(gpus, rt.end() - 1_000_000);
        if let Some(g) = gpus.get(j).filter(|g| g.span.ts <= rt.end() + 2_000_000) {
            let (_, sf) = follow(layer, g);
            return Some(BufferMatch {
                layer: layer.name.to_string(),
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
        let sfs = layer.sf;
        let k = first_from(sfs, t.actual.ts);
        if let Some(s) = sfs.get(k).filter(|s| s.span.ts <= t.actual.end()) {
            return Some(BufferMatch {
                layer: layer.name.to_string(),
                buffer_id: s.buffer_id,
                frame_number: s.frame_number,
                app: None,
                gpu: None,
                sf: Some(s.span),
                confidence: Confidence::Low,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{ProcessRow, Store};

    fn app(ts: i64, buffer_id: u32) -> PhaseSlice {
        PhaseSlice {
            span: Span {
                id: 0,
                ts,
                dur: 1_000,
            },
            buffer_id: Some(buffer_id),
            frame_number: Some(1),
        }
    }

    fn frame(upid: Upid, layer: Option<&str>, rt_ts: i64) -> Frame {
        Frame {
            upid,
            layer: layer.map(str::to_string),
            rt: Some(Span {
                id: 0,
                ts: rt_ts,
                dur: 5_000,
            }),
            ..Default::default()
        }
    }

    /// The remembered candidates belong to one process and one layer: frames of another
    /// layer, or of another process without a layer, find their own buffers.
    #[test]
    fn many_frames_match_as_each_would_alone() {
        let mut store = Store::with_thread_tracks(&[10]);
        for name in ["com.a", "com.b"] {
            let name = Some(store.intern(name));
            store.processes.push(ProcessRow {
                name,
                ..Default::default()
            });
        }
        let mut idx = Index::new(&store);
        for (layer, buffer) in [
            ("TX - com.a/A#0", 1),
            ("TX - com.a/B#1", 2),
            ("com.b/C#2", 3),
        ] {
            idx.phases
                .insert((layer.to_string(), Phase::App), vec![app(100_000, buffer)]);
        }
        let frames = [
            frame(0, Some("com.a/A#0"), 99_000),
            frame(0, Some("com.a/B#1"), 99_000),
            frame(1, None, 99_000),
            frame(0, Some("com.a/A#0"), 99_000),
        ];
        let mut many = BufferMatcher::default();
        let got: Vec<Option<u32>> = frames
            .iter()
            .map(|f| many.match_frame(&idx, f).and_then(|b| b.buffer_id))
            .collect();
        let alone: Vec<Option<u32>> = frames
            .iter()
            .map(|f| match_buffer(&idx, f).and_then(|b| b.buffer_id))
            .collect();
        assert_eq!(got, [Some(1), Some(2), Some(3), Some(1)]);
        assert_eq!(got, alone);
    }
}
