//! One test per JankTracker rule and branch. Frames are built by hand; every expected value
//! is worked out in the comment from the rule as written in `JankTracker.cpp` (Android 15),
//! not taken from this implementation's output.

use super::*;
use crate::gfxinfo::frame_info::FrameInfo;

const US: i64 = 1_000;
const MS: i64 = 1_000_000;
const I10: i64 = 10 * MS; // a 100 Hz frame interval keeps the arithmetic readable

/// Stage lengths of a frame; each timestamp follows the previous one.
#[derive(Clone, Copy)]
struct Stages {
    interval: i64,
    vsync_delay: i64, // IntendedVsync → Vsync
    ui: i64,          // Vsync → SyncQueued
    stall: i64,       // SyncQueued → SyncStart
    sync: i64,        // SyncStart → IssueDrawCommandsStart
    issue: i64,       // IssueDrawCommandsStart → SwapBuffers
    swap: i64,        // SwapBuffers → SwapBuffersCompleted
    complete: i64,    // SwapBuffersCompleted → FrameCompleted
    gpu: i64,         // GpuCompleted − FrameCompleted
    deadline: i64,    // FrameDeadline − IntendedVsync
}

impl Default for Stages {
    /// Vsync=iv, SyncQueued=SyncStart=iv+2, Issue=iv+2.5, SwapBuffers=iv+4,
    /// SwapBuffersCompleted=iv+4.5, FrameCompleted=GpuCompleted=iv+5, deadline iv+10 (ms).
    fn default() -> Self {
        Self {
            interval: I10,
            vsync_delay: 0,
            ui: 2 * MS,
            stall: 0,
            sync: 500 * US,
            issue: 1_500 * US,
            swap: 500 * US,
            complete: 500 * US,
            gpu: 0,
            deadline: I10,
        }
    }
}

fn build(iv: i64, s: Stages) -> FrameInfo {
    let vsync = iv + s.vsync_delay;
    let sync_queued = vsync + s.ui;
    let sync_start = sync_queued + s.stall;
    let issue = sync_start + s.sync;
    let swap_buffers = issue + s.issue;
    let swap_completed = swap_buffers + s.swap;
    let completed = swap_completed + s.complete;
    FrameInfo::new()
        .with(I::IntendedVsync, iv)
        .with(I::Vsync, vsync)
        .with(I::HandleInputStart, vsync)
        .with(I::AnimationStart, vsync)
        .with(I::PerformTraversalsStart, vsync)
        .with(I::DrawStart, vsync)
        .with(I::FrameStartTime, vsync)
        .with(I::FrameDeadline, iv + s.deadline)
        .with(I::FrameInterval, s.interval)
        .with(I::SyncQueued, sync_queued)
        .with(I::SyncStart, sync_start)
        .with(I::IssueDrawCommandsStart, issue)
        .with(I::SwapBuffers, swap_buffers)
        .with(I::CommandSubmissionCompleted, swap_buffers)
        .with(I::SwapBuffersCompleted, swap_completed)
        .with(I::FrameCompleted, completed)
        .with(I::GpuCompleted, completed + s.gpu)
}

fn tracker() -> JankTracker {
    JankTracker::new(JankTrackerConfig::default())
}

fn judge(t: &mut JankTracker, mut f: FrameInfo) -> FrameVerdict {
    t.finish_frame(&mut f)
}

const T0: i64 = 1_000 * MS;

// ---------------------------------------------------------------------------------------
// Deadline path
// ---------------------------------------------------------------------------------------

#[test]
fn deadline_hit_when_gpu_completed_before_deadline() {
    // GpuCompleted = iv+5 < FrameDeadline = iv+10: not janky; histogram gets iv→FC = 5 ms.
    let mut t = tracker();
    let v = judge(&mut t, build(T0, Stages::default()));
    assert!(v.counted);
    assert!(!v.janky);
    assert_eq!(v.total_duration_ns, 5 * MS);
    assert_eq!(v.deadline_ns, Some(T0 + I10));
    assert_eq!(t.data().total_frame_count(), 1);
    assert_eq!(t.data().jank_frame_count(), 0);
}

#[test]
fn deadline_missed_when_gpu_completed_equals_deadline() {
    // `if (GpuCompleted < deadline)` is strict: GpuCompleted = deadline = iv+10 ms misses.
    let mut t = tracker();
    let s = Stages {
        gpu: 5 * MS, // FC = iv+5 → GpuCompleted = iv+10
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert!(v.janky);
    assert!(v.jank_types.contains(&JankType::MissedDeadline));
    assert_eq!(t.data().jank_frame_count(), 1);
    assert_eq!(t.data().jank_type_count(JankType::MissedDeadline), 1);
    // One ns earlier is a hit.
    let mut t = tracker();
    let s = Stages {
        gpu: 5 * MS - 1,
        ..Stages::default()
    };
    assert!(!judge(&mut t, build(T0, s)).janky);
}

#[test]
fn missed_deadline_sets_next_unstuffed_start_from_gpu_completed() {
    // jitter = GpuCompleted − Vsync = (iv+13) − iv = 13 ms; 13 % 10 = 3 ms;
    // next = (iv+13) − 3 + 10 = iv+20 ms.
    let mut t = tracker();
    let s = Stages {
        gpu: 8 * MS, // GpuCompleted = iv+13
        ..Stages::default()
    };
    judge(&mut t, build(T0, s));
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 20 * MS);
}

