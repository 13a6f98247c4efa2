//! The compare page: baseline against candidate for one package, per test. The numbers and
//! verdicts are `gate::run_compare`'s; this page only draws them, with the per-frame values of
//! both sides as side-by-side histograms on one scale.

use std::fmt::Write;

use super::svg::{self, Histogram};
use super::{esc, page};
use crate::gate::compare::{Comparison, Verdict};
use crate::gate::measure::Iteration;
use crate::gate::{CompareReport, IterationInfo, Pcts};

pub const BASE_COLOUR: &str = "#607d8b";
pub const CAND_COLOUR: &str = "#ef6c00";

/// The per-frame values of one test on both sides (Macrobenchmark's frames, pooled over the
/// iterations the gate used).
#[derive(Debug, Clone, Default)]
pub struct CompareDistributions {
    pub test: String,
    pub baseline_cpu_ms: Vec<f64>,
    pub candidate_cpu_ms: Vec<f64>,
    pub baseline_overrun_ms: Vec<f64>,
    pub candidate_overrun_ms: Vec<f64>,
}

fn cpu(its: &[Iteration]) -> Vec<f64> {
    its.iter()
        .filter(|i| i.process_found)
        .flat_map(|i| &i.mb_frames)
        .map(|f| f.0 as f64 / 1e6)
        .collect()
}

fn overrun(its: &[Iteration]) -> Vec<f64> {
    its.iter()
        .filter(|i| i.process_found)
        .flat_map(|i| &i.mb_frames)
        .filter_map(|f| f.1.map(|o| o as f64 / 1e6))
        .collect()
}

impl CompareDistributions {
    pub fn new(test: &str, baseline: &[Iteration], candidate: &[Iteration]) -> Self {
        CompareDistributions {
            test: test.to_string(),
            baseline_cpu_ms: cpu(baseline),
            candidate_cpu_ms: cpu(candidate),
            baseline_overrun_ms: overrun(baseline),
            candidate_overrun_ms: overrun(candidate),
        }
    }
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Regression => "REGRESSION",
        Verdict::Improvement => "improvement",
        Verdict::NoSignificantChange => "no significant change",
        Verdict::Informational => "(info)",
        Verdict::CannotEvaluate => "cannot evaluate",
    }
}

fn num(v: Option<f64>) -> String {
    v.map_or("n/a".into(), |x| format!("{x:.2}"))
}

fn marks(p: &Option<Pcts>) -> Vec<(&'static str, f64)> {
    p.as_ref().map_or_else(Vec::new, |p| {
        vec![
            ("P50", p.p50),
            ("P90", p.p90),
            ("P95", p.p95),
            ("P99", p.p99),
        ]
    })
}

fn iterations_rows(o: &mut String, side: &str, its: &[IterationInfo]) {
    let frames: usize = its.iter().map(|i| i.frames).sum();
    let tl: usize = its.iter().map(|i| i.timeline_frames).sum();
    let per: Vec<String> = its.iter().map(|i| i.frames.to_string()).collect();
    let _ = write!(
        o,
        "<tr><th>{side}</th><td class=\"n\">{}</td><td class=\"n\">{frames}</td><td class=\"n\">{tl}</td><td>{}</td></tr>",
        its.len(),
        esc(&per.join(" "))
    );
    for i in its {
        if !i.process_found {
            let _ = write!(
                o,
                "<tr><td colspan=\"5\" class=\"warn\">{side}: {} — the process was not found</td></tr>",
                esc(&i.path)
            );
        } else if let Some(p) = &i.problem {
            let _ = write!(
                o,
                "<tr><td colspan=\"5\" class=\"warn\">{side}: {} — {}</td></tr>",
                esc(&i.path),
                esc(p)
            );
        }
    }
}

