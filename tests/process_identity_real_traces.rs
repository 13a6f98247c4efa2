//! Process and thread identity on the real traces against trace_processor v58.2's own
//! answers (../shared/perfetto-oracle: the `processes` and `threads` queries), plus the
//! facts the analysis builds on them (API level, `-p` by package name). Skips with a
//! message when the reference material is absent.

mod common;

use std::path::PathBuf;

/// NULL is `[NULL]` in the oracle and an empty cell in frameprobe's CSV.
fn normalize(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.into_iter()
        .map(|r| {
            r.into_iter()
                .map(|c| if c == "[NULL]" { String::new() } else { c })
                .collect()
        })
        .collect()
}

#[test]
fn processes_and_threads_match_trace_processor() {
    let Some(oracle) = common::shared("perfetto-oracle", "processes_and_threads_match") else {
        return;
    };
    let shared = oracle.parent().unwrap().to_path_buf();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut traces: Vec<_> = std::fs::read_dir(oracle.join("expected"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    traces.sort();
    for trace in &traces {
        let Some(file) = common::oracle_trace(&shared, trace) else {
            continue;
        };
        for query in ["processes", "threads"] {
            let sql = std::fs::read_to_string(oracle.join(format!("queries/{query}.sql"))).unwrap();
            let expected_csv =
                std::fs::read_to_string(oracle.join(format!("expected/{trace}/{query}.csv")))
                    .unwrap();
            let expected = normalize(common::parse_csv(&expected_csv));
            // The oracle was made with trace_processor's Python API, whose default does not
            // ingest ftrace into the raw table (so raw-only events create no thread).
            let out = common::run(&[
                "query",
                file.to_str().unwrap(),
                &sql,
                "--format",
                "csv",
                "--no-ftrace-raw",
            ]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let actual = normalize(common::parse_csv(&String::from_utf8(out.stdout).unwrap()));
            compared += 1;
            let first_diff = (0..expected.len().max(actual.len()))
                .find(|&i| expected.get(i) != actual.get(i))
                .map(|i| (i, expected.get(i).cloned(), actual.get(i).cloned()));
            if let Some((i, e, a)) = first_diff {
                failures.push(format!(
                    "{trace}/{query} row {i}: expected {e:?}, got {a:?} ({} vs {} rows)",
                    expected.len(),
                    actual.len()
                ));
            }
        }
    }
    assert!(compared >= 20, "only {compared} oracle pairs found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn trace(name: &str, test: &str) -> Option<PathBuf> {
    common::shared(&format!("traces/{name}.perfetto-trace"), test)
}

#[test]
fn process_tree_facts_survive_on_api24() {
    let Some(t) = trace("androidx_api24_startup_cold", "process_tree_facts") else {
        return;
    };
    // From the oracle's processes.csv: uid and parent of the benchmark target, and the
    // process tree's cmdline (which no kernel rename changes).
    let rows = common::query_csv(
        &t,
        "select p.uid, pp.pid, p.cmdline from process p left join process pp on pp.upid = p.parent_upid where p.pid = 7694",
    );
    assert_eq!(
        rows[1],
        [
            "10093",
            "533",
            "androidx.benchmark.integration.macrobenchmark.target"
        ]
    );
    // The fingerprint (google/bullhead/bullhead:7.0/NRD91N/3318108:...) gives API 24, as
    // trace_processor's metadata says.
    let rows = common::query_csv(
        &t,
        "select name, int_value, str_value from metadata where name in ('android_sdk_version', 'android_incremental_build') order by name",
    );
    assert_eq!(rows[1], ["android_incremental_build", "", "3318108"]);
    assert_eq!(rows[2], ["android_sdk_version", "24", ""]);
}

#[test]
fn analyze_finds_the_benchmark_target_by_package_on_api24() {
    let Some(t) = trace("androidx_api24_startup_cold", "analyze_finds_target") else {
        return;
    };
    let out = common::run(&[
        "analyze",
        t.to_str().unwrap(),
        "-p",
        "androidx.benchmark.integration.macrobenchmark.target",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["api_level"], 24);
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(0));
    let procs = v["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 1);
    assert_eq!(procs[0]["pid"], 7694);
    // Macrobenchmark's FrameTimingMetric counts 2 frames for the target (MANIFEST: 3
    // doFrame, 2 DrawFrame).
    assert_eq!(procs[0]["macrobenchmark"]["frameCount"], 2);
    // Their CPU durations (issue: 35.093750 and 20.810938 ms, the values androidx's
    // FrameTimingQuery gives with trace_processor's clock conversion): with two frames the
    // max is the first and the median their mean.
    let cpu = &procs[0]["macrobenchmark"]["frameDurationCpuMs"];
    assert_eq!(cpu["max"].as_f64(), Some(35.09375));
    let p50 = cpu["p50"].as_f64().unwrap();
    assert!((p50 - (35.09375 + 20.810938) / 2.0).abs() < 1e-6, "{p50}");
}

#[test]
fn layer_names_do_not_rename_systemui_on_nowinandroid() {
    let Some(t) = trace("nowinandroid_demo_pixel7pro_api33", "layer_names") else {
        return;
    };
    let out = common::run(&["analyze", t.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let name_of = |pid: i64| {
        v["processes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["pid"] == pid)
            .map(|p| (p["name"].clone(), p["name_source"].clone()))
            .unwrap()
    };
    // No process tree: every name is a guess. 9305 draws the app's activity window;
    // 13407 draws "Splash Screen <app>" and "StatusBar" (it is SystemUI): no name.
    assert_eq!(
        name_of(9305),
        (
            "com.google.samples.apps.nowinandroid.demo".into(),
            "layer".into()
        )
    );
    assert_eq!(
        name_of(13407),
        (serde_json::Value::Null, serde_json::Value::Null)
    );
    assert_eq!(v["api_level"], 33);
}
