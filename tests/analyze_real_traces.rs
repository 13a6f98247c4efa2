//! `analyze` on real device traces, against what MANIFEST.md and androidx's
//! FrameTimingQueryTest say about them.

mod common;

use serde_json::Value;

fn analyze(trace: &str, extra: &[&str], test: &str) -> Option<Value> {
    let dir = common::shared("traces", test)?;
    let p = dir.join(trace);
    let mut args = vec!["analyze", p.to_str().unwrap(), "--format", "json"];
    args.extend_from_slice(extra);
    let out = common::run(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

#[test]
fn nowinandroid_app_reports_its_739_frames_and_late_ones_by_jank_type() {
    let Some(r) = analyze(
        "nowinandroid_demo_pixel7pro_api33.perfetto-trace",
        &["--process", "9305"],
        "nowinandroid",
    ) else {
        return;
    };
    assert_eq!(r["sources"]["frame_timeline"], true);
    assert_eq!(
        r["sources"]["atrace"], true,
        "app-only atrace (Compose sections)"
    );
    let p = &r["processes"][0];
    assert_eq!(p["pid"], 9305);
    assert_eq!(p["frames"], 739);
    // No process tree: the name comes from the layer.
    assert_eq!(p["name"], "com.google.samples.apps.nowinandroid.demo");
    assert_eq!(p["name_source"], "layer");
    let l = &p["layers"][0];
    assert_eq!(l["frames"], 739);
    // MANIFEST jank histogram {1:678, 64:11, 128:45, 192:5}.
    assert_eq!(l["by_jank_reason"]["App Deadline Missed"]["frames"], 16);
    assert_eq!(l["by_jank_reason"]["Buffer Stuffing"]["frames"], 50);
    assert_eq!(l["by_jank_tag"]["Self Jank"]["frames"], 16);
    assert_eq!(l["by_jank_tag"]["Buffer Stuffing"]["frames"], 45);
    assert_eq!(l["by_jank_tag"]["No Jank"]["frames"], 678);
}

#[test]
fn api35_systemui_macrobenchmark_has_the_22_frames_androidx_asserts() {
    let Some(r) = analyze(
        "androidx_api35_startup_cold_classinit.perfetto-trace",
        &["--process", "com.android.systemui"],
        "api35",
    ) else {
        return;
    };
    let p = &r["processes"][0];
    assert_eq!(p["pid"], 3067);
    assert_eq!(p["macrobenchmark"]["api_level"], 35);
    assert_eq!(p["macrobenchmark"]["frameCount"], 22);
    assert!(p["macrobenchmark"]["problem"].is_null());
    // 44 actual surface frames (MANIFEST), one frame each.
    assert_eq!(p["frames"], 44);
}

#[test]
fn api24_frames_come_from_do_frame_and_overrun_is_not_available() {
    let Some(r) = analyze(
        "androidx_api24_startup_cold.perfetto-trace",
        &["--process", "com.google.android.googlequicksearchbox"],
        "api24",
    ) else {
        return;
    };
    assert_eq!(r["sources"]["frame_timeline"], false);
    let p = &r["processes"][0];
    // 76 doFrame on the main thread of googlequicksearchbox (MANIFEST).
    assert_eq!(p["frames"], 76);
    assert!(p["layers"][0]["durations"]["overrun_ms"].is_null());
    assert!(
        p["layers"][0]["durations"]["ui_ms"]["count"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(p["notes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|n| n.as_str().unwrap().contains("overrun")));
}

#[test]
fn janky_frames_are_self_other_and_dropped_per_manifest_histograms() {
    let Some(r) = analyze(
        "androidx_api35_startup_cold_classinit.perfetto-trace",
        &[],
        "janky_per_manifest",
    ) else {
        return;
    };
    // MANIFEST's jank_type histograms of the actual surface frames, tagged with Perfetto's
    // surface-frame rule (64 App Deadline Missed and 192 = 64|128 are Self Jank; 4
    // Prediction Error and 132 = 128|4 are Other Jank; 128 alone is Buffer Stuffing; 1 is
    // No Jank). Janky = Self + Other + Dropped.
    let expected = [
        // system_server {1:44, 4:1, 64:2, 128:19, 132:2}: Self 2, Other 1 + 2.
        (1286, 5, 3),
        // systemui {1:9, 4:1, 64:4, 128:23, 132:2, 192:5}: Self 4 + 5, Other 1 + 2.
        (3067, 12, 3),
        // launcher3 {1:6, 4:1}: Other 1.
        (3363, 1, 1),
        // the benchmark target {64:1}: Self 1.
        (27246, 1, 0),
    ];
    for (pid, janky, other) in expected {
        let p = r["processes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pid"] == pid)
            .unwrap_or_else(|| panic!("pid {pid} missing"));
        let layers = p["layers"].as_array().unwrap();
        let sum = |f: &dyn Fn(&Value) -> i64| layers.iter().map(f).sum::<i64>();
        assert_eq!(
            sum(&|l| l["janky"]["frames"].as_i64().unwrap()),
            janky,
            "janky frames of {pid}"
        );
        assert_eq!(
            sum(&|l| l["by_jank_tag"]["Other Jank"]["frames"]
                .as_i64()
                .unwrap_or(0)),
            other,
            "Other Jank frames of {pid}"
        );
    }
}