fn metrics_table(o: &mut String, ms: &[Comparison]) {
    o.push_str(
        "<table class=\"metrics\"><thead><tr><th>metric</th><th>unit</th><th>baseline</th><th>candidate</th>\
         <th>difference</th><th>relative</th><th>confidence interval</th><th>verdict</th></tr></thead><tbody>",
    );
    for m in ms {
        let class = match m.verdict {
            Verdict::Regression => " class=\"verdict-regression\"",
            Verdict::Improvement => " class=\"verdict-improvement\"",
            _ => "",
        };
        let _ = write!(
            o,
            "<tr{class}><th>{}</th><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&m.metric),
            esc(m.unit),
            num(m.baseline),
            num(m.candidate),
            num(m.difference),
            m.relative_pct.map_or("n/a".into(), |r| format!("{r:+.1}%")),
            match (m.ci_low, m.ci_high) {
                (Some(a), Some(b)) => format!("[{a:.2}, {b:.2}]"),
                _ => "n/a".into(),
            },
            verdict_text(m.verdict)
        );
    }
    o.push_str("</tbody></table>");
}

/// Baseline and candidate histograms side by side, on one x range and one y scale.
fn pair_of_histograms(
    o: &mut String,
    what: &str,
    base: &[f64],
    cand: &[f64],
    base_marks: &[(&str, f64)],
    cand_marks: &[(&str, f64)],
    bad_above: Option<f64>,
) {
    if base.is_empty() && cand.is_empty() {
        let _ = write!(
            o,
            "<p class=\"note\">{}: no values on either side.</p>",
            esc(what)
        );
        return;
    }
    let mut all: Vec<f64> = base.iter().chain(cand).copied().collect();
    all.sort_by(f64::total_cmp);
    let p99 = crate::analysis::frame_timing::percentile(&all, 99);
    let (lo, hi) = svg::hist_range(&all, p99, None);
    let bins = 40;
    let ymax = svg::bin_counts(base, lo, hi, bins)
        .into_iter()
        .chain(svg::bin_counts(cand, lo, hi, bins))
        .max()
        .unwrap_or(1);
    o.push_str("<div class=\"row\">");
    for (side, values, m, colour) in [
        ("baseline", base, base_marks, BASE_COLOUR),
        ("candidate", cand, cand_marks, CAND_COLOUR),
    ] {
        let title = format!("{what} — {side} ({} frames)", values.len());
        o.push_str(&svg::histogram(&Histogram {
            title: &title,
            values,
            lo,
            hi,
            bins,
            marks: m,
            budget: None,
            bad_above,
            x_label: "ms",
            y_max: Some(ymax),
            colour,
        }));
    }
    o.push_str("</div>");
}

