//! A process's frames judged: each frame's vsync period and budget (its own, never a
//! per-process guess), every definition's verdict, the HWUI verdicts, the reconciliation
//! tables (process, then each layer), the frames per refresh rate, and the order of the worst
//! frames.

use std::collections::BTreeMap;

use super::definitions::mb_frames::{self, MbMapping};
use super::definitions::over_budget;
use super::definitions::{self, Definition, FrameDefinitions, FrameFacts};
use super::frame_model::Frame;
use super::frame_timing::MbInput;
use super::hwui::{self, ProcessHwui};
use super::index::Index;
use super::perfetto_stats::StdlibStats;
use super::reconcile::{self, Extra, FrameUnits, Judged, Reconciliation};
use super::refresh::{self, PeriodSource, RefreshRate, VsyncTimeline};
use crate::store::Upid;

/// A frame's vsync period and budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameTiming {
    /// The vsync period it ran at (60 Hz assumed when the trace says nothing).
    pub period_ns: i64,
    pub period_source: PeriodSource,
    /// Its expected surface frame's duration (what FrameTimeline judges it by), else its
    /// vsync period.
    pub budget_ns: i64,
    pub budget_source: &'static str,
}

pub const BUDGET_EXPECTED: &str = "its expected surface frame (FrameTimeline)";
pub const BUDGET_VSYNC: &str = "its vsync period";
pub const BUDGET_ASSUMED: &str = "assumed 60 Hz vsync period";

/// The time a frame's vsync period is read at: its expected start, else its doFrame.
fn vsync_time(f: &Frame) -> i64 {
    f.timeline
        .as_ref()
        .and_then(|t| t.expected)
        .map(|e| e.ts)
        .or(f.ui.map(|u| u.ts))
        .unwrap_or(f.ts)
}

pub fn timing(f: &Frame, vsync: &VsyncTimeline) -> FrameTiming {
    let period = vsync.period_at(vsync_time(f));
    let period_ns = period.unwrap_or(refresh::ASSUMED_PERIOD_NS);
    let expected = f
        .timeline
        .as_ref()
        .and_then(|t| t.expected)
        .filter(|e| e.dur > 0);
    let (budget_ns, budget_source) = match (expected, period) {
        (Some(e), _) => (e.dur, BUDGET_EXPECTED),
        (None, Some(p)) => (p, BUDGET_VSYNC),
        (None, None) => (period_ns, BUDGET_ASSUMED),
    };
    FrameTiming {
        period_ns,
        period_source: vsync.source,
        budget_ns,
        budget_source,
    }
}

/// Janky as the report's `janky` column: FrameTimeline's verdict when it judged the frame,
/// else CPU (or UI) time over the frame's own budget.
pub fn janky(f: &Frame, t: &FrameTiming) -> bool {
    if f.timeline.is_some() {
        f.ft_janky()
    } else {
        over_budget::over(f, t.budget_ns) == Some(true)
    }
}

pub struct ProcessVerdicts {
    pub timing: Vec<FrameTiming>,
    pub defs: Vec<FrameDefinitions>,
    pub missed_vsyncs: Vec<Option<u32>>,
    pub hwui: ProcessHwui,
    pub mb: MbMapping,
    pub refresh_rates: Vec<RefreshRate>,
    pub reconciliation: Vec<Reconciliation>,
}

/// What judging a process needs besides its frames.
pub struct Inputs<'a> {
    pub idx: &'a Index<'a>,
    pub upid: Upid,
    pub vsync: &'a VsyncTimeline,
    pub stdlib: &'a StdlibStats,
    pub mb_input: Option<&'a MbInput>,
    pub api: u32,
    /// Count the definitions' units that are no frame (off when a layer filter dropped
    /// frames: those units may be the dropped frames').
    pub with_extras: bool,
}

