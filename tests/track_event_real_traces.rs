//! TrackEvents of a real device trace: the api35 trace carries 134 track_event packets from
//! Chrome embedded in an app (MANIFEST.md), with TrackDescriptors, interned data, packet
//! defaults, sequence-scoped incremental clocks, debug annotations, Chrome typed args and
//! flows. The expected rows are trace_processor v58.2's own answers
//! (../shared/perfetto-oracle/expected/<trace>/<query>.csv). Skips when ../shared is absent.

mod common;

use std::path::Path;

const TRACE: &str = "traces/androidx_api35_startup_cold_classinit.perfetto-trace";
const EXPECTED: &str = "perfetto-oracle/expected/androidx_api35_startup_cold_classinit";

fn csv(path: &Path) -> Vec<Vec<String>> {
    common::parse_csv(&std::fs::read_to_string(path).expect("read expected csv"))
}

/// The rows of the oracle's answer to `query` whose first cell satisfies `keep`, next to
/// frameprobe's rows for the same query and filter.
fn compare(query: &str, keep: impl Fn(&str) -> bool, test: &str) -> Option<(usize, usize)> {
    let trace = common::shared(TRACE, test)?;
    let expected_dir = common::shared(EXPECTED, test)?;
    let sql_path = common::shared(&format!("perfetto-oracle/queries/{query}.sql"), test)?;
    let sql = std::fs::read_to_string(sql_path).unwrap();
    let expected: Vec<_> = csv(&expected_dir.join(format!("{query}.csv")))
        .into_iter()
        .skip(1)
        .filter(|r| keep(&r[0]))
        .collect();
    let actual: Vec<_> = common::query_csv(&trace, &sql)
        .into_iter()
        .skip(1)
        .filter(|r| keep(&r[0]))
        .collect();
    assert_eq!(
        actual, expected,
        "{query}: rows differ from trace_processor's"
    );
    Some((expected.len(), actual.len()))
}

/// Slice names of the track events in this trace (Chrome's task scheduling and Java
/// looper events).
fn is_track_event_name(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "EpollEvent",
        "JniPostTask",
        "Looper.dispatch",
        "MessagePumpEpoll",
        "ScheduleWork",
        "SequenceManager",
        "ThreadController",
        "ThreadPool_",
        "WorkerThread",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

#[test]
fn track_event_slices_match_trace_processor() {
    let Some((n, _)) = compare(
        "slice_names",
        is_track_event_name,
        "track_event_slices_match_trace_processor",
    ) else {
        return;
    };
    // 15 distinct names (counts, durations, first timestamps, depths all compared).
    assert_eq!(n, 15);
}

#[test]
fn track_event_flows_match_trace_processor() {
    let Some((n, _)) = compare(
        "flows",
        is_track_event_name,
        "track_event_flows_match_trace_processor",
    ) else {
        return;
    };
    // e.g. `ScheduleWork,ScheduleWork,2` and `ThreadPool_PostTask,ThreadPool_RunTask,3`.
    assert_eq!(n, 7);
}

#[test]
fn debug_annotations_and_chrome_args_match_trace_processor() {
    let Some((n, _)) = compare(
        "slice_args",
        is_track_event_name,
        "debug_annotations_and_chrome_args_match_trace_processor",
    ) else {
        return;
    };
    // EpollEvent's debug.* annotations (a nested dict, a pointer, bools, an int),
    // task.posted_from.* from interned source locations, and the enum-valued Chrome
    // extensions (sequence_manager_task.*, thread_pool_task.*, chrome_task_annotator.*).
    assert_eq!(n, 27);
}

#[test]
fn thread_descriptors_name_chrome_threads() {
    let test = "thread_descriptors_name_chrome_threads";
    let Some(trace) = common::shared(TRACE, test) else {
        return;
    };
    let rows = common::query_csv(
        &trace,
        "select tid, name from thread where tid in (13800, 13845, 13846, 13864) order by tid",
    );
    let got: Vec<(String, String)> = rows
        .into_iter()
        .skip(1)
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    // The ThreadDescriptor's full name outranks the 15-character comm from /proc.
    assert_eq!(
        got,
        [
            ("13800".to_string(), "CrBrowserMain".to_string()),
            ("13845".to_string(), "ThreadPoolServiceThread".to_string()),
            (
                "13846".to_string(),
                "ThreadPoolForegroundWorker".to_string()
            ),
            (
                "13864".to_string(),
                "ThreadPoolSingleThreadSharedForegroundBlocking1".to_string()
            ),
        ]
    );
}
