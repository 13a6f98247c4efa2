//! HWUI's per-frame record (`libs/hwui/FrameInfo.h`): the timestamps one frame collects on
//! the UI thread and the RenderThread, and `FrameInfo::duration`, the clamped span every
//! JankTracker rule is written in.
//!
//! The index set here is the union of every release's columns, in HWUI's enum order, so
//! one struct can hold a row of any Android version (and, later, a frame rebuilt from trace
//! slices). Only the order relative to `SyncQueued` matters to the rules: every UI-thread
//! field comes before it in every release.

/// One field of a frame record, in HWUI's `FrameInfoIndex` order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FrameInfoIndex {
    Flags,
    /// Android 12+.
    FrameTimelineVsyncId,
    IntendedVsync,
    Vsync,
    /// Android 6–11 (replaced by `InputEventId`).
    OldestInputEvent,
    /// Android 6–11.
    NewestInputEvent,
    /// Android 12+; an id, not a timestamp (can be negative).
    InputEventId,
    HandleInputStart,
    AnimationStart,
    PerformTraversalsStart,
    DrawStart,
    /// Android 12+. HWUI overwrites it with the adjusted deadline of triple-buffered frames.
    FrameDeadline,
    /// Android 12+.
    FrameStartTime,
    /// Android 12+: the vsync period the RenderThread used for this frame.
    FrameInterval,
    /// Newer AOSP: the original deadline minus the intended vsync.
    WorkloadTarget,
    /// Newest AOSP.
    AnimationTime,
    SyncQueued,
    SyncStart,
    IssueDrawCommandsStart,
    SwapBuffers,
    FrameCompleted,
    /// Android 7+ (a duration, not a timestamp).
    DequeueBufferDuration,
    /// Android 7+ (a duration).
    QueueBufferDuration,
    /// Android 10+.
    GpuCompleted,
    /// Android 12+.
    SwapBuffersCompleted,
    /// Android 12+.
    DisplayPresentTime,
    /// Android 13+.
    CommandSubmissionCompleted,
}

/// Number of fields in [`FrameInfoIndex`].
pub const FIELD_COUNT: usize = 27;

impl FrameInfoIndex {
    pub const ALL: [FrameInfoIndex; FIELD_COUNT] = [
        Self::Flags,
        Self::FrameTimelineVsyncId,
        Self::IntendedVsync,
        Self::Vsync,
        Self::OldestInputEvent,
        Self::NewestInputEvent,
        Self::InputEventId,
        Self::HandleInputStart,
        Self::AnimationStart,
        Self::PerformTraversalsStart,
        Self::DrawStart,
        Self::FrameDeadline,
        Self::FrameStartTime,
        Self::FrameInterval,
        Self::WorkloadTarget,
        Self::AnimationTime,
        Self::SyncQueued,
        Self::SyncStart,
        Self::IssueDrawCommandsStart,
        Self::SwapBuffers,
        Self::FrameCompleted,
        Self::DequeueBufferDuration,
        Self::QueueBufferDuration,
        Self::GpuCompleted,
        Self::SwapBuffersCompleted,
        Self::DisplayPresentTime,
        Self::CommandSubmissionCompleted,
    ];

    /// The column name HWUI prints in the `---PROFILEDATA---` header.
    pub fn name(self) -> &'static str {
        match self {
            Self::Flags => "Flags",
            Self::FrameTimelineVsyncId => "FrameTimelineVsyncId",
            Self::IntendedVsync => "IntendedVsync",
            Self::Vsync => "Vsync",
            Self::OldestInputEvent => "OldestInputEvent",
            Self::NewestInputEvent => "NewestInputEvent",
            Self::InputEventId => "InputEventId",
            Self::HandleInputStart => "HandleInputStart",
            Self::AnimationStart => "AnimationStart",
            Self::PerformTraversalsStart => "PerformTraversalsStart",
            Self::DrawStart => "DrawStart",
            Self::FrameDeadline => "FrameDeadline",
            Self::FrameStartTime => "FrameStartTime",
            Self::FrameInterval => "FrameInterval",
            Self::WorkloadTarget => "WorkloadTarget",
            Self::AnimationTime => "AnimationTime",
            Self::SyncQueued => "SyncQueued",
            Self::SyncStart => "SyncStart",
            Self::IssueDrawCommandsStart => "IssueDrawCommandsStart",
            Self::SwapBuffers => "SwapBuffers",
            Self::FrameCompleted => "FrameCompleted",
            Self::DequeueBufferDuration => "DequeueBufferDuration",
            Self::QueueBufferDuration => "QueueBufferDuration",
            Self::GpuCompleted => "GpuCompleted",
            Self::SwapBuffersCompleted => "SwapBuffersCompleted",
            Self::DisplayPresentTime => "DisplayPresentTime",
            Self::CommandSubmissionCompleted => "CommandSubmissionCompleted",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.name() == name)
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// `FrameInfoFlags` bits.
pub mod flags {
    /// `WindowVisibilityChanged` (called `WindowLayoutChanged` in early releases); FrameMetrics'
    /// `FIRST_DRAW_FRAME`.
    pub const WINDOW_VISIBILITY_CHANGED: i64 = 1 << 0;
    pub const RT_ANIMATION: i64 = 1 << 1;
    /// Drawn through `Surface.lockHardwareCanvas()`: JankTracker exempts these from jank.
    pub const SURFACE_CANVAS: i64 = 1 << 2;
    pub const SKIPPED_FRAME: i64 = 1 << 3;
}

/// One frame's record: a plain array of HWUI's int64 fields, zero where unset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameInfo {
    values: [i64; FIELD_COUNT],
}

