//! `check` and `compare` on a Macrobenchmark output directory, end to end.
//!
//! The fixture is generated here in Macrobenchmark's layout: a
//! `<test package>-benchmarkData.json` shaped as androidx benchmark-common's
//! `json/BenchmarkData.kt` serialises it, beside iteration traces that are copies of the real
//! api35 trace in `../shared/traces/`. The JSON's numbers come from an independent port of
//! androidx `FrameTimingQuery` (1.4-era, read in the public mirror `xiaocainiaooo/room3`,
//! `benchmark/benchmark-macro/.../perfetto/FrameTimingQuery.kt`) written below over the rows
//! of its own SQL, run with `frameprobe query` — not by frameprobe's Macrobenchmark module —
//! and percentiles from androidx `MetricResult.getPercentile`. androidx's
//! `FrameTimingQueryTest.fixedTrace35_resynced` asserts 22 frames for `com.android.systemui`
//! in that trace; the port must give the same.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use serde_json::{json, Value};

const TRACE: &str = "traces/androidx_api35_startup_cold_classinit.perfetto-trace";
const TARGET: &str = "com.android.systemui";
const TEST_PACKAGE: &str = "com.android.systemui.benchmark";
const CLASS: &str = "com.android.systemui.benchmark.SysUiBenchmark";
const FINGERPRINT: &str = "google/mokey_go32/mokey_go32:15/AP3A.241005.015/12366759:userdebug";

/// A row of FrameTimingQuery's query (androidx `Slice`: `frameId` is the number after the
/// last space, `contains` includes both ends).
#[derive(Clone, PartialEq, Debug)]
struct Slice {
    name: String,
    ts: i64,
    dur: i64,
}

impl Slice {
    fn end(&self) -> i64 {
        self.ts + self.dur
    }
    fn frame_id(&self) -> Option<i64> {
        self.name.rsplit(' ').next()?.parse().ok()
    }
    fn contains(&self, t: i64) -> bool {
        t >= self.ts && t <= self.end()
    }
}

/// Kotlin's `List.binarySearch` by frame id, as FrameTimingQuery calls it.
fn binary_search_id(v: &[Slice], id: i64) -> Option<&Slice> {
    let (mut low, mut high) = (0i64, v.len() as i64 - 1);
    while low <= high {
        let mid = ((low + high) as u64 >> 1) as i64;
        let cmp = v[mid as usize].frame_id()? - id;
        if cmp < 0 {
            low = mid + 1;
        } else if cmp > 0 {
            high = mid - 1;
        } else {
            return Some(&v[mid as usize]);
        }
    }
    None
}

/// FrameTimingQuery's SQL, with `processNameLikePkg`; UNION drops identical rows.
fn query_sql(pkg: &str) -> String {
    let like = format!("(process.name LIKE '{pkg}' OR process.name LIKE '{pkg}:%')");
    format!(
        "SELECT slice.name AS name, slice.ts AS ts, slice.dur AS dur FROM slice
           INNER JOIN thread_track ON slice.track_id = thread_track.id
           INNER JOIN thread USING(utid) INNER JOIN process USING(upid)
         WHERE ((slice.name LIKE 'Choreographer#doFrame%' AND process.pid LIKE thread.tid) OR
                (slice.name LIKE 'DrawFrame%' AND thread.name LIKE 'RenderThread')) AND {like}
         UNION
         SELECT 'actual ' || actual_frame_timeline_slice.name, actual_frame_timeline_slice.ts,
                actual_frame_timeline_slice.dur
         FROM actual_frame_timeline_slice INNER JOIN process USING(upid) WHERE {like}
         UNION
         SELECT 'expected ' || expected_frame_timeline_slice.name, expected_frame_timeline_slice.ts,
                expected_frame_timeline_slice.dur
         FROM expected_frame_timeline_slice INNER JOIN process USING(upid) WHERE {like}
         ORDER BY ts ASC"
    )
}

