//! Replays a window's PROFILEDATA rows through a fresh [`JankTracker`], the way HWUI judged
//! them, and derives FrameMetrics and JankStats per frame.
//!
//! Two facts about how HWUI wrote the rows decide how they are replayed:
//! - a row is printed for every frame that reached the RenderThread (`SyncStart != 0`),
//!   but JankTracker only saw frames whose `FrameCompleted` it set (`finishFrame` runs right
//!   after, and a finished frame completes after its IntendedVsync). Rows with
//!   `FrameCompleted` 0, at or before IntendedVsync (left over from the older frame that used
//!   the same ring-buffer slot), or an hour or more after it (uninitialised memory, seen as
//!   ≈2^56..2^58) were never finished and are not judged;
//! - HWUI stored the adjusted deadline of triple-buffered frames back into the row, so the
//!   printed `FrameDeadline` is compared as is ([`DeadlineMode::AsRecorded`]). Column sets
//!   without FrameDeadline get a filled-in one, which the tracker adjusts as HWUI would.
//!
//! Older column sets lack fields the Android 12+ rules read; they are filled as documented
//! on [`IntervalSource`] and [`replay_window`].

use super::frame_info::{FrameInfo, FrameInfoIndex as I};
use super::jank_tracker::{DeadlineMode, FrameVerdict, JankTracker, JankTrackerConfig};
use super::metrics::{jank_stats, FrameMetrics, GpuSpan, JankStatsVerdict, MetricsSource};
use super::parser::{
    ColumnLayout, Dump, PrintedSummary, StartIntervalOrder, SummarySource, WindowDump,
};
use super::summary::Summary;

/// A FrameCompleted this long after IntendedVsync is not a timestamp HWUI wrote.
pub const IMPLAUSIBLE_FRAME_NS: i64 = 3_600_000_000_000;
/// Frame interval assumed when a dump has neither the column nor enough rows to infer it.
pub const DEFAULT_FRAME_INTERVAL_NS: i64 = 16_666_667;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplayOptions {
    /// `mDequeueTimeForgivenessLegacy` (0: off). See
    /// [`dequeue_forgiveness_ns`](super::jank_tracker::dequeue_forgiveness_ns).
    pub dequeue_forgiveness_ns: i64,
    /// Frame interval for dumps without a FrameInterval column (Android 6–11).
    pub frame_interval_ns: Option<i64>,
}

/// Where the frames' interval came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalSource {
    /// Each row's FrameInterval (Android 12+), from the column found by the header rule.
    Column(StartIntervalOrder),
    /// `--frame-interval-ns`.
    Given(i64),
    /// The typical spacing of consecutive IntendedVsync values: the median of the gaps
    /// within 1.5× of the smallest gap of at least 1 ms.
    Inferred(i64),
    /// Fewer than two usable rows: 60 Hz.
    Default(i64),
}

/// Why a row was not given to JankTracker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotJudged {
    /// FrameCompleted is 0.
    FrameCompletedUnset,
    /// FrameCompleted is not after IntendedVsync: a value from an older frame.
    FrameCompletedStale,
    /// FrameCompleted is an hour or more after IntendedVsync: not a timestamp.
    FrameCompletedImplausible,
}

impl NotJudged {
    pub fn key(self) -> &'static str {
        match self {
            NotJudged::FrameCompletedUnset => "frame_completed_unset",
            NotJudged::FrameCompletedStale => "frame_completed_stale",
            NotJudged::FrameCompletedImplausible => "frame_completed_implausible",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            NotJudged::FrameCompletedUnset => "FrameCompleted is 0: HWUI never finished it",
            NotJudged::FrameCompletedStale => {
                "FrameCompleted is not after IntendedVsync (older frame's value): HWUI never finished it"
            }
            NotJudged::FrameCompletedImplausible => {
                "FrameCompleted is ≥ 1 h after IntendedVsync (stale memory): HWUI never finished it"
            }
        }
    }
}

/// One row, replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameReport {
    pub line: usize,
    pub vsync_id: Option<i64>,
    pub intended_vsync_ns: i64,
    pub flags: i64,
    pub frame_interval_ns: i64,
    pub not_judged: Option<NotJudged>,
    /// JankTracker's verdict (None when not judged).
    pub verdict: Option<FrameVerdict>,
    /// FrameMetrics and JankStats exist only for frames HWUI finished.
    pub metrics: Option<FrameMetrics>,
    pub jank_stats: Option<JankStatsVerdict>,
}

