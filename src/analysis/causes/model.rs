//! The cause chain of a frame as it is serialised (the `causes` object of a frame in
//! `frameprobe.analyze/v1`) and the per-process aggregate (`causes` of a process).

use serde::Serialize;

use super::super::thread_state::StateSplit;
use crate::analysis::blame::StateSplitMs;

/// The interval a chain explains.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub ts: i64,
    pub end_ts: i64,
    pub dur_ns: i64,
    pub ms: f64,
    /// Where the window starts: `expected_start` (FrameTimeline expected surface frame),
    /// `do_frame_start` or `frame_start`.
    pub from: &'static str,
    /// Where it ends: `actual_end` (FrameTimeline actual surface frame) or `frame_end`
    /// (the end of the frame's last DrawFrame, without FrameTimeline); for an actual frame
    /// that never ended (dur -1), `draw_frame_end` or `do_frame_end`.
    pub to: &'static str,
}

/// The doFrame and DrawFrame the chain followed.
#[derive(Debug, Clone, Serialize)]
pub struct FrameSliceIds {
    pub do_frame: Option<u32>,
    pub draw_frame: Option<u32>,
    /// `frame_model` (the frame's own main-thread doFrame and RenderThread DrawFrame) or
    /// `vsync_id_any_thread` (slices of the frame's vsync id on another thread of the
    /// process, as Perfetto's `android_frames_choreographer_do_frame` finds them); null when
    /// there are none.
    pub matched_by: Option<&'static str>,
}

/// One phase of the frame's critical path; the phases tile the window.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    /// `before_do_frame`, `ui_thread`, `render_thread`, `gpu_composition`, or
    /// `no_frame_slices` (the whole window of a frame with no doFrame or DrawFrame).
    pub phase: &'static str,
    pub thread: Option<ThreadRef>,
    pub ts: i64,
    pub dur_ns: i64,
    pub ms: f64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ThreadRef {
    pub name: Option<String>,
    pub tid: i64,
    pub process: Option<String>,
    pub pid: Option<i64>,
}

/// One link of the chain: time of one category on one phase (for slice categories, one
/// slice). The links of a chain never overlap and add up to the window.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Link {
    pub category: &'static str,
    pub label: &'static str,
    pub family: &'static str,
    pub phase: &'static str,
    pub thread: Option<ThreadRef>,
    /// First instant of the link inside the window.
    pub ts: i64,
    /// Time attributed to the link (the sum of its pieces, clipped to the window).
    pub dur_ns: i64,
    pub ms: f64,
    /// The slice that placed the link in its category, if a slice did.
    pub slice_id: Option<u32>,
    pub slice_name: Option<String>,
    /// The slice's own start and duration (not clipped).
    pub slice_ts: Option<i64>,
    pub slice_dur_ns: Option<i64>,
    /// Other slices the link stands on (the slices running meanwhile, for derived links).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context_slice_ids: Vec<u32>,
    /// The rule that placed the time in this category.
    pub rule: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binder: Option<Box<BinderDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<Box<LockDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gc: Option<Box<GcDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<Box<CpuDetail>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io: Option<IoDetail>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Box<GpuDetail>>,
    /// For unnamed sleeps: the threads whose wakeups ended them (by sleep time).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub woken_by: Option<Vec<ThreadMs>>,
    /// For waits on the RenderThread: what the RenderThread's time went to meanwhile (its
    /// own cause categories, largest first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub render_thread_activity: Option<Vec<NamedMs>>,
    /// How many shorter links this one stands for (0: a single link). Chains list at most
    /// [`super::MAX_LINKS`] links one by one.
    #[serde(skip_serializing_if = "is_zero")]
    pub merged: usize,
    /// A link of a derived category (no slice) gathers every stretch of its phase with that
    /// cause: how many separate stretches (omitted when one) and the longest of them.
    #[serde(skip_serializing_if = "is_one_or_less")]
    pub stretches: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longest_stretch: Option<Stretch>,
}

fn is_one_or_less(n: &usize) -> bool {
    *n <= 1
}

/// One contiguous stretch of a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stretch {
    pub ts: i64,
    pub dur_ns: i64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, Serialize)]
