//! Every definition of a janky frame users meet, applied to each frame of the model, each
//! verdict with the rule id that decided it:
//!
//! - FrameTimeline (SurfaceFlinger): the jank tag; Self Jank, Other Jank and Dropped Frame
//!   are janky ([`super::jank`] holds the bitmask rules);
//! - Perfetto stdlib `android_frame_stats`: `was_jank` (overrun > 0), slow / big / huge by
//!   CPU time (> 20 / 50 / 200 ms);
//! - HWUI JankTracker (rebuilt from atrace, [`super::hwui`]): janky by the deadline path;
//! - Macrobenchmark FrameTimingMetric: counted or not, and why not ([`mb_frames`]);
//! - Android vitals: slow (> 16 ms) and frozen (> 700 ms) UI + RenderThread time
//!   ([`vitals`]);
//! - whole vsyncs missed: ceil(overrun / the frame's own vsync period) ([`super::refresh`]);
//! - over budget (frameprobe's slow frame, the `janky` column without FrameTimeline): CPU
//!   time (else UI time) over the frame's own budget ([`over_budget`]).
//!
//! [`METRIC_VERSION`] names this set of definitions: bump it whenever a rule, threshold or
//! input of any of them changes, so archived results are compared like for like (the test
//! `rules_fingerprint_is_pinned_to_the_metric_version` fails until it is bumped).

pub mod disagreement;
pub mod mb_frames;
pub mod over_budget;
pub mod vitals;

use std::fmt::Write as _;

use serde::Serialize;

use super::frame_model::Frame;
use super::hwui::HwuiFrame;
use super::perfetto_stats::{StdlibFrame, StdlibStats};
use super::refresh;
use mb_frames::MbFrameVerdict;

/// A duration as ms with two decimals, rounded half away from zero like [`super::units::ms`],
/// formatted without floating point: every frame's verdict texts are built on this path.
pub struct Ms2(pub i64);

impl std::fmt::Display for Ms2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hundredths = (self.0.unsigned_abs() + 5_000) / 10_000;
        let sign = if self.0 < 0 && hundredths > 0 {
            "-"
        } else {
            ""
        };
        write!(f, "{sign}{}.{:02}", hundredths / 100, hundredths % 100)
    }
}

/// The version of the frame definitions (rules, thresholds, inputs) behind every number.
pub const METRIC_VERSION: u32 = 1;

/// The definitions, in the order every output lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Definition {
    FrameTimeline,
    PerfettoStdlib,
    Hwui,
    Macrobenchmark,
    Vitals,
    MissedVsyncs,
    OverBudget,
}

