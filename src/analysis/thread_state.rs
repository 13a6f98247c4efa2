//! Where a thread's time went during an interval, from the `thread_state` rows (as
//! trace_processor derives them): Running; Runnable ("R", "R+": preempted, or woken and
//! waiting for a CPU); Sleeping ("S"); Uninterruptible ("D", "DK"). Everything else (other
//! kernel states, a NULL state, time the trace does not cover) is Unknown.

use std::collections::HashSet;

use serde::Serialize;

use super::grouped::Grouped;
use crate::store::{Store, Utid};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StateSplit {
    pub running_ns: i64,
    pub runnable_ns: i64,
    pub sleeping_ns: i64,
    pub uninterruptible_ns: i64,
    pub unknown_ns: i64,
}

/// A scheduling state class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Running,
    Runnable,
    Sleeping,
    Uninterruptible,
    Unknown,
}

pub fn kind(state: Option<&str>) -> Kind {
    match state {
        Some("Running") => Kind::Running,
        Some(s) if s.starts_with('R') => Kind::Runnable,
        Some(s) if s.starts_with('S') => Kind::Sleeping,
        Some(s) if s.starts_with('D') => Kind::Uninterruptible,
        _ => Kind::Unknown,
    }
}

impl StateSplit {
    fn add(&mut self, k: Kind, ns: i64) {
        match k {
            Kind::Running => self.running_ns += ns,
            Kind::Runnable => self.runnable_ns += ns,
            Kind::Sleeping => self.sleeping_ns += ns,
            Kind::Uninterruptible => self.uninterruptible_ns += ns,
            Kind::Unknown => self.unknown_ns += ns,
        }
    }
}

/// One thread state row clipped to an interval.
#[derive(Debug, Clone, Copy)]
pub struct StateSpan {
    pub start: i64,
    pub end: i64,
    pub kind: Kind,
    /// Row in `store.thread_states`.
    pub row: u32,
}

pub struct ThreadStateIndex<'a> {
    store: &'a Store,
    /// Each thread's rows (grouped by utid), in timestamp order (the tracker appends them
    /// in event order).
    by_utid: Grouped,
}

impl<'a> ThreadStateIndex<'a> {
    /// Indexes the states of the given threads only.
    pub fn new(store: &'a Store, utids: &HashSet<Utid>) -> Self {
        Self::of(store, |u| utids.contains(&u))
    }

    /// Indexes the states of every thread.
    pub fn all(store: &'a Store) -> Self {
        Self::of(store, |_| true)
    }

    fn of(store: &'a Store, wanted: impl Fn(Utid) -> bool) -> Self {
        // Walked twice: read the utid alone rather than unpack each row.
        let rows = &store.thread_states;
        let by_utid = Grouped::new(|| {
            (0..rows.len())
                .map(|i| (rows.utid(i), i as u32))
                .filter(|&(u, _)| wanted(u))
                .map(|(u, i)| (u as usize, i))
        });
        ThreadStateIndex { store, by_utid }
    }

    /// Whether the trace has any state for `utid`.
    pub fn has(&self, utid: Utid) -> bool {
        !self.by_utid.get(utid as usize).is_empty()
    }

    /// The rows of `utid` overlapping [start, end), clipped to it, in time order; gaps
    /// between them are time the trace does not cover.
    pub fn spans(&self, utid: Utid, start: i64, end: i64) -> impl Iterator<Item = StateSpan> + '_ {
        let rows = self.by_utid.get(utid as usize);
        let s = &self.store.thread_states;
        // The row in effect at `start`: the last one that began at or before it.
        let first = rows
            .partition_point(|i| s.ts(i as usize) <= start)
            .saturating_sub(1);
        rows.iter_from(first)
            .enumerate()
            .map(move |(k, i)| (first + k, i))
            .take_while(move |&(_, i)| s.ts(i as usize) < end)
            .filter_map(move |(k, i)| {
                let r = s.row(i as usize);
                // An unfinished state (trace end, or lost events) lasts until the next one.
                let row_end = if r.dur >= 0 {
                    r.ts + r.dur
                } else {
                    rows.get(k + 1).map_or(end, |n| s.ts(n as usize))
                };
                let (a, b) = (r.ts.max(start), row_end.min(end));
                (b > a).then(|| StateSpan {
                    start: a,
                    end: b,
                    kind: kind(self.store.opt_str(r.state())),
                    row: i,
                })
            })
    }

    /// The split of [start, end) for `utid`; None when the trace has no states for it.
    pub fn split(&self, utid: Utid, start: i64, end: i64) -> Option<StateSplit> {
        if !self.has(utid) {
            return None;
        }
        let mut out = StateSplit::default();
        let mut covered = 0;
        for sp in self.spans(utid, start, end) {
            out.add(sp.kind, sp.end - sp.start);
            covered += sp.end - sp.start;
        }
        out.unknown_ns += (end - start - covered).max(0);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ThreadStateRow;

    fn store_with(rows: &[(i64, i64, &str)]) -> Store {
        let mut s = Store::default();
        for &(ts, dur, st) in rows {
            let state = (!st.is_empty()).then(|| s.intern(st));
            let mut r = ThreadStateRow::new(ts, 7, state, None, None, None);
            r.dur = dur;
            s.thread_states.push(r);
        }
        s
    }

    #[test]
    fn running_runnable_sleeping_and_blocked() {
        // run 0-10, preempted (R+) 10-15, run 15-20, D 20-30, run 30-40, S 40-52,
        // woken (R) 52-60, run 60- (unfinished).
        let s = store_with(&[
            (0, 10, "Running"),
            (10, 5, "R+"),
            (15, 5, "Running"),
            (20, 10, "D"),
            (30, 10, "Running"),
            (40, 12, "S"),
            (52, 8, "R"),
            (60, -1, "Running"),
        ]);
        let idx = ThreadStateIndex::new(&s, &HashSet::from([7]));
        let split = idx.split(7, 5, 70).unwrap();
        assert_eq!(
            split,
            StateSplit {
                running_ns: 5 + 5 + 10 + 10,
                runnable_ns: 5 + 8,
                sleeping_ns: 12,
                uninterruptible_ns: 10,
                unknown_ns: 0
            }
        );
    }

    #[test]
    fn uncovered_time_and_other_states_are_unknown() {
        // Nothing before 100; "I" and a NULL state are neither sleep nor run; the D state at
        // 130 was left unfinished by lost events and lasts until the next state.
        let s = store_with(&[
            (100, 10, "Running"),
            (110, 10, "I"),
            (120, 5, ""),
            (125, 5, "DK"),
            (130, -1, "D"),
            (150, 10, "Running"),
        ]);
        let idx = ThreadStateIndex::new(&s, &HashSet::from([7]));
        let split = idx.split(7, 50, 155).unwrap();
        assert_eq!(
            split,
            StateSplit {
                running_ns: 10 + 5,
                runnable_ns: 0,
                sleeping_ns: 0,
                uninterruptible_ns: 5 + 20,
                unknown_ns: 50 + 10 + 5
            }
        );
        assert!(idx.split(8, 0, 10).is_none());
    }
}
