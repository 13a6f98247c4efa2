//! Perfetto stdlib `android_frame_stats`, computed by running frameprobe's implementation of
//! the stdlib tables over a small database holding only the frame slices.

use std::collections::HashMap;

use anyhow::Result;

use super::report_model::PerfettoFrameStats;
use crate::store::sqlite::{to_connection, ExportOptions};
use crate::store::{Store, Upid};

pub fn by_process(store: &Store) -> Result<HashMap<Upid, PerfettoFrameStats>> {
    let mut out: HashMap<Upid, PerfettoFrameStats> = HashMap::new();
    let opts = ExportOptions {
        sched: false,
        counters: false,
        slices: true,
        only_frame_slices: true,
        thread_state: false,
        args: false,
    };
    let conn = to_connection(store, opts)?;
    super::stdlib::ensure_frames_module(&conn)?;
    let mut st = conn.prepare(
        "SELECT f.upid, s.was_jank, s.was_slow_frame, s.was_big_jank, s.was_huge_jank \
         FROM android_frame_stats s JOIN (SELECT DISTINCT frame_id, upid FROM android_frames) f USING (frame_id)",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let e = out.entry(r.get::<_, i64>(0)? as Upid).or_default();
        e.frames += 1;
        e.was_jank += r.get::<_, Option<i64>>(1)?.is_some() as usize;
        e.was_slow_frame += r.get::<_, Option<i64>>(2)?.is_some() as usize;
        e.was_big_jank += r.get::<_, Option<i64>>(3)?.is_some() as usize;
        e.was_huge_jank += r.get::<_, Option<i64>>(4)?.is_some() as usize;
    }
    Ok(out)
}