/// The compare page. `dists` gives the per-frame values for each test of `r` (matched by
/// test name; a test without them is drawn without histograms); `diff`, when given, adds
/// what changed per interaction.
pub fn render_compare(
    r: &CompareReport,
    dists: &[CompareDistributions],
    diff: Option<&crate::diff::DiffReport>,
) -> String {
    let mut o = String::new();
    o.push_str("<h1>frameprobe compare report</h1>");
    let colour = match r.outcome {
        "pass" => "#2e7d32",
        "fail" => "#c62828",
        _ => "#6d4c41",
    };
    let _ = write!(
        o,
        "<p>Process <code>{}</code>: gate outcome <span class=\"pill\" style=\"background:{colour}\">{}</span> \
         (exit code {} from <code>frameprobe compare</code>)</p>",
        esc(&r.process),
        esc(&r.outcome.to_uppercase()),
        r.exit_code
    );
    let t = &r.thresholds;
    let _ = write!(
        o,
        "<p class=\"meta\">A regression needs a change of at least {} ms / {} percentage points / {} frames and \
         {}% of the baseline, with the {:.0}% bootstrap confidence interval ({} resamples, seed {}) excluding zero.</p>",
        t.abs_ms,
        t.abs_pct_points,
        t.abs_frames,
        t.rel_pct,
        t.confidence * 100.0,
        t.resamples,
        t.seed
    );
    o.push_str(&svg::legend([
        (BASE_COLOUR, "baseline"),
        (CAND_COLOUR, "candidate"),
        ("#e57373", "over the deadline (overrun > 0)"),
    ]));
    if !r.errors.is_empty() {
        o.push_str("<ul>");
        for e in &r.errors {
            let _ = write!(o, "<li class=\"err\">{}</li>", esc(e));
        }
        o.push_str("</ul>");
    }
    if r.tests.is_empty() {
        o.push_str("<p class=\"err\">Nothing to compare.</p>");
    }
    for t in &r.tests {
        let _ = write!(
            o,
            "<section class=\"process\" data-test=\"{}\"><h2>{}</h2>",
            esc(&t.test),
            esc(&t.test)
        );
        o.push_str(
            "<table><thead><tr><th>side</th><th>iterations</th><th>frames</th><th>FrameTimeline frames</th>\
             <th>frames per iteration</th></tr></thead><tbody>",
        );
        iterations_rows(&mut o, "baseline", &t.baseline);
        iterations_rows(&mut o, "candidate", &t.candidate);
        o.push_str("</tbody></table>");
        let _ = write!(
            o,
            "<p class=\"meta\">Baseline Macrobenchmark: {}<br>Candidate Macrobenchmark: {}</p>",
            esc(&crate::report::gate::macro_text(&t.baseline_macrobenchmark)),
            esc(&crate::report::gate::macro_text(
                &t.candidate_macrobenchmark
            ))
        );
        metrics_table(&mut o, &t.metrics);
        o.push_str("<h4>Distributions</h4>");
        match dists.iter().find(|d| d.test == t.test) {
            Some(d) => {
                pair_of_histograms(
                    &mut o,
                    "frameDurationCpuMs",
                    &d.baseline_cpu_ms,
                    &d.candidate_cpu_ms,
                    &marks(&t.baseline_macrobenchmark.frame_duration_cpu_ms),
                    &marks(&t.candidate_macrobenchmark.frame_duration_cpu_ms),
                    None,
                );
                pair_of_histograms(
                    &mut o,
                    "frameOverrunMs",
                    &d.baseline_overrun_ms,
                    &d.candidate_overrun_ms,
                    &marks(&t.baseline_macrobenchmark.frame_overrun_ms),
                    &marks(&t.candidate_macrobenchmark.frame_overrun_ms),
                    Some(0.0),
                );
            }
            None => o.push_str("<p class=\"note\">No per-frame values for this test.</p>"),
        }
        let rates: Vec<(String, Option<f64>, Option<f64>)> = t
            .metrics
            .iter()
            .filter(|m| m.metric.starts_with("jank_rate_pct"))
            .map(|m| {
                let label = m
                    .metric
                    .strip_prefix("jank_rate_pct[")
                    .and_then(|s| s.strip_suffix(']'))
                    .unwrap_or("all janky");
                (label.to_string(), m.baseline, m.candidate)
            })
            .collect();
        if !rates.is_empty() {
            o.push_str("<div class=\"row\">");
            o.push_str(&svg::paired_bars(
                "Jank rates (FrameTimeline frames)",
                &rates,
                "% of FrameTimeline frames",
                (BASE_COLOUR, CAND_COLOUR),
            ));
            o.push_str("</div>");
        }
        o.push_str("</section>\n");
    }
    if let Some(d) = diff {
        o.push_str(&super::diff::diff_section(d));
    }
    page(&format!("frameprobe compare report: {}", r.process), &o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::compare::{compare, Thresholds};
    use crate::gate::metrics::compare_set;
    use crate::gate::{macrobenchmark_metrics, TestComparison, ThresholdsOut};

    fn iteration(seed: i64, slow: i64) -> Iteration {
        let mb_frames = (0..120)
            .map(|i| {
                let cpu = 6_000_000 + ((i * 7919 + seed) % 3_000_000) + slow * (i % 5) * 1_000_000;
                (cpu, Some(cpu - 16_000_000))
            })
            .collect();
        let timeline_tags = (0..120)
            .map(|i| {
                if i % (10 - slow as usize) == 0 {
                    "Self Jank"
                } else {
                    "No Jank"
                }
                .to_string()
            })
            .collect();
        Iteration {
            path: format!("it{seed}.perfetto-trace").into(),
            package: "com.example.app".into(),
            iteration: None,
            mb_frames,
            timeline_tags,
            analyzed: Default::default(),
            process_found: true,
            api_level: 34,
            problem: None,
            trust_reasons: Vec::new(),
            warnings: Vec::new(),
            range: None,
        }
    }

    /// A report shaped as run_compare's, from hand-made iterations (the gate's own
    /// statistics, no traces needed).
    fn report(test: &str, process: &str) -> (CompareReport, Vec<CompareDistributions>) {
        let b: Vec<Iteration> = (0..3).map(|s| iteration(s, 0)).collect();
        let c: Vec<Iteration> = (0..3).map(|s| iteration(s, 4)).collect();
        let th = Thresholds {
            resamples: 50,
            ..Default::default()
        };
        let br: Vec<&Iteration> = b.iter().collect();
        let cr: Vec<&Iteration> = c.iter().collect();
        let metrics: Vec<_> = compare_set()
            .into_iter()
            .map(|m| compare(m, &br, &cr, &th))
            .collect();
        let info = |i: &Iteration| IterationInfo {
            path: i.path.display().to_string(),
            iteration: None,
            package: process.into(),
            process_found: true,
            frames: i.mb_frames.len(),
            timeline_frames: i.timeline_tags.len(),
            api_level: 34,
            problem: None,
            trust: crate::analysis::trust::Trust::of(Vec::new()),
            range: None,
        };
        let r = CompareReport {
            schema: "frameprobe.compare/v1",
            tool_version: "test",
            metric_version: crate::analysis::definitions::METRIC_VERSION,
            process: process.into(),
            process_inferred: false,
            outcome: "fail",
            exit_code: 1,
            thresholds: ThresholdsOut {
                abs_ms: th.abs_ms,
                abs_pct_points: th.abs_pct,
                abs_frames: th.abs_frames,
                rel_pct: th.rel_pct,
                confidence: th.confidence,
                resamples: th.resamples,
                seed: th.seed,
            },
            tests: vec![TestComparison {
                test: test.into(),
                baseline: b.iter().map(info).collect(),
                candidate: c.iter().map(info).collect(),
                baseline_macrobenchmark: macrobenchmark_metrics(&br),
                candidate_macrobenchmark: macrobenchmark_metrics(&cr),
                metrics,
            }],
            errors: vec!["candidate: x.perfetto-trace: <bad & \"odd\">".into()],
            warnings: Vec::new(),
        };
        let d = vec![CompareDistributions::new(test, &b, &c)];
        (r, d)
    }

    #[test]
    fn compare_page_draws_both_distributions_and_the_gate_verdicts() {
        let (r, d) = report("Scroll<Benchmark>_scroll", "com.example&co");
        let html = render_compare(&r, &d, None);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(!html.contains("<script"));
        // Two histograms per distribution, side by side, with the gate's percentiles.
        assert_eq!(html.matches("<svg class=\"hist\"").count(), 4);
        assert!(html.contains("frameDurationCpuMs — baseline (360 frames)"));
        assert!(html.contains("frameDurationCpuMs — candidate (360 frames)"));
        assert!(html.contains("frameOverrunMs — candidate"));
        let p = r.tests[0]
            .candidate_macrobenchmark
            .frame_duration_cpu_ms
            .as_ref()
            .unwrap();
        assert!(html.contains(&format!("<title>P90 {:.2}</title>", p.p90)));
        // Jank rates as paired bars, from run_compare's metrics.
        assert!(html.contains("<svg class=\"pairs\""));
        assert!(html.contains("Self Jank baseline:"));
        // The regression rows are marked, and every metric is listed.
        assert!(html.contains("class=\"verdict-regression\""));
        assert_eq!(
            html.matches("<tr class=\"verdict-").count()
                + html.matches("<tr><th>frame_").count()
                + html.matches("<tr><th>jank_").count()
                + html.matches("<tr><th>frozen").count(),
            r.tests[0].metrics.len()
        );
        // Names are escaped.
        assert!(html.contains("Scroll&lt;Benchmark&gt;_scroll"));
        assert!(html.contains("com.example&amp;co"));
        assert!(html.contains("&lt;bad &amp; &quot;odd&quot;&gt;"));
        assert!(!html.contains("<bad"));
    }

    #[test]
    fn a_test_without_values_says_so() {
        let (r, _) = report("t", "p");
        let html = render_compare(&r, &[], None);
        assert!(html.contains("No per-frame values for this test."));
    }
}
