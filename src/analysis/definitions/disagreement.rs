//! Why the definitions disagree on a frame, in words: a headline naming the rule difference
//! behind it (the first that applies), then each judging definition's verdict with its
//! numbers. Macrobenchmark is left out of the vote: its "late" is the whole-vsync count's
//! overrun, so it would only repeat that definition.

use super::{Definition, FrameDefinitions, FrameFacts};
use crate::analysis::units::ms;
use crate::trace::frame_timeline_vocab::{TAG_BUFFER_STUFFING, TAG_DROPPED, TAG_NONE, TAG_OTHER};

/// The definitions that vote on "janky".
pub const VOTERS: [Definition; 5] = [
    Definition::FrameTimeline,
    Definition::PerfettoStdlib,
    Definition::Hwui,
    Definition::Vitals,
    Definition::MissedVsyncs,
];

/// Why the definitions disagree on one frame.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Disagreement {
    /// The rule difference behind it (frames are grouped by it).
    pub kind: String,
    /// The kind, then each judging definition's verdict with its numbers.
    pub reason: String,
}

/// Some(..) when the definitions that judge the frame do not all agree.
pub fn reason(d: &FrameDefinitions, f: &FrameFacts<'_>) -> Option<Disagreement> {
    let votes: Vec<(Definition, bool)> = VOTERS
        .iter()
        .filter_map(|&k| d.get(k).flagged.map(|v| (k, v)))
        .collect();
    if votes.iter().all(|v| v.1) || votes.iter().all(|v| !v.1) {
        return None;
    }
    let clauses: Vec<String> = votes
        .iter()
        .map(|&(k, v)| {
            format!(
                "{}: {} ({})",
                k.label(),
                if v { "janky" } else { "not janky" },
                d.get(k).why
            )
        })
        .collect();
    let kind = headline(d, f);
    let reason = format!("{kind}. {}", clauses.join("; "));
    Some(Disagreement { kind, reason })
}

