//! Uninterruptible sleep: the kernel's `io_wait` flag and `blocked_function` (from
//! `sched_blocked_reason`) of the thread_state rows, when the trace has them.

use std::collections::HashMap;

use super::context::Ctx;
use super::model::{IoDetail, NamedMs};
use super::timeline::Piece;
use crate::analysis::units::ms;

/// How many blocked functions are listed.
const FUNCTIONS: usize = 3;

pub fn detail(ctx: &Ctx<'_>, pieces: &[&Piece]) -> IoDetail {
    let rows = &ctx.store.thread_states;
    let mut io_wait = 0;
    let mut by_fn: HashMap<&str, i64> = HashMap::new();
    for p in pieces {
        let Some((row, r)) = p.state_row.map(|r| (r, rows.row(r as usize))) else {
            continue;
        };
        let d = p.end - p.start;
        if r.io_wait() == Some(true) {
            io_wait += d;
        }
        if let Some(f) = ctx.store.opt_str(ctx.store.blocked_function(row)) {
            *by_fn.entry(f).or_default() += d;
        }
    }
    let mut f: Vec<(&str, i64)> = by_fn.into_iter().collect();
    f.sort_by_key(|&(n, d)| (std::cmp::Reverse(d), n));
    IoDetail {
        io_wait_ms: ms(io_wait),
        blocked_functions: f
            .into_iter()
            .take(FUNCTIONS)
            .map(|(n, d)| NamedMs {
                name: n.to_string(),
                ms: ms(d),
            })
            .collect(),
    }
}

/// " (io_wait 3.0 ms; in filemap_fault)".
pub fn phrase(i: &IoDetail) -> String {
    let mut bits = Vec::new();
    if i.io_wait_ms > 0.0 {
        bits.push(format!("io_wait {:.1} ms", i.io_wait_ms));
    }
    if let Some(f) = i.blocked_functions.first() {
        bits.push(format!("in {}", f.name));
    }
    if bits.is_empty() {
        String::new()
    } else {
        format!(" ({})", bits.join("; "))
    }
}
