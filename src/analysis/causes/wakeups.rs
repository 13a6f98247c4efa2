//! Unnamed waits: a thread asleep with no blocking call named in its slices. The thread
//! that woke it (the `waker_utid` of the state that ended the sleep) is who it waited for.

use rustc_hash::FxHashMap;

use super::context::Ctx;
use super::model::ThreadMs;
use super::timeline::{waker_of, Piece};
use crate::analysis::units::ms;
use crate::store::Utid;

/// How many wakers are listed.
const WAKERS: usize = 3;

pub fn woken_by(ctx: &Ctx<'_>, utid: Utid, pieces: &[&Piece]) -> Vec<ThreadMs> {
    let mut by: FxHashMap<Utid, i64> = FxHashMap::default();
    for p in pieces {
        // The state that follows the sleep carries its waker.
        let waker = p.state_row.and_then(|r| waker_of(ctx, utid, r));
        if let Some(w) = waker {
            *by.entry(w).or_default() += p.end - p.start;
        }
    }
    let mut v: Vec<(Utid, i64)> = by.into_iter().collect();
    v.sort_by_key(|&(u, d)| (std::cmp::Reverse(d), u));
    v.into_iter()
        .take(WAKERS)
        .map(|(u, d)| ThreadMs {
            thread: ctx.thread_ref(u),
            ms: ms(d),
        })
        .collect()
}

/// ", woken by RenderThread (com.example)".
pub fn phrase(w: &[ThreadMs]) -> String {
    match w.first() {
        Some(t) => format!(
            ", woken by {} ({})",
            t.thread.name.as_deref().unwrap_or("?"),
            t.thread.process.as_deref().unwrap_or("?")
        ),
        None => String::new(),
    }
}
