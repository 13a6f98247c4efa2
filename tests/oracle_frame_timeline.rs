//! The expected and actual frame timeline tables equal trace_processor v58.2's, row for row
//! and column for column, on every trace the oracle covers (real and generated): its answers
//! are in ../shared/perfetto-oracle/expected/<trace>/{expected,actual}_frames.csv. `.ci/run`
//! runs the whole oracle too; this keeps the FrameTimeline columns inside `cargo test`, where
//! a mutant that loses one of them is caught.

mod common;

/// The difftests' cell rule: NULL spellings are equal, numbers within 1e-9 relative.
fn same_cell(want: &str, got: &str) -> bool {
    let null = |c: &str| matches!(c.trim(), "[NULL]" | "" | "NULL");
    if null(want) || null(got) {
        return null(want) && null(got);
    }
    if want == got {
        return true;
    }
    match (want.parse::<f64>(), got.parse::<f64>()) {
        (Ok(a), Ok(b)) => (a - b).abs() <= 1e-9 * a.abs().max(b.abs()),
        _ => false,
    }
}

#[test]
fn frame_timeline_tables_equal_trace_processors() {
    let Some(oracle) = common::shared("perfetto-oracle", "frame_timeline_tables") else {
        return;
    };
    let shared = oracle.parent().unwrap().to_path_buf();
    let mut compared = 0;
    let mut names: Vec<String> = std::fs::read_dir(oracle.join("expected"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let Some(trace) = common::oracle_trace(&shared, &name) else {
            continue;
        };
        for query in ["expected_frames", "actual_frames"] {
            let want = oracle
                .join("expected")
                .join(&name)
                .join(format!("{query}.csv"));
            let Ok(want) = std::fs::read_to_string(&want) else {
                continue;
            };
            let sql = oracle.join("queries").join(format!("{query}.sql"));
            let out = common::run(&[
                "query",
                trace.to_str().unwrap(),
                "--file",
                sql.to_str().unwrap(),
                "--format",
                "csv",
                "--no-ftrace-raw",
            ]);
            assert!(out.status.success(), "{name}/{query}: {out:?}");
            let want = common::parse_csv(&want);
            let got = common::parse_csv(&String::from_utf8(out.stdout).unwrap());
            assert_eq!(got.len(), want.len(), "{name}/{query}: row count");
            for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                let same = w.len() == g.len() && w.iter().zip(g).all(|(a, b)| same_cell(a, b));
                assert!(same, "{name}/{query} row {i}:\n want {w:?}\n  got {g:?}");
            }
            compared += 1;
        }
    }
    // 7 real traces and 12 generated ones, each with both queries.
    assert!(compared >= 30, "only {compared} oracle answers compared");
}
