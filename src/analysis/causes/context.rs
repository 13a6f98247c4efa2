//! Lookups the cause families share, built once per analysis: each thread's slices in time
//! order, thread and process names, binder flows, per-CPU scheduling and counters. Built
//! lazily where only some frames need them.

use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, OnceLock};

use super::super::grouped::{Group, Grouped, OrderWatch};
use super::super::index::Index;
use super::super::thread_state::ThreadStateIndex;
use super::categories::{is_perfetto_blocking_call, rule_at, rule_index, Category};
use super::cpu::CpuCounters;
use super::frame_slices::ByVsync;
use super::model::ThreadRef;
use crate::analysis::slice_name::standardize;
use crate::store::{SliceId, Store, TrackScope, Upid, Utid};

/// The slices of thread tracks: per track in (ts, depth) order, and each thread's tracks in
/// the order their first slices were imported.
pub struct ThreadSlices {
    by_track: Grouped,
    tracks_of: Vec<Vec<u32>>,
}

pub struct Ctx<'a> {
    pub store: &'a Store,
    pub idx: &'a Index<'a>,
    pub states: &'a ThreadStateIndex<'a>,
    utid_of_track: Vec<Option<Utid>>,
    slices: OnceLock<ThreadSlices>,
    /// Per interned string, computed on first use: 0 not yet, 1 no rule, 2 + the rule index
    /// ([`rule_index`]).
    category: Vec<AtomicU16>,
    /// Per interned name: its standardised form when it is one of Perfetto's blocking calls.
    blocking_name: OnceLock<Vec<OnceLock<Option<Arc<str>>>>>,
    flows_out: OnceLock<FxHashMap<SliceId, SliceId>>,
    running_by_cpu: OnceLock<Grouped>,
    pub(super) cpu_counters: OnceLock<CpuCounters>,
    by_vsync: OnceLock<ByVsync>,
    /// Perfetto's boundaries of the frames inside CUJs (empty without CUJs).
    pub cuj_frames: super::cuj::CujFrames,
}

/// The lookups shared by every process's chains, which need only the store and the index:
/// `analyze` builds them ahead while the other core is still busy, instead of on first use
/// inside the per-process loop, where the first worker to need one builds it while the
/// other may wait for it.
pub struct Prebuilt {
    slices: ThreadSlices,
    running_by_cpu: Grouped,
    by_vsync: ByVsync,
    flows_out: FxHashMap<SliceId, SliceId>,
    cpu_counters: CpuCounters,
}

impl Prebuilt {
    pub fn build(idx: &Index<'_>) -> Self {
        let store = idx.store;
        let utid_of_track = thread_track_utids(store);
        Prebuilt {
            slices: ThreadSlices::build(store, &utid_of_track),
            running_by_cpu: running_by_cpu(store),
            by_vsync: ByVsync::build(idx, &utid_of_track),
            flows_out: flows_out(store),
            cpu_counters: CpuCounters::build(store),
        }
    }
}

/// The slice each flow leaves from, to the slice it reaches.
fn flows_out(store: &Store) -> FxHashMap<SliceId, SliceId> {
    store
        .flows
        .iter()
        .map(|f| (f.slice_out, f.slice_in))
        .collect()
}

/// The thread of each thread slice track.
fn thread_track_utids(store: &Store) -> Vec<Option<Utid>> {
    let utid = |t: &crate::store::TrackRow| match t.scope {
        TrackScope::Thread(u) if t.event_type == crate::store::EventType::Slice => Some(u),
        _ => None,
    };
    store.tracks.iter().map(utid).collect()
}

impl ThreadSlices {
    fn build(store: &Store, utid_of_track: &[Option<Utid>]) -> Self {
        let slices = &store.slices;
        let utid_of = |track: u32| utid_of_track.get(track as usize).copied().flatten();
        let mut by_track = Grouped::new(|| {
            slices
                .iter()
                .enumerate()
                .filter(|(_, s)| utid_of(s.track_id).is_some())
                .map(|(i, s)| (s.track_id as usize, i as SliceId))
        });
        // A thread's tracks in the order of their first slices: a group's first row,
        // while the groups are still in import order.
        let mut firsts: Vec<(SliceId, u32)> = (0..store.tracks.len() as u32)
            .filter_map(|t| Some((by_track.get(t as usize).first()?, t)))
            .collect();
        firsts.sort_unstable();
        let mut tracks_of: Vec<Vec<u32>> = vec![Vec::new(); store.threads.len()];
        for (_, t) in firsts {
            if let Some(u) = utid_of(t) {
                tracks_of[u as usize].push(t);
            }
        }
        // Import order is time order per track, but for slices completed out of order
        // (unmatched ends). Which tracks are out of order is found in one pass in row order,
        // instead of reading each group's scattered rows.
        let mut order = OrderWatch::default();
        for s in slices.iter().filter(|s| utid_of(s.track_id).is_some()) {
            order.see(s.track_id as usize, (s.ts, s.depth()));
        }
        by_track.sort_by_key_where(
            |t| order.unsure(t),
            |i| (slices[i as usize].ts, slices[i as usize].depth()),
        );
        ThreadSlices {
            by_track,
            tracks_of,
        }
    }
}

