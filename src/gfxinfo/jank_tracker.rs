//! HWUI's `JankTracker` (`libs/hwui/JankTracker.cpp`, Android 12–15): the per-window state
//! machine that decides, frame by frame, what `dumpsys gfxinfo` counts.
//!
//! Two verdicts per frame, both kept by the platform:
//! - the deadline path: the frame is janky when `GpuCompleted >= FrameDeadline`, where a
//!   triple-buffered frame (one that started earlier than an unstuffed pipeline would let it)
//!   gets its deadline pushed to `mNextFrameStartUnstuffed + (deadline − IntendedVsync)`;
//!   the COMPARISONS then name the slow stage of janky frames;
//! - the legacy path (`calculateLegacyJank`): IntendedVsync → SwapBuffersCompleted against one
//!   frame interval, with its own swap deadline and the optional dequeueBuffer forgiveness.
//!
//! Integer truncation, C++ remainder (sign of the dividend) and wrap-around are kept so the
//! replay of a dump gives the numbers the device printed. Frames come in as plain
//! [`FrameInfo`] records, so the same tracker can judge frames rebuilt from a trace.

use super::frame_info::{flags, FrameInfo, FrameInfoIndex as I};
use super::jank_type::JankType;
use super::profile_data::ProfileData;

/// One of JankTracker's COMPARISONS: a span of the frame and the share of the frame
/// interval it may take before it is named as a cause of a janky frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comparison {
    pub jank_type: JankType,
    pub start: I,
    pub end: I,
}

impl Comparison {
    /// The lambda's threshold: `static_cast<int64_t>(share * frameInterval)` (double
    /// multiply, truncation toward zero); a flat 1 ns for missed vsync.
    pub fn threshold(&self, frame_interval: i64) -> i64 {
        let share = match self.jank_type {
            JankType::SlowUi => 0.5,
            JankType::SlowSync => 0.2,
            JankType::SlowRt => 0.75,
            // Missed vsync, and the types that are not comparisons.
            _ => return 1,
        };
        (share * frame_interval as f64) as i64
    }
}

/// JankTracker's COMPARISONS, in its order.
pub const COMPARISONS: [Comparison; 4] = [
    Comparison {
        jank_type: JankType::MissedVsync,
        start: I::IntendedVsync,
        end: I::Vsync,
    },
    Comparison {
        jank_type: JankType::SlowUi,
        start: I::Vsync,
        end: I::SyncStart,
    },
    Comparison {
        jank_type: JankType::SlowSync,
        start: I::SyncStart,
        end: I::IssueDrawCommandsStart,
    },
    Comparison {
        jank_type: JankType::SlowRt,
        start: I::IssueDrawCommandsStart,
        end: I::FrameCompleted,
    },
];

/// Stage spans of 10 s or more are ANRs, not jank causes (`IGNORE_EXCEEDING`).
pub const IGNORE_EXCEEDING_NS: i64 = 10_000_000_000;
/// Janky frames of at least this total duration are logged as "Davey!".
pub const DAVEY_NS: i64 = 700_000_000;
/// `EXEMPT_FRAMES_FLAGS`: frames drawn with `Surface.lockHardwareCanvas()`.
pub const EXEMPT_FRAMES_FLAGS: i64 = flags::SURFACE_CANVAS;
/// The legacy path forgives dequeueBuffer time only for dequeues longer than this.
pub const DEQUEUE_FORGIVENESS_MIN_DEQUEUE_NS: i64 = 500_000;

const MS: i64 = 1_000_000;

/// `mDequeueTimeForgivenessLegacy` from the app and SurfaceFlinger vsync offsets: when SF
/// composes 0–4 ms after the app's vsync, dequeueBuffer is expected to block until then, so
/// up to `offsetDelta + 4 ms` of it is forgiven; otherwise 0 (off).
pub fn dequeue_forgiveness_ns(app_offset_ns: i64, sf_offset_ns: i64) -> i64 {
    let offset_delta = sf_offset_ns.saturating_sub(app_offset_ns);
    if (0..=4 * MS).contains(&offset_delta) {
        offset_delta + 4 * MS
    } else {
        0
    }
}

