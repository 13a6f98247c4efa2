//! Binder calls: the server side of a synchronous `binder transaction`, joined by the binder
//! flow to the server's `binder reply` (as `android_binder_txns` joins them), with the
//! method the server ran (the `AIDL::…::server` / `HIDL::…::server` slice under the reply,
//! Perfetto's `aidl_name`), its longest slices and its thread's states during the reply.

use super::context::Ctx;
use super::model::{BinderDetail, SliceRef};
use crate::analysis::units::ms;
use crate::store::SliceId;

/// How many of the server's slices are listed.
const SERVER_SLICES: usize = 3;

pub fn slice_ref(ctx: &Ctx<'_>, id: SliceId) -> SliceRef {
    let s = &ctx.store.slices[id as usize];
    SliceRef {
        slice_id: id,
        name: ctx.slice_name(id).to_string(),
        ts: s.ts,
        ms: ms(s.dur.max(0)),
    }
}

/// The server side of the call `txn`.
pub fn detail(ctx: &Ctx<'_>, txn: SliceId) -> BinderDetail {
    let reply = ctx
        .flow_from(txn)
        .filter(|&r| ctx.slice_name(r) == "binder reply");
    let Some(reply) = reply else {
        return BinderDetail {
            reply_slice_id: None,
            server: None,
            method: None,
            server_slices: Vec::new(),
            server_states: None,
        };
    };
    let r = &ctx.store.slices[reply as usize];
    let utid = ctx.utid_of_slice(reply);
    let end = ctx.end_of(reply);
    let mut under: Vec<SliceId> = utid.map_or_else(Vec::new, |u| {
        ctx.slices_overlapping(u, r.ts, end)
            .into_iter()
            .filter(|&s| {
                let x = &ctx.store.slices[s as usize];
                x.depth() > r.depth() && x.ts >= r.ts
            })
            .collect()
    });
    let method = super::blocking_calls::aidl_name(ctx, reply);
    under.sort_by_key(|&s| std::cmp::Reverse(ctx.store.slices[s as usize].dur));
    BinderDetail {
        reply_slice_id: Some(reply),
        server: utid.map(|u| ctx.thread_ref(u)),
        method,
        server_slices: under
            .into_iter()
            .take(SERVER_SLICES)
            .map(|s| slice_ref(ctx, s))
            .collect(),
        server_states: utid.and_then(|u| {
            ctx.states
                .split(u, r.ts, end.min(r.ts + r.dur.max(0)))
                .map(Into::into)
        }),
    }
}

/// " to system_server (AIDL::java::IPackageManager::getPackageInfo::server), server thread
/// Runnable 6.1 ms".
pub fn phrase(b: &BinderDetail) -> String {
    let Some(server) = &b.server else {
        return " (no reply seen: server unknown)".to_string();
    };
    let mut s = format!(
        " to {}",
        server
            .process
            .as_deref()
            .or(server.name.as_deref())
            .unwrap_or("?")
    );
    match (&b.method, b.server_slices.first()) {
        (Some(m), _) => s.push_str(&format!(" ({m})")),
        (None, Some(top)) => s.push_str(&format!(" (server in \"{}\")", top.name)),
        _ => {}
    }
    if let Some(st) = &b.server_states {
        let waits = [
            ("Runnable", st.runnable_ms),
            ("in uninterruptible sleep", st.uninterruptible_ms),
            ("sleeping", st.sleeping_ms),
            ("running", st.running_ms),
        ];
        if let Some((what, v)) = waits.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
            if *v > 0.0 {
                s.push_str(&format!(", server thread {what} {v:.1} ms"));
            }
        }
    }
    s
}
