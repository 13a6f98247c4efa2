//! HWUI verdicts for frames rebuilt from a trace (issue 6, part 5): each frame's doFrame,
//! DrawFrame and their child slices, its FrameTimeline expected surface frame and its
//! FrameTracer GPU phase are turned into an HWUI [`FrameInfo`], and the frames of each window
//! are run through [`JankTracker`] — the same code `frameprobe gfxinfo` replays dumps with.
//!
//! The mapping is an approximation: HWUI stamps its fields with `systemTime()` calls that
//! atrace does not record, so each field is read from the slice that starts (or ends) next
//! to the call, and falls back to a neighbour when that slice is missing. Every field's
//! source and fallback is in `docs/hwui-verdict.md`; [`frame_info`] is the code.
//!
//! Three steps, the first two pure so they can be tested on hand-built frames:
//! 1. [`ui_slices`] / [`rt_slices`]: pick the slices that mark HWUI's timestamps from a
//!    doFrame's and a DrawFrame's descendants (by name);
//! 2. [`frame_info`]: turn them, with the FrameTimeline / FrameTracer facts ([`Timing`]),
//!    into a `FrameInfo`, listing the fields that fell back;
//! 3. [`judge_process`]: one JankTracker per window (FrameTimeline layer), frames in
//!    DrawFrame order, and a process-wide [`ProfileData`] fed as HWUI feeds its global data.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use serde::Serialize;

use super::buffers::match_buffer;
use super::frame_model::Frame;
use super::index::{frame_id_of, Index, Span};
use super::units::ms;
use crate::gfxinfo::frame_info::{FrameInfo, FrameInfoIndex as I};
use crate::gfxinfo::jank_tracker::{FrameVerdict, JankTracker, JankTrackerConfig};
use crate::gfxinfo::profile_data::ProfileData;
use crate::gfxinfo::summary::Summary;

/// A slice's start and end (ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub ts: i64,
    pub end: i64,
}

impl At {
    pub fn new(ts: i64, end: i64) -> Self {
        At { ts, end }
    }

    pub fn dur(&self) -> i64 {
        self.end - self.ts
    }

    fn of(span: Span) -> Self {
        At::new(span.ts, span.end())
    }
}

/// A descendant slice of a doFrame or DrawFrame; `depth` is relative to it (1 = child).
#[derive(Clone, Copy, Debug)]
pub struct Child<'a> {
    pub name: &'a str,
    pub ts: i64,
    pub dur: i64,
    pub depth: u32,
}

impl<'a> Child<'a> {
    pub fn new(name: &'a str, ts: i64, end: i64, depth: u32) -> Self {
        Child {
            name,
            ts,
            dur: end - ts,
            depth,
        }
    }

    fn at(&self) -> At {
        At::new(self.ts, self.ts + self.dur.max(0))
    }
}

/// The UI-thread slices that mark HWUI's UI timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UiSlices {
    /// `Choreographer#doFrame [id]`.
    pub do_frame: At,
    /// Choreographer's callback stages, direct children of doFrame.
    pub input: Option<At>,
    pub animation: Option<At>,
    pub traversal: Option<At>,
    /// `draw` (API ≤ 32) or `draw-VRI[<window>]`: ViewRootImpl.performDraw.
    pub draw: Option<At>,
    /// `Record View#draw()`: ThreadedRenderer.updateRootDisplayList, right after
    /// `markDrawStart()`.
    pub record_draw: Option<At>,
    /// `postAndWait`: DrawFrameTask.drawFrame, right after it stamps SyncQueued.
    pub post_and_wait: Option<At>,
}

/// Picks the UI marks from a doFrame's descendants (in start order): Choreographer's stages
/// are its children (grandchildren under a `resynced` wrapper). When the doFrame drew
/// several windows, the draw that belongs to this frame's DrawFrame is the last one posted
/// (`postAndWait`) at or before the DrawFrame started, and its `Record View#draw()` / `draw`
/// the last ones before that post.
pub fn ui_slices(do_frame: At, children: &[Child<'_>], draw_frame_start: i64) -> UiSlices {
    // Android 15 wraps the stages of a frame that started an interval late in
    // `Choreographer#doFrame - resynced to <id> in <n>ms`.
    let stage_depth = if children
        .iter()
        .any(|c| c.depth == 1 && c.name.starts_with("Choreographer#doFrame - resynced"))
    {
        2
    } else {
        1
    };
    let stage = |name: &str| {
        children
            .iter()
            .find(|c| c.depth == stage_depth && c.name == name)
            .map(Child::at)
    };
    let post_and_wait = children
        .iter()
        .rev()
        .find(|c| c.name == "postAndWait" && c.ts <= draw_frame_start)
        .map(Child::at);
    let bound = post_and_wait.map_or(draw_frame_start, |p| p.ts);
    let record_draw = children
        .iter()
        .rev()
        .find(|c| c.name == "Record View#draw()" && c.ts <= bound)
        .map(Child::at);
    let draw = children
        .iter()
        .rev()
        .find(|c| (c.name == "draw" || c.name.starts_with("draw-VRI[")) && c.ts <= bound)
        .map(Child::at);
    UiSlices {
        do_frame,
        input: stage("input"),
        animation: stage("animation"),
        traversal: stage("traversal"),
        draw,
        record_draw,
        post_and_wait,
    }
}

/// Slices CanvasContext::draw opens after `markIssueDrawCommandsStart()`: getting the buffer
/// (`setBuffersDimensions`, `dequeueBuffer…`, `eglBeginFrame`), then drawing (`Drawing …`,
/// Android 7's `computeOrdering`) and flushing. The earliest one marks IssueDrawCommandsStart.
pub const ISSUE_DRAW_MARKERS: [&str; 7] = [
    "setBuffersDimensions",
    "dequeueBuffer",
    "eglBeginFrame",
    "Drawing ",
    "computeOrdering",
    "flush commands",
    "flush drawing commands",
];

/// The RenderThread slices that mark HWUI's RenderThread timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RtSlices {
    /// `DrawFrame` / `DrawFrames <id>`: DrawFrameTask::run.
    pub draw_frame: At,
    /// `syncFrameState`: CanvasContext::prepareTree stamps SyncStart as it starts.
    pub sync_frame_state: Option<At>,
    /// The first of [`ISSUE_DRAW_MARKERS`] after the sync.
    pub issue_draw: Option<At>,
    /// The outermost `dequeueBuffer…` slice (Surface::dequeueBuffer).
    pub dequeue: Option<At>,
    /// The outermost `queueBuffer` slice.
    pub queue: Option<At>,
    /// `eglSwapBuffers…` (GL pipeline); the Vulkan pipeline has only `queueBuffer`.
    pub swap: Option<At>,
}

