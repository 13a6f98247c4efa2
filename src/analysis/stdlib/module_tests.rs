//! The stdlib modules on hand-made tables. Expected values follow trace_processor v58.2's
//! SQL rules (the module's doc comments say which), worked out by hand.

use rusqlite::{params, Connection};

use super::strip_includes;
use crate::analysis::sql_functions::register_bounds;
use crate::store::sqlite::{to_connection, ExportOptions};
use crate::store::Store;

const TRACE_END: i64 = 1_000_000;

/// An empty database with frameprobe's schema and functions; the trace ends at TRACE_END.
fn db() -> Connection {
    let conn = to_connection(&Store::default(), ExportOptions::default()).unwrap();
    register_bounds(&conn, 0, TRACE_END).unwrap();
    conn
}

fn process(c: &Connection, upid: i64, pid: i64, name: &str) {
    c.execute(
        "INSERT INTO __intrinsic_process(id, pid, name) VALUES (?1, ?2, ?3)",
        params![upid, pid, name],
    )
    .unwrap();
}

/// A thread and its thread track (track id = utid + 100).
fn thread(c: &Connection, utid: i64, tid: i64, name: &str, upid: i64, main: bool) {
    c.execute(
        "INSERT INTO __intrinsic_thread(id, tid, name, upid, is_main_thread) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![utid, tid, name, upid, main as i64],
    )
    .unwrap();
    c.execute(
        "INSERT INTO __intrinsic_track(id, name, type, event_type, utid) VALUES (?1, NULL, 'thread', 'slice', ?2)",
        params![utid + 100, utid],
    )
    .unwrap();
}

#[allow(clippy::too_many_arguments)]
fn slice(
    c: &Connection,
    id: i64,
    ts: i64,
    dur: i64,
    utid: i64,
    name: &str,
    depth: i64,
    parent: Option<i64>,
) {
    c.execute(
        "INSERT INTO __intrinsic_slice(id, ts, dur, track_id, name, depth, parent_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![id, ts, dur, utid + 100, name, depth, parent],
    )
    .unwrap();
}

fn thread_state(c: &Connection, utid: i64, ts: i64, dur: i64, state: &str, io_wait: Option<i64>) {
    c.execute(
        "INSERT INTO __intrinsic_thread_state(ts, dur, utid, state, io_wait) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![ts, dur, utid, state, io_wait],
    )
    .unwrap();
}

fn rows(c: &Connection, sql: &str) -> Vec<Vec<rusqlite::types::Value>> {
    let sql = strip_includes(c, sql).unwrap();
    let mut st = c.prepare(&sql).unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn ints(c: &Connection, sql: &str) -> Vec<Vec<Option<i64>>> {
    use rusqlite::types::Value;
    rows(c, sql)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| match v {
                    Value::Integer(i) => Some(i),
                    Value::Null => None,
                    other => panic!("not an integer: {other:?}"),
                })
                .collect()
        })
        .collect()
}

fn texts(c: &Connection, sql: &str) -> Vec<Vec<Option<String>>> {
    use rusqlite::types::Value;
    rows(c, sql)
        .into_iter()
        .map(|r| {
            r.into_iter()
                .map(|v| match v {
                    Value::Text(s) => Some(s),
                    Value::Integer(i) => Some(i.to_string()),
                    Value::Real(r) => Some(r.to_string()),
                    Value::Null => None,
                    other => panic!("unexpected: {other:?}"),
                })
                .collect()
        })
        .collect()
}

fn contention(owner: &str, owner_tid: i64, blocking: &str, blocked: &str) -> String {
    format!(
        "monitor contention with owner {owner} ({owner_tid}) at {blocking}(A.java:1) waiters=0 blocking from {blocked}(B.java:2)"
    )
}

mod monitor_contention {
    use super::*;

    const INC: &str = "INCLUDE PERFETTO MODULE android.monitor_contention;";

    /// Process 1 (pid 100): main thread 100, "worker" 101, "binder:100_1" 102; process 2
    /// has a thread with tid 101 too.
    fn two_processes() -> Connection {
        let c = db();
        process(&c, 1, 100, "app");
        process(&c, 2, 200, "other");
        thread(&c, 1, 100, "app", 1, true);
        thread(&c, 2, 101, "worker", 1, false);
        thread(&c, 3, 102, "binder:100_1", 1, false);
        thread(&c, 4, 101, "elsewhere", 2, false);
        c
    }