impl Definition {
    pub const ALL: [Definition; 7] = [
        Definition::FrameTimeline,
        Definition::PerfettoStdlib,
        Definition::Hwui,
        Definition::Macrobenchmark,
        Definition::Vitals,
        Definition::MissedVsyncs,
        Definition::OverBudget,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Definition::FrameTimeline => "frame_timeline",
            Definition::PerfettoStdlib => "perfetto_stdlib",
            Definition::Hwui => "hwui",
            Definition::Macrobenchmark => "macrobenchmark",
            Definition::Vitals => "vitals",
            Definition::MissedVsyncs => "missed_vsyncs",
            Definition::OverBudget => "over_budget",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Definition::FrameTimeline => "FrameTimeline",
            Definition::PerfettoStdlib => "Perfetto stdlib",
            Definition::Hwui => "HWUI JankTracker",
            Definition::Macrobenchmark => "Macrobenchmark",
            Definition::Vitals => "Android vitals",
            Definition::MissedVsyncs => "Missed vsyncs",
            Definition::OverBudget => "Over budget",
        }
    }

    /// What a flagged frame is, for this definition.
    pub fn flag(self) -> &'static str {
        match self {
            Definition::FrameTimeline => "janky (Self Jank, Other Jank, Dropped Frame)",
            Definition::PerfettoStdlib => "was_jank (overrun > 0)",
            Definition::Hwui => "janky (GPU done after the frame deadline)",
            Definition::Macrobenchmark => "late (frameOverrunMs > 0)",
            Definition::Vitals => "slow (UI + RenderThread > 16 ms)",
            Definition::MissedVsyncs => "missed at least one whole vsync",
            Definition::OverBudget => "slow (CPU time, else UI time, > its own budget)",
        }
    }

    /// What the definition counts (its denominator).
    pub fn unit(self) -> &'static str {
        match self {
            Definition::FrameTimeline => "actual surface frames (token × layer)",
            Definition::PerfettoStdlib => "android_frames rows (vsync id × process)",
            Definition::Hwui => "doFrame + DrawFrame pairs JankTracker counted",
            Definition::Macrobenchmark => "frames FrameTimingMetric counts (one per DrawFrame)",
            Definition::Vitals => "frames with a doFrame and a DrawFrame",
            Definition::MissedVsyncs => "frames with an overrun (FrameTimeline)",
            Definition::OverBudget => "frames with a doFrame (UI or CPU time)",
        }
    }

    /// Where the definition comes from.
    pub fn source(self) -> &'static str {
        match self {
            Definition::FrameTimeline => "SurfaceFlinger FrameTimeline jank_type/jank_tag (frametimeline data source, Android 12+)",
            Definition::PerfettoStdlib => "Perfetto stdlib android.frames.per_frame_metrics: android_frame_stats",
            Definition::Hwui => "frameworks/base libs/hwui JankTracker (what dumpsys gfxinfo counts), rebuilt from atrace",
            Definition::Macrobenchmark => "androidx.benchmark FrameTimingMetric / FrameTimingQuery",
            Definition::Vitals => "Android vitals / Firebase Performance slow (16 ms) and frozen (700 ms) frames",
            Definition::MissedVsyncs => "frameprobe: ceil(frameOverrun / the frame's vsync period)",
            Definition::OverBudget => "frameprobe: frameDurationCpu (else the doFrame) against the frame's expected surface frame, else its vsync period; the janky verdict without FrameTimeline",
        }
    }
}

/// One rule: its id (stable, in JSON and CSV), its definition and what it says.
pub struct Rule {
    pub id: &'static str,
    pub definition: Definition,
    pub text: &'static str,
}

macro_rules! rules {
    ($($id:literal, $def:ident, $text:literal;)*) => {
        /// Every rule id frameprobe emits.
        pub const RULES: &[Rule] = &[$(Rule { id: $id, definition: Definition::$def, text: $text }),*];
    };
}