/// One window, replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowReport {
    pub window: String,
    pub process: Option<String>,
    pub pid: Option<u32>,
    /// Line of the block's opening marker.
    pub block_line: usize,
    pub column_count: Option<usize>,
    pub interval: Option<IntervalSource>,
    /// Why the block could not be replayed.
    pub problem: Option<String>,
    /// Data lines in the block (parsed or not).
    pub rows: usize,
    pub bad_rows: usize,
    /// Every replayed row (empty from [`replay_window_each`], which hands them out).
    pub frames: Vec<FrameReport>,
    /// How many rows were replayed, and how many of them JankTracker judged.
    pub frame_count: usize,
    pub judged: usize,
    /// None when the block could not be replayed.
    pub summary: Option<Summary>,
    pub printed: Option<PrintedSummary>,
    pub printed_source: Option<SummarySource>,
    /// HWUI's summary counts no more frames than the block has rows, so every frame it
    /// counted is in the rows and the two summaries can be compared.
    pub printed_covers_rows: bool,
}

fn infer_interval(rows: &[FrameInfo]) -> Option<i64> {
    const MIN_GAP: i64 = 1_000_000;
    let gaps: Vec<i64> = rows
        .windows(2)
        .map(|w| {
            w[1].get(I::IntendedVsync)
                .saturating_sub(w[0].get(I::IntendedVsync))
        })
        .filter(|g| *g >= MIN_GAP)
        .collect();
    let smallest = *gaps.iter().min()?;
    let mut near: Vec<i64> = gaps
        .into_iter()
        .filter(|g| *g < smallest.saturating_add(smallest / 2))
        .collect();
    near.sort_unstable();
    Some(near[near.len() / 2])
}

fn metrics_source(columns: &ColumnLayout) -> MetricsSource {
    MetricsSource {
        has_deadline: columns.has(I::FrameDeadline),
        gpu: match (
            columns.has(I::GpuCompleted),
            columns.has(I::CommandSubmissionCompleted),
        ) {
            (false, _) => GpuSpan::Unavailable,
            (true, true) => GpuSpan::CommandSubmission,
            (true, false) => GpuSpan::SwapBuffers,
        },
    }
}

/// Replays one window. Fields missing from older column sets are filled so the Android 12+
/// rules can run: FrameInterval from [`IntervalSource`]; FrameDeadline = IntendedVsync +
/// interval (one vsync of budget); SwapBuffersCompleted and GpuCompleted = FrameCompleted
/// (what HWUI itself stores when it has no GPU fence); DequeueBufferDuration = 0.
pub fn replay_window(w: &WindowDump, opts: &ReplayOptions) -> WindowReport {
    let mut frames = Vec::new();
    let mut report = replay_window_each(w, opts, &mut |f| frames.push(f));
    report.frames = frames;
    report
}