pub fn judge(inp: &Inputs<'_>, frames: &[Frame]) -> ProcessVerdicts {
    let timing: Vec<FrameTiming> = frames.iter().map(|f| timing(f, inp.vsync)).collect();
    let intervals: Vec<i64> = timing.iter().map(|t| t.period_ns).collect();
    let hwui = hwui::judge_process(inp.idx, frames, &intervals, inp.vsync.source.describe());
    let mb = mb_frames::map(frames, inp.mb_input, inp.api);
    let mut defs = Vec::with_capacity(frames.len());
    let mut missed = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        let (d, n) = definitions::judge(FrameFacts {
            frame: f,
            period_ns: timing[i].period_ns,
            budget_ns: timing[i].budget_ns,
            stdlib: definitions::stdlib_lookup(inp.stdlib, f),
            hwui: hwui.frames[i].as_ref(),
            mb: &mb.frames[i],
        });
        defs.push(d);
        missed.push(n);
    }
    let units: Vec<FrameUnits> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| FrameUnits {
            stdlib: defs[i]
                .perfetto_stdlib
                .considered
                .then(|| f.timeline.as_ref().map(|t| t.token))
                .flatten(),
            hwui: hwui.frames[i]
                .as_ref()
                .filter(|h| h.counted)
                .map(|h| (f.ui.map_or(u32::MAX, |u| u.id), h.draw_frame_slice_id)),
            mb_entries: mb.frames[i].counted,
        })
        .collect();
    let judged = |i: usize| Judged {
        frame_id: frames[i].frame_id,
        ts: frames[i].ts,
        layer: frames[i].layer.as_deref(),
        defs: &defs[i],
        units: units[i],
        missed_vsyncs: missed[i],
    };
    let all: Vec<Judged> = (0..frames.len()).map(judged).collect();
    let extras = if inp.with_extras {
        extras(inp, frames, &mb)
    } else {
        BTreeMap::new()
    };
    let mut reconciliation = vec![reconcile::reconcile("process", None, &all, &extras)];
    let mut by_layer: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (i, f) in frames.iter().enumerate() {
        by_layer.entry(f.layer.as_deref()).or_default().push(i);
    }
    if by_layer.len() > 1 {
        for (layer, ix) in by_layer {
            let js: Vec<Judged> = ix.into_iter().map(judged).collect();
            reconciliation.push(reconcile::reconcile("layer", layer, &js, &BTreeMap::new()));
        }
    }
    ProcessVerdicts {
        refresh_rates: refresh::rates(timing.iter().map(|t| t.period_ns)),
        timing,
        defs,
        missed_vsyncs: missed,
        hwui,
        mb,
        reconciliation,
    }
}

/// Units of the stdlib and Macrobenchmark that are no frame of the model.
fn extras(inp: &Inputs<'_>, frames: &[Frame], mb: &MbMapping) -> BTreeMap<Definition, Extra> {
    let mut out = BTreeMap::new();
    let tokens: rustc_hash::FxHashSet<i64> = frames
        .iter()
        .filter_map(|f| f.timeline.as_ref().map(|t| t.token))
        .collect();
    let orphans: Vec<bool> = inp
        .stdlib
        .frames_of(inp.upid)
        .filter(|(id, s)| s.in_range && !tokens.contains(id))
        .map(|(_, s)| s.was_jank)
        .collect();
    if !orphans.is_empty() {
        out.insert(
            Definition::PerfettoStdlib,
            Extra {
                units: orphans.len(),
                flagged: orphans.iter().filter(|j| **j).count(),
                reason: Some("vsync ids with a doFrame and a DrawFrame in the process but no FrameTimeline frame of the process with that token (the stdlib joins by vsync id across layers and processes)".into()),
            },
        );
    }
    if mb.unmatched > 0 {
        out.insert(
            Definition::Macrobenchmark,
            Extra {
                units: mb.unmatched,
                flagged: 0,
                reason: Some(
                    "Macrobenchmark entries whose actual frame or doFrame is no frame of the model"
                        .into(),
                ),
            },
        );
    }
    out
}

/// Frame indices, worst first: janky frames first (by whole vsyncs missed, then overrun, then
/// CPU time over the budget), then, only for frames without FrameTimeline, the others. Frames
/// with nothing to say (no FrameTimeline and no UI or CPU time) are left out.
pub fn worst_order(frames: &[Frame], v: &ProcessVerdicts) -> Vec<usize> {
    worst_order_by(frames, &v.timing, &v.missed_vsyncs)
}

