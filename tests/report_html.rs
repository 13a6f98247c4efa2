//! `frameprobe report` end to end on generated traces: one bar per frame, the size bound for
//! a 2,000-frame trace, self-containment, escaping of every name that comes from the trace,
//! the worst frames' blame, and the compare page.

mod common;

use std::path::{Path, PathBuf};

use frameprobe_tools::synth::{generate, SynthConfig};
use serde_json::Value;

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frameprobe-report-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write_trace(dir: &Path, name: &str, cfg: &SynthConfig) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, generate(cfg).bytes).unwrap();
    p
}

/// Runs `frameprobe report` and returns the page.
fn report(args: &[&str], out: &Path) -> String {
    let mut a = vec!["report"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["-o", out.to_str().unwrap()]);
    let r = common::run(&a);
    assert!(
        r.status.success(),
        "report failed: {}",
        String::from_utf8_lossy(&r.stderr)
    );
    std::fs::read_to_string(out).unwrap()
}

/// The timeline bars: (class, data-frame) of every `<path ... data-frame=...>` in the page.
fn bars(html: &str) -> Vec<(String, String)> {
    let attr = |tag: &str, name: &str| -> String {
        let key = format!("{name}=\"");
        tag.find(&key)
            .map(|i| {
                let rest = &tag[i + key.len()..];
                rest[..rest.find('"').unwrap()].to_string()
            })
            .unwrap_or_default()
    };
    html.split("<path ")
        .skip(1)
        .map(|s| &s[..s.find('>').unwrap()])
        .filter(|t| t.contains("data-frame="))
        .map(|t| (attr(t, "class"), attr(t, "data-frame")))
        .collect()
}

