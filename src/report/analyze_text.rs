//! `analyze` as a table (terminal) or Markdown (pull-request comments).

use std::fmt::Write;

use super::causes_text;
use super::interactions_text;
use crate::analysis::hwui::{HwuiFrame, HwuiSummary};
use crate::analysis::report_model::{
    AnalyzeReport, FrameReport, MacrobenchmarkBlock, ProcessReport,
};
use crate::analysis::summary::{Dist, LayerSummary};
use crate::report::verdicts;

fn dist3(d: &Option<Dist>) -> String {
    match d {
        Some(d) => format!("{:.1}/{:.1}/{:.1}", d.p50, d.p90, d.p99),
        None => "n/a".into(),
    }
}

/// A jank tag's count; "n/a" (never 0) where FrameTimeline classified nothing.
fn tag(l: &LayerSummary, t: &str) -> String {
    l.by_jank_tag.as_ref().map_or("n/a".into(), |m| {
        m.get(t).map_or("0".into(), |c| c.frames.to_string())
    })
}

fn layer_rows(p: &ProcessReport) -> Vec<Vec<String>> {
    let mut rows = vec![vec![
        "layer".to_string(),
        "frames".into(),
        "janky".into(),
        "self".into(),
        "other".into(),
        "dropped".into(),
        "buf.stuffing".into(),
        "deadline missed".into(),
        "ui ms p50/p90/p99".into(),
        "cpu ms p50/p90/p99".into(),
        "overrun ms p50/p90/p99".into(),
        "streak".into(),
        "present Hz".into(),
    ]];
    for l in &p.layers {
        let janky = match (&l.janky, &l.slow_frames) {
            (Some(j), _) => format!("{} ({:.1}%)", j.frames, j.rate_pct),
            (None, Some(s)) => format!("{} slow ({:.1}%)", s.frames, s.rate_pct),
            (None, None) => "n/a".into(),
        };
        rows.push(vec![
            l.layer
                .clone()
                .unwrap_or_else(|| "(no FrameTimeline layer)".into()),
            l.frames.to_string(),
            janky,
            tag(l, "Self Jank"),
            tag(l, "Other Jank"),
            tag(l, "Dropped Frame"),
            tag(l, "Buffer Stuffing"),
            l.deadline_missed.as_ref().map_or("n/a".into(), |c| {
                format!("{} ({:.1}%)", c.frames, c.rate_pct)
            }),
            dist3(&l.durations.ui_ms),
            dist3(&l.durations.cpu_ms),
            dist3(&l.durations.overrun_ms),
            l.longest_janky_streak.to_string(),
            l.present_cadence
                .as_ref()
                .map_or("n/a".into(), |c| format!("{:.1}", c.effective_hz)),
        ]);
    }
    rows
}

fn macro_line(m: &MacrobenchmarkBlock) -> String {
    let d = |x: &Option<Dist>| {
        x.as_ref().map_or("n/a".into(), |d| {
            format!(
                "P50 {:.1} P90 {:.1} P95 {:.1} P99 {:.1}",
                d.p50, d.p90, d.p95, d.p99
            )
        })
    };
    let mut s = format!(
        "frameCount {}, frameDurationCpuMs {}, frameOverrunMs {}",
        m.frame_count,
        d(&m.frame_duration_cpu_ms),
        if m.api_level >= 31 {
            d(&m.frame_overrun_ms)
        } else {
            "n/a (API < 31)".into()
        }
    );
    if let Some(p) = &m.problem {
        let _ = write!(s, " — Macrobenchmark would fail: {p}");
    }
    s
}

fn frame_line(f: &FrameReport) -> String {
    let mut s = format!(
        "frame {} at {} (ts {}){}",
        f.frame_id.map_or("?".into(), |i| i.to_string()),
        super::since_start(f.ts_rel_ms),
        f.ts,
        f.layer
            .as_ref()
            .map_or(String::new(), |l| format!(" [{l}]"))
    );
    if let Some(t) = &f.jank_tag {
        let _ = write!(s, ": {t} ({})", f.jank_type.clone().unwrap_or_default());
    }
    if let Some(h) = &f.hwui {
        let _ = write!(
            s,
            "{} HWUI: {}",
            if f.jank_tag.is_some() { ";" } else { ":" },
            hwui_verdict(h)
        );
    }
    if let Some(o) = f.overrun_ms {
        let _ = write!(s, ", overrun {o:.1} ms");
    }
    if let Some(n) = f.missed_vsyncs.filter(|n| *n > 0) {
        let _ = write!(
            s,
            " = {n} missed vsync{} at {} Hz",
            if n == 1 { "" } else { "s" },
            f.refresh_hz
        );
    }
    if let Some(c) = f.cpu_ms {
        let _ = write!(s, ", cpu {c:.1} ms");
    }
    if f.cpu_ms.is_none() {
        if let Some(u) = f.ui_ms {
            let _ = write!(s, ", ui {u:.1} ms");
        }
    }
    let _ = write!(s, " (budget {:.1} ms)", f.budget_ms);
    s
}