#[test]
fn missed_deadline_remainder_follows_cpp_sign_of_dividend() {
    // Vsync after GpuCompleted: Vsync = iv+50, GpuCompleted = iv+45 ≥ deadline iv+10.
    // jitter = −5 ms; C++ −5 % 10 = −5 (a floor modulo would give 5);
    // next = (iv+45) − (−5) + 10 = iv+60 ms (not iv+50).
    let mut t = tracker();
    let f = build(T0, Stages::default())
        .with(I::Vsync, T0 + 50 * MS)
        .with(I::GpuCompleted, T0 + 45 * MS);
    let v = judge(&mut t, f);
    assert!(v.janky);
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 60 * MS);
}

#[test]
fn frame_starting_before_unstuffed_start_is_triple_buffered_and_deadline_moves() {
    // Frame A misses with GpuCompleted = iv0+10 → next = iv0+10 − 0 + 10 = iv0+20.
    // Frame B at iv1 = iv0+10: next − iv1 = 10 ms > 0.1 × 10 ms → triple buffered.
    // Deadline = next + (FrameDeadline − iv1) = iv0+20 + 10 = iv0+30, written back into B.
    // B's GpuCompleted = iv1+5 = iv0+15 < iv0+30 → hit → High input latency, and
    // next += interval → iv0+30.
    let mut t = tracker();
    let a = Stages {
        gpu: 5 * MS,
        ..Stages::default()
    };
    judge(&mut t, build(T0, a));
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 20 * MS);

    let mut b = build(T0 + I10, Stages::default());
    let v = t.finish_frame(&mut b);
    assert!(v.triple_buffered);
    assert_eq!(v.deadline_ns, Some(T0 + 30 * MS));
    assert_eq!(b.get(I::FrameDeadline), T0 + 30 * MS);
    assert!(!v.janky);
    assert_eq!(
        v.jank_types
            .iter()
            .filter(|j| **j == JankType::HighInputLatency)
            .count(),
        2, // one from the legacy path (see legacy tests), one from the deadline path
    );
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 30 * MS);
}

#[test]
fn triple_buffer_test_is_strictly_greater_than_a_tenth_of_the_interval() {
    // Set next = iv0+20 (as above). A frame whose IntendedVsync is iv0+19 ms has
    // next − iv = 1 ms = 0.1 × 10 ms exactly: not triple buffered (strict >).
    // At iv0+19 ms − 1 ns the difference is 1 ms + 1 ns: triple buffered.
    for (iv, expected) in [(T0 + 19 * MS, false), (T0 + 19 * MS - 1, true)] {
        let mut t = tracker();
        judge(
            &mut t,
            build(
                T0,
                Stages {
                    gpu: 5 * MS,
                    ..Stages::default()
                },
            ),
        );
        let v = judge(&mut t, build(iv, Stages::default()));
        assert_eq!(v.triple_buffered, expected, "iv offset {}", iv - T0);
    }
}

#[test]
fn triple_buffered_frame_that_misses_its_moved_deadline_is_janky_without_high_latency() {
    // next = iv0+20 after frame A. Frame B at iv0+10 is triple buffered, deadline iv0+30.
    // B's GpuCompleted = iv0+10+5+16 = iv0+31 ≥ iv0+30 → missed; no deadline-path HIL.
    // next = 31 − ((31 − 10) % 10 = 1) + 10 = iv0+40.
    let mut t = tracker();
    judge(
        &mut t,
        build(
            T0,
            Stages {
                gpu: 5 * MS,
                ..Stages::default()
            },
        ),
    );
    let b = Stages {
        gpu: 16 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0 + I10, b));
    assert!(v.triple_buffered);
    assert!(v.janky);
    // The HIL is the legacy path's (B completes at iv0+15 < legacy deadline iv0+30); the
    // deadline path reports only the miss (no comparison reaches its threshold).
    assert_eq!(
        v.jank_types,
        vec![JankType::HighInputLatency, JankType::MissedDeadline]
    );
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 40 * MS);
}

