//! Frame times are shown from the trace start, the origin of Perfetto UI's time axis:
//! `trace_start()`, which trace_processor takes as the earliest timestamp over its
//! ftrace_event, sched, counter, slice and thread_state rows.

mod common;

use std::path::Path;

/// The earliest row of the tables trace_processor's bounds read, by plain SQL (with the raw
/// table off, so the tables hold everything the bounds see).
fn earliest_row(trace: &Path) -> i64 {
    let sql = "SELECT MIN(ts) FROM (SELECT ts FROM slice UNION ALL SELECT ts FROM sched \
               UNION ALL SELECT ts FROM counter UNION ALL SELECT ts FROM thread_state)";
    let out = common::run(&[
        "query",
        trace.to_str().unwrap(),
        sql,
        "--format",
        "csv",
        "--no-ftrace-raw",
    ]);
    assert!(out.status.success());
    let rows = common::parse_csv(&String::from_utf8(out.stdout).unwrap());
    rows[1][0].parse().unwrap()
}

fn trace_start(trace: &Path, raw: bool) -> i64 {
    let mut args = vec![
        "query",
        trace.to_str().unwrap(),
        "SELECT start_ts, trace_start() FROM trace_bounds",
        "--format",
        "csv",
    ];
    if !raw {
        args.push("--no-ftrace-raw");
    }
    let rows = common::parse_csv(&String::from_utf8(common::run(&args).stdout).unwrap());
    assert_eq!(
        rows[1][0], rows[1][1],
        "trace_bounds.start_ts = trace_start()"
    );
    rows[1][0].parse().unwrap()
}

#[test]
fn frames_are_timed_from_the_trace_start() {
    let t = common::sample_trace();
    let start = earliest_row(&t);
    assert_eq!(trace_start(&t, false), start);
    // The raw table adds ftrace events (wakings and the like), which can only be earlier.
    assert!(trace_start(&t, true) <= start);

    let start = trace_start(&t, true);
    let out = common::run(&["frames", t.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["trace_start_ns"], start);
    let frames = v["processes"][0]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 180, "the sample trace plans 180 frames");
    for f in frames {
        let ts = f["ts"].as_i64().unwrap();
        let rel = f["ts_rel_ms"].as_f64().unwrap();
        assert!((rel - (ts - start) as f64 / 1e6).abs() < 0.001, "{f}");
    }

    // The table shows the same instant as seconds from the start, to the millisecond.
    let out = common::run(&["frames", t.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    let first_ts = frames[0]["ts"].as_i64().unwrap();
    let shown = format!("+{:.3} s", (first_ts - start) as f64 / 1e9);
    let row = text.lines().nth(2).unwrap();
    assert!(row.contains(&shown), "{shown} in {row}");

    // Worst frames in analyze name the relative time and the absolute ts.
    let out = common::run(&["analyze", t.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.contains("1. frame")).unwrap();
    let at = line.split(" at ").nth(1).unwrap();
    let (rel, rest) = at.split_once(" s (ts ").unwrap();
    let ts: i64 = rest.split(')').next().unwrap().parse().unwrap();
    let want = (ts - start) as f64 / 1e9;
    assert!(
        (rel.parse::<f64>().unwrap() - want).abs() < 0.0006,
        "{line}"
    );
}

#[test]
fn real_traces_start_at_their_earliest_row() {
    let Some(dir) = common::shared("traces", "real_traces_start_at_their_earliest_row") else {
        return;
    };
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "perfetto-trace") {
            continue;
        }
        let start = earliest_row(&p);
        assert_eq!(trace_start(&p, false), start, "{}", p.display());
        assert!(trace_start(&p, true) <= start, "{}", p.display());
    }
}
