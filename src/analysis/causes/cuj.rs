//! Frames inside CUJs, where Perfetto defines blocking calls per frame
//! (`android.frame_blocking_calls.blocking_calls_aggregation`): its extended frame boundary,
//! from the frame's start to the next frame's start or the next doFrame after it, so a janky
//! frame's `blocking_calls` can be summed over the same interval and agree with Perfetto.
//!
//! The boundaries come from frameprobe's implementation of the stdlib tables
//! (`_extended_frame_boundary`), run over the small database of the frame and CUJ slices
//! ([`crate::analysis::perfetto_stats::frame_db`]), and only when the trace has a `J<…>`
//! slice at all.

use rustc_hash::FxHashMap;

use anyhow::{Context, Result};
use rusqlite::Connection;

use crate::analysis::stdlib;
use crate::store::{Store, Utid};

/// One frame's boundary inside one CUJ.
#[derive(Debug, Clone, PartialEq)]
pub struct CujFrame {
    pub cuj_id: i64,
    pub cuj_name: String,
    pub ts: i64,
    pub ts_end: i64,
    pub ui_thread: Utid,
    pub render_thread: Option<Utid>,
}

/// `(UI thread, vsync id)` -> the frame's boundary in the first CUJ that has it.
pub type CujFrames = FxHashMap<(Utid, i64), CujFrame>;

/// Whether the trace has a `J<…>` slice, the only case where the CUJ tables have rows.
pub fn has_cuj_slices(store: &Store) -> bool {
    store.strings.iter().any(|n| n.starts_with("J<"))
}

/// The boundaries, from a [`crate::analysis::perfetto_stats::frame_db`] of `store`.
pub fn frames_on(store: &Store, conn: &Connection) -> Result<CujFrames> {
    let mut out = CujFrames::default();
    if !has_cuj_slices(store) {
        return Ok(out);
    }
    let module = stdlib::cuj_frame_boundary_module().context("no CUJ frame boundary module")?;
    stdlib::ensure_module(conn, module)?;
    let mut st = conn.prepare(
        "SELECT cuj_id, cuj_name, ts, ts_end, ui_thread_utid, render_thread_utid, frame_id \
         FROM _extended_frame_boundary WHERE ui_thread_utid IS NOT NULL ORDER BY cuj_id",
    )?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let ui_thread = r.get::<_, i64>(4)? as Utid;
        let frame_id: i64 = r.get(6)?;
        out.entry((ui_thread, frame_id)).or_insert(CujFrame {
            cuj_id: r.get(0)?,
            cuj_name: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
            ts: r.get(2)?,
            ts_end: r.get(3)?,
            ui_thread,
            render_thread: r.get::<_, Option<i64>>(5)?.map(|u| u as Utid),
        });
    }
    Ok(out)
}