pub struct SliceRef {
    pub slice_id: u32,
    pub name: String,
    pub ts: i64,
    pub ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BinderDetail {
    /// The server's `binder reply` slice (joined by the binder flow).
    pub reply_slice_id: Option<u32>,
    pub server: Option<ThreadRef>,
    /// The AIDL / HIDL method the server ran, when its slice names one.
    pub method: Option<String>,
    /// The server's longest slices under the reply.
    pub server_slices: Vec<SliceRef>,
    /// The server thread's states during the reply.
    pub server_states: Option<StateSplitMs>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LockDetail {
    pub owner: Option<ThreadRef>,
    pub owner_tid: Option<i64>,
    pub blocking_method: Option<String>,
    pub blocked_method: Option<String>,
    /// What the owner was inside during the contention (largest overlap first).
    pub owner_slices: Vec<SliceRef>,
    pub owner_states: Option<StateSplitMs>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GcDetail {
    /// The GC that overlapped the wait most (Perfetto's `*concurrent*GC` slices, or any
    /// slice naming a GC on another thread of the process).
    pub gc: Option<SliceRef>,
    pub gc_thread: Option<ThreadRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThreadMs {
    pub thread: ThreadRef,
    pub ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct CpuDetail {
    /// The CPU(s) the thread waited for: where it ran next.
    pub cpus: Vec<u32>,
    /// Who ran on those CPUs meanwhile (top 3 by time).
    pub ran_instead: Vec<ThreadMs>,
    /// `little` / `medium` / `big` when the trace gives CPU capacities; null otherwise.
    pub cluster: Option<&'static str>,
    /// The CPU's frequency when the wait began, when cpufreq is traced.
    pub freq_khz: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IoDetail {
    /// Time of the uninterruptible states flagged as IO wait (`io_wait` = 1).
    pub io_wait_ms: f64,
    /// Kernel functions the thread blocked in (`blocked_function`), longest first.
    pub blocked_functions: Vec<NamedMs>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamedMs {
    pub name: String,
    pub ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct GpuDetail {
    /// FrameTracer's GPU phase (queue to acquire fence) of the frame's buffer, if matched.
    pub gpu_ms: Option<f64>,
    /// FrameTracer's SurfaceFlinger phase (latch to present), if matched.
    pub surfaceflinger_ms: Option<f64>,
    pub display_jank_tag: Option<String>,
}

/// A category's total in a chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CategoryTotal {
    pub category: &'static str,
    pub label: &'static str,
    pub family: &'static str,
    pub ms: f64,
    pub dur_ns: i64,
    pub share: f64,
}

/// The cause chain of one frame.
#[derive(Debug, Clone, Serialize)]
pub struct CauseChain {
    pub window: Window,
    pub frame_slices: FrameSliceIds,
    pub phases: Vec<Phase>,
    /// The category with the most time (ties: the first in time).
    pub primary: Option<CategoryTotal>,
    pub by_category: Vec<CategoryTotal>,
    pub links: Vec<Link>,
    /// One line for people.
    pub sentence: String,
    /// The UI thread's and RenderThread's blocking calls over `blocking_calls_window` as
    /// Perfetto's `android.frame_blocking_calls` sums them (overlapping: not a partition).
    pub blocking_calls: Vec<super::blocking_calls::BlockingCall>,
    pub blocking_calls_window: BlockingCallsWindow,
}

/// The interval `blocking_calls` sums over.
#[derive(Debug, Clone, Serialize)]
pub struct BlockingCallsWindow {
    pub ts: i64,
    pub end_ts: i64,
    /// `perfetto_cuj_frame`: the frame is inside a CUJ, and this is the extended frame
    /// boundary of Perfetto's `blocking_calls_aggregation` (frame start to the next frame's
    /// or doFrame's start), so the sums are Perfetto's; `cause_window`: the chain's window.
    pub from: &'static str,
    /// The CUJ's name (`J<NAME>` without the brackets) for `perfetto_cuj_frame`.
    pub cuj: Option<String>,
}

/// A category's weight across a process's (or layer's) janky frames.
#[derive(Debug, Clone, Serialize)]
pub struct TopCause {
    pub category: &'static str,
    pub label: &'static str,
    pub family: &'static str,
    pub total_ms: f64,
    /// Janky frames whose chain has the category.
    pub frames: usize,
    /// Janky frames where it is the primary cause.
    pub primary_frames: usize,
    /// Share of all explained janky-frame time.
    pub share: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LayerCauses {
    pub layer: Option<String>,
    pub janky_frames: usize,
    pub top_by_ms: Vec<TopCause>,
}

/// The `causes` object of a process.
#[derive(Debug, Clone, Serialize)]
pub struct CausesSummary {
    pub janky_frames: usize,
    /// Janky frames with a cause chain (the others lack a complete window).
    pub explained_frames: usize,
    pub explained_ms: f64,
    pub top_by_ms: Vec<TopCause>,
    pub top_by_frames: Vec<TopCause>,
    pub by_layer: Vec<LayerCauses>,
}

pub fn split_ms(s: Option<StateSplit>) -> Option<StateSplitMs> {
    s.map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A janky frame's chain holds up to MAX_LINKS links and a long trace holds thousands of
    /// chains, so the family details each link may carry are boxed: only a link of that
    /// family pays for one (issue 19: a kilobyte per link was 13 MB of the x60 peak).
    #[test]
    fn links_carry_their_family_details_out_of_line() {
        assert!(size_of::<Link>() <= 440, "Link is {} B", size_of::<Link>());
    }
}