rules! {
    "ft.self_jank", FrameTimeline, "jank_tag Self Jank: the app missed its deadline (App Deadline Missed, App Resynced Jitter, Unknown Jank); janky";
    "ft.other_jank", FrameTimeline, "jank_tag Other Jank: SurfaceFlinger or the display missed (SF CPU/GPU deadline, SF scheduling, prediction error, display HAL); janky";
    "ft.dropped", FrameTimeline, "jank_tag Dropped Frame: the frame was never presented; janky";
    "ft.buffer_stuffing", FrameTimeline, "jank_tag Buffer Stuffing: late only because earlier frames filled the queue; not janky";
    "ft.sf_stuffing", FrameTimeline, "jank_tag SurfaceFlinger Stuffing; not janky";
    "ft.non_perceivable", FrameTimeline, "jank_tag Non-perceivable Jank (display off, non-animating); not janky";
    "ft.no_jank", FrameTimeline, "jank_tag No Jank; not janky";
    "ft.unspecified", FrameTimeline, "jank_tag Unspecified (no jank type reported); not janky";
    "ft.absent", FrameTimeline, "no FrameTimeline actual surface frame; not judged";
    "stdlib.was_jank", PerfettoStdlib, "overrun = end of the first actual frame with the vsync id - end of its expected frame > 0";
    "stdlib.on_time", PerfettoStdlib, "overrun <= 0; not was_jank";
    "stdlib.slow_frame", PerfettoStdlib, "cpu_time > 20 ms: was_slow_frame";
    "stdlib.big_jank", PerfettoStdlib, "cpu_time > 50 ms: was_big_jank";
    "stdlib.huge_jank", PerfettoStdlib, "cpu_time > 200 ms: was_huge_jank";
    "stdlib.absent", PerfettoStdlib, "no android_frame_stats row (needs FrameTimeline and a doFrame and DrawFrame with the vsync id); not judged";
    "hwui.janky", Hwui, "GpuCompleted at or after the frame deadline (moved one vsync for a triple-buffered frame): Janky frames";
    "hwui.janky_legacy_only", Hwui, "on time by the deadline rule, janky by the legacy rule (IntendedVsync to SwapBuffersCompleted over one interval)";
    "hwui.on_time", Hwui, "GpuCompleted before the deadline";
    "hwui.not_counted", Hwui, "JankTracker did not count the frame (no positive duration)";
    "hwui.absent", Hwui, "no complete doFrame and DrawFrame to rebuild HWUI's FrameInfo; not judged";
    "mb.counted", Macrobenchmark, "in FrameTimingMetric's frame list";
    "mb.late", Macrobenchmark, "counted and frameOverrun = max(actual end, RenderThread end) - expected end > 0";
    "mb.no_doframe_in_process", Macrobenchmark, "not counted: the process has no Choreographer#doFrame on its main thread";
    "mb.process_fails", Macrobenchmark, "not counted: FrameTimingMetric fails for the process (no DrawFrame, no expected/actual frames, a slice without an id)";
    "mb.no_actual_frame", Macrobenchmark, "not counted: API 31+ and no FrameTimeline actual frame";
    "mb.no_doframe", Macrobenchmark, "not counted: no finished Choreographer#doFrame on the main thread for the frame";
    "mb.no_drawframe", Macrobenchmark, "not counted: no RenderThread DrawFrame for the frame's doFrame";
    "mb.no_expected_frame", Macrobenchmark, "not counted: no expected frame with the actual frame's token";
    "mb.actual_not_picked", Macrobenchmark, "not counted: FrameTimingMetric matched the DrawFrame to another actual frame";
    "vitals.slow", Vitals, "UI + RenderThread time > 16 ms: slow frame";
    "vitals.frozen", Vitals, "UI + RenderThread time > 700 ms: frozen frame";
    "vitals.ok", Vitals, "UI + RenderThread time <= 16 ms";
    "vitals.absent", Vitals, "no doFrame and DrawFrame: no UI + RenderThread time; not judged";
    "vsync.missed", MissedVsyncs, "frameOverrun > 0: missed ceil(overrun / vsync period) whole vsyncs";
    "vsync.on_time", MissedVsyncs, "frameOverrun <= 0: no vsync missed";
    "vsync.absent", MissedVsyncs, "no overrun (needs FrameTimeline actual and expected frames); not judged";
    "budget.over", OverBudget, "CPU time (doFrame start to DrawFrame end; else the doFrame) > the frame's own budget (its expected surface frame, else its vsync period): slow, and janky when the frame has no FrameTimeline";
    "budget.within", OverBudget, "CPU time (else UI time) <= the frame's own budget";
    "budget.absent", OverBudget, "no doFrame: no UI or CPU time; not judged";
}

pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// FNV-1a over every rule id and text and the thresholds: changes whenever a definition
/// does. Pinned with [`METRIC_VERSION`] by a test.
pub fn rules_fingerprint() -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    let mut eat = |s: &str| {
        for b in s.bytes().chain([0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
    };
    for r in RULES {
        eat(r.id);
        eat(r.definition.key());
        eat(r.text);
    }
    for n in [
        vitals::SLOW_NS,
        vitals::FROZEN_NS,
        refresh::ASSUMED_PERIOD_NS,
        STDLIB_SLOW_NS,
        STDLIB_BIG_NS,
        STDLIB_HUGE_NS,
    ] {
        eat(&n.to_string());
    }
    h
}

/// Perfetto stdlib's CPU-time thresholds (android_frame_stats).
pub const STDLIB_SLOW_NS: i64 = 20_000_000;
pub const STDLIB_BIG_NS: i64 = 50_000_000;
pub const STDLIB_HUGE_NS: i64 = 200_000_000;

/// One definition's verdict on one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The definition judges (or, for Macrobenchmark, counts) this frame.
    pub considered: bool,
    /// Flagged as the definition flags (see `reconciliation[].flag`); null when not considered.
    pub flagged: Option<bool>,
    /// The rule that decided, then any further rules that apply (e.g. `vitals.frozen`).
    pub rules: Vec<&'static str>,
    /// The verdict in words, with its numbers; or why the frame is not considered.
    pub why: String,
}

impl Verdict {
    fn judged(flagged: bool, rules: Vec<&'static str>, why: String) -> Self {
        Verdict {
            considered: true,
            flagged: Some(flagged),
            rules,
            why,
        }
    }

    fn absent(rule: &'static str, why: String) -> Self {
        Verdict {
            considered: false,
            flagged: None,
            rules: vec![rule],
            why,
        }
    }

    pub fn flagged(&self) -> bool {
        self.flagged == Some(true)
    }
}

/// Every definition's verdict on one frame.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameDefinitions {
    pub frame_timeline: Verdict,
    pub perfetto_stdlib: Verdict,
    pub hwui: Verdict,
    pub macrobenchmark: Verdict,
    pub vitals: Verdict,
    pub missed_vsyncs: Verdict,
    pub over_budget: Verdict,
    /// Why the definitions that judge the frame disagree (null when they agree).
    pub disagreement: Option<disagreement::Disagreement>,
}

impl FrameDefinitions {
    pub fn get(&self, d: Definition) -> &Verdict {
        match d {
            Definition::FrameTimeline => &self.frame_timeline,
            Definition::PerfettoStdlib => &self.perfetto_stdlib,
            Definition::Hwui => &self.hwui,
            Definition::Macrobenchmark => &self.macrobenchmark,
            Definition::Vitals => &self.vitals,
            Definition::MissedVsyncs => &self.missed_vsyncs,
            Definition::OverBudget => &self.over_budget,
        }
    }

    /// Every rule id, in definition order.
    pub fn rule_ids(&self) -> Vec<&'static str> {
        Definition::ALL
            .iter()
            .flat_map(|d| self.get(*d).rules.iter().copied())
            .collect()
    }
}

/// FrameTimeline's verdict from the surface frame's jank tag.
pub fn frame_timeline(tag: Option<&str>, jank_type: &str) -> Verdict {
    use crate::trace::frame_timeline_vocab::*;
    let Some(tag) = tag else {
        return Verdict::absent("ft.absent", "no FrameTimeline actual surface frame".into());
    };
    let (rule, janky) = match tag {
        TAG_SELF => ("ft.self_jank", true),
        TAG_OTHER => ("ft.other_jank", true),
        TAG_DROPPED => ("ft.dropped", true),
        TAG_BUFFER_STUFFING => ("ft.buffer_stuffing", false),
        TAG_SF_STUFFING => ("ft.sf_stuffing", false),
        TAG_NON_PERCEIVABLE => ("ft.non_perceivable", false),
        TAG_NONE => ("ft.no_jank", false),
        _ => ("ft.unspecified", false),
    };
    Verdict::judged(janky, vec![rule], format!("{tag} (jank type: {jank_type})"))
}