impl Default for FrameInfo {
    fn default() -> Self {
        Self {
            values: [0; FIELD_COUNT],
        }
    }
}

impl FrameInfo {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn get(&self, index: FrameInfoIndex) -> i64 {
        self.values[index.slot()]
    }

    pub fn set(&mut self, index: FrameInfoIndex, value: i64) {
        self.values[index.slot()] = value;
    }

    /// Builder-style [`FrameInfo::set`].
    pub fn with(mut self, index: FrameInfoIndex, value: i64) -> Self {
        self.set(index, value);
        self
    }

    pub fn flags(&self) -> i64 {
        self.get(FrameInfoIndex::Flags)
    }

    /// `FrameInfo::duration`: `end - start`, 0 when `start` is unset (≤ 0); for spans that
    /// begin before `SyncQueued` and end after it, minus the time the sync request waited
    /// in the queue (`SyncStart - SyncQueued`, when positive), because the previous frame's
    /// record already holds that stall; never negative.
    ///
    /// Arithmetic saturates instead of wrapping (the parser also refuses cells beyond ±2^61,
    /// so real rows never reach the bounds).
    pub fn duration(&self, start: FrameInfoIndex, end: FrameInfoIndex) -> i64 {
        let end_time = self.get(end);
        let start_time = self.get(start);
        let mut gap = if start_time > 0 {
            end_time.saturating_sub(start_time)
        } else {
            0
        };
        if end > FrameInfoIndex::SyncQueued && start < FrameInfoIndex::SyncQueued {
            let stall = self
                .get(FrameInfoIndex::SyncStart)
                .saturating_sub(self.get(FrameInfoIndex::SyncQueued));
            if stall > 0 {
                gap = gap.saturating_sub(stall);
            }
        }
        gap.max(0)
    }

    /// `FrameInfo::totalDuration`: IntendedVsync → FrameCompleted.
    pub fn total_duration(&self) -> i64 {
        self.duration(
            FrameInfoIndex::IntendedVsync,
            FrameInfoIndex::FrameCompleted,
        )
    }

