//! End-to-end tests of `frameprobe gfxinfo` on the hand-made dumps in testdata/gfxinfo
//! (written by testdata/gfxinfo/gen_dumps.py). Every expected number is worked out below
//! from HWUI's rules (JankTracker.cpp, Android 15) for the frames the generator spells out;
//! T = 5000 s is the first frame's IntendedVsync and offsets are in ms after a frame's
//! IntendedVsync (IV).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const T: i64 = 5_000_000_000_000;
const MS: i64 = 1_000_000;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/gfxinfo")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_frameprobe"))
        .arg("gfxinfo")
        .args(args)
        .output()
        .expect("run frameprobe")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(name: &str, extra: &[&str]) -> Value {
    let path = data(name);
    let mut args = vec![path.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).expect("valid JSON");
    assert_eq!(v["schema"], "frameprobe.gfxinfo/v1");
    v
}

/// The 14 contract counters of a summary object, in contract order.
fn counters(s: &Value) -> Vec<i64> {
    [
        "total_frames",
        "janky_frames",
        "janky_frames_legacy",
        "missed_vsync",
        "high_input_latency",
        "slow_ui_thread",
        "slow_bitmap_uploads",
        "slow_issue_draw_commands",
        "frame_deadline_missed",
        "frame_deadline_missed_legacy",
        "p50_ms",
        "p90_ms",
        "p95_ms",
        "p99_ms",
    ]
    .iter()
    .map(|k| s[*k].as_i64().unwrap_or_else(|| panic!("{k} in {s}")))
    .collect()
}