/// Perfetto stdlib's verdict, or why the frame has no `android_frame_stats` row.
pub fn perfetto(s: Result<&StdlibFrame, String>) -> Verdict {
    let s = match s {
        Ok(s) => s,
        Err(why) => return Verdict::absent("stdlib.absent", why),
    };
    let mut rules = vec![if s.was_jank {
        "stdlib.was_jank"
    } else {
        "stdlib.on_time"
    }];
    let mut why = match s.overrun_ns {
        Some(o) if s.was_jank => format!("overrun {} ms > 0", Ms2(o)),
        Some(o) => format!("overrun {} ms <= 0", Ms2(o)),
        None => "no overrun".into(),
    };
    for (on, id) in [
        (s.was_slow_frame, "stdlib.slow_frame"),
        (s.was_big_jank, "stdlib.big_jank"),
        (s.was_huge_jank, "stdlib.huge_jank"),
    ] {
        if on {
            rules.push(id);
        }
    }
    if let Some(c) = s.cpu_time_ns {
        let _ = write!(why, "; cpu_time {} ms", Ms2(c));
    }
    Verdict::judged(s.was_jank, rules, why)
}

/// Why a frame of `upid` has no stdlib row (it needs FrameTimeline, a doFrame and a
/// DrawFrame with its vsync id in the process, and an expected frame with that id).
pub fn stdlib_lookup<'a>(stats: &'a StdlibStats, f: &Frame) -> Result<&'a StdlibFrame, String> {
    let Some(t) = &f.timeline else {
        return Err(
            "android_frame_stats needs FrameTimeline (its overrun is actual end - expected end)"
                .into(),
        );
    };
    if let Some(s) = stats.frame(f.upid, t.token) {
        return Ok(s);
    }
    let key = (f.upid, t.token);
    Err(if !stats.do_frame_ids.contains(&key) {
        format!(
            "no Choreographer#doFrame {} in the process (android_frames joins by vsync id)",
            t.token
        )
    } else if !stats.draw_frame_ids.contains(&key) {
        format!("no DrawFrame {} in the process", t.token)
    } else {
        format!("no expected frame with vsync id {} in the trace", t.token)
    })
}

/// HWUI JankTracker's verdict on the rebuilt frame.
pub fn hwui(h: Option<&HwuiFrame>) -> Verdict {
    let Some(h) = h else {
        return Verdict::absent(
            "hwui.absent",
            "no complete doFrame and DrawFrame to rebuild HWUI's FrameInfo".into(),
        );
    };
    if !h.counted {
        return Verdict::absent(
            "hwui.not_counted",
            "JankTracker did not count the frame (no positive duration)".into(),
        );
    }
    let mut types: Vec<&str> = Vec::new();
    for t in h.jank_types.iter().copied() {
        if t != "frame_deadline_missed" && !types.contains(&t) {
            types.push(t);
        }
    }
    let detail = if types.is_empty() {
        String::new()
    } else {
        format!(" [{}]", types.join(", "))
    };
    let stuffing = if h.triple_buffered {
        " (triple buffered: deadline moved one vsync)"
    } else {
        ""
    };
    if h.janky {
        Verdict::judged(
            true,
            vec!["hwui.janky"],
            format!("GPU done after the deadline{stuffing}{detail}"),
        )
    } else if h.janky_legacy {
        Verdict::judged(
            false,
            vec!["hwui.janky_legacy_only"],
            format!("on time by the deadline rule, janky by the legacy rule{detail}"),
        )
    } else {
        Verdict::judged(
            false,
            vec!["hwui.on_time"],
            format!("GPU done before the deadline{stuffing}"),
        )
    }
}