/// Per frame (FrameDurationCpuNs, FrameOverrunNs), capture API ≥ 31 rules.
fn frame_timing(rows: &[Slice]) -> Vec<(i64, i64)> {
    let kept: Vec<&Slice> = rows
        .iter()
        .filter(|s| s.dur > 0 && !s.name.contains("resynced"))
        .collect();
    let group = |p: &str| -> Vec<Slice> {
        kept.iter()
            .filter(|s| s.name.starts_with(p))
            .map(|s| (*s).clone())
            .collect()
    };
    let (ui, rt, actual, expected) = (
        group("Choreographer#doFrame"),
        group("DrawFrame"),
        group("actual "),
        group("expected "),
    );
    let mut pool = actual.clone();
    let mut out = Vec::new();
    for r in &rt {
        let Some(u) = r.frame_id().and_then(|id| binary_search_id(&ui, id)) else {
            continue;
        };
        // The last unused actual slice starting before UI start + 50 µs and containing the
        // UI slice's midpoint; it leaves the pool.
        let Some(pos) = pool
            .iter()
            .rposition(|a| a.ts < u.ts + 50_000 && a.contains(u.ts + u.dur / 2))
        else {
            continue;
        };
        let a = pool.remove(pos);
        let Some(e) = a.frame_id().and_then(|id| binary_search_id(&expected, id)) else {
            continue;
        };
        out.push((r.end() - u.ts, a.end().max(r.end()) - e.end()));
    }
    out
}

/// androidx `MetricResult.getPercentile` (sorted data; lerp at p/100 × (n − 1)).
fn percentile(sorted: &[f64], p: u32) -> f64 {
    let ideal = p as f64 / 100.0 * (sorted.len() - 1) as f64;
    let first = ideal as usize;
    let a = sorted[first];
    let b = *sorted.get(first + 1).unwrap_or(&a);
    let r = ideal - first as f64;
    a * (1.0 - r) + b * r
}

/// The port's frames of the api35 trace for the target package (computed once).
fn port_frames(trace: &Path) -> &'static Vec<(i64, i64)> {
    static F: OnceLock<Vec<(i64, i64)>> = OnceLock::new();
    F.get_or_init(|| {
        let rows = common::query_csv(trace, &query_sql(TARGET));
        assert_eq!(rows[0], ["name", "ts", "dur"]);
        let slices: Vec<Slice> = rows[1..]
            .iter()
            .map(|r| Slice {
                name: r[0].clone(),
                ts: r[1].parse().unwrap(),
                dur: r[2].parse().unwrap(),
            })
            .collect();
        frame_timing(&slices)
    })
}

fn sampled(per_iteration: &[Vec<f64>]) -> Value {
    let mut all: Vec<f64> = per_iteration.iter().flatten().copied().collect();
    all.sort_by(f64::total_cmp);
    json!({"P50": percentile(&all, 50), "P90": percentile(&all, 90), "P95": percentile(&all, 95),
           "P99": percentile(&all, 99), "runs": per_iteration})
}

/// One benchmark's JSON entry for `iterations` copies of the trace (Macrobenchmark.kt labels
/// its traces `Trace Iteration N`; `listed: false` writes an older file without them).
fn benchmark_entry(trace: &Path, method: &str, iterations: usize, listed: bool) -> Value {
    let frames = port_frames(trace);
    let ms = |ns: i64| ns as f64 / 1_000_000.0;
    let cpu: Vec<Vec<f64>> = (0..iterations)
        .map(|_| frames.iter().map(|f| ms(f.0)).collect())
        .collect();
    let over: Vec<Vec<f64>> = (0..iterations)
        .map(|_| frames.iter().map(|f| ms(f.1)).collect())
        .collect();
    let count = frames.len() as f64;
    let mut b = json!({
        "name": method, "params": {}, "className": CLASS, "totalRunTimeNs": 1_000_000_000i64,
        "metrics": {"frameCount": {"minimum": count, "maximum": count, "median": count,
                                   "runs": vec![count; iterations]}},
        "sampledMetrics": {"frameDurationCpuMs": sampled(&cpu), "frameOverrunMs": sampled(&over)},
        "warmupIterations": 0, "repeatIterations": iterations, "thermalThrottleSleepSeconds": 0
    });
    if listed {
        b["profilerOutputs"] = (0..iterations)
            .map(|i| {
                json!({"type": "PerfettoTrace", "label": format!("Trace Iteration {i}"),
                            "filename": trace_name(method, i)})
            })
            .collect();
    }
    b
}

