//! CUJ interactions: each `J<NAME>` slice of Perfetto's `android.cujs.base`
//! (`_jank_cujs_slices`), with exactly the frames `_android_distinct_frames_in_cuj` puts in
//! it (frame ids between the FrameTracker begin and end vsyncs whose span touches the CUJ),
//! as frameprobe's implementation of the module computes them.

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::Connection;

use super::{InteractionSource, Window};
use crate::analysis::causes::cuj::has_cuj_slices;
use crate::analysis::frame_model::Frame;
use crate::analysis::{perfetto_stats, stdlib};
use crate::store::{Store, Upid};

/// Builds `android.cujs.base` on a [`perfetto_stats::frame_db`] when the trace has CUJ
/// slices; false when it has none (the module would be empty).
pub fn ensure_cuj_module(store: &Store, conn: &Connection) -> Result<bool> {
    if !has_cuj_slices(store) {
        return Ok(false);
    }
    let module = stdlib::module_named("android.cujs.base").context("no android.cujs.base")?;
    stdlib::ensure_module(conn, module)?;
    Ok(true)
}

/// The CUJ windows, read from `db` (a [`perfetto_stats::frame_db`] of `store`) or, without
/// one, from a frame database built here.
pub(super) fn windows(
    store: &Store,
    frames: &HashMap<Upid, Vec<Frame>>,
    db: Option<&Connection>,
) -> Result<Vec<Window>> {
    if !has_cuj_slices(store) {
        return Ok(Vec::new());
    }
    let own;
    let conn = match db {
        Some(c) => c,
        None => {
            own = perfetto_stats::frame_db(store, None)?;
            &own
        }
    };
    ensure_cuj_module(store, conn)?;
    let mut st = conn.prepare(
        "SELECT c.cuj_id, c.upid, c.ts, c.dur, \
         substr(c.cuj_slice_name, 3, length(c.cuj_slice_name) - 3), d.frame_id \
         FROM _jank_cujs_slices c LEFT JOIN _android_distinct_frames_in_cuj d USING (cuj_id) \
         ORDER BY c.cuj_id, d.frame_id",
    )?;
    let mut rows = st.query([])?;
    let mut out: Vec<(i64, Window, Vec<i64>)> = Vec::new();
    while let Some(r) = rows.next()? {
        let cuj_id: i64 = r.get(0)?;
        let frame_id: Option<i64> = r.get(5)?;
        if out.last().is_none_or(|(id, _, _)| *id != cuj_id) {
            let w = Window {
                upid: r.get::<_, i64>(1)? as Upid,
                source: InteractionSource::Cuj,
                label: r.get(4)?,
                ts: r.get(2)?,
                dur: r.get(3)?,
                frames: None,
            };
            out.push((cuj_id, w, Vec::new()));
        }
        if let (Some(id), Some(last)) = (frame_id, out.last_mut()) {
            last.2.push(id);
        }
    }
    Ok(out
        .into_iter()
        .map(|(_, mut w, ids)| {
            let fs = frames.get(&w.upid).map_or(&[][..], |v| v.as_slice());
            w.frames = Some(
                (0..fs.len())
                    .filter(|&i| {
                        fs[i]
                            .frame_id
                            .is_some_and(|id| ids.binary_search(&id).is_ok())
                    })
                    .collect(),
            );
            w
        })
        .collect())
}