/// Macrobenchmark: considered = counted; flagged = frameOverrun > 0 (API 31+).
pub fn macrobenchmark(m: &MbFrameVerdict) -> Verdict {
    if m.counted == 0 {
        let (rule, why) = m
            .why_not
            .clone()
            .unwrap_or((mb_frames::RULE_NOT_PICKED, "not counted".into()));
        return Verdict::absent(rule, why);
    }
    let times = if m.counted > 1 {
        format!(
            " ({} times: one per DrawFrame started in its doFrame)",
            m.counted
        )
    } else {
        String::new()
    };
    match m.overrun_ns {
        Some(o) if o > 0 => Verdict::judged(
            true,
            vec!["mb.counted", "mb.late"],
            format!("counted{times}; frameOverrun {} ms", Ms2(o)),
        ),
        Some(o) => Verdict::judged(
            false,
            vec!["mb.counted"],
            format!("counted{times}; frameOverrun {} ms", Ms2(o)),
        ),
        None => Verdict {
            considered: true,
            flagged: None,
            rules: vec!["mb.counted"],
            why: format!("counted{times}; no frameOverrun before API 31"),
        },
    }
}

/// Android vitals on the frame's UI + RenderThread time.
pub fn vitals(cpu_ns: Option<i64>) -> Verdict {
    let Some(c) = cpu_ns else {
        return Verdict::absent(
            "vitals.absent",
            "no doFrame and DrawFrame: no UI + RenderThread time".into(),
        );
    };
    let slow = vitals::is_slow(c);
    let mut rules = vec![if slow { "vitals.slow" } else { "vitals.ok" }];
    let mut why = format!(
        "UI + RenderThread {} ms {} 16 ms",
        Ms2(c),
        if slow { ">" } else { "<=" }
    );
    if vitals::is_frozen(c) {
        rules.push("vitals.frozen");
        why.push_str(", > 700 ms: frozen");
    }
    Verdict::judged(slow, rules, why)
}

/// Whole vsyncs missed, with the frame's own vsync period.
pub fn missed_vsyncs(overrun_ns: Option<i64>, period_ns: i64) -> (Verdict, Option<u32>) {
    let Some(o) = overrun_ns else {
        return (
            Verdict::absent(
                "vsync.absent",
                "no overrun (needs FrameTimeline actual and expected frames)".into(),
            ),
            None,
        );
    };
    let n = refresh::missed_vsyncs(o, period_ns);
    let (p, hz) = (Ms2(period_ns), refresh::hz(period_ns));
    let v = if n > 0 {
        let s = if n == 1 { "" } else { "s" };
        Verdict::judged(
            true,
            vec!["vsync.missed"],
            format!(
                "overrun {} ms = {n} whole vsync{s} of {p} ms vsync ({hz} Hz)",
                Ms2(o)
            ),
        )
    } else {
        Verdict::judged(
            false,
            vec!["vsync.on_time"],
            format!("overrun {} ms: on time at {p} ms vsync ({hz} Hz)", Ms2(o)),
        )
    };
    (v, Some(n))
}

/// frameprobe's slow frame: CPU (else UI) time over the frame's own budget.
pub fn over_budget(f: &Frame, budget_ns: i64) -> Verdict {
    let (Some(t), Some(over)) = (over_budget::time_ns(f), over_budget::over(f, budget_ns)) else {
        return Verdict::absent("budget.absent", "no doFrame: no UI or CPU time".into());
    };
    let what = if f.cpu_ns().is_some() { "CPU" } else { "UI" };
    let cmp = if over { ">" } else { "<=" };
    Verdict::judged(
        over,
        vec![if over { "budget.over" } else { "budget.within" }],
        format!(
            "{what} time {} ms {cmp} its {} ms budget",
            Ms2(t),
            Ms2(budget_ns)
        ),
    )
}

/// What one frame's verdicts are computed from.
pub struct FrameFacts<'a> {
    pub frame: &'a Frame,
    /// The vsync period the frame ran at (assumed 60 Hz when unknown).
    pub period_ns: i64,
    pub budget_ns: i64,
    pub stdlib: Result<&'a StdlibFrame, String>,
    pub hwui: Option<&'a HwuiFrame>,
    pub mb: &'a MbFrameVerdict,
}