    /// `FrameInfo::gpuDrawTime`: GpuCompleted − SwapBuffers (HWUI approximates the GPU start
    /// by the moment before swap), or −1 when GpuCompleted is unset.
    pub fn gpu_draw_time(&self) -> i64 {
        let end = self.get(FrameInfoIndex::GpuCompleted);
        if end > 0 {
            end.saturating_sub(self.get(FrameInfoIndex::SwapBuffers))
        } else {
            -1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FrameInfoIndex as I;
    use super::*;

    #[test]
    fn field_count_matches_the_index_list() {
        assert_eq!(I::ALL.len(), FIELD_COUNT);
        for (slot, index) in I::ALL.iter().enumerate() {
            assert_eq!(index.slot(), slot, "{index:?}");
            assert_eq!(I::from_name(index.name()), Some(*index));
        }
    }

    #[test]
    fn ui_fields_precede_sync_queued_in_enum_order() {
        // FrameInfo::duration's stall rule compares enum positions with SyncQueued.
        for f in [
            I::IntendedVsync,
            I::Vsync,
            I::HandleInputStart,
            I::DrawStart,
            I::FrameDeadline,
            I::FrameStartTime,
            I::FrameInterval,
            I::WorkloadTarget,
            I::AnimationTime,
        ] {
            assert!(f < I::SyncQueued, "{f:?}");
        }
        for f in [I::SyncStart, I::IssueDrawCommandsStart, I::FrameCompleted] {
            assert!(f > I::SyncQueued, "{f:?}");
        }
    }

    #[test]
    fn duration_is_plain_difference_when_span_does_not_cross_sync_queued() {
        // SyncStart → IssueDrawCommandsStart starts after SyncQueued: no stall subtraction.
        let f = FrameInfo::new()
            .with(I::SyncQueued, 1_000)
            .with(I::SyncStart, 5_000)
            .with(I::IssueDrawCommandsStart, 7_500);
        assert_eq!(f.duration(I::SyncStart, I::IssueDrawCommandsStart), 2_500);
    }

    #[test]
    fn duration_subtracts_sync_stall_for_spans_crossing_sync_queued() {
        // Vsync(1000) → SyncStart(9000) = 8000, minus stall SyncStart−SyncQueued = 9000−6000.
        let f = FrameInfo::new()
            .with(I::Vsync, 1_000)
            .with(I::SyncQueued, 6_000)
            .with(I::SyncStart, 9_000);
        assert_eq!(f.duration(I::Vsync, I::SyncStart), 5_000);
    }

    #[test]
    fn duration_ignores_negative_stall() {
        // SyncStart before SyncQueued: offset −500 is not subtracted (`if (offset > 0)`).
        let f = FrameInfo::new()
            .with(I::Vsync, 1_000)
            .with(I::SyncQueued, 6_000)
            .with(I::SyncStart, 5_500);
        assert_eq!(f.duration(I::Vsync, I::SyncStart), 4_500);
    }

    #[test]
    fn duration_span_ending_at_sync_queued_is_not_adjusted() {
        // end == SyncQueued is not "> SyncQueued": DrawStart(2000) → SyncQueued(6000) = 4000.
        let f = FrameInfo::new()
            .with(I::DrawStart, 2_000)
            .with(I::SyncQueued, 6_000)
            .with(I::SyncStart, 9_000);
        assert_eq!(f.duration(I::DrawStart, I::SyncQueued), 4_000);
    }

    #[test]
    fn duration_span_starting_at_sync_queued_is_not_adjusted() {
        // start == SyncQueued is not "< SyncQueued": SyncQueued(6000) → SyncStart(9000) =
        // 3000, the stall itself, not 3000 - 3000.
        let f = FrameInfo::new()
            .with(I::DrawStart, 2_000)
            .with(I::SyncQueued, 6_000)
            .with(I::SyncStart, 9_000);
        assert_eq!(f.duration(I::SyncQueued, I::SyncStart), 3_000);
    }

    #[test]
    fn duration_is_zero_when_start_is_unset() {
        // `gap = starttime > 0 ? gap : 0`, and the stall subtraction then clamps at 0.
        let f = FrameInfo::new()
            .with(I::FrameCompleted, 50_000)
            .with(I::SyncQueued, 10)
            .with(I::SyncStart, 20);
        assert_eq!(f.duration(I::IntendedVsync, I::FrameCompleted), 0);
        let negative_start = f.with(I::IntendedVsync, -5);
        assert_eq!(
            negative_start.duration(I::IntendedVsync, I::FrameCompleted),
            0
        );
    }

    #[test]
    fn duration_clamps_negative_gap_to_zero() {
        // FrameCompleted = 0 (never set): 0 − 1000 < 0 → 0.
        let f = FrameInfo::new().with(I::IntendedVsync, 1_000);
        assert_eq!(f.total_duration(), 0);
    }

    #[test]
    fn duration_clamps_to_zero_when_stall_exceeds_gap() {
        // gap 3000, stall 5000 → −2000 → 0.
        let f = FrameInfo::new()
            .with(I::IntendedVsync, 1_000)
            .with(I::SyncQueued, 1_500)
            .with(I::SyncStart, 6_500)
            .with(I::FrameCompleted, 4_000);
        assert_eq!(f.total_duration(), 0);
    }

    #[test]
    fn gpu_draw_time_is_gpu_completed_minus_swap_buffers_or_minus_one() {
        let f = FrameInfo::new()
            .with(I::SwapBuffers, 10_000)
            .with(I::GpuCompleted, 13_000);
        assert_eq!(f.gpu_draw_time(), 3_000);
        assert_eq!(f.with(I::GpuCompleted, 0).gpu_draw_time(), -1);
    }

    #[test]
    fn garbage_values_do_not_panic() {
        let f = FrameInfo::new()
            .with(I::IntendedVsync, 1)
            .with(I::FrameCompleted, i64::MIN)
            .with(I::SyncQueued, i64::MIN)
            .with(I::SyncStart, i64::MAX);
        let _ = f.total_duration();
        let _ = f.duration(I::Vsync, I::SyncStart);
    }
}
