//! Lock contention: the owner of the lock and what it was doing. ART names a contended
//! monitor `monitor contention with owner OWNER (TID) at METHOD(SRC) waiters=N blocking from
//! METHOD(SRC)` (parsed as Perfetto's `android_monitor_contention` does, see
//! [`crate::analysis::monitor_contention_name`]); its other locks `Lock contention on NAME
//! (owner tid: TID)`.

use super::binder::slice_ref;
use super::context::Ctx;
use super::model::{LockDetail, SliceRef};
use crate::analysis::monitor_contention_name as mc;
use crate::analysis::units::ms;
use crate::store::{SliceId, Utid};

/// How many of the owner's slices are listed.
const OWNER_SLICES: usize = 3;

/// The owner tid of `Lock contention on … (owner tid: N)`.
fn art_owner_tid(name: &str) -> Option<i64> {
    let rest = name.split("owner tid: ").nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

pub fn detail(ctx: &Ctx<'_>, waiter: Utid, id: SliceId) -> LockDetail {
    let name = ctx.slice_name(id);
    let (owner_tid, blocking, blocked) = if name.starts_with("monitor contention with") {
        (
            mc::blocking_tid(name),
            mc::blocking_method(name),
            mc::blocked_method(name),
        )
    } else {
        (art_owner_tid(name), None, None)
    };
    let upid = ctx.store.threads[waiter as usize].upid;
    let owner = owner_tid.and_then(|t| ctx.thread_by_tid(upid, t));
    let s = &ctx.store.slices[id as usize];
    let (start, end) = (s.ts, s.ts + s.dur.max(0));
    let owner_slices = owner.map_or_else(Vec::new, |u| owner_activity(ctx, u, start, end));
    LockDetail {
        owner: owner.map(|u| ctx.thread_ref(u)),
        owner_tid,
        blocking_method: blocking,
        blocked_method: blocked,
        owner_slices,
        owner_states: owner.and_then(|u| ctx.states.split(u, start, end).map(Into::into)),
    }
}

/// The owner's slices during [start, end), by overlap then depth (deepest first).
fn owner_activity(ctx: &Ctx<'_>, owner: Utid, start: i64, end: i64) -> Vec<SliceRef> {
    let mut v: Vec<(i64, u32, SliceId)> = ctx
        .slices_overlapping(owner, start, end)
        .into_iter()
        .map(|s| {
            let r = &ctx.store.slices[s as usize];
            let overlap = ctx.end_of(s).min(end) - r.ts.max(start);
            (overlap, r.depth(), s)
        })
        .collect();
    v.sort_by_key(|&(o, d, _)| (std::cmp::Reverse(o), std::cmp::Reverse(d)));
    v.into_iter()
        .take(OWNER_SLICES)
        .map(|(o, _, s)| SliceRef {
            ms: ms(o),
            ..slice_ref(ctx, s)
        })
        .collect()
}

/// " held by Thread-3 (1234) in void a.B.c(), owner in \"binder transaction\"".
pub fn phrase(l: &LockDetail) -> String {
    let mut s = match (&l.owner, l.owner_tid) {
        (Some(o), _) => format!(", held by {} ({})", o.name.as_deref().unwrap_or("?"), o.tid),
        (None, Some(t)) => format!(", held by tid {t}"),
        (None, None) => String::new(),
    };
    if let Some(m) = &l.blocking_method {
        s.push_str(&format!(" at {m}"));
    }
    if let Some(top) = l.owner_slices.first() {
        s.push_str(&format!(", owner in \"{}\"", top.name));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_tid_of_art_lock_names() {
        assert_eq!(
            art_owner_tid("Lock contention on thread list lock (owner tid: 1665)"),
            Some(1665)
        );
        assert_eq!(
            art_owner_tid("Lock contention on a monitor lock (owner tid: 12)"),
            Some(12)
        );
        assert_eq!(art_owner_tid("Lock contention on thread list lock"), None);
    }
}
