//! `--from` / `--to` on analyze, frames, check and report: a frame is in the range when its
//! start (`ts`) lies in [from, to), and every figure counts only those frames.
//!
//! Expected values come from the generator's plan (each frame's start and whether it was made
//! late), or, on real traces, from the whole-trace run of the same command: the two halves of
//! a split must add up to it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use frameprobe_tools::synth::{generate, PlannedFrame, SynthConfig};
use serde_json::Value;

/// The generator marks a frame it made late with this FrameTimeline jank bit
/// (AppDeadlineMissed, reported as Self Jank).
const APP_DEADLINE_MISSED: i32 = 64;

fn synthetic(name: &str) -> (PathBuf, Vec<PlannedFrame>) {
    let cfg = SynthConfig {
        seed: 23,
        frames: 120,
        jank_rate: 0.2,
        ..Default::default()
    };
    let t = generate(&cfg);
    (common::temp_file("range", name, &t.bytes), t.frames)
}

use common::run_json as json;

fn late(plan: &[PlannedFrame]) -> usize {
    plan.iter()
        .filter(|f| f.jank_type == APP_DEADLINE_MISSED)
        .count()
}

/// The generated frame starts where its doFrame starts (the actual surface frame is written
/// from the doFrame's start): that is the frame's `ts`.
fn start(f: &PlannedFrame) -> i64 {
    f.ui_start
}

