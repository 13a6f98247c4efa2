//! Lookups the cause families share, built once per analysis: each thread's slices in time
//! order, thread and process names, binder flows, per-CPU scheduling and counters. Built
//! lazily where only some frames need them.

use std::cell::OnceCell;
use std::collections::HashMap;

use super::super::index::Index;
use super::super::thread_state::ThreadStateIndex;
use super::categories::{categorize, Category};
use super::model::ThreadRef;
use crate::store::{SliceId, Store, TrackScope, Upid, Utid};

/// One thread's slices in (ts, depth) order and the positions of its depth-0 slices.
#[derive(Default)]
pub struct ThreadSlices {
    pub all: Vec<SliceId>,
    roots: Vec<u32>,
}

pub struct Ctx<'a> {
    pub store: &'a Store,
    pub idx: &'a Index<'a>,
    pub states: &'a ThreadStateIndex<'a>,
    utid_of_track: Vec<Option<Utid>>,
    slices: OnceCell<Vec<ThreadSlices>>,
    /// The category of each interned string, computed on first use.
    category: std::cell::RefCell<HashMap<u32, Option<(Category, &'static str)>>>,
    flows_out: OnceCell<HashMap<SliceId, SliceId>>,
    sched_by_cpu: OnceCell<Vec<Vec<u32>>>,
    pub(super) cpu_counters: OnceCell<super::cpu::CpuCounters>,
}

impl<'a> Ctx<'a> {
    pub fn new(idx: &'a Index<'a>, states: &'a ThreadStateIndex<'a>) -> Self {
        let store = idx.store;
        let utid_of_track = store
            .tracks
            .iter()
            .map(|t| match t.scope {
                TrackScope::Thread(u) if t.event_type == crate::store::EventType::Slice => Some(u),
                _ => None,
            })
            .collect();
        Ctx {
            store,
            idx,
            states,
            utid_of_track,
            slices: OnceCell::new(),
            category: Default::default(),
            flows_out: OnceCell::new(),
            sched_by_cpu: OnceCell::new(),
            cpu_counters: OnceCell::new(),
        }
    }

    pub fn utid_of_slice(&self, id: SliceId) -> Option<Utid> {
        let t = self.store.slices[id as usize].track_id as usize;
        self.utid_of_track.get(t).copied().flatten()
    }

    fn thread_slices(&self) -> &[ThreadSlices] {
        self.slices.get_or_init(|| {
            let mut out: Vec<ThreadSlices> = Vec::new();
            out.resize_with(self.store.threads.len(), Default::default);
            for (i, s) in self.store.slices.iter().enumerate() {
                let Some(u) = self
                    .utid_of_track
                    .get(s.track_id as usize)
                    .copied()
                    .flatten()
                else {
                    continue;
                };
                let t = &mut out[u as usize];
                if s.depth == 0 {
                    t.roots.push(t.all.len() as u32);
                }
                t.all.push(i as SliceId);
            }
            let slices = &self.store.slices;
            for t in &mut out {
                // Slices are stored in import order, which is time order per track except
                // for slices completed out of order (unmatched ends, several tracks).
                let sorted = t.all.windows(2).all(|w| {
                    let (a, b) = (&slices[w[0] as usize], &slices[w[1] as usize]);
                    (a.ts, a.depth) <= (b.ts, b.depth)
                });
                if !sorted {
                    t.all
                        .sort_by_key(|&i| (slices[i as usize].ts, slices[i as usize].depth));
                    t.roots = (0..t.all.len() as u32)
                        .filter(|&k| slices[t.all[k as usize] as usize].depth == 0)
                        .collect();
                }
            }
            out
        })
    }

    /// End of a slice; an unfinished one lasts forever.
    pub fn end_of(&self, id: SliceId) -> i64 {
        let s = &self.store.slices[id as usize];
        if s.dur < 0 {
            i64::MAX
        } else {
            s.ts + s.dur
        }
    }

    /// The thread's slices overlapping [start, end), in (ts, depth) order.
    pub fn slices_overlapping(&self, utid: Utid, start: i64, end: i64) -> Vec<SliceId> {
        let Some(t) = self.thread_slices().get(utid as usize) else {
            return Vec::new();
        };
        let slices = &self.store.slices;
        // Every overlapping slice sits under a depth-0 slice that overlaps; the first such
        // is the last root starting at or before `start` (if it reaches past it) or the next.
        let k = t
            .roots
            .partition_point(|&p| slices[t.all[p as usize] as usize].ts <= start);
        let mut from = t.roots.get(k).map_or(t.all.len(), |&p| p as usize);
        if k > 0 {
            let p = t.roots[k - 1] as usize;
            if self.end_of(t.all[p]) > start {
                from = p;
            }
        }
        t.all[from..]
            .iter()
            .take_while(|&&i| slices[i as usize].ts < end)
            .filter(|&&i| self.end_of(i) > start)
            .copied()
            .collect()
    }

    pub fn slice_name(&self, id: SliceId) -> &'a str {
        self.store
            .opt_str(self.store.slices[id as usize].name)
            .unwrap_or("")
    }

    /// The category of a slice by its name, and the rule.
    pub fn category_of(&self, id: SliceId) -> Option<(Category, &'static str)> {
        let name = self.store.slices[id as usize].name?;
        *self
            .category
            .borrow_mut()
            .entry(name.0)
            .or_insert_with(|| categorize(self.store.str(name)))
    }

    pub fn thread_ref(&self, utid: Utid) -> ThreadRef {
        let t = &self.store.threads[utid as usize];
        let p = t.upid.map(|u| &self.store.processes[u as usize]);
        ThreadRef {
            name: self.store.opt_str(t.name).map(str::to_string),
            tid: t.tid,
            process: p.and_then(|p| self.store.opt_str(p.name).map(str::to_string)),
            pid: p.map(|p| p.pid),
        }
    }

    /// The thread `tid` of process `upid`, else any thread with that tid.
    pub fn thread_by_tid(&self, upid: Option<Upid>, tid: i64) -> Option<Utid> {
        let threads = &self.store.threads;
        let mut any = None;
        for (u, t) in threads.iter().enumerate().rev() {
            if t.tid == tid {
                if upid.is_some() && t.upid == upid {
                    return Some(u as Utid);
                }
                any.get_or_insert(u as Utid);
            }
        }
        any
    }

    /// The slice a flow leaves `id` for (binder transaction -> binder reply).
    pub fn flow_from(&self, id: SliceId) -> Option<SliceId> {
        self.flows_out
            .get_or_init(|| {
                self.store
                    .flows
                    .iter()
                    .map(|f| (f.slice_out, f.slice_in))
                    .collect()
            })
            .get(&id)
            .copied()
    }

    /// Rows of `store.sched` per CPU, in time order.
    pub fn sched_on_cpu(&self, cpu: u32) -> &[u32] {
        let by_cpu = self.sched_by_cpu.get_or_init(|| {
            let mut v: Vec<Vec<u32>> = Vec::new();
            for (i, r) in self.store.sched.iter().enumerate() {
                let c = r.cpu as usize;
                if v.len() <= c {
                    v.resize_with(c + 1, Vec::new);
                }
                v[c].push(i as u32);
            }
            let sched = &self.store.sched;
            for rows in &mut v {
                rows.sort_by_key(|&i| sched[i as usize].ts);
            }
            v
        });
        by_cpu.get(cpu as usize).map_or(&[], |v| v.as_slice())
    }
}