/// HWUI's verdict on one frame: janky (deadline path) with its reasons, else the legacy
/// verdict.
fn hwui_verdict(h: &HwuiFrame) -> String {
    let mut types: Vec<&str> = Vec::new();
    for t in &h.jank_types {
        if !types.contains(t) && *t != "frame_deadline_missed" {
            types.push(t);
        }
    }
    let state = match (h.janky, h.janky_legacy) {
        (true, _) => "janky",
        (false, true) => "on time (janky by the legacy rule)",
        (false, false) => "on time",
    };
    if types.is_empty() {
        state.to_string()
    } else {
        format!("{state} [{}]", types.join(", "))
    }
}

/// The process's HWUI JankTracker counters, as `dumpsys gfxinfo` names them.
fn hwui_line(h: &HwuiSummary) -> String {
    let pct = |n: u32| {
        if h.total_frames == 0 {
            0.0
        } else {
            f64::from(n) * 100.0 / f64::from(h.total_frames)
        }
    };
    format!(
        "HWUI JankTracker (approximation, from atrace): {} frames, janky {} ({:.1}%), janky (legacy) {} ({:.1}%); missed vsync {}, high input latency {}, slow UI thread {}, slow bitmap uploads {}, slow issue draw commands {}, deadline missed {} (legacy {}); P50/P90/P95/P99 {}/{}/{}/{} ms; interval {:.2} ms",
        h.total_frames,
        h.janky_frames,
        pct(h.janky_frames),
        h.janky_frames_legacy,
        pct(h.janky_frames_legacy),
        h.missed_vsync,
        h.high_input_latency,
        h.slow_ui_thread,
        h.slow_bitmap_uploads,
        h.slow_issue_draw_commands,
        h.frame_deadline_missed,
        h.frame_deadline_missed_legacy,
        h.p50_ms,
        h.p90_ms,
        h.p95_ms,
        h.p99_ms,
        h.frame_interval_ms,
    )
}

fn sources_line(r: &AnalyzeReport) -> String {
    let s = &r.sources;
    let mark = |b: bool| if b { "yes" } else { "no" };
    format!(
        "sources: atrace {}, FrameTimeline {}, FrameTracer {}, sched {}, process tree {}; API level {}",
        mark(s.atrace),
        mark(s.frame_timeline),
        mark(s.frame_tracer),
        mark(s.sched),
        mark(s.process_tree),
        r.api_level.map_or("?".into(), |a| a.to_string())
    )
}

fn process_title(p: &ProcessReport) -> String {
    format!(
        "{} (pid {}) — {} frames, median frame budget {:.1} ms ({})",
        p.name.clone().unwrap_or_else(|| "<unnamed>".into())
            + if p.name_source == Some("layer") {
                " [name from layer]"
            } else {
                ""
            },
        p.pid,
        p.frames,
        p.budget_ms,
        p.budget_source
    )
}

/// The trace's verdict header: metric version, trust, refresh rates.
fn verdict_header(r: &AnalyzeReport) -> Vec<String> {
    let range = r.range.iter().map(|range| range.header());
    range
        .chain([
            format!("metric version: {}", r.metric_version),
            format!("trust: {}", verdicts::trust_line(&r.trust)),
            format!(
                "refresh rates: {}",
                verdicts::refresh_line(&r.refresh_rates, Some(r.vsync_period_source))
            ),
        ])
        .collect()
}

/// The process's trust and refresh rates, under its title.
fn process_verdict_lines(p: &ProcessReport) -> Vec<String> {
    vec![
        format!("trust: {}", verdicts::trust_line(&p.trust)),
        format!(
            "refresh rates: {}",
            verdicts::refresh_line(&p.refresh_rates, None)
        ),
    ]
}

