//! `analyze` and `frames` end to end on generated traces whose every frame is known: the
//! generator's plan is the ground truth the report must reproduce.

mod common;

use frameprobe_tools::synth::{generate, PlannedFrame, SynthConfig};
use serde_json::Value;

fn write_trace(name: &str, cfg: &SynthConfig) -> (std::path::PathBuf, Vec<PlannedFrame>) {
    let t = generate(cfg);
    let dir = std::env::temp_dir().join(format!("frameprobe-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, &t.bytes).unwrap();
    (p, t.frames)
}

fn analyze_json(trace: &std::path::Path, extra: &[&str]) -> Value {
    let mut args = vec!["analyze", trace.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = common::run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Macrobenchmark's percentile, written out independently of the crate.
fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let ideal = p / 100.0 * (v.len() - 1) as f64;
    let i = ideal as usize;
    let b = if i + 1 < v.len() { v[i + 1] } else { v[i] };
    v[i] + (b - v[i]) * (ideal - i as f64)
}

fn approx(a: &Value, b: f64) {
    let a = a.as_f64().unwrap_or(f64::NAN);
    assert!((a - b).abs() < 1e-3, "{a} != {b}");
}

#[test]
fn full_trace_reproduces_the_planned_frames() {
    let cfg = SynthConfig {
        seed: 11,
        frames: 150,
        jank_rate: 0.15,
        ..Default::default()
    };
    let (path, plan) = write_trace("full.perfetto-trace", &cfg);
    let r = analyze_json(&path, &[]);
    assert_eq!(r["schema"], "frameprobe.analyze/v1");
    assert_eq!(r["sources"]["atrace"], true);
    assert_eq!(r["sources"]["frame_timeline"], true);
    assert_eq!(r["sources"]["sched"], true);
    let procs = r["processes"].as_array().unwrap();
    let p = procs
        .iter()
        .find(|p| p["pid"] == 4242)
        .expect("the app is reported");
    assert_eq!(p["name"], "com.example.scroller");
    assert_eq!(p["frames"], 150);
    let layer = &p["layers"][0];
    let late = plan.iter().filter(|f| f.jank_type == 64).count();
    let stuffed = plan.iter().filter(|f| f.jank_type == 128).count();
    assert!(late > 5, "the seed produces janky frames");
    assert_eq!(layer["by_jank_tag"]["Self Jank"]["frames"], late);
    assert_eq!(layer["by_jank_tag"]["Buffer Stuffing"]["frames"], stuffed);
    assert_eq!(layer["janky"]["frames"], late);
    approx(
        &layer["janky"]["rate_pct"],
        (late as f64 * 10000.0 / 150.0).round() / 100.0,
    );
    assert_eq!(layer["deadline_missed"]["frames"], late);

    let ui: Vec<f64> = plan
        .iter()
        .map(|f| (f.ui_end - f.ui_start) as f64 / 1e6)
        .collect();
    let cpu: Vec<f64> = plan
        .iter()
        .map(|f| (f.rt_end - f.ui_start) as f64 / 1e6)
        .collect();
    let over: Vec<f64> = plan
        .iter()
        .map(|f| (f.actual_end.max(f.rt_end) - f.expected_end) as f64 / 1e6)
        .collect();
    for (key, v) in [("ui_ms", &ui), ("cpu_ms", &cpu), ("overrun_ms", &over)] {
        for p_ in [50.0, 90.0, 95.0, 99.0] {
            approx(
                &layer["durations"][key][format!("p{}", p_ as u32)],
                pct(v.clone(), p_),
            );
        }
    }
    // Longest run of consecutive late frames in the plan.
    let mut best = 0;
    let mut run = 0;
    for f in &plan {
        run = if f.jank_type == 64 { run + 1 } else { 0 };
        best = best.max(run);
    }
    assert_eq!(layer["longest_janky_streak"], best);
    approx(&layer["present_cadence"]["effective_hz"], 60.0);

    // Macrobenchmark counts every frame here (ids line up) with the same values.
    let mb = &p["macrobenchmark"];
    assert_eq!(mb["frameCount"], 150);
    approx(&mb["frameDurationCpuMs"]["p90"], pct(cpu.clone(), 90.0));
    approx(&mb["frameOverrunMs"]["p99"], pct(over.clone(), 99.0));

    // The worst frame is a slowed one; its UI thread was preempted for the planned time.
    let worst = &p["worst_frames"][0];
    let planned = plan
        .iter()
        .find(|f| Some(f.vsync_id) == worst["frame_id"].as_i64())
        .unwrap();
    assert!(planned.slowed);
    let b = &worst["blame"];
    assert_eq!(b["side"], "app");
    approx(
        &b["ui_thread"]["ms"],
        ((planned.ui_end - planned.ui_start) as f64 / 1e4).round() / 100.0,
    );
    approx(
        &b["ui_thread_states"]["runnable_ms"],
        (planned.ui_runnable_ns as f64 / 1e4).round() / 100.0,
    );
    assert!(b["hot_spots"]
        .as_array()
        .unwrap()
        .iter()
        .any(|h| h["name"] == "traversal"));
    assert_eq!(worst["buffer"]["confidence"], "high");
    approx(
        &b["gpu_wait"]["ms"],
        (cfg.gpu_work_ns as f64 / 1e4).round() / 100.0,
    );
}

#[test]
fn frame_timeline_only_trace_still_gives_frames() {
    let cfg = SynthConfig {
        seed: 3,
        frames: 90,
        atrace: false,
        sched: false,
        ..Default::default()
    };
    let (path, plan) = write_trace("ft_only.perfetto-trace", &cfg);
    let r = analyze_json(&path, &["--process", "4242"]);
    assert_eq!(r["sources"]["atrace"], false);
    let p = &r["processes"][0];
    assert_eq!(p["frames"], 90);
    let late = plan.iter().filter(|f| f.jank_type == 64).count();
    assert_eq!(p["layers"][0]["janky"]["frames"], late);
    assert!(p["layers"][0]["durations"]["ui_ms"].is_null());
    assert!(p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("no atrace")));
}

#[test]
fn without_frame_timeline_overrun_is_not_available() {
    let cfg = SynthConfig {
        seed: 5,
        frames: 60,
        frame_timeline: false,
        frame_tracer: false,
        sdk_version: 28,
        ..Default::default()
    };
    let (path, plan) = write_trace("legacy.perfetto-trace", &cfg);
    let r = analyze_json(&path, &[]);
    assert_eq!(r["sources"]["frame_timeline"], false);
    let p = &r["processes"][0];
    assert_eq!(p["frames"], 60);
    let l = &p["layers"][0];
    assert!(
        l["durations"]["overrun_ms"].is_null(),
        "no zeros when overrun is unknown"
    );
    assert!(p["macrobenchmark"]["frameOverrunMs"].is_null());
    // Before API 31 Macrobenchmark pairs a DrawFrame with the doFrame containing its start.
    let paired = plan
        .iter()
        .filter(|f| f.rt_start >= f.ui_start && f.rt_start <= f.ui_end)
        .count();
    assert!(paired >= 55);
    assert_eq!(p["macrobenchmark"]["frameCount"], paired);
    // Slow frames are judged by CPU time against 60 Hz.
    let slow = plan
        .iter()
        .filter(|f| f.rt_end - f.ui_start > 16_666_667)
        .count();
    assert_eq!(l["slow_frames"]["frames"], slow);
    // Perfetto's frames for devices without FrameTimeline: each doFrame owns the DrawFrames
    // starting before the next doFrame, and lasts until the last of them ends.
    let mut want = Vec::new();
    for (i, f) in plan.iter().enumerate() {
        let next = plan.get(i + 1).map_or(i64::MAX, |n| n.ui_start);
        let owned = plan
            .iter()
            .filter(|r| r.rt_start >= f.ui_start && r.rt_start < next);
        if let Some(end) = owned.clone().map(|r| r.rt_end).max() {
            for _ in owned {
                want.push(vec![f.ui_start.to_string(), (end - f.ui_start).to_string()]);
            }
        }
    }
    assert!(want.len() >= 55, "{}", want.len());
    let got = common::query_csv(
        &path,
        "INCLUDE PERFETTO MODULE android.frames.timeline; \
         SELECT ts, dur FROM android_frames ORDER BY ts, frame_id",
    );
    assert_eq!(got[1..], want[..]);
    assert!(p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("overrun")));
    // The table says so too.
    let out = common::run(&["analyze", path.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("no FrameTimeline for this process"), "{text}");
}

#[test]
fn table_markdown_csv_and_frames_outputs() {
    let sample = common::sample_trace();
    let s = sample.to_str().unwrap();
    let table = String::from_utf8(common::run(&["analyze", s]).stdout).unwrap();
    assert!(table.contains("com.example.scroller (pid 4242)"), "{table}");
    assert!(table.contains("Macrobenchmark: frameCount 180"), "{table}");
    assert!(table.contains("worst frames:"));
    let md =
        String::from_utf8(common::run(&["analyze", s, "--format", "markdown"]).stdout).unwrap();
    assert!(md.starts_with("## frameprobe analyze"));
    assert!(md.contains("| layer | frames |"));
    let csv = common::parse_csv(
        &String::from_utf8(common::run(&["analyze", s, "--format", "csv"]).stdout).unwrap(),
    );
    assert_eq!(csv[0][0..4], ["pid", "process", "layer", "frames"]);
    assert_eq!(csv[1][0], "4242");
    assert_eq!(csv[1][3], "180");
    let frames = common::parse_csv(
        &String::from_utf8(common::run(&["frames", s, "--format", "csv"]).stdout).unwrap(),
    );
    assert_eq!(frames.len(), 1 + 180);
    let janky = common::parse_csv(
        &String::from_utf8(common::run(&["frames", s, "--janky", "--format", "csv"]).stdout)
            .unwrap(),
    );
    // The sample is `frameprobe-synth --frames 180 --seed 7` (README): its plan says which
    // frames the generator made late (App Deadline Missed), and only those are janky.
    let sample_plan = generate(&SynthConfig {
        seed: 7,
        frames: 180,
        ..Default::default()
    });
    assert_eq!(
        std::fs::read(&sample).unwrap(),
        sample_plan.bytes,
        "testdata/ is what the README's command makes"
    );
    let late = sample_plan
        .frames
        .iter()
        .filter(|f| f.jank_type == 64)
        .count();
    assert!(late > 0);
    assert_eq!(janky.len(), 1 + late);
    let col = janky[0].iter().position(|c| c == "janky").unwrap();
    assert!(janky[1..].iter().all(|r| r[col] == "1"));
}

#[test]
fn stdlib_frame_tables_are_queryable() {
    let rows = common::query_csv(
        &common::sample_trace(),
        "INCLUDE PERFETTO MODULE android.frames.per_frame_metrics; \
         SELECT COUNT(*), SUM(was_jank IS NOT NULL) FROM android_frame_stats",
    );
    assert_eq!(rows[1][0], "180");
    let frames = common::query_csv(
        &common::sample_trace(),
        "INCLUDE PERFETTO MODULE android.frames.timeline; SELECT COUNT(*) FROM android_frames",
    );
    assert_eq!(frames[1][0], "180");
}
