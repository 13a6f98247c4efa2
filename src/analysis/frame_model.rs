//! The frame model every frame analysis shares: one app frame with its FrameTimeline rows
//! and its FrameTracer buffer match. It depends on nothing else in analysis but the slice
//! index's `Span`, so the builder (`frames`), `buffers`, `hwui`, `blame` and `causes` all
//! depend on it and none on each other in a circle.

use serde::Serialize;

use super::index::Span;
use crate::store::Upid;

/// The FrameTimeline facts of a frame.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub actual: Span,
    pub expected: Option<Span>,
    pub token: i64,
    pub display_token: i64,
    pub jank_type: String,
    pub jank_mask: i32,
    pub jank_tag: String,
    pub present_type: String,
    pub on_time_finish: bool,
    pub gpu_composition: bool,
    pub prediction_type: String,
    /// The display frame (SurfaceFlinger) that presented this surface frame.
    pub display: Option<DisplayFrame>,
}

#[derive(Debug, Clone)]
pub struct DisplayFrame {
    pub span: Span,
    pub jank_type: String,
    pub jank_tag: String,
    pub present_type: String,
}

#[derive(Debug, Clone, Default)]
pub struct Frame {
    pub upid: Upid,
    pub layer: Option<String>,
    /// Vsync id / FrameTimeline token.
    pub frame_id: Option<i64>,
    /// Start and end of the frame: the actual surface frame, else doFrame start to the end
    /// of the last DrawFrame.
    pub ts: i64,
    pub dur: i64,
    pub ui: Option<Span>,
    pub rt: Option<Span>,
    pub timeline: Option<Timeline>,
    pub buffer: Option<BufferMatch>,
}

impl Frame {
    /// UI thread time: the doFrame duration.
    pub fn ui_ns(&self) -> Option<i64> {
        self.ui.filter(|u| u.complete()).map(|u| u.dur)
    }

    /// CPU time as Macrobenchmark defines it: RenderThread end minus UI start.
    pub fn cpu_ns(&self) -> Option<i64> {
        let (u, r) = (self.ui?, self.rt?);
        (u.complete() && r.complete()).then(|| r.end() - u.ts)
    }

    /// Overrun as Macrobenchmark defines it: max(actual end, RenderThread end) - expected end.
    pub fn overrun_ns(&self) -> Option<i64> {
        let t = self.timeline.as_ref()?;
        let x = t.expected?;
        if !t.actual.complete() || !x.complete() {
            return None;
        }
        let end = self
            .rt
            .filter(|r| r.complete())
            .map_or(t.actual.end(), |r| r.end().max(t.actual.end()));
        Some(end - x.end())
    }

    /// Janky by FrameTimeline: the user could see it (self, other, dropped).
    pub fn ft_janky(&self) -> bool {
        self.timeline
            .as_ref()
            .is_some_and(|t| crate::trace::frame_timeline_vocab::user_visible_jank_tag(&t.jank_tag))
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Text output says the same word as JSON: the serde name is the contract.
    #[test]
    fn confidence_names_are_the_json_words() {
        for (c, word) in [
            (Confidence::High, "high"),
            (Confidence::Medium, "medium"),
            (Confidence::Low, "low"),
        ] {
            assert_eq!(c.name(), word);
            assert_eq!(serde_json::to_value(c).unwrap(), word);
        }
    }

    /// A buffer is named by the FrameTracer ids it has, in the order users read them in
    /// Perfetto's UI (buffer id, then frame number); none at all is said, not left blank.
    #[test]
    fn a_buffer_is_named_by_the_ids_it_has() {
        let m = |buffer_id, frame_number| BufferMatch {
            layer: "L".into(),
            buffer_id,
            frame_number,
            app: None,
            gpu: None,
            sf: None,
            confidence: Confidence::Low,
        };
        assert_eq!(m(Some(11), Some(6296)).ids(), "buffer 11, frame 6296");
        assert_eq!(m(Some(3), None).ids(), "buffer 3");
        assert_eq!(m(None, Some(7)).ids(), "frame 7");
        assert_eq!(m(None, None).ids(), "buffer without id");
    }

    /// The model sits below every frame analysis: it may use the slice index and the store,
    /// never the modules that build, match or judge frames (that made the import circle).
    #[test]
    fn the_model_imports_only_layers_below_it() {
        let below = [
            "use serde::",
            "use std::",
            "use super::index::",
            "use crate::store::",
        ];
        for line in include_str!("frame_model.rs").lines() {
            if line.starts_with("use ") {
                assert!(below.iter().any(|b| line.starts_with(b)), "{line}");
            }
        }
    }
}
