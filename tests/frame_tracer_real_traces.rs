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
    // Expected: trace_processor's own rows (the oracle's frame_slices query, same columns
    // first) for the layer, in the same ts order; ties keep the oracle's track/name order.
    let oracle = oracle_rows(&dir, "frame_slices");
    let mut want: Vec<Vec<String>> = oracle[1..]
        .iter()
        .filter(|r| r[5].contains(&layer))
        .map(|r| r[..6].to_vec())
        .collect();
    let mut got: Vec<Vec<String>> = rows[1..].to_vec();
    assert!(!want.is_empty(), "the oracle has rows for {layer}");
    let ts: Vec<i64> = got.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "ordered by ts");
    // The seed SQL orders by ts only: compare as sets of rows.
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// trace_processor v58.2's answer to one oracle query on this trace (header first).
fn oracle_rows(traces: &std::path::Path, query: &str) -> Vec<Vec<String>> {
    let p = traces
        .parent()
        .unwrap()
        .join("perfetto-oracle/expected")
        .join(TRACE.trim_end_matches(".perfetto-trace"))
        .join(format!("{query}.csv"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    common::parse_csv(&text)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|c| if c == "[NULL]" { String::new() } else { c })
                .collect()
        })
        .collect()
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
    // Expected: the oracle's per-frame phases (ns, every layer) for this layer; the seed SQL
    // divides by 1e6, so both sides are compared as whole nanoseconds.
    let ns = |c: &String| {
        c.parse::<f64>()
            .map_or(String::new(), |x| (x * 1e6).round().to_string())
    };
    let oracle = oracle_rows(&dir, "frame_slices_seed001_sql2");
    let mut want: Vec<Vec<String>> = oracle[1..]
        .iter()
        .filter(|r| glob_like(&layer, &r[0]))
        .map(|r| r[..6].to_vec())
        .collect();
    let mut got: Vec<Vec<String>> = rows[1..]
        .iter()
        .map(|r| {
            r[..2]
                .iter()
                .cloned()
                .chain(r[2..6].iter().map(ns))
                .collect()
        })
        .collect();
    assert!(!want.is_empty(), "the oracle has frames of {layer}");
    want.sort();
    got.sort();
    assert_eq!(got, want);
}

/// `*pattern*` with `?` standing for the characters the test replaced.
fn glob_like(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    (0..=n.len().saturating_sub(p.len()))
        .any(|i| p.iter().zip(&n[i..]).all(|(a, b)| *a == '?' || a == b))
}
