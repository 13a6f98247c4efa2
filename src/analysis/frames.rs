//! Builds the frame model ([`super::frame_model`]): one row per app frame, per process and
//! layer, joining the UI thread's
//! doFrame, the RenderThread's DrawFrame, the expected and actual surface frames, the display
//! frame that presented it, and the FrameTracer phases of its buffer.
//!
//! With FrameTimeline, every actual surface frame is a frame (a token drawn on two layers is
//! two frames). Without it (API <= 30), each main-thread doFrame with the DrawFrames that
//! start before the next doFrame is a frame, as Perfetto's stdlib does for old devices.

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use super::buffers::BufferMatcher;
use super::frame_model::{DisplayFrame, Frame, Timeline};
use super::index::{frame_id_of, Index, Span};
use crate::store::{FrameTimelineRow, Store, Upid};

fn span_of(store: &Store, id: u32) -> Span {
    let r = &store.slices[id as usize];
    Span {
        id,
        ts: r.ts,
        dur: r.dur,
    }
}

fn text(store: &Store, id: Option<crate::store::strings::StrId>) -> String {
    store.opt_str(id).unwrap_or("").to_string()
}

/// FrameTimeline rows grouped for the frame model.
struct TimelineRows<'a> {
    actual_surface: FxHashMap<Upid, Vec<&'a FrameTimelineRow>>,
    expected_surface: FxHashMap<(Upid, i64), &'a FrameTimelineRow>,
    actual_display: FxHashMap<i64, &'a FrameTimelineRow>,
}

fn timeline_rows(store: &Store) -> TimelineRows<'_> {
    let mut t = TimelineRows {
        actual_surface: FxHashMap::default(),
        expected_surface: FxHashMap::default(),
        actual_display: FxHashMap::default(),
    };
    for r in &store.frame_timeline {
        match (r.actual, r.surface_frame_token) {
            (true, Some(_)) => t.actual_surface.entry(r.upid).or_default().push(r),
            (false, Some(tok)) => {
                t.expected_surface.entry((r.upid, tok)).or_insert(r);
            }
            (true, None) => {
                t.actual_display.entry(r.display_frame_token).or_insert(r);
            }
            (false, None) => {}
        }
    }
    t
}

/// Builds every process's frames.
pub fn build(idx: &Index<'_>) -> HashMap<Upid, Vec<Frame>> {
    let store = idx.store;
    let rows = timeline_rows(store);
    let mut out: HashMap<Upid, Vec<Frame>> = HashMap::new();
    for (&upid, actuals) in &rows.actual_surface {
        let frames = with_timeline(idx, &rows, upid, actuals);
        out.insert(upid, frames);
    }
    for (&upid, dos) in &idx.do_frames {
        if out.contains_key(&upid) {
            continue;
        }
        out.insert(upid, without_timeline(idx, upid, dos));
    }
    let mut buffers = BufferMatcher::default();
    for frames in out.values_mut() {
        frames.sort_by(|a, b| (a.ts, &a.layer).cmp(&(b.ts, &b.layer)));
        for f in frames.iter_mut() {
            // A doFrame drawing two windows posts two DrawFrames of one vsync id: each
            // layer's frame gets the one that drew its window.
            if let (Some(ui), Some(rt)) = (f.ui, f.rt) {
                f.rt = Some(super::hwui::draw_frame_for(idx, f, ui, rt));
            }
            f.buffer = buffers.match_frame(idx, f);
        }
    }
    out
}

