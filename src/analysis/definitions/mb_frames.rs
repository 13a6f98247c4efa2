//! Which frames of the model Macrobenchmark's FrameTimingMetric counts, and why it does not
//! count the others. Macrobenchmark's own list ([`frame_timing::frames`]) is mapped onto the
//! model: on API 31+ by the actual FrameTimeline slice it picked, before by the doFrame.

use rustc_hash::FxHashMap;

use crate::analysis::frame_model::Frame;
use crate::analysis::frame_timing::{self, MbFrame, MbInput, MbProblem};

/// Macrobenchmark's view of one frame of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MbFrameVerdict {
    /// Entries of Macrobenchmark's list that are this frame: 0 or 1, more only without
    /// FrameTimeline when several DrawFrames started during one doFrame.
    pub counted: usize,
    /// frameOverrun of the frame's first entry (API 31+).
    pub overrun_ns: Option<i64>,
    /// Rule id and words, when not counted.
    pub why_not: Option<(&'static str, String)>,
}

/// Macrobenchmark's list mapped onto a process's frames.
#[derive(Debug, Clone, Default)]
pub struct MbMapping {
    /// Parallel to the frames given.
    pub frames: Vec<MbFrameVerdict>,
    /// Entries of Macrobenchmark's list.
    pub entries: usize,
    /// Entries that are no frame of the model.
    pub unmatched: usize,
    /// Macrobenchmark's list itself (the process's Macrobenchmark block is its summary);
    /// None when the process has no doFrame, where Macrobenchmark measures nothing.
    pub measured: Option<Result<Vec<MbFrame>, MbProblem>>,
}

pub const RULE_NO_INPUT: &str = "mb.no_doframe_in_process";
pub const RULE_FAILS: &str = "mb.process_fails";
pub const RULE_NO_TIMELINE: &str = "mb.no_actual_frame";
pub const RULE_NO_DOFRAME: &str = "mb.no_doframe";
pub const RULE_NO_DRAWFRAME: &str = "mb.no_drawframe";
pub const RULE_NO_EXPECTED: &str = "mb.no_expected_frame";
pub const RULE_NOT_PICKED: &str = "mb.actual_not_picked";

fn token_of(name: &str) -> Option<i64> {
    name.split(' ').nth(1)?.parse().ok()
}

/// Why Macrobenchmark's list has no entry for `f`.
fn why_not(f: &Frame, api: u32) -> (&'static str, String) {
    let ui = f.ui.filter(|u| u.dur > 0);
    if api >= 31 {
        let Some(t) = &f.timeline else {
            return (
                RULE_NO_TIMELINE,
                "no FrameTimeline actual frame: on API 31+ Macrobenchmark counts only frames with one".into(),
            );
        };
        if ui.is_none() {
            return (
                RULE_NO_DOFRAME,
                "no Choreographer#doFrame of this vsync on the main thread (drawn by another thread, or the doFrame is unfinished)".into(),
            );
        }
        if f.rt.is_none_or(|r| r.dur <= 0) {
            return (
                RULE_NO_DRAWFRAME,
                "no finished RenderThread DrawFrame with the doFrame's vsync id".into(),
            );
        }
        if t.expected.is_none() {
            return (
                RULE_NO_EXPECTED,
                format!("no expected surface frame with token {}", t.token),
            );
        }
        return (
            RULE_NOT_PICKED,
            "Macrobenchmark gave its DrawFrame another actual frame (it counts one frame per DrawFrame: a doFrame drawing two layers counts once)".into(),
        );
    }
    if ui.is_none() {
        return (
            RULE_NO_DOFRAME,
            "no finished Choreographer#doFrame on the main thread".into(),
        );
    }
    (
        RULE_NO_DRAWFRAME,
        "no RenderThread DrawFrame started during its doFrame".into(),
    )
}