    #[test]
    fn only_leaf_contentions_or_those_with_a_lock_contention_child_count() {
        let c = two_processes();
        let name = contention("worker", 101, "void a.B.hold()", "void a.C.wait()");
        slice(&c, 1, 10, 5, 1, &name, 0, None); // no child: kept
        slice(&c, 2, 20, 5, 1, &name, 0, None); // 'Lock contention' child: kept
        slice(&c, 3, 21, 1, 1, "Lock contention on thin lock", 1, Some(2));
        slice(&c, 4, 30, 5, 1, &name, 0, None); // other child: dropped
        slice(&c, 5, 31, 1, 1, "binder transaction", 1, Some(4));
        slice(&c, 6, 40, 5, 1, &name, 0, None); // 'Lock contention' with a grandchild: dropped
        slice(&c, 7, 41, 2, 1, "Lock contention on a monitor", 1, Some(6));
        slice(&c, 8, 41, 1, 1, "inner", 2, Some(7));
        slice(&c, 9, 50, -1, 1, &name, 0, None); // unfinished: dropped
        let bad =
            "monitor contention with owner worker (101) at void a.B.hold()(A.java:1) waiters=0";
        slice(&c, 10, 60, 5, 1, bad, 0, None); // no blocked method: dropped
        assert_eq!(
            ints(
                &c,
                &format!("{INC} SELECT id FROM android_monitor_contention ORDER BY id")
            ),
            vec![vec![Some(1)], vec![Some(2)]]
        );
    }

    #[test]
    fn columns_parsed_and_blocking_thread_found_in_the_same_process() {
        let c = two_processes();
        let name = contention("worker", 101, "int a.B.hold(int, long)", "void a.C.wait()");
        slice(&c, 1, 10, 5, 1, &name, 0, None);
        let got = texts(
            &c,
            &format!(
                "{INC} SELECT blocking_method, blocked_method, short_blocking_method, short_blocked_method, \
                 blocking_src, blocked_src, waiter_count, blocked_thread_name, blocking_thread_name, \
                 blocking_tid, blocking_utid, is_blocked_thread_main, is_blocking_thread_main, \
                 blocked_thread_tid, blocking_thread_tid, process_name, pid, upid, monotonic_dur \
                 FROM android_monitor_contention"
            ),
        );
        let want: Vec<Option<String>> = [
            Some("int a.B.hold(int, long)"),
            Some("void a.C.wait()"),
            Some("a.B.hold"),
            Some("a.C.wait"),
            Some("A.java:1"),
            Some("B.java:2"),
            Some("0"),
            Some("app"),
            Some("worker"),
            Some("101"),
            Some("2"), // utid 2, not utid 4 (tid 101 of the other process)
            Some("1"),
            Some("0"),
            Some("100"),
            Some("101"),
            Some("app"),
            Some("100"),
            Some("1"),
            Some("5"),
        ]
        .iter()
        .map(|v| v.map(str::to_string))
        .collect();
        assert_eq!(got, vec![want]);
    }

    #[test]
    fn lock_name_from_the_acquire_and_held_slices_around_it() {
        let c = two_processes();
        let name = contention("worker", 101, "void a.B.hold()", "void a.C.wait()");
        // Scenario A: acquire, contention, held.
        slice(&c, 1, 10, 1, 1, "mLock_lock_acquire", 0, None);
        slice(&c, 2, 12, 5, 1, &name, 0, None);
        slice(&c, 3, 18, 1, 1, "mLock_lock_held", 0, None);
        // Scenario B: acquire, contention, its 'Lock contention' child, held.
        slice(&c, 4, 30, 1, 1, "sLock_lock_acquire", 0, None);
        slice(&c, 5, 32, 5, 1, &name, 0, None);
        slice(
            &c,
            6,
            33,
            1,
            1,
            "Lock contention on a monitor lock",
            1,
            Some(5),
        );
        slice(&c, 7, 38, 1, 1, "sLock_lock_held", 0, None);
        // Names that do not agree: no lock name.
        slice(&c, 8, 50, 1, 1, "aLock_lock_acquire", 0, None);
        slice(&c, 9, 52, 5, 1, &name, 0, None);
        slice(&c, 10, 58, 1, 1, "bLock_lock_held", 0, None);
        assert_eq!(
            texts(
                &c,
                &format!("{INC} SELECT id, lock_name FROM android_monitor_contention ORDER BY id")
            ),
            vec![
                vec![Some("2".into()), Some("mLock".into())],
                vec![Some("5".into()), Some("sLock".into())],
                vec![Some("9".into()), None],
            ]
        );
    }