/// Picks the RenderThread marks from a DrawFrame's descendants (in start order). Only slices
/// from the end of `syncFrameState` on count for the draw, dequeue, queue and swap marks.
pub fn rt_slices(draw_frame: At, children: &[Child<'_>]) -> RtSlices {
    let sync_frame_state = children
        .iter()
        .find(|c| c.name == "syncFrameState")
        .map(Child::at);
    let after = sync_frame_state.map_or(i64::MIN, |s| s.end);
    let first = |pred: &dyn Fn(&str) -> bool| {
        children
            .iter()
            .find(|c| c.ts >= after && pred(c.name))
            .map(Child::at)
    };
    RtSlices {
        draw_frame,
        sync_frame_state,
        issue_draw: first(&|n| ISSUE_DRAW_MARKERS.iter().any(|m| n.starts_with(m))),
        dequeue: first(&|n| n.starts_with("dequeueBuffer")),
        queue: first(&|n| n.starts_with("queueBuffer")),
        swap: first(&|n| n.starts_with("eglSwapBuffers")),
    }
}

/// What the frame model knows about the frame besides its slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// FrameTimeline token (the vsync id).
    pub vsync_id: Option<i64>,
    /// The expected surface frame (FrameTimeline): the vsync and the app's deadline.
    pub expected: Option<At>,
    /// End of the matched FrameTracer GPU_ phase: the buffer's acquire fence signalled.
    pub gpu_completed: Option<i64>,
    /// The vsync period (FrameInterval): the spacing of the process's expected surface frames,
    /// else its frame budget.
    pub interval_ns: i64,
}

/// A FrameInfo rebuilt from a trace, and the fields that came from a fallback rather than
/// from their own slice or FrameTimeline / FrameTracer fact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rebuilt {
    pub info: FrameInfo,
    pub fallbacks: Vec<I>,
}

/// A GPU completion more than this after the DrawFrame is not this frame's (a wrong buffer
/// match); DrawFrame end is used instead.
pub const GPU_COMPLETED_MAX_AFTER_DRAW_NS: i64 = 1_000_000_000;

/// Choreographer.doFrame's frame time: the intended vsync, unless the frame started one or
/// more intervals late ("skipped frames"), when it is moved to the last vsync before the
/// start (`frameTimeNanos = startNanos - jitterNanos % frameIntervalNanos`).
pub fn choreographer_vsync(intended_vsync: i64, start: i64, interval: i64) -> i64 {
    let jitter = start - intended_vsync;
    if interval > 0 && jitter >= interval {
        start - jitter % interval
    } else {
        intended_vsync
    }
}

/// Builds the FrameInfo of one frame. See `docs/hwui-verdict.md` for the table.
pub fn frame_info(ui: &UiSlices, rt: &RtSlices, t: &Timing) -> Rebuilt {
    let mut fallbacks = Vec::new();
    let mut pick = |field: I, primary: Option<i64>, fallback: i64| -> i64 {
        primary.unwrap_or_else(|| {
            fallbacks.push(field);
            fallback
        })
    };
    let interval = t.interval_ns;
    let intended_vsync = pick(I::IntendedVsync, t.expected.map(|e| e.ts), ui.do_frame.ts);
    let vsync = choreographer_vsync(intended_vsync, ui.do_frame.ts, interval);
    let deadline = pick(
        I::FrameDeadline,
        t.expected.map(|e| e.end),
        intended_vsync + interval,
    );
    // RenderThread first: the UI fallbacks lean on SyncQueued.
    let frame_completed = rt.draw_frame.end;
    let sync_queued = pick(
        I::SyncQueued,
        ui.post_and_wait.map(|p| p.ts),
        rt.draw_frame.ts,
    );
    let sync_start = pick(
        I::SyncStart,
        rt.sync_frame_state.map(|s| s.ts),
        rt.draw_frame.ts,
    );
    let issue_draw = pick(
        I::IssueDrawCommandsStart,
        rt.issue_draw.map(|s| s.ts),
        rt.sync_frame_state.map_or(rt.draw_frame.ts, |s| s.end),
    );
    let swap_buffers = pick(
        I::SwapBuffers,
        rt.swap.or(rt.queue).map(|s| s.ts),
        frame_completed,
    );
    let swap_completed = pick(
        I::SwapBuffersCompleted,
        rt.swap.or(rt.queue).map(|s| s.end),
        frame_completed,
    );
    let gpu_completed = pick(
        I::GpuCompleted,
        t.gpu_completed.filter(|&g| {
            g >= rt.draw_frame.ts && g <= frame_completed + GPU_COMPLETED_MAX_AFTER_DRAW_NS
        }),
        frame_completed,
    );
    let dequeue = pick(I::DequeueBufferDuration, rt.dequeue.map(|d| d.dur()), 0);
    let queue = pick(I::QueueBufferDuration, rt.queue.map(|q| q.dur()), 0);
    // UI marks, each falling back to the next one HWUI stamps (a Choreographer stage without
    // callbacks has no slice, and its mark is stamped just before the next stage's).
    let draw_start = pick(
        I::DrawStart,
        ui.record_draw.or(ui.draw).map(|d| d.ts),
        sync_queued,
    );
    let traversals = pick(
        I::PerformTraversalsStart,
        ui.traversal.map(|s| s.ts),
        draw_start,
    );
    let animation = pick(I::AnimationStart, ui.animation.map(|s| s.ts), traversals);
    let input = pick(I::HandleInputStart, ui.input.map(|s| s.ts), animation);

    let info = FrameInfo::new()
        .with(I::FrameTimelineVsyncId, t.vsync_id.unwrap_or(0))
        .with(I::IntendedVsync, intended_vsync)
        .with(I::Vsync, vsync)
        .with(I::HandleInputStart, input)
        .with(I::AnimationStart, animation)
        .with(I::PerformTraversalsStart, traversals)
        .with(I::DrawStart, draw_start)
        .with(I::FrameDeadline, deadline)
        .with(I::FrameStartTime, ui.do_frame.ts)
        .with(I::FrameInterval, interval)
        .with(I::WorkloadTarget, deadline - intended_vsync)
        .with(I::SyncQueued, sync_queued)
        .with(I::SyncStart, sync_start)
        .with(I::IssueDrawCommandsStart, issue_draw)
        .with(I::SwapBuffers, swap_buffers)
        .with(I::FrameCompleted, frame_completed)
        .with(I::DequeueBufferDuration, dequeue)
        .with(I::QueueBufferDuration, queue)
        .with(I::GpuCompleted, gpu_completed)
        .with(I::SwapBuffersCompleted, swap_completed);
    fallbacks.sort();
    Rebuilt { info, fallbacks }
}

