//! Binder transactions on real device traces (../shared/traces) against trace_processor
//! v58.2's own answers (../shared/perfetto-oracle/expected): the binder slices with their
//! depths, the binder flows and slice args, and the stdlib table `android_binder_txns`.
//! Skips (with a message) when the reference material is not there.

mod common;

use std::path::{Path, PathBuf};

/// Traces whose timestamps frameprobe already places exactly as trace_processor does.
const EXACT: &[&str] = &[
    "androidx_api32_startup_warm",
    "androidx_api32_odpm_rails",
    "androidx_api35_startup_cold_classinit",
    "androidx_api24_commas_in_slice_names",
];

struct Oracle {
    traces: PathBuf,
    oracle: PathBuf,
}

impl Oracle {
    fn get(test: &str) -> Option<Oracle> {
        Some(Oracle {
            traces: common::shared("traces", test)?,
            oracle: common::shared("perfetto-oracle", test)?,
        })
    }

    fn trace(&self, name: &str) -> PathBuf {
        self.traces.join(format!("{name}.perfetto-trace"))
    }

    /// trace_processor's rows (header first), with its NULL token as frameprobe's empty cell.
    fn expected(&self, trace: &str, query: &str) -> Vec<Vec<String>> {
        let path = self.oracle.join(format!("expected/{trace}/{query}.csv"));
        let text = std::fs::read_to_string(&path).expect("read expected csv");
        let mut rows = common::parse_csv(&text);
        for cell in rows.iter_mut().flatten() {
            if cell == "[NULL]" {
                cell.clear();
            }
        }
        rows
    }

    /// frameprobe's answer to the oracle's query file.
    fn actual(&self, trace: &str, query: &str) -> Vec<Vec<String>> {
        let sql = self.oracle.join(format!("queries/{query}.sql"));
        let out = common::run(&[
            "query",
            self.trace(trace).to_str().unwrap(),
            "--file",
            sql.to_str().unwrap(),
            "--format",
            "csv",
        ]);
        assert!(
            out.status.success(),
            "{trace}/{query}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::parse_csv(&String::from_utf8(out.stdout).unwrap())
    }
}

fn binder_rows(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.into_iter()
        .filter(|r| r.first().is_some_and(|c| c.starts_with("binder")))
        .collect()
}

fn assert_same(trace: &str, query: &str, expected: &[Vec<String>], actual: &[Vec<String>]) {
    assert_eq!(
        expected.len(),
        actual.len(),
        "{trace}/{query}: row count differs"
    );
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        assert_eq!(e, a, "{trace}/{query}: row {i} differs");
    }
}

#[test]
fn binder_slices_and_depths_match_trace_processor() {
    let Some(o) = Oracle::get("binder_slices_and_depths_match_trace_processor") else {
        return;
    };
    for trace in EXACT {
        let expected = o.expected(trace, "binder_slices");
        assert!(
            expected.len() > 500,
            "{trace}: the oracle has binder slices"
        );
        assert_same(
            trace,
            "binder_slices",
            &expected,
            &o.actual(trace, "binder_slices"),
        );
    }
}

#[test]
fn binder_flows_and_args_match_trace_processor() {
    let Some(o) = Oracle::get("binder_flows_and_args_match_trace_processor") else {
        return;
    };
    for trace in EXACT {
        for query in ["flows", "slice_args"] {
            let expected = binder_rows(o.expected(trace, query));
            assert!(
                !expected.is_empty(),
                "{trace}/{query}: binder rows expected"
            );
            let actual = binder_rows(o.actual(trace, query));
            assert_same(trace, query, &expected, &actual);
        }
    }
}

#[test]
fn android_binder_txns_matches_trace_processor() {
    let Some(o) = Oracle::get("android_binder_txns_matches_trace_processor") else {
        return;
    };
    for trace in EXACT {
        let expected = o.expected(trace, "stdlib_binder_txns");
        assert_same(
            trace,
            "stdlib_binder_txns",
            &expected,
            &o.actual(trace, "stdlib_binder_txns"),
        );
    }
}

/// api24 traces: until ftrace timestamps there are placed exactly, compare what does not
/// depend on them: how many slices of each name, on which thread, at which depth.
#[test]
fn api24_binder_slices_have_trace_processors_names_threads_and_depths() {
    let test = "api24_binder_slices_have_trace_processors_names_threads_and_depths";
    let Some(o) = Oracle::get(test) else {
        return;
    };
    let key = |rows: Vec<Vec<String>>| {
        let mut k: Vec<(String, String, String)> = rows
            .into_iter()
            .skip(1)
            .map(|r| (r[3].clone(), r[0].clone(), r[4].clone()))
            .collect();
        k.sort();
        k
    };
    for trace in [
        "androidx_api24_startup_cold",
        "androidx_api24_startup_sameproc_immediatefullydrawn",
    ] {
        if !Path::new(&o.trace(trace)).exists() {
            common::missing(trace, Path::new(&o.trace(trace)));
            continue;
        }
        let expected = key(o.expected(trace, "binder_slices"));
        let actual = key(o.actual(trace, "binder_slices"));
        assert!(
            expected.len() > 2000,
            "{trace}: the oracle has binder slices"
        );
        assert!(expected == actual, "{trace}: binder slices differ");
    }
}