/// Where the deadline of a triple-buffered frame comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DeadlineMode {
    /// Live frames (e.g. rebuilt from a trace): adjust the deadline the way `finishFrame`
    /// does and write it back into the frame.
    #[default]
    Adjust,
    /// Rows from a dump: HWUI already wrote the adjusted deadline into the frame it printed,
    /// so compare against `FrameDeadline` as recorded and never adjust twice.
    AsRecorded,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct JankTrackerConfig {
    /// `mDequeueTimeForgivenessLegacy`; 0 turns the forgiveness off (the default: the vsync
    /// offsets are not in a dump). See [`dequeue_forgiveness_ns`].
    pub dequeue_forgiveness_ns: i64,
    pub deadline_mode: DeadlineMode,
    /// `Properties::filterOutTestOverhead` (`sFrameStart`): the legacy duration starts at
    /// HandleInputStart instead of IntendedVsync. HWUI then prints "Note: Data has been
    /// filtered!" in the summary.
    pub filter_test_overhead: bool,
}

/// What the legacy path made of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyOutcome {
    /// The forgiven dequeue time was not shorter than the frame: ignored ("Impossible
    /// dequeue duration").
    ImpossibleDequeue,
    /// IntendedVsync → SwapBuffersCompleted was not positive: ignored.
    NonPositiveDuration,
    /// SurfaceCanvas frame: not judged.
    Exempt,
    Judged {
        /// Duration above one frame interval: counted in "Janky frames (legacy)".
        janky: bool,
        triple_buffered: bool,
        /// FrameCompleted at or after the swap deadline (and duration ≥ one interval).
        missed_deadline: bool,
        /// The swap deadline after this frame.
        swap_deadline_ns: i64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyVerdict {
    /// IntendedVsync → SwapBuffersCompleted (stall subtracted), minus the forgiven dequeue.
    pub duration_ns: i64,
    pub forgiven_ns: i64,
    pub frame_interval_ns: i64,
    pub outcome: LegacyOutcome,
}

impl LegacyVerdict {
    pub fn janky(&self) -> bool {
        matches!(self.outcome, LegacyOutcome::Judged { janky: true, .. })
    }
    pub fn missed_deadline(&self) -> bool {
        matches!(
            self.outcome,
            LegacyOutcome::Judged {
                missed_deadline: true,
                ..
            }
        )
    }
    pub fn triple_buffered(&self) -> bool {
        matches!(
            self.outcome,
            LegacyOutcome::Judged {
                triple_buffered: true,
                ..
            }
        )
    }
}

/// One COMPARISON evaluated on a janky frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CauseCheck {
    pub jank_type: JankType,
    pub duration_ns: i64,
    pub threshold_ns: i64,
    /// `delta >= threshold && delta < IGNORE_EXCEEDING`.
    pub fired: bool,
}

/// Everything JankTracker decided about one frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameVerdict {
    pub legacy: LegacyVerdict,
    /// IntendedVsync → FrameCompleted (stall subtracted): the histogram value.
    pub total_duration_ns: i64,
    /// Reported to the histogram and "Total frames rendered" (total duration > 0).
    pub counted: bool,
    /// SurfaceCanvas frame: counted but never judged.
    pub exempt: bool,
    pub frame_interval_ns: i64,
    /// Started earlier than an unstuffed pipeline would have let it.
    pub triple_buffered: bool,
    /// The deadline GpuCompleted was compared with (adjusted when triple-buffered).
    pub deadline_ns: Option<i64>,
    /// `GpuCompleted >= deadline`: counted in "Janky frames" and "Frame deadline missed".
    pub janky: bool,
    /// Every `reportJankType` call for this frame, in the order HWUI made them (legacy path
    /// first). High input latency can appear twice: once per path.
    pub jank_types: Vec<JankType>,
    /// The COMPARISONS, evaluated only for janky frames.
    pub causes: Vec<CauseCheck>,
    /// Janky and total duration ≥ 700 ms.
    pub davey: bool,
    /// GPU draw time reported to the GPU histogram, when GpuCompleted was set.
    pub gpu_draw_time_ns: Option<i64>,
}

impl FrameVerdict {
    pub fn janky_legacy(&self) -> bool {
        self.legacy.janky()
    }
}

