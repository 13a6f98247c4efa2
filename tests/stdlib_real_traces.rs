//! Perfetto stdlib modules on real device traces against trace_processor v58.2's own answers
//! (`../shared/perfetto-oracle/expected/<trace>/<query>.csv`, produced by trace_processor on
//! the same files). The pairs checked here do not depend on the api24 ftrace clock offset.

mod common;

use std::path::PathBuf;

/// The oracle's query file and trace_processor's answer, or None (SKIP) without ../shared.
fn oracle(trace: &str, query: &str, test: &str) -> Option<(PathBuf, String, Vec<Vec<String>>)> {
    let dir = common::shared("perfetto-oracle", test)?;
    let traces = common::shared("traces", test)?;
    let sql = std::fs::read_to_string(dir.join("queries").join(format!("{query}.sql"))).unwrap();
    let csv = std::fs::read_to_string(
        dir.join("expected")
            .join(trace)
            .join(format!("{query}.csv")),
    )
    .unwrap();
    Some((
        traces.join(format!("{trace}.perfetto-trace")),
        sql,
        common::parse_csv(&csv),
    ))
}

/// Cells compare as trace_processor writes them: `[NULL]` is an empty cell, numbers within
/// a relative 1e-9 (frameprobe prints doubles with fewer digits).
fn same_cell(got: &str, want: &str) -> bool {
    let want = if want == "[NULL]" { "" } else { want };
    got == want
        || matches!((got.parse::<f64>(), want.parse::<f64>()),
            (Ok(a), Ok(b)) if (a - b).abs() <= 1e-9 * b.abs().max(1.0))
}

fn assert_matches_oracle(trace: &str, query: &str, test: &str) {
    let Some((path, sql, want)) = oracle(trace, query, test) else {
        return;
    };
    let got = common::query_csv(&path, &sql);
    assert_eq!(got[0], want[0], "{trace}/{query}: columns");
    assert_eq!(got.len(), want.len(), "{trace}/{query}: row count");
    for (i, (g, w)) in got.iter().zip(&want).enumerate().skip(1) {
        assert!(
            g.len() == w.len() && g.iter().zip(w).all(|(a, b)| same_cell(a, b)),
            "{trace}/{query} row {i}:\n  got  {g:?}\n  want {w:?}"
        );
    }
}

#[test]
fn monitor_contention_parsed_like_trace_processor() {
    // 109 contentions (API 33 names: the owner's number is not a tid) and 64 on API 35.
    assert_matches_oracle(
        "androidx_api32_startup_warm",
        "stdlib_monitor_contention",
        "monitor_contention_parsed_like_trace_processor",
    );
    assert_matches_oracle(
        "androidx_api35_startup_cold_classinit",
        "stdlib_monitor_contention",
        "monitor_contention_parsed_like_trace_processor",
    );
}

#[test]
fn garbage_collection_events_like_trace_processor() {
    // Four GCs with heap sizes from the 'Heap size (KB)' counters and their thread-state
    // split; one on API 35.
    assert_matches_oracle(
        "androidx_api32_odpm_rails",
        "stdlib_gc",
        "garbage_collection_events_like_trace_processor",
    );
    assert_matches_oracle(
        "androidx_api35_startup_cold_classinit",
        "stdlib_gc",
        "garbage_collection_events_like_trace_processor",
    );
}

#[test]
fn frame_stats_of_frame_ids_shared_by_two_processes_in_trace_processor_order() {
    // Frame 552952 has doFrames in two threads: its four rows come in thread-track order.
    assert_matches_oracle(
        "androidx_api24_commas_in_slice_names",
        "frame_stats",
        "frame_stats_of_frame_ids_shared_by_two_processes_in_trace_processor_order",
    );
}

#[test]
fn api24_frames_without_frame_timeline() {
    let test = "api24_frames_without_frame_timeline";
    let Some((path, sql, want)) =
        oracle("androidx_api24_startup_cold", "stdlib_android_frames", test)
    else {
        return;
    };
    let got = common::query_csv(&path, &sql);
    // 66 frames from timeline_maxsdk28 rules; compare all but ts (the api24 ftrace clock).
    assert_eq!(got.len(), want.len());
    assert_eq!(got.len(), 67);
    let first = &got[1];
    assert_eq!(first[0], "1");
    assert_eq!(first[2], "12389063");
    assert_eq!(first[3], "com.google.android.googlequicksearchbox");
    assert_eq!(
        &first[4..],
        &["Choreographer#doFrame", "DrawFrame", "0", "1", "1"]
    );
    let frames_per_process = |rows: &[Vec<String>]| {
        let mut m = std::collections::BTreeMap::<String, usize>::new();
        for r in &rows[1..] {
            *m.entry(r[3].clone()).or_default() += 1;
        }
        m
    };
    assert_eq!(
        frames_per_process(&got).get("com.android.systemui"),
        frames_per_process(&want).get("com.android.systemui")
    );
}
