//! Blocking calls as trace_processor's `android.frame_blocking_calls` sums them: every call of
//! Perfetto's list ([`super::categories::is_perfetto_blocking_call`]) on the UI thread and
//! RenderThread that starts or ends inside the interval, clipped to it, under its
//! standardised name; `drawLayer *` once more as `drawLayer`, and each synchronous binder
//! call once more under the server's AIDL method. Calls nest and overlap, so these totals
//! are not a partition of the window (the cause chain is); they are the numbers Perfetto's
//! module gives, for comparison.

use std::collections::BTreeMap;

use serde::Serialize;

use super::context::Ctx;
use crate::analysis::glob::glob;
use crate::analysis::units::ms;
use crate::store::{SliceId, Utid};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockingCall {
    pub name: String,
    pub dur_ns: i64,
    pub ms: f64,
    pub count: usize,
}

/// The server-side AIDL/HIDL slice directly under a binder reply, as `android_binder_txns`
/// names the call (`aidl_name`): the least such name.
pub fn aidl_name(ctx: &Ctx<'_>, reply: SliceId) -> Option<String> {
    let r = &ctx.store.slices[reply as usize];
    let utid = ctx.utid_of_slice(reply)?;
    ctx.slices_overlapping(utid, r.ts, ctx.end_of(reply).max(r.ts + 1))
        .into_iter()
        .filter(|&s| ctx.store.slice_parent(s) == Some(reply))
        .map(|s| ctx.slice_name(s))
        .filter(|n| {
            glob("AIDL::*Server", n) || glob("AIDL::*server", n) || glob("HIDL::*server", n)
        })
        .min()
        .map(str::to_string)
}

/// Per standardised name, the calls of `threads` touching [start, end].
pub fn totals(ctx: &Ctx<'_>, threads: &[Utid], start: i64, end: i64) -> Vec<BlockingCall> {
    let mut by: BTreeMap<String, (i64, usize)> = BTreeMap::new();
    let mut add = |name: String, d: i64| {
        let e = by.entry(name).or_default();
        e.0 += d;
        e.1 += 1;
    };
    let mut seen: Vec<Utid> = Vec::new();
    for &utid in threads {
        if seen.contains(&utid) {
            continue;
        }
        seen.push(utid);
        for s in ctx.slices_overlapping(utid, start - 1, end.saturating_add(1)) {
            let r = &ctx.store.slices[s as usize];
            let (ts, ts_end) = (r.ts, r.ts + r.dur);
            let touches = (ts >= start && ts <= end) || (ts_end >= start && ts_end <= end);
            if !touches {
                continue;
            }
            let d = r.dur.min(end - ts).min(ts_end - start);
            if let Some(n) = ctx.perfetto_blocking_name(s) {
                add(n.to_string(), d);
            }
            let name = ctx.slice_name(s);
            if name.starts_with("drawLayer ") {
                add("drawLayer".to_string(), d);
            }
            if name == "binder transaction" {
                if let Some(aidl) = ctx.flow_from(s).and_then(|reply| aidl_name(ctx, reply)) {
                    add(aidl, d);
                }
            }
        }
    }
    let mut v: Vec<BlockingCall> = by
        .into_iter()
        .map(|(name, (d, n))| BlockingCall {
            name,
            dur_ns: d,
            ms: ms(d),
            count: n,
        })
        .collect();
    v.sort_by_key(|b| std::cmp::Reverse(b.dur_ns));
    v
}