/// [`replay_window`] handing each frame to `sink` as it is judged instead of keeping them:
/// the report's `frames` stay empty, so a window of any size costs one frame at a time.
pub fn replay_window_each(
    w: &WindowDump,
    opts: &ReplayOptions,
    sink: &mut dyn FnMut(FrameReport),
) -> WindowReport {
    let block = &w.block;
    let mut report = WindowReport {
        window: w.name.clone(),
        process: w.process.clone(),
        pid: w.pid,
        block_line: block.open_line,
        column_count: block.columns.as_ref().map(|c| c.names.len()),
        interval: None,
        problem: block.problem.clone(),
        rows: block.rows.len() + block.bad_rows,
        bad_rows: block.bad_rows,
        frames: Vec::new(),
        frame_count: 0,
        judged: 0,
        summary: None,
        printed: w.summary.clone(),
        printed_source: w.summary_source,
        printed_covers_rows: false,
    };
    report.printed_covers_rows = w
        .summary
        .as_ref()
        .and_then(|s| s.total_frames)
        .is_some_and(|t| t as usize <= report.rows);

    let Some(columns) = &block.columns else {
        return report;
    };
    let mut frames: Vec<FrameInfo> = block.rows.iter().map(|r| columns.frame_info(r)).collect();

    let interval = if columns.has(I::FrameInterval) {
        IntervalSource::Column(columns.start_interval)
    } else if let Some(given) = opts.frame_interval_ns {
        IntervalSource::Given(given)
    } else {
        match infer_interval(&frames) {
            Some(ns) => IntervalSource::Inferred(ns),
            None => IntervalSource::Default(DEFAULT_FRAME_INTERVAL_NS),
        }
    };
    report.interval = Some(interval);
    let fill_interval = match interval {
        IntervalSource::Column(_) => None,
        IntervalSource::Given(ns) | IntervalSource::Inferred(ns) | IntervalSource::Default(ns) => {
            Some(ns)
        }
    };
    for f in &mut frames {
        if let Some(ns) = fill_interval {
            f.set(I::FrameInterval, ns);
        }
        let iv = f.get(I::IntendedVsync);
        let fc = f.get(I::FrameCompleted);
        if !columns.has(I::FrameDeadline) {
            f.set(I::FrameDeadline, iv.saturating_add(f.get(I::FrameInterval)));
        }
        if !columns.has(I::SwapBuffersCompleted) {
            f.set(I::SwapBuffersCompleted, fc);
        }
        if !columns.has(I::GpuCompleted) {
            f.set(I::GpuCompleted, fc);
        }
    }

    let source = metrics_source(columns);
    // A printed FrameDeadline already holds HWUI's adjustment; a filled-in one does not.
    let deadline_mode = if columns.has(I::FrameDeadline) {
        DeadlineMode::AsRecorded
    } else {
        DeadlineMode::Adjust
    };
    let mut tracker = JankTracker::new(JankTrackerConfig {
        dequeue_forgiveness_ns: opts.dequeue_forgiveness_ns,
        deadline_mode,
        filter_test_overhead: w.summary.as_ref().is_some_and(|s| s.filtered),
    });
    for (row, mut frame) in block.rows.iter().zip(frames) {
        let iv = frame.get(I::IntendedVsync);
        let fc = frame.get(I::FrameCompleted);
        let not_judged = if fc == 0 {
            Some(NotJudged::FrameCompletedUnset)
        } else if fc <= iv {
            Some(NotJudged::FrameCompletedStale)
        } else if fc.saturating_sub(iv) >= IMPLAUSIBLE_FRAME_NS {
            Some(NotJudged::FrameCompletedImplausible)
        } else {
            None
        };
        let (verdict, metrics, stats) = if not_judged.is_none() {
            let verdict = tracker.finish_frame(&mut frame);
            let metrics = FrameMetrics::from_frame(&frame, source);
            let stats = jank_stats(&metrics, frame.get(I::FrameInterval));
            (Some(verdict), Some(metrics), Some(stats))
        } else {
            (None, None, None)
        };
        report.frame_count += 1;
        report.judged += usize::from(verdict.is_some());
        sink(FrameReport {
            line: row.line,
            vsync_id: columns
                .has(I::FrameTimelineVsyncId)
                .then(|| frame.get(I::FrameTimelineVsyncId)),
            intended_vsync_ns: iv,
            flags: frame.flags(),
            frame_interval_ns: frame.get(I::FrameInterval),
            not_judged,
            verdict,
            metrics,
            jank_stats: stats,
        });
    }
    report.summary = Some(Summary::from_data(tracker.data()));
    report
}