/// The per-frame `hwui` block of the analyze report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HwuiFrame {
    /// "Janky frames": GpuCompleted at or after the (possibly moved) deadline.
    pub janky: bool,
    /// "Janky frames (legacy)": IntendedVsync → SwapBuffersCompleted over one interval.
    pub janky_legacy: bool,
    /// Every `reportJankType` HWUI would make for the frame, legacy path first (summary keys;
    /// `high_input_latency` can appear twice).
    pub jank_types: Vec<&'static str>,
    /// JankTracker counted the frame (IntendedVsync → FrameCompleted > 0).
    pub counted: bool,
    /// Judged as triple buffered (buffer stuffing): its deadline was moved one slot later.
    pub triple_buffered: bool,
    /// IntendedVsync → FrameCompleted, minus the sync stall (the histogram value).
    pub total_ms: f64,
    /// The DrawFrame the FrameInfo was rebuilt from (it can differ from the frame's
    /// `draw_frame_slice_id` when one doFrame drew several windows).
    pub draw_frame_slice_id: u32,
}

impl HwuiFrame {
    pub fn from_verdict(v: &FrameVerdict, draw_frame_slice_id: u32) -> Self {
        HwuiFrame {
            draw_frame_slice_id,
            janky: v.janky,
            janky_legacy: v.janky_legacy(),
            jank_types: v.jank_types.iter().map(|t| t.key()).collect(),
            counted: v.counted,
            triple_buffered: v.triple_buffered,
            total_ms: ms(v.total_duration_ns),
        }
    }
}

pub const NOTE: &str = "approximation: HWUI JankTracker rules (Android 12-15) applied to \
    FrameInfo rebuilt from atrace slices (doFrame, DrawFrame and their children), FrameTimeline \
    (intended vsync, deadline) and FrameTracer (GPU completion); timestamps HWUI takes between \
    slices are read from the nearest slice, so numbers can differ from the device's `dumpsys \
    gfxinfo` (see docs/hwui-verdict.md)";

/// The per-process `hwui` block: the counters `dumpsys gfxinfo` prints for the process (the
/// sum of its windows), recomputed from the rebuilt frames.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HwuiSummary {
    pub total_frames: u32,
    pub janky_frames: u32,
    pub janky_frames_legacy: u32,
    pub missed_vsync: u32,
    pub high_input_latency: u32,
    pub slow_ui_thread: u32,
    pub slow_bitmap_uploads: u32,
    pub slow_issue_draw_commands: u32,
    pub frame_deadline_missed: u32,
    pub frame_deadline_missed_legacy: u32,
    pub p50_ms: u32,
    pub p90_ms: u32,
    pub p95_ms: u32,
    pub p99_ms: u32,
    /// The FrameInterval given to every frame: the vsync period.
    pub frame_interval_ms: f64,
    pub frame_interval_source: &'static str,
    /// JankTrackers run: one per window (FrameTimeline layer; one for the whole process
    /// without FrameTimeline).
    pub windows: usize,
    /// Distinct doFrame + DrawFrame pairs given to JankTracker.
    pub frames_judged: usize,
    /// Frames of the process without a complete doFrame and DrawFrame: no verdict.
    pub frames_without_verdict: usize,
    /// Judged frames whose IntendedVsync and FrameDeadline came from FrameTimeline.
    pub intended_vsync_from_frame_timeline: usize,
    /// Judged frames whose GpuCompleted came from FrameTracer (else DrawFrame end).
    pub gpu_completed_from_frame_tracer: usize,
    pub note: String,
}

impl HwuiSummary {
    fn new(data: &ProfileData, interval_ns: i64) -> Self {
        use crate::gfxinfo::jank_type::JankType as J;
        let s = Summary::from_data(data);
        let t = |j: J| s.jank_types[j as usize];
        HwuiSummary {
            total_frames: s.total_frames,
            janky_frames: s.janky_frames,
            janky_frames_legacy: s.janky_frames_legacy,
            missed_vsync: t(J::MissedVsync),
            high_input_latency: t(J::HighInputLatency),
            slow_ui_thread: t(J::SlowUi),
            slow_bitmap_uploads: t(J::SlowSync),
            slow_issue_draw_commands: t(J::SlowRt),
            frame_deadline_missed: t(J::MissedDeadline),
            frame_deadline_missed_legacy: t(J::MissedDeadlineLegacy),
            p50_ms: s.percentiles_ms[0],
            p90_ms: s.percentiles_ms[1],
            p95_ms: s.percentiles_ms[2],
            p99_ms: s.percentiles_ms[3],
            frame_interval_ms: ms(interval_ns),
            frame_interval_source: "",
            windows: 0,
            frames_judged: 0,
            frames_without_verdict: 0,
            intended_vsync_from_frame_timeline: 0,
            gpu_completed_from_frame_tracer: 0,
            note: NOTE.to_string(),
        }
    }
}

