//! Many traces in one command: `analyze`/`frames`/`doctor` over a directory of 200 traces
//! built by `scripts/fleet-dir.sh` from the real traces in ../shared/traces (197 copies,
//! every tenth gzip-compressed, and 3 corrupt files in `broken/`).
//!
//! Expected values come from the script's contract (file count, which files are corrupt)
//! and from frameprobe's own single-trace commands, which the per-trace lines must equal:
//! the point of the fleet mode is that it changes nothing about any one trace.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use serde_json::Value;

const TOTAL: usize = 200;
const CORRUPT: usize = 3;

/// The 200-trace directory, built once per test run (in cargo's scratch folder for tests,
/// so runs do not pile up copies); None when ../shared is absent.
fn fleet_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = common::shared("traces", "fleet_cli")?;
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fleet-200");
        let _ = std::fs::remove_dir_all(&dir);
        let st = Command::new("bash")
            .arg(common::repo().join("scripts/fleet-dir.sh"))
            .args([src.as_os_str(), dir.as_os_str()])
            .args([TOTAL.to_string(), CORRUPT.to_string()])
            .status()
            .expect("run fleet-dir.sh");
        assert!(st.success());
        Some(dir)
    })
    .as_deref()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    lines_of(&out.stdout)
}

fn lines_of(stdout: &[u8]) -> Vec<Value> {
    std::str::from_utf8(stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A line with its trace path replaced, wherever it appears, so copies compare equal.
fn normalised(v: &Value) -> Value {
    let trace = v["trace"].as_str().unwrap();
    let text = serde_json::to_string(v).unwrap().replace(trace, "<trace>");
    serde_json::from_str(&text).unwrap()
}

/// Every file below `dir`, depth first in name order: the order `--sort` promises.
fn files_in_order(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_in_order(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn a_directory_gives_one_line_per_trace_and_each_equals_the_trace_alone() {
    let Some(dir) = fleet_dir() else { return };
    let out = common::run(&["analyze", s(dir), "--jobs", "2", "--format", "jsonl"]);
    assert_eq!(out.status.code(), Some(2), "a corrupt file fails the run");
    let got = lines(&out);
    assert_eq!(got.len(), TOTAL);
    let errors: BTreeSet<_> = got
        .iter()
        .filter(|l| l["status"] == "error")
        .map(|l| l["trace"].as_str().unwrap().to_string())
        .collect();
    let corrupt: BTreeSet<_> = (0..CORRUPT)
        .map(|j| s(&dir.join(format!("broken/corrupt-{j:02}.perfetto-trace"))).to_string())
        .collect();
    assert_eq!(errors, corrupt);
    for l in &got {
        assert_eq!(l["metric_version"], 1);
        match l["status"].as_str() {
            Some("error") => {
                let msg = l["error"].as_str().unwrap();
                assert!(msg.contains(l["trace"].as_str().unwrap()), "{msg}");
            }
            Some("ok") => assert!(l.get("error").is_none() && l["processes"].is_array()),
            other => panic!("status {other:?}"),
        }
    }
    // Each line against the same trace run alone, two at a time.
    let oks: Vec<&Value> = got.iter().filter(|l| l["status"] == "ok").collect();
    std::thread::scope(|sc| {
        for half in oks.chunks(oks.len().div_ceil(2)) {
            sc.spawn(move || {
                for l in half {
                    let t = l["trace"].as_str().unwrap();
                    let alone = common::run(&["analyze", t, "--format", "jsonl"]);
                    assert!(alone.status.success(), "{t}");
                    let alone = lines(&alone);
                    assert_eq!(alone.len(), 1);
                    assert_eq!(normalised(l), normalised(&alone[0]), "{t}");
                }
            });
        }
    });
    // And an ok line is `analyze --format json`'s report with the line's status.
    let first = oks[0];
    let mut report = common::run_json(&[
        "analyze",
        first["trace"].as_str().unwrap(),
        "--format",
        "json",
    ]);
    report["status"] = "ok".into();
    assert_eq!(&report, first);
}

#[test]
fn sorted_lines_follow_the_input_order_whatever_the_jobs() {
    let Some(dir) = fleet_dir() else { return };
    let run = |jobs: &str| {
        let out = common::run(&[
            "analyze",
            s(dir),
            "--jobs",
            jobs,
            "--format",
            "jsonl",
            "--sort",
        ]);
        assert_eq!(out.status.code(), Some(2));
        out.stdout
    };
    let (one, two) = (run("1"), run("2"));
    assert!(
        one == two,
        "--sort output differs between --jobs 1 and --jobs 2"
    );
    let order: Vec<String> = lines_of(&one)
        .iter()
        .map(|l| l["trace"].as_str().unwrap().to_string())
        .collect();
    let mut files = Vec::new();
    files_in_order(dir, &mut files);
    let expected: Vec<String> = files.iter().map(|p| s(p).to_string()).collect();
    assert_eq!(order, expected);
}

#[test]
fn frames_and_doctor_stream_lines_and_take_globs() {
    let Some(dir) = fleet_dir() else { return };
    // A quoted glob, as a shell would pass it: the plain copies on device-1.
    let pattern = dir.join("device-1/*.perfetto-trace");
    let out = common::run(&["frames", s(&pattern), "--format", "jsonl", "--jobs", "2"]);
    assert!(out.status.success());
    let got = lines(&out);
    let plain_on_device_1 = (0..TOTAL - CORRUPT)
        .filter(|i| i % 4 == 1 && i % 10 != 9)
        .count();
    assert_eq!(got.len(), plain_on_device_1);
    let first = &got[0];
    let alone = common::run_json(&[
        "frames",
        first["trace"].as_str().unwrap(),
        "--format",
        "json",
    ]);
    let mut expected = alone.clone();
    expected["status"] = "ok".into();
    assert_eq!(first, &expected);

    let t = dir.join("device-2/trace-0002.perfetto-trace");
    let out = common::run(&[
        "doctor",
        s(&dir.join("broken")),
        s(&t),
        "--format",
        "jsonl",
        "--sort",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let got = lines(&out);
    assert_eq!(got.len(), CORRUPT + 1);
    assert!(got[..CORRUPT].iter().all(|l| l["status"] == "error"));
    let mut expected = common::run_json(&["doctor", s(&t), "--format", "json"]);
    expected["status"] = "ok".into();
    assert_eq!(got[CORRUPT], expected);
}

#[test]
fn csv_over_many_traces_has_a_trace_column() {
    let Some(dir) = fleet_dir() else { return };
    let a = dir.join("device-0/trace-0000.perfetto-trace");
    let b = dir.join("device-1/trace-0009.perfetto-trace.gz");
    for cmd in ["analyze", "frames"] {
        let out = common::run(&[cmd, s(&a), s(&b), "--format", "csv"]);
        assert!(out.status.success(), "{cmd}");
        let rows = common::parse_csv(&String::from_utf8(out.stdout).unwrap());
        let mut expected = Vec::new();
        for t in [&a, &b] {
            let alone = common::run(&[cmd, s(t), "--format", "csv"]);
            let alone = common::parse_csv(&String::from_utf8(alone.stdout).unwrap());
            if expected.is_empty() {
                let mut head = alone[0].clone();
                head.insert(0, "trace".to_string());
                expected.push(head);
            }
            for mut row in alone.into_iter().skip(1) {
                row.insert(0, s(t).to_string());
                expected.push(row);
            }
        }
        assert!(expected.len() > 2, "{cmd}: both traces have rows");
        assert_eq!(rows, expected, "{cmd}");
    }
}

#[test]
fn a_trace_the_single_command_rejects_is_an_error_line_with_its_message() {
    let Some(dir) = fleet_dir() else { return };
    let t = dir.join("device-3/trace-0003.perfetto-trace");
    let args = |f: &'static str| vec!["analyze", s(&t), "-p", "no.such.app", "--format", f];
    let alone = common::run(&args("json"));
    assert_eq!(alone.status.code(), Some(2));
    let msg = String::from_utf8(alone.stderr).unwrap();
    let out = common::run(&args("jsonl"));
    assert_eq!(out.status.code(), Some(2));
    let got = lines(&out);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["status"], "error");
    let line_msg = got[0]["error"].as_str().unwrap();
    assert_eq!(format!("error: {line_msg}\n"), msg);
}

#[test]
fn missing_inputs_are_named() {
    let missing = common::run(&["analyze", "/no/such/dir/x.pftrace", "--format", "jsonl"]);
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8(missing.stderr).unwrap();
    assert!(
        err.contains("cannot load /no/such/dir/x.pftrace: no such file or directory"),
        "{err}"
    );
    assert!(missing.stdout.is_empty());
    let pattern = std::env::temp_dir().join("frameprobe-no-such-*/*.pftrace");
    let nothing = common::run(&["frames", s(&pattern), "--format", "jsonl"]);
    assert_eq!(nothing.status.code(), Some(2));
    let err = String::from_utf8(nothing.stderr).unwrap();
    assert!(err.contains("matches no file"), "{err}");
}

#[test]
fn one_line_per_trace_from_standard_input_too() {
    let trace = common::sample_trace();
    let out = Command::new(common::bin())
        .args(["doctor", "-", "--format", "jsonl"])
        .stdin(std::fs::File::open(&trace).unwrap())
        .output()
        .unwrap();
    assert!(out.status.success());
    let got = lines(&out);
    assert_eq!(got.len(), 1);
    assert_eq!(got[0]["trace"], "-");
    assert_eq!(got[0]["status"], "ok");
}

#[test]
fn progress_shows_only_when_asked_for_off_a_terminal() {
    let Some(dir) = fleet_dir() else { return };
    let device_0 = dir.join("device-0");
    let run = |setting: Option<&str>| {
        let mut cmd = Command::new(common::bin());
        cmd.args(["doctor", s(&device_0), "--format", "jsonl", "--sort"]);
        match setting {
            Some(v) => cmd.env("FRAMEPROBE_PROGRESS", v),
            None => cmd.env_remove("FRAMEPROBE_PROGRESS"),
        };
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        (out.stdout, String::from_utf8(out.stderr).unwrap())
    };
    // The tests' standard error is a pipe: silent by default.
    let (quiet_out, quiet_err) = run(None);
    assert!(!quiet_err.contains("traces"), "{quiet_err}");
    let (forced_out, forced_err) = run(Some("always"));
    let total = lines_of(&quiet_out).len();
    assert!(
        forced_err.contains(&format!("{total}/{total} traces")),
        "{forced_err}"
    );
    assert!(forced_err.contains("MB/s"), "{forced_err}");
    assert_eq!(
        forced_out, quiet_out,
        "the bar never touches standard output"
    );
}

#[test]
fn a_cut_trace_is_ok_with_its_import_warnings() {
    let Some(dir) = fleet_dir() else { return };
    // A copy cut at 90% of its bytes: the reader keeps the good prefix and warns (README,
    // "Bad input"); the single-trace command still exits 0.
    let whole = std::fs::read(dir.join("device-2/trace-0006.perfetto-trace")).unwrap();
    let cut_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fleet-cut");
    let _ = std::fs::remove_dir_all(&cut_dir);
    std::fs::create_dir_all(&cut_dir).unwrap();
    let cut = cut_dir.join("cut.perfetto-trace");
    std::fs::write(&cut, &whole[..whole.len() * 9 / 10]).unwrap();
    let alone = common::run_json(&["analyze", s(&cut), "--format", "json"]);
    let warnings = alone["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty(), "the cut is reported");
    let out = common::run(&["analyze", s(&cut_dir), "--format", "jsonl"]);
    assert!(out.status.success(), "a warning is not a failure");
    let got = lines(&out);
    assert_eq!(got[0]["status"], "ok");
    assert_eq!(&got[0]["warnings"], &alone["warnings"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(&format!("warning: {}: ", s(&cut))), "{err}");
}
