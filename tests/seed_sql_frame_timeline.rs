//! Seed 001's FrameTimeline queries 1-3 (the SQL users run) unchanged through `frameprobe
//! query`, on a real trace, with only the package name set to an app of that trace. The SQL is
//! read from the seed itself so it really is unchanged.

mod common;

const TRACE: &str = "androidx_api35_startup_cold_classinit.perfetto-trace";
const APP: &str = "com.android.systemui";

/// The statement starting at `start` in the seed, up to its terminating semicolon.
fn statement(seed: &str, start: &str) -> String {
    let from = seed
        .find(start)
        .unwrap_or_else(|| panic!("seed has no query starting {start:?}"));
    let to = seed[from..].find(';').unwrap() + from + 1;
    seed[from..to].replace("com.example.app", APP)
}

fn seed_and_trace(test: &str) -> Option<(String, std::path::PathBuf)> {
    let seeds = common::shared("seeds", test)?;
    let traces = common::shared("traces", test)?;
    let seed = std::fs::read_to_string(seeds.join("001_6214792939f81c58.txt")).unwrap();
    Some((seed, traces.join(TRACE)))
}

#[test]
fn query_1_expected_vs_actual_per_frame() {
    let Some((seed, trace)) = seed_and_trace("seed query 1") else {
        return;
    };
    let rows = common::query_csv(&trace, &statement(&seed, "WITH app_actual AS ("));
    let head = &rows[0];
    assert_eq!(head[0], "process_name");
    assert!(head.contains(&"end_delta_ms".to_string()));
    // MANIFEST: 44 actual surface frames of systemui, each with its expected frame.
    assert_eq!(rows.len() - 1, 44);
    assert!(rows[1..].iter().all(|r| r[0] == APP));
    let delta = head.iter().position(|c| c == "end_delta_ms").unwrap();
    assert!(rows[1..].iter().all(|r| r[delta].parse::<f64>().is_ok()));
}

#[test]
fn query_2_counts_by_cause_present_and_ready_state() {
    let Some((seed, trace)) = seed_and_trace("seed query 2") else {
        return;
    };
    let rows = common::query_csv(&trace, &statement(&seed, "SELECT\n  a.jank_tag,"));
    let n = rows[0].iter().position(|c| c == "frame_count").unwrap();
    let total: i64 = rows[1..].iter().map(|r| r[n].parse::<i64>().unwrap()).sum();
    assert_eq!(total, 44);
    // MANIFEST jank histogram for systemui: {1:9, 4:1, 64:4, 128:23, 132:2, 192:5}.
    let tag = |t: &str| -> i64 {
        rows[1..]
            .iter()
            .filter(|r| r[0] == t)
            .map(|r| r[n].parse::<i64>().unwrap())
            .sum()
    };
    assert_eq!(tag("Buffer Stuffing"), 23);
    assert_eq!(tag("Self Jank"), 9);
    assert_eq!(tag("Other Jank"), 3);
    assert_eq!(tag("No Jank"), 9);
}

#[test]
fn query_3_links_app_frames_to_surfaceflinger_display_frames() {
    let Some((seed, trace)) = seed_and_trace("seed query 3") else {
        return;
    };
    let rows = common::query_csv(&trace, &statement(&seed, "WITH app_frame AS ("));
    assert_eq!(rows[0][0], "surface_frame_token");
    assert_eq!(rows.len() - 1, 44);
    // Every app frame found the display frame that presented it.
    let sf = rows[0].iter().position(|c| c == "sf_jank_tag").unwrap();
    assert!(rows[1..].iter().all(|r| !r[sf].is_empty()));
}

#[test]
fn each_surface_frame_flows_to_its_display_frame() {
    let Some(dir) = common::shared("traces", "flows") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join(TRACE),
        "SELECT COUNT(*), SUM(s.display_frame_token = d.display_frame_token), SUM(d.surface_frame_token IS NULL) \
         FROM flow f JOIN actual_frame_timeline_slice s ON f.slice_out = s.id \
         JOIN actual_frame_timeline_slice d ON f.slice_in = d.id",
    );
    // 120 actual surface frames (MANIFEST), each presented by a display frame of its token.
    assert_eq!(rows[1], ["120", "120", "120"]);
}

#[test]
fn jank_type_sql_helpers() {
    let Some(dir) = common::shared("traces", "jank_type_sql_helpers") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join(TRACE),
        "SELECT SUM(android_is_app_jank_type(jank_type)), SUM(android_is_sf_jank_type(jank_type)), \
                SUM(android_is_missed_frame_type(jank_type)) \
         FROM actual_frame_timeline_slice JOIN process USING (upid) WHERE pid = 3067",
    );
    // systemui: App Deadline Missed in 64 (4) and 192 (5); Prediction Error in 4 (1) and 132 (2).
    assert_eq!(rows[1], ["9", "3", "12"]);
}