fn worst_order_by(frames: &[Frame], timing: &[FrameTiming], missed: &[Option<u32>]) -> Vec<usize> {
    let key = |i: usize| {
        let f = &frames[i];
        let t = &timing[i];
        let excess = over_budget::time_ns(f).map(|c| c - t.budget_ns);
        (
            janky(f, t),
            missed[i].unwrap_or(0),
            f.overrun_ns().or(excess).unwrap_or(i64::MIN),
        )
    };
    let mut order: Vec<usize> = (0..frames.len())
        .filter(|&i| {
            let f = &frames[i];
            let detail = f.timeline.is_some() || f.ui_ns().is_some() || f.cpu_ns().is_some();
            detail && (janky(f, &timing[i]) || f.timeline.is_none())
        })
        .collect();
    order.sort_by_key(|&i| std::cmp::Reverse(key(i)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frame_model::Timeline;
    use crate::analysis::index::Span;

    const P60: i64 = 16_666_667;

    fn span(ts: i64, dur: i64) -> Span {
        Span { id: 1, ts, dur }
    }

    /// A frame with a doFrame of `ui_ms` and, when `tag` is given, a FrameTimeline surface
    /// frame expected to end at 16.67 ms that ended `overrun_ms` after it.
    fn frame(tag: Option<&str>, overrun_ms: f64, ui_ms: Option<f64>) -> Frame {
        let ns = |m: f64| (m * 1e6) as i64;
        Frame {
            upid: 1,
            ui: ui_ms.map(|u| span(0, ns(u))),
            timeline: tag.map(|t| Timeline {
                actual: span(0, P60 + ns(overrun_ms)),
                expected: Some(span(0, P60)),
                token: 1,
                display_token: 2,
                jank_type: String::new(),
                jank_mask: 0,
                jank_tag: t.into(),
                present_type: String::new(),
                on_time_finish: overrun_ms <= 0.0,
                gpu_composition: false,
                prediction_type: String::new(),
                display: None,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn janky_frames_first_by_whole_vsyncs_then_overrun_and_frames_without_detail_left_out() {
        let frames = [
            // 0: Other Jank presented 10 ms before its deadline: janky all the same.
            frame(Some("Other Jank"), -10.0, None),
            // 1: no FrameTimeline, 14 ms of work in a 16.67 ms budget: listed, not janky.
            frame(None, 0.0, Some(14.0)),
            // 2: Self Jank, 20 ms late: 2 whole vsyncs.
            frame(Some("Self Jank"), 20.0, None),
            // 3: No Jank: not listed.
            frame(Some("No Jank"), -3.0, Some(4.0)),
            // 4: no FrameTimeline and no doFrame: nothing to say, not listed.
            frame(None, 0.0, None),
            // 5: Self Jank, 3 ms late: 1 vsync, a larger overrun than frame 6's.
            frame(Some("Self Jank"), 3.0, None),
            // 6: Self Jank, 1 ms late: 1 vsync.
            frame(Some("Self Jank"), 1.0, None),
            // 7: no FrameTimeline, 30 ms of work: janky (over its budget by 13.3 ms).
            frame(None, 0.0, Some(30.0)),
        ];
        let vsync = VsyncTimeline::from_steps(vec![(0, P60)], PeriodSource::FrameTimeline);
        let timing: Vec<FrameTiming> = frames.iter().map(|f| timing(f, &vsync)).collect();
        let missed: Vec<Option<u32>> = frames
            .iter()
            .map(|f| f.overrun_ns().map(|o| refresh::missed_vsyncs(o, P60)))
            .collect();
        // Janky first: 2 (2 vsyncs); 5 and 6 (1 vsync; 3 ms, then 1 ms late); then no whole
        // vsync: 7 (no FrameTimeline, 13.3 ms over its budget), 0 (10 ms early). Then 1, not
        // janky, though by time alone (2.7 ms under its budget) it would rank above 0.
        assert_eq!(
            worst_order_by(&frames, &timing, &missed),
            [2, 5, 6, 7, 0, 1]
        );
    }
}