fn with_timeline(
    idx: &Index<'_>,
    rows: &TimelineRows<'_>,
    upid: Upid,
    actuals: &[&FrameTimelineRow],
) -> Vec<Frame> {
    let store = idx.store;
    let empty = Vec::new();
    let dos = idx.do_frames.get(&upid).unwrap_or(&empty);
    let draws = idx.draw_frames.get(&upid).unwrap_or(&empty);
    let mut do_by_id: FxHashMap<i64, Vec<Span>> = FxHashMap::default();
    for d in dos {
        if let Some(id) = frame_id_of(
            store
                .opt_str(store.slices[d.id as usize].name)
                .unwrap_or(""),
        ) {
            do_by_id.entry(id).or_default().push(*d);
        }
    }
    let mut draw_by_id: FxHashMap<i64, Vec<Span>> = FxHashMap::default();
    for d in draws {
        if let Some(id) = frame_id_of(
            store
                .opt_str(store.slices[d.id as usize].name)
                .unwrap_or(""),
        ) {
            draw_by_id.entry(id).or_default().push(*d);
        }
    }
    let mut frames = Vec::with_capacity(actuals.len());
    for a in actuals {
        let token = a.surface_frame_token.unwrap_or(0);
        let actual = span_of(store, a.slice_id);
        // The doFrame of the same vsync; when ids disagree (b/279088460) the doFrame whose
        // midpoint the actual frame covers and which starts no later than 50 µs after it.
        let ui = do_by_id
            .get(&token)
            .and_then(|v| v.iter().min_by_key(|d| (d.ts - actual.ts).abs()).copied())
            .or_else(|| {
                dos.iter()
                    .rev()
                    .find(|d| {
                        let mid = d.ts + d.dur.max(0) / 2;
                        actual.ts < d.ts + 50_000 && mid >= actual.ts && mid <= actual.end()
                    })
                    .copied()
            });
        let ui_id = ui.and_then(|u| {
            frame_id_of(
                store
                    .opt_str(store.slices[u.id as usize].name)
                    .unwrap_or(""),
            )
        });
        let rt = ui_id
            .and_then(|id| draw_by_id.get(&id))
            .and_then(|v| v.iter().find(|r| ui.is_some_and(|u| r.ts >= u.ts)).copied());
        let expected = rows
            .expected_surface
            .get(&(upid, token))
            .map(|e| span_of(store, e.slice_id));
        let display = rows
            .actual_display
            .get(&a.display_frame_token)
            .map(|d| DisplayFrame {
                span: span_of(store, d.slice_id),
                jank_type: text(store, d.jank_type),
                jank_tag: text(store, d.jank_tag),
                present_type: text(store, d.present_type),
            });
        frames.push(Frame {
            upid,
            layer: store.opt_str(a.layer_name).map(str::to_string),
            frame_id: Some(token),
            ts: actual.ts,
            dur: actual.dur,
            ui,
            rt,
            timeline: Some(Timeline {
                actual,
                expected,
                token,
                display_token: a.display_frame_token,
                jank_type: text(store, a.jank_type),
                jank_mask: a.jank_type_mask.unwrap_or(0),
                jank_tag: text(store, a.jank_tag),
                present_type: text(store, a.present_type),
                on_time_finish: a.on_time_finish == Some(1),
                gpu_composition: a.gpu_composition == Some(1),
                prediction_type: text(store, a.prediction_type),
                display,
            }),
            buffer: None,
        });
    }
    frames
}

fn without_timeline(idx: &Index<'_>, upid: Upid, dos: &[Span]) -> Vec<Frame> {
    let store = idx.store;
    let mut frames = Vec::new();
    for (i, d) in dos.iter().enumerate() {
        let next = dos.get(i + 1).map_or(i64::MAX, |n| n.ts);
        let rt = idx
            .draw_frames_starting(upid, d.ts, next)
            .iter()
            .max_by_key(|r| r.end())
            .copied();
        let end = rt.map_or(d.end(), |r| r.end());
        frames.push(Frame {
            upid,
            layer: None,
            frame_id: frame_id_of(
                store
                    .opt_str(store.slices[d.id as usize].name)
                    .unwrap_or(""),
            ),
            ts: d.ts,
            dur: if d.complete() { end - d.ts } else { -1 },
            ui: Some(*d),
            rt,
            timeline: None,
            buffer: None,
        });
    }
    frames
}

#[cfg(test)]
pub(crate) mod tests {
    //! Expected values are hand calculations from the rules in the comments above (which
    //! restate Macrobenchmark's FrameTimingMetric, ../shared/MACROBENCHMARK.md, and
    //! Perfetto's stdlib frame rules); times are in µs after `B` unless said otherwise.

    use super::*;
    use crate::store::{EventType, NewSlice, ProcessRow, SliceId, ThreadRow, TrackScope};

    const B: i64 = 1_000_000_000;
    const MS: i64 = 1_000_000;
    pub(crate) const APP: Upid = 1;

    fn us(x: i64) -> i64 {
        B + x * 1_000
    }