fn trace_name(method: &str, i: usize) -> String {
    format!("SysUiBenchmark_{method}_iter{i:03}_2026-12-01-03-00-{i:02}.perfetto-trace")
}

/// `connected_android_test_additional_output/.../<device>/` with two benchmarks: `startup`
/// (3 iterations, traces listed) and `scroll` (2 iterations, an older file naming them only
/// by file name).
fn fixture(tag: &str, edit: impl Fn(&mut Value)) -> Option<PathBuf> {
    let trace = common::shared(TRACE, tag)?;
    let root = std::env::temp_dir().join(format!("frameprobe-mb-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("connected_android_test_additional_output/benchmark/connected/Go - 15");
    std::fs::create_dir_all(&dir).unwrap();
    for (m, n) in [("startup", 3), ("scroll", 2)] {
        for i in 0..n {
            std::fs::copy(&trace, dir.join(trace_name(m, i))).unwrap();
        }
    }
    let mut data = json!({
        "context": {"build": {"brand": "google", "device": "mokey_go32", "fingerprint": FINGERPRINT,
                              "id": "AP3A.241005.015", "model": "mokey_go32", "type": "userdebug",
                              "version": {"codename": "REL", "sdk": 35}},
                    "cpuCoreCount": 8, "cpuLocked": true, "cpuMaxFreqHz": 2000000000i64,
                    "memTotalBytes": 2000000000i64, "sustainedPerformanceModeEnabled": false,
                    "artMainlineVersion": -1, "osCodenameAbbreviated": "A",
                    "compilationMode": "speed-profile", "payload": {}},
        "benchmarks": [benchmark_entry(&trace, "startup", 3, true),
                       benchmark_entry(&trace, "scroll", 2, false)]
    });
    edit(&mut data);
    std::fs::write(
        dir.join(format!("{TEST_PACKAGE}-benchmarkData.json")),
        serde_json::to_string_pretty(&data).unwrap(),
    )
    .unwrap();
    Some(root)
}

fn frameprobe(args: &[&str]) -> Output {
    common::run(args)
}

fn check(dir: &Path, extra: &[&str]) -> Output {
    let mut a = vec!["check", dir.to_str().unwrap(), "--jobs", "2"];
    a.extend_from_slice(extra);
    frameprobe(&a)
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn test_of<'a>(v: &'a Value, method: &str) -> &'a Value {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["benchmark"]["name"] == method)
        .unwrap_or_else(|| panic!("no benchmark {method} in {v}"))
}

#[test]
fn port_counts_the_frames_androidx_asserts() {
    let Some(trace) = common::shared(TRACE, "port_counts_the_frames_androidx_asserts") else {
        return;
    };
    // androidx FrameTimingQueryTest.fixedTrace35_resynced: 22 frames.
    assert_eq!(port_frames(&trace).len(), 22);
}

#[test]
fn check_finds_every_benchmark_and_reproduces_the_json() {
    let Some(d) = fixture("repro", |_| {}) else {
        return;
    };
    let out = check(
        &d,
        &["--rule", "frameDurationCpuMs_P50<=1000", "--format", "json"],
    );
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["process"], TARGET);
    assert_eq!(v["process_inferred"], true);
    assert!(v.get("warnings").is_none(), "{}", v["warnings"]);
    for (m, n) in [("startup", 3), ("scroll", 2)] {
        let t = test_of(&v, m);
        assert_eq!(t["benchmark"]["class_name"], CLASS);
        let its = t["iterations"].as_array().unwrap();
        assert_eq!(its.len(), n);
        for (i, it) in its.iter().enumerate() {
            assert_eq!(it["iteration"], i);
            assert_eq!(it["package"], TARGET);
            assert_eq!(it["frames"], 22);
        }
        let rows = t["benchmark"]["reproduction"].as_array().unwrap();
        // 2 sampled metrics × (4 percentiles + n runs) + n frame counts.
        assert_eq!(rows.len(), 2 * (4 + n) + n);
        for r in rows {
            assert_eq!(r["matches"], true, "{r}");
        }
        assert_eq!(t["rules"][0]["outcome"], "pass");
        assert_eq!(
            t["benchmark"]["context"]["build"]["fingerprint"],
            FINGERPRINT
        );
    }
    assert_eq!(
        v["metric_version"],
        frameprobe::analysis::definitions::METRIC_VERSION
    );
}

