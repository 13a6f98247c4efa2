//! What `diff` keeps of one frame: its metrics, its verdicts, and the time of every slice
//! that ran for it, per thread role and normalised name.
//!
//! Which slices ran for a frame:
//! - UI thread: the frame's doFrame and every slice nested in it;
//! - RenderThread: its DrawFrame and every slice nested in it;
//! - binder servers: for each `binder transaction` among those, the `binder reply` the
//!   binder flow leads to and every slice nested in it, on whatever thread served it;
//! - GC: the app's `HeapTaskDaemon` thread's slices overlapping the frame;
//! - other: the app's other threads' slices overlapping the frame.
//!
//! Each slice counts its wall time and its self time (wall minus its children's), both
//! clipped to the frame for the last two roles.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::normalize::normalise_slice_name;
use crate::analysis::causes::context::Ctx;
use crate::analysis::definitions::Definition;
use crate::analysis::frame_model::Frame;
use crate::analysis::report_model::FrameReport;
use crate::store::{SliceId, Upid, Utid};

/// Which thread a slice ran on, for a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    UiThread,
    RenderThread,
    BinderServer,
    Gc,
    Other,
}

impl Role {
    pub fn label(self) -> &'static str {
        match self {
            Role::UiThread => "UI thread",
            Role::RenderThread => "RenderThread",
            Role::BinderServer => "binder server",
            Role::Gc => "GC",
            Role::Other => "other",
        }
    }
}

/// A slice name's time in one frame.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SliceTime {
    pub self_ns: i64,
    pub wall_ns: i64,
    /// Start of the instance with the most self time (where a reviewer should look), and
    /// that self time.
    pub top_ts: i64,
    pub top_self_ns: i64,
}

/// The thread role and normalised name slices are summed under.
pub type SliceKey = (Role, String);

#[derive(Debug, Clone, Default)]
pub struct FrameSample {
    pub ts: i64,
    pub dur_ns: i64,
    pub cpu_ns: Option<i64>,
    pub overrun_ns: Option<i64>,
    /// The vsync period the frame ran at.
    pub period_ns: i64,
    /// frameprobe's janky verdict (analyze's `janky`).
    pub janky: bool,
    /// The definitions that flag this frame.
    pub flagged: BTreeSet<Definition>,
    pub slices: BTreeMap<SliceKey, SliceTime>,
}

impl FrameSample {
    /// A frame of the model with analyze's report of it.
    pub fn new(ctx: &Ctx<'_>, threads: &AppThreads, f: &Frame, r: &FrameReport) -> Self {
        FrameSample {
            ts: f.ts,
            dur_ns: f.dur,
            cpu_ns: f.cpu_ns(),
            overrun_ns: f.overrun_ns(),
            period_ns: (r.vsync_period_ms * 1e6).round() as i64,
            janky: r.janky,
            flagged: Definition::ALL
                .into_iter()
                .filter(|&d| r.definitions.get(d).flagged())
                .collect(),
            slices: slice_times(ctx, threads, f),
        }
    }

    /// Self time of `key` in this frame (0 when it did not run).
    pub fn self_ns(&self, key: &SliceKey) -> i64 {
        self.slices.get(key).map_or(0, |t| t.self_ns)
    }
}

/// The app's threads other than the UI thread and RenderThreads, by role.
#[derive(Debug, Default)]
pub struct AppThreads {
    pub gc: Vec<Utid>,
    pub other: Vec<Utid>,
}

impl AppThreads {
    pub fn of(ctx: &Ctx<'_>, upid: Upid) -> Self {
        let store = ctx.store;
        let pt = ctx.idx.threads.get(&upid);
        let mut out = AppThreads::default();
        for (u, t) in store.threads.iter().enumerate() {
            let u = u as Utid;
            if t.upid != Some(upid)
                || pt.is_some_and(|p| p.main == Some(u) || p.render_threads.contains(&u))
            {
                continue;
            }
            if store.opt_str(t.name) == Some("HeapTaskDaemon") {
                out.gc.push(u);
            } else {
                out.other.push(u);
            }
        }
        out
    }
}

/// Slices and the window they are clipped to, per role.
fn slice_times(ctx: &Ctx<'_>, threads: &AppThreads, f: &Frame) -> BTreeMap<SliceKey, SliceTime> {
    let mut sets: Vec<(Role, Vec<SliceId>)> = Vec::new();
    let nested = |id: SliceId| {
        let mut v = vec![id];
        v.extend(ctx.idx.descendants(id));
        v
    };
    let ui = f.ui.map(|s| nested(s.id)).unwrap_or_default();
    let rt = f.rt.map(|s| nested(s.id)).unwrap_or_default();
    let mut served = Vec::new();
    for &id in ui.iter().chain(&rt) {
        if ctx.slice_name(id) == "binder transaction" {
            if let Some(reply) = ctx.flow_from(id) {
                served.extend(nested(reply));
            }
        }
    }
    sets.push((Role::UiThread, ui));
    sets.push((Role::RenderThread, rt));
    sets.push((Role::BinderServer, served));
    let start = f.ui.map_or(f.ts, |u| u.ts.min(f.ts));
    let end = [f.ui.map(|u| u.end()), f.rt.map(|r| r.end())]
        .into_iter()
        .flatten()
        .fold(f.ts + f.dur.max(0), i64::max);
    for (role, utids) in [(Role::Gc, &threads.gc), (Role::Other, &threads.other)] {
        let ids = utids
            .iter()
            .flat_map(|&u| ctx.slices_overlapping(u, start, end))
            .collect();
        sets.push((role, ids));
    }
    let mut out: BTreeMap<SliceKey, SliceTime> = BTreeMap::new();
    for (role, ids) in sets {
        for (id, wall, own) in self_times(ctx, &ids, (start, end)) {
            let name = normalise_slice_name(ctx.slice_name(id));
            let t = out.entry((role, name)).or_default();
            t.wall_ns += wall;
            t.self_ns += own;
            if own > t.top_self_ns || t.top_ts == 0 {
                t.top_self_ns = own;
                t.top_ts = ctx.store.slices[id as usize].ts;
            }
        }
    }
    out
}

/// (slice, wall, self) for each slice of `ids` once: wall clipped to the frame `(lo, hi)`
/// (an unfinished slice ends at `hi`; nested slices lie inside their parent, so the clip
/// treats both alike), self = wall minus the walls of its children among `ids`.
fn self_times(ctx: &Ctx<'_>, ids: &[SliceId], (lo, hi): (i64, i64)) -> Vec<(SliceId, i64, i64)> {
    let slices = &ctx.store.slices;
    let ids: Vec<SliceId> = ids
        .iter()
        .copied()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let wall = |id: SliceId| {
        let s = &slices[id as usize];
        let end = if s.dur < 0 { hi } else { s.ts + s.dur };
        (end.min(hi) - s.ts.max(lo)).max(0)
    };
    let mut own: HashMap<SliceId, i64> = ids.iter().map(|&id| (id, wall(id))).collect();
    for &id in &ids {
        if let Some(p) = ctx.store.slice_parent(id) {
            let w = wall(id);
            if let Some(x) = own.get_mut(&p) {
                *x -= w;
            }
        }
    }
    ids.iter()
        .map(|&id| (id, wall(id), own[&id].max(0)))
        .collect()
}