    fn span(id: SliceId, ts: i64, dur: i64) -> Span {
        Span { id, ts, dur }
    }

    /// A store with one app (pid 100, upid 1): main thread 100 (utid 1) on track 0,
    /// RenderThread 101 (utid 2) on track 1, its FrameTimeline slices on track 2. Shared with
    /// the Macrobenchmark selection tests, which add threads with [`Trace::thread`].
    pub(crate) struct Trace {
        pub store: Store,
        tracks: crate::store::tracks::TrackTracker,
    }

    impl Trace {
        pub fn new() -> Self {
            let mut t = Trace {
                store: Store::default(),
                tracks: Default::default(),
            };
            t.store.processes.push(ProcessRow::default());
            t.store.threads.push(ThreadRow::default());
            t.process(100, "com.example.app");
            t.thread(APP, 100, None);
            t.thread(APP, 101, Some("RenderThread"));
            t.track(TrackScope::Process(APP));
            t
        }

        pub fn process(&mut self, pid: i64, name: &str) -> Upid {
            let name = Some(self.store.intern(name));
            self.store.processes.push(ProcessRow {
                pid,
                name,
                ..Default::default()
            });
            self.store.processes.len() as Upid - 1
        }

        /// A thread of `upid` and its slice track (returned).
        pub fn thread(&mut self, upid: Upid, tid: i64, name: Option<&str>) -> u32 {
            let name = name.map(|n| self.store.intern(n));
            self.store.threads.push(ThreadRow {
                tid,
                name,
                upid: Some(upid),
                ..Default::default()
            });
            self.track(TrackScope::Thread(self.store.threads.len() as u32 - 1))
        }

        fn track(&mut self, scope: TrackScope) -> u32 {
            let spec = crate::store::tracks::TrackSpec::new("thread", EventType::Slice, scope);
            self.tracks.intern(&mut self.store, spec)
        }

        pub fn slice(&mut self, track: u32, name: &str, ts: i64, dur: i64) -> Span {
            let name = Some(self.store.intern(name));
            let id = self.store.push_slice(NewSlice {
                ts,
                dur,
                track_id: track,
                name,
                ..Default::default()
            });
            span(id, ts, dur)
        }

        fn do_frame(&mut self, vsync: i64, ts: i64, dur: i64) -> Span {
            self.slice(0, &format!("Choreographer#doFrame {vsync}"), ts, dur)
        }

        fn draw_frame(&mut self, vsync: i64, ts: i64, dur: i64) -> Span {
            self.slice(1, &format!("DrawFrames {vsync}"), ts, dur)
        }

        pub fn timeline(&mut self, row: FrameTimelineRow, ts: i64, dur: i64) -> Span {
            let token = row.surface_frame_token.unwrap_or(row.display_frame_token);
            let s = self.slice(2, &token.to_string(), ts, dur);
            self.store.frame_timeline.push(FrameTimelineRow {
                slice_id: s.id,
                ..row
            });
            s
        }

        fn actual(&mut self, token: i64, ts: i64, dur: i64) -> Span {
            let row = FrameTimelineRow {
                actual: true,
                upid: APP,
                display_frame_token: 50,
                surface_frame_token: Some(token),
                ..Default::default()
            };
            self.timeline(row, ts, dur)
        }

        fn frames(&self) -> Vec<Frame> {
            build(&Index::new(&self.store))
                .remove(&APP)
                .unwrap_or_default()
        }
    }

