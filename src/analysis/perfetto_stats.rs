//! Perfetto stdlib `android_frame_stats`, computed by running frameprobe's implementation of
//! the stdlib views over a small database holding only the frame slices.

use std::collections::HashMap;

use super::report_model::PerfettoFrameStats;
use crate::store::sqlite::{to_connection, ExportOptions};
use crate::store::{Store, Upid};

pub fn by_process(store: &Store) -> HashMap<Upid, PerfettoFrameStats> {
    let mut out: HashMap<Upid, PerfettoFrameStats> = HashMap::new();
    let opts = ExportOptions {
        sched: false,
        counters: false,
        slices: true,
        only_frame_slices: true,
        thread_state: false,
    };
    let Ok(conn) = to_connection(store, opts) else {
        return out;
    };
    let sql = "SELECT f.upid, s.was_jank, s.was_slow_frame, s.was_big_jank, s.was_huge_jank \
               FROM android_frame_stats s JOIN (SELECT DISTINCT frame_id, upid FROM android_frames) f USING (frame_id)";
    let Ok(mut st) = conn.prepare(sql) else {
        return out;
    };
    let rows = st.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)? as Upid,
            r.get::<_, Option<i64>>(1)?.is_some(),
            r.get::<_, Option<i64>>(2)?.is_some(),
            r.get::<_, Option<i64>>(3)?.is_some(),
            r.get::<_, Option<i64>>(4)?.is_some(),
        ))
    });
    let Ok(rows) = rows else { return out };
    for (upid, jank, slow, big, huge) in rows.flatten() {
        let e = out.entry(upid).or_default();
        e.frames += 1;
        e.was_jank += jank as usize;
        e.was_slow_frame += slow as usize;
        e.was_big_jank += big as usize;
        e.was_huge_jank += huge as usize;
    }
    out
}
