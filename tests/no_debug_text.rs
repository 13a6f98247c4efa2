//! Output is written for people: no Rust debug text (`Some(11)`, `[None, …]`, `(None, 3)`,
//! `{ x: None }`) in any format of any command on the real traces and dumps.
//!
//! A bare `None` is allowed: it is FrameTimeline's own jank type name ("jank type: None"),
//! which Perfetto prints too.

mod common;

use std::path::Path;

/// Rust's Debug rendering of an `Option` or a struct holding one; never a word users see.
const DEBUG_MARKS: &[&str] = &[
    "Some(", "[None", "None]", "(None,", ", None)", ": None,", ": None }",
];

fn assert_no_debug_text(what: &str, text: &str) {
    for mark in DEBUG_MARKS {
        if let Some(at) = text.find(mark) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(80)
                .map_or(0, |(i, _)| i);
            let to = text[at..]
                .char_indices()
                .nth(80)
                .map_or(text.len(), |(i, _)| at + i);
            panic!(
                "{what}: Rust debug text {mark:?} in the output: …{}…",
                &text[from..to]
            );
        }
    }
}

fn output_of(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Warnings on stderr are user text too.
    let mut text = String::from_utf8(out.stdout).expect("utf-8 output");
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    text
}

fn files(dir: &Path, ext: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(ext)))
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    v.sort();
    v
}

#[test]
fn scanner_finds_what_it_looks_for() {
    // The test below can only fail if this one can.
    let bad = r#""source": "FrameTracer GPU_ phase of buffer Some(11) frame Some(6296)""#;
    assert!(std::panic::catch_unwind(|| assert_no_debug_text("seeded", bad)).is_err());
    assert_no_debug_text(
        "jank type",
        r#""jank_type": "None", | None |, (jank type: None)"#,
    );
}

#[test]
fn no_command_prints_rust_debug_text_on_real_traces() {
    let Some(dir) = common::shared("traces", "no_command_prints_rust_debug_text_on_real_traces")
    else {
        return;
    };
    let traces = files(&dir, ".perfetto-trace");
    assert!(traces.len() >= 7, "the MANIFEST lists 7 real traces");
    for t in &traces {
        for format in ["table", "json", "csv", "markdown"] {
            let args = ["analyze", t, "--format", format, "--top", "50"];
            assert_no_debug_text(&args.join(" "), &output_of(&args));
            let args = ["frames", t, "--format", format];
            assert_no_debug_text(&args.join(" "), &output_of(&args));
        }
        for format in ["table", "json"] {
            let args = ["doctor", t, "--format", format];
            assert_no_debug_text(&args.join(" "), &output_of(&args));
        }
        let args = ["report", t, "-o", "-"];
        assert_no_debug_text(&args.join(" "), &output_of(&args));
    }
}

#[test]
fn gfxinfo_prints_no_rust_debug_text_on_real_dumps() {
    let Some(dir) = common::shared("gfxinfo", "gfxinfo_prints_no_rust_debug_text_on_real_dumps")
    else {
        return;
    };
    let dumps = files(&dir, ".txt");
    assert!(!dumps.is_empty());
    for d in &dumps {
        for format in ["table", "csv", "json"] {
            let args = ["gfxinfo", d, "--format", format];
            assert_no_debug_text(&args.join(" "), &output_of(&args));
        }
    }
}