    #[test]
    fn a_timeline_frame_joins_its_vsyncs_slices_and_expected_and_display_frames() {
        let mut t = Trace::new();
        let s = |t: &mut Trace, v: &str| Some(t.store.intern(v));
        // Two doFrames of vsync 10: the one nearest the actual frame's start is its own.
        t.do_frame(10, us(0), 500_000);
        let ui = t.do_frame(10, us(900), 6 * MS);
        let rt = t.draw_frame(10, us(7_000), 8 * MS);
        let expected = t.timeline(
            FrameTimelineRow {
                upid: APP,
                display_frame_token: 50,
                surface_frame_token: Some(10),
                ..Default::default()
            },
            us(0),
            16 * MS,
        );
        let row = FrameTimelineRow {
            actual: true,
            upid: APP,
            display_frame_token: 50,
            surface_frame_token: Some(10),
            layer_name: s(&mut t, "app#0"),
            jank_type: s(&mut t, "App Deadline Missed"),
            jank_tag: s(&mut t, "Self Jank"),
            present_type: s(&mut t, "Late Present"),
            prediction_type: s(&mut t, "Valid Prediction"),
            on_time_finish: Some(1),
            gpu_composition: Some(0),
            jank_type_mask: Some(64),
            ..Default::default()
        };
        let actual = t.timeline(row, us(1_000), 16 * MS);
        let display_row = FrameTimelineRow {
            actual: true,
            upid: 0,
            display_frame_token: 50,
            jank_type: s(&mut t, "None"),
            jank_tag: s(&mut t, "No Jank"),
            present_type: s(&mut t, "On-time Present"),
            ..Default::default()
        };
        let display = t.timeline(display_row, us(1_500), 16 * MS);

        let frames = t.frames();
        assert_eq!(frames.len(), 1);
        let f = &frames[0];
        assert_eq!((f.ts, f.dur), (us(1_000), 16 * MS));
        assert_eq!((f.frame_id, f.layer.as_deref()), (Some(10), Some("app#0")));
        assert_eq!((f.ui, f.rt), (Some(ui), Some(rt)));
        let tl = f.timeline.as_ref().unwrap();
        assert_eq!((tl.actual, tl.expected), (actual, Some(expected)));
        assert_eq!((tl.token, tl.display_token, tl.jank_mask), (10, 50, 64));
        assert_eq!(
            (
                tl.jank_type.as_str(),
                tl.jank_tag.as_str(),
                tl.present_type.as_str(),
                tl.prediction_type.as_str()
            ),
            (
                "App Deadline Missed",
                "Self Jank",
                "Late Present",
                "Valid Prediction"
            )
        );
        assert_eq!((tl.on_time_finish, tl.gpu_composition), (true, false));
        let d = tl.display.as_ref().unwrap();
        assert_eq!(d.span, display);
        assert_eq!(
            (
                d.jank_type.as_str(),
                d.jank_tag.as_str(),
                d.present_type.as_str()
            ),
            ("None", "No Jank", "On-time Present")
        );
        // CPU: RenderThread end 15 ms - UI start 0.9 ms. Overrun: max(actual end 17 ms,
        // RenderThread end 15 ms) - expected end 16 ms.
        assert_eq!(f.cpu_ns(), Some(14_100_000));
        assert_eq!(f.overrun_ns(), Some(MS));
        assert_eq!(f.ui_ns(), Some(6 * MS));
        assert!(f.ft_janky());
    }

    /// The doFrame a timeline frame of token 99 gets when no doFrame has its id: one
    /// doFrame of vsync 5 starting `start` µs after the 16 ms actual frame, `dur` µs long.
    fn ui_by_time(start: i64, dur: i64) -> Option<Span> {
        let mut t = Trace::new();
        let ui = t.do_frame(5, us(1_000 + start), dur * 1_000);
        t.actual(99, us(1_000), 16 * MS);
        let f = t.frames().pop().unwrap();
        assert!(f.ui.is_none() || f.ui == Some(ui));
        f.ui
    }

    #[test]
    fn without_a_matching_id_the_do_frame_is_found_by_time() {
        // Matched (MACROBENCHMARK.md): the actual frame starts before doFrame start + 50 µs
        // and contains the doFrame's midpoint.
        assert!(ui_by_time(10, 8_000).is_some());
        assert!(ui_by_time(1_000, 4_000).is_some(), "midpoint 3 ms in");
        assert!(ui_by_time(-10, 8_000).is_some(), "midpoint 3.99 ms in");
        assert!(ui_by_time(0, 10_000).is_some(), "midpoint 5 ms in");
        assert!(ui_by_time(0, 32_000).is_some(), "midpoint at the end");
        // Not matched: the actual frame starts 50 µs or more after the doFrame, or the
        // midpoint is past its end.
        assert!(ui_by_time(-50, 8_000).is_none());
        assert!(
            ui_by_time(-100, 8_000).is_none(),
            "midpoint 3.9 ms in, but early"
        );
        assert!(ui_by_time(0, 40_000).is_none(), "midpoint 20 ms in");
    }

