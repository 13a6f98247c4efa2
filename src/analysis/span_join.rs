//! The pairing rule of Perfetto's `SPAN_JOIN` operator, for the stdlib modules that use it
//! (SQLite has no such operator, so those modules join on this predicate instead).
//!
//! Spans are `[ts, ts + dur)`; a span with `dur = -1` (not ended) counts as ending where it
//! starts when deciding whether two spans meet, and two spans starting at the same
//! timestamp always meet (so zero-length spans join). The joined span is
//! `[max(ts), min(ts + dur))` computed from the raw ends, as trace_processor does.
//!
//! SPAN_JOIN walks both tables once in (partition, ts) order, each time moving on the side
//! whose current span ends first (the right side on a tie, ends taken as `ts` for
//! `dur = -1`). The right table (thread states, counter spans) never overlaps itself; when
//! the left one does (two contentions on one thread, two GCs in one process), the walk
//! skips pairs: left span `i` meets right span `j` only if `end(j)` is after every end of
//! the left spans before `i`, and `end(j - 1)` is not after every end of the left spans up
//! to `i`. Modules with such a left table add these two conditions to the join (columns
//! `ends_before`, `ends_by` on the left, `prev_end` on the right).

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

fn adjusted_end(ts: i64, dur: i64) -> i64 {
    if dur == -1 {
        ts
    } else {
        ts.saturating_add(dur)
    }
}

/// Whether SPAN_JOIN pairs span `a` with span `b` of the same partition.
pub fn overlaps(a_ts: i64, a_dur: i64, b_ts: i64, b_dur: i64) -> bool {
    a_ts == b_ts
        || (a_ts >= b_ts && a_ts < adjusted_end(b_ts, b_dur))
        || (b_ts >= a_ts && b_ts < adjusted_end(a_ts, a_dur))
}

/// `__span_join_overlaps(a_ts, a_dur, b_ts, b_dur)`: 1 when SPAN_JOIN pairs the spans, 0
/// when not, NULL when an argument is NULL.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("__span_join_overlaps", 4, flags, |ctx| {
        let v: [Option<i64>; 4] = [ctx.get(0)?, ctx.get(1)?, ctx.get(2)?, ctx.get(3)?];
        Ok(match v {
            [Some(a), Some(ad), Some(b), Some(bd)] => Some(overlaps(a, ad, b, bd) as i64),
            _ => None,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::overlaps;

    #[test]
    fn half_open_spans_meet_only_when_they_share_time() {
        assert!(overlaps(10, 10, 15, 10));
        assert!(overlaps(15, 10, 10, 10));
        assert!(!overlaps(10, 10, 20, 5), "[10,20) and [20,25) only touch");
        assert!(!overlaps(20, 5, 10, 10));
        assert!(overlaps(10, 100, 30, 5), "containment");
    }

    #[test]
    fn zero_length_and_unended_spans() {
        assert!(overlaps(10, 0, 10, 5), "same start always meets");
        assert!(overlaps(12, 0, 10, 5), "a zero-length span inside another");
        assert!(!overlaps(15, 0, 10, 5), "at the other's end it does not");
        // dur = -1 ends where it starts: it meets spans that contain its start...
        assert!(overlaps(12, -1, 10, 5));
        assert!(overlaps(10, -1, 10, 5));
        // ...but nothing after its start.
        assert!(!overlaps(10, -1, 11, 5));
    }
}