/// What HWUI's `finishFrame` adds to the process-wide `mGlobalData` for one frame (the same
/// calls it makes on the window's own data).
pub fn report_to(data: &mut ProfileData, v: &FrameVerdict) {
    if v.legacy.janky() {
        data.report_jank_legacy();
    }
    for t in &v.jank_types {
        data.report_jank_type(*t);
    }
    if v.counted {
        data.report_frame(v.total_duration_ns);
    }
    if v.janky {
        data.report_jank();
    }
    if let Some(g) = v.gpu_draw_time_ns {
        data.report_gpu_frame(g);
    }
}

/// A process's HWUI verdicts: the summary (None when no frame could be rebuilt) and one
/// entry per frame, parallel to the frames given.
#[derive(Debug, Clone, Default)]
pub struct ProcessHwui {
    pub summary: Option<HwuiSummary>,
    pub frames: Vec<Option<HwuiFrame>>,
}

fn children<'s>(idx: &Index<'s>, parent: Span) -> Vec<Child<'s>> {
    let store = idx.store;
    let depth = store.slices[parent.id as usize].depth();
    idx.descendants(parent.id)
        .into_iter()
        .map(|c| {
            let r = &store.slices[c as usize];
            Child {
                name: store.opt_str(r.name).unwrap_or(""),
                ts: r.ts,
                dur: r.dur,
                depth: r.depth() - depth,
            }
        })
        .collect()
}

/// Rebuilds one frame from the trace.
pub fn rebuild(idx: &Index<'_>, frame: &Frame, ui: Span, rt: Span, interval_ns: i64) -> Rebuilt {
    let ui_sl = ui_slices(At::of(ui), &children(idx, ui), rt.ts);
    let rt_sl = rt_slices(At::of(rt), &children(idx, rt));
    let timing = Timing {
        vsync_id: frame.frame_id,
        expected: frame
            .timeline
            .as_ref()
            .and_then(|t| t.expected)
            .filter(|e| e.complete())
            .map(At::of),
        gpu_completed: frame
            .buffer
            .as_ref()
            .and_then(|b| b.gpu)
            .filter(|g| g.complete())
            .map(|g| g.end()),
        interval_ns,
    };
    frame_info(&ui_sl, &rt_sl, &timing)
}

/// The window a DrawFrame drew, from the `VRI[<window>]` its children name (Android 12+:
/// `dequeueBuffer - VRI[StatusBar]#2(BLAST Consumer)2`, `setFrameTimelineInfo(VRI[...]#1)`).
pub fn drawn_window<'a>(children: &[Child<'a>]) -> Option<&'a str> {
    children.iter().find_map(|c| {
        let rest = &c.name[c.name.find("VRI[")? + 4..];
        Some(&rest[..rest.find(']')?])
    })
}

/// Whether a FrameTimeline layer is the surface of a ViewRootImpl window: `TX - StatusBar#82`
/// is `StatusBar`, `TX - com.example/com.example.MainActivity#7` is `MainActivity`.
pub fn layer_is_window(layer: &str, window: &str) -> bool {
    let l = layer.strip_prefix("TX - ").unwrap_or(layer);
    let l = match l.rfind('#') {
        Some(i) if l[i + 1..].bytes().all(|b| b.is_ascii_digit()) => &l[..i],
        _ => l,
    };
    !window.is_empty()
        && (l == window
            || l.strip_suffix(window)
                .is_some_and(|p| p.ends_with('.') || p.ends_with('/')))
}

/// The DrawFrame of a frame. A doFrame that draws two windows posts two DrawFrames with the
/// same vsync id, and the frame model gives both layers' frames the first; here the frame
/// gets the DrawFrame (with that id, started during its doFrame) that drew its layer's
/// window, when exactly one did. Otherwise the frame model's choice stands.
pub fn draw_frame_for(idx: &Index<'_>, f: &Frame, ui: Span, rt: Span) -> Span {
    let store = idx.store;
    let name = |s: Span| {
        store
            .opt_str(store.slices[s.id as usize].name)
            .unwrap_or("")
    };
    let (Some(layer), Some(id)) = (f.layer.as_deref(), frame_id_of(name(rt))) else {
        return rt;
    };
    let candidates: Vec<Span> = idx
        .draw_frames_starting(f.upid, ui.ts, ui.end().saturating_add(1))
        .iter()
        .filter(|d| frame_id_of(name(**d)) == Some(id))
        .copied()
        .collect();
    if candidates.len() < 2 {
        return rt;
    }
    let mine: Vec<Span> = candidates
        .into_iter()
        .filter(|d| drawn_window(&children(idx, *d)).is_some_and(|w| layer_is_window(layer, w)))
        .collect();
    match mine.as_slice() {
        [one] => *one,
        _ => rt,
    }
}