    #[test]
    fn binder_reply_ancestor_is_reported() {
        let c = two_processes();
        let name = contention("worker", 101, "void a.B.hold()", "void a.C.wait()");
        slice(&c, 1, 10, 50, 3, "binder reply", 0, None);
        slice(
            &c,
            2,
            12,
            30,
            3,
            "AIDL::java::IFoo::bar::server",
            1,
            Some(1),
        );
        slice(&c, 3, 14, 5, 3, &name, 2, Some(2));
        assert_eq!(
            ints(&c, &format!("{INC} SELECT binder_reply_id, binder_reply_ts, binder_reply_tid FROM android_monitor_contention")),
            vec![vec![Some(1), Some(10), Some(102)]]
        );
    }

    #[test]
    fn chain_links_a_contention_to_the_one_blocking_its_owner() {
        let c = two_processes();
        // P: the binder thread waits for main (100) during [100, 150).
        slice(
            &c,
            1,
            100,
            50,
            3,
            &contention("app", 100, "void a.M.run()", "void a.B.call()"),
            0,
            None,
        );
        // C: the worker waits for the binder thread (102), which is itself blocked in P.
        slice(
            &c,
            2,
            110,
            20,
            2,
            &contention("binder:100_1", 102, "void a.B.call()", "void a.W.work()"),
            0,
            None,
        );
        // Starts after P ends: no parent.
        slice(
            &c,
            3,
            160,
            5,
            2,
            &contention("binder:100_1", 102, "void a.B.call()", "void a.W.work()"),
            0,
            None,
        );
        assert_eq!(
            ints(&c, &format!("{INC} SELECT id, parent_id, child_id FROM android_monitor_contention_chain ORDER BY id")),
            vec![
                vec![Some(1), None, Some(2)],
                vec![Some(2), Some(1), None],
                vec![Some(3), None, None],
            ]
        );
    }

    #[test]
    fn blocking_thread_states_of_overlapping_first_waiters_follow_span_join_walk() {
        let c = two_processes();
        // Two first waiters on locks held by the worker (utid 2), different methods:
        // A = [0, 100), B = [50, 60).
        slice(
            &c,
            1,
            0,
            100,
            1,
            &contention("worker", 101, "void a.X.one()", "void a.M.m()"),
            0,
            None,
        );
        slice(
            &c,
            2,
            50,
            10,
            3,
            &contention("worker", 101, "void a.X.two()", "void a.B.b()"),
            0,
            None,
        );
        thread_state(&c, 2, 0, 55, "Running", None);
        thread_state(&c, 2, 55, 145, "S", None);
        // The walk: (A, Running) [0,55), (A, S) [55,100), then B meets only S: [55,60).
        // B's [50,55) with Running is never visited (the right cursor is past it).
        assert_eq!(
            texts(&c, &format!("{INC} SELECT id, ts, dur, state FROM android_monitor_contention_chain_thread_state ORDER BY id, ts")),
            vec![
                vec![Some("1".into()), Some("0".into()), Some("55".into()), Some("Running".into())],
                vec![Some("1".into()), Some("55".into()), Some("45".into()), Some("S".into())],
                vec![Some("2".into()), Some("55".into()), Some("5".into()), Some("S".into())],
            ]
        );
        assert_eq!(
            texts(&c, "SELECT id, thread_state, thread_state_dur, thread_state_count FROM android_monitor_contention_chain_thread_state_by_txn ORDER BY id, thread_state"),
            vec![
                vec![Some("1".into()), Some("Running".into()), Some("55".into()), Some("1".into())],
                vec![Some("1".into()), Some("S".into()), Some("45".into()), Some("1".into())],
                vec![Some("2".into()), Some("S".into()), Some("5".into()), Some("1".into())],
            ]
        );
    }
}

mod garbage_collection {
    use super::*;

    const INC: &str = "INCLUDE PERFETTO MODULE android.garbage_collection;";

