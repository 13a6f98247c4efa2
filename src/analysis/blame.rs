//! Blame for a bad frame: which side FrameTimeline holds responsible, then where the app's
//! time went (UI thread with its scheduling split, RenderThread, GPU fence wait,
//! SurfaceFlinger) and the longest slice inside doFrame and DrawFrame. Every number names the
//! data it came from.

use serde::Serialize;

use super::frame_model::Frame;
use super::index::{Index, Span};
use super::thread_state::{StateSplit, ThreadStateIndex};
use super::units::ms;
use crate::trace::frame_timeline_vocab::jank_reasons;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    App,
    SurfaceFlinger,
    Display,
    PredictionError,
    BufferStuffing,
    Dropped,
    /// No FrameTimeline: decided from the app's own CPU time against the frame budget.
    AppCpuTime,
    Unknown,
}

impl Side {
    pub fn label(&self) -> &'static str {
        match self {
            Side::App => "app",
            Side::SurfaceFlinger => "SurfaceFlinger",
            Side::Display => "display",
            Side::PredictionError => "prediction error",
            Side::BufferStuffing => "buffer stuffing",
            Side::Dropped => "dropped",
            Side::AppCpuTime => "app (CPU time over budget)",
            Side::Unknown => "unknown",
        }
    }
}