/// Running rows of `store.thread_states` per CPU, in time order.
fn running_by_cpu(store: &Store) -> Grouped {
    let rows = &store.thread_states;
    let Some(running) = store.strings.lookup("Running") else {
        return Grouped::default();
    };
    // One walk over the rows (the state code first, the whole row only for Running ones);
    // grouping then walks the short list twice. Rows are made as the sorted events arrive,
    // so each CPU's usually come in time order: only the CPUs whose did not are sorted.
    let mut ran: Vec<(u16, u32)> = Vec::new();
    let mut order = OrderWatch::default();
    for i in (0..rows.len()).filter(|&i| rows.state(i) == Some(running)) {
        let r = rows.row(i);
        let Some(cpu) = r.cpu() else { continue };
        order.see(usize::from(cpu), r.ts);
        ran.push((cpu, i as u32));
    }
    let mut by_cpu = Grouped::new(|| ran.iter().map(|&(cpu, i)| (usize::from(cpu), i)));
    by_cpu.sort_by_key_where(|cpu| order.unsure(cpu), |i| rows.ts(i as usize));
    by_cpu
}

impl<'a> Ctx<'a> {
    pub fn new(idx: &'a Index<'a>, states: &'a ThreadStateIndex<'a>) -> Self {
        let store = idx.store;
        let utid_of_track = thread_track_utids(store);
        Ctx {
            store,
            idx,
            states,
            utid_of_track,
            slices: OnceLock::new(),
            category: (0..store.strings.len())
                .map(|_| AtomicU16::new(0))
                .collect(),
            blocking_name: OnceLock::new(),
            flows_out: OnceLock::new(),
            running_by_cpu: OnceLock::new(),
            cpu_counters: OnceLock::new(),
            by_vsync: OnceLock::new(),
            cuj_frames: Default::default(),
        }
    }

    /// With the lookups built ahead ([`Prebuilt`]).
    pub fn with_prebuilt(self, prebuilt: Option<Prebuilt>) -> Self {
        if let Some(p) = prebuilt {
            let _ = self.slices.set(p.slices);
            let _ = self.running_by_cpu.set(p.running_by_cpu);
            let _ = self.by_vsync.set(p.by_vsync);
            let _ = self.flows_out.set(p.flows_out);
            let _ = self.cpu_counters.set(p.cpu_counters);
        }
        self
    }

    /// The lookups given by [`Ctx::with_prebuilt`] back, for the next context (None when
    /// any of them was not built).
    pub fn into_prebuilt(self) -> Option<Prebuilt> {
        Some(Prebuilt {
            slices: self.slices.into_inner()?,
            running_by_cpu: self.running_by_cpu.into_inner()?,
            by_vsync: self.by_vsync.into_inner()?,
            flows_out: self.flows_out.into_inner()?,
            cpu_counters: self.cpu_counters.into_inner()?,
        })
    }

    /// With the boundaries of the frames inside CUJs ([`super::cuj::frames_on`]).
    pub fn with_cuj_frames(mut self, frames: super::cuj::CujFrames) -> Self {
        self.cuj_frames = frames;
        self
    }

    pub fn utid_of_slice(&self, id: SliceId) -> Option<Utid> {
        let t = self.store.slices[id as usize].track_id as usize;
        self.utid_of_track.get(t).copied().flatten()
    }

    fn thread_slices(&self) -> &ThreadSlices {
        self.slices
            .get_or_init(|| ThreadSlices::build(self.store, &self.utid_of_track))
    }

    /// Every process's doFrame / DrawFrame slices by vsync id, on any thread.
    pub fn by_vsync(&self) -> &super::frame_slices::ByVsync {
        self.by_vsync
            .get_or_init(|| ByVsync::build(self.idx, &self.utid_of_track))
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
        let all = self.thread_slices();
        let Some(tracks) = all.tracks_of.get(utid as usize) else {
            return Vec::new();
        };
        let slices = &self.store.slices;
        let mut out = Vec::new();
        for &track in tracks {
            let v = all.by_track.get(track as usize);
            let k = v.partition_point(|i| slices[i as usize].ts < start);
            // Slices of a track nest: those open at `start` are the latest one to begin
            // before it and its ancestors, where they reach past `start`.
            let first = out.len();
            let mut up = k.checked_sub(1).and_then(|j| v.get(j));
            while let Some(id) = up {
                if self.end_of(id) > start {
                    out.push(id);
                }
                up = self.store.slice_parent(id);
            }
            out[first..].reverse();
            out.extend(v.iter_from(k).take_while(|&i| slices[i as usize].ts < end));
        }
        if tracks.len() > 1 {
            out.sort_by_key(|&i| (slices[i as usize].ts, slices[i as usize].depth()));
        }
        out
    }