    fn heap(c: &Connection, samples: &[(i64, f64)]) {
        c.execute(
            "INSERT INTO __intrinsic_track(id, name, type, event_type, upid) VALUES (50, 'Heap size (KB)', 'process_counter', 'counter', 1)",
            [],
        )
        .unwrap();
        for &(ts, v) in samples {
            c.execute(
                "INSERT INTO __intrinsic_counter(ts, track_id, value) VALUES (?1, 50, ?2)",
                params![ts, v],
            )
            .unwrap();
        }
    }

    fn app() -> Connection {
        let c = db();
        process(&c, 1, 100, "app");
        thread(&c, 1, 100, "app", 1, true);
        thread(&c, 2, 105, "HeapTaskDaemon", 1, false);
        c
    }

    #[test]
    fn heap_sizes_type_and_thread_state_split() {
        let c = app();
        // GC [100, 200) then CompactionPhase [210, 240): gc_dur = 100 + 30 = 130.
        slice(&c, 1, 100, 100, 2, "young concurrent copying GC", 0, None);
        slice(&c, 2, 210, 30, 2, "CompactionPhase", 0, None);
        // Heap: 5000 KB at 50, 7000 at 150, 3000 at 250 (after the GC's end, 230).
        heap(&c, &[(50, 5000.0), (150, 7000.0), (250, 3000.0)]);
        // Thread states across [100, 230): Running 90..120 (counts 20), R 120..130,
        // D io 130..150, D non-io 150..170, S 170..200, D with unknown io_wait 200..210
        // (counts nowhere), Running 210..300 (counts 20).
        thread_state(&c, 2, 90, 30, "Running", None);
        thread_state(&c, 2, 120, 10, "R", None);
        thread_state(&c, 2, 130, 20, "D", Some(1));
        thread_state(&c, 2, 150, 20, "D", Some(0));
        thread_state(&c, 2, 170, 30, "S", None);
        thread_state(&c, 2, 200, 10, "D", None);
        thread_state(&c, 2, 210, 90, "Running", None);
        let got = rows(
            &c,
            &format!(
                "{INC} SELECT tid, thread_name, gc_type, is_mark_compact, reclaimed_mb, min_heap_mb, \
                 max_heap_mb, gc_ts, gc_dur, gc_running_dur, gc_runnable_dur, gc_unint_io_dur, \
                 gc_unint_non_io_dur, gc_int_dur FROM android_garbage_collection_events"
            ),
        );
        use rusqlite::types::Value::{Integer as I, Real as R, Text as T};
        // Min/max over the overlapping samples (5000, 7000) and the one after the end (3000).
        assert_eq!(
            got,
            vec![vec![
                I(105),
                T("HeapTaskDaemon".into()),
                T("young".into()),
                I(0),
                R(4.0),
                R(3.0),
                R(7.0),
                I(100),
                I(130),
                I(40),
                I(10),
                I(20),
                I(20),
                I(30),
            ]]
        );
    }

    #[test]
    fn gc_types_from_the_slice_name() {
        let c = app();
        let names = [
            "NativeAlloc concurrent copying GC",
            "Alloc concurrent copying GC",
            "CollectorTransition concurrent mark compact GC",
            "Explicit concurrent copying GC",
            "concurrent copying GC",
        ];
        for (i, n) in names.iter().enumerate() {
            slice(&c, i as i64 + 1, 100 * (i as i64 + 1), 10, 2, n, 0, None);
        }
        // A non-GC depth-0 slice and a nested GC-looking slice are not GCs.
        slice(&c, 10, 700, 10, 2, "concurrent copying GC", 1, None);
        slice(
            &c,
            11,
            800,
            10,
            2,
            "Background young concurrent copying GC helper",
            0,
            None,
        );
        heap(&c, &[(0, 1000.0)]);
        assert_eq!(
            texts(&c, &format!("{INC} SELECT gc_type, is_mark_compact FROM android_garbage_collection_events ORDER BY gc_ts")),
            vec![
                vec![Some("native_alloc".into()), Some("0".into())],
                vec![Some("alloc".into()), Some("0".into())],
                vec![Some("collector_transition".into()), Some("1".into())],
                vec![Some("explicit".into()), Some("0".into())],
                vec![Some("full".into()), Some("0".into())],
            ]
        );
    }