/// Every definition's verdict on a frame, and whole vsyncs missed.
pub fn judge(f: FrameFacts<'_>) -> (FrameDefinitions, Option<u32>) {
    let t = f.frame.timeline.as_ref();
    let (missed, n) = missed_vsyncs(f.frame.overrun_ns(), f.period_ns);
    let mut d = FrameDefinitions {
        frame_timeline: frame_timeline(
            t.map(|t| t.jank_tag.as_str()),
            t.map_or("", |t| t.jank_type.as_str()),
        ),
        perfetto_stdlib: perfetto(f.stdlib.clone()),
        hwui: hwui(f.hwui),
        macrobenchmark: macrobenchmark(f.mb),
        vitals: vitals(f.frame.cpu_ns()),
        missed_vsyncs: missed,
        over_budget: over_budget(f.frame, f.budget_ns),
        disagreement: None,
    };
    d.disagreement = disagreement::reason(&d, &f);
    (d, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_fingerprint_is_pinned_to_the_metric_version() {
        // A definition changed? Bump METRIC_VERSION, note it in README ("Metric version"),
        // and pin the new pair here. (Adding a definition that changes no existing number
        // or verdict, as over_budget did before version 1 was released, keeps the version.)
        assert_eq!(
            (METRIC_VERSION, rules_fingerprint()),
            (1, 11367735045406962416),
            "definitions changed: bump METRIC_VERSION"
        );
    }

    #[test]
    fn rule_ids_are_unique_and_known() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n);
        for id in [
            mb_frames::RULE_NO_INPUT,
            mb_frames::RULE_FAILS,
            mb_frames::RULE_NO_TIMELINE,
            mb_frames::RULE_NO_DOFRAME,
            mb_frames::RULE_NO_DRAWFRAME,
            mb_frames::RULE_NO_EXPECTED,
            mb_frames::RULE_NOT_PICKED,
        ] {
            assert!(rule(id).is_some(), "{id}");
        }
    }

    #[test]
    fn frame_timeline_tags_map_to_rules() {
        let v = frame_timeline(Some("Self Jank"), "App Deadline Missed");
        assert_eq!((v.flagged, v.rules[0]), (Some(true), "ft.self_jank"));
        let v = frame_timeline(Some("Buffer Stuffing"), "Buffer Stuffing");
        assert_eq!((v.flagged, v.rules[0]), (Some(false), "ft.buffer_stuffing"));
        assert_eq!(
            frame_timeline(Some("Dropped Frame"), "").flagged,
            Some(true)
        );
        assert_eq!(frame_timeline(Some("Other Jank"), "").flagged, Some(true));
        let v = frame_timeline(None, "");
        assert_eq!((v.considered, v.flagged), (false, None));
    }

    fn stdlib(overrun: i64, cpu: i64) -> StdlibFrame {
        StdlibFrame {
            overrun_ns: Some(overrun),
            cpu_time_ns: Some(cpu),
            was_jank: overrun > 0,
            was_slow_frame: cpu > STDLIB_SLOW_NS,
            was_big_jank: cpu > STDLIB_BIG_NS,
            was_huge_jank: cpu > STDLIB_HUGE_NS,
            rows: 1,
            in_range: true,
        }
    }

    #[test]
    fn perfetto_rules_follow_its_flags() {
        let v = perfetto(Ok(&stdlib(1, 60_000_000)));
        assert_eq!(
            v.rules,
            ["stdlib.was_jank", "stdlib.slow_frame", "stdlib.big_jank"]
        );
        assert_eq!(v.flagged, Some(true));
        let v = perfetto(Ok(&stdlib(0, 1)));
        assert_eq!(
            (v.rules.clone(), v.flagged),
            (vec!["stdlib.on_time"], Some(false))
        );
        let v = perfetto(Err("no doFrame".into()));
        assert_eq!((v.considered, v.why.as_str()), (false, "no doFrame"));
    }

    #[test]
    fn over_budget_judges_cpu_time_against_the_frames_own_budget() {
        use crate::analysis::index::Span;
        let frame = |rt: Option<Span>| Frame {
            upid: 1,
            ui: Some(Span {
                id: 1,
                ts: 0,
                dur: 6_000_000,
            }),
            rt,
            ..Default::default()
        };
        // doFrame 0..6 ms, DrawFrame 5..15 ms: 15 ms of CPU time. Within 60 Hz, over 90 Hz.
        let f = frame(Some(Span {
            id: 2,
            ts: 5_000_000,
            dur: 10_000_000,
        }));
        let v = over_budget(&f, 16_666_667);
        assert_eq!(
            (v.flagged, v.rules.clone()),
            (Some(false), vec!["budget.within"])
        );
        let v = over_budget(&f, 11_111_111);
        assert_eq!(
            (v.flagged, v.rules.clone()),
            (Some(true), vec!["budget.over"])
        );
        assert!(v.why.starts_with("CPU time 15.00 ms >"), "{}", v.why);
        // No DrawFrame: the doFrame's 6 ms.
        let v = over_budget(&frame(None), 5_000_000);
        assert!(
            v.flagged() && v.why.starts_with("UI time 6.00 ms"),
            "{}",
            v.why
        );
    }

    #[test]
    fn ms2_rounds_like_the_float_formatting() {
        for ns in [
            0i64,
            1,
            4_999,
            5_000,
            14_180_000,
            16_666_667,
            20_000_000,
            56_305_123,
            -3_000_000,
            -5_000,
            -8_930_842,
            1_084_000_000,
        ] {
            assert_eq!(
                Ms2(ns).to_string(),
                format!("{:.2}", crate::analysis::units::ms(ns)),
                "{ns}"
            );
        }
        // No negative zero.
        assert_eq!(Ms2(-4_999).to_string(), "0.00");
    }

    #[test]
    fn vitals_thresholds() {
        assert_eq!(vitals(Some(16_000_000)).flagged, Some(false));
        let v = vitals(Some(800_000_000));
        assert_eq!(v.rules, ["vitals.slow", "vitals.frozen"]);
        assert!(!vitals(None).considered);
    }

    #[test]
    fn missed_vsyncs_use_the_frames_period() {
        // 10 ms late: one vsync at 60 Hz, two at 120 Hz.
        let (v, n) = missed_vsyncs(Some(10_000_000), 16_666_667);
        assert_eq!((n, v.flagged), (Some(1), Some(true)));
        let (v, n) = missed_vsyncs(Some(10_000_000), 8_333_333);
        assert_eq!(n, Some(2));
        assert!(
            v.why.contains("2 whole vsyncs") && v.why.contains("120 Hz"),
            "{}",
            v.why
        );
        let (v, n) = missed_vsyncs(Some(-3_000_000), 8_333_333);
        assert_eq!((n, v.flagged), (Some(0), Some(false)));
        let (v, n) = missed_vsyncs(None, 8_333_333);
        assert_eq!((n, v.considered), (None, false));
    }

    #[test]
    fn macrobenchmark_counted_late_or_why_not() {
        let m = MbFrameVerdict {
            counted: 1,
            overrun_ns: Some(2_000_000),
            why_not: None,
        };
        assert_eq!(macrobenchmark(&m).rules, ["mb.counted", "mb.late"]);
        let m = MbFrameVerdict {
            counted: 0,
            overrun_ns: None,
            why_not: Some((mb_frames::RULE_NO_DRAWFRAME, "no DrawFrame".into())),
        };
        let v = macrobenchmark(&m);
        assert_eq!((v.considered, v.rules[0]), (false, "mb.no_drawframe"));
        let m = MbFrameVerdict {
            counted: 1,
            overrun_ns: None,
            why_not: None,
        };
        assert_eq!(macrobenchmark(&m).flagged, None);
    }
}
