//! The analyze page: per trace, process and layer a frame timeline, a histogram of frame
//! durations with P50/P90/P95/P99, the layer summary; then the worst frames with their blame.
//! Needs the reports built with `AnalyzeOptions { all_frames: true, .. }`.

use std::fmt::Write;

use super::svg::{self, Bar, Histogram, Segment};
use super::{esc, ms, page};
use crate::analysis::blame::{Blame, Measure, StateSplitMs};
use crate::analysis::frame_timing::percentile;
use crate::analysis::report_model::{AnalyzeReport, FrameReport, ProcessReport};
use crate::analysis::summary::{Count, Dist, LayerSummary};

/// What a bar's height measures.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Metric {
    /// The actual surface frame (FrameTimeline).
    Actual,
    /// UI start to RenderThread end (Macrobenchmark's frameDurationCpu).
    Cpu,
    /// doFrame on the UI thread.
    Ui,
    /// The frame's span when nothing better is known.
    Span,
}

impl Metric {
    fn label(self) -> &'static str {
        match self {
            Metric::Actual => "actual frame duration (FrameTimeline)",
            Metric::Cpu => "CPU duration (doFrame start to DrawFrame end)",
            Metric::Ui => "UI thread duration (doFrame)",
            Metric::Span => "frame span",
        }
    }
}

/// A frame's bar height: the actual FrameTimeline duration, else CPU, else UI duration.
pub fn frame_value(f: &FrameReport) -> (Option<f64>, Metric) {
    if f.jank_tag.is_some() {
        if let Some(d) = f.dur_ms {
            return (Some(d), Metric::Actual);
        }
    }
    if let Some(c) = f.cpu_ms {
        return (Some(c), Metric::Cpu);
    }
    if let Some(u) = f.ui_ms {
        return (Some(u), Metric::Ui);
    }
    (f.dur_ms, Metric::Span)
}

fn count_text(c: &Count) -> String {
    format!("{} ({:.1}%)", c.frames, c.rate_pct)
}

fn sources_line(r: &AnalyzeReport) -> String {
    let s = &r.sources;
    let mark = |b: bool| if b { "yes" } else { "no" };
    format!(
        "Sources: atrace {}, FrameTimeline {}, FrameTracer {}, sched {}, process tree {}; API level {}",
        mark(s.atrace),
        mark(s.frame_timeline),
        mark(s.frame_tracer),
        mark(s.sched),
        mark(s.process_tree),
        r.api_level.map_or("?".into(), |a| a.to_string())
    )
}

fn process_name(p: &ProcessReport) -> String {
    match &p.name {
        Some(n) => n.clone(),
        None => "(unnamed process)".into(),
    }
}

fn layer_name(l: &Option<String>) -> String {
    l.clone()
        .unwrap_or_else(|| "(no FrameTimeline layer)".into())
}

fn pct_marks(sorted: &[f64]) -> Vec<(&'static str, f64)> {
    let mut marks = Vec::new();
    for (label, p) in [("P50", 50), ("P90", 90), ("P95", 95), ("P99", 99)] {
        if let Some(v) = percentile(sorted, p) {
            marks.push((label, v));
        }
    }
    marks
}

fn dist_row(o: &mut String, name: &str, d: &Option<Dist>) {
    match d {
        Some(d) => {
            let _ = write!(
                o,
                "<tr><th>{}</th><td class=\"n\">{}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td>\
                 <td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td></tr>",
                esc(name),
                d.count,
                d.p50,
                d.p90,
                d.p95,
                d.p99,
                d.max
            );
        }
        None => {
            let _ = write!(
                o,
                "<tr><th>{}</th><td colspan=\"6\">n/a</td></tr>",
                esc(name)
            );
        }
    }
}