/// A duration and where it was measured.
#[derive(Debug, Clone, Serialize)]
pub struct Measure {
    pub ms: f64,
    pub source: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HotSpot {
    pub thread: &'static str,
    pub name: String,
    pub ms: f64,
    pub slice_id: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Blame {
    pub side: Side,
    pub side_label: &'static str,
    pub reasons: Vec<&'static str>,
    pub explanation: String,
    pub ui_thread: Option<Measure>,
    pub ui_thread_states: Option<StateSplitMs>,
    pub render_thread: Option<Measure>,
    pub gpu_wait: Option<Measure>,
    pub surfaceflinger: Option<Measure>,
    pub hot_spots: Vec<HotSpot>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct StateSplitMs {
    pub running_ms: f64,
    pub runnable_ms: f64,
    pub sleeping_ms: f64,
    pub uninterruptible_ms: f64,
    pub unknown_ms: f64,
}

impl From<StateSplit> for StateSplitMs {
    fn from(s: StateSplit) -> Self {
        StateSplitMs {
            running_ms: ms(s.running_ns),
            runnable_ms: ms(s.runnable_ns),
            sleeping_ms: ms(s.sleeping_ns),
            uninterruptible_ms: ms(s.uninterruptible_ns),
            unknown_ms: ms(s.unknown_ns),
        }
    }
}

/// FrameTimeline's verdict mapped to the responsible side.
pub fn side_of(frame: &Frame, budget_ns: i64) -> (Side, Vec<&'static str>) {
    let Some(t) = &frame.timeline else {
        let over = frame
            .cpu_ns()
            .or(frame.ui_ns())
            .is_some_and(|c| c > budget_ns);
        return (
            if over {
                Side::AppCpuTime
            } else {
                Side::Unknown
            },
            Vec::new(),
        );
    };
    let reasons = jank_reasons(t.jank_mask);
    let has = |r: &str| reasons.contains(&r);
    let side = match t.jank_tag.as_str() {
        "Self Jank" => Side::App,
        "Dropped Frame" => Side::Dropped,
        "Buffer Stuffing" => Side::BufferStuffing,
        "SurfaceFlinger Stuffing" => Side::SurfaceFlinger,
        "Other Jank" if has("Display HAL") => Side::Display,
        "Other Jank"
            if has("SurfaceFlinger CPU Deadline Missed")
                || has("SurfaceFlinger GPU Deadline Missed")
                || has("SurfaceFlinger Scheduling") =>
        {
            Side::SurfaceFlinger
        }
        "Other Jank" if has("Prediction Error") => Side::PredictionError,
        _ => Side::Unknown,
    };
    (side, reasons)
}

fn slice_name(idx: &Index<'_>, id: u32) -> String {
    idx.store
        .opt_str(idx.store.slices[id as usize].name)
        .unwrap_or("")
        .to_string()
}

fn hot_spot(idx: &Index<'_>, parent: Span, thread: &'static str) -> Option<HotSpot> {
    // Nested frame markers ("Choreographer#doFrame - resynced to ...") wrap the whole frame;
    // the hot spot is the longest piece of work inside it.
    let best = idx
        .descendants(parent.id)
        .into_iter()
        .filter(|&c| idx.store.slices[c as usize].dur > 0)
        .filter(|&c| {
            let n = slice_name(idx, c);
            !n.starts_with("Choreographer#doFrame") && !n.starts_with("DrawFrame")
        })
        .max_by_key(|&c| idx.store.slices[c as usize].dur)?;
    Some(HotSpot {
        thread,
        name: slice_name(idx, best),
        ms: ms(idx.store.slices[best as usize].dur),
        slice_id: best,
    })
}

pub fn blame(
    idx: &Index<'_>,
    thread_states: &ThreadStateIndex<'_>,
    frame: &Frame,
    budget_ns: i64,
) -> Blame {
    let (side, reasons) = side_of(frame, budget_ns);
    let ui = frame.ui.filter(|u| u.complete());
    let rt = frame.rt.filter(|r| r.complete());
    let main = idx.threads.get(&frame.upid).and_then(|t| t.main);
    let states = ui
        .zip(main)
        .and_then(|(u, utid)| thread_states.split(utid, u.ts, u.end()));
    let ui_thread = ui.map(|u| Measure {
        ms: ms(u.dur),
        source: format!("doFrame slice {} on the UI thread", u.id),
    });
    let render_thread = rt.map(|r| Measure {
        ms: ms(r.dur),
        source: format!("DrawFrame slice {} on the RenderThread", r.id),
    });
    let gpu_wait = frame.buffer.as_ref().and_then(|b| {
        b.gpu.filter(|g| g.complete()).map(|g| Measure {
            ms: ms(g.dur),
            source: format!(
                "FrameTracer GPU_ phase of {} ({} confidence match)",
                b.ids(),
                b.confidence.name()
            ),
        })
    });
    let surfaceflinger = frame.buffer.as_ref().and_then(|b| {
        b.sf.filter(|s| s.complete()).map(|s| Measure {
            ms: ms(s.dur),
            source: format!(
                "FrameTracer SF_ phase (latch to present) of {} ({} confidence match)",
                b.ids(),
                b.confidence.name()
            ),
        })
    });
    let mut hot_spots = Vec::new();
    if let Some(h) = ui.and_then(|u| hot_spot(idx, u, "UI thread")) {
        hot_spots.push(h);
    }
    if let Some(h) = rt.and_then(|r| hot_spot(idx, r, "RenderThread")) {
        hot_spots.push(h);
    }
    let explanation = explain(
        frame,
        side,
        &reasons,
        states,
        gpu_wait.as_ref(),
        surfaceflinger.as_ref(),
        &hot_spots,
        budget_ns,
    );
    Blame {
        side,
        side_label: side.label(),
        reasons,
        explanation,
        ui_thread,
        ui_thread_states: states.map(Into::into),
        render_thread,
        gpu_wait,
        surfaceflinger,
        hot_spots,
    }
}

#[allow(clippy::too_many_arguments)]
fn explain(
    frame: &Frame,
    side: Side,
    reasons: &[&str],
    states: Option<StateSplit>,
    gpu: Option<&Measure>,
    sf: Option<&Measure>,
    hot: &[HotSpot],
    budget_ns: i64,
) -> String {
    let mut parts = Vec::new();
    let verdict = match (side, frame.overrun_ns()) {
        (Side::AppCpuTime, _) => format!(
            "No FrameTimeline; the app's CPU time {:.1} ms exceeds the {:.1} ms frame budget",
            ms(frame.cpu_ns().or(frame.ui_ns()).unwrap_or(0)),
            ms(budget_ns)
        ),
        (s, Some(o)) => format!(
            "{} ({}), presented {:.1} ms {} the deadline",
            capitalize(s.label()),
            if reasons.is_empty() {
                "no reason given".to_string()
            } else {
                reasons.join(", ")
            },
            ms(o.abs()),
            if o > 0 { "after" } else { "before" }
        ),
        (s, None) => format!("{} ({})", capitalize(s.label()), reasons.join(", ")),
    };
    parts.push(verdict);
    // The largest contributor on the app side.
    let mut parts_app: Vec<(String, i64)> = Vec::new();
    if let Some(u) = frame.ui.filter(|u| u.complete()) {
        let mut t = format!("UI thread {:.1} ms", ms(u.dur));
        if let Some(st) = states {
            let waits = [
                ("runnable (waiting for a CPU)", st.runnable_ns),
                ("blocked in uninterruptible sleep", st.uninterruptible_ns),
                ("sleeping", st.sleeping_ns),
            ];
            if let Some((what, ns)) = waits.iter().filter(|w| w.1 > 0).max_by_key(|w| w.1) {
                if *ns * 5 >= u.dur {
                    t.push_str(&format!(", {:.1} ms of it {what}", ms(*ns)));
                }
            }
        }
        parts_app.push((t, u.dur));
    }
    if let Some(r) = frame.rt.filter(|r| r.complete()) {
        parts_app.push((format!("RenderThread {:.1} ms", ms(r.dur)), r.dur));
    }
    if let Some(g) = gpu {
        parts_app.push((
            format!("GPU fence wait {:.1} ms", g.ms),
            (g.ms * 1e6) as i64,
        ));
    }
    if let Some(s) = sf {
        parts_app.push((
            format!("SurfaceFlinger latch-to-present {:.1} ms", s.ms),
            (s.ms * 1e6) as i64,
        ));
    }
    parts_app.sort_by_key(|p| -p.1);
    if !parts_app.is_empty() {
        parts.push(
            parts_app
                .iter()
                .map(|p| p.0.clone())
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    if let Some(h) = hot.iter().max_by(|a, b| a.ms.total_cmp(&b.ms)) {
        parts.push(format!(
            "hot spot: \"{}\" {:.1} ms on the {}",
            h.name, h.ms, h.thread
        ));
    }
    parts.join(". ")
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