    #[test]
    fn without_timeline_a_frame_is_a_do_frame_and_the_draw_frames_until_the_next() {
        let mut t = Trace::new();
        let ui1 = t.do_frame(1, us(0), 4 * MS);
        let rt1 = t.draw_frame(1, us(4_500), 5_500_000);
        let ui2 = t.do_frame(2, us(16_000), 4 * MS);
        // Starts with the next doFrame: it belongs to that frame, not this one.
        let rt2 = t.draw_frame(2, us(16_000), 14 * MS);
        let ui3 = t.do_frame(3, us(40_000), -1);
        let frames = t.frames();
        let got: Vec<_> = frames
            .iter()
            .map(|f| (f.frame_id, f.ts, f.dur, f.ui, f.rt, f.timeline.is_some()))
            .collect();
        assert_eq!(
            got,
            [
                // doFrame start to the end of its DrawFrame: 0 to 10 ms.
                (Some(1), us(0), 10 * MS, Some(ui1), Some(rt1), false),
                (Some(2), us(16_000), 14 * MS, Some(ui2), Some(rt2), false),
                // An unfinished doFrame is an unfinished frame.
                (Some(3), us(40_000), -1, Some(ui3), None, false),
            ]
        );
        assert!(!frames[0].ft_janky());
    }

    fn frame(ui: Option<Span>, rt: Option<Span>, timeline: Option<Timeline>) -> Frame {
        Frame {
            upid: APP,
            ui,
            rt,
            timeline,
            ..Default::default()
        }
    }

    fn timeline(actual: Span, expected: Span, tag: &str) -> Timeline {
        Timeline {
            actual,
            expected: Some(expected),
            token: 1,
            display_token: 2,
            jank_type: String::new(),
            jank_mask: 0,
            jank_tag: tag.into(),
            present_type: String::new(),
            on_time_finish: false,
            gpu_composition: false,
            prediction_type: String::new(),
            display: None,
        }
    }

    #[test]
    fn frame_times_need_finished_slices() {
        let done = span(1, 100, 50);
        let open = span(2, 100, -1);
        // UI time is the doFrame's duration, only when it ended.
        assert_eq!(frame(Some(done), None, None).ui_ns(), Some(50));
        assert_eq!(frame(Some(open), None, None).ui_ns(), None);
        // CPU time needs both ended: RenderThread end (200 + 30) - UI start 100.
        let rt = span(3, 200, 30);
        assert_eq!(frame(Some(done), Some(rt), None).cpu_ns(), Some(130));
        assert_eq!(
            frame(Some(done), Some(span(3, 200, -1)), None).cpu_ns(),
            None
        );
        assert_eq!(frame(Some(open), Some(rt), None).cpu_ns(), None);
        // Overrun: max(actual end, RenderThread end) - expected end.
        let expected = span(4, 0, 160);
        let actual = span(5, 20, 170);
        let tl = || Some(timeline(actual, expected, "Self Jank"));
        assert_eq!(frame(None, None, tl()).overrun_ns(), Some(190 - 160));
        assert_eq!(frame(None, Some(rt), tl()).overrun_ns(), Some(230 - 160));
        let early_rt = span(3, 10, 20);
        assert_eq!(frame(None, Some(early_rt), tl()).overrun_ns(), Some(30));
        // An unfinished actual or expected frame has no overrun.
        let open_actual = || Some(timeline(span(5, 20, -1), expected, "Self Jank"));
        let open_expected = || Some(timeline(actual, span(4, 0, -1), "Self Jank"));
        assert_eq!(frame(None, None, open_actual()).overrun_ns(), None);
        assert_eq!(frame(None, None, open_expected()).overrun_ns(), None);
    }

    #[test]
    fn janky_by_frame_timeline_is_what_the_user_saw() {
        let t = |tag| {
            frame(
                None,
                None,
                Some(timeline(span(1, 0, 1), span(2, 0, 1), tag)),
            )
        };
        for tag in ["Self Jank", "Other Jank", "Dropped Frame"] {
            assert!(t(tag).ft_janky(), "{tag}");
        }
        for tag in ["No Jank", "Buffer Stuffing", "SurfaceFlinger Stuffing"] {
            assert!(!t(tag).ft_janky(), "{tag}");
        }
        assert!(!frame(None, None, None).ft_janky());
    }
}
