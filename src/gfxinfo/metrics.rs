//! Per-frame durations as the platform hands them to apps (`android.view.FrameMetrics`,
//! derived from the same FrameInfo record), and androidx JankStats' verdict on them.
//!
//! FrameMetrics durations are plain differences of two timestamps (Java `long` arithmetic:
//! no clamping, no stall subtraction, unlike JankTracker's `FrameInfo::duration`).

use super::frame_info::{flags, FrameInfo, FrameInfoIndex as I};

/// Which span GPU_DURATION measures for this frame's column set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuSpan {
    /// Android 13+: CommandSubmissionCompleted → GpuCompleted (`FrameMetrics.GPU_DURATION`).
    CommandSubmission,
    /// No CommandSubmissionCompleted column: SwapBuffers → GpuCompleted, HWUI's own
    /// approximation of the GPU start (`FrameInfo::gpuDrawTime`).
    SwapBuffers,
    /// No GpuCompleted column.
    Unavailable,
}

/// What the frame's source records, beyond the fields every release has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricsSource {
    /// FrameDeadline is real (Android 12+), so DEADLINE and frame overrun exist.
    pub has_deadline: bool,
    pub gpu: GpuSpan,
}

/// `FrameMetrics.getMetric` for one frame, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameMetrics {
    /// UNKNOWN_DELAY_DURATION: IntendedVsync → HandleInputStart.
    pub unknown_delay_ns: i64,
    /// INPUT_HANDLING_DURATION: HandleInputStart → AnimationStart.
    pub input_handling_ns: i64,
    /// ANIMATION_DURATION: AnimationStart → PerformTraversalsStart.
    pub animation_ns: i64,
    /// LAYOUT_MEASURE_DURATION: PerformTraversalsStart → DrawStart.
    pub layout_measure_ns: i64,
    /// DRAW_DURATION: DrawStart → SyncQueued.
    pub draw_ns: i64,
    /// SYNC_DURATION: SyncStart → IssueDrawCommandsStart.
    pub sync_ns: i64,
    /// COMMAND_ISSUE_DURATION: IssueDrawCommandsStart → SwapBuffers.
    pub command_issue_ns: i64,
    /// SWAP_BUFFERS_DURATION: SwapBuffers → SwapBuffersCompleted (→ FrameCompleted before
    /// Android 12, which had no SwapBuffersCompleted).
    pub swap_buffers_ns: i64,
    /// TOTAL_DURATION: IntendedVsync → FrameCompleted.
    pub total_ns: i64,
    /// GPU_DURATION (API 31+).
    pub gpu_ns: Option<i64>,
    /// DEADLINE (API 31+): IntendedVsync → FrameDeadline.
    pub deadline_ns: Option<i64>,
    /// FIRST_DRAW_FRAME: the WindowVisibilityChanged flag.
    pub first_draw_frame: bool,
}

fn span(frame: &FrameInfo, start: I, end: I) -> i64 {
    frame.get(end).saturating_sub(frame.get(start))
}

impl FrameMetrics {
    pub fn from_frame(frame: &FrameInfo, source: MetricsSource) -> Self {
        let gpu_ns = match source.gpu {
            GpuSpan::CommandSubmission => {
                Some(span(frame, I::CommandSubmissionCompleted, I::GpuCompleted))
            }
            GpuSpan::SwapBuffers => Some(span(frame, I::SwapBuffers, I::GpuCompleted)),
            GpuSpan::Unavailable => None,
        };
        Self {
            unknown_delay_ns: span(frame, I::IntendedVsync, I::HandleInputStart),
            input_handling_ns: span(frame, I::HandleInputStart, I::AnimationStart),
            animation_ns: span(frame, I::AnimationStart, I::PerformTraversalsStart),
            layout_measure_ns: span(frame, I::PerformTraversalsStart, I::DrawStart),
            draw_ns: span(frame, I::DrawStart, I::SyncQueued),
            sync_ns: span(frame, I::SyncStart, I::IssueDrawCommandsStart),
            command_issue_ns: span(frame, I::IssueDrawCommandsStart, I::SwapBuffers),
            swap_buffers_ns: span(frame, I::SwapBuffers, I::SwapBuffersCompleted),
            total_ns: span(frame, I::IntendedVsync, I::FrameCompleted),
            gpu_ns,
            deadline_ns: source
                .has_deadline
                .then(|| span(frame, I::IntendedVsync, I::FrameDeadline)),
            first_draw_frame: frame.flags() & flags::WINDOW_VISIBILITY_CHANGED != 0,
        }
    }