/// C++ `%` on int64: the sign follows the dividend (Rust's `%` too). A zero divisor would
/// trap on the device; HWUI always sets FrameInterval before it gets here, so treat it as 0
/// (as the one overflowing case, i64::MIN % -1).
fn cpp_rem(a: i64, b: i64) -> i64 {
    a.checked_rem(b).unwrap_or(0)
}

/// One window's JankTracker.
#[derive(Clone, Debug)]
pub struct JankTracker {
    config: JankTrackerConfig,
    /// `mNextFrameStartUnstuffed`, −1 until the first missed deadline.
    next_frame_start_unstuffed: i64,
    /// `mSwapDeadlineLegacy`, −1 until the first judged legacy frame.
    swap_deadline_legacy: i64,
    data: ProfileData,
}

impl JankTracker {
    pub fn new(config: JankTrackerConfig) -> Self {
        Self {
            config,
            next_frame_start_unstuffed: -1,
            swap_deadline_legacy: -1,
            data: ProfileData::new(),
        }
    }

    /// The counters and histograms so far.
    pub fn data(&self) -> &ProfileData {
        &self.data
    }

    pub fn next_frame_start_unstuffed(&self) -> i64 {
        self.next_frame_start_unstuffed
    }

    pub fn swap_deadline_legacy(&self) -> i64 {
        self.swap_deadline_legacy
    }

    /// `JankTracker::finishFrame`. May rewrite the frame's `FrameDeadline` (as HWUI does)
    /// in [`DeadlineMode::Adjust`].
    pub fn finish_frame(&mut self, frame: &mut FrameInfo) -> FrameVerdict {
        let mut jank_types = Vec::new();
        let legacy = self.calculate_legacy_jank(frame, &mut jank_types);

        let frame_interval = frame.get(I::FrameInterval);
        let total = frame.total_duration();
        let mut verdict = FrameVerdict {
            legacy,
            total_duration_ns: total,
            counted: false,
            exempt: false,
            frame_interval_ns: frame_interval,
            triple_buffered: false,
            deadline_ns: None,
            janky: false,
            jank_types,
            causes: Vec::new(),
            davey: false,
            gpu_draw_time_ns: None,
        };
        if total <= 0 {
            return verdict;
        }
        self.data.report_frame(total);
        verdict.counted = true;

        if frame.flags() & EXEMPT_FRAMES_FLAGS != 0 {
            verdict.exempt = true;
            return verdict;
        }

        let intended_vsync = frame.get(I::IntendedVsync);
        let triple_buffered = (self
            .next_frame_start_unstuffed
            .saturating_sub(intended_vsync) as f64)
            > (frame_interval as f64 * 0.1);
        verdict.triple_buffered = triple_buffered;

        let mut deadline = frame.get(I::FrameDeadline);
        if triple_buffered && self.config.deadline_mode == DeadlineMode::Adjust {
            // Enough buffers are queued to absorb one late frame: the deadline moves with the
            // unstuffed start. (Newer AOSP reads the original duration from WorkloadTarget,
            // which setVsync fills with exactly this difference.)
            let original_deadline_duration = deadline.saturating_sub(intended_vsync);
            deadline = self
                .next_frame_start_unstuffed
                .saturating_add(original_deadline_duration);
            frame.set(I::FrameDeadline, deadline);
        }
        verdict.deadline_ns = Some(deadline);

        let gpu_completed = frame.get(I::GpuCompleted);
        if gpu_completed < deadline {
            if triple_buffered {
                self.report(&mut verdict, JankType::HighInputLatency);
                // Buffer stuffing carries over to the next frame unless there is a pause.
                self.next_frame_start_unstuffed = self
                    .next_frame_start_unstuffed
                    .saturating_add(frame_interval);
            }
        } else {
            self.report(&mut verdict, JankType::MissedDeadline);
            self.data.report_jank();
            verdict.janky = true;

            let jitter = gpu_completed.saturating_sub(frame.get(I::Vsync));
            let last_frame_offset = cpp_rem(jitter, frame_interval);
            self.next_frame_start_unstuffed = gpu_completed
                .saturating_sub(last_frame_offset)
                .saturating_add(frame_interval);

            for comparison in COMPARISONS {
                let delta = frame.duration(comparison.start, comparison.end);
                let threshold = comparison.threshold(frame_interval);
                let fired = delta >= threshold && delta < IGNORE_EXCEEDING_NS;
                if fired {
                    self.report(&mut verdict, comparison.jank_type);
                }
                verdict.causes.push(CauseCheck {
                    jank_type: comparison.jank_type,
                    duration_ns: delta,
                    threshold_ns: threshold,
                    fired,
                });
            }
            verdict.davey = total >= DAVEY_NS;
        }

        let gpu_draw_time = frame.gpu_draw_time();
        if gpu_draw_time >= 0 {
            self.data.report_gpu_frame(gpu_draw_time);
            verdict.gpu_draw_time_ns = Some(gpu_draw_time);
        }
        verdict
    }