#[test]
fn buffer_stuffing_carries_over_until_a_pause() {
    // A (iv0) misses: next = iv0+20.
    // B (iv0+10): stuffed (10 > 1), deadline iv0+30, GPU iv0+15 → HIL, next = iv0+30.
    // C (iv0+20): stuffed (10 > 1), deadline iv0+40, GPU iv0+25 → HIL, next = iv0+40.
    // D (iv0+100): next − iv = −60 ms → not stuffed; deadline iv0+110; GPU iv0+105 → hit,
    //   next stays iv0+40.
    let mut t = tracker();
    judge(
        &mut t,
        build(
            T0,
            Stages {
                gpu: 5 * MS,
                ..Stages::default()
            },
        ),
    );
    let b = judge(&mut t, build(T0 + 10 * MS, Stages::default()));
    let c = judge(&mut t, build(T0 + 20 * MS, Stages::default()));
    assert!(b.triple_buffered && c.triple_buffered);
    assert_eq!(c.deadline_ns, Some(T0 + 40 * MS));
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 40 * MS);
    let d = judge(&mut t, build(T0 + 100 * MS, Stages::default()));
    assert!(!d.triple_buffered);
    assert_eq!(d.deadline_ns, Some(T0 + 110 * MS));
    assert_eq!(t.next_frame_start_unstuffed(), T0 + 40 * MS);
    assert_eq!(t.data().jank_frame_count(), 1);
}

#[test]
fn as_recorded_mode_compares_with_the_printed_deadline_without_adjusting() {
    // Same A then B as above, but B's GpuCompleted = iv1+12 ms.
    // Adjust: deadline iv0+30 = iv1+20 → hit. AsRecorded: deadline as printed, iv1+10 → miss.
    let b = Stages {
        gpu: 7 * MS,
        ..Stages::default()
    };
    let a = Stages {
        gpu: 5 * MS,
        ..Stages::default()
    };
    let mut adjust = tracker();
    judge(&mut adjust, build(T0, a));
    let v = judge(&mut adjust, build(T0 + I10, b));
    assert!(v.triple_buffered && !v.janky);

    let mut recorded = JankTracker::new(JankTrackerConfig {
        deadline_mode: DeadlineMode::AsRecorded,
        ..JankTrackerConfig::default()
    });
    judge(&mut recorded, build(T0, a));
    let mut f = build(T0 + I10, b);
    let v = recorded.finish_frame(&mut f);
    assert!(v.triple_buffered);
    assert!(v.janky);
    assert_eq!(v.deadline_ns, Some(T0 + 20 * MS));
    assert_eq!(
        f.get(I::FrameDeadline),
        T0 + 20 * MS,
        "frame left untouched"
    );
}

#[test]
fn frame_without_positive_total_is_not_counted_but_legacy_path_still_ran() {
    // finishFrame runs calculateLegacyJank before the `totalDuration <= 0` return.
    // FrameCompleted = 0: total 0 → not counted. Legacy: IV → SwapBuffersCompleted = 15 ms
    // > 10 → "Janky frames (legacy)" +1; swap deadline starts at iv+10 → stuffed,
    // moves to iv+20; FrameCompleted 0 < iv+20 → hit → legacy High input latency.
    let mut t = tracker();
    let f = build(T0, Stages::default())
        .with(I::SwapBuffersCompleted, T0 + 15 * MS)
        .with(I::FrameCompleted, 0)
        .with(I::GpuCompleted, 0);
    let v = judge(&mut t, f);
    assert!(!v.counted);
    assert_eq!(v.deadline_ns, None);
    assert_eq!(t.data().total_frame_count(), 0);
    assert_eq!(t.data().jank_legacy_frame_count(), 1);
    assert_eq!(v.jank_types, vec![JankType::HighInputLatency]);
}