    /// The UI-thread part JankStats judges: UNKNOWN_DELAY + INPUT_HANDLING + ANIMATION +
    /// LAYOUT_MEASURE + DRAW + SYNC (the SyncQueued → SyncStart wait is in none of them).
    pub fn ui_duration_ns(&self) -> i64 {
        self.unknown_delay_ns
            .saturating_add(self.input_handling_ns)
            .saturating_add(self.animation_ns)
            .saturating_add(self.layout_measure_ns)
            .saturating_add(self.draw_ns)
            .saturating_add(self.sync_ns)
    }
}

/// `JankStats.jankHeuristicMultiplier`'s default (a Kotlin `Float`).
pub const JANK_HEURISTIC_MULTIPLIER: f32 = 2.0;

/// androidx.metrics JankStats' view of one frame (`JankStatsApi24Impl`/`Api31Impl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JankStatsVerdict {
    pub ui_duration_ns: i64,
    /// The frame's expected duration (DEADLINE on API 31+, else the refresh period)
    /// times the multiplier, computed in `Float` and truncated as Kotlin's `toLong()`.
    pub jank_threshold_ns: i64,
    /// `uiDuration > expectedDuration`.
    pub is_jank: bool,
    /// `frameOverrunNanos` (API 31+): TOTAL_DURATION − DEADLINE; positive = late.
    pub frame_overrun_ns: Option<i64>,
}

