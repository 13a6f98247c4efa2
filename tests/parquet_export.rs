//! `export --parquet`: the files read back with pyarrow and DuckDB (through `python3`) hold
//! exactly what `frames --format csv` and `analyze --format csv` print for the same trace,
//! which is where every expected value here comes from.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Whether `python3` on PATH has pyarrow and DuckDB; skipped without (fails under CI).
fn python_ready(test: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import pyarrow, duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        let why = "python3 with pyarrow and duckdb is not on PATH";
        assert!(!common::in_ci(), "{test}: {why}, and CI must have it");
        common::skip(test, why);
    }
    ok
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("frameprobe-parquet-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn frameprobe(args: &[&str]) -> std::process::Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn export(inputs: &[&Path], out: &Path) -> std::process::Output {
    let mut args = vec!["export".to_string()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    args.extend(["--parquet".into(), out.display().to_string()]);
    args.extend(["--jobs".into(), "2".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    frameprobe(&args)
}

/// A CSV command's rows, header first.
fn csv(args: &[&str]) -> Vec<Vec<String>> {
    let o = frameprobe(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(o.stdout.as_slice())
        .into_records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

fn read_back(out: &Path) -> Value {
    let script = common::repo().join("tests/parquet_export/read_back.py");
    let o = Command::new("python3")
        .arg(script)
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A Parquet value equals a CSV cell: null is the empty cell, booleans the 0/1 verdicts,
/// numbers the same number (the CSV's shortest round-trip text parses to the same f64).
fn same(cell: &str, v: &Value) -> bool {
    match v {
        Value::Null => cell.is_empty(),
        Value::Bool(b) => cell == if *b { "1" } else { "0" },
        Value::Number(n) if n.is_i64() => cell == n.to_string(),
        Value::Number(n) => cell.parse::<f64>().ok() == n.as_f64(),
        Value::String(s) => cell == s,
        _ => false,
    }
}

/// The columns in front of the CSV's (docs/parquet.md, "Columns in both tables").
const TRACE_COLUMNS: usize = 7;

/// Checks one trace's two files against the CSVs; returns its trace id.
fn check_trace(doc: &Value, trace: &Path) -> String {
    let path = trace.display().to_string();
    let files = doc["files"].as_object().unwrap();
    // A trace's file is the one whose rows name its path (every trace here has frames).
    let mine = |table: &str| {
        let hits: Vec<_> = files
            .iter()
            .filter(|(name, f)| {
                name.starts_with(&format!("{table}/")) && f["rows"][0][2] == path.as_str()
            })
            .collect();
        assert_eq!(hits.len(), 1, "{table} file of {path}");
        hits[0]
    };
    let mut id = String::new();
    for (table, args) in [
        ("frames", vec!["frames", &path, "--format", "csv"]),
        ("summary", vec!["analyze", &path, "--format", "csv"]),
    ] {
        let want = csv(&args);
        let (name, f) = mine(table);
        assert_eq!(f["version"], "1", "{name}: frameprobe.schema_version");
        let cols: Vec<&str> = f["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(
            cols[TRACE_COLUMNS..],
            want[0].iter().map(String::as_str).collect::<Vec<_>>()[..],
            "{name}"
        );
        let rows = f["rows"].as_array().unwrap();
        assert_eq!(rows.len(), want.len() - 1, "{name}: one row per CSV row");
        for (i, (row, cells)) in rows.iter().zip(&want[1..]).enumerate() {
            let row = row.as_array().unwrap();
            assert_eq!(row[0], 1, "{name} row {i}: schema_version");
            assert_eq!(row[2], path.as_str());
            id = row[1].as_str().unwrap().to_string();
            assert_eq!(
                format!("{table}/{id}.parquet"),
                *name,
                "the file is named by trace_id"
            );
            for (j, cell) in cells.iter().enumerate() {
                let v = &row[TRACE_COLUMNS + j];
                assert!(
                    same(cell, v),
                    "{name} row {i} column {}: CSV {cell:?}, Parquet {v}",
                    cols[TRACE_COLUMNS + j]
                );
            }
        }
    }
    id
}

/// The frames CSV's frame and janky counts per (trace, pid, layer), and the analyze CSV's
/// frames and janky cells per (trace, pid, layer): what DuckDB's aggregates must equal.
fn check_counts(doc: &Value, traces: &[&Path]) {
    let mut by_layer: BTreeMap<(String, i64, String), (i64, i64)> = BTreeMap::new();
    let mut summary = Vec::new();
    for t in traces {
        let path = t.display().to_string();
        let frames = csv(&["frames", &path, "--format", "csv"]);
        let col = |n: &str| frames[0].iter().position(|c| c == n).unwrap();
        let (pid, layer, janky) = (col("pid"), col("layer"), col("janky"));
        for r in &frames[1..] {
            let e = by_layer
                .entry((path.clone(), r[pid].parse().unwrap(), r[layer].clone()))
                .or_default();
            e.0 += 1;
            e.1 += i64::from(r[janky] == "1");
        }
        let layers = csv(&["analyze", &path, "--format", "csv"]);
        let col = |n: &str| layers[0].iter().position(|c| c == n).unwrap();
        for r in &layers[1..] {
            let janky = r[col("janky")].parse::<i64>().ok();
            summary.push(serde_json::json!([
                path,
                r[col("pid")].parse::<i64>().unwrap(),
                r[col("layer")],
                r[col("frames")].parse::<i64>().unwrap(),
                janky
            ]));
        }
    }
    let want: Vec<Value> = by_layer
        .into_iter()
        .map(|((t, pid, layer), (n, janky))| serde_json::json!([t, pid, layer, n, janky]))
        .collect();
    assert_eq!(doc["duckdb"]["frames_by_layer"], Value::Array(want));
    summary.sort_by_key(|v| v.to_string());
    let mut got = doc["duckdb"]["summary"].as_array().unwrap().clone();
    got.sort_by_key(|v| v.to_string());
    assert_eq!(got, summary);
}

#[test]
fn the_generated_trace_reads_back_as_its_csv() {
    let test = "the_generated_trace_reads_back_as_its_csv";
    if !python_ready(test) {
        return;
    }
    let out = scratch("generated");
    let trace = common::sample_trace();
    let o = export(&[&trace], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc = read_back(&out);
    check_trace(&doc, &trace);
    check_counts(&doc, &[&trace]);
    let types = &doc["files"].as_object().unwrap().values().next().unwrap()["types"];
    assert!(
        types
            .as_array()
            .unwrap()
            .iter()
            .all(|t| ["int64", "double", "bool", "string"].contains(&t.as_str().unwrap())),
        "{types}"
    );
}

#[test]
fn real_traces_read_back_as_their_csv() {
    let test = "real_traces_read_back_as_their_csv";
    let Some(dir) = common::shared("traces", test) else {
        return;
    };
    if !python_ready(test) {
        return;
    }
    let out = scratch("real");
    let o = export(&[&dir], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut traces: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".perfetto-trace"))
        .collect();
    traces.sort();
    assert!(traces.len() >= 7, "{traces:?}");
    let doc = read_back(&out);
    assert_eq!(doc["files"].as_object().unwrap().len(), 2 * traces.len());
    let refs: Vec<&Path> = traces.iter().map(PathBuf::as_path).collect();
    for t in &refs {
        check_trace(&doc, t);
    }
    check_counts(&doc, &refs);
}

/// Not a trace: `frames` refuses it (exit 2), so the export must too, for that file only.
#[test]
fn a_failing_trace_exits_2_and_the_good_ones_are_still_written() {
    let d = scratch("failing");
    let bad = d.join("bad.perfetto-trace");
    std::fs::write(&bad, "hello, not a trace").unwrap();
    let out = d.join("out");
    let good = common::sample_trace();
    let o = export(&[&good, &bad], &out);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.perfetto-trace") && err.contains("not a Perfetto trace"),
        "{err}"
    );
    for table in ["frames", "summary"] {
        let names: Vec<String> = std::fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 1, "{table}: {names:?}");
        assert!(
            names[0].starts_with("scroll_60hz-") && names[0].ends_with(".parquet"),
            "{names:?}"
        );
    }
}

#[test]
fn same_named_traces_in_different_folders_get_distinct_ids() {
    let d = scratch("same-name");
    for sub in ["a", "b"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        std::fs::copy(
            common::sample_trace(),
            d.join(sub).join("run 1.perfetto-trace"),
        )
        .unwrap();
    }
    let out = d.join("out");
    let o = export(&[&d.join("a"), &d.join("b")], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(out.join("frames"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert_ne!(names[0], names[1]);
    assert!(names.iter().all(|n| n.starts_with("run_1-")), "{names:?}");
    // A rerun refuses to replace them without --force, and replaces them with it.
    let again = export(&[&d.join("a")], &out);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    let mut args = vec!["export", "--force", "--parquet"];
    let (o_s, a_s) = (out.display().to_string(), d.join("a").display().to_string());
    args.extend([o_s.as_str(), a_s.as_str()]);
    assert!(frameprobe(&args).status.success());
    if python_ready("same_named_traces_in_different_folders_get_distinct_ids") {
        let doc = read_back(&out);
        let ids: Vec<&Value> = doc["files"]
            .as_object()
            .unwrap()
            .values()
            .map(|f| &f["rows"][0][1])
            .collect();
        assert_eq!(ids.len(), 4);
        assert_ne!(ids[0], ids[1], "trace_id columns differ");
    }
}

#[test]
fn sqlite_and_parquet_outputs_are_exclusive() {
    let t = common::sample_trace().display().to_string();
    let o = frameprobe(&["export", &t, "-o", "x.sqlite", "--parquet", "dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"));
    let o = frameprobe(&["export", &t, &t, "-o", "x.sqlite"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("give one trace"));
    let o = frameprobe(&["export", &t]);
    assert_eq!(o.status.code(), Some(2));
    let o = frameprobe(&["export", "-", "--parquet", "dir"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not standard input"));
}
