//! android.binder on hand-made tables; expected rows follow Perfetto's binder.sql (v58.2):
//! a synchronous transaction pairs with the reply its flow leads to (dropped when the reply
//! outlasts it or either end never finished) and takes the server AIDL slice inside the
//! reply; a oneway transaction takes the slice that follows its `binder async rcv` on the
//! server thread unless that is another reception.

use rusqlite::types::Value;
use rusqlite::Connection;

use super::strip_includes;
use crate::store::sqlite::{to_connection, ExportOptions};
use crate::store::Store;

const ROWS: &str = "
INSERT INTO __intrinsic_process(id, pid, name, android_appid) VALUES
  (1, 100, 'com.example.app', 10050), (2, 200, 'system_server', 1000);
INSERT INTO __intrinsic_thread(id, tid, name, upid, is_main_thread) VALUES
  (1, 100, 'example', 1, 1), (2, 201, 'binder:200_1', 2, 0);
INSERT INTO __intrinsic_track(id, type, event_type, utid, upid, name) VALUES
  (1, 'thread_execution', 'slice', 1, NULL, NULL),
  (2, 'thread_execution', 'slice', 2, NULL, NULL),
  (3, 'process_counter', 'counter', NULL, 1, 'oom_score_adj');
INSERT INTO __intrinsic_slice(id, ts, dur, track_id, name, depth, parent_id) VALUES
  (1, 100, 50, 1, 'binder transaction', 0, NULL),
  (2, 110, 30, 2, 'binder reply', 0, NULL),
  (3, 115, 20, 2, 'AIDL::java::IFoo::bar::server', 1, 2),
  (4, 200, 10, 1, 'binder transaction', 0, NULL),
  (5, 201, 20, 2, 'binder reply', 0, NULL),
  (6, 300, 0, 1, 'binder transaction async', 0, NULL),
  (7, 310, 0, 2, 'binder async rcv', 0, NULL),
  (8, 311, 5, 2, 'AIDL::java::IFoo::ping::server', 0, NULL),
  (9, 400, 0, 1, 'binder transaction async', 0, NULL),
  (10, 410, 0, 2, 'binder async rcv', 0, NULL),
  (11, 420, 0, 2, 'binder async rcv', 0, NULL),
  (12, 500, -1, 1, 'binder transaction', 0, NULL),
  (13, 510, 10, 2, 'binder reply', 0, NULL);
INSERT INTO __intrinsic_flow(id, slice_out, slice_in) VALUES
  (1, 1, 2), (2, 4, 5), (3, 6, 7), (4, 9, 10), (5, 12, 13);
INSERT INTO __intrinsic_counter(id, ts, track_id, value) VALUES
  (1, 50, 3, 0), (2, 250, 3, 900);
CREATE TABLE package_list(
  id INTEGER PRIMARY KEY, package_name TEXT, uid INTEGER, debuggable INTEGER,
  profileable_from_shell INTEGER, version_code INTEGER);
INSERT INTO package_list VALUES (1, 'com.example.app', 10050, 1, 0, 42);
";

fn conn() -> Connection {
    let conn = to_connection(&Store::default(), ExportOptions::default()).unwrap();
    crate::analysis::sql_functions::register_bounds(&conn, 0, 1000).unwrap();
    conn.execute_batch(ROWS).unwrap();
    conn
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Value>> {
    let sql = strip_includes(conn, sql).unwrap();
    let mut stmt = conn.prepare(&sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

#[test]
fn binder_txns_pair_each_call_with_its_server_side() {
    use Value::{Integer as I, Null};
    let c = conn();
    let got = rows(
        &c,
        "INCLUDE PERFETTO MODULE android.binder;
         SELECT binder_txn_id, aidl_name, interface, method_name, client_process,
                client_thread, client_tid, is_main_thread, client_ts, client_dur,
                binder_reply_id, server_process, server_tid, server_ts, server_dur,
                client_oom_score, server_oom_score, is_sync, client_package_version_code,
                is_client_package_debuggable, server_package_version_code
         FROM android_binder_txns",
    );
    let app = || text("com.example.app");
    let server = || text("system_server");
    let expected = vec![
        vec![
            I(1),
            text("AIDL::java::IFoo::bar::server"),
            text("IFoo"),
            text("bar"),
            app(),
            text("example"),
            I(100),
            I(1),
            I(100),
            I(50),
            I(2),
            server(),
            I(201),
            I(110),
            I(30),
            I(0),
            Null,
            I(1),
            I(42),
            I(1),
            Null,
        ],
        // Slice 4 is dropped: its reply outlasts it; slice 12 never ended.
        vec![
            I(6),
            text("AIDL::java::IFoo::ping::server"),
            text("IFoo"),
            text("ping"),
            app(),
            text("example"),
            I(100),
            I(1),
            I(300),
            I(0),
            I(7),
            server(),
            I(201),
            I(310),
            I(0),
            I(900),
            Null,
            I(0),
            I(42),
            I(1),
            Null,
        ],
        vec![
            I(9),
            Null,
            Null,
            Null,
            app(),
            text("example"),
            I(100),
            I(1),
            I(400),
            I(0),
            I(10),
            server(),
            I(201),
            I(410),
            I(0),
            I(900),
            Null,
            I(0),
            I(42),
            I(1),
            Null,
        ],
    ];
    assert_eq!(got, expected);
}

#[test]
fn binder_metrics_count_binder_slices_per_process() {
    let c = conn();
    let got = rows(
        &c,
        "SELECT process_name, slice_name, event_count FROM android_binder_metrics_by_process
         ORDER BY process_name, slice_name",
    );
    let row = |p: &str, s: &str, n: i64| vec![text(p), text(s), Value::Integer(n)];
    assert_eq!(
        got,
        vec![
            row("com.example.app", "binder transaction", 3),
            row("com.example.app", "binder transaction async", 2),
            row("system_server", "binder async rcv", 3),
            row("system_server", "binder reply", 3),
        ]
    );
}

#[test]
fn binder_blocked_functions_need_the_thread_state_table() {
    // The module builds its thread-state tables with the rest, so naming any of its tables
    // (or including it) needs thread_state; plain slice queries do not.
    assert!(super::needs_thread_state(
        "select * from ANDROID_SYNC_BINDER_BLOCKED_FUNCTIONS_BY_TXN"
    ));
    assert!(super::needs_thread_state(
        "INCLUDE PERFETTO MODULE android.binder; select * from android_binder_txns"
    ));
    assert!(!super::needs_thread_state("select * from slice"));
}
