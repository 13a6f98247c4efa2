//! Where a thread's time went during an interval, from the scheduler: Running (a sched
//! slice of the thread), and between its slices the state it left the CPU in (the previous
//! slice's end_state): R = Runnable, S = Sleeping, D = Uninterruptible. Without sched_waking
//! the wait after S counts as Sleeping up to the next run (the Runnable tail after a wakeup
//! is not separated).

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::store::{Store, Utid};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StateSplit {
    pub running_ns: i64,
    pub runnable_ns: i64,
    pub sleeping_ns: i64,
    pub uninterruptible_ns: i64,
    pub unknown_ns: i64,
}

pub struct SchedIndex<'a> {
    store: &'a Store,
    by_utid: HashMap<Utid, Vec<u32>>,
}

#[derive(Clone, Copy)]
enum Waiting {
    Runnable,
    Sleeping,
    Uninterruptible,
    Unknown,
}

impl<'a> SchedIndex<'a> {
    /// Indexes the sched slices of the given threads only.
    pub fn new(store: &'a Store, utids: &HashSet<Utid>) -> Self {
        let mut by_utid: HashMap<Utid, Vec<u32>> = HashMap::new();
        for (i, r) in store.sched.iter().enumerate() {
            if utids.contains(&r.utid) {
                by_utid.entry(r.utid).or_default().push(i as u32);
            }
        }
        for v in by_utid.values_mut() {
            v.sort_by_key(|&i| store.sched[i as usize].ts);
        }
        SchedIndex { store, by_utid }
    }

    fn waiting_after(&self, row: u32) -> Waiting {
        match self.store.opt_str(self.store.sched[row as usize].end_state) {
            Some(s) if s.starts_with('R') => Waiting::Runnable,
            Some(s) if s.starts_with('S') => Waiting::Sleeping,
            Some(s) if s.starts_with('D') => Waiting::Uninterruptible,
            _ => Waiting::Unknown,
        }
    }

    /// The split of [start, end) for `utid`; None when the trace has no sched data for it.
    pub fn split(&self, utid: Utid, start: i64, end: i64) -> Option<StateSplit> {
        let rows = self.by_utid.get(&utid)?;
        let mut out = StateSplit::default();
        let add = |w: Waiting, a: i64, b: i64, out: &mut StateSplit| {
            let d = b.min(end) - a.max(start);
            if d <= 0 {
                return;
            }
            match w {
                Waiting::Runnable => out.runnable_ns += d,
                Waiting::Sleeping => out.sleeping_ns += d,
                Waiting::Uninterruptible => out.uninterruptible_ns += d,
                Waiting::Unknown => out.unknown_ns += d,
            }
        };
        // First slice that ends after `start`.
        let s = &self.store.sched;
        let first = rows.partition_point(|&i| {
            let r = &s[i as usize];
            r.dur >= 0 && r.ts + r.dur <= start
        });
        let mut cursor = start;
        let mut waiting = if first > 0 {
            self.waiting_after(rows[first - 1])
        } else {
            Waiting::Unknown
        };
        for &i in &rows[first..] {
            let r = &s[i as usize];
            if r.ts >= end {
                break;
            }
            add(waiting, cursor, r.ts, &mut out);
            let run_end = if r.dur < 0 { end } else { r.ts + r.dur };
            out.running_ns += run_end.min(end) - r.ts.max(start);
            cursor = run_end;
            waiting = self.waiting_after(i);
        }
        add(waiting, cursor, end, &mut out);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SchedRow;

    fn store_with(rows: &[(i64, i64, &str)]) -> Store {
        let mut s = Store::default();
        for &(ts, dur, st) in rows {
            let end_state = (!st.is_empty()).then(|| s.intern(st));
            s.sched.push(SchedRow {
                ts,
                dur,
                cpu: 0,
                utid: 7,
                end_state,
                priority: 120,
            });
        }
        s
    }

    #[test]
    fn running_runnable_sleeping_and_blocked() {
        // run 0-10 (preempted: R), run 15-20 (blocks: D), run 30-40 (sleeps: S), run 60-.
        let s = store_with(&[(0, 10, "R"), (15, 5, "D"), (30, 10, "S"), (60, -1, "")]);
        let idx = SchedIndex::new(&s, &HashSet::from([7]));
        let split = idx.split(7, 5, 70).unwrap();
        assert_eq!(
            split,
            StateSplit {
                running_ns: 5 + 5 + 10 + 10,
                runnable_ns: 5,
                sleeping_ns: 20,
                uninterruptible_ns: 10,
                unknown_ns: 0
            }
        );
        let total =
            split.running_ns + split.runnable_ns + split.sleeping_ns + split.uninterruptible_ns;
        assert_eq!(total, 65);
    }

    #[test]
    fn interval_before_any_slice_is_unknown_and_missing_thread_is_none() {
        let s = store_with(&[(100, 10, "S")]);
        let idx = SchedIndex::new(&s, &HashSet::from([7]));
        let split = idx.split(7, 50, 120).unwrap();
        assert_eq!(
            (split.unknown_ns, split.running_ns, split.sleeping_ns),
            (50, 10, 10)
        );
        assert!(idx.split(8, 0, 10).is_none());
    }
}
