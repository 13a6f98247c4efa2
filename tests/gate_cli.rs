//! The CI gate end to end: `compare` flags an injected regression and nothing else;
//! `check` passes and fails around the measured values with exit codes 0/1/2; JUnit and
//! Markdown outputs are well formed.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use frameprobe::analysis::definitions::METRIC_VERSION;
use frameprobe_tools::synth::{generate, SynthConfig};
use serde_json::Value;

fn write_set(dir: &Path, name: &str, seeds: &[u64], cfg: &SynthConfig) -> PathBuf {
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for (i, s) in seeds.iter().enumerate() {
        let t = generate(&SynthConfig {
            seed: *s,
            ..cfg.clone()
        });
        std::fs::write(
            d.join(format!(
                "ScrollBenchmark_scroll_iter{i:03}_2026-11-29-10-00-00.perfetto-trace"
            )),
            t.bytes,
        )
        .unwrap();
    }
    d
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frameprobe-gate-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn base_cfg() -> SynthConfig {
    SynthConfig {
        frames: 120,
        jank_rate: 0.10,
        ..Default::default()
    }
}

fn compare(base: &Path, cand: &Path, format: &str) -> Output {
    common::run(&[
        "compare",
        "--baseline",
        base.to_str().unwrap(),
        "--candidate",
        cand.to_str().unwrap(),
        "--process",
        "com.example.scroller",
        "--format",
        format,
        "--jobs",
        "2",
    ])
}

fn verdicts(out: &Output) -> Value {
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let mut m = serde_json::Map::new();
    for c in v["tests"][0]["metrics"].as_array().unwrap() {
        m.insert(
            c["metric"].as_str().unwrap().to_string(),
            c["verdict"].clone(),
        );
    }
    Value::Object(m)
}

#[test]
fn injected_regression_is_flagged() {
    let d = tmp("regress");
    let base = write_set(&d, "base", &[1, 2, 3, 4, 5], &base_cfg());
    // 10 points more slowed frames, each 4 ms slower.
    let worse = SynthConfig {
        jank_rate: 0.20,
        slow_extra_ns: base_cfg().slow_extra_ns + 4_000_000,
        ..base_cfg()
    };
    let cand = write_set(&d, "cand", &[6, 7, 8, 9, 10], &worse);
    let out = compare(&base, &cand, "json");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = verdicts(&out);
    assert_eq!(v["jank_rate_pct"], "regression");
    assert_eq!(v["frame_overrun_ms_p95"], "regression");
    assert_eq!(v["frame_count"], "informational");
}

#[test]
fn identical_sets_and_iteration_noise_do_not_flag() {
    let d = tmp("noise");
    let base = write_set(&d, "base", &[1, 2, 3, 4, 5], &base_cfg());
    let same = compare(&base, &base, "json");
    assert_eq!(same.status.code(), Some(0));
    let v = verdicts(&same);
    assert!(v.as_object().unwrap().values().all(|x| x != "regression"));
    // Other seeds of the same configuration: the iteration-to-iteration noise.
    let other = write_set(&d, "other", &[11, 12, 13, 14, 15], &base_cfg());
    let noisy = compare(&base, &other, "json");
    let v = verdicts(&noisy);
    assert!(
        v.as_object().unwrap().values().all(|x| x != "regression"),
        "{v}"
    );
    assert_eq!(noisy.status.code(), Some(0));
}

#[test]
fn compare_markdown_and_junit() {
    let d = tmp("cmpfmt");
    let base = write_set(&d, "base", &[1, 2, 3], &base_cfg());
    let cand = write_set(
        &d,
        "cand",
        &[4, 5, 6],
        &SynthConfig {
            jank_rate: 0.3,
            ..base_cfg()
        },
    );
    let md = String::from_utf8(compare(&base, &cand, "markdown").stdout).unwrap();
    assert!(md.starts_with("## "), "{md}");
    assert!(md.contains("| metric | baseline | candidate | change | 95% CI of change | verdict |"));
    assert!(md.contains("**REGRESSION**"));
    let xml = String::from_utf8(compare(&base, &cand, "junit").stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit is XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let failures: usize = root.attribute("failures").unwrap().parse().unwrap();
    let failed_cases = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .count();
    assert_eq!(failures, failed_cases);
    assert!(failures >= 1);
    // Every result says which definitions produced it.
    let version = metric_version_property(&doc);
    assert_eq!(version, Some(METRIC_VERSION.to_string()));
    assert!(md.contains(&format!("Metric version: {METRIC_VERSION}")));
    let json: Value = serde_json::from_slice(&compare(&base, &cand, "json").stdout).unwrap();
    assert_eq!(json["metric_version"], METRIC_VERSION);
    let table = String::from_utf8(compare(&base, &cand, "table").stdout).unwrap();
    assert!(table.contains(&format!("metric version: {METRIC_VERSION}")));
}

/// The `metric_version` property of the JUnit test suites (all of them must agree).
fn metric_version_property(doc: &roxmltree::Document) -> Option<String> {
    let values: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("property") && n.attribute("name") == Some("metric_version"))
        .filter_map(|n| n.attribute("value"))
        .collect();
    assert!(values.windows(2).all(|w| w[0] == w[1]));
    values.first().map(|v| v.to_string())
}

/// Measured values of the api35 systemui trace, by rule.
fn check_real(limits: &[(&str, f64)], process: &str) -> Option<(Output, PathBuf)> {
    let dir = common::shared("traces", "check_on_a_real_trace")?;
    let trace = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let mut args: Vec<String> = vec![
        "check".into(),
        trace.display().to_string(),
        "--process".into(),
        process.into(),
        "--format".into(),
        "json".into(),
    ];
    for (k, v) in limits {
        args.push(format!("--{k}"));
        args.push(v.to_string());
    }
    let refs: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
    Some((common::run(&refs), trace))
}

#[test]
fn check_passes_and_fails_around_the_measured_values_on_a_real_trace() {
    let Some((probe, trace)) = check_real(
        &[
            ("max-p99-cpu-ms", 1e9),
            ("max-jank-rate", 100.0),
            ("min-frames", 1.0),
        ],
        "com.android.systemui",
    ) else {
        return;
    };
    assert_eq!(
        probe.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&probe.stdout)
    );
    let v: Value = serde_json::from_slice(&probe.stdout).unwrap();
    let rules = &v["tests"][0]["rules"];
    let cpu = rules[1]["value"]
        .as_f64()
        .filter(|_| rules[1]["metric"] == "frame_cpu_ms_p99")
        .or_else(|| rules[0]["value"].as_f64())
        .unwrap();
    let jank = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "jank_rate_pct")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    let cpu_v = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "frame_cpu_ms_p99")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert_eq!(cpu, cpu_v);
    // The measured values themselves, from the references: trace_processor's jank tags for
    // systemui (pid 3067) in the oracle, and the frames androidx's FrameTimingQueryTest
    // expects (MANIFEST: 22).
    let shared = trace.parent().unwrap().parent().unwrap();
    let oracle =
        std::fs::read_to_string(shared.join(
            "perfetto-oracle/expected/androidx_api35_startup_cold_classinit/actual_frames.csv",
        ))
        .unwrap();
    let rows = common::parse_csv(&oracle);
    let (pid, tag) = (
        rows[0].iter().position(|c| c == "pid").unwrap(),
        rows[0].iter().position(|c| c == "jank_tag").unwrap(),
    );
    let tags: Vec<&str> = rows[1..]
        .iter()
        .filter(|r| r[pid] == "3067")
        .map(|r| r[tag].as_str())
        .collect();
    let janky = tags
        .iter()
        .filter(|t| matches!(**t, "Self Jank" | "Other Jank" | "Dropped Frame"))
        .count();
    assert!((jank - 100.0 * janky as f64 / tags.len() as f64).abs() < 1e-4);
    let frames = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "frame_count")
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    assert_eq!(frames, 22.0);
    let (above, _) = check_real(
        &[
            ("max-p99-cpu-ms", cpu_v + 0.01),
            ("max-jank-rate", jank + 0.01),
        ],
        "com.android.systemui",
    )
    .unwrap();
    assert_eq!(above.status.code(), Some(0));
    let (below, _) = check_real(
        &[
            ("max-p99-cpu-ms", cpu_v - 0.01),
            ("max-jank-rate", jank + 0.01),
        ],
        "com.android.systemui",
    )
    .unwrap();
    assert_eq!(below.status.code(), Some(1));
    let (missing, _) = check_real(&[("max-p99-cpu-ms", 100.0)], "com.example.not.there").unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn check_outputs_and_unreadable_traces() {
    let d = tmp("checkfmt");
    let set = write_set(&d, "set", &[1, 2, 3], &base_cfg());
    let args = |fmt: &str| {
        common::run(&[
            "check",
            set.to_str().unwrap(),
            "--process",
            "com.example.scroller",
            "--max-jank-rate",
            "50",
            "--max-p99-cpu-ms",
            "1",
            "--format",
            fmt,
        ])
    };
    let xml = String::from_utf8(args("junit").stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("JUnit is XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 2, "one test case per rule");
    assert_eq!(
        metric_version_property(&doc),
        Some(METRIC_VERSION.to_string())
    );
    assert_eq!(
        doc.descendants()
            .filter(|n| n.has_tag_name("failure"))
            .count(),
        1
    );
    let md = String::from_utf8(args("markdown").stdout).unwrap();
    assert!(md.contains("| rule | measured | over | per iteration | result |"));
    assert!(md.contains("FAIL"));
    assert_eq!(args("table").status.code(), Some(1));
    // One damaged trace: reported, the others still evaluated, exit 2.
    std::fs::write(
        set.join("ScrollBenchmark_scroll_iter009_bad.perfetto-trace"),
        b"\xff\xfenot a trace",
    )
    .unwrap();
    let out = args("json");
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["errors"][0].as_str().unwrap().contains("iter009_bad"));
    assert_eq!(v["tests"][0]["iterations"].as_array().unwrap().len(), 3);
    // A config file with the same rules.
    let cfg = d.join("gate.toml");
    std::fs::write(
        &cfg,
        "process = \"com.example.scroller\"\nmax_jank_rate = 50\n",
    )
    .unwrap();
    std::fs::remove_file(set.join("ScrollBenchmark_scroll_iter009_bad.perfetto-trace")).unwrap();
    let out = common::run(&[
        "check",
        set.to_str().unwrap(),
        "--config",
        cfg.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
