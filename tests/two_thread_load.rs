//! Loading with the importers on a second thread (`import::pipeline`, issue 19) must give
//! the same tables and the same report as loading on one thread: the tokenizer's calls are
//! handed over in order, so only the timing differs. Tiny batches make every trace cross
//! the thread boundary thousands of times, including between a track event and the
//! descriptor it needs and between a compact sched bundle and its comm table.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use frameprobe::analysis::{analyze, AnalyzeOptions};
use frameprobe::import::pipeline::{BatchSize, Threads};
use frameprobe::import::{load_source_with, LoadOptions};
use frameprobe::single_trace::query::{run_query, QueryOptions};
use frameprobe::store::Store;
use frameprobe::trace::reader::TraceSource;

const TINY: BatchSize = BatchSize { cmds: 7, bytes: 64 };

const TABLES: &[&str] = &[
    "slice",
    "instant",
    "flow",
    "thread",
    "process",
    "track",
    "counter",
    "sched",
    "thread_state",
    "args",
    "stats",
    "metadata",
    "actual_frame_timeline_slice",
    "expected_frame_timeline_slice",
    "frame_slice",
];

fn load_with(trace: &Path, opts: LoadOptions, threads: Threads, size: BatchSize) -> Store {
    let src = TraceSource::open(trace).unwrap();
    load_source_with(src, opts, threads, size)
        .unwrap_or_else(|e| panic!("{}: {e}", trace.display()))
        .store
}

/// Every row of the tables a user queries, in id order, as text.
fn tables(store: Store) -> Vec<(String, Vec<String>)> {
    let store = Arc::new(store);
    TABLES
        .iter()
        .map(|t| {
            let rs = run_query(
                store.clone(),
                &format!("select * from {t}"),
                QueryOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{t}: {e:#}"));
            let rows = rs.rows.iter().map(|r| format!("{r:?}")).collect();
            (t.to_string(), rows)
        })
        .collect()
}

/// The sample trace, the real traces and the generated edge-case traces (when present).
fn traces(test: &str) -> Vec<PathBuf> {
    let mut out = vec![common::sample_trace()];
    if let Some(dir) = common::shared("traces", test) {
        out.extend(files(&dir, "perfetto-trace"));
    }
    if let Some(dir) = common::shared("perfetto-oracle/traces", test) {
        out.extend(files(&dir, "pftrace"));
    }
    out
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

#[test]
fn query_tables_are_the_same_on_two_threads() {
    let opts = LoadOptions {
        progress: false,
        ..LoadOptions::all()
    };
    for t in traces("query_tables_are_the_same_on_two_threads") {
        let one = tables(load_with(&t, opts, Threads::One, BatchSize::default()));
        let two = tables(load_with(&t, opts, Threads::Two, TINY));
        assert!(
            one.iter().any(|(_, rows)| !rows.is_empty()),
            "{}: nothing loaded",
            t.display()
        );
        for ((table, a), (_, b)) in one.iter().zip(&two) {
            assert_eq!(a.len(), b.len(), "{} {table}: row count", t.display());
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "{} {table} row {i}:\none thread:  {}\ntwo threads: {}",
                    t.display(),
                    a[i],
                    b[i]
                );
            }
        }
    }
}

#[test]
fn the_report_is_the_same_on_two_threads() {
    let opts = LoadOptions {
        progress: false,
        ..frameprobe::single_trace::analysis_load_options()
    };
    let report = |s: &Store| {
        let opts = AnalyzeOptions {
            top: 5,
            ..Default::default()
        };
        serde_json::to_string(&analyze(s, &opts, "t")).unwrap()
    };
    for t in traces("the_report_is_the_same_on_two_threads") {
        let one = report(&load_with(&t, opts, Threads::One, BatchSize::default()));
        let two = report(&load_with(&t, opts, Threads::Two, TINY));
        assert!(one.contains("\"frames\""), "{}: {one}", t.display());
        assert!(one == two, "{}: the reports differ", t.display());
    }
}

/// A load on two threads forecasts its largest tables early (`import::forecast`) so that
/// the importers fault their pages in while they wait; the forecast is a floor, so no page
/// is faulted in for rows that never come, nor for a table the load does not build. On one
/// thread there is no forecast.
#[test]
fn two_thread_loads_forecast_their_largest_tables_low() {
    let copies = std::fs::read(common::sample_trace()).unwrap().repeat(12);
    let trace = common::temp_file("forecast", "sample_x12.perfetto-trace", &copies);
    let two = load_with(
        &trace,
        LoadOptions::all(),
        Threads::Two,
        BatchSize::default(),
    );
    let (slices, states) = (two.ahead.slices.target(), two.ahead.thread_states.target());
    assert!(
        slices > 0 && states > 0,
        "forecast {slices} slices, {states} thread states"
    );
    assert!(
        slices <= two.slices.len() && states <= two.thread_states.len(),
        "forecast {slices} slices and {states} thread states, above the {} and {} loaded",
        two.slices.len(),
        two.thread_states.len()
    );
    let one = load_with(
        &trace,
        LoadOptions::all(),
        Threads::One,
        BatchSize::default(),
    );
    assert_eq!(
        one.ahead.slices.target() + one.ahead.thread_states.target(),
        0
    );
    // A load that builds no thread states (`query` without them) forecasts none.
    let mut opts = LoadOptions::all();
    opts.thread_state = false;
    let no_states = load_with(&trace, opts, Threads::Two, BatchSize::default());
    assert_eq!(no_states.ahead.thread_states.target(), 0);
    assert_eq!(no_states.ahead.slices.target(), slices);
}