    #[test]
    fn a_gc_without_heap_samples_is_dropped_and_a_following_gc_end_nulls_the_heap() {
        let c = app();
        thread(&c, 3, 106, "other", 1, false);
        // No heap sample overlaps [10, 20): dropped by the SPAN_JOIN.
        slice(&c, 1, 10, 10, 2, "concurrent copying GC", 0, None);
        // Two GCs whose ends are followed by another GC end, then by a sample.
        slice(&c, 2, 100, 50, 2, "concurrent copying GC", 0, None);
        slice(&c, 3, 120, 40, 3, "Alloc concurrent copying GC", 0, None);
        heap(&c, &[(30, 2000.0), (170, 1000.0)]);
        assert_eq!(
            texts(&c, &format!("{INC} SELECT tid, min_heap_mb, max_heap_mb, reclaimed_mb FROM android_garbage_collection_events ORDER BY gc_ts")),
            vec![
                // Ends at 150, next row is the other GC's end (160): last_value NULL.
                vec![Some("105".into()), None, None, None],
                // Ends at 160, next row is the sample at 170 (1000 KB).
                vec![Some("106".into()), Some("1".into()), Some("2".into()), Some("1".into())],
            ]
        );
    }
}

mod frames {
    use super::*;

    #[test]
    fn without_frame_timeline_each_main_thread_do_frame_owns_the_draw_frames_until_the_next() {
        let c = db();
        process(&c, 1, 100, "app");
        thread(&c, 1, 100, "app", 1, true);
        thread(&c, 2, 120, "RenderThread", 1, false);
        thread(&c, 3, 121, "bg", 1, false);
        slice(&c, 1, 100, 10, 1, "Choreographer#doFrame", 0, None);
        slice(&c, 2, 108, 20, 2, "DrawFrame", 0, None);
        slice(&c, 3, 130, 5, 2, "DrawFrame", 0, None);
        slice(&c, 4, 200, 10, 1, "Choreographer#doFrame", 0, None);
        slice(&c, 5, 205, 10, 2, "DrawFrame", 0, None);
        // Not on the main thread: not a frame.
        slice(&c, 6, 300, 10, 3, "Choreographer#doFrame", 0, None);
        // frame ids number the (doFrame, DrawFrame) pairs; dur runs to the last DrawFrame.
        assert_eq!(
            ints(&c, "SELECT frame_id, ts, dur, do_frame_id, draw_frame_id, actual_frame_timeline_count, expected_frame_timeline_count, draw_frame_count FROM android_frames ORDER BY frame_id"),
            vec![
                vec![Some(1), Some(100), Some(35), Some(1), Some(2), Some(0), Some(1), Some(1)],
                vec![Some(2), Some(100), Some(35), Some(1), Some(3), Some(0), Some(1), Some(1)],
                vec![Some(3), Some(200), Some(15), Some(4), Some(5), Some(0), Some(1), Some(1)],
            ]
        );
    }

    fn timeline(c: &Connection, table: &str, id: i64, ts: i64, dur: i64, token: i64, upid: i64) {
        c.execute(
            "INSERT INTO __intrinsic_slice(id, ts, dur, track_id, name, depth) VALUES (?1, ?2, ?3, 90, ?4, 0)",
            params![id, ts, dur, token.to_string()],
        )
        .unwrap();
        c.execute(
            &format!("INSERT INTO {table}(id, ts, dur, track_id, name, depth, upid, layer_name) VALUES (?1, ?2, ?3, 90, ?4, 0, ?5, 'L#1')"),
            params![id, ts, dur, token.to_string(), upid],
        )
        .unwrap();
    }

    #[test]
    fn frame_stats_rows_of_a_shared_frame_id_follow_the_thread_tracks() {
        let c = db();
        process(&c, 1, 100, "a");
        process(&c, 2, 200, "b");
        thread(&c, 1, 100, "a", 1, true);
        thread(&c, 2, 200, "b", 2, true);
        // Token 7 drawn by both processes; b's doFrame has the lower slice id but sits on
        // the later thread track (102 > 101), so a's row comes first.
        slice(&c, 1, 1000, 4000, 2, "Choreographer#doFrame 7", 0, None);
        slice(&c, 2, 1000, 3000, 1, "Choreographer#doFrame 7", 0, None);
        timeline(&c, "actual_frame_timeline_slice", 10, 900, 9000, 7, 1);
        timeline(&c, "expected_frame_timeline_slice", 11, 900, 8000, 7, 1);
        // No DrawFrame: cpu_time is each UI time + 5 ms, crossed with every UI time.
        assert_eq!(
            ints(&c, "INCLUDE PERFETTO MODULE android.frames.per_frame_metrics; SELECT frame_id, overrun, ui_time, cpu_time FROM android_frame_stats ORDER BY frame_id"),
            vec![
                vec![Some(7), Some(1000), Some(3000), Some(5_003_000)],
                vec![Some(7), Some(1000), Some(3000), Some(5_004_000)],
                vec![Some(7), Some(1000), Some(4000), Some(5_003_000)],
                vec![Some(7), Some(1000), Some(4000), Some(5_004_000)],
            ]
        );
    }
}