fn headline(d: &FrameDefinitions, f: &FrameFacts<'_>) -> String {
    let t = f.frame.timeline.as_ref();
    let tag = t.map_or("", |t| t.jank_tag.as_str());
    let ft = d.frame_timeline.flagged;
    let stdlib = d.perfetto_stdlib.flagged;
    let late = d.missed_vsyncs.flagged;
    let vitals = d.vitals.flagged;
    let hwui = d.hwui.flagged;
    let budget = format!(
        "{:.2} ms budget at {} Hz",
        ms(f.budget_ns),
        crate::analysis::refresh::hz(f.period_ns)
    );
    if tag == TAG_BUFFER_STUFFING && (stdlib == Some(true) || late == Some(true)) {
        return "Perfetto and the whole-vsync count treat a frame that ended after its expected end as jank; FrameTimeline tags it Buffer Stuffing (late only because earlier frames filled the buffer queue) and does not".into();
    }
    if tag == TAG_OTHER {
        return "FrameTimeline blames SurfaceFlinger or the display (Other Jank); definitions that time the app's own work can see it on time".into();
    }
    if tag == TAG_DROPPED {
        return "FrameTimeline counts a frame that was never presented (Dropped Frame) as jank; the other definitions only time its work".into();
    }
    if ft == Some(true) && stdlib == Some(false) {
        return "Perfetto's overrun comes from the first actual frame with this vsync id in the trace (another layer or process can have it), which ended in time; FrameTimeline judged this layer's frame late".into();
    }
    if ft == Some(false) && tag == TAG_NONE && stdlib == Some(true) {
        return "Perfetto's overrun compares the first actual frame with this vsync id with its expected end; FrameTimeline judged this layer's frame by when it was presented, which was on time".into();
    }
    if vitals == Some(true) && ft != Some(true) && late != Some(true) {
        return format!("Vitals flags any frame over a fixed 16 ms (a 60 Hz assumption); this frame had a {budget} and made it");
    }
    if vitals == Some(false) && (ft == Some(true) || late == Some(true)) {
        return "the app's UI + RenderThread time is under Vitals' 16 ms; the frame was late for other reasons (waiting, GPU, composition, or a shorter deadline)".into();
    }
    if hwui.is_some() && hwui != ft && ft.is_some() {
        return "HWUI judges when the GPU finished against the frame deadline (moved one vsync for triple-buffered frames); FrameTimeline judges when the frame was presented".into();
    }
    if stdlib.is_some() && late.is_some() && stdlib != late {
        return "Perfetto's overrun ends at the actual frame's end; the whole-vsync count uses Macrobenchmark's overrun (the later of the actual frame's and the RenderThread's end)".into();
    }
    "the definitions measure different things".into()
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use crate::analysis::frame_model::{Frame, Timeline};
    use crate::analysis::index::Span;

    fn frame(tag: &str, mask: i32, overrun_ns: i64, cpu_ns: i64) -> Frame {
        let span = |id, ts, dur| Span { id, ts, dur };
        let expected = span(1, 0, 16_666_667);
        let actual_end = 16_666_667 + overrun_ns;
        Frame {
            upid: 1,
            layer: Some("L".into()),
            frame_id: Some(7),
            ts: 100,
            dur: actual_end - 100,
            ui: Some(span(2, 100, 2_000_000)),
            rt: Some(span(3, 100 + cpu_ns - 1_000_000, 1_000_000)),
            timeline: Some(Timeline {
                actual: span(4, 100, actual_end - 100),
                expected: Some(expected),
                token: 7,
                display_token: 8,
                jank_type: crate::trace::frame_timeline_vocab::jank_type_string(mask),
                jank_mask: mask,
                jank_tag: tag.into(),
                present_type: "Late Present".into(),
                on_time_finish: false,
                gpu_composition: false,
                prediction_type: String::new(),
                display: None,
            }),
            buffer: None,
        }
    }

    fn judge_frame(f: &Frame, stdlib: StdlibFrame) -> FrameDefinitions {
        let mb = mb_frames::MbFrameVerdict {
            counted: 1,
            overrun_ns: f.overrun_ns(),
            why_not: None,
        };
        judge(FrameFacts {
            frame: f,
            period_ns: 16_666_667,
            budget_ns: 16_666_667,
            stdlib: Ok(&stdlib),
            hwui: None,
            mb: &mb,
        })
        .0
    }

    fn stdlib(overrun: i64) -> StdlibFrame {
        StdlibFrame {
            overrun_ns: Some(overrun),
            cpu_time_ns: Some(5_000_000),
            was_jank: overrun > 0,
            was_slow_frame: false,
            was_big_jank: false,
            was_huge_jank: false,
            rows: 1,
            in_range: true,
        }
    }

    #[test]
    fn buffer_stuffing_counted_as_jank_by_perfetto_is_explained() {
        let f = frame("Buffer Stuffing", 128, 3_000_000, 8_000_000);
        let d = judge_frame(&f, stdlib(3_000_000));
        assert_eq!(d.frame_timeline.flagged, Some(false));
        assert_eq!(d.perfetto_stdlib.flagged, Some(true));
        let r = d.disagreement.expect("they disagree").reason;
        assert!(r.starts_with("Perfetto and the whole-vsync count"), "{r}");
        assert!(r.contains("Buffer Stuffing"), "{r}");
        // Every voter's verdict is in the words.
        for label in [
            "FrameTimeline",
            "Perfetto stdlib",
            "Android vitals",
            "Missed vsyncs",
        ] {
            assert!(r.contains(label), "{label} missing from {r}");
        }
    }

    #[test]
    fn unanimous_frames_have_no_reason() {
        let f = frame("Self Jank", 64, 20_000_000, 30_000_000);
        let d = judge_frame(&f, stdlib(20_000_000));
        assert_eq!(d.disagreement, None);
        let f = frame("No Jank", 1, -5_000_000, 8_000_000);
        let d = judge_frame(&f, stdlib(-5_000_000));
        assert_eq!(d.disagreement, None);
    }

    #[test]
    fn a_slow_but_on_time_frame_blames_the_fixed_16ms() {
        // 16.5 ms of work, done before the 16.67 ms deadline.
        let f = frame("No Jank", 1, -1_000_000, 16_500_000);
        let d = judge_frame(&f, stdlib(-1_000_000));
        let r = d.disagreement.unwrap().reason;
        assert!(
            r.starts_with("Vitals flags any frame over a fixed 16 ms"),
            "{r}"
        );
    }

    #[test]
    fn other_jank_blames_surfaceflinger() {
        let f = frame("Other Jank", 4, -2_000_000, 8_000_000);
        let d = judge_frame(&f, stdlib(-2_000_000));
        assert!(d
            .disagreement
            .unwrap()
            .kind
            .starts_with("FrameTimeline blames SurfaceFlinger"));
    }
}
