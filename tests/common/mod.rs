//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_frameprobe")
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn sample_trace() -> PathBuf {
    repo().join("testdata/scroll_60hz.perfetto-trace")
}

/// Whether the tests run under CI (`CI=true`, which `.ci/run` sets): there the reference
/// material must be present, so a test that would skip for want of it fails instead.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Says that `test` did not run its checks and why: on standard error, and as a line in the
/// file `FRAMEPROBE_SKIP_LOG` names (`.ci/run` counts them at the end).
pub fn skip(test: &str, why: &str) {
    eprintln!("SKIP {test}: {why}");
    if let Some(log) = std::env::var_os("FRAMEPROBE_SKIP_LOG") {
        use std::io::Write;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{test}: {why}");
        }
    }
}

/// A reference file a test expected is absent: skipped on a developer's machine, a failure
/// under CI.
pub fn missing(test: &str, what: &Path) {
    let why = format!("{} is absent", what.display());
    assert!(!in_ci(), "{test}: {why}, and CI must have it");
    skip(test, &why);
}

/// `../shared/<sub>` when the reference material is present. Otherwise the test is skipped
/// (None) on a developer's machine, and fails under CI, which always has it.
/// `FRAMEPROBE_SHARED` overrides its location (to try the absent case).
pub fn shared(sub: &str, test: &str) -> Option<PathBuf> {
    let p = shared_root().join(sub);
    if p.exists() {
        return Some(p);
    }
    let why = format!(
        "{} is absent (reference material lives beside the repo in CI)",
        p.display()
    );
    assert!(!in_ci(), "{test}: {why}, and CI must have it");
    skip(test, &why);
    None
}

/// The root of the reference material (`../shared`, or `FRAMEPROBE_SHARED`).
pub fn shared_root() -> PathBuf {
    std::env::var_os("FRAMEPROBE_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("../shared"))
}

/// Headless Chromium for the report's browser test, when installed.
pub fn chromium() -> Option<PathBuf> {
    let fixed = PathBuf::from("/usr/bin/chromium");
    if fixed.exists() {
        return Some(fixed);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| ["chromium", "chromium-browser"].map(|n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Runs frameprobe as in a pipe: no COLUMNS from the developer's shell changes its tables.
pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .env_remove("COLUMNS")
        .output()
        .expect("run frameprobe")
}

/// The command's standard output as JSON; the command must succeed.
pub fn run_json(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on standard output")
}

/// Writes `bytes` to `name` in this test process's own temporary folder `tag`.
pub fn temp_file(tag: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("temporary file");
    p
}

pub fn query_csv(trace: &Path, sql: &str) -> Vec<Vec<String>> {
    let out = run(&["query", trace.to_str().unwrap(), sql, "--format", "csv"]);
    assert!(
        out.status.success(),
        "query failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_csv(&String::from_utf8(out.stdout).unwrap())
}

/// Minimal RFC 4180 reader (quoted fields, doubled quotes).
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    field.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            '\r' => {}
            _ => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}
/// The trace an oracle directory answers for, as check.py finds it: a real trace in
/// `traces/` or a generated one in `perfetto-oracle/traces/`.
pub fn oracle_trace(shared: &Path, name: &str) -> Option<PathBuf> {
    [
        shared.join("traces").join(format!("{name}.perfetto-trace")),
        shared
            .join("perfetto-oracle/traces")
            .join(format!("{name}.pftrace")),
    ]
    .into_iter()
    .find(|p| p.exists())
}
pub mod pb;