fn analyze_json(trace: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", trace.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = common::run(&args);
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Nothing is loaded from anywhere: no scripts, style sheets, fonts, images or links out.
fn assert_self_contained(html: &str) {
    let lower = html.to_lowercase();
    for bad in [
        "<script", "<link", "<img", "<iframe", "@import", "url(", "src=", "https://",
    ] {
        assert!(!lower.contains(bad), "page contains {bad:?}");
    }
    // The only http:// is the SVG namespace.
    assert_eq!(
        lower.matches("http://").count(),
        lower
            .matches("xmlns=\"http://www.w3.org/2000/svg\"")
            .count()
    );
}

#[test]
fn two_thousand_frames_make_a_page_of_a_few_hundred_kb() {
    let dir = tmp("size");
    let trace = write_trace(
        &dir,
        "s2000.perfetto-trace",
        &SynthConfig {
            seed: 5,
            frames: 2000,
            jank_rate: 0.1,
            ..Default::default()
        },
    );
    let html = report(&[trace.to_str().unwrap()], &dir.join("r.html"));
    let size = html.len();
    println!("2,000-frame synthetic trace: page is {size} bytes");
    // About 260 KB of it is the timeline's 2,000 bars; the rest is the worst frames' cause
    // chains and blame, and the reconciliation tables.
    assert!(
        size <= 480 * 1024,
        "a 2,000-frame report should stay a few hundred KB, got {size} bytes"
    );
    assert_self_contained(&html);
    let b = bars(&html);
    assert_eq!(b.len(), 2000, "one bar per frame");
    // (Janky bars against analyze's count: see the smaller traces; analyze on 2,000 frames
    // is slow.)
    assert!(b.iter().any(|(c, _)| c.ends_with(" j")));
    // Every frame id appears once.
    let mut ids: Vec<&str> = b.iter().map(|(_, f)| f.as_str()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 2000);
}

#[test]
fn page_has_timeline_histogram_summary_and_worst_frames() {
    let dir = tmp("parts");
    let trace = write_trace(
        &dir,
        "t.perfetto-trace",
        &SynthConfig {
            seed: 3,
            frames: 200,
            jank_rate: 0.2,
            ..Default::default()
        },
    );
    let html = report(
        &[trace.to_str().unwrap(), "--top", "4"],
        &dir.join("r.html"),
    );
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(html.matches("<svg class=\"timeline\"").count(), 1);
    let b = bars(&html);
    assert_eq!(b.len(), 200);
    let r = analyze_json(&trace, &[]);
    let l = &r["processes"][0]["layers"][0];
    assert_eq!(
        b.iter().filter(|(c, _)| c.ends_with(" j")).count() as u64,
        l["janky"]["frames"].as_u64().unwrap()
    );
    assert_eq!(
        b.iter().filter(|(c, _)| c.starts_with("ts")).count() as u64,
        l["by_jank_tag"]["Self Jank"]["frames"].as_u64().unwrap()
    );
    assert_eq!(html.matches("<svg class=\"hist\"").count(), 1);
    for mark in ["P50", "P90", "P95", "P99"] {
        assert!(
            html.contains(&format!(">{mark}</text>")),
            "{mark} marked on the histogram"
        );
    }
    assert!(html.contains("class=\"budget\""), "budget line");
    // The summary table carries the LayerSummary fields.
    for k in [
        "Frames with FrameTimeline",
        "Janky (Self, Other Jank, Dropped)",
        "App deadline missed",
        "Slow frames (CPU over budget)",
        "Longest janky streak",
        "Present cadence",
        "Jank tag: Self Jank",
        "Jank reason: App Deadline Missed",
        "Overrun (frameOverrun)",
        "Actual (FrameTimeline)",
    ] {
        assert!(html.contains(k), "summary lacks {k:?}");
    }
    // Worst frames: as many as asked, each with its blame and facts.
    assert_eq!(html.matches("<details class=\"worst\"").count(), 4);
    assert!(html.contains("Where the time went"));
    assert!(html.contains("<svg class=\"stack\""));
    for k in [
        "Jank type",
        "Present type",
        "Display frame token",
        "Buffer id",
        "Frame number",
        "Match confidence",
        "Blamed side",
        "Hot spot (UI thread)",
    ] {
        assert!(html.contains(k), "worst frame facts lack {k:?}");
    }
    // The legend names the colours that are used.
    assert!(html.contains("<i style=\"background:#e53935\"></i>Self Jank"));
    // and counts every bar under its colour: the timeline's legend adds up to its frames.
    let legend = html
        .split_once("200 frames; bar height")
        .and_then(|(_, after)| after.split("<div class=\"legend\">").nth(1))
        .and_then(|l| l.split("</div>").next())
        .expect("the timeline has a legend");
    let counted: u64 = legend
        .split("</span>")
        .filter_map(|item| {
            item.rsplit_once(" (")?
                .1
                .strip_suffix(')')?
                .parse::<u64>()
                .ok()
        })
        .sum();
    assert_eq!(counted, 200, "legend {legend}");
}

#[test]
fn layer_filter_and_empty_selection() {
    let dir = tmp("filter");
    let trace = write_trace(&dir, "t.perfetto-trace", &SynthConfig::default());
    let html = report(
        &[trace.to_str().unwrap(), "--layer", "no-such-layer*"],
        &dir.join("r.html"),
    );
    assert!(html.contains("No frames found for the selected processes."));
    assert!(bars(&html).is_empty());
    let html = report(
        &[trace.to_str().unwrap(), "--layer", "*MainActivity*"],
        &dir.join("r2.html"),
    );
    assert_eq!(bars(&html).len(), 120);
}

#[test]
fn names_from_the_trace_are_html_escaped() {
    let dir = tmp("escape");
    let evil = "com.evil\"&<script>alert('x')";
    let trace = write_trace(
        &dir,
        "a&b<i>.perfetto-trace",
        &SynthConfig {
            process_name: evil.into(),
            frames: 90,
            jank_rate: 0.2,
            ..Default::default()
        },
    );
    let html = report(&[trace.to_str().unwrap()], &dir.join("r.html"));
    assert!(!html.contains("<script"), "raw <script> in the page");
    assert!(!html.contains(evil));
    assert!(!html.contains("alert('x')"));
    assert!(!html.contains("a&b<i>"));
    let escaped = "com.evil&quot;&amp;&lt;script&gt;alert(&#39;x&#39;)";
    // The layer (process name / process name .MainActivity) in headings, attributes,
    // tables, and the process name (from the process tree or guessed from the layer).
    assert!(html.contains(&format!(
        "<h4>Layer {escaped}/{escaped}.MainActivity#0</h4>"
    )));
    assert!(html.contains(&format!(
        "data-layer=\"{escaped}/{escaped}.MainActivity#0\""
    )));
    assert!(html.contains(&format!("<h3>{escaped} ")));
    assert!(html.contains("a&amp;b&lt;i&gt;.perfetto-trace"));
    // Still a working page.
    assert_eq!(bars(&html).len(), 90);
    assert_self_contained(&html);
}

#[test]
fn bad_arguments_are_errors() {
    let out = common::run(&["report", "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2), "no trace");
    let s = common::sample_trace();
    let out = common::run(&[
        "report",
        "--baseline",
        s.to_str().unwrap(),
        "--candidate",
        s.to_str().unwrap(),
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--process"));
    let out = common::run(&[
        "report",
        s.to_str().unwrap(),
        "--baseline",
        s.to_str().unwrap(),
        "-o",
        "/dev/null",
    ]);
    assert_eq!(out.status.code(), Some(2), "traces and --baseline conflict");
    let out = common::run(&["report", "/no/such.perfetto-trace", "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2));
}

fn write_set(dir: &Path, name: &str, jank_rate: f64) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for (i, seed) in [1u64, 2, 3].iter().enumerate() {
        write_trace(
            &d,
            &format!("ScrollBenchmark_scroll_iter{i:03}_2026-11-29-10-00-00.perfetto-trace"),
            &SynthConfig {
                seed: *seed,
                frames: 120,
                jank_rate,
                ..Default::default()
            },
        );
    }
    d
}

#[test]
fn compare_page_shows_both_sides_with_the_gate_numbers() {
    let dir = tmp("compare");
    let base = write_set(&dir, "base", 0.05);
    let cand = write_set(&dir, "cand", 0.35);
    // The gate finds the app by its process name, which needs the process-tree importer.
    let probe = analyze_json(
        &base.join("ScrollBenchmark_scroll_iter000_2026-11-29-10-00-00.perfetto-trace"),
        &[],
    );
    if probe["sources"]["process_tree"] != true {
        common::skip(
            "compare_page_shows_both_sides_with_the_gate_numbers",
            "this build does not import the process tree, so the gate cannot find \
             com.example.scroller by name",
        );
        return;
    }
    let out = dir.join("cmp.html");
    let html = report(
        &[
            "--baseline",
            base.to_str().unwrap(),
            "--candidate",
            cand.to_str().unwrap(),
            "--process",
            "com.example.scroller",
            "--jobs",
            "2",
        ],
        &out,
    );
    assert_self_contained(&html);
    let gate = common::run(&[
        "compare",
        "--baseline",
        base.to_str().unwrap(),
        "--candidate",
        cand.to_str().unwrap(),
        "--process",
        "com.example.scroller",
        "--format",
        "json",
        "--jobs",
        "2",
    ]);
    let g: Value = serde_json::from_slice(&gate.stdout).unwrap();
    assert_eq!(g["outcome"], "fail", "the injected regression");
    assert!(html.contains(">FAIL</span>"));
    assert_eq!(html.matches("<svg class=\"hist\"").count(), 4);
    assert!(html.contains("frameDurationCpuMs — baseline (360 frames)"));
    assert!(html.contains("<svg class=\"pairs\""));
    // Every metric row shows run_compare's numbers.
    for m in g["tests"][0]["metrics"].as_array().unwrap() {
        let name = m["metric"].as_str().unwrap();
        let fmt = |v: &Value| v.as_f64().map_or("n/a".into(), |x| format!("{x:.2}"));
        let row = format!(
            "<th>{}</th><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>",
            name.replace('&', "&amp;"),
            m["unit"].as_str().unwrap(),
            fmt(&m["baseline"]),
            fmt(&m["candidate"])
        );
        assert!(html.contains(&row), "missing {row}");
    }
    assert!(html.contains("REGRESSION"));
}

#[test]
fn blame_bars_and_thread_states_are_drawn_from_the_report() {
    use frameprobe::analysis::blame::{Measure, StateSplitMs};
    use frameprobe::analysis::{analyze, AnalyzeOptions};
    let dir = tmp("blame");
    let trace = write_trace(
        &dir,
        "t.perfetto-trace",
        &SynthConfig {
            seed: 9,
            frames: 150,
            jank_rate: 0.2,
            ..Default::default()
        },
    );
    let loaded =
        frameprobe::import::load(&trace, frameprobe::cli::analyze::analysis_load_options())
            .unwrap();
    let opts = AnalyzeOptions {
        top: 3,
        all_frames: true,
        ..Default::default()
    };
    let mut r = analyze(&loaded.store, &opts, "t.perfetto-trace");
    let p = &mut r.processes[0];
    assert_eq!(p.all_frames.len(), 150);
    let f = &mut p.worst_frames[0];
    let b = f
        .blame
        .as_mut()
        .expect("the worst frame is janky and blamed");
    // Whatever this build's importers give, draw all four parts and the state split.
    let m = |ms: f64, source: &str| Measure {
        ms,
        source: source.into(),
    };
    b.ui_thread = Some(m(21.5, "doFrame slice 1"));
    b.render_thread = Some(m(4.25, "DrawFrame <slice> 2"));
    b.gpu_wait = Some(m(2.0, "GPU_ phase"));
    b.surfaceflinger = Some(m(9.0, "SF_ phase"));
    b.ui_thread_states = Some(StateSplitMs {
        running_ms: 12.0,
        runnable_ms: 6.5,
        sleeping_ms: 2.0,
        uninterruptible_ms: 1.0,
        unknown_ms: 0.0,
    });
    b.explanation = "App: \"<slow & steady>\"".into();
    let html = frameprobe::report::html::render_analyze(&[r]);
    let first = &html[html.find("<details class=\"worst\"").unwrap()..];
    let first = &first[..first.find("</details>").unwrap()];
    // The cause chain's breakdown bar follows blame's bars.
    let (first, causes) = first.split_at(first.find("<div class=\"causes\">").unwrap());
    assert_eq!(causes.matches("<svg class=\"stack\"").count(), 1);
    // The blame bar: four segments; the state bar: five (unknown is 0 and not drawn).
    let stacks: Vec<&str> = first.split("<svg class=\"stack\"").skip(1).collect();
    assert_eq!(stacks.len(), 2);
    for (label, v) in [
        ("UI thread", "21.50"),
        ("RenderThread", "4.25"),
        ("GPU wait", "2.00"),
        ("SurfaceFlinger", "9.00"),
    ] {
        assert!(
            stacks[0].contains(&format!("<title>{label} {v} ms</title>")),
            "{label}"
        );
    }
    for (label, v) in [
        ("Running", "12.00"),
        ("Runnable", "6.50"),
        ("Sleeping", "2.00"),
        ("Uninterruptible", "1.00"),
    ] {
        assert!(
            stacks[1].contains(&format!("<title>{label} {v} ms</title>")),
            "{label}"
        );
        assert!(
            first.contains(&format!("{label} {v} ms</span>")),
            "legend {label}"
        );
    }
    assert!(first.contains("DrawFrame &lt;slice&gt; 2"));
    assert!(first.contains("App: &quot;&lt;slow &amp; steady&gt;&quot;"));
    assert!(!html.contains("<slow"));
}
