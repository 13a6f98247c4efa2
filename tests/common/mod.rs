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

/// `../shared/<sub>` when the reference material is present; otherwise prints why the test
/// is skipped and returns None.
pub fn shared(sub: &str, test: &str) -> Option<PathBuf> {
    let p = repo().join("../shared").join(sub);
    if p.exists() {
        Some(p)
    } else {
        eprintln!(
            "SKIP {test}: {} is absent (reference material lives beside the repo in CI)",
            p.display()
        );
        None
    }
}

pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run frameprobe")
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