fn jank_types(f: &Value) -> Vec<&str> {
    f["jank_types"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect()
}

// ---------------------------------------------------------------------------------------
// Android 13–14, 23 columns, header pitfall. Interval 10 ms. Frames:
//  F1 IV=T     flags=1, quick: SBC +4.5, FC=GPU +5, deadline +10.
//  F2 IV=T+10  DrawStart +6, SyncQueued +7, SyncStart +7.5, Issue +8, SwapBuffers +11,
//              CSC +11.2, SBC +11.5, FC=GPU +12, deadline +10.
//  F3 IV=T+20  FC=GPU +14, printed deadline +20 (HWUI's adjusted value).
//  F4 IV=T+30  Vsync +1, SyncStart +3, Issue +3.5, SwapBuffers +20, SBC +21, FC=GPU +22,
//              printed deadline +20.
//  F5 IV=T+60  flags=4 (SurfaceCanvas), FC=GPU +40.
//  F6 IV=T+70  FrameCompleted 0.       F7 IV=T+80  FrameCompleted 72057628414509155.
//  F8 IV=T+90  quick.
// ---------------------------------------------------------------------------------------

/// Per frame (hand-worked):
/// F1: legacy: 4.5 ms not janky; swap deadline starts at IV+10 → "stuffed" (10 > 1) → moves
///     to T+20; FC T+5 < T+20 → High input latency. Deadline path: hit.
/// F2: legacy: SBC−IV−stall(0.5) = 11 > 10 → janky (legacy); swap T+20−(T+10) = 10 > 1 →
///     stuffed, deadline T+30; FC T+22 < T+30 → HIL. Deadline path: GPU T+22 ≥ T+20 → missed;
///     next unstuffed = 22 − (12 % 10) + 10 = T+30; Slow UI: Vsync→SyncStart 7.5 − 0.5 = 7
///     ≥ 5 ms; Slow sync 0.5 < 2; Slow RT Issue→FC 4 < 7.5; missed vsync 0.
/// F3: legacy: 4.5 ms; swap T+30−(T+20) > 1 → stuffed, deadline T+40; FC T+34 → HIL.
///     Deadline path: T+30 − (T+20) = 10 > 1 → triple buffered; printed deadline T+40 used
///     as is; GPU T+34 < T+40 → HIL; next = T+40.
/// F4: legacy: 21 ms janky; swap T+40−(T+30) → stuffed → T+50; FC T+52 ≥ T+50 and 21 ≥ 10
///     → missed (legacy); swap = 52 − (21 % 10) + 10 = T+61. Deadline path: stuffed,
///     printed T+50; GPU T+52 → missed; missed vsync (1 ms ≥ 1 ns); Slow RT 18.5 ≥ 7.5.
/// F5: counted (40 ms) but exempt. F6, F7: never finished, not judged.
/// F8: next T+61 and swap T+61 are behind IV T+90 → not stuffed; hits: nothing.
#[test]
fn android14_dump_replays_to_hwui_rules() {
    let v = json("a14_23col.txt", &[]);
    let windows = v["windows"].as_array().unwrap();
    assert_eq!(windows.len(), 1);
    let w = &windows[0];
    assert_eq!(w["window"], "com.example.app/com.example.app.MainActivity");
    assert_eq!(w["process"], "com.example.app");
    assert_eq!(w["pid"], 5939);
    assert_eq!(w["columns"], 23);
    assert_eq!(w["rows"], 8);
    assert_eq!(w["judged_frames"], 6);
    assert_eq!(w["frame_interval"]["source"], "column");
    assert_eq!(w["frame_interval"]["header_pitfall"], true);

    // Totals: counted F1 F2 F3 F4 F5 F8 = 6; janky F2 F4; legacy janky F2 F4; missed vsync
    // F4; HIL F1 F2 F3×2 = 4; slow UI F2; slow RT F4; deadline missed 2; legacy missed F4.
    // Histogram (ms): 5 (F1), 11.5 → 11 (F2), 14, 22, 40 (F5), 5 (F8). p50: pos 3,
    // remaining 3 → 40, 22, 14 → 14. p90/95/99: pos 5 → remaining 1 → 40.
    let expected = vec![6, 2, 2, 1, 4, 1, 0, 1, 2, 1, 14, 40, 40, 40];
    assert_eq!(counters(&w["summary"]), expected);
    assert_eq!(counters(&w["hwui_summary"]), expected);
    assert_eq!(w["hwui_summary_covers_rows"], true);
    assert_eq!(w["hwui_summary_matches"], true);
    // GPU = GpuCompleted − SwapBuffers: F1 1, F2 1, F3 10, F4 2, F8 1 ms (F5 is exempt and
    // never reaches reportGPUFrame) → buckets "2ms"×3, "3ms", "11ms".
    assert_eq!(
        w["summary"]["gpu_histogram"],
        serde_json::json!([[2, 3], [3, 1], [11, 1]])
    );

    let f = w["frames"].as_array().unwrap();
    assert_eq!(f.len(), 8);
    assert_eq!(jank_types(&f[0]), vec!["high_input_latency"]);
    assert_eq!(
        jank_types(&f[1]),
        vec![
            "high_input_latency",
            "frame_deadline_missed",
            "slow_ui_thread"
        ]
    );
    assert_eq!(f[1]["janky"], true);
    assert_eq!(f[1]["janky_legacy"], true);
    assert_eq!(f[1]["total_duration_ns"], 11_500_000);
    assert_eq!(f[1]["legacy_duration_ns"], 11_000_000);
    assert_eq!(f[1]["reasons"][0]["jank_type"], "slow_ui_thread");
    assert_eq!(f[1]["reasons"][0]["duration_ns"], 7 * MS);
    assert_eq!(f[1]["reasons"][0]["threshold_ns"], 5 * MS);
    assert_eq!(
        jank_types(&f[2]),
        vec!["high_input_latency", "high_input_latency"]
    );
    assert_eq!(f[2]["triple_buffered"], true);
    assert_eq!(f[2]["deadline_ns"], T + 40 * MS);
    assert_eq!(
        jank_types(&f[3]),
        vec![
            "frame_deadline_missed_legacy",
            "frame_deadline_missed",
            "missed_vsync",
            "slow_issue_draw_commands"
        ]
    );
    assert_eq!(f[4]["exempt"], true);
    assert_eq!(f[4]["counted"], true);
    assert!(jank_types(&f[4]).is_empty());
    assert_eq!(f[5]["judged"], false);
    assert_eq!(f[5]["not_judged_reason"], "frame_completed_unset");
    assert_eq!(f[6]["not_judged_reason"], "frame_completed_implausible");
    assert_eq!(f[6]["frame_metrics"], Value::Null);
    assert!(jank_types(&f[7]).is_empty());
    assert_eq!(f[7]["vsync_id"], 1008);
}

/// FrameMetrics of F2: unknown delay HandleInput−IV 0.5, input 0.1, animation 0.1,
/// layout 6 − 0.7 = 5.3, draw SyncQueued−DrawStart 1, sync Issue−SyncStart 0.5, command
/// issue SwapBuffers−Issue 3, swap SBC−SwapBuffers 0.5, total FC−IV 12, GPU GPU−CSC 0.8,
/// deadline 10 ms. JankStats: UI = 0.5+0.1+0.1+5.3+1+0.5 = 7.5 ms, threshold 2 × 10 = 20 →
/// no jank; overrun = 12 − 10 = 2 ms. F3: DEADLINE is the printed (adjusted) 20 ms, so its
/// overrun is 14 − 20 = −6 ms.
#[test]
fn android14_frame_metrics_and_jank_stats() {
    let v = json("a14_23col.txt", &[]);
    let f = &v["windows"][0]["frames"];
    let m = &f[1]["frame_metrics"];
    let got: Vec<i64> = [
        "unknown_delay_ns",
        "input_handling_ns",
        "animation_ns",
        "layout_measure_ns",
        "draw_ns",
        "sync_ns",
        "command_issue_ns",
        "swap_buffers_ns",
        "total_ns",
        "gpu_ns",
        "deadline_ns",
    ]
    .iter()
    .map(|k| m[*k].as_i64().unwrap())
    .collect();
    assert_eq!(
        got,
        vec![
            500_000,
            100_000,
            100_000,
            5_300_000,
            MS,
            500_000,
            3 * MS,
            500_000,
            12 * MS,
            800_000,
            10 * MS
        ]
    );
    assert_eq!(m["first_draw_frame"], false);
    assert_eq!(f[0]["frame_metrics"]["first_draw_frame"], true);
    let j = &f[1]["jank_stats"];
    assert_eq!(j["ui_duration_ns"], 7_500_000);
    assert_eq!(j["jank_threshold_ns"], 20 * MS);
    assert_eq!(j["is_jank"], false);
    assert_eq!(j["frame_overrun_ns"], 2 * MS);
    assert_eq!(f[2]["frame_metrics"]["deadline_ns"], 20 * MS);
    assert_eq!(f[2]["jank_stats"]["frame_overrun_ns"], -6 * MS);
}

#[test]
fn android14_table_shows_hwui_summary_beside_the_recomputed_one() {
    let path = data("a14_23col.txt");
    let o = run(&[path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Window: com.example.app/com.example.app.MainActivity"));
    assert!(out.contains("process com.example.app (pid 5939)"));
    assert!(out.contains("8 rows (6 judged, 2 never finished by HWUI)"));
    assert!(out.contains("header pitfall"));
    assert!(out.contains("HWUI printed"));
    let row = |label: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label} row in\n{out}"))
            .split('|')
            .map(|c| c.trim().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row("Janky frames (legacy)"),
        ["Janky frames (legacy)", "2", "2"]
    );
    assert_eq!(
        row("Number High input latency"),
        ["Number High input latency", "4", "4"]
    );
    assert_eq!(row("50th percentile"), ["50th percentile (ms)", "14", "14"]);
    assert!(out.contains("agrees on every counter it prints"));
    assert!(out.contains("not judged: FrameCompleted is 0"));
    assert!(!out.contains("(differs)"));
}

#[test]
fn later_header_order_and_utf16_crlf_give_the_same_result() {
    let base = json("a14_23col.txt", &[]);
    for name in ["a15_23col_reordered.txt", "a14_23col_utf16le_crlf.txt"] {
        let other = json(name, &[]);
        let (a, b) = (&base["windows"][0], &other["windows"][0]);
        assert_eq!(a["summary"], b["summary"], "{name}");
        assert_eq!(a["frames"].as_array().unwrap().len(), 8, "{name}");
        for (fa, fb) in a["frames"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["frames"].as_array().unwrap())
        {
            assert_eq!(fa["jank_types"], fb["jank_types"], "{name}");
            assert_eq!(fa["frame_metrics"], fb["frame_metrics"], "{name}");
        }
    }
    // The later AOSP names match the values: no pitfall.
    let r = json("a15_23col_reordered.txt", &[]);
    assert_eq!(r["windows"][0]["frame_interval"]["header_pitfall"], false);
}

// ---------------------------------------------------------------------------------------
// Android 6, 14 columns: no FrameInterval/FrameDeadline/GpuCompleted/dequeue columns.
// IV = T, T+I, T+2I, T+4I with I = 16666667 → gaps I, I, 2I: interval inferred = I.
//  G1 FC +8. G2 Issue +5, FC +20. G3 FC +10. G4 FC +6.
// ---------------------------------------------------------------------------------------

/// Filled: deadline IV+I, GPU = SBC = FC. G1: hit; legacy first frame → HIL.
/// G2: GPU T+36.67 ≥ T+33.33 → missed; next = IV+20 − (20 % I = 3333333) + I = T+50000001;
///     Slow RT Issue→FC 15 ≥ trunc(.75 I) = 12.5; legacy 20 > I → janky, stuffed, HIL.
/// G3: next − IV = I > I/10 → stuffed: deadline = next + I = T+66666668; FC T+43.3 → HIL;
///     legacy stuffed → HIL. G4: next = IV → not stuffed; hit.
/// Totals: 4 frames, janky 1, legacy 1, HIL 4, slow RT 1, deadline missed 1.
/// Histogram 8, 20, 10, 6: p50 pos 2 → 20, 10 → 10; p90 pos 3 → 20.
/// Android 6 itself printed HIL 0 (its rule compared input-event timestamps, here
/// INT64_MAX), so the printed and recomputed HIL differ; the rest agrees.
#[test]
fn android6_dump_infers_the_interval_and_flags_what_its_own_rules_counted_differently() {
    let v = json("a6_14col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(w["frame_interval"]["source"], "inferred");
    assert_eq!(w["frame_interval"]["ns"], 16_666_667);
    assert_eq!(w["hwui_summary_source"], "process");
    assert_eq!(
        counters(&w["summary"]),
        vec![4, 1, 1, 0, 4, 0, 0, 1, 1, 0, 10, 20, 20, 20]
    );
    assert_eq!(w["hwui_summary"]["high_input_latency"], 0);
    assert_eq!(w["hwui_summary"]["janky_frames"], 1);
    assert_eq!(w["hwui_summary"]["p50_ms"], Value::Null);
    assert_eq!(w["hwui_summary_matches"], false);
    let f = w["frames"].as_array().unwrap();
    assert_eq!(f[1]["deadline_ns"], T + 2 * 16_666_667);
    assert_eq!(f[2]["triple_buffered"], true);
    assert_eq!(f[2]["deadline_ns"], T + 66_666_668);
    assert_eq!(f[0]["vsync_id"], Value::Null);
    assert_eq!(f[0]["frame_metrics"]["deadline_ns"], Value::Null);

    let path = data("a6_14col.txt");
    let out = stdout(&run(&[path.to_str().unwrap()]));
    let hil = out
        .lines()
        .find(|l| l.contains("Number High input latency"))
        .unwrap();
    let cells: Vec<&str> = hil.split('|').map(str::trim).collect();
    assert_eq!(cells, ["Number High input latency", "4", "0 (differs)"]);
    assert!(out.contains("inferred from IntendedVsync spacing"));
}

#[test]
fn given_frame_interval_replaces_the_inferred_one() {
    // With --frame-interval-ns 20 ms: deadlines IV+20. G2 (FC +20) is then GPU = deadline →
    // still missed (not <), but legacy 20 ms is not > 20 → not janky (legacy).
    let v = json("a6_14col.txt", &["--frame-interval-ns", "20000000"]);
    let w = &v["windows"][0];
    assert_eq!(w["frame_interval"]["source"], "given");
    assert_eq!(w["summary"]["janky_frames"], 1);
    assert_eq!(w["summary"]["janky_frames_legacy"], 0);
}

// ---------------------------------------------------------------------------------------
// Android 9, 16 columns: dequeueBuffer durations. I = 16666667 inferred (one gap).
//  H1 IV=T Issue +2, SwapBuffers +16, FC +18, DequeueBufferDuration 5 ms.
//  H2 IV=T+I, FC +6.
// ---------------------------------------------------------------------------------------

/// No offsets: H1 legacy 18 > I → janky (legacy); deadline IV+I missed (GPU = FC);
/// Slow RT 16 ≥ 12.5; HIL: H1 legacy, H2 legacy + deadline path (next = T+33333334,
/// stuffed) = 3. With --app-offset-ns 1 ms --sf-offset-ns 3 ms: forgiveness 2 + 4 = 6 ms;
/// expected dequeue 6 + Vsync − Issue = 4 ms; forgive min(4, 5) = 4 → 14 ms ≤ I → H1 is no
/// longer janky (legacy). The deadline path does not forgive.
#[test]
fn android9_dequeue_forgiveness_only_with_offsets() {
    let v = json("a9_16col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(
        counters(&w["summary"]),
        vec![2, 1, 1, 0, 3, 0, 0, 1, 1, 0, 18, 18, 18, 18]
    );
    assert_eq!(w["frames"][0]["dequeue_forgiven_ns"], 0);

    let v = json(
        "a9_16col.txt",
        &["--app-offset-ns", "1000000", "--sf-offset-ns", "3000000"],
    );
    assert_eq!(v["options"]["dequeue_forgiveness_ns"], 6 * MS);
    let w = &v["windows"][0];
    assert_eq!(w["summary"]["janky_frames_legacy"], 0);
    assert_eq!(w["summary"]["janky_frames"], 1);
    assert_eq!(w["frames"][0]["dequeue_forgiven_ns"], 4 * MS);
    assert_eq!(w["frames"][0]["legacy_duration_ns"], 14 * MS);
}

#[test]
fn offsets_must_be_given_together() {
    let path = data("a9_16col.txt");
    let o = run(&[path.to_str().unwrap(), "--app-offset-ns", "1000000"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--sf-offset-ns"), "{}", stderr(&o));
}

// ---------------------------------------------------------------------------------------
// Android 11, 17 columns: GpuCompleted. I = 8333333 inferred.
//  K1 IV=T SwapBuffers +5, FC +7, GPU +9.   K2 IV=T+I SwapBuffers +4, FC +5, GPU +6.
// ---------------------------------------------------------------------------------------

/// K1: FC before IV+I but GPU +9 ≥ T+8.33 → missed by the Android 12+ rule (GPU vs
/// deadline); next = 9 − (9 % I = 0.666667) + I = T+16666666. Thresholds at 120 Hz:
/// trunc(.5 I) = 4166666, trunc(.2 I) = 1666666, trunc(.75 I) = 6249999: Vsync→SyncStart 2,
/// SyncStart→Issue 0.5, Issue→FC 4.5 → no cause. Legacy 7 < I → not janky; HIL (first).
/// K2: stuffed (I > I/10): deadline T+24999999; GPU T+14.3 → HIL; legacy HIL. HIL = 3.
/// Android 11 itself judged FrameCompleted against one interval, so it printed Janky 0,
/// HIL 0, deadline missed 0.
#[test]
fn android11_gpu_completed_decides_the_deadline_path() {
    let v = json("a11_17col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(w["frame_interval"]["ns"], 8_333_333);
    assert_eq!(
        counters(&w["summary"]),
        vec![2, 1, 0, 0, 3, 0, 0, 0, 1, 0, 7, 7, 7, 7]
    );
    assert_eq!(w["hwui_summary"]["janky_frames"], 0);
    assert_eq!(w["hwui_summary_matches"], false);
    let f = &w["frames"][0];
    assert_eq!(
        jank_types(f),
        vec!["high_input_latency", "frame_deadline_missed"]
    );
    // No CommandSubmissionCompleted: GPU_DURATION from SwapBuffers: 9 − 5 = 4 ms. No
    // DEADLINE; JankStats falls back to 2 × the interval in Float: 16666666.
    assert_eq!(f["frame_metrics"]["gpu_ns"], 4 * MS);
    assert_eq!(f["frame_metrics"]["deadline_ns"], Value::Null);
    assert_eq!(f["jank_stats"]["jank_threshold_ns"], 16_666_666);
    assert_eq!(f["jank_stats"]["frame_overrun_ns"], Value::Null);
}

// ---------------------------------------------------------------------------------------
// Android 12, 22 columns (pitfall header, no CommandSubmissionCompleted). I = 16666667,
// printed deadlines IV+20 ms.
//  L1 IV=T SwapBuffers +15, SBC +17.5, FC=GPU +18.
//  L2 IV=T+I DrawStart +8, SyncQueued +11, SyncStart +12, Issue +12.5, SwapBuffers +20,
//     SBC +21, FC +24, GPU +25.
// ---------------------------------------------------------------------------------------

/// L1: GPU +18 < +20 → hit (the printed deadline, not IV+I); legacy 17.5 > I → janky; HIL.
/// L2: GPU +25 ≥ +20 → missed; Slow UI Vsync→SyncStart 12 − stall 1 = 11 ≥ 8333333;
/// Slow RT Issue→FC 11.5 < 12.5; legacy (21 − 1) = 20 > I → janky; stuffed → HIL.
/// Histogram 18, 24 − 1 = 23 → p50 pos 1 → 23. GPU: 18 − 15 = 3 ("4ms"), 25 − 20 = 5 ("6ms").
#[test]
fn android12_uses_the_printed_deadline() {
    let v = json("a12_22col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(w["columns"], 22);
    assert_eq!(w["frame_interval"]["header_pitfall"], true);
    let expected = vec![2, 1, 2, 0, 2, 1, 0, 0, 1, 0, 23, 23, 23, 23];
    assert_eq!(counters(&w["summary"]), expected);
    assert_eq!(counters(&w["hwui_summary"]), expected);
    assert_eq!(w["summary"]["gpu_p50_ms"], 6);
    let f = w["frames"].as_array().unwrap();
    assert_eq!(f[0]["janky"], false);
    assert_eq!(f[0]["frame_metrics"]["deadline_ns"], 20 * MS);
    assert_eq!(f[0]["frame_metrics"]["gpu_ns"], 3 * MS);
    assert_eq!(f[1]["reasons"][0]["duration_ns"], 11 * MS);
    assert_eq!(f[1]["reasons"][0]["threshold_ns"], 8_333_333);
    assert_eq!(f[0]["frame_interval_ns"], 16_666_667);
}

// ---------------------------------------------------------------------------------------
// Newer AOSP, 24 columns (WorkloadTarget) and 25 columns (AnimationTime). I = 10 ms.
// ---------------------------------------------------------------------------------------

/// M1 IV=T: SwapBuffers +790, SBC +795, FC=GPU +800 → missed; Slow RT 797.5; total 800 ≥
/// 700 → Davey; legacy 795 janky, FC ≥ swap deadline T+20 → missed (legacy), swap =
/// 800 − 0 + 10 = T+810; next = T+810. M2 IV=T+800, printed deadline +20 (WorkloadTarget
/// 10): stuffed (10 > 1), GPU +15 < +20 → HIL; legacy stuffed → HIL.
/// Histogram 800 (slow bucket (800−150)/50 = 13 → "800ms") and 15 → all percentiles 800.
#[test]
fn workload_target_dump_with_a_davey() {
    let v = json("aosp_24col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(w["columns"], 24);
    let expected = vec![2, 1, 1, 0, 2, 0, 0, 1, 1, 1, 800, 800, 800, 800];
    assert_eq!(counters(&w["summary"]), expected);
    assert_eq!(w["hwui_summary_matches"], true);
    let f = w["frames"].as_array().unwrap();
    assert_eq!(f[0]["davey"], true);
    assert_eq!(f[1]["davey"], false);
    assert_eq!(f[1]["triple_buffered"], true);
    assert_eq!(f[1]["deadline_ns"], T + 820 * MS);
}

/// N1 IV=T quick (FC +4): HIL (legacy, first). N2 IV=T+10: SyncStart +1, Issue +4,
/// SwapBuffers +9, SBC +9.5, FC=GPU +11 ≥ deadline +10 → missed; Slow bitmap uploads
/// 3 ≥ trunc(.2 × 10) = 2 ms; Slow RT 7 < 7.5; legacy 9.5 < 10 → not janky, stuffed → HIL.
/// Histogram 4 ("5ms"), 11 → percentiles 11.
#[test]
fn animation_time_dump() {
    let v = json("aosp_25col.txt", &[]);
    let w = &v["windows"][0];
    assert_eq!(w["columns"], 25);
    assert_eq!(
        counters(&w["summary"]),
        vec![2, 1, 0, 0, 2, 0, 1, 0, 1, 0, 11, 11, 11, 11]
    );
    assert_eq!(w["hwui_summary_matches"], true);
    assert_eq!(
        jank_types(&w["frames"][1]),
        vec![
            "high_input_latency",
            "frame_deadline_missed",
            "slow_bitmap_uploads"
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Whole-device dump, damaged input, no PROFILEDATA
// ---------------------------------------------------------------------------------------

#[test]
fn whole_device_dump_reports_every_window_with_its_process() {
    let v = json("device_multi.txt", &[]);
    let w = v["windows"].as_array().unwrap();
    let got: Vec<(String, String, i64, i64)> = w
        .iter()
        .map(|w| {
            (
                w["window"].as_str().unwrap().to_string(),
                w["process"].as_str().unwrap().to_string(),
                w["pid"].as_i64().unwrap(),
                w["summary"]["total_frames"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "com.example.app/com.example.app.MainActivity".into(),
                "com.example.app".into(),
                4242,
                2
            ),
            ("Toast".into(), "com.example.app".into(), 4242, 0),
            (
                "com.example.other/com.example.other.Main".into(),
                "com.example.other".into(),
                4343,
                1
            ),
        ]
    );
    // An empty window: HWUI's percentile search returns its slowest label, 4950 ms.
    assert_eq!(w[1]["summary"]["p50_ms"], 4950);
    assert!(w.iter().all(|w| w["hwui_summary_matches"] == true));
}

#[test]
fn damaged_dump_names_each_bad_line_and_still_reports_good_windows() {
    let path = data("bad_input.txt");
    let o = run(&[path.to_str().unwrap(), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for needle in [
        "line 12: truncated row: 10 of the 23 cells",
        "line 13: column 13 (SyncQueued) is not an integer: \"12x\"",
        "line 14: row has 24 cells but the header (line 10) names 23",
        "line 20: unknown column \"MetaDataFps\" (position 23) ignored",
        "line 26: header lacks required column(s) IntendedVsync",
        "line 33: PROFILEDATA block opened at line 31 has no closing marker",
    ] {
        assert!(err.contains(needle), "missing {needle:?} in\n{err}");
    }
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["warnings"].as_array().unwrap().len(), 7);
    let w = v["windows"].as_array().unwrap();
    assert_eq!(w.len(), 4);
    // W1: the two good rows are N1 and N2 of the 25-column test: total 2, janky 1.
    assert_eq!(w[0]["rows"], 5);
    assert_eq!(w[0]["bad_rows"], 3);
    assert_eq!(w[0]["summary"]["total_frames"], 2);
    assert_eq!(w[0]["summary"]["janky_frames"], 1);
    // W2: the vendor column is ignored; without CommandSubmissionCompleted GPU_DURATION is
    // GpuCompleted − SwapBuffers = 4 − 3 = 1 ms.
    assert_eq!(w[1]["summary"]["total_frames"], 1);
    assert_eq!(w[1]["frames"][0]["frame_metrics"]["gpu_ns"], MS);
    // W3 cannot be replayed.
    assert_eq!(w[2]["summary"], Value::Null);
    assert!(w[2]["problem"].as_str().unwrap().contains("IntendedVsync"));
    // W4 keeps the row read before the dump was cut.
    assert_eq!(w[3]["summary"]["total_frames"], 1);
}

#[test]
fn dump_without_profiledata_is_a_clear_error() {
    let path = data("no_profiledata.txt");
    let o = run(&[path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("no `---PROFILEDATA---` block in 52 lines"),
        "{err}"
    );
    assert!(err.contains("framestats"), "{err}");
}

#[test]
fn missing_file_is_an_error() {
    let o = run(&["/nonexistent/dump.txt"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read /nonexistent/dump.txt"));
}

// ---------------------------------------------------------------------------------------
// CSV and standard input
// ---------------------------------------------------------------------------------------

#[test]
fn csv_has_one_row_per_frame_and_summary_only_one_per_window() {
    let path = data("a14_23col.txt");
    let o = run(&[path.to_str().unwrap(), "--format", "csv"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 8);
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let f2: Vec<&str> = lines[2].split(',').collect();
    assert_eq!(f2[col("vsync_id")], "1002");
    assert_eq!(
        f2[col("jank_types")],
        "high_input_latency;frame_deadline_missed;slow_ui_thread"
    );
    assert_eq!(f2[col("janky")], "true");
    assert_eq!(f2[col("fm_layout_measure_ns")], "5300000");
    let f6: Vec<&str> = lines[6].split(',').collect();
    assert_eq!(f6[col("not_judged_reason")], "frame_completed_unset");

    let o = run(&[path.to_str().unwrap(), "--format", "csv", "--summary-only"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2);
    let header: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    assert_eq!(row[col("high_input_latency")], "4");
    assert_eq!(row[col("hwui_high_input_latency")], "4");
    assert_eq!(row[col("hwui_summary_covers_rows")], "true");
}

#[test]
fn reads_the_dump_from_standard_input() {
    use std::io::Write;
    let bytes = std::fs::read(data("a14_23col_utf16le_crlf.txt")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_frameprobe"))
        .args(["gfxinfo", "-", "--format", "json", "--summary-only"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["windows"][0]["summary"]["total_frames"], 6);
    assert_eq!(v["windows"][0]["frames"], serde_json::json!([]));
}