    pub fn slice_name(&self, id: SliceId) -> &'a str {
        self.store
            .opt_str(self.store.slices[id as usize].name)
            .unwrap_or("")
    }

    /// The category of a slice by its name, and the rule.
    pub fn category_of(&self, id: SliceId) -> Option<(Category, &'static str)> {
        let name = self.store.slices[id as usize].name?;
        let cell = self.category.get(name.index() as usize)?;
        // Racing threads compute the same value: a plain load and store suffice.
        let mut k = cell.load(Ordering::Relaxed);
        if k == 0 {
            k = rule_index(self.store.str(name)).map_or(1, |k| k as u16 + 2);
            cell.store(k, Ordering::Relaxed);
        }
        match k {
            1 => None,
            k => Some(rule_at(k as usize - 2)),
        }
    }

    /// The standardised name of a slice that is one of Perfetto's relevant blocking calls.
    pub fn perfetto_blocking_name(&self, id: SliceId) -> Option<Arc<str>> {
        let name = self.store.slices[id as usize].name?;
        let cells = self.blocking_name.get_or_init(|| {
            let mut v = Vec::new();
            v.resize_with(self.store.strings.len(), OnceLock::new);
            v
        });
        cells
            .get(name.index() as usize)?
            .get_or_init(|| {
                let n = self.store.str(name);
                is_perfetto_blocking_call(n).then(|| standardize(n).into())
            })
            .clone()
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
            .get_or_init(|| flows_out(self.store))
            .get(&id)
            .copied()
    }

    /// Running rows of `store.thread_states` per CPU, in time order: what ran on each CPU
    /// (the `sched` rows but the idle thread's, which has no states).
    pub fn running_on_cpu(&self, cpu: u32) -> Group<'_> {
        self.running_by_cpu
            .get_or_init(|| running_by_cpu(self.store))
            .get(cpu as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::thread_states::ThreadStateRow;

    /// A thread's slices come back in (ts, depth) order on each of its tracks, also where
    /// rows were made out of that order (slices completed out of order).
    #[test]
    fn thread_slices_in_time_and_depth_order_per_track() {
        use crate::analysis::index::Index;
        use crate::analysis::thread_state::ThreadStateIndex;
        use crate::store::NewSlice;
        let mut s = Store::with_thread_tracks(&[10, 11]);
        // (track, ts, depth) in row order: on track 0 a later start comes before earlier
        // ones; on track 1 only the depths of an equal start are reversed.
        let rows = [
            (0, 30, 0),
            (1, 5, 1),
            (0, 10, 0),
            (1, 5, 0),
            (0, 20, 0),
            (1, 40, 0),
            (0, 50, 0),
        ];
        for &(track_id, ts, depth) in &rows {
            s.push_slice(NewSlice {
                ts,
                dur: 1,
                track_id,
                depth,
                ..Default::default()
            });
        }
        let idx = Index::new(&s);
        let states = ThreadStateIndex::all(&s);
        let ctx = Ctx::new(&idx, &states);
        for utid in [0u32, 1] {
            let got = ctx.slices_overlapping(utid, 0, 100);
            let mut want: Vec<SliceId> = (0..rows.len() as SliceId)
                .filter(|&i| rows[i as usize].0 == utid)
                .collect();
            want.sort_by_key(|&i| (rows[i as usize].1, rows[i as usize].2));
            assert_eq!(got, want, "thread {utid}");
        }
    }

    /// Each CPU's Running rows in time order (equal times in row order), whatever order the
    /// rows were made in.
    #[test]
    fn running_rows_per_cpu_in_time_order() {
        // (ts, state, cpu): in row order, times in order; then the same with two swapped
        // out of order, as rows made out of time order would be.
        let in_order = [
            (10, "Running", 0),
            (10, "R", 1),
            (12, "Running", 1),
            (12, "Running", 0),
            (15, "S", 0),
            (20, "Running", 1),
            (20, "Running", 1),
            (30, "Running", 0),
        ];
        let mut shuffled = in_order;
        shuffled.swap(2, 6);
        shuffled.swap(0, 7);
        for rows in [in_order, shuffled] {
            let mut s = Store::default();
            for &(ts, st, cpu) in &rows {
                let st = Some(s.intern(st));
                s.thread_states
                    .push(ThreadStateRow::new(ts, 0, st, Some(cpu), None, None));
            }
            let by_cpu = running_by_cpu(&s);
            for cpu in 0..2u16 {
                let got: Vec<u32> = by_cpu.get(usize::from(cpu)).iter().collect();
                let mut want: Vec<u32> = (0..rows.len() as u32)
                    .filter(|&i| rows[i as usize].1 == "Running" && rows[i as usize].2 == cpu)
                    .collect();
                want.sort_by_key(|&i| rows[i as usize].0);
                assert_eq!(got, want, "cpu {cpu} of {rows:?}");
            }
        }
    }
}
