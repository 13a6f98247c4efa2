//! FrameTracer on a real device trace: raw buffer events by type equal the MANIFEST's raw
//! protobuf scan, and seed 001's SQL 1 and SQL 2 run unchanged.

mod common;

const TRACE: &str = "androidx_api35_startup_cold_classinit.perfetto-trace";

#[test]
fn raw_buffer_events_by_type() {
    let Some(dir) = common::shared("traces", "raw_buffer_events_by_type") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join(TRACE),
        "SELECT fs.name, COUNT(*) FROM frame_slice fs JOIN gpu_track gt ON fs.track_id = gt.id \
         WHERE gt.name GLOB 'Buffer: *' GROUP BY 1 ORDER BY 1",
    );
    // MANIFEST: DEQUEUE 54, QUEUE 54, ACQUIRE_FENCE 56, LATCH 56, PRESENT_FENCE 31.
    let want = [
        ("AcquireFenceSignaled", "56"),
        ("Dequeue", "54"),
        ("Latch", "56"),
        ("PresentFenceSignaled", "31"),
        ("Queue", "54"),
    ];
    let got: Vec<(String, String)> = rows[1..]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(got, want);
}

fn layer_of_trace(dir: &std::path::Path) -> String {
    let rows = common::query_csv(
        &dir.join(TRACE),
        "SELECT layer_name FROM frame_slice WHERE layer_name IS NOT NULL GROUP BY 1 ORDER BY COUNT(*) DESC LIMIT 1",
    );
    rows[1][0].clone()
}

#[test]
fn seed_sql_1_lists_raw_events_and_phases() {
    let Some(dir) = common::shared("traces", "seed_sql_1") else {
        return;
    };
    let layer = layer_of_trace(&dir);
    // Seed 001, SQL 1, with the layer filter set to a layer of this trace.
    let sql = format!(
        "SELECT fs.ts, fs.dur, gt.name AS track_name, fs.name AS slice_name, fs.frame_number, fs.layer_name \
         FROM gpu_track AS gt JOIN frame_slice AS fs ON fs.track_id = gt.id \
         WHERE gt.scope = 'graphics_frame_event' AND fs.layer_name GLOB '*{}*' ORDER BY fs.ts;",
        layer.replace(['*', '?', '[', '\''], "?")
    );
    let rows = common::query_csv(&dir.join(TRACE), &sql);
    assert_eq!(
        rows[0],
        [
            "ts",
            "dur",
            "track_name",
            "slice_name",
            "frame_number",
            "layer_name"
        ]
    );
    assert!(rows.len() > 10);
    let ts: Vec<i64> = rows[1..].iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "ordered by ts");
    for prefix in ["Buffer: ", "APP_", "GPU_", "SF_", "Display_"] {
        assert!(
            rows[1..].iter().any(|r| r[2].starts_with(prefix)),
            "a {prefix} track row"
        );
    }
    // Phase slices that never closed keep dur = -1; nothing else is negative.
    assert!(rows[1..].iter().all(|r| r[1].parse::<i64>().unwrap() >= -1));
}

#[test]
fn seed_sql_2_groups_phases_by_frame_number() {
    let Some(dir) = common::shared("traces", "seed_sql_2") else {
        return;
    };
    let layer = layer_of_trace(&dir).replace(['*', '?', '[', '\''], "?");
    let sql = format!(
        "WITH phase AS ( SELECT fs.layer_name, fs.frame_number, fs.dur, CASE \
           WHEN gt.name GLOB 'APP_*' THEN 'app_hold' WHEN gt.name GLOB 'GPU_*' THEN 'producer_fence_wait' \
           WHEN gt.name GLOB 'SF_*' THEN 'latch_to_present' WHEN gt.name GLOB 'Display_*' THEN 'present_interval' \
           END AS phase_name FROM gpu_track AS gt JOIN frame_slice AS fs ON fs.track_id = gt.id \
           WHERE gt.scope = 'graphics_frame_event' AND fs.dur >= 0 AND fs.layer_name GLOB '*{layer}*' ) \
         SELECT layer_name, frame_number, \
           MAX(CASE WHEN phase_name = 'app_hold' THEN dur END) / 1e6 AS app_hold_ms, \
           MAX(CASE WHEN phase_name = 'producer_fence_wait' THEN dur END) / 1e6 AS producer_fence_wait_ms, \
           MAX(CASE WHEN phase_name = 'latch_to_present' THEN dur END) / 1e6 AS latch_to_present_ms, \
           MAX(CASE WHEN phase_name = 'present_interval' THEN dur END) / 1e6 AS present_interval_ms \
         FROM phase WHERE phase_name IS NOT NULL GROUP BY layer_name, frame_number \
         ORDER BY latch_to_present_ms DESC;"
    );
    let rows = common::query_csv(&dir.join(TRACE), &sql);
    assert_eq!(
        rows[0][2..],
        [
            "app_hold_ms",
            "producer_fence_wait_ms",
            "latch_to_present_ms",
            "present_interval_ms"
        ]
    );
    assert!(rows.len() > 5);
    // Some frame has all of the app, fence-wait and latch-to-present phases measured.
    assert!(rows[1..]
        .iter()
        .any(|r| r[2..5].iter().all(|c| !c.is_empty())));
}