/// Replays every window of a dump, in dump order.
pub fn replay(dump: &Dump, opts: &ReplayOptions) -> Vec<WindowReport> {
    dump.windows
        .iter()
        .map(|w| replay_window(w, opts))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gfxinfo::jank_type::JankType;
    use crate::gfxinfo::parser::parse;

    const MS: i64 = 1_000_000;

    /// A 16-column row completing `completed_after` ns after IV (0: FrameCompleted unset).
    fn row16(iv: i64, completed_after: i64) -> String {
        let completed = if completed_after == 0 {
            0
        } else {
            iv + completed_after
        };
        row16_completed_at(iv, completed)
    }

    fn row16_completed_at(iv: i64, completed: i64) -> String {
        // Flags, IntendedVsync, Vsync, OldestInputEvent, NewestInputEvent, HandleInputStart,
        // AnimationStart, PerformTraversalsStart, DrawStart, SyncQueued, SyncStart,
        // IssueDrawCommandsStart, SwapBuffers, FrameCompleted, Dequeue, Queue
        let v = [
            0,
            iv,
            iv,
            i64::MAX,
            0,
            iv + MS,
            iv + MS,
            iv + MS,
            iv + 2 * MS,
            iv + 3 * MS,
            iv + 3 * MS,
            iv + 4 * MS,
            iv + 5 * MS,
            completed,
            0,
            0,
        ];
        format!("{},", v.map(|x| x.to_string()).join(","))
    }

    const H16: &str = "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,\
HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,\
IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,";

    fn dump16(rows: &[String]) -> Dump {
        parse(&format!(
            "---PROFILEDATA---\n{H16}\n{}\n---PROFILEDATA---\n",
            rows.join("\n")
        ))
        .unwrap()
    }

    #[test]
    fn interval_is_inferred_from_intended_vsync_spacing() {
        // Gaps 10, 20, 10, 10.2 ms: smallest ≥ 1 ms is 10; gaps < 15 ms: 10, 10, 10.2 →
        // median 10 ms.
        let t = 7_000 * MS;
        let d = dump16(&[
            row16(t, 6 * MS),
            row16(t + 10 * MS, 6 * MS),
            row16(t + 30 * MS, 6 * MS),
            row16(t + 40 * MS, 6 * MS),
            row16(t + 50_200_000, 6 * MS),
        ]);
        let r = replay_window(&d.windows[0], &ReplayOptions::default());
        assert_eq!(r.interval, Some(IntervalSource::Inferred(10 * MS)));
        assert!(r.frames.iter().all(|f| f.frame_interval_ns == 10 * MS));
    }

    #[test]
    fn given_interval_wins_and_single_row_falls_back_to_60hz() {
        let t = 7_000 * MS;
        let d = dump16(&[row16(t, 6 * MS)]);
        let r = replay_window(&d.windows[0], &ReplayOptions::default());
        assert_eq!(r.interval, Some(IntervalSource::Default(16_666_667)));
        let opts = ReplayOptions {
            frame_interval_ns: Some(8 * MS),
            ..ReplayOptions::default()
        };
        let r = replay_window(&d.windows[0], &opts);
        assert_eq!(r.interval, Some(IntervalSource::Given(8 * MS)));
    }

    #[test]
    fn old_column_sets_get_one_vsync_deadline_and_gpu_at_frame_completed() {
        // 16 columns, interval given as 10 ms. Frame completes 12 ms after IV: the filled
        // deadline IV+10 is missed (GpuCompleted := FrameCompleted = IV+12). No FrameDeadline
        // column → FrameMetrics has no DEADLINE and JankStats falls back to the interval.
        let t = 7_000 * MS;
        let d = dump16(&[row16(t, 12 * MS)]);
        let opts = ReplayOptions {
            frame_interval_ns: Some(10 * MS),
            ..ReplayOptions::default()
        };
        let r = replay_window(&d.windows[0], &opts);
        let f = &r.frames[0];
        let v = f.verdict.as_ref().unwrap();
        assert_eq!(v.deadline_ns, Some(t + 10 * MS));
        assert!(v.janky);
        let m = f.metrics.unwrap();
        assert_eq!(m.deadline_ns, None);
        assert_eq!(m.gpu_ns, None);
        assert_eq!(m.swap_buffers_ns, 7 * MS); // SwapBuffers → (SBC := FrameCompleted)
        assert_eq!(f.jank_stats.unwrap().jank_threshold_ns, 20 * MS);
        assert_eq!(f.vsync_id, None);
    }

    #[test]
    fn unfinished_rows_are_not_judged() {
        // FrameCompleted 0, ≥ 1 h after IntendedVsync, 4 s before it, or equal to it: rows
        // HWUI never finished (a finished frame completes after its IntendedVsync); only the
        // third row is counted.
        let t = 7_000 * MS;
        let d = dump16(&[
            row16(t, 0),
            row16(t + 10 * MS, IMPLAUSIBLE_FRAME_NS),
            row16(t + 20 * MS, IMPLAUSIBLE_FRAME_NS - 1),
            row16(t + 30 * MS, -4_000 * MS),
            row16_completed_at(t + 40 * MS, t + 40 * MS),
        ]);
        let r = replay_window(&d.windows[0], &ReplayOptions::default());
        let kinds: Vec<Option<NotJudged>> = r.frames.iter().map(|f| f.not_judged).collect();
        assert_eq!(
            kinds,
            vec![
                Some(NotJudged::FrameCompletedUnset),
                Some(NotJudged::FrameCompletedImplausible),
                None,
                Some(NotJudged::FrameCompletedStale),
                Some(NotJudged::FrameCompletedStale),
            ]
        );
        assert_eq!(r.summary.as_ref().unwrap().total_frames, 1);
        assert!(r.frames[0].metrics.is_none());
    }

    #[test]
    fn printed_summary_covers_rows_when_it_counts_no_more_frames_than_rows() {
        let t = 7_000 * MS;
        for (total, covers) in [(2, true), (3, false)] {
            let text = format!(
                "Window: w\nTotal frames rendered: {total}\n---PROFILEDATA---\n{H16}\n{}\n{}\n---PROFILEDATA---\n",
                row16(t, 5 * MS),
                row16(t + 10 * MS, 5 * MS)
            );
            let d = parse(&text).unwrap();
            let r = replay_window(&d.windows[0], &ReplayOptions::default());
            assert_eq!(r.printed_covers_rows, covers, "total {total}");
        }
    }

    #[test]
    fn unusable_block_yields_no_summary() {
        let d = parse("---PROFILEDATA---\nFlags,Vsync,\n---PROFILEDATA---\n").unwrap();
        let r = replay_window(&d.windows[0], &ReplayOptions::default());
        assert!(r.problem.is_some());
        assert!(r.summary.is_none());
        assert!(r.frames.is_empty());
    }

    const H23: &str = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,\
HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,\
FrameStartTime,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,\
DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,\
DisplayPresentTime,CommandSubmissionCompleted,";

    /// Rows of 23 cells alternating between every pair of `extremes`.
    fn extreme_rows(extremes: &[i64]) -> Vec<String> {
        let mut rows = Vec::new();
        for (k, a) in extremes.iter().enumerate() {
            for b in extremes {
                let row: Vec<String> = (0..23)
                    .map(|i| if (i + k) % 2 == 0 { a } else { b }.to_string())
                    .collect();
                rows.push(format!("{},", row.join(",")));
            }
        }
        rows
    }

    #[test]
    fn extreme_values_never_panic_or_wrap() {
        // Every cell at the edge of what the parser accepts (±2^61): the replay neither
        // panics nor wraps (every duration it reports is a real difference, never negative
        // from an overflow).
        let m = crate::gfxinfo::parser::MAX_CELL_MAGNITUDE;
        let rows = extreme_rows(&[-m, -1, 0, 1, m, 16_666_667]);
        let d = parse(&format!(
            "---PROFILEDATA---\n{H23}\n{}\n---PROFILEDATA---\n",
            rows.join("\n")
        ))
        .unwrap();
        assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
        for forgiveness in [0, 4 * MS] {
            let opts = ReplayOptions {
                dequeue_forgiveness_ns: forgiveness,
                ..ReplayOptions::default()
            };
            let r = replay_window(&d.windows[0], &opts);
            assert_eq!(r.frames.len(), rows.len());
            for v in r.frames.iter().filter_map(|f| f.verdict.as_ref()) {
                assert!(v.legacy.duration_ns >= 0, "{v:?}");
                assert!(v.total_duration_ns >= 0, "{v:?}");
            }
        }
    }

    #[test]
    fn cells_hwui_cannot_write_are_refused_by_row() {
        // -2^63 used to be replayed, and durations wrapped (9223057180137442846 ns).
        let rows = extreme_rows(&[i64::MIN, 0, 16_666_667]);
        let d = parse(&format!(
            "---PROFILEDATA---\n{H23}\n{}\n---PROFILEDATA---\n",
            rows.join("\n")
        ))
        .unwrap();
        // Only the rows without -2^63 (both halves of the pair from {0, 16_666_667}) remain.
        assert_eq!(d.windows[0].block.rows.len(), 4);
        assert_eq!(d.windows[0].block.bad_rows, 5);
        assert!(d.diagnostics[0]
            .message
            .contains("holds -9223372036854775808, beyond ±2^61 ns"));
    }

    #[test]
    fn jank_types_of_frames_add_up_to_the_summary() {
        let t = 7_000 * MS;
        let d = dump16(&[
            row16(t, 5 * MS),
            row16(t + 10 * MS, 30 * MS),
            row16(t + 60 * MS, 5 * MS),
        ]);
        let opts = ReplayOptions {
            frame_interval_ns: Some(10 * MS),
            ..ReplayOptions::default()
        };
        let r = replay_window(&d.windows[0], &opts);
        let s = r.summary.as_ref().unwrap();
        for t in JankType::ALL {
            let n = r
                .frames
                .iter()
                .filter_map(|f| f.verdict.as_ref())
                .flat_map(|v| v.jank_types.iter())
                .filter(|x| **x == t)
                .count();
            assert_eq!(n as u32, s.jank_types[t as usize], "{t:?}");
        }
    }
}
