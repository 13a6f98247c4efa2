//! The last integration test `cargo test` runs (targets run in name order): it prints which
//! test groups skipped their checks on this machine and why, so a skip is never silent.
//! A plain `main` (harness = false in Cargo.toml), because libtest hides a passing test's output.

mod common;

use std::path::Path;

/// Test files that call a helper of tests/common that needs the reference material.
fn groups_reading_shared(tests_dir: &Path) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(tests_dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .filter(|e| e.file_name() != "zz_skipped_summary.rs")
        .filter(|e| {
            std::fs::read_to_string(e.path()).is_ok_and(|s| {
                [
                    "common::shared(",
                    "common::missing(",
                    "common::oracle_trace(",
                ]
                .iter()
                .any(|call| s.contains(call))
            })
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn main() {
    let mut skipped: Vec<(String, Vec<String>)> = Vec::new();
    let shared = common::shared_root();
    if !shared.exists() {
        skipped.push((
            format!(
                "{} is absent (reference material; CI always has it)",
                shared.display()
            ),
            groups_reading_shared(&common::repo().join("tests")),
        ));
    }
    if common::chromium().is_none() {
        skipped.push((
            "Chromium is not installed (apt-get install -y chromium)".into(),
            vec!["report_browser.rs".into()],
        ));
    }
    if skipped.is_empty() {
        println!("skipped tests: none (reference material and Chromium present)");
        return;
    }
    let groups: usize = skipped.iter().map(|(_, g)| g.len()).sum();
    println!("skipped tests: tests in {groups} files ran without their checks");
    for (why, names) in &skipped {
        println!("  {why}: {}", names.join(", "));
    }
}
