//! FrameTimeline on real device traces: the per-process counts of actual surface frames by
//! jank_type bitmask and of display frames equal what `../shared/traces/MANIFEST.md` lists
//! (counted there with a raw protobuf scan, independently of frameprobe).

mod common;

use std::collections::BTreeMap;

/// trace_processor's `jank_type` text of the bitmasks the MANIFEST lists (as its answers in
/// ../shared/perfetto-oracle/expected/*/actual_frames.csv spell them).
fn jank_type_text(mask: i64) -> String {
    match mask {
        1 => "None",
        4 => "Prediction Error",
        16 => "SurfaceFlinger CPU Deadline Missed",
        64 => "App Deadline Missed",
        128 => "Buffer Stuffing",
        132 => "Prediction Error, Buffer Stuffing",
        192 => "App Deadline Missed, Buffer Stuffing",
        other => panic!("no expected text for jank mask {other}"),
    }
    .to_string()
}

/// (pid, jank bitmask) -> count of actual surface frames, from the MANIFEST.
fn check(trace: &str, display_frames: (i64, i64), expected: &[(i64, &[(i64, i64)])]) {
    let Some(dir) = common::shared("traces", "frame_timeline_real_traces") else {
        return;
    };
    let path = dir.join(trace);
    // The mask is recovered from the jank_type text through the args (raw bitmask is not a
    // column in Perfetto either), so compare via the text of each MANIFEST bitmask.
    let rows = common::query_csv(
        &path,
        "SELECT p.pid, a.jank_type, COUNT(*) FROM actual_frame_timeline_slice a \
         JOIN process p USING (upid) WHERE a.surface_frame_token IS NOT NULL \
         GROUP BY 1, 2 ORDER BY 1, 2",
    );
    let mut got: BTreeMap<(i64, String), i64> = BTreeMap::new();
    for r in &rows[1..] {
        got.insert((r[0].parse().unwrap(), r[1].clone()), r[2].parse().unwrap());
    }
    let mut want: BTreeMap<(i64, String), i64> = BTreeMap::new();
    for (pid, hist) in expected {
        for (mask, n) in *hist {
            *want.entry((*pid, jank_type_text(*mask))).or_default() += n;
        }
    }
    // Processes the MANIFEST does not list must not appear either.
    assert_eq!(got, want, "{trace}: surface frames by pid and jank type");

    let d = common::query_csv(
        &path,
        "SELECT (SELECT COUNT(*) FROM expected_frame_timeline_slice WHERE surface_frame_token IS NULL), \
                (SELECT COUNT(*) FROM actual_frame_timeline_slice WHERE surface_frame_token IS NULL)",
    );
    assert_eq!(
        (
            d[1][0].parse::<i64>().unwrap(),
            d[1][1].parse::<i64>().unwrap()
        ),
        display_frames,
        "{trace}: expected / actual display frames"
    );
}

#[test]
fn api35_startup_cold_classinit() {
    check(
        "androidx_api35_startup_cold_classinit.perfetto-trace",
        (53, 54),
        &[
            (1286, &[(1, 44), (4, 1), (64, 2), (128, 19), (132, 2)]),
            (
                3067,
                &[(1, 9), (4, 1), (64, 4), (128, 23), (132, 2), (192, 5)],
            ),
            (3363, &[(1, 6), (4, 1)]),
            (27246, &[(64, 1)]),
        ],
    );
}

#[test]
fn nowinandroid_api33() {
    check(
        "nowinandroid_demo_pixel7pro_api33.perfetto-trace",
        (801, 801),
        &[
            (9305, &[(1, 678), (64, 11), (128, 45), (192, 5)]),
            (1265, &[(1, 228)]),
            (4586, &[(1, 65), (128, 2)]),
            (13407, &[(1, 33), (64, 1)]),
        ],
    );
}

#[test]
fn api32_startup_warm() {
    check(
        "androidx_api32_startup_warm.perfetto-trace",
        (10, 10),
        &[
            (2348, &[(1, 1), (64, 1)]),
            (2969, &[(1, 2)]),
            (7663, &[(1, 2)]),
        ],
    );
}

#[test]
fn api32_odpm_rails() {
    // MANIFEST: ASF 6 (system_server 5, systemui 1 with jank 64); pids looked up by name.
    let Some(dir) = common::shared("traces", "api32_odpm_rails") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join("androidx_api32_odpm_rails.perfetto-trace"),
        "SELECT jank_type, COUNT(*) FROM actual_frame_timeline_slice \
         WHERE surface_frame_token IS NOT NULL GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(
        rows[1..],
        [
            vec!["App Deadline Missed".to_string(), "1".into()],
            vec!["None".into(), "5".into()]
        ]
    );
}

#[test]
fn present_types_of_nowinandroid_app() {
    // MANIFEST: pid 9305 present_type ON_TIME 678 / LATE 61.
    let Some(dir) = common::shared("traces", "present_types_of_nowinandroid_app") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join("nowinandroid_demo_pixel7pro_api33.perfetto-trace"),
        "SELECT present_type, COUNT(*) FROM actual_frame_timeline_slice JOIN process USING (upid) \
         WHERE pid = 9305 GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(
        rows[1..],
        [
            vec!["Late Present".to_string(), "61".into()],
            vec!["On-time Present".into(), "678".into()]
        ]
    );
}

#[test]
fn api24_traces_have_no_frame_timeline() {
    let Some(dir) = common::shared("traces", "api24_traces_have_no_frame_timeline") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join("androidx_api24_startup_cold.perfetto-trace"),
        "SELECT COUNT(*) FROM actual_frame_timeline_slice",
    );
    assert_eq!(rows[1][0], "0");
}