#[test]
fn edited_numbers_are_reported_as_mismatches() {
    let Some(d) = fixture("edited", |data| {
        let b = &mut data["benchmarks"][0]["sampledMetrics"]["frameOverrunMs"];
        let p95 = b["P95"].as_f64().unwrap();
        b["P95"] = json!(p95 + 0.5);
        let r = &mut data["benchmarks"][1]["sampledMetrics"]["frameDurationCpuMs"]["runs"][1][3];
        *r = json!(r.as_f64().unwrap() - 0.002);
    }) else {
        return;
    };
    let out = check(&d, &["--rule", "frame_count>=1", "--format", "json"]);
    let v = json_of(&out);
    // A mismatch is a warning, not a verdict.
    assert_eq!(out.status.code(), Some(0), "{v}");
    let w: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w.iter()
            .any(|w| w.starts_with(&format!("{CLASS}#startup pooled"))
                && w.contains("frameOverrunMs P95")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.starts_with(&format!("{CLASS}#scroll iteration 1"))
                && w.contains("frameDurationCpuMs runs")),
        "{w:?}"
    );
}

#[test]
fn exit_codes_per_benchmark_rules_and_run_context() {
    let Some(d) = fixture("exit", |_| {}) else {
        return;
    };
    // A rule for one benchmark only: startup fails, scroll has no such rule.
    let out = check(
        &d,
        &[
            "--rule",
            "*#startup:frameOverrunMs_P95<=0.001",
            "--format",
            "json",
        ],
    );
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(1), "{v}");
    assert_eq!(test_of(&v, "startup")["rules"][0]["outcome"], "fail");
    assert_eq!(test_of(&v, "scroll")["rules"].as_array().unwrap().len(), 0);

    // An emulator run is inconclusive unless allowed.
    let Some(e) = fixture("emulator", |data| {
        data["context"]["build"]["fingerprint"] =
            json!("google/sdk_gphone64_x86_64/emu64xa:14/UE1A/1:userdebug/dev-keys");
    }) else {
        return;
    };
    let out = check(&e, &["--max-p99-cpu-ms", "1000", "--format", "json"]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(v["outcome"], "inconclusive");
    assert_eq!(
        test_of(&v, "startup")["trust"]["reasons"][0]["id"],
        "emulator"
    );
    let out = check(&e, &["--max-p99-cpu-ms", "1000", "--allow-inconclusive"]);
    assert_eq!(out.status.code(), Some(0));

    // Unlocked clocks: inconclusive, or degraded with --allow-unlocked-clocks.
    let Some(u) = fixture("unlocked", |data| {
        data["context"]["cpuLocked"] = json!(false)
    }) else {
        return;
    };
    let out = check(&u, &["--max-p99-cpu-ms", "1000", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        test_of(&json_of(&out), "scroll")["trust"]["reasons"][0]["id"],
        "clocks_unlocked"
    );
    let out = check(
        &u,
        &[
            "--max-p99-cpu-ms",
            "1000",
            "--allow-unlocked-clocks",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)["trust"], "degraded");
}

#[test]
fn a_corrupt_iteration_is_reported_and_the_others_evaluated() {
    let Some(d) = fixture("corrupt", |_| {}) else {
        return;
    };
    let dev = d.join("connected_android_test_additional_output/benchmark/connected/Go - 15");
    std::fs::write(
        dev.join(trace_name("startup", 1)),
        b"{\"not\": \"a trace\"}",
    )
    .unwrap();
    // And a second device whose benchmarkData.json is not JSON: named, the rest evaluated.
    let other = d.join("connected_android_test_additional_output/benchmark/connected/Other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("x.bench-benchmarkData.json"),
        b"{\"benchmarks\": [",
    )
    .unwrap();
    let out = check(&d, &["--max-p99-cpu-ms", "1000", "--format", "json"]);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(2), "{v}");
    let errors = v["errors"].to_string();
    assert!(
        errors.contains(&format!("{CLASS}#startup iteration 1")),
        "{errors}"
    );
    assert!(
        errors.contains("x.bench-benchmarkData.json: not a Macrobenchmark benchmarkData.json"),
        "{errors}"
    );
    let t = test_of(&v, "startup");
    let its: Vec<i64> = t["iterations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["iteration"].as_i64().unwrap())
        .collect();
    assert_eq!(its, [0, 2]);
    assert_eq!(t["rules"][0]["outcome"], "pass");
    assert_eq!(
        test_of(&v, "scroll")["iterations"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

/// The text of every table cell of a Markdown document, rendered by a CommonMark parser
/// (GitHub tables), row by row.
fn rendered_table_cells(md: &str) -> Vec<Vec<String>> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut rows = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut cell: Option<String> = None;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => row.push(cell.take().unwrap()),
            Event::End(TagEnd::TableRow) | Event::End(TagEnd::TableHead) => {
                rows.push(std::mem::take(&mut row))
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    rows
}

#[test]
fn markdown_rule_cells_render_as_the_rules() {
    let Some(d) = fixture("markdown", |_| {}) else {
        return;
    };
    let rules = [
        "jank_rate_pct<=50",
        "jank_rate_pct[Self Jank]<=50",
        "frame_cpu_ms_p99<=1000",
        "frame_count>=10",
    ];
    let mut args = vec!["--format", "markdown"];
    for r in &rules {
        args.extend(["--rule", r]);
    }
    let md = String::from_utf8(check(&d, &args).stdout).unwrap();
    let mut j = args.clone();
    j[1] = "json";
    let v = json_of(&check(&d, &j));
    // The rule as JSON states it: metric, bound, limit, unit.
    let expected: Vec<String> = v["tests"][0]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let op = if r["bound"] == "max" { "<=" } else { ">=" };
            format!(
                "{} {op} {} {}",
                r["metric"].as_str().unwrap(),
                r["limit"].as_f64().unwrap(),
                r["unit"].as_str().unwrap()
            )
        })
        .collect();
    let cells = rendered_table_cells(&md);
    let rule_rows: Vec<&Vec<String>> = cells
        .iter()
        .filter(|r| r.len() == 5 && r[0] != "rule")
        .collect();
    assert_eq!(rule_rows.len(), 2 * rules.len(), "{md}");
    for (row, want) in rule_rows.iter().zip(expected.iter().cycle()) {
        assert_eq!(&row[0], want, "{md}");
        // Each row says what it is counted over.
        assert!(row[2].contains("frames"), "{row:?}");
    }
    assert!(!md.contains("&lt;"), "{md}");
}

#[test]
fn junit_and_annotations() {
    let Some(d) = fixture("junit", |_| {}) else {
        return;
    };
    let out = check(
        &d,
        &[
            "--rule",
            "frame_cpu_ms_p99<=1000",
            "--rule",
            "frameOverrunMs_P95<=0.001",
            "--format",
            "junit",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suites: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), 2, "one suite per benchmark");
    let names: Vec<&str> = suites
        .iter()
        .map(|s| s.attribute("name").unwrap())
        .collect();
    assert_eq!(
        names,
        [format!("{CLASS}#scroll"), format!("{CLASS}#startup")]
    );
    for s in &suites {
        let cases: Vec<_> = s
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        assert_eq!(cases.len(), 2, "one case per rule");
        assert_eq!(
            cases
                .iter()
                .filter(|c| c.children().any(|f| f.has_tag_name("failure")))
                .count(),
            1
        );
    }
    // Inside GitHub Actions: one ::error per failed rule of each benchmark.
    let gh = std::process::Command::new(common::bin())
        .args([
            "check",
            d.to_str().unwrap(),
            "--rule",
            "frameOverrunMs_P95<=0.001",
        ])
        .env("GITHUB_ACTIONS", "true")
        .output()
        .unwrap();
    let err = String::from_utf8(gh.stderr).unwrap();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("::error ")).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(&format!("::error title=frameprobe check%3A {CLASS}#")),
        "{}",
        lines[0]
    );
    let quiet = std::process::Command::new(common::bin())
        .args([
            "check",
            d.to_str().unwrap(),
            "--rule",
            "frameOverrunMs_P95<=0.001",
        ])
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    assert!(!String::from_utf8(quiet.stderr).unwrap().contains("::error"));
}