#[test]
fn a_range_keeps_exactly_the_frames_starting_in_it() {
    let (trace, plan) = synthetic("keep.perfetto-trace");
    let t = trace.to_str().unwrap();
    let (from, to) = (start(&plan[30]), start(&plan[70]));
    let kept = &plan[30..70];
    let (from_arg, to_arg) = (format!("ns:{from}"), format!("ns:{to}"));
    let range = ["--from", from_arg.as_str(), "--to", to_arg.as_str()];

    let mut args = vec!["analyze", t, "--format", "json"];
    args.extend(range);
    let r = json(&args);
    assert_eq!(r["range"]["from_ns"], from);
    assert_eq!(r["range"]["to_ns"], to);
    let p = &r["processes"][0];
    assert_eq!(p["frames"], 40);
    let layer = &p["layers"][0];
    assert_eq!(layer["frames"], 40);
    assert!(late(kept) > 3, "the seed puts late frames in the range");
    assert_eq!(layer["janky"]["frames"], late(kept));
    assert_eq!(layer["by_jank_tag"]["Self Jank"]["frames"], late(kept));
    // The other definitions count the same frames.
    assert_eq!(p["macrobenchmark"]["frameCount"], 40);
    assert_eq!(p["perfetto_frame_stats"]["frames"], 40);
    assert_eq!(p["perfetto_frame_stats"]["was_jank"], late(kept));
    for w in p["worst_frames"].as_array().unwrap() {
        let ts = w["ts"].as_i64().unwrap();
        assert!(
            ts >= from && ts < to,
            "worst frame at {ts} is outside the range"
        );
    }

    // frames: the first row starts exactly at --from (kept), the frame starting exactly at
    // --to is the first one left out.
    let mut args = vec!["frames", t, "--format", "json"];
    args.extend(range);
    let f = json(&args);
    let rows = f["processes"][0]["frames"].as_array().unwrap();
    assert_eq!(rows.len(), 40);
    assert_eq!(rows[0]["ts"], from);
    assert_eq!(rows[39]["ts"], start(&plan[69]));
    assert_eq!(f["range"]["from_ns"], from);
    let mut args = vec!["frames", t, "--format", "csv", "--janky"];
    args.extend(range);
    let out = common::run(&args);
    let csv = common::parse_csv(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(csv.len() - 1, late(kept), "one CSV row per janky frame");

    // One nanosecond later and the first frame is out.
    let later = format!("ns:{}", from + 1);
    let r = json(&[
        "analyze", t, "--format", "json", "--from", &later, "--to", &to_arg,
    ]);
    assert_eq!(r["processes"][0]["frames"], 39);
}

#[test]
fn relative_times_count_from_the_trace_start() {
    let (trace, plan) = synthetic("relative.perfetto-trace");
    let t = trace.to_str().unwrap();
    // trace_start() of this trace, to turn the plan's boot times into seconds from it.
    let start_ns = json(&["analyze", t, "--format", "json"])["trace_start_ns"]
        .as_i64()
        .unwrap();
    let secs = |ns: i64| {
        let d = ns - start_ns;
        format!("+{}.{:09}s", d / 1_000_000_000, d % 1_000_000_000)
    };
    let (from, to) = (secs(start(&plan[10])), secs(start(&plan[25])));
    let r = json(&[
        "analyze", t, "--format", "json", "--from", &from, "--to", &to,
    ]);
    assert_eq!(r["processes"][0]["frames"], 15);
    assert_eq!(
        r["processes"][0]["layers"][0]["janky"]["frames"],
        late(&plan[10..25])
    );
    assert_eq!(r["range"]["from_ns"], start(&plan[10]));
    // Only --from: to the end of the trace.
    let r = json(&["analyze", t, "--format", "json", "--from", &from]);
    assert_eq!(r["processes"][0]["frames"], 110);
    assert_eq!(r["range"]["to_ns"], Value::Null);
}

#[test]
fn check_measures_only_the_range() {
    let (trace, plan) = synthetic("check.perfetto-trace");
    let t = trace.to_str().unwrap();
    let kept = &plan[20..80];
    let (from, to) = (
        format!("ns:{}", start(&plan[20])),
        format!("ns:{}", start(&plan[80])),
    );
    let out = common::run(&[
        "check",
        t,
        "--process",
        "com.example.scroller",
        "--max-jank-rate",
        "100",
        "--rule",
        "frame_count>=1",
        "--allow-inconclusive",
        "--format",
        "json",
        "--from",
        &from,
        "--to",
        &to,
    ]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{r}");
    let test = &r["tests"][0];
    // Janky FrameTimeline frames in percent, over the 60 frames of the range.
    let want = late(kept) as f64 * 100.0 / 60.0;
    let got = test["rules"][0]["value"].as_f64().unwrap();
    assert!((got - want).abs() < 0.01, "{got} != {want}");
    assert_eq!(test["rules"][1]["value"], 60.0);
    assert_eq!(test["iterations"][0]["frames"], 60);
    assert_eq!(test["iterations"][0]["range"]["from_ns"], start(&plan[20]));
    assert!(r["range"].as_str().unwrap().contains("ns:"));
}

#[test]
fn report_says_which_range_it_shows() {
    let (trace, plan) = synthetic("report.perfetto-trace");
    let html = trace.with_extension("html");
    let from = format!("ns:{}", start(&plan[5]));
    let out = common::run(&[
        "report",
        trace.to_str().unwrap(),
        "-o",
        html.to_str().unwrap(),
        "--from",
        &from,
        "--to",
        "100",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("range: frames starting from +"),
        "no range line"
    );
}

#[test]
fn an_empty_range_says_where_the_frames_are() {
    let (trace, _) = synthetic("empty.perfetto-trace");
    let t = trace.to_str().unwrap();
    for cmd in ["analyze", "frames"] {
        let out = common::run(&[cmd, t, "--from", "1000", "--to", "1001"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{cmd}: as when there are no frames"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(
                "no frames between +1000.000 s and +1001.000 s; trace spans +0.000 s to +"
            ),
            "{cmd}: {err}"
        );
    }
    let out = common::run(&[
        "check",
        t,
        "--process",
        "com.example.scroller",
        "--max-jank-rate",
        "10",
        "--from",
        "1000",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no frames after +1000.000 s"), "{text}");
}

#[test]
fn bad_values_are_usage_errors_that_name_the_value() {
    let (trace, _) = synthetic("bad.perfetto-trace");
    let t = trace.to_str().unwrap();
    let html = trace.with_extension("bad.html");
    let cases: [(&[&str], &str); 6] = [
        (&["--from", "-1"], "negative"),
        (&["--from", "abc"], "is not a time"),
        (&["--to", "ns:-5"], "non-negative"),
        (
            &["--from", "3", "--to", "2"],
            "--from (+3 s) must be before --to (+2 s)",
        ),
        (&["--from", "ns:20", "--to", "ns:20"], "must be before --to"),
        // A trace timestamp without `ns:` is ambiguous: refused, with the spelling to use.
        (&["--from", "578090289999415"], "ns:578090289999415"),
    ];
    let commands: [Vec<&str>; 4] = [
        vec!["analyze", t],
        vec!["frames", t],
        vec!["check", t, "--process", "x", "--max-jank-rate", "1"],
        vec!["report", t, "-o", html.to_str().unwrap()],
    ];
    for cmd in &commands {
        for (extra, says) in cases {
            let mut args = cmd.clone();
            args.extend_from_slice(extra);
            let out = common::run(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains(says), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
        }
    }
}

/// The command's JSON, or None when the range has no frames (exit 2, nothing on stdout).
fn json_or_no_frames(cmd: &str, trace: &Path, range: &[&str]) -> Option<Value> {
    let mut args = vec![cmd, trace.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(range);
    let out = common::run(&args);
    if out.status.code() == Some(2) && out.stdout.is_empty() {
        return None;
    }
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// (pid, layer name) of a process and one of its layers or frames.
fn layer_key(process: &Value, with_layer: &Value) -> (i64, String) {
    let layer = with_layer["layer"].as_str().unwrap_or("");
    (process["pid"].as_i64().unwrap(), layer.to_string())
}

/// Per (pid, layer): frames and janky (else slow) frames, from analyze's JSON.
fn per_layer(trace: &Path, range: &[&str]) -> PerLayer {
    let mut m = BTreeMap::new();
    let Some(r) = json_or_no_frames("analyze", trace, range) else {
        return m;
    };
    for p in r["processes"].as_array().unwrap() {
        for l in p["layers"].as_array().unwrap() {
            m.insert(
                layer_key(p, l),
                (
                    l["frames"].as_u64().unwrap(),
                    // FrameTimeline's janky frames; without FrameTimeline, the slow ones.
                    l["janky"]["frames"]
                        .as_u64()
                        .or(l["slow_frames"]["frames"].as_u64())
                        .unwrap_or(0),
                ),
            );
        }
    }
    m
}

/// Per pid: Macrobenchmark's frameCount and the stdlib's frame count and was_jank, from
/// analyze's JSON (0 where the block is absent).
fn per_process(trace: &Path, range: &[&str]) -> BTreeMap<i64, [u64; 3]> {
    let mut m = BTreeMap::new();
    let Some(r) = json_or_no_frames("analyze", trace, range) else {
        return m;
    };
    for p in r["processes"].as_array().unwrap() {
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let stdlib = &p["perfetto_frame_stats"];
        m.insert(
            p["pid"].as_i64().unwrap(),
            [
                n(&p["macrobenchmark"]["frameCount"]),
                n(&stdlib["frames"]),
                n(&stdlib["was_jank"]),
            ],
        );
    }
    m
}

/// Per (pid, layer): rows of `frames` and how many are janky.
fn frame_rows(trace: &Path, range: &[&str]) -> PerLayer {
    let mut m = BTreeMap::new();
    let Some(r) = json_or_no_frames("frames", trace, range) else {
        return m;
    };
    for p in r["processes"].as_array().unwrap() {
        for f in p["frames"].as_array().unwrap() {
            let e: &mut (u64, u64) = m.entry(layer_key(p, f)).or_default();
            e.0 += 1;
            e.1 += u64::from(f["janky"] == true);
        }
    }
    m
}

type PerLayer = BTreeMap<(i64, String), (u64, u64)>;

fn add(a: &PerLayer, b: &PerLayer) -> PerLayer {
    let mut m = a.clone();
    for (k, v) in b {
        let e = m.entry(k.clone()).or_default();
        e.0 += v.0;
        e.1 += v.1;
    }
    m
}

#[test]
fn halves_of_real_traces_add_up_to_the_whole() {
    let Some(dir) = common::shared("traces", "halves_of_real_traces_add_up_to_the_whole") else {
        return;
    };
    for name in [
        "nowinandroid_demo_pixel7pro_api33",
        "androidx_api35_startup_cold_classinit",
        "androidx_api24_startup_cold",
    ] {
        let trace = dir.join(format!("{name}.perfetto-trace"));
        if !trace.exists() {
            common::missing("halves_of_real_traces_add_up_to_the_whole", &trace);
            continue;
        }
        // The midpoint from the trace's own span (as the range object reports it).
        let r = json(&[
            "analyze",
            trace.to_str().unwrap(),
            "--format",
            "json",
            "--from",
            "0",
        ]);
        let start = r["trace_start_ns"].as_i64().unwrap();
        let end_s = r["range"]["trace_end_s"].as_f64().unwrap();
        let mid = format!("ns:{}", start + (end_s * 1e9 / 2.0) as i64);

        let whole = per_layer(&trace, &[]);
        let first = per_layer(&trace, &["--to", &mid]);
        let second = per_layer(&trace, &["--from", &mid]);
        assert!(!whole.is_empty(), "{name} has frames");
        assert!(
            !first.is_empty() && !second.is_empty(),
            "{name}: both halves have frames"
        );
        assert_eq!(
            add(&first, &second),
            whole,
            "{name}: (frames, janky) per layer"
        );

        // Macrobenchmark's list and the stdlib's frames are split by their own frame starts.
        let whole = per_process(&trace, &[]);
        let mut halves = per_process(&trace, &["--to", &mid]);
        for (pid, v) in per_process(&trace, &["--from", &mid]) {
            let e = halves.entry(pid).or_default();
            for i in 0..3 {
                e[i] += v[i];
            }
        }
        halves.retain(|_, v| *v != [0; 3]);
        let whole: BTreeMap<_, _> = whole.into_iter().filter(|(_, v)| *v != [0; 3]).collect();
        assert_eq!(
            halves, whole,
            "{name}: [MB frameCount, stdlib frames, was_jank] per pid"
        );

        let whole = frame_rows(&trace, &[]);
        let first = frame_rows(&trace, &["--to", &mid]);
        let second = frame_rows(&trace, &["--from", &mid]);
        assert_eq!(
            add(&first, &second),
            whole,
            "{name}: (rows, janky rows) per layer"
        );
    }
}
