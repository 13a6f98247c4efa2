//! `query` serves the large tables (slices, counters, sched, thread states) in place
//! (virtual tables over the store) instead of copying them into SQLite. The same SQL must give the same rows, in the same order, over
//! both: every walk the virtual table can choose (whole scan, id range, first filtered scan,
//! sorted-column lookup) is reached by one of these queries.

mod common;

use std::path::Path;
use std::sync::Arc;

use frameprobe::single_trace::query::{load_for_query, run_sql, QueryOptions};
use frameprobe::store::sqlite::{to_connection, to_shared_connection, ExportOptions};

/// Each compared row for row, in order.
const QUERIES: &[&str] = &[
    "select * from slice",
    "select * from slice order by id",
    "select id, ts from slice order by id desc limit 50",
    "select rowid as r, id, name from __intrinsic_slice where rowid = 5",
    "select id, name from slice where id = 5",
    "select id, name from slice where id in (1, 3, 7, 100000000, -1)",
    "select id from __intrinsic_slice where rowid between 10 and 20",
    "select id from slice where id > (select max(id) - 5 from slice)",
    "select id from slice where id >= 3 and id < 9 and id <= 7",
    "select id, ts, dur from slice where ts between (select min(ts) + 1000000 from slice) and (select min(ts) + 90000000 from slice)",
    "select id from slice where ts > 9223372036854775807 or ts < -9223372036854775808",
    "select count(*) from slice where name = (select name from slice where depth = 1 limit 1)",
    "select count(*) from slice where track_id = '3'",
    "select count(*) from slice where depth = 1.0",
    "select count(*) from slice where name = 5",
    "select count(*) from slice where name = NULL or ts > NULL",
    "select count(*) from slice where name = upper((select name from slice where name glob '*[a-z]*' limit 1)) collate nocase",
    "select id from slice where category is null and parent_id is null limit 20",
    "select c.id, p.id, p.name from slice c join slice p on c.parent_id = p.id order by c.id",
    "select p.id, count(c.id) from slice p left join slice c on c.parent_id = p.id group by p.id order by p.id",
    "select a.id, b.id from slice a join slice b on b.track_id = a.track_id and b.ts > a.ts and b.ts < a.ts + 2000000 where a.depth = 0 order by a.id, b.id limit 3000",
    "select t.id, (select count(*) from slice s where s.ts >= t.ts and s.ts < t.ts + 5e6) from slice t where t.depth = 0 order by t.id limit 300",
    "select t.id, (select group_concat(s.id) from slice s where s.name = t.name and s.id < t.id + 50) from slice t where t.id % 7 = 0 order by t.id",
    "select t.utid, count(*) from thread_track t join slice s on s.track_id = t.id group by t.utid order by t.utid",
    "select * from instant order by ts, track_id, name",
    "select name, count(*), sum(dur), min(ts) from slice group by name order by name",
    "INCLUDE PERFETTO MODULE android.frame_blocking_calls.blocking_calls_aggregation; select * from _jank_cujs_slices order by cuj_id",
    "INCLUDE PERFETTO MODULE android.frames.timeline; select * from android_frames order by frame_id, ts",
    "select * from thread_state",
    "select * from thread_state where utid = (select utid from thread_state group by utid order by count(*) desc limit 1)",
    "select t.id, w.id, w.utid from thread_state t join thread_state w on w.id = t.waker_id where t.state = 'R' order by t.id",
    "select state, io_wait, count(*), sum(dur) from thread_state group by state, io_wait order by state, io_wait",
    "select * from spurious_sched_wakeup",
    "select * from sched",
    "select * from sched where cpu = 1 and ts > (select min(ts) + 1000000 from sched) limit 500",
    "select s.id, t.id from sched s join thread_state t on t.utid = s.utid and t.ts = s.ts order by s.id limit 2000",
    "select end_state, count(*) from sched_slice group by end_state order by end_state",
    "select * from counter",
    "select * from counter where value > 1000 and value < 5e5",
    "select c.id, t.name, c.value from counter c join counter_track t on c.track_id = t.id order by c.id",
    "select count(*), sum(value) from counter where track_id in (select id from counter_track where name glob '*freq*')",
];

fn compare_on(trace: &Path) {
    let opts = QueryOptions::default();
    let every_table = "select * from slice, thread_state, counter";
    let loaded = load_for_query(trace, every_table, opts).unwrap();
    let store = Arc::new(loaded.store);
    assert!(
        store.slices.len() > 1000,
        "{}: too few slices",
        trace.display()
    );
    for sql in QUERIES {
        let export = ExportOptions::for_sql(sql);
        let copied = to_connection(&store, export).unwrap();
        let in_place = to_shared_connection(store.clone(), export).unwrap();
        let want = run_sql(&copied, sql).unwrap();
        let got =
            run_sql(&in_place, sql).unwrap_or_else(|e| panic!("{}: {sql}: {e:#}", trace.display()));
        assert_eq!(got.columns, want.columns, "{sql}");
        assert_eq!(
            got.rows.len(),
            want.rows.len(),
            "{}: {sql}",
            trace.display()
        );
        assert!(
            got.rows == want.rows,
            "{}: {sql}: rows differ",
            trace.display()
        );
    }
}

#[test]
fn in_place_tables_answer_as_the_copied_ones_on_the_sample() {
    compare_on(&common::sample_trace());
}

#[test]
fn in_place_tables_answer_as_the_copied_ones_on_real_traces() {
    let test = "in_place_tables_answer_as_the_copied_ones_on_real_traces";
    let Some(traces) = common::shared("traces", test) else {
        return;
    };
    for t in [
        "androidx_api35_startup_cold_classinit",
        "androidx_api24_startup_cold",
    ] {
        compare_on(&traces.join(format!("{t}.perfetto-trace")));
    }
}

/// Both paths read the same column definitions, so the comparison above cannot see a column
/// read from the wrong field; trace_processor's meaning of the waker columns can: `waker_id`
/// is the waker's Running row, on the `waker_utid` thread, started before the woken state.
#[test]
fn waker_id_is_the_running_row_of_waker_utid() {
    let test = "waker_id_is_the_running_row_of_waker_utid";
    let Some(traces) = common::shared("traces", test) else {
        return;
    };
    let trace = traces.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let rows = common::query_csv(
        &trace,
        "select (select count(*) from thread_state where waker_id is not null), \
         (select count(*) from thread_state t join thread_state w on w.id = t.waker_id \
          where w.utid != t.waker_utid or w.state != 'Running' or w.ts > t.ts)",
    );
    let with_waker: u64 = rows[1][0].parse().unwrap();
    assert!(with_waker > 1000, "{with_waker} states with a waker row");
    assert_eq!(
        rows[1][1], "0",
        "states whose waker_id is not their waker's Running row"
    );
}
