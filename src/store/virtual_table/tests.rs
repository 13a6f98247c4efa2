use std::sync::Arc;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::*;
use crate::rng::Rng;
use crate::store::sqlite::{to_connection, to_shared_connection, ExportOptions};
use crate::store::{NewSlice, SliceThreadTimes};

/// 5,000 seeded slices on 7 tracks: nested up to depth 3, some parents far back (the side
/// map), categories and thread times on a few, negative and extreme timestamps.
fn seeded_store() -> Store {
    let mut s = Store::default();
    let mut rng = Rng::new(19);
    let mut below = |n: u64| rng.next_u64() % n;
    let names: Vec<StrId> = ["a", "B", "b", "draw", "Draw", "x y"]
        .iter()
        .map(|n| s.intern(n))
        .collect();
    let cat = s.intern("gfx");
    for i in 0..5_000u32 {
        let depth = below(4) as u32;
        let parent = match (depth, i) {
            (0, _) | (_, 0) => None,
            // Far enough back for the side map now and then.
            _ if i > 4_000 && below(10) == 0 => Some(below(50) as u32),
            _ => Some(i - 1 - below(i.min(5) as u64) as u32),
        };
        let ts = match i {
            0 => i64::MIN + 1,
            1 => i64::MAX - 1,
            _ => below(2_000_000) as i64 - 1_000,
        };
        let id = s.push_slice(NewSlice {
            ts,
            dur: below(5_000) as i64,
            track_id: below(7) as u32,
            category: (below(5) == 0).then_some(cat),
            name: (i % 97 != 0).then(|| names[below(names.len() as u64) as usize]),
            depth,
            parent_id: parent,
            arg_set_id: None,
        });
        if below(9) == 0 {
            s.slice_thread_times.insert(
                id,
                SliceThreadTimes {
                    thread_ts: Some(ts / 2),
                    thread_dur: (below(2) == 0).then_some(7),
                    thread_instruction_count: None,
                    thread_instruction_delta: Some(-3),
                },
            );
        }
    }
    s
}

fn rows(conn: &Connection, sql: &str) -> Vec<Vec<Value>> {
    let mut st = conn.prepare(sql).unwrap();
    let n = st.column_count();
    st.query_map([], |r| (0..n).map(|i| r.get::<_, Value>(i)).collect())
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Every query twice in a row on the same connection, so that the second run of a filtered
/// column goes through its sorted index.
#[test]
fn every_walk_returns_the_copied_tables_rows_in_its_order() {
    let store = Arc::new(seeded_store());
    let opts = ExportOptions::for_sql("select * from slice");
    let copied = to_connection(&store, opts).unwrap();
    let in_place = to_shared_connection(store.clone(), opts).unwrap();
    let queries = [
        "select * from slice",
        "select * from slice order by id",
        "select * from slice order by id desc",
        "select * from slice where id between 10 and 20 or id = 4999 or id = 5000",
        "select id from slice where id > -5 and id < 3",
        "select id from slice where ts > 9223372036854775806",
        "select id from slice where ts >= 9223372036854775806",
        "select id from slice where ts < -9223372036854775806",
        "select id from slice where ts <= -9223372036854775807",
        "select id from slice where ts > 1000 and ts <= 1400 and ts < 1390",
        "select id from slice where ts >= 1000 and ts < 1003",
        // About 5% of the rows: many ids to sort back into order.
        "select id from slice where ts >= 0 and ts < 100000",
        "select id from slice where ts > 999.5 and ts < 1002.5",
        "select id from slice where ts = 1000.0 or ts = 1001.5",
        "select id from slice where ts > '1000' and ts < 1100",
        "select id from slice where dur = 7 and track_id = 3",
        "select id from slice where depth = 2",
        "select id from slice where parent_id = 3 or parent_id = 42",
        "select id from slice where parent_id in (1, 2, 3, 40)",
        "select id from slice where name = 'draw'",
        "select id from slice where name = 'Draw' collate nocase",
        "select id from slice where name = 'nope' or category = 'gfx'",
        "select id from slice where name is null",
        "select id from slice where name = NULL or ts = NULL",
        "select id, thread_ts, thread_dur, thread_instruction_count, thread_instruction_delta from slice where thread_ts is not null",
        // Odd bounds: blobs, text that affinity turns into a number, reals beyond i64,
        // infinities, empty and text IN lists, two equalities on one column.
        "select id from slice where ts > x'00' or ts = x'3130'",
        "select id from slice where ts = '1000' or dur = ' 7'",
        "select id from slice where id = 1e300 or id = -1e300 or id = 2.0",
        "select id from slice where ts between 9e18 and 1e19 or ts < -1e400",
        "select id from slice where id in () or name in ()",
        "select id from slice where name in ('a', 'draw', 'nope')",
        "select id from slice where track_id = 3 and track_id = 4",
        "select id from slice where parent_id = 7 and parent_id > 3",
        "select c.id, p.id from slice c join slice p on p.id = c.parent_id",
        "select a.id, b.id from slice a join slice b on b.name = a.name and b.id = a.id + 1",
        "select a.id, count(b.id) from slice a join slice b on b.ts >= a.ts and b.ts < a.ts + 300 where a.id % 50 = 0 group by a.id",
    ];
    for sql in queries {
        let want = rows(&copied, sql);
        assert_eq!(rows(&in_place, sql), want, "first run: {sql}");
        assert_eq!(rows(&in_place, sql), want, "second run: {sql}");
    }
}

#[test]
fn a_plan_survives_its_packing() {
    for args in [
        vec![],
        vec![(0, EQ)],
        vec![(12, 2), (12, 5), (3, EQ), (10, 4)],
    ] {
        let plan = Plan { args };
        assert_eq!(Plan::decode(Some(&plan.encode())), Some(plan));
    }
    assert_eq!(Plan::decode(None), Some(Plan { args: vec![] }));
    assert_eq!(Plan::decode(Some("1.x")), None);
}

#[test]
fn a_sorted_column_finds_every_key_in_a_range_in_id_order() {
    let src = Source {
        store: Arc::new(seeded_store()),
        def: &crate::store::in_place_tables::SLICE_TABLE,
        rows: 5_000,
        indexes: Vec::new(),
        filtered: Vec::new(),
    };
    let index = SortedColumn::build(&src, 1);
    let ts = |id: u32| src.store.slices[id as usize].ts;
    for (lo, hi) in [
        (1000, 1000),
        (1000, 1010),
        (-5, 3),
        (i64::MIN, -1_001),
        (0, 100_000),
    ] {
        let want: Vec<u32> = (0..5_000).filter(|&i| (lo..=hi).contains(&ts(i))).collect();
        assert_eq!(index.ids_in(lo, hi), Some(want), "{lo}..={hi}");
    }
    // Half the rows: a scan is cheaper than sorting them back.
    assert_eq!(index.ids_in(0, 1_000_000), None);
}

#[test]
fn an_empty_store_serves_empty_tables() {
    let opts = ExportOptions::for_sql("select * from slice, thread_state, counter");
    let conn = to_shared_connection(Arc::new(Store::default()), opts).unwrap();
    for sql in [
        "select * from slice",
        "select * from slice where id = 0 or ts > 5",
        "select * from thread_state where utid = 1",
        "select * from counter order by id",
        "select * from sched where ts between 1 and 2",
    ] {
        assert!(rows(&conn, sql).is_empty(), "{sql}");
    }
}
