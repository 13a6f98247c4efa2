//! Perfetto stdlib `android_frame_stats`, computed by running frameprobe's implementation of
//! the stdlib tables over a small database holding only the frame slices: the per-process
//! counts, and per (process, vsync id) the verdict the definitions module maps onto frames.

use std::collections::HashMap;

use rustc_hash::{FxHashMap, FxHashSet};

use anyhow::Result;
use rusqlite::Connection;

use super::report_model::PerfettoFrameStats;
use super::time_range::TimeRange;
use crate::store::sqlite::{to_connection_later, ExportOptions, FromCaller};
use crate::store::{SliceId, Store, Upid};

/// The stdlib's verdict on one frame id of one process (its rows merged: the overrun is the
/// frame id's; CPU time is the largest of its doFrames').
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StdlibFrame {
    pub overrun_ns: Option<i64>,
    pub cpu_time_ns: Option<i64>,
    pub was_jank: bool,
    pub was_slow_frame: bool,
    pub was_big_jank: bool,
    pub was_huge_jank: bool,
    /// `android_frame_stats` rows of the frame id (one per doFrame with that id).
    pub rows: usize,
    /// Its `android_frames.ts` lies in the analysed range (always, without a range).
    pub in_range: bool,
}

/// Everything the analysis takes from the stdlib frame tables.
#[derive(Debug, Default)]
pub struct StdlibStats {
    /// Counts over the frames in the analysed range.
    pub by_process: HashMap<Upid, PerfettoFrameStats>,
    /// upid -> frame id -> verdict: by process, so that one process's frames are read
    /// without going through every other's (each process's report reads its own).
    frames: FxHashMap<Upid, FxHashMap<i64, StdlibFrame>>,
    /// (upid, frame id) of every `Choreographer#doFrame <id>` / `DrawFrame <id>` on any thread.
    pub do_frame_ids: FxHashSet<(Upid, i64)>,
    pub draw_frame_ids: FxHashSet<(Upid, i64)>,
}

impl StdlibStats {
    /// The verdict on frame id `id` of process `upid`.
    pub fn frame(&self, upid: Upid, id: i64) -> Option<&StdlibFrame> {
        self.frames.get(&upid)?.get(&id)
    }

    /// Every frame id of process `upid` with its verdict, in no particular order.
    pub fn frames_of(&self, upid: Upid) -> impl Iterator<Item = (i64, &StdlibFrame)> {
        self.frames
            .get(&upid)
            .into_iter()
            .flat_map(|m| m.iter().map(|(&id, f)| (id, f)))
    }
}

/// The small database of the frame (and CUJ) slices the stdlib frame tables read, with
/// those tables built; `analyze` builds it once for the frame stats and the CUJ boundaries.
pub fn frame_db(store: &Store, bounds: Option<(i64, i64)>) -> Result<Connection> {
    let later = FromCaller {
        frame_slice_ids: || None,
        bounds: || bounds,
    };
    frame_db_later(store, later)
}

/// [`frame_db`] with inputs the caller works out meanwhile.
fn frame_db_later(
    store: &Store,
    later: FromCaller<impl FnOnce() -> Option<Vec<SliceId>>, impl FnOnce() -> Option<(i64, i64)>>,
) -> Result<Connection> {
    let opts = ExportOptions {
        bounds: None,
        sched: false,
        counters: false,
        slices: true,
        only_frame_slices: true,
        thread_state: false,
        args: false,
    };
    let conn = to_connection_later(store, opts, later)?;
    super::stdlib::ensure_frames_module(&conn)?;
    Ok(conn)
}

/// What `analyze` reads from the [`frame_db`]: the database itself (the CUJ interactions query
/// it again), the stdlib frame stats over `range` and the CUJ frame boundaries. It needs only
/// the store, so `analyze` builds it on a second thread beside the frame model.
pub struct FrameDbWork {
    pub conn: Result<Connection>,
    pub stats: Result<StdlibStats>,
    pub cuj_frames: Result<crate::analysis::causes::cuj::CujFrames>,
}

impl FrameDbWork {
    /// The caller computes meanwhile the database's slice ids
    /// ([`crate::store::sqlite::frame_db_slice_ids`]), needed before the slices are written,
    /// and `bounds_and_range`, the store's `trace_bounds` and the analysed range, first
    /// needed once the rows are written. None (the caller is gone) stands for the ids
    /// found here, the store's bounds and the whole trace.
    pub fn run(
        store: &Store,
        frame_slice_ids: impl FnOnce() -> Option<Vec<SliceId>>,
        bounds_and_range: impl FnOnce() -> Option<((i64, i64), TimeRange)>,
    ) -> FrameDbWork {
        let mut range = TimeRange::default();
        let later = FromCaller {
            frame_slice_ids,
            bounds: || {
                let (bounds, r) = bounds_and_range()?;
                range = r;
                Some(bounds)
            },
        };
        let conn = frame_db_later(store, later);
        let (stats, cuj_frames) = match &conn {
            Ok(c) => (
                compute_on(c, range),
                crate::analysis::causes::cuj::frames_on(store, c),
            ),
            Err(e) => (Err(anyhow::anyhow!("{e:#}")), Ok(Default::default())),
        };
        if let Ok(c) = &conn {
            // The CUJ interactions' module, built here off the main thread; its errors are
            // reported where the interactions read it.
            let _ = crate::analysis::interactions::ensure_cuj_module(store, c);
        }
        FrameDbWork {
            conn,
            stats,
            cuj_frames,
        }
    }
}