#[test]
fn histogram_duration_excludes_sync_queue_stall() {
    // IV→FC spans SyncQueued: raw 2+3+0.5+1.5+0.5+0.5 = 8 ms, minus stall 3 ms = 5 ms.
    let mut t = tracker();
    let s = Stages {
        stall: 3 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert_eq!(v.total_duration_ns, 5 * MS);
}

#[test]
fn surface_canvas_frames_are_counted_but_never_judged() {
    // EXEMPT_FRAMES_FLAGS = SurfaceCanvas (1<<2): reportFrame happens, then return; the
    // legacy path returns before judging. A 30 ms frame missing every deadline yields no
    // jank and leaves both state variables untouched.
    let mut t = tracker();
    let s = Stages {
        issue: 25 * MS,
        gpu: 0,
        ..Stages::default()
    };
    let f = build(T0, s).with(I::Flags, flags::SURFACE_CANVAS);
    let v = judge(&mut t, f);
    assert!(v.counted && v.exempt);
    assert!(!v.janky && !v.janky_legacy());
    assert!(v.jank_types.is_empty());
    assert_eq!(v.legacy.outcome, LegacyOutcome::Exempt);
    assert_eq!(t.data().total_frame_count(), 1);
    assert_eq!(t.next_frame_start_unstuffed(), -1);
    assert_eq!(t.swap_deadline_legacy(), -1);
}

#[test]
fn other_flags_do_not_exempt() {
    // WindowVisibilityChanged | RTAnimation | SkippedFrame = 11: judged as usual.
    let mut t = tracker();
    let s = Stages {
        gpu: 5 * MS,
        ..Stages::default()
    };
    let f = build(T0, s).with(I::Flags, 1 | 2 | 8);
    assert!(judge(&mut t, f).janky);
}

#[test]
fn gpu_draw_time_is_reported_only_when_gpu_completed_is_set() {
    // GPU time = GpuCompleted − SwapBuffers = (iv+5) − (iv+4) = 1 ms → GPU bucket 1 ("2ms").
    let mut t = tracker();
    let v = judge(&mut t, build(T0, Stages::default()));
    assert_eq!(v.gpu_draw_time_ns, Some(MS));
    assert_eq!(t.data().gpu_histogram()[1].frame_count, 1);
    let v = judge(
        &mut t,
        build(T0 + 100 * MS, Stages::default()).with(I::GpuCompleted, 0),
    );
    assert_eq!(v.gpu_draw_time_ns, None);
}

// ---------------------------------------------------------------------------------------
// COMPARISONS (only for frames that missed their deadline)
// ---------------------------------------------------------------------------------------

/// A janky frame (GpuCompleted far past the deadline) with the given stages.
fn janky(s: Stages) -> FrameInfo {
    build(T0, s).with(I::GpuCompleted, T0 + 500 * MS)
}

fn fired(v: &FrameVerdict, jank_type: JankType) -> bool {
    v.jank_types.contains(&jank_type)
}

#[test]
fn comparison_thresholds_truncate_the_share_of_the_interval() {
    // static_cast<int64_t>(share * 16666667): .5 → 8333333.5 → 8333333,
    // .2 → 3333333.4 → 3333333, .75 → 12500000.25 → 12500000; missed vsync is 1 ns.
    let interval = 16_666_667;
    let t: Vec<i64> = COMPARISONS.iter().map(|c| c.threshold(interval)).collect();
    assert_eq!(t, vec![1, 8_333_333, 3_333_333, 12_500_000]);
}

#[test]
fn missed_vsync_fires_when_vsync_is_at_least_1ns_after_intended_vsync() {
    let mut t = tracker();
    let v = judge(
        &mut t,
        janky(Stages {
            vsync_delay: 1,
            ..Stages::default()
        }),
    );
    assert!(fired(&v, JankType::MissedVsync));
    let mut t = tracker();
    let v = judge(&mut t, janky(Stages::default()));
    assert!(!fired(&v, JankType::MissedVsync));
}

#[test]
fn slow_ui_thread_fires_at_half_the_interval() {
    // Vsync → SyncStart ≥ trunc(0.5 × 16666667) = 8333333 ns.
    let interval = 16_666_667;
    for (ui, expected) in [(8_333_333, true), (8_333_332, false)] {
        let mut t = tracker();
        let s = Stages {
            interval,
            deadline: interval,
            ui,
            ..Stages::default()
        };
        let v = judge(&mut t, janky(s));
        assert_eq!(fired(&v, JankType::SlowUi), expected, "ui {ui}");
    }
}

#[test]
fn slow_ui_thread_span_excludes_the_sync_queue_stall() {
    // Vsync → SyncStart crosses SyncQueued: raw 4 + 2 = 6 ms ≥ 5 ms would fire, but the
    // 2 ms stall is subtracted: 4 ms < trunc(0.5 × 10 ms) → no Slow UI thread.
    let mut t = tracker();
    let s = Stages {
        ui: 4 * MS,
        stall: 2 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, janky(s));
    assert!(!fired(&v, JankType::SlowUi));
    let ui = v.causes.iter().find(|c| c.jank_type == JankType::SlowUi);
    assert_eq!(ui.map(|c| c.duration_ns), Some(4 * MS));
}

#[test]
fn slow_bitmap_uploads_fires_at_a_fifth_of_the_interval() {
    // SyncStart → IssueDrawCommandsStart ≥ trunc(0.2 × 16666667) = 3333333 ns.
    let interval = 16_666_667;
    for (sync, expected) in [(3_333_333, true), (3_333_332, false)] {
        let mut t = tracker();
        let s = Stages {
            interval,
            deadline: interval,
            sync,
            ..Stages::default()
        };
        let v = judge(&mut t, janky(s));
        assert_eq!(fired(&v, JankType::SlowSync), expected, "sync {sync}");
    }
}

#[test]
fn slow_issue_draw_commands_fires_at_three_quarters_of_the_interval() {
    // IssueDrawCommandsStart → FrameCompleted ≥ trunc(0.75 × 16666667) = 12500000 ns.
    // With swap 0.5 ms and complete 0.5 ms, issue = 11.5 ms gives exactly 12.5 ms.
    let interval = 16_666_667;
    for (issue, expected) in [(11_500_000, true), (11_499_999, false)] {
        let mut t = tracker();
        let s = Stages {
            interval,
            deadline: interval,
            issue,
            ..Stages::default()
        };
        let v = judge(&mut t, janky(s));
        assert_eq!(fired(&v, JankType::SlowRt), expected, "issue {issue}");
    }
}

#[test]
fn comparisons_are_not_evaluated_for_frames_that_met_their_deadline() {
    // A 9 ms UI stage (≥ 5 ms threshold) in a frame that still meets its 20 ms deadline.
    let mut t = tracker();
    let s = Stages {
        ui: 9 * MS,
        deadline: 20 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert!(!v.janky);
    assert!(v.causes.is_empty());
    assert!(!fired(&v, JankType::SlowUi));
}

#[test]
fn thresholds_follow_each_frames_interval() {
    // A 6 ms UI stage: ≥ trunc(0.5 × 10 ms) = 5 ms fires; < trunc(0.5 × 16666667) does not.
    let mut t = tracker();
    let ten = Stages {
        ui: 6 * MS,
        ..Stages::default()
    };
    let sixty = Stages {
        interval: 16_666_667,
        deadline: 16_666_667,
        ui: 6 * MS,
        ..Stages::default()
    };
    let a = judge(&mut t, janky(ten));
    let b =
        t.finish_frame(&mut build(T0 + 1_000 * MS, sixty).with(I::GpuCompleted, T0 + 2_000 * MS));
    assert!(fired(&a, JankType::SlowUi));
    assert!(!fired(&b, JankType::SlowUi));
}

#[test]
fn stage_spans_of_10s_or_more_are_ignored() {
    // IGNORE_EXCEEDING: `delta < 10 s`. Issue → FC = 10 s exactly → not reported;
    // 10 s − 1 ns → reported.
    for (issue, expected) in [
        (10_000_000_000 - MS, false),
        (10_000_000_000 - MS - 1, true),
    ] {
        let mut t = tracker();
        let f = janky(Stages {
            issue,
            ..Stages::default()
        })
        .with(I::GpuCompleted, T0 + 20_000 * MS);
        let v = judge(&mut t, f);
        assert!(v.janky);
        assert_eq!(fired(&v, JankType::SlowRt), expected, "issue {issue}");
    }
}

#[test]
fn davey_is_a_janky_frame_of_at_least_700ms() {
    // total = IV → FC. Default stages sum to 5 ms; add to `issue` to reach the total.
    for (total, expected) in [(700 * MS, true), (700 * MS - 1, false)] {
        let mut t = tracker();
        let f = janky(Stages {
            issue: 1_500 * US + total - 5 * MS,
            ..Stages::default()
        })
        .with(I::GpuCompleted, T0 + 2_000 * MS);
        let v = judge(&mut t, f);
        assert_eq!(v.total_duration_ns, total);
        assert_eq!(v.davey, expected);
    }
    // A 900 ms frame that met a (far) deadline is not a Davey: the log is on the jank path.
    let mut t = tracker();
    let s = Stages {
        issue: 900 * MS,
        deadline: 2_000 * MS,
        ..Stages::default()
    };
    assert!(!judge(&mut t, build(T0, s)).davey);
}

#[test]
fn zero_frame_interval_does_not_panic() {
    // The device would divide by zero; frameprobe treats the remainder as 0.
    let mut t = tracker();
    let s = Stages {
        interval: 0,
        gpu: 50 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert!(v.janky);
}

// ---------------------------------------------------------------------------------------
// Legacy path (calculateLegacyJank)
// ---------------------------------------------------------------------------------------

#[test]
fn legacy_first_frame_counts_as_stuffed_because_swap_deadline_starts_one_interval_ahead() {
    // mSwapDeadlineLegacy < 0 → set to iv+10; stuffed = (iv+10 − iv) > 1 ms → true;
    // deadline → max(iv+20, iv+10) = iv+20; FrameCompleted iv+5 < iv+20 → hit → HIL.
    let mut t = tracker();
    let v = judge(&mut t, build(T0, Stages::default()));
    assert_eq!(
        v.legacy.outcome,
        LegacyOutcome::Judged {
            janky: false,
            triple_buffered: true,
            missed_deadline: false,
            swap_deadline_ns: T0 + 20 * MS,
        }
    );
    assert_eq!(v.legacy.duration_ns, 4_500 * US); // IV → SwapBuffersCompleted
    assert_eq!(v.jank_types, vec![JankType::HighInputLatency]);
}

#[test]
fn legacy_jank_is_duration_strictly_above_the_interval() {
    // IV → SwapBuffersCompleted = 10 ms: not > 10 ms. 10 ms + 1 ns: janky (legacy).
    for (extra, expected) in [(0, false), (1, true)] {
        let mut t = tracker();
        let s = Stages {
            swap: 6 * MS + extra, // SwapBuffers iv+4 → SBC iv+10(+1ns)
            ..Stages::default()
        };
        let v = judge(&mut t, build(T0, s));
        assert_eq!(v.janky_legacy(), expected);
        assert_eq!(t.data().jank_legacy_frame_count(), u32::from(expected));
    }
}

#[test]
fn legacy_duration_ends_at_swap_buffers_completed_not_frame_completed() {
    // SBC = iv+4.5 but FrameCompleted = iv+30: legacy duration 4.5 ms, not janky (legacy),
    // while the deadline path (GpuCompleted = FC = iv+30 ≥ iv+10) is janky.
    let mut t = tracker();
    let s = Stages {
        complete: 25_500 * US,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert_eq!(v.legacy.duration_ns, 4_500 * US);
    assert!(!v.janky_legacy());
    assert!(v.janky);
}

#[test]
fn legacy_missed_deadline_needs_completion_past_swap_deadline_and_a_full_interval() {
    // First frame: swap deadline → iv+20. SBC = iv+25, FC = iv+25.5: FC ≥ iv+20 and
    // duration 25 ≥ 10 → Frame deadline missed (legacy), no HIL though stuffed.
    // Reset: jitter = FC − Vsync = 25.5 ms; 25.5 % 10 = 5.5; deadline = 25.5 − 5.5 + 10 =
    // iv+30 ms.
    let mut t = tracker();
    let s = Stages {
        swap: 21 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert!(v.legacy.missed_deadline());
    assert!(v.janky_legacy());
    assert_eq!(v.jank_types[0], JankType::MissedDeadlineLegacy);
    assert!(!v.jank_types.contains(&JankType::HighInputLatency));
    assert_eq!(t.swap_deadline_legacy(), T0 + 30 * MS);
    assert_eq!(t.data().jank_type_count(JankType::MissedDeadlineLegacy), 1);
}

#[test]
fn legacy_hit_when_completed_before_swap_deadline_even_if_janky() {
    // SBC = iv+15 (janky: 15 > 10) but FC = iv+15.5 < swap deadline iv+20 → hit → HIL.
    let mut t = tracker();
    let s = Stages {
        swap: 11 * MS,
        ..Stages::default()
    };
    let v = judge(&mut t, build(T0, s));
    assert!(v.janky_legacy());
    assert!(!v.legacy.missed_deadline());
    assert_eq!(v.jank_types[0], JankType::HighInputLatency);
}

#[test]
fn legacy_completion_exactly_at_the_swap_deadline_misses_it() {
    // First frame: swap deadline → iv+20. SBC = iv+19.5 (19.5 ≥ 10). `FrameCompleted <
    // mSwapDeadlineLegacy`: FC = iv+20 is not before it → missed; 1 ns earlier → hit.
    for (fc, missed) in [(20 * MS, true), (20 * MS - 1, false)] {
        let mut t = tracker();
        let f = build(T0, Stages::default())
            .with(I::SwapBuffersCompleted, T0 + 19_500 * US)
            .with(I::FrameCompleted, T0 + fc);
        let v = judge(&mut t, f);
        assert_eq!(v.legacy.missed_deadline(), missed, "fc iv+{fc}");
    }
}

#[test]
fn legacy_stuffing_needs_the_deadline_more_than_a_tenth_of_an_interval_ahead() {
    // A at iv0: deadline starts at iv0+10 (stuffed, HIL), then → max(iv0+20, iv0+10) =
    // iv0+20. B at iv0+19 ms: deadline − B's vsync = 1 ms, not > 0.1 × 10 ms → not stuffed,
    // no HIL (B completes at iv+5 = iv0+24 < its new deadline iv0+30: a hit). B 1 ns
    // earlier: 1 ms + 1 ns > 1 ms → stuffed → HIL.
    for (b_iv, stuffed) in [(19 * MS, false), (19 * MS - 1, true)] {
        let mut t = tracker();
        let a = judge(&mut t, build(T0, Stages::default()));
        assert_eq!(a.jank_types, [JankType::HighInputLatency]);
        let b = judge(&mut t, build(T0 + b_iv, Stages::default()));
        assert!(!b.legacy.missed_deadline());
        assert_eq!(
            b.jank_types.contains(&JankType::HighInputLatency),
            stuffed,
            "B at iv0+{b_iv}"
        );
    }
}

#[test]
fn legacy_hit_when_duration_is_below_one_interval_even_past_swap_deadline() {
    // SBC = iv+9 (duration 9 < 10) but FC = iv+25 ≥ iv+20: `|| totalDuration < interval`
    // makes it a hit. At exactly 10 ms (not < 10) the same frame misses.
    for (sbc, missed) in [(9 * MS, false), (10 * MS, true)] {
        let mut t = tracker();
        let f = build(T0, Stages::default())
            .with(I::SwapBuffersCompleted, T0 + sbc)
            .with(I::FrameCompleted, T0 + 25 * MS);
        let v = judge(&mut t, f);
        assert_eq!(v.legacy.missed_deadline(), missed, "sbc {sbc}");
    }
}

#[test]
fn legacy_swap_deadline_advances_one_interval_per_frame_and_resets_after_a_pause() {
    // A iv0: deadline → iv0+20 (HIL). B iv0+10: stuffed (20−10 > 1) → max(iv0+30, iv0+20)
    // = iv0+30; FC iv0+15 < → HIL. C iv0+100: iv0+30 − iv0+100 < 0 → not stuffed;
    // deadline max(iv0+40, iv0+110) = iv0+110; hit without HIL.
    let mut t = tracker();
    let a = judge(&mut t, build(T0, Stages::default()));
    let b = judge(&mut t, build(T0 + 10 * MS, Stages::default()));
    assert_eq!(t.swap_deadline_legacy(), T0 + 30 * MS);
    let c = judge(&mut t, build(T0 + 100 * MS, Stages::default()));
    assert_eq!(t.swap_deadline_legacy(), T0 + 110 * MS);
    assert!(a.legacy.triple_buffered() && b.legacy.triple_buffered());
    assert!(!c.legacy.triple_buffered());
    assert!(c.jank_types.is_empty());
}

#[test]
fn legacy_remainder_follows_cpp_sign_of_dividend() {
    // IV = t, Vsync = t+50, SBC = t+30, FC = t+45 (first frame: deadline t+20).
    // FC ≥ t+20 and duration 30 ≥ 10 → missed. jitter = FC − Vsync = −5 ms; C++ −5 % 10 =
    // −5 → deadline = t+45 + 5 + 10 = t+60 ms (a floor modulo would give t+50).
    let mut t = tracker();
    let f = build(T0, Stages::default())
        .with(I::Vsync, T0 + 50 * MS)
        .with(I::SwapBuffersCompleted, T0 + 30 * MS)
        .with(I::FrameCompleted, T0 + 45 * MS);
    let v = judge(&mut t, f);
    assert!(v.legacy.missed_deadline());
    assert_eq!(t.swap_deadline_legacy(), T0 + 60 * MS);
}

#[test]
fn legacy_interval_is_the_frames_own_interval() {
    // SBC − IV = 9 ms: janky at 120 Hz (9 > 8333333) but not at 100 Hz (9 < 10).
    let f = |interval| {
        build(
            T0,
            Stages {
                interval,
                swap: 5 * MS, // SBC = iv+9
                ..Stages::default()
            },
        )
    };
    assert!(judge(&mut tracker(), f(8_333_333)).janky_legacy());
    assert!(!judge(&mut tracker(), f(I10)).janky_legacy());
}

#[test]
fn legacy_non_positive_duration_is_ignored() {
    // SwapBuffersCompleted = 0 → duration 0 → return before any count or state change.
    let mut t = tracker();
    let f = build(T0, Stages::default()).with(I::SwapBuffersCompleted, 0);
    let v = judge(&mut t, f);
    assert_eq!(v.legacy.outcome, LegacyOutcome::NonPositiveDuration);
    assert_eq!(t.swap_deadline_legacy(), -1);
    assert!(v.counted, "the deadline path still counts the frame");
}

// ----- dequeueBuffer forgiveness -------------------------------------------------------

#[test]
fn forgiveness_comes_from_app_and_sf_offsets_between_0_and_4ms() {
    // offsetDelta = sf − app; 0 ≤ delta ≤ 4 ms → delta + 4 ms, otherwise off.
    assert_eq!(dequeue_forgiveness_ns(MS, MS), 4 * MS);
    assert_eq!(dequeue_forgiveness_ns(MS, 3 * MS), 6 * MS);
    assert_eq!(dequeue_forgiveness_ns(0, 4 * MS), 8 * MS);
    assert_eq!(dequeue_forgiveness_ns(0, 4 * MS + 1), 0);
    assert_eq!(dequeue_forgiveness_ns(2 * MS, MS), 0);
}

fn forgiving_tracker() -> JankTracker {
    // app 1 ms, sf 3 ms → forgiveness 6 ms.
    JankTracker::new(JankTrackerConfig {
        dequeue_forgiveness_ns: dequeue_forgiveness_ns(MS, 3 * MS),
        ..JankTrackerConfig::default()
    })
}

/// SBC = iv+12 (legacy duration 12 ms), IssueDrawCommandsStart = iv+2.5 ms.
fn slow_dequeue_frame(dequeue: i64) -> FrameInfo {
    build(
        T0,
        Stages {
            swap: 8 * MS,
            ..Stages::default()
        },
    )
    .with(I::DequeueBufferDuration, dequeue)
}

#[test]
fn forgiveness_subtracts_expected_dequeue_wait() {
    // expected = 6 ms + Vsync − IssueDrawCommandsStart = 6 − 2.5 = 3.5 ms;
    // forgive min(3.5, 5) = 3.5 → 12 − 3.5 = 8.5 ms ≤ 10 → not janky (legacy).
    let v = judge(&mut forgiving_tracker(), slow_dequeue_frame(5 * MS));
    assert_eq!(v.legacy.forgiven_ns, 3_500 * US);
    assert_eq!(v.legacy.duration_ns, 8_500 * US);
    assert!(!v.janky_legacy());
    // Without offsets (the default) nothing is forgiven: 12 > 10 → janky.
    assert!(judge(&mut tracker(), slow_dequeue_frame(5 * MS)).janky_legacy());
}

#[test]
fn forgiveness_never_exceeds_the_actual_dequeue_time() {
    // dequeue 1.5 ms < expected 3.5 ms → forgive 1.5 → 10.5 ms > 10 → janky.
    let v = judge(&mut forgiving_tracker(), slow_dequeue_frame(1_500 * US));
    assert_eq!(v.legacy.forgiven_ns, 1_500 * US);
    assert!(v.janky_legacy());
}

#[test]
fn forgiveness_needs_a_dequeue_longer_than_500us() {
    // `DequeueBufferDuration > 500_us`: exactly 500 µs → nothing forgiven.
    let v = judge(&mut forgiving_tracker(), slow_dequeue_frame(500 * US));
    assert_eq!(v.legacy.forgiven_ns, 0);
    assert_eq!(v.legacy.duration_ns, 12 * MS);
}

#[test]
fn forgiveness_needs_an_expected_dequeue_above_zero() {
    // IssueDrawCommandsStart = Vsync + 6 ms → expected = 6 − 6 = 0: `expectedDequeueDuration
    // > 0` fails, so nothing is forgiven and the zero-length frame (SBC = 0) is dropped as a
    // non-positive duration, not as an impossible dequeue (forgive 0 ≥ duration 0).
    let f = build(T0, Stages::default())
        .with(I::IssueDrawCommandsStart, T0 + 6 * MS)
        .with(I::SwapBuffersCompleted, 0)
        .with(I::DequeueBufferDuration, 5 * MS);
    let v = judge(&mut forgiving_tracker(), f);
    assert_eq!(v.legacy.outcome, LegacyOutcome::NonPositiveDuration);
    assert_eq!(v.legacy.forgiven_ns, 0);
}

#[test]
fn forgiveness_is_skipped_when_draw_commands_started_after_the_expected_release() {
    // IssueDrawCommandsStart = iv+7 → expected = 6 − 7 = −1 ms ≤ 0 → nothing forgiven.
    let f = slow_dequeue_frame(5 * MS).with(I::IssueDrawCommandsStart, T0 + 7 * MS);
    let v = judge(&mut forgiving_tracker(), f);
    assert_eq!(v.legacy.forgiven_ns, 0);
    assert!(v.janky_legacy());
}

#[test]
fn forgiveness_covering_the_whole_frame_drops_it_from_the_legacy_path() {
    // SBC = iv+3 (3 ms), Issue = iv+1 → expected 6 − 1 = 5 ms; dequeue 4 ms → forgive 4 ≥ 3
    // → "Impossible dequeue duration": no legacy count, swap deadline untouched.
    let mut t = forgiving_tracker();
    let f = build(T0, Stages::default())
        .with(I::IssueDrawCommandsStart, T0 + MS)
        .with(I::SwapBuffersCompleted, T0 + 3 * MS)
        .with(I::DequeueBufferDuration, 4 * MS);
    let v = judge(&mut t, f);
    assert_eq!(v.legacy.outcome, LegacyOutcome::ImpossibleDequeue);
    assert_eq!(t.swap_deadline_legacy(), -1);
    assert!(!v.jank_types.contains(&JankType::HighInputLatency));
}

#[test]
fn filtered_test_overhead_starts_the_legacy_duration_at_handle_input() {
    // sFrameStart = HandleInputStart: IntendedVsync → SBC = 12 ms is janky, but with the
    // 3 ms before HandleInputStart filtered out the legacy duration is 9 ms. The deadline
    // path always starts at IntendedVsync.
    let f = build(
        T0,
        Stages {
            swap: 8 * MS, // SBC = iv+12
            ..Stages::default()
        },
    )
    .with(I::HandleInputStart, T0 + 3 * MS);
    let mut filtered = JankTracker::new(JankTrackerConfig {
        filter_test_overhead: true,
        ..JankTrackerConfig::default()
    });
    let v = filtered.finish_frame(&mut f.clone());
    assert_eq!(v.legacy.duration_ns, 9 * MS);
    assert!(!v.janky_legacy());
    assert_eq!(v.total_duration_ns, 12_500 * US);
    assert!(judge(&mut tracker(), f).janky_legacy());
}