/// The analyze summary of one layer (every LayerSummary field).
fn summary_table(l: &LayerSummary) -> String {
    let mut o = String::from("<div><table class=\"kv summary\"><tbody>");
    let mut kv = |k: &str, v: String| {
        let _ = write!(o, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    };
    kv("Frames", l.frames.to_string());
    kv(
        "Frames with FrameTimeline",
        l.frames_with_timeline.to_string(),
    );
    if let Some(j) = &l.janky {
        kv(
            "Janky (Self, Other Jank, Dropped)",
            count_text(j) + " of FrameTimeline frames",
        );
    }
    if let Some(d) = &l.deadline_missed {
        kv(
            "App deadline missed",
            count_text(d) + " of FrameTimeline frames",
        );
    }
    kv(
        "Slow frames (CPU over budget)",
        l.slow_frames.as_ref().map_or("n/a".into(), |c| {
            count_text(c) + " of the frames with a duration"
        }),
    );
    kv("Longest janky streak", l.longest_janky_streak.to_string());
    kv(
        "Present cadence",
        l.present_cadence.as_ref().map_or("n/a".into(), |c| {
            format!(
                "{:.1} Hz (median interval {:.2} ms, {} presents)",
                c.effective_hz, c.median_interval_ms, c.presents
            )
        }),
    );
    for (t, c) in l.by_jank_tag.iter().flatten() {
        kv(&format!("Jank tag: {t}"), count_text(c));
    }
    for (r, c) in l.by_jank_reason.iter().flatten() {
        kv(&format!("Jank reason: {r}"), count_text(c));
    }
    o.push_str("</tbody></table>");
    o.push_str(
        "<table class=\"dist\" style=\"margin-top:8px\"><thead><tr><th>ms</th><th>count</th><th>P50</th>\
         <th>P90</th><th>P95</th><th>P99</th><th>max</th></tr></thead><tbody>",
    );
    dist_row(&mut o, "UI thread (doFrame)", &l.durations.ui_ms);
    dist_row(&mut o, "CPU (frameDurationCpu)", &l.durations.cpu_ms);
    dist_row(&mut o, "Overrun (frameOverrun)", &l.durations.overrun_ms);
    dist_row(&mut o, "Actual (FrameTimeline)", &l.durations.actual_ms);
    o.push_str("</tbody></table></div>");
    o
}

fn frame_title(f: &FrameReport, value: Option<f64>) -> String {
    let mut s = format!(
        "#{} {} {}",
        f.frame_id.map_or("?".into(), |i| i.to_string()),
        crate::report::since_start(f.ts_rel_ms),
        value.map_or("no duration".into(), |v| format!("{v:.2}ms"))
    );
    if let Some(tag) = &f.jank_tag {
        let _ = write!(s, " {tag}");
    }
    if let Some(ty) = f.jank_type.as_deref().filter(|t| *t != "None") {
        let _ = write!(s, " ({ty})");
    }
    if let Some(o) = f.overrun_ms {
        let _ = write!(s, ", overrun {o:.2}ms");
    }
    if f.janky {
        s.push_str(", janky");
    }
    s
}

fn layer_section(o: &mut String, p: &ProcessReport, l: &LayerSummary) {
    let mut frames: Vec<&FrameReport> =
        p.all_frames.iter().filter(|f| f.layer == l.layer).collect();
    frames.sort_by_key(|f| f.ts);
    let _ = write!(
        o,
        "<section class=\"layer\" data-layer=\"{}\"><h4>Layer {}</h4>",
        esc(&layer_name(&l.layer)),
        esc(&layer_name(&l.layer))
    );
    if frames.is_empty() {
        o.push_str("<p class=\"note\">No frames to draw.</p>");
        o.push_str(&summary_table(l));
        o.push_str("</section>");
        return;
    }
    let values: Vec<(Option<f64>, Metric)> = frames.iter().map(|f| frame_value(f)).collect();
    let main_metric = [Metric::Actual, Metric::Cpu, Metric::Ui, Metric::Span]
        .into_iter()
        .max_by_key(|m| values.iter().filter(|(_, x)| x == m).count())
        .unwrap_or(Metric::Span);
    let mut sorted: Vec<f64> = values.iter().filter_map(|v| v.0).collect();
    sorted.sort_by(f64::total_cmp);
    let marks = pct_marks(&sorted);
    let p99 = marks.iter().find(|m| m.0 == "P99").map(|m| m.1);
    // x = 0 is the process's first frame, so the charts of its layers line up.
    let t0 = p
        .all_frames
        .iter()
        .map(|f| f.ts)
        .min()
        .unwrap_or(frames[0].ts);
    let bars: Vec<Bar> = frames
        .iter()
        .zip(&values)
        .map(|(f, (v, _))| Bar {
            ts: f.ts,
            value_ms: *v,
            style: svg::tag_style(f.jank_tag.as_deref(), f.janky),
            janky: f.janky,
            frame: f
                .frame_id
                .map_or_else(|| format!("ts{}", f.ts), |i| i.to_string()),
            title: frame_title(f, *v),
        })
        .collect();
    // Legend: the styles present, in a fixed order, with their counts.
    let mut present: Vec<(&str, String)> = Vec::new();
    for st in svg::ALL_TAGS {
        let n = bars.iter().filter(|b| b.style == st).count();
        if n > 0 {
            present.push((st.colour, format!("{} ({n})", st.label)));
        }
    }
    let janky = bars.iter().filter(|b| b.janky).count();
    let missing = values.iter().filter(|v| v.0.is_none()).count();
    let _ = write!(
        o,
        "<p class=\"meta\">{} frames; bar height = {}; x = frame start (s from the process's first frame); \
         {} janky; budget {:.2} ms{}.</p>",
        frames.len(),
        esc(main_metric.label()),
        janky,
        p.budget_ms,
        if missing > 0 {
            format!(
                "; {missing} frame{} without a duration drawn as short stub{}",
                if missing == 1 { "" } else { "s" },
                if missing == 1 { "" } else { "s" }
            )
        } else {
            String::new()
        }
    );
    o.push_str(&svg::legend(present.iter().map(|(c, l)| (*c, l.as_str()))));
    let y_max = svg::timeline_ceiling(&sorted, p.budget_ms, p99);
    o.push_str(&svg::timeline(
        &bars,
        t0,
        p.budget_ms,
        y_max,
        main_metric.label(),
    ));
    o.push_str("<div class=\"row\">");
    let (lo, hi) = svg::hist_range(&sorted, p99, Some(p.budget_ms));
    let title = format!("Distribution: {}", main_metric.label());
    o.push_str(&svg::histogram(&Histogram {
        title: &title,
        values: &sorted,
        lo,
        hi,
        bins: 40,
        marks: &marks,
        budget: Some(p.budget_ms),
        bad_above: Some(p.budget_ms),
        x_label: "ms",
        y_max: None,
        colour: "#78909c",
    }));
    o.push_str(&summary_table(l));
    o.push_str("</div></section>\n");
}

const UI_COLOUR: &str = "#1e88e5";
const RT_COLOUR: &str = "#00897b";
const GPU_COLOUR: &str = "#f9a825";
const SF_COLOUR: &str = "#7e57c2";

fn blame_segments(b: &Blame) -> Vec<(&'static str, &'static str, Option<&Measure>)> {
    vec![
        ("UI thread", UI_COLOUR, b.ui_thread.as_ref()),
        ("RenderThread", RT_COLOUR, b.render_thread.as_ref()),
        ("GPU wait", GPU_COLOUR, b.gpu_wait.as_ref()),
        ("SurfaceFlinger", SF_COLOUR, b.surfaceflinger.as_ref()),
    ]
}

fn states_segments(s: &StateSplitMs) -> Vec<(&'static str, &'static str, f64)> {
    vec![
        ("Running", "#43a047", s.running_ms),
        ("Runnable", "#64b5f6", s.runnable_ms),
        ("Sleeping", "#b0bec5", s.sleeping_ms),
        ("Uninterruptible", "#ff7043", s.uninterruptible_ms),
        ("Unknown", "#d7dce0", s.unknown_ms),
    ]
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or("n/a".into(), |x| x.to_string())
}

fn worst_frame(o: &mut String, rank: usize, f: &FrameReport, budget_ms: f64, scale: f64) {
    let side = f
        .blame
        .as_ref()
        .map_or(String::new(), |b| format!(" · blame: {}", b.side_label));
    let _ = write!(
        o,
        "<details class=\"worst\" data-frame=\"{}\"{}><summary>#{rank} frame {} · {} · {}{}{}</summary>",
        esc(&f.frame_id.map_or_else(|| format!("ts{}", f.ts), |i| i.to_string())),
        if rank <= 3 { " open" } else { "" },
        esc(&opt(&f.frame_id)),
        esc(&layer_name(&f.layer)),
        esc(f.jank_tag.as_deref().unwrap_or("no FrameTimeline")),
        esc(&f
            .overrun_ms
            .map_or(String::new(), |x| format!(" · overrun {x:.2} ms"))),
        esc(&side)
    );
    match &f.blame {
        Some(b) => {
            let _ = write!(o, "<p>{}</p>", esc(&b.explanation));
            o.push_str("<div class=\"row\"><div><b>Where the time went</b><br>");
            let segs = blame_segments(b);
            let list: Vec<Segment> = segs
                .iter()
                .filter_map(|(l, c, m)| {
                    m.map(|m| Segment {
                        label: l,
                        ms: m.ms,
                        colour: c,
                    })
                })
                .collect();
            if list.is_empty() {
                o.push_str("<p class=\"note\">No UI, RenderThread, GPU or SurfaceFlinger measurements for this frame.</p>");
            } else {
                o.push_str(&svg::stacked(&list, scale, Some(budget_ms), 560.0));
            }
            o.push_str(&svg::legend(segs.iter().map(|(l, c, _)| (*c, *l))));
            o.push_str("<table><thead><tr><th>part</th><th>ms</th><th>measured from</th></tr></thead><tbody>");
            for (l, _, m) in &segs {
                let _ = write!(
                    o,
                    "<tr><th>{}</th><td class=\"n\">{}</td><td>{}</td></tr>",
                    esc(l),
                    ms(m.map(|m| m.ms)),
                    esc(&m.map_or("not available".into(), |m| m.source.clone()))
                );
            }
            o.push_str("</tbody></table></div><div><b>UI thread states during doFrame</b><br>");
            match &b.ui_thread_states {
                Some(s) => {
                    let segs = states_segments(s);
                    let total: f64 = segs.iter().map(|x| x.2).sum();
                    let list: Vec<Segment> = segs
                        .iter()
                        .map(|(l, c, v)| Segment {
                            label: l,
                            ms: *v,
                            colour: c,
                        })
                        .collect();
                    o.push_str(&svg::stacked(&list, total.max(1e-3), None, 420.0));
                    let items: Vec<(&str, String)> = segs
                        .iter()
                        .map(|(l, c, v)| (*c, format!("{l} {v:.2} ms")))
                        .collect();
                    o.push_str(&svg::legend(items.iter().map(|(c, l)| (*c, l.as_str()))));
                }
                None => o.push_str(
                    "<p class=\"note\">No thread-state split (no sched data for the UI thread in this trace).</p>",
                ),
            }
            o.push_str("</div></div>");
        }
        None => o.push_str(
            "<p class=\"note\">Not janky by FrameTimeline or CPU time: no blame computed.</p>",
        ),
    }
    if let Some(c) = &f.causes {
        o.push_str(&super::causes::frame_section(c, budget_ms));
    }
    // The facts the verdict rests on: FrameTimeline on the left, FrameTracer and the
    // blame's hot spots on the right.
    o.push_str("<div class=\"row\">");
    o.push_str(&kv_table(
        "FrameTimeline and atrace",
        &[
            ("Layer", layer_name(&f.layer)),
            ("Frame token (vsync id)", opt(&f.frame_id)),
            (
                "Start",
                format!(
                    "{} (trace ns {})",
                    crate::report::since_start(f.ts_rel_ms),
                    f.ts
                ),
            ),
            ("Duration", ms(f.dur_ms) + " ms"),
            (
                "UI / CPU / overrun",
                format!(
                    "{} / {} / {} ms",
                    ms(f.ui_ms),
                    ms(f.cpu_ms),
                    ms(f.overrun_ms)
                ),
            ),
            ("Jank tag", opt(&f.jank_tag)),
            ("Jank type", opt(&f.jank_type)),
            ("Present type", opt(&f.present_type)),
            ("On-time finish", opt(&f.on_time_finish)),
            ("GPU composition", opt(&f.gpu_composition)),
            ("Display frame token", opt(&f.display_frame_token)),
            ("Display frame jank tag", opt(&f.display_jank_tag)),
            ("doFrame slice id", opt(&f.do_frame_slice_id)),
            ("DrawFrame slice id", opt(&f.draw_frame_slice_id)),
            (
                "Budget",
                format!("{:.2} ms ({})", f.budget_ms, f.budget_source),
            ),
            (
                "Vsync period",
                format!("{:.2} ms ({} Hz)", f.vsync_period_ms, f.refresh_hz),
            ),
            ("Missed vsyncs", opt(&f.missed_vsyncs)),
            ("Rules", f.definitions.rule_ids().join(", ")),
        ],
    ));
    let mut right: Vec<(&str, String)> = Vec::new();
    match &f.buffer {
        Some(b) => {
            let phase = |s: &Option<crate::analysis::index::Span>| {
                s.map_or("n/a".into(), |s| {
                    if s.dur >= 0 {
                        format!("{:.2} ms at {} ns", s.dur as f64 / 1e6, s.ts)
                    } else {
                        format!("unfinished, from {} ns", s.ts)
                    }
                })
            };
            right.push(("Layer", b.layer.clone()));
            right.push(("Buffer id", opt(&b.buffer_id)));
            right.push(("Frame number", opt(&b.frame_number)));
            right.push(("Match confidence", b.confidence.name().to_string()));
            right.push(("APP_ (dequeue → queue)", phase(&b.app)));
            right.push(("GPU_ (queue → fence)", phase(&b.gpu)));
            right.push(("SF_ (latch → present)", phase(&b.sf)));
        }
        None => right.push(("Buffer", "no FrameTracer match".into())),
    }
    if let Some(b) = &f.blame {
        right.push(("Blamed side", b.side_label.to_string()));
        right.push((
            "Jank reasons",
            if b.reasons.is_empty() {
                "none".into()
            } else {
                b.reasons.join(", ")
            },
        ));
        if b.hot_spots.is_empty() {
            right.push(("Hot spots", "none found".into()));
        }
        for h in &b.hot_spots {
            right.push((
                if h.thread == "RenderThread" {
                    "Hot spot (RenderThread)"
                } else {
                    "Hot spot (UI thread)"
                },
                format!("\"{}\" {:.2} ms (slice {})", h.name, h.ms, h.slice_id),
            ));
        }
    }
    o.push_str(&kv_table("FrameTracer and blame", &right));
    o.push_str("</div></details>\n");
}

/// A two-column table with a caption; keys and values are escaped.
fn kv_table(caption: &str, rows: &[(&str, String)]) -> String {
    let mut o = format!(
        "<table class=\"kv facts\"><caption>{}</caption><tbody>",
        esc(caption)
    );
    for (k, v) in rows {
        let _ = write!(o, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(v));
    }
    o.push_str("</tbody></table>");
    o
}

fn worst_frames(o: &mut String, ti: usize, p: &ProcessReport) {
    if p.worst_frames.is_empty() {
        o.push_str("<p class=\"note\">No janky frames to explain.</p>");
        return;
    }
    let _ = write!(
        o,
        "<h4 id=\"t{ti}-u{}-worst\">Worst {} frame{}</h4>",
        p.upid,
        p.worst_frames.len(),
        if p.worst_frames.len() == 1 { "" } else { "s" }
    );
    // One scale for every blame bar of the process so they compare at a glance.
    let scale = p
        .worst_frames
        .iter()
        .filter_map(|f| f.blame.as_ref())
        .map(|b| {
            blame_segments(b)
                .iter()
                .filter_map(|s| s.2.map(|m| m.ms.max(0.0)))
                .sum::<f64>()
        })
        .fold(p.budget_ms * 1.1, f64::max);
    for (i, f) in p.worst_frames.iter().enumerate() {
        worst_frame(o, i + 1, f, p.budget_ms, scale);
    }
}

fn process_section(o: &mut String, ti: usize, p: &ProcessReport) {
    let _ = write!(
        o,
        "<section class=\"process\" id=\"t{ti}-u{}\" data-pid=\"{}\"><h3>{} <span class=\"meta\">pid {}</span></h3>",
        p.upid,
        p.pid,
        esc(&process_name(p)),
        p.pid
    );
    let _ = write!(
        o,
        "<p class=\"meta\">{} frames in {} layer{}; frame budget {:.2} ms ({}){}.</p>",
        p.frames,
        p.layers.len(),
        if p.layers.len() == 1 { "" } else { "s" },
        p.budget_ms,
        esc(p.budget_source),
        if p.name_source == Some("layer") {
            "; the process name was taken from its layer (no process tree in the trace)"
        } else {
            ""
        }
    );
    for n in &p.notes {
        let _ = write!(o, "<p class=\"note\">Note: {}</p>", esc(n));
    }
    super::verdicts::trust(o, "Trust", &p.trust);
    let _ = write!(
        o,
        "<p class=\"meta\">Refresh rates: {}.</p>",
        esc(&crate::report::verdicts::refresh_line(
            &p.refresh_rates,
            None
        ))
    );
    for (i, rec) in p.reconciliation.iter().enumerate() {
        super::verdicts::reconciliation(o, rec, i == 0);
    }
    if let Some(m) = &p.macrobenchmark {
        o.push_str("<details><summary>Macrobenchmark FrameTimingMetric</summary><table class=\"dist\"><thead><tr><th>ms</th><th>count</th><th>P50</th><th>P90</th><th>P95</th><th>P99</th><th>max</th></tr></thead><tbody>");
        dist_row(o, "frameDurationCpuMs", &m.frame_duration_cpu_ms);
        dist_row(o, "frameDurationUiMs", &m.frame_duration_ui_ms);
        dist_row(o, "frameOverrunMs", &m.frame_overrun_ms);
        dist_row(o, "frameDurationFullMs", &m.frame_duration_full_ms);
        let _ = write!(
            o,
            "</tbody></table><p class=\"meta\">frameCount {}, API level {}{}</p></details>",
            m.frame_count,
            m.api_level,
            m.problem.as_ref().map_or(String::new(), |p| format!(
                "; Macrobenchmark would fail: {}",
                esc(p)
            ))
        );
    }
    if let Some(s) = &p.perfetto_frame_stats {
        let _ = write!(
            o,
            "<p class=\"meta\">Perfetto android_frame_stats: {} frames, was_jank {}, was_slow_frame {}, was_big_jank {}, was_huge_jank {}.</p>",
            s.frames, s.was_jank, s.was_slow_frame, s.was_big_jank, s.was_huge_jank
        );
    }
    if let Some(c) = &p.causes {
        o.push_str(&super::causes::top_table(c));
    }
    if !p.interactions.is_empty() {
        interactions_table(o, p);
    }
    for l in &p.layers {
        layer_section(o, p, l);
    }
    worst_frames(o, ti, p);
    o.push_str("</section>\n");
}

/// The process's interactions (the rows the table and Markdown show), every cell escaped.
fn interactions_table(o: &mut String, p: &ProcessReport) {
    let rows = crate::report::interactions_text::rows(&p.interactions);
    o.push_str("<details open><summary>Interactions (janky frames flagged/judged by each definition)</summary><table>");
    for (i, r) in rows.iter().enumerate() {
        let cell = if i == 0 { "th" } else { "td" };
        o.push_str("<tr>");
        for c in r {
            let _ = write!(o, "<{cell}>{}</{cell}>", esc(c));
        }
        o.push_str("</tr>");
    }
    o.push_str("</table></details>");
}

/// The whole page for one or more analyzed traces.
pub fn render_analyze(reports: &[AnalyzeReport]) -> String {
    render_analyze_with_sources(reports, &[])
}

/// The page with, per trace, doctor's frame data sources (`sources[i]` for `reports[i]`;
/// none listed when absent).
pub fn render_analyze_with_sources(
    reports: &[AnalyzeReport],
    sources: &[Vec<crate::analysis::doctor::SourceStatus>],
) -> String {
    let mut o = String::new();
    o.push_str("<h1>frameprobe report</h1>");
    let _ = write!(
        o,
        "<p class=\"meta\">{} trace{}. Timeline bars: one per frame, coloured by FrameTimeline jank tag, \
         with a dark cap where a bar is taller than the chart.</p>",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" }
    );
    o.push_str(&svg::legend(
        svg::ALL_TAGS.iter().map(|t| (t.colour, t.label)),
    ));
    for (ti, r) in reports.iter().enumerate() {
        let _ = write!(
            o,
            "<section class=\"trace\"><h2>Trace <code>{}</code></h2><p class=\"meta\">{}</p>",
            esc(&r.trace),
            esc(&sources_line(r))
        );
        let _ = write!(
            o,
            "<p class=\"meta\">Metric version {}. Refresh rates: {}.</p>",
            r.metric_version,
            esc(&crate::report::verdicts::refresh_line(
                &r.refresh_rates,
                Some(r.vsync_period_source)
            ))
        );
        if let Some(range) = &r.range {
            let _ = write!(o, "<p class=\"meta\">{}</p>", esc(&range.header()));
        }
        super::verdicts::trust(&mut o, "Trace trust", &r.trust);
        if let Some(s) = sources.get(ti) {
            super::verdicts::sources(&mut o, s);
        }
        for w in &r.warnings {
            let _ = write!(o, "<p class=\"warn\">Warning: {}</p>", esc(w));
        }
        if let Some(range) = r.range.as_ref().filter(|_| r.processes.is_empty()) {
            let _ = write!(o, "<p class=\"err\">{}</p>", esc(&range.empty_message()));
        }
        if r.processes.is_empty() {
            o.push_str("<p class=\"err\">No frames found for the selected processes.</p>");
            for p in &r.processes_with_frames {
                let _ = write!(
                    o,
                    "<p class=\"meta\">Has frames: {} (pid {}), {} frames.</p>",
                    esc(p.name.as_deref().unwrap_or("(unnamed process)")),
                    p.pid,
                    p.frames
                );
            }
        } else if r.processes.len() > 1 {
            o.push_str("<ul class=\"toc\">");
            for p in &r.processes {
                let _ = write!(
                    o,
                    "<li><a href=\"#t{ti}-u{}\">{} (pid {})</a>: {} frames</li>",
                    p.upid,
                    esc(&process_name(p)),
                    p.pid,
                    p.frames
                );
            }
            o.push_str("</ul>");
        }
        for p in &r.processes {
            process_section(&mut o, ti, p);
        }
        o.push_str("</section>\n");
    }
    let title = match reports {
        [r] => format!("frameprobe report: {}", r.trace),
        _ => format!("frameprobe report: {} traces", reports.len()),
    };
    page(&title, &o)
}