pub fn compute(store: &Store) -> Result<StdlibStats> {
    compute_on(&frame_db(store, None)?, TimeRange::default())
}

/// The stats from a [`frame_db`]: every frame's verdict, and the per-process counts of the
/// frames whose `android_frames.ts` (the stdlib's own frame start) lies in `range`.
pub fn compute_on(conn: &Connection, range: TimeRange) -> Result<StdlibStats> {
    let mut out = StdlibStats::default();
    let mut st = conn.prepare(
        "SELECT f.upid, s.frame_id, s.was_jank, s.was_slow_frame, s.was_big_jank, s.was_huge_jank, \
         s.overrun, s.cpu_time, f.ts \
         FROM android_frame_stats s JOIN (SELECT DISTINCT frame_id, upid, ts FROM android_frames) f USING (frame_id)",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let upid = r.get::<_, i64>(0)? as Upid;
        let flag = |i: usize| -> Result<bool> { Ok(r.get::<_, Option<i64>>(i)?.is_some()) };
        let (jank, slow, big, huge) = (flag(2)?, flag(3)?, flag(4)?, flag(5)?);
        let in_range = r
            .get::<_, Option<i64>>(8)?
            .map_or(range == TimeRange::default(), |ts| range.contains(ts));
        if in_range {
            let e = out.by_process.entry(upid).or_default();
            e.frames += 1;
            e.was_jank += jank as usize;
            e.was_slow_frame += slow as usize;
            e.was_big_jank += big as usize;
            e.was_huge_jank += huge as usize;
        }
        let overrun = r.get::<_, Option<i64>>(6)?;
        let cpu = r.get::<_, Option<i64>>(7)?;
        let f = out
            .frames
            .entry(upid)
            .or_default()
            .entry(r.get::<_, i64>(1)?)
            .or_insert(StdlibFrame {
                overrun_ns: overrun,
                cpu_time_ns: cpu,
                was_jank: false,
                was_slow_frame: false,
                was_big_jank: false,
                was_huge_jank: false,
                rows: 0,
                in_range,
            });
        f.rows += 1;
        f.was_jank |= jank;
        f.was_slow_frame |= slow;
        f.was_big_jank |= big;
        f.was_huge_jank |= huge;
        f.cpu_time_ns = f.cpu_time_ns.max(cpu);
    }
    for (table, set) in [
        (
            "android_frames_choreographer_do_frame",
            &mut out.do_frame_ids,
        ),
        ("android_frames_draw_frame", &mut out.draw_frame_ids),
    ] {
        let mut st = conn.prepare(&format!("SELECT DISTINCT upid, frame_id FROM {table}"))?;
        let mut rows = st.query([])?;
        while let Some(r) = rows.next()? {
            if let (Some(u), Some(id)) = (r.get::<_, Option<i64>>(0)?, r.get::<_, Option<i64>>(1)?)
            {
                set.insert((u as Upid, id));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stdlib tables `compute_on` reads, with two processes that reuse a vsync id.
    fn frame_tables() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE android_frames(frame_id INT, upid INT, ts INT);
             INSERT INTO android_frames VALUES (7, 1, 100), (7, 2, 150), (8, 2, 200);
             CREATE TABLE android_frame_stats(frame_id INT, was_jank INT, was_slow_frame INT,
               was_big_jank INT, was_huge_jank INT, overrun INT, cpu_time INT);
             INSERT INTO android_frame_stats VALUES (7, 1, NULL, NULL, NULL, 5, 10),
               (8, NULL, NULL, NULL, NULL, -3, 4);
             CREATE TABLE android_frames_choreographer_do_frame(upid INT, frame_id INT);
             INSERT INTO android_frames_choreographer_do_frame VALUES (1, 7), (2, 7), (2, 8);
             CREATE TABLE android_frames_draw_frame(upid INT, frame_id INT);
             INSERT INTO android_frames_draw_frame VALUES (2, 8);",
        )
        .unwrap();
        c
    }

    #[test]
    fn each_process_reads_only_its_own_frame_ids() {
        let s = compute_on(&frame_tables(), TimeRange::default()).unwrap();
        let jank = |u: Upid, id: i64| s.frame(u, id).map(|f| (f.was_jank, f.overrun_ns));
        assert_eq!(jank(1, 7), Some((true, Some(5))));
        assert_eq!(jank(2, 7), Some((true, Some(5))));
        assert_eq!(jank(2, 8), Some((false, Some(-3))));
        // Process 1 has no frame 8, and process 3 none at all.
        assert_eq!(jank(1, 8), None);
        assert_eq!(jank(3, 7), None);
        let ids = |u: Upid| {
            let mut v: Vec<i64> = s.frames_of(u).map(|(id, _)| id).collect();
            v.sort();
            v
        };
        assert_eq!(ids(1), [7]);
        assert_eq!(ids(2), [7, 8]);
        assert!(ids(3).is_empty());
        assert_eq!(s.by_process[&1].frames, 1);
        assert_eq!(s.by_process[&2].frames, 2);
        assert!(s.draw_frame_ids.contains(&(2, 8)) && !s.draw_frame_ids.contains(&(1, 7)));
    }
}