mod cujs {
    use super::*;

    /// A CUJ slice (`J<NAME>`) on the process track of upid 1 (track 500).
    fn cuj(c: &Connection, id: i64, ts: i64, dur: i64, name: &str) {
        c.execute(
            "INSERT INTO __intrinsic_slice(id, ts, dur, track_id, name, depth) VALUES (?1, ?2, ?3, 500, ?4, 0)",
            params![id, ts, dur, name],
        )
        .unwrap();
    }

    /// android/cujs/base.sql's `_android_jank_cuj_do_frames`: a doFrame of the CUJ's UI thread
    /// (its `#UIThread` marker, else the main thread) belongs to the CUJ when it overlaps the
    /// CUJ slice (ends at or after its start, starts at or before its end) and its vsync id
    /// lies within the FrameTracker begin / end vsync markers.
    #[test]
    fn cuj_do_frames_are_the_overlapping_do_frames_within_the_vsync_markers() {
        let c = db();
        process(&c, 1, 100, "com.android.systemui");
        thread(&c, 1, 100, "ui", 1, true);
        c.execute(
            "INSERT INTO __intrinsic_track(id, name, type, event_type, upid) VALUES (500, 'cujs', 'process', 'slice', 1)",
            [],
        )
        .unwrap();
        // CUJ A [10 us, 50 us], vsyncs 2..=5, UI thread named by its marker.
        cuj(&c, 50, 10_000, 40_000, "J<A>");
        slice(&c, 51, 11_000, 0, 1, "J<A>#UIThread", 0, None);
        slice(&c, 52, 12_000, 0, 1, "J<A>#FT#beginVsync#2", 0, None);
        slice(&c, 53, 49_000, 0, 1, "J<A>#FT#endVsync#5", 0, None);
        // CUJ B [40 us, 70 us], vsyncs 4..=9, no UI thread marker: the main thread.
        cuj(&c, 60, 40_000, 30_000, "J<B>");
        slice(&c, 61, 41_000, 0, 1, "J<B>#FT#beginVsync#4", 0, None);
        slice(&c, 62, 69_000, 0, 1, "J<B>#FT#endVsync#9", 0, None);
        // doFrames (id, vsync): 1 ends before A; 2, the longest, starts 8 us before A and
        // ends inside it; 3 is inside A; 4 straddles A's end and B's start; 6 is inside B;
        // 10 is inside B with a vsync past its end marker; 8 starts after B.
        for (id, ts, dur, vsync) in [
            (1, 0, 1_000, 1),
            (2, 2_000, 30_000, 2),
            (3, 33_000, 5_000, 3),
            (4, 45_000, 10_000, 4),
            (5, 60_000, 5_000, 6),
            (6, 66_000, 2_000, 10),
            (7, 80_000, 1_000, 8),
        ] {
            let name = format!("Choreographer#doFrame {vsync}");
            slice(&c, id, ts, dur, 1, &name, 0, None);
        }
        assert_eq!(
            ints(
                &c,
                "INCLUDE PERFETTO MODULE android.cujs.base; \
                 SELECT cuj_id, ui_thread, utid, id, vsync, ts, ts_end, track_id \
                 FROM _android_jank_cuj_do_frames ORDER BY cuj_id, id"
            ),
            [
                [1, 1, 1, 2, 2, 2_000, 32_000, 101],
                [1, 1, 1, 3, 3, 33_000, 38_000, 101],
                [1, 1, 1, 4, 4, 45_000, 55_000, 101],
                [2, -1, 1, 4, 4, 45_000, 55_000, 101],
                [2, -1, 1, 5, 6, 60_000, 65_000, 101],
            ]
            .iter()
            .map(|r| r
                .iter()
                .map(|&v| (v != -1).then_some(v))
                .collect::<Vec<_>>())
            .collect::<Vec<_>>()
        );
    }
}