pub fn render_table(r: &AnalyzeReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace: {}\n{}", r.trace, sources_line(r));
    for l in verdict_header(r) {
        let _ = writeln!(out, "{l}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if r.processes.is_empty() {
        let _ = writeln!(out, "\nno frames found for the selected processes");
    }
    for p in &r.processes {
        let _ = writeln!(out, "\n{}", process_title(p));
        for l in process_verdict_lines(p) {
            let _ = writeln!(out, "{l}");
        }
        let _ = writeln!(out, "{}", super::grid(layer_rows(p)));
        if let Some(m) = &p.macrobenchmark {
            let _ = writeln!(out, "Macrobenchmark: {}", macro_line(m));
        }
        if let Some(s) = &p.perfetto_frame_stats {
            let _ = writeln!(
                out,
                "Perfetto android_frame_stats: {} frames, was_jank {}, was_slow_frame {}, was_big_jank {}, was_huge_jank {}",
                s.frames, s.was_jank, s.was_slow_frame, s.was_big_jank, s.was_huge_jank
            );
        }
        if let Some(h) = &p.hwui {
            let _ = writeln!(out, "{}", hwui_line(h));
        }
        if let Some(c) = &p.causes {
            let _ = writeln!(out, "{}", causes_text::top_title(c));
            let _ = writeln!(out, "{}", super::grid(causes_text::top_rows(c)));
        }
        if !p.interactions.is_empty() {
            let _ = writeln!(
                out,
                "interactions (janky frames flagged/judged by each definition):"
            );
            let _ = writeln!(
                out,
                "{}",
                super::grid(interactions_text::rows(&p.interactions))
            );
        }
        for n in &p.notes {
            let _ = writeln!(out, "note: {n}");
        }
        for (i, rec) in p.reconciliation.iter().enumerate() {
            let _ = writeln!(out, "reconciliation, {}:", verdicts::scope(rec));
            let _ = writeln!(out, "{}", super::grid(verdicts::rows(rec)));
            for l in verdicts::disagreement_lines(rec, if i == 0 { 3 } else { 0 }) {
                let _ = writeln!(out, "{l}");
            }
        }
        if !p.worst_frames.is_empty() {
            let _ = writeln!(out, "worst frames:");
            for (i, f) in p.worst_frames.iter().enumerate() {
                let _ = writeln!(out, "  {}. {}", i + 1, frame_line(f));
                if let Some(b) = &f.blame {
                    let _ = writeln!(out, "     blame: {}", b.explanation);
                }
                if let Some(c) = &f.causes {
                    let _ = writeln!(out, "     causes: {}", c.sentence);
                    let _ = writeln!(out, "     {}", causes_text::timeline(c));
                }
            }
        }
    }
    // A name that slipped through unescaped still cannot drive the terminal.
    super::visible::visible_lines(&out).into_owned()
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub fn md_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| md_escape(c)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
        if i == 0 {
            let _ = writeln!(out, "|{}|", vec!["---"; r.len()].join("|"));
        }
    }
    out
}

pub fn render_markdown(r: &AnalyzeReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## frameprobe analyze: `{}`\n\n{}\n",
        md_escape(&r.trace),
        sources_line(r)
    );
    for l in verdict_header(r) {
        let _ = writeln!(out, "- {}", md_escape(&l));
    }
    out.push('\n');
    for p in &r.processes {
        let _ = writeln!(out, "### {}\n", md_escape(&process_title(p)));
        for l in process_verdict_lines(p) {
            let _ = writeln!(out, "- {}", md_escape(&l));
        }
        out.push('\n');
        out.push_str(&md_table(&layer_rows(p)));
        out.push('\n');
        if let Some(m) = &p.macrobenchmark {
            let _ = writeln!(out, "- Macrobenchmark: {}", md_escape(&macro_line(m)));
        }
        if let Some(h) = &p.hwui {
            let _ = writeln!(out, "- {}", md_escape(&hwui_line(h)));
        }
        if let Some(c) = &p.causes {
            let _ = writeln!(out, "\n{}\n", md_escape(&causes_text::top_title(c)));
            out.push_str(&md_table(&causes_text::top_rows(c)));
            out.push('\n');
        }
        if !p.interactions.is_empty() {
            let _ = writeln!(
                out,
                "\nInteractions (janky frames flagged/judged by each definition):\n"
            );
            out.push_str(&md_table(&interactions_text::rows(&p.interactions)));
            out.push('\n');
        }
        for n in &p.notes {
            let _ = writeln!(out, "- note: {}", md_escape(n));
        }
        for (i, rec) in p.reconciliation.iter().enumerate() {
            let _ = writeln!(
                out,
                "\n**Reconciliation, {}**\n",
                md_escape(&verdicts::scope(rec))
            );
            out.push_str(&md_table(&verdicts::rows(rec)));
            out.push('\n');
            for l in verdicts::disagreement_lines(rec, if i == 0 { 3 } else { 0 }) {
                // Kinds and examples are indented under the count: nested list items.
                let bullet = if l.starts_with(' ') { "  - " } else { "- " };
                let _ = writeln!(out, "{bullet}{}", md_escape(l.trim_start()));
            }
        }
        if !p.worst_frames.is_empty() {
            let _ = writeln!(out, "\n<details><summary>Worst frames</summary>\n");
            for f in &p.worst_frames {
                let _ = writeln!(out, "- {}", md_escape(&frame_line(f)));
                if let Some(b) = &f.blame {
                    let _ = writeln!(out, "  - {}", md_escape(&b.explanation));
                }
                if let Some(c) = &f.causes {
                    let _ = writeln!(out, "  - causes: {}", md_escape(&c.sentence));
                    let _ = writeln!(out, "  - {}", md_escape(&causes_text::timeline(c)));
                }
            }
            let _ = writeln!(out, "\n</details>\n");
        }
    }
    out
}
