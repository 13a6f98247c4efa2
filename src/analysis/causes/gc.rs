//! GC waits joined to the GC that ran: the slice on another thread of the process that
//! overlaps the wait most among ART's GC slices (`*concurrent*GC`, as
//! `android_garbage_collection_events` selects them, and other `*GC*` collector slices such
//! as `young concurrent copying GC` or `Background concurrent copying GC`).

use super::binder::slice_ref;
use super::context::Ctx;
use super::model::GcDetail;
use crate::analysis::glob::glob;
use crate::store::{SliceId, Utid};

fn is_gc(name: &str) -> bool {
    glob("*concurrent*GC", name)
        || glob("*GC", name)
        || glob("*copying GC*", name)
        || glob("*mark sweep*", name)
}

pub fn detail(ctx: &Ctx<'_>, waiter: Utid, wait: SliceId) -> GcDetail {
    let w = &ctx.store.slices[wait as usize];
    let (start, end) = (w.ts, ctx.end_of(wait));
    let upid = ctx.store.threads[waiter as usize].upid;
    let mut best: Option<(i64, SliceId, Utid)> = None;
    for (u, t) in ctx.store.threads.iter().enumerate() {
        let u = u as Utid;
        if u == waiter || upid.is_none() || t.upid != upid {
            continue;
        }
        for s in ctx.slices_overlapping(u, start, end) {
            if !is_gc(ctx.slice_name(s)) {
                continue;
            }
            let overlap = ctx.end_of(s).min(end) - ctx.store.slices[s as usize].ts.max(start);
            if best.is_none_or(|b| overlap > b.0) {
                best = Some((overlap, s, u));
            }
        }
    }
    GcDetail {
        gc: best.map(|b| slice_ref(ctx, b.1)),
        gc_thread: best.map(|b| ctx.thread_ref(b.2)),
    }
}

/// " for \"young concurrent copying GC\" on HeapTaskDaemon (12.0 ms)".
pub fn phrase(g: &GcDetail) -> String {
    match (&g.gc, &g.gc_thread) {
        (Some(s), Some(t)) => format!(
            " for \"{}\" on {} ({:.1} ms)",
            s.name,
            t.name.as_deref().unwrap_or("?"),
            s.ms
        ),
        _ => " (no GC slice seen in the process)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::is_gc;

    #[test]
    fn gc_slice_names() {
        assert!(is_gc("young concurrent copying GC"));
        assert!(is_gc("concurrent mark compact GC"));
        assert!(is_gc("Background concurrent copying GC"));
        assert!(!is_gc("GC: Wait For Completion Alloc"));
        assert!(!is_gc("WaitForGcToComplete"));
    }
}