/// Judges a process's frames (sorted as the frame model sorts them). A frame gets a verdict
/// when it has a complete doFrame and DrawFrame; frames that still share both (one DrawFrame
/// claimed by two layers) are judged once, in the window of the first, and share the verdict.
/// `intervals` is each frame's vsync period (HWUI's FrameInterval), from `interval_source`.
pub fn judge_process(
    idx: &Index<'_>,
    frames: &[Frame],
    intervals: &[i64],
    interval_source: &'static str,
) -> ProcessHwui {
    let mut pair_of_frame: Vec<Option<usize>> = vec![None; frames.len()];
    // (first frame, doFrame, DrawFrame); frames whose DrawFrame changed, with their buffer.
    let mut pairs: Vec<(usize, Span, Span)> = Vec::new();
    let mut moved: FxHashMap<usize, Frame> = FxHashMap::default();
    let mut seen: FxHashMap<(u32, u32), usize> = FxHashMap::default();
    for (i, f) in frames.iter().enumerate() {
        let (Some(ui), Some(rt0)) = (f.ui, f.rt) else {
            continue;
        };
        let rt = draw_frame_for(idx, f, ui, rt0);
        if !ui.complete() || !rt.complete() {
            continue;
        }
        let k = *seen.entry((ui.id, rt.id)).or_insert_with(|| {
            pairs.push((i, ui, rt));
            pairs.len() - 1
        });
        pair_of_frame[i] = Some(k);
        if rt != rt0 && pairs[k].0 == i {
            // Its buffer (and GPU completion) follows the DrawFrame it really had.
            let mut g = f.clone();
            g.rt = Some(rt);
            g.buffer = match_buffer(idx, &g);
            moved.insert(i, g);
        }
    }
    if pairs.is_empty() {
        return ProcessHwui {
            summary: None,
            frames: vec![None; frames.len()],
        };
    }
    let mut windows: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
    for (k, (i, _, _)) in pairs.iter().enumerate() {
        windows
            .entry(frames[*i].layer.as_deref())
            .or_default()
            .push(k);
    }
    let mut global = ProfileData::new();
    let mut verdicts: Vec<Option<HwuiFrame>> = vec![None; pairs.len()];
    let (mut from_ft, mut from_tracer) = (0, 0);
    for list in windows.values_mut() {
        list.sort_by_key(|&k| (pairs[k].2.ts, pairs[k].1.ts, pairs[k].2.id));
        let mut tracker = JankTracker::new(JankTrackerConfig::default());
        for &k in list.iter() {
            let (i, ui, rt) = pairs[k];
            let frame = moved.get(&i).unwrap_or(&frames[i]);
            let mut rebuilt = rebuild(idx, frame, ui, rt, intervals[i]);
            from_ft += usize::from(!rebuilt.fallbacks.contains(&I::IntendedVsync));
            from_tracer += usize::from(!rebuilt.fallbacks.contains(&I::GpuCompleted));
            let v = tracker.finish_frame(&mut rebuilt.info);
            report_to(&mut global, &v);
            verdicts[k] = Some(HwuiFrame::from_verdict(&v, rt.id));
        }
    }
    let per_frame: Vec<Option<HwuiFrame>> = pair_of_frame
        .iter()
        .map(|k| k.and_then(|k| verdicts[k].clone()))
        .collect();
    let mut used: Vec<i64> = pairs.iter().map(|p| intervals[p.0]).collect();
    used.sort_unstable();
    let mut summary = HwuiSummary::new(&global, used[used.len() / 2]);
    summary.frame_interval_source = interval_source;
    summary.windows = windows.len();
    summary.frames_judged = pairs.len();
    summary.frames_without_verdict = per_frame.iter().filter(|v| v.is_none()).count();
    summary.intended_vsync_from_frame_timeline = from_ft;
    summary.gpu_completed_from_frame_tracer = from_tracer;
    ProcessHwui {
        summary: Some(summary),
        frames: per_frame,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfxinfo::jank_type::JankType;

    const B: i64 = 1_000_000_000;
    const INTERVAL: i64 = 16_000_000;

    /// Microseconds after B, in ns.
    fn us(x: i64) -> i64 {
        B + x * 1_000
    }

    fn at(a: i64, b: i64) -> At {
        At::new(us(a), us(b))
    }

    /// A hand-built child slice: name, start and end in µs after B, depth below its parent.
    fn c(name: &str, a: i64, b: i64, depth: u32) -> Child<'_> {
        Child::new(name, us(a), us(b), depth)
    }

    /// The frame as the pipeline sees it: slices picked by name, then FrameInfo.
    fn build(
        do_frame: (i64, i64),
        ui: &[Child<'_>],
        draw_frame: (i64, i64),
        rt: &[Child<'_>],
        expected: Option<(i64, i64)>,
        gpu: Option<i64>,
    ) -> Rebuilt {
        let df = at(draw_frame.0, draw_frame.1);
        let u = ui_slices(at(do_frame.0, do_frame.1), ui, df.ts);
        let r = rt_slices(df, rt);
        let t = Timing {
            vsync_id: Some(42),
            expected: expected.map(|(a, b)| at(a, b)),
            gpu_completed: gpu.map(us),
            interval_ns: INTERVAL,
        };
        frame_info(&u, &r, &t)
    }

    fn assert_fields(f: &FrameInfo, want: &[(I, i64)]) {
        for &(field, v) in want {
            assert_eq!(f.get(field), v, "{field:?}");
        }
    }

    #[test]
    fn every_field_comes_from_its_slice() {
        let ui = [
            c("input", 600, 1_000, 1),
            c("animation", 1_100, 1_500, 1),
            c("traversal", 1_600, 9_800, 1),
            c("measure", 1_700, 3_000, 2),
            c("draw-VRI[com.example]", 5_000, 9_700, 2),
            c("Record View#draw()", 5_100, 7_000, 3),
            c("postAndWait", 7_200, 9_600, 3),
        ];
        let rt = [
            c("syncFrameState", 7_400, 9_500, 1),
            c("prepareTree", 7_450, 9_400, 2),
            c("query", 9_550, 9_560, 1),
            c(
                "dequeueBuffer - VRI[com.example]#0(BLAST Consumer)0",
                9_600,
                9_900,
                1,
            ),
            c("dequeueBuffer", 9_650, 9_850, 2),
            c("eglBeginFrame", 9_950, 9_960, 1),
            c("Drawing  0.00  0.00 1080.00 2400.00", 10_000, 12_800, 1),
            c("flush commands", 10_100, 11_000, 2),
            c("eglSwapBuffersWithDamageKHR", 11_100, 12_700, 2),
            c("queueBuffer", 11_300, 12_500, 3),
            c("queueBuffer", 11_350, 12_400, 4),
        ];
        let r = build(
            (500, 10_000),
            &ui,
            (7_300, 13_000),
            &rt,
            Some((0, 16_000)),
            Some(14_000),
        );
        assert_eq!(r.fallbacks, Vec::<I>::new());
        assert_fields(
            &r.info,
            &[
                (I::Flags, 0),
                (I::FrameTimelineVsyncId, 42),
                (I::IntendedVsync, us(0)), // expected surface frame start
                (I::Vsync, us(0)),         // started 0.5 ms late: not resynced
                (I::HandleInputStart, us(600)), // "input"
                (I::AnimationStart, us(1_100)), // "animation"
                (I::PerformTraversalsStart, us(1_600)), // "traversal"
                (I::DrawStart, us(5_100)), // "Record View#draw()"
                (I::FrameDeadline, us(16_000)), // expected surface frame end
                (I::FrameStartTime, us(500)), // doFrame start
                (I::FrameInterval, INTERVAL),
                (I::WorkloadTarget, 16_000_000),
                (I::SyncQueued, us(7_200)),             // "postAndWait"
                (I::SyncStart, us(7_400)),              // "syncFrameState"
                (I::IssueDrawCommandsStart, us(9_600)), // first dequeueBuffer, not "query"
                (I::SwapBuffers, us(11_100)),           // eglSwapBuffers* start
                (I::SwapBuffersCompleted, us(12_700)),  // eglSwapBuffers* end
                (I::FrameCompleted, us(13_000)),        // DrawFrame end
                (I::GpuCompleted, us(14_000)),          // FrameTracer GPU_ end
                (I::DequeueBufferDuration, 300_000),    // outermost dequeueBuffer*
                (I::QueueBufferDuration, 1_200_000),    // outermost queueBuffer
            ],
        );
    }

    #[test]
    fn missing_children_fall_back_as_documented() {
        // A doFrame and a DrawFrame with no children, no FrameTimeline, no FrameTracer.
        let r = build((500, 6_000), &[], (5_000, 9_000), &[], None, None);
        assert_fields(
            &r.info,
            &[
                (I::IntendedVsync, us(500)), // doFrame start
                (I::Vsync, us(500)),
                (I::FrameDeadline, us(16_500)), // IntendedVsync + interval
                (I::FrameStartTime, us(500)),
                (I::SyncQueued, us(5_000)),             // DrawFrame start
                (I::DrawStart, us(5_000)),              // -> SyncQueued
                (I::PerformTraversalsStart, us(5_000)), // -> DrawStart
                (I::AnimationStart, us(5_000)),         // -> PerformTraversalsStart
                (I::HandleInputStart, us(5_000)),       // -> AnimationStart
                (I::SyncStart, us(5_000)),              // DrawFrame start
                (I::IssueDrawCommandsStart, us(5_000)), // syncFrameState end, else DrawFrame start
                (I::SwapBuffers, us(9_000)),            // FrameCompleted
                (I::SwapBuffersCompleted, us(9_000)),
                (I::FrameCompleted, us(9_000)),
                (I::GpuCompleted, us(9_000)), // FrameCompleted
                (I::DequeueBufferDuration, 0),
                (I::QueueBufferDuration, 0),
            ],
        );
        assert_eq!(
            r.fallbacks,
            vec![
                I::IntendedVsync,
                I::HandleInputStart,
                I::AnimationStart,
                I::PerformTraversalsStart,
                I::DrawStart,
                I::FrameDeadline,
                I::SyncQueued,
                I::SyncStart,
                I::IssueDrawCommandsStart,
                I::SwapBuffers,
                I::DequeueBufferDuration,
                I::QueueBufferDuration,
                I::GpuCompleted,
                I::SwapBuffersCompleted,
            ]
        );
    }

    #[test]
    fn api24_names_and_ui_stage_fallbacks() {
        // Android 7: no "input" callbacks this frame, "draw" and no postAndWait; DrawFrame
        // without an id, "flush drawing commands", dequeue at depth 1.
        let ui = [
            c("animation", 600, 900, 1),
            c("traversal", 1_000, 8_800, 1),
            c("draw", 5_000, 8_700, 2),
            c("Record View#draw()", 5_100, 7_000, 3),
        ];
        let rt = [
            c("syncFrameState", 8_760, 9_000, 1),
            c("prepareTree", 8_780, 8_990, 2),
            c("eglBeginFrame", 9_300, 9_310, 1),
            c("computeOrdering", 9_330, 9_360, 1),
            c("dequeueBuffer", 9_660, 10_100, 1),
            c("flush drawing commands", 10_400, 11_200, 1),
            c("eglSwapBuffersWithDamageKHR", 11_300, 11_900, 1),
            c("queueBuffer", 11_500, 11_800, 2),
        ];
        let r = build((500, 9_000), &ui, (8_750, 12_000), &rt, None, None);
        assert_fields(
            &r.info,
            &[
                (I::HandleInputStart, us(600)), // no "input": the next stamp, "animation"
                (I::AnimationStart, us(600)),
                (I::PerformTraversalsStart, us(1_000)),
                (I::DrawStart, us(5_100)),
                (I::SyncQueued, us(8_750)), // no postAndWait: DrawFrame start
                (I::SyncStart, us(8_760)),
                (I::IssueDrawCommandsStart, us(9_300)), // eglBeginFrame
                (I::SwapBuffers, us(11_300)),
                (I::SwapBuffersCompleted, us(11_900)),
                (I::DequeueBufferDuration, 440_000),
                (I::QueueBufferDuration, 300_000),
            ],
        );
        assert_eq!(
            r.fallbacks,
            vec![
                I::IntendedVsync,
                I::HandleInputStart,
                I::FrameDeadline,
                I::SyncQueued,
                I::GpuCompleted,
            ]
        );

        // Without "Record View#draw()" the draw slice marks DrawStart; without "traversal"
        // PerformTraversalsStart falls to DrawStart.
        let ui = [c("draw-VRI[w]", 5_000, 8_700, 2)];
        let r = build((500, 9_000), &ui, (8_750, 12_000), &[], None, None);
        assert_eq!(r.info.get(I::DrawStart), us(5_000));
        assert_eq!(r.info.get(I::PerformTraversalsStart), us(5_000));
        assert_eq!(r.info.get(I::HandleInputStart), us(5_000));
    }

    #[test]
    fn vulkan_frames_swap_at_queue_buffer() {
        // No eglSwapBuffers and no draw marker; a queueBuffer inside syncFrameState (a
        // TextureView's) is not the frame's.
        let rt = [
            c("syncFrameState", 8_100, 8_600, 1),
            c("queueBuffer", 8_200, 8_300, 2),
            c("queueBuffer", 11_000, 11_600, 1),
        ];
        let r = build((500, 8_000), &[], (8_000, 12_000), &rt, None, None);
        assert_fields(
            &r.info,
            &[
                (I::SyncStart, us(8_100)),
                (I::IssueDrawCommandsStart, us(8_600)), // syncFrameState end
                (I::SwapBuffers, us(11_000)),
                (I::SwapBuffersCompleted, us(11_600)),
                (I::QueueBufferDuration, 600_000),
                (I::DequeueBufferDuration, 0),
            ],
        );
        assert!(r.fallbacks.contains(&I::IssueDrawCommandsStart));
        assert!(!r.fallbacks.contains(&I::SwapBuffers));
    }

    #[test]
    fn a_frame_started_an_interval_late_is_resynced_like_choreographer() {
        // jitter 17 ms ≥ 16 ms: frameTime = start − 17 % 16 ms = start − 1 ms.
        assert_eq!(choreographer_vsync(us(0), us(17_000), INTERVAL), us(16_000));
        // jitter 35 ms: 35 % 16 = 3 ms.
        assert_eq!(choreographer_vsync(us(0), us(35_000), INTERVAL), us(32_000));
        // jitter 15.9 ms: not resynced.
        assert_eq!(choreographer_vsync(us(0), us(15_900), INTERVAL), us(0));
    }

    #[test]
    fn a_doframe_drawing_two_windows_uses_the_draw_posted_for_this_drawframe() {
        let ui = [
            c("traversal", 1_000, 11_900, 1),
            c("draw-VRI[StatusBar]", 2_000, 5_000, 2),
            c("Record View#draw()", 2_100, 3_000, 3),
            c("postAndWait", 3_100, 4_900, 3),
            c("draw-VRI[NavigationBar0]", 6_000, 9_000, 2),
            c("Record View#draw()", 6_100, 7_000, 3),
            c("postAndWait", 7_100, 8_900, 3),
        ];
        let first = ui_slices(at(500, 12_000), &ui, us(3_200));
        assert_eq!(first.post_and_wait, Some(at(3_100, 4_900)));
        assert_eq!(first.record_draw, Some(at(2_100, 3_000)));
        assert_eq!(first.draw, Some(at(2_000, 5_000)));
        let second = ui_slices(at(500, 12_000), &ui, us(7_200));
        assert_eq!(second.post_and_wait, Some(at(7_100, 8_900)));
        assert_eq!(second.record_draw, Some(at(6_100, 7_000)));
        assert_eq!(second.draw, Some(at(6_000, 9_000)));
    }

    #[test]
    fn a_gpu_completion_that_cannot_be_the_frames_is_ignored() {
        let df = (5_000, 9_000);
        let before = build((500, 6_000), &[], df, &[], None, Some(4_000));
        assert_eq!(before.info.get(I::GpuCompleted), us(9_000));
        assert!(before.fallbacks.contains(&I::GpuCompleted));
        let far = build((500, 6_000), &[], df, &[], None, Some(9_000 + 1_000_001));
        assert_eq!(far.info.get(I::GpuCompleted), us(9_000));
        let ok = build((500, 6_000), &[], df, &[], None, Some(8_000));
        assert_eq!(ok.info.get(I::GpuCompleted), us(8_000));
        assert!(!ok.fallbacks.contains(&I::GpuCompleted));
    }

    #[test]
    fn drawframes_name_their_window_and_layers_match_it() {
        let rt = [
            c("syncFrameState", 1, 2, 1),
            c(
                "dequeueBuffer - VRI[NavigationBar0]#1(BLAST Consumer)1",
                3,
                4,
                1,
            ),
        ];
        assert_eq!(drawn_window(&rt), Some("NavigationBar0"));
        assert_eq!(drawn_window(&rt[..1]), None);
        assert!(layer_is_window("TX - NavigationBar0#76", "NavigationBar0"));
        assert!(!layer_is_window("TX - StatusBar#82", "NavigationBar0"));
        assert!(layer_is_window(
            "TX - com.android.launcher3/com.android.launcher3.QuickstepOverlayLauncher#7829",
            "QuickstepOverlayLauncher"
        ));
        assert!(!layer_is_window(
            "TX - com.example/com.example.XMain#3",
            "Main"
        ));
        assert!(!layer_is_window("TX - StatusBar#82", ""));
    }

    fn keys(v: &FrameVerdict) -> Vec<&'static str> {
        v.jank_types.iter().map(|t| t.key()).collect()
    }

    /// Two frames of one window, 16 ms interval. The first one's UI thread runs 20 ms; the
    /// second is on time. Expected values worked out by hand from JankTracker's rules.
    #[test]
    fn a_ui_thread_overrun_is_slow_ui_thread_and_a_missed_deadline() {
        let f1 = build(
            (500, 20_500),
            &[
                c("traversal", 1_000, 20_300, 1),
                c("draw-VRI[w]", 17_900, 20_400, 2),
                c("Record View#draw()", 18_000, 19_000, 3),
                c("postAndWait", 19_500, 20_400, 3),
            ],
            (19_600, 24_000),
            &[
                c("syncFrameState", 19_700, 20_300, 1),
                c("Drawing  0.00  0.00 1080.00 2400.00", 20_500, 23_800, 1),
                c("queueBuffer", 23_000, 23_600, 2),
            ],
            Some((0, 16_000)),
            Some(25_000),
        );
        let f2 = build(
            (20_600, 24_600),
            &[
                c("traversal", 20_700, 24_500, 1),
                c("draw-VRI[w]", 21_900, 24_500, 2),
                c("Record View#draw()", 22_000, 23_000, 3),
                c("postAndWait", 24_400, 24_550, 3),
            ],
            (24_700, 28_000),
            &[
                c("syncFrameState", 24_800, 25_200, 1),
                c("Drawing  0.00  0.00 1080.00 2400.00", 25_300, 27_800, 1),
                c("queueBuffer", 27_000, 27_500, 2),
            ],
            Some((16_000, 32_000)),
            Some(30_000),
        );
        let mut tracker = JankTracker::new(JankTrackerConfig::default());
        let mut global = ProfileData::new();

        // Frame 1: IntendedVsync 0, Vsync 0, SyncQueued 19.5, SyncStart 19.7 (stall 0.2),
        // IssueDraw 20.5, SwapBuffersCompleted 23.6, FrameCompleted 24, GpuCompleted 25 ms.
        // Legacy: 23.6 − 0.2 = 23.4 ms > 16 → janky (legacy); first frame: swap deadline
        //   0 + 16, triple buffered (16 > 1.6), deadline → max(32, 16) = 32; completed 24 < 32
        //   → hit → high input latency.
        // Deadline path: total 24 − 0.2 = 23.8 ms; not triple buffered (state −1); GPU 25 ≥
        //   deadline 16 → frame deadline missed, janky; next unstuffed start 25 − 25%16 + 16
        //   = 32. Causes: missed vsync 0 < 1 ns; slow UI 19.7 − 0.2 = 19.5 ≥ 8 ms fires; slow
        //   bitmap uploads 0.8 < 3.2; slow issue draw commands 3.5 < 12.
        let mut i1 = f1.info.clone();
        let v1 = tracker.finish_frame(&mut i1);
        report_to(&mut global, &v1);
        assert!(v1.janky);
        assert!(v1.janky_legacy());
        assert!(!v1.triple_buffered);
        assert_eq!(v1.total_duration_ns, 23_800_000);
        assert_eq!(
            keys(&v1),
            vec![
                "high_input_latency",
                "frame_deadline_missed",
                "slow_ui_thread"
            ]
        );
        let slow_ui = v1
            .causes
            .iter()
            .find(|c| c.jank_type == JankType::SlowUi)
            .unwrap();
        assert_eq!(
            (slow_ui.duration_ns, slow_ui.threshold_ns),
            (19_500_000, 8_000_000)
        );

        // Frame 2: IntendedVsync 16, SyncQueued 24.4, SyncStart 24.8 (stall 0.4), swap done
        //   27.5, completed 28, GPU 30, deadline 32 ms.
        // Legacy: 27.5 − 16 − 0.4 = 11.1 < 16 → not janky; swap deadline 32 − 16 = 16 > 1.6 →
        //   triple buffered; → max(48, 32) = 48; 28 < 48 hit → high input latency.
        // Deadline path: unstuffed start 32 − 16 = 16 > 1.6 → triple buffered, deadline moved
        //   to 32 + (32 − 16) = 48; GPU 30 < 48 → hit, high input latency.
        let mut i2 = f2.info.clone();
        let v2 = tracker.finish_frame(&mut i2);
        report_to(&mut global, &v2);
        assert!(!v2.janky);
        assert!(!v2.janky_legacy());
        assert!(v2.triple_buffered);
        assert_eq!(v2.deadline_ns, Some(us(48_000)));
        assert_eq!(v2.total_duration_ns, 11_600_000);
        assert_eq!(keys(&v2), vec!["high_input_latency", "high_input_latency"]);

        let h = HwuiFrame::from_verdict(&v1, 7);
        assert_eq!(
            (h.janky, h.janky_legacy, h.counted, h.total_ms),
            (true, true, true, 23.8)
        );

        // The process summary: both frames counted, percentiles from the 23 and 11 ms
        // buckets (p50 walks down from the slowest until 2 − 1 frames are seen: 23 ms).
        let s = HwuiSummary::new(&global, INTERVAL);
        assert_eq!(
            (
                s.total_frames,
                s.janky_frames,
                s.janky_frames_legacy,
                s.missed_vsync,
                s.high_input_latency,
                s.slow_ui_thread,
                s.slow_bitmap_uploads,
                s.slow_issue_draw_commands,
                s.frame_deadline_missed,
                s.frame_deadline_missed_legacy,
            ),
            (2, 1, 1, 0, 3, 1, 0, 0, 1, 0)
        );
        assert_eq!((s.p50_ms, s.p90_ms, s.p95_ms, s.p99_ms), (23, 23, 23, 23));
        // The global data HWUI keeps equals the window's own when there is one window.
        assert_eq!(&global, tracker.data());
    }

    /// A doFrame that starts more than an interval after its vsync: Choreographer resyncs
    /// Vsync, which HWUI then reports as a missed vsync on the janky frame.
    #[test]
    fn a_late_start_is_a_missed_vsync() {
        let r = build(
            (17_000, 30_000),
            &[
                c(
                    "Choreographer#doFrame - resynced to 7 in 1.0ms",
                    17_050,
                    29_950,
                    1,
                ),
                c("animation", 17_080, 17_090, 2),
                c("traversal", 17_100, 29_900, 2),
                c("traversal", 17_200, 17_300, 3),
            ],
            (29_000, 33_000),
            &[
                c("syncFrameState", 29_100, 29_500, 1),
                c("Drawing  0.00  0.00 1080.00 2400.00", 29_600, 32_800, 1),
                c("queueBuffer", 32_000, 32_500, 2),
            ],
            Some((0, 16_000)),
            Some(34_000),
        );
        // Vsync = 17 − 17 % 16 = 16 ms; SyncQueued 29 (DrawFrame start), SyncStart 29.1.
        assert_eq!(r.info.get(I::Vsync), us(16_000));
        // The stages sit under the resync wrapper.
        assert_eq!(r.info.get(I::AnimationStart), us(17_080));
        assert_eq!(r.info.get(I::PerformTraversalsStart), us(17_100));
        let mut info = r.info.clone();
        let v = JankTracker::new(JankTrackerConfig::default()).finish_frame(&mut info);
        // Legacy: 32.5 − 0.1 = 32.4 > 16 → janky; swap deadline 16 → 32; completed 33 ≥ 32
        //   and 32.4 ≥ 16 → missed (legacy).
        // Deadline path: GPU 34 ≥ 16 → missed; missed vsync 16 ms ≥ 1 ns; slow UI 16 → 29.1
        //   minus stall 0.1 = 13 ≥ 8 ms; sync 0.5 < 3.2; issue 3.4 < 12.
        assert_eq!(
            keys(&v),
            vec![
                "frame_deadline_missed_legacy",
                "frame_deadline_missed",
                "missed_vsync",
                "slow_ui_thread"
            ]
        );
    }
}