/// Maps Macrobenchmark's list for the process (`input`: its query's rows; None when the
/// process has no main-thread doFrame) onto `frames`.
pub fn map(frames: &[Frame], input: Option<&MbInput>, api: u32) -> MbMapping {
    let not_counted = |rule: &'static str, why: String| MbFrameVerdict {
        counted: 0,
        overrun_ns: None,
        why_not: Some((rule, why)),
    };
    let Some(input) = input.filter(|i| !i.ui.is_empty()) else {
        let why = "the process has no Choreographer#doFrame on its main thread: Macrobenchmark measures nothing";
        return MbMapping {
            frames: frames
                .iter()
                .map(|_| not_counted(RULE_NO_INPUT, why.into()))
                .collect(),
            ..Default::default()
        };
    };
    let list = match frame_timing::frames(input, api) {
        Ok(l) => l,
        Err(p) => {
            let why = format!("Macrobenchmark fails for this process: {p}");
            return MbMapping {
                frames: frames
                    .iter()
                    .map(|_| not_counted(RULE_FAILS, why.clone()))
                    .collect(),
                measured: Some(Err(p)),
                ..Default::default()
            };
        }
    };
    // API 31+: the actual slice (start, duration, token); before: the doFrame start.
    let mut by_key: FxHashMap<(i64, i64, i64), usize> = FxHashMap::default();
    for (i, f) in frames.iter().enumerate() {
        let key = if api >= 31 {
            f.timeline
                .as_ref()
                .map(|t| (t.actual.ts, t.actual.dur, t.token))
        } else {
            f.ui.map(|u| (u.ts, 0, 0))
        };
        if let Some(k) = key {
            by_key.entry(k).or_insert(i);
        }
    }
    let mut out = MbMapping {
        frames: vec![
            MbFrameVerdict {
                counted: 0,
                overrun_ns: None,
                why_not: None,
            };
            frames.len()
        ],
        entries: list.len(),
        unmatched: 0,
        measured: None,
    };
    for e in &list {
        let key = if api >= 31 {
            e.actual
                .as_ref()
                .and_then(|a| Some((a.ts, a.dur, token_of(&a.name)?)))
        } else {
            Some((e.ui.ts, 0, 0))
        };
        match key.and_then(|k| by_key.get(&k)) {
            Some(&i) => {
                let v = &mut out.frames[i];
                if v.counted == 0 {
                    v.overrun_ns = e.metrics().overrun_ns;
                }
                v.counted += 1;
            }
            None => out.unmatched += 1,
        }
    }
    for (v, f) in out.frames.iter_mut().zip(frames) {
        if v.counted == 0 {
            v.why_not = Some(why_not(f, api));
        }
    }
    out.measured = Some(Ok(list));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frame_model::Timeline;
    use crate::analysis::frame_timing::MbSlice;
    use crate::analysis::index::Span;

    fn span(id: u32, ts: i64, dur: i64) -> Span {
        Span { id, ts, dur }
    }

    fn s(name: &str, ts: i64, dur: i64) -> MbSlice {
        MbSlice {
            name: name.into(),
            ts,
            dur,
        }
    }

    fn timeline(token: i64, actual: Span, expected: Option<Span>) -> Timeline {
        Timeline {
            actual,
            expected,
            token,
            display_token: 0,
            jank_type: "None".into(),
            jank_mask: 1,
            jank_tag: "No Jank".into(),
            present_type: "On-time Present".into(),
            on_time_finish: true,
            gpu_composition: false,
            prediction_type: String::new(),
            display: None,
        }
    }

    fn frame(ui: Option<Span>, rt: Option<Span>, t: Option<Timeline>) -> Frame {
        Frame {
            upid: 1,
            layer: None,
            frame_id: t.as_ref().map(|t| t.token),
            ts: t.as_ref().map_or(ui.map_or(0, |u| u.ts), |t| t.actual.ts),
            dur: 1,
            ui,
            rt,
            timeline: t,
            buffer: None,
        }
    }

    #[test]
    fn api31_counts_by_actual_slice_and_says_why_not() {
        // Frame 10 is complete; frame 20 has no DrawFrame; frame 30 has no doFrame.
        let frames = vec![
            frame(
                Some(span(1, 1_000, 4_000)),
                Some(span(2, 4_500, 3_000)),
                Some(timeline(
                    10,
                    span(3, 1_010, 9_000),
                    Some(span(4, 1_000, 16_000)),
                )),
            ),
            frame(
                Some(span(5, 20_000, 4_000)),
                None,
                Some(timeline(
                    20,
                    span(6, 20_010, 9_000),
                    Some(span(7, 20_000, 16_000)),
                )),
            ),
            frame(None, None, Some(timeline(30, span(8, 40_010, 9_000), None))),
        ];
        let input = MbInput {
            ui: vec![
                s("Choreographer#doFrame 10", 1_000, 4_000),
                s("Choreographer#doFrame 20", 20_000, 4_000),
            ],
            rt: vec![s("DrawFrames 10", 4_500, 3_000)],
            actual: vec![
                s("actual 10", 1_010, 9_000),
                s("actual 20", 20_010, 9_000),
                s("actual 30", 40_010, 9_000),
            ],
            expected: vec![
                s("expected 10", 1_000, 16_000),
                s("expected 20", 20_000, 16_000),
            ],
            ..Default::default()
        };
        let m = map(&frames, Some(&input), 33);
        assert_eq!((m.entries, m.unmatched), (1, 0));
        assert_eq!(m.frames[0].counted, 1);
        // max(actual end 10_010, rt end 7_500) - expected end 17_000.
        assert_eq!(m.frames[0].overrun_ns, Some(10_010 - 17_000));
        assert_eq!(m.frames[1].why_not.as_ref().unwrap().0, RULE_NO_DRAWFRAME);
        assert_eq!(m.frames[2].why_not.as_ref().unwrap().0, RULE_NO_DOFRAME);
    }

    #[test]
    fn legacy_counts_each_drawframe_of_a_doframe() {
        let frames = vec![
            frame(Some(span(1, 0, 10_000)), Some(span(2, 9_000, 3_000)), None),
            frame(Some(span(3, 20_000, 5_000)), None, None),
        ];
        let input = MbInput {
            ui: vec![
                s("Choreographer#doFrame", 0, 10_000),
                s("Choreographer#doFrame", 20_000, 5_000),
            ],
            rt: vec![s("DrawFrame", 2_000, 1_000), s("DrawFrame", 9_000, 3_000)],
            ..Default::default()
        };
        let m = map(&frames, Some(&input), 24);
        assert_eq!(m.frames[0].counted, 2);
        assert_eq!(m.frames[0].overrun_ns, None);
        assert_eq!(m.frames[1].why_not.as_ref().unwrap().0, RULE_NO_DRAWFRAME);
        assert_eq!(m.entries, 2);
    }

    #[test]
    fn a_failing_process_or_no_input_counts_nothing() {
        let frames = vec![frame(Some(span(1, 0, 10)), None, None)];
        let m = map(&frames, None, 33);
        assert_eq!(m.frames[0].why_not.as_ref().unwrap().0, RULE_NO_INPUT);
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 1", 0, 10)],
            ..Default::default()
        };
        let m = map(&frames, Some(&input), 33);
        let (rule, why) = m.frames[0].why_not.clone().unwrap();
        assert_eq!(rule, RULE_FAILS);
        assert!(why.contains("no RenderThread DrawFrame"), "{why}");
    }
}