#[test]
fn compare_two_output_directories_in_every_format() {
    let (Some(b), Some(c)) = (fixture("cmp-base", |_| {}), fixture("cmp-cand", |_| {})) else {
        return;
    };
    for format in ["table", "json", "markdown", "junit"] {
        let out = frameprobe(&[
            "compare",
            "--baseline",
            b.to_str().unwrap(),
            "--candidate",
            c.to_str().unwrap(),
            "--format",
            format,
            "--resamples",
            "50",
            "--jobs",
            "2",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{format}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if format == "json" {
            let v = json_of(&out);
            let tests: Vec<&str> = v["tests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["test"].as_str().unwrap())
                .collect();
            assert_eq!(tests, ["SysUiBenchmark_scroll", "SysUiBenchmark_startup"]);
            assert_eq!(v["tests"][0]["baseline"][0]["package"], TARGET);
        }
    }
}

#[test]
fn compare_against_a_saved_check_report() {
    let Some(d) = fixture("saved", |_| {}) else {
        return;
    };
    let out = check(&d, &["--rule", "frame_count>=1", "--format", "json"]);
    let mut saved = json_of(&out);
    let path = d.join("baseline.json");
    std::fs::write(&path, saved.to_string()).unwrap();
    let compare = |baseline: &Path| {
        frameprobe(&[
            "compare",
            "--baseline",
            baseline.to_str().unwrap(),
            "--candidate",
            d.to_str().unwrap(),
            "--format",
            "json",
        ])
    };
    let out = compare(&path);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    assert_eq!(v["tests"].as_array().unwrap().len(), 2);
    // The same numbers: no change, and no interval (there are no saved frames to resample).
    let m = &v["tests"][0]["metrics"];
    let p50 = m
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["metric"] == "frame_cpu_ms_p50")
        .unwrap();
    assert_eq!(p50["difference"], 0.0);
    assert!(p50["ci_low"].is_null());
    // A baseline 5 ms faster at P50 (the candidate's is about 15.9 ms): +5 ms, over 30%,
    // past both default thresholds (1 ms and 10%).
    let t = &mut saved["tests"][1]["metrics"]["frame_cpu_ms_p50"];
    *t = json!(t.as_f64().unwrap() - 5.0);
    std::fs::write(&path, saved.to_string()).unwrap();
    let out = compare(&path);
    assert_eq!(out.status.code(), Some(1), "{}", json_of(&out));
    // Another metric version is refused.
    saved["metric_version"] = json!(999);
    std::fs::write(&path, saved.to_string()).unwrap();
    let out = compare(&path);
    assert_eq!(out.status.code(), Some(2));
    assert!(json_of(&out)["errors"]
        .to_string()
        .contains("metric version 999"));
}

/// Every analyze metric as a rule, pooled over the 3 startup iterations (copies of one trace).
/// Expected values: the reconciliation rows, vsync histogram and top causes of
/// `frameprobe analyze --format json` on one copy, times 3 (the gate pools analyze's verdicts,
/// it does not re-judge frames); the FrameTimeline rate also against the oracle's 12 janky of
/// 44 app frames per iteration (trace_processor's `actual_frame_timeline_slice`).
#[test]
fn analyze_metrics_are_pooled_over_iterations_with_their_denominators() {
    let Some(d) = fixture("analyzed", |_| {}) else {
        return;
    };
    let trace = common::shared(TRACE, "analyzed").unwrap();
    let a = frameprobe(&[
        "analyze",
        trace.to_str().unwrap(),
        "--process",
        TARGET,
        "--format",
        "json",
    ]);
    let p = &json_of(&a)["processes"][0];
    let rec = &p["reconciliation"][0];
    assert_eq!(rec["scope"], "process");
    let row = |k: &str| {
        let r = rec["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["definition"] == k)
            .unwrap();
        (r["count"].as_u64().unwrap(), r["of"].as_u64().unwrap())
    };
    let missed: u64 = rec["missed_vsyncs_histogram"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, n)| k.parse::<u64>().unwrap() * n.as_u64().unwrap())
        .sum();
    let binder_ms = p["causes"]["top_by_ms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["category"] == "binder")
        .map_or(0.0, |c| c["total_ms"].as_f64().unwrap());
    // Every definition analyze reconciles, by its id (names only; values come from analyze).
    let defs = frameprobe::analysis::definitions::Definition::ALL.map(|d| d.key());
    // (metric, expected value, denominator number)
    let mut expect: Vec<(String, f64, u64)> = defs
        .iter()
        .map(|k| {
            let (c, of) = row(k);
            (
                format!("jank_rate_pct_{k}"),
                (3 * c) as f64 * 100.0 / (3 * of) as f64,
                3 * of,
            )
        })
        .collect();
    let (mv, mv_of) = row("missed_vsyncs");
    let (slow, slow_of) = row("vitals");
    expect.push(("missed_vsyncs".into(), (3 * missed) as f64, 3 * mv_of));
    expect.push(("frames_missed_vsync".into(), (3 * mv) as f64, 3 * mv_of));
    expect.push(("slow_frames".into(), (3 * slow) as f64, 3 * slow_of));
    expect.push(("cause_ms[binder]".into(), 3.0 * binder_ms, 3 * 12));
    // The oracle: 12 janky FrameTimeline frames of 44 per iteration.
    assert_eq!(row("frame_timeline"), (12, 44));
    let mut args = vec![];
    for (m, _, _) in &expect {
        args.push("--rule".to_string());
        args.push(format!("*#startup:{m}<=1e9"));
    }
    args.extend(["--format".into(), "json".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = check(&d, &args);
    let v = json_of(&out);
    assert_eq!(out.status.code(), Some(0), "{v}");
    let rules = test_of(&v, "startup")["rules"].as_array().unwrap();
    for (r, (m, value, of)) in rules.iter().zip(&expect) {
        assert_eq!(r["metric"], m.as_str());
        let got = r["value"].as_f64().unwrap();
        assert!((got - value).abs() < 1e-5, "{m}: {got} != {value}");
        assert_eq!(r["per_iteration"].as_array().unwrap().len(), 3);
        let den = r["denominator"].as_str().unwrap();
        assert!(den.contains(&format!(" {of} ")), "{m}: {den}");
        assert!(den.contains("3 iterations"), "{m}: {den}");
    }
    assert!((rules[0]["value"].as_f64().unwrap() - 1200.0 / 44.0).abs() < 1e-5);

    // A limit just above the pooled slow frames passes, just below fails.
    let at = 3 * slow;
    let rule = |lim: u64| format!("*#startup:slow_frames<={lim}");
    assert_eq!(check(&d, &["--rule", &rule(at)]).status.code(), Some(0));
    assert_eq!(check(&d, &["--rule", &rule(at - 1)]).status.code(), Some(1));

    // Unknown definitions and cause categories are named in the error.
    for bad in ["jank_rate_pct_gfx<=1", "cause_ms[nope]<=1"] {
        let out = check(&d, &["--rule", bad]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unknown metric"), "{err}");
        assert!(err.contains(bad.split("<=").next().unwrap()), "{err}");
        // ... and the error lists the names that do exist.
        for known in [
            "frameOverrunMs_P50",
            "perfetto_stdlib",
            "slow_frames",
            "cause_ms[",
        ] {
            assert!(err.contains(known), "{known} not listed: {err}");
        }
    }
}