    fn report(&mut self, verdict: &mut FrameVerdict, jank_type: JankType) {
        self.data.report_jank_type(jank_type);
        verdict.jank_types.push(jank_type);
    }

    /// `JankTracker::calculateLegacyJank`, with the frame's own FrameInterval as the legacy
    /// interval (the device uses the display's vsync period, which a dump does not record).
    fn calculate_legacy_jank(
        &mut self,
        frame: &FrameInfo,
        jank_types: &mut Vec<JankType>,
    ) -> LegacyVerdict {
        let interval = frame.get(I::FrameInterval);
        let frame_start = if self.config.filter_test_overhead {
            I::HandleInputStart
        } else {
            I::IntendedVsync
        };
        let mut total = frame.duration(frame_start, I::SwapBuffersCompleted);
        let mut verdict = LegacyVerdict {
            duration_ns: total,
            forgiven_ns: 0,
            frame_interval_ns: interval,
            outcome: LegacyOutcome::NonPositiveDuration,
        };

        let dequeue = frame.get(I::DequeueBufferDuration);
        if self.config.dequeue_forgiveness_ns != 0 && dequeue > DEQUEUE_FORGIVENESS_MIN_DEQUEUE_NS {
            let expected_dequeue = self
                .config
                .dequeue_forgiveness_ns
                .saturating_add(frame.get(I::Vsync))
                .saturating_sub(frame.get(I::IssueDrawCommandsStart));
            if expected_dequeue > 0 {
                // Forgive up to the expected blocking, never more than the actual blocking.
                let forgive = expected_dequeue.min(dequeue);
                if forgive >= total {
                    verdict.forgiven_ns = forgive;
                    verdict.outcome = LegacyOutcome::ImpossibleDequeue;
                    return verdict;
                }
                total -= forgive;
                verdict.forgiven_ns = forgive;
                verdict.duration_ns = total;
            }
        }

        if total <= 0 {
            return verdict;
        }
        if frame.flags() & EXEMPT_FRAMES_FLAGS != 0 {
            verdict.outcome = LegacyOutcome::Exempt;
            return verdict;
        }

        let janky = total > interval;
        if janky {
            self.data.report_jank_legacy();
        }

        let intended_vsync = frame.get(I::IntendedVsync);
        if self.swap_deadline_legacy < 0 {
            self.swap_deadline_legacy = intended_vsync.saturating_add(interval);
        }
        let triple_buffered = (self.swap_deadline_legacy.saturating_sub(intended_vsync) as f64)
            > (interval as f64 * 0.1);
        self.swap_deadline_legacy = self
            .swap_deadline_legacy
            .saturating_add(interval)
            .max(intended_vsync.saturating_add(interval));

        let frame_completed = frame.get(I::FrameCompleted);
        let missed = !(frame_completed < self.swap_deadline_legacy || total < interval);
        if !missed {
            if triple_buffered {
                self.data.report_jank_type(JankType::HighInputLatency);
                jank_types.push(JankType::HighInputLatency);
            }
        } else {
            self.data.report_jank_type(JankType::MissedDeadlineLegacy);
            jank_types.push(JankType::MissedDeadlineLegacy);
            let jitter = frame_completed.saturating_sub(frame.get(I::Vsync));
            let last_frame_offset = cpp_rem(jitter, interval);
            self.swap_deadline_legacy = frame_completed
                .saturating_sub(last_frame_offset)
                .saturating_add(interval);
        }
        verdict.outcome = LegacyOutcome::Judged {
            janky,
            triple_buffered,
            missed_deadline: missed,
            swap_deadline_ns: self.swap_deadline_legacy,
        };
        verdict
    }
}

#[cfg(test)]
mod tests;