/// JankStats' verdict. `refresh_period_ns` stands in for the display's frame duration when
/// the frame has no DEADLINE (pre-API-31 JankStats uses the display refresh rate).
pub fn jank_stats(metrics: &FrameMetrics, refresh_period_ns: i64) -> JankStatsVerdict {
    let expected = metrics.deadline_ns.unwrap_or(refresh_period_ns);
    let threshold = (expected as f32 * JANK_HEURISTIC_MULTIPLIER) as i64;
    let ui = metrics.ui_duration_ns();
    JankStatsVerdict {
        ui_duration_ns: ui,
        jank_threshold_ns: threshold,
        is_jank: ui > threshold,
        frame_overrun_ns: metrics
            .deadline_ns
            .map(|d| metrics.total_ns.saturating_sub(d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const T: i64 = 5_000 * MS;

    /// Distinct stage lengths (ms): unknown 1, input 2, animation 3, layout 4, draw 5,
    /// stall 6, sync 7, command issue 8, swap 9, then FC 10 after SBC; deadline 16;
    /// CommandSubmissionCompleted = SwapBuffers + 1, GpuCompleted = SwapBuffers + 4.
    fn frame() -> FrameInfo {
        FrameInfo::new()
            .with(I::Flags, 1)
            .with(I::IntendedVsync, T)
            .with(I::Vsync, T)
            .with(I::HandleInputStart, T + MS)
            .with(I::AnimationStart, T + 3 * MS)
            .with(I::PerformTraversalsStart, T + 6 * MS)
            .with(I::DrawStart, T + 10 * MS)
            .with(I::SyncQueued, T + 15 * MS)
            .with(I::SyncStart, T + 21 * MS)
            .with(I::IssueDrawCommandsStart, T + 28 * MS)
            .with(I::SwapBuffers, T + 36 * MS)
            .with(I::CommandSubmissionCompleted, T + 37 * MS)
            .with(I::GpuCompleted, T + 40 * MS)
            .with(I::SwapBuffersCompleted, T + 45 * MS)
            .with(I::FrameCompleted, T + 55 * MS)
            .with(I::FrameDeadline, T + 16 * MS)
    }

    const FULL: MetricsSource = MetricsSource {
        has_deadline: true,
        gpu: GpuSpan::CommandSubmission,
    };

    #[test]
    fn durations_follow_frame_metrics_index_pairs() {
        let m = FrameMetrics::from_frame(&frame(), FULL);
        assert_eq!(m.unknown_delay_ns, MS);
        assert_eq!(m.input_handling_ns, 2 * MS);
        assert_eq!(m.animation_ns, 3 * MS);
        assert_eq!(m.layout_measure_ns, 4 * MS);
        assert_eq!(m.draw_ns, 5 * MS); // DrawStart → SyncQueued
        assert_eq!(m.sync_ns, 7 * MS); // SyncStart → Issue; the 6 ms stall is in no metric
        assert_eq!(m.command_issue_ns, 8 * MS);
        assert_eq!(m.swap_buffers_ns, 9 * MS); // SwapBuffers → SwapBuffersCompleted
        assert_eq!(m.total_ns, 55 * MS); // no stall subtraction, unlike JankTracker
        assert_eq!(m.gpu_ns, Some(3 * MS)); // CommandSubmissionCompleted → GpuCompleted
        assert_eq!(m.deadline_ns, Some(16 * MS));
        assert!(m.first_draw_frame);
    }

    #[test]
    fn gpu_span_without_command_submission_column_starts_at_swap_buffers() {
        let m = FrameMetrics::from_frame(
            &frame(),
            MetricsSource {
                has_deadline: false,
                gpu: GpuSpan::SwapBuffers,
            },
        );
        assert_eq!(m.gpu_ns, Some(4 * MS));
        assert_eq!(m.deadline_ns, None);
        let none = FrameMetrics::from_frame(
            &frame(),
            MetricsSource {
                has_deadline: false,
                gpu: GpuSpan::Unavailable,
            },
        );
        assert_eq!(none.gpu_ns, None);
    }

    #[test]
    fn durations_are_not_clamped() {
        // Java subtracts: HandleInputStart before IntendedVsync gives a negative delay.
        let f = frame().with(I::HandleInputStart, T - MS);
        assert_eq!(FrameMetrics::from_frame(&f, FULL).unknown_delay_ns, -MS);
    }

    #[test]
    fn jank_stats_ui_duration_sums_the_six_ui_metrics() {
        // 1 + 2 + 3 + 4 + 5 + 7 = 22 ms; threshold 2 × DEADLINE 16 ms = 32 ms → not jank;
        // overrun = TOTAL 55 − DEADLINE 16 = 39 ms.
        let m = FrameMetrics::from_frame(&frame(), FULL);
        let v = jank_stats(&m, 99 * MS);
        assert_eq!(v.ui_duration_ns, 22 * MS);
        assert_eq!(v.jank_threshold_ns, 32 * MS);
        assert!(!v.is_jank);
        assert_eq!(v.frame_overrun_ns, Some(39 * MS));
    }

    #[test]
    fn jank_stats_is_jank_only_strictly_above_twice_the_expected_duration() {
        // DEADLINE 11 ms → threshold 22 ms = UI duration: `uiDuration > expected` is false;
        // DEADLINE 10.999999 ms → 21999998 ns < 22 ms → jank.
        let f = frame().with(I::FrameDeadline, T + 11 * MS);
        assert!(!jank_stats(&FrameMetrics::from_frame(&f, FULL), 0).is_jank);
        let f = frame().with(I::FrameDeadline, T + 11 * MS - 1);
        assert!(jank_stats(&FrameMetrics::from_frame(&f, FULL), 0).is_jank);
    }

    #[test]
    fn jank_stats_without_deadline_uses_the_refresh_period_and_has_no_overrun() {
        // API 24–30: expected = refresh period 10 ms → threshold 20 ms < 22 ms → jank.
        let m = FrameMetrics::from_frame(
            &frame(),
            MetricsSource {
                has_deadline: false,
                gpu: GpuSpan::Unavailable,
            },
        );
        let v = jank_stats(&m, 10 * MS);
        assert_eq!(v.jank_threshold_ns, 20 * MS);
        assert!(v.is_jank);
        assert_eq!(v.frame_overrun_ns, None);
    }

    #[test]
    fn jank_stats_threshold_is_computed_in_float() {
        // Long × Float is a Float in Kotlin: 16666667 is exact in f32 below 2^24, but
        // 33333335 (> 2^24) rounds to the nearest even: 33333336; × 2 = 66666672.
        let mut m = FrameMetrics::from_frame(&frame(), FULL);
        m.deadline_ns = Some(16_666_667);
        assert_eq!(jank_stats(&m, 0).jank_threshold_ns, 33_333_334);
        m.deadline_ns = Some(33_333_335);
        assert_eq!(jank_stats(&m, 0).jank_threshold_ns, 66_666_672);
    }
}
