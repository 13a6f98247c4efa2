//! Memory ftrace events as counters (and a few slices):
//! - per-process: `rss_stat` / `rss_stat_throttled` ("mem.rss.anon", "mem.rss.file",
//!   "mem.rss.shmem", "mem.swap", ...), `dmabuf_rss_stat` ("mem.dmabuf_rss"),
//!   `oom_score_adj_update` ("oom_score_adj"), `mm_event_record` ("mem.mm.<type>.<metric>");
//! - global: ION and DMA-BUF heaps (`ion_heap_grow/shrink`, `ion_stat`, `dma_heap_stat`):
//!   "mem.ion.<heap>", per-thread "mem.ion_change.<heap>", and one slice per live buffer.
//!
//! The per-process counters are emitted by a thread whose process may only become known
//! later in the trace, so (as trace_processor does) the value is stored at once and its
//! track is chosen when the trace has been read: the process's track when the thread has
//! one by then, else a per-thread fallback track of the same name.

use crate::import::android_props::push_counter;
use crate::import::counter_tracks;
use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{EventType, Severity, Store, TrackId, TrackScope, Upid, Utid};
use crate::trace::ftrace_ids as fid;
use crate::trace::wire::{Fields, Value};

/// Placeholder track of a counter whose track is chosen at the end of the trace.
const UNRESOLVED: TrackId = TrackId::MAX;

/// rss_stat `member` -> process memory key (the kernel's MM_* counters).
fn rss_member_key(member: u32) -> &'static str {
    match member {
        0 => "rss.file",
        1 => "rss.anon",
        2 => "swap",
        3 => "rss.shmem",
        4 => "unreclaimable",
        _ => "unknown",
    }
}

/// mm_event_record `type` -> name (Android's mm_event kernel patch).
fn mm_event_type(t: u32) -> Option<&'static str> {
    Some(match t {
        0 => "min_flt",
        1 => "maj_flt",
        2 => "read_io",
        3 => "compaction",
        4 => "reclaim",
        5 => "swp_flt",
        6 => "kern_alloc",
        _ => return None,
    })
}

const MM_METRICS: [&str; 3] = ["count", "max_lat", "avg_lat"];

/// A process counter reported by a thread (trace_processor's ProcessCounterForThread).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ProcessCounter {
    OomScoreAdj,
    /// (mm event type, index into MM_METRICS).
    MmEvent(&'static str, u8),
    Memory(&'static str),
}

/// The "mem.<key>" counter track of a process (shared with process_stats).
fn process_memory_track(ctx: &mut Ctx, upid: Upid, key: &str) -> TrackId {
    counter_tracks::process_memory_track(ctx, upid, key, &format!("mem.{key}"))
}

impl ProcessCounter {
    fn track(self, ctx: &mut Ctx, owner: Result<Upid, Utid>) -> TrackId {
        match (self, owner) {
            (ProcessCounter::OomScoreAdj, Ok(upid)) => {
                counter_tracks::oom_score_adj_track(ctx, upid)
            }
            (ProcessCounter::Memory(key), Ok(upid)) => process_memory_track(ctx, upid, key),
            (ProcessCounter::MmEvent(t, m), Ok(upid)) => {
                Self::mm_event_track(ctx, TrackScope::Process(upid), "mm_event", t, m)
            }
            (ProcessCounter::OomScoreAdj, Err(utid)) => {
                let name = ctx.store.intern("oom_score_adj");
                let spec = TrackSpec::new(
                    "oom_score_adj_thread_fallback",
                    EventType::Counter,
                    TrackScope::Thread(utid),
                )
                .named(name)
                .machine(ctx.procs.machine_id);
                ctx.tracks.intern(&mut ctx.store, spec)
            }
            (ProcessCounter::Memory(key), Err(utid)) => {
                let dims = [("process_memory_key", DimValue::Str(key))];
                counter_tracks::named_counter(
                    ctx,
                    "process_memory_thread_fallback",
                    TrackScope::Thread(utid),
                    &format!("mem.{key}"),
                    &dims,
                    None,
                )
            }
            (ProcessCounter::MmEvent(t, m), Err(utid)) => Self::mm_event_track(
                ctx,
                TrackScope::Thread(utid),
                "mm_event_thread_fallback",
                t,
                m,
            ),
        }
    }

    fn mm_event_track(
        ctx: &mut Ctx,
        scope: TrackScope,
        kind: &'static str,
        t: &str,
        m: u8,
    ) -> TrackId {
        let metric = MM_METRICS[m as usize];
        let name = ctx.store.intern(&format!("mem.mm.{t}.{metric}"));
        let dims = [
            ("mm_event_type", DimValue::Str(t)),
            ("mm_event_metric", DimValue::Str(metric)),
        ];
        let type_idx = (0..7)
            .position(|i| mm_event_type(i) == Some(t))
            .unwrap_or(0);
        let spec = TrackSpec::new(kind, EventType::Counter, scope)
            .named(name)
            .extra((type_idx * MM_METRICS.len() + m as usize) as i64)
            .dims(&dims)
            .machine(ctx.procs.machine_id);
        ctx.tracks.intern(&mut ctx.store, spec)
    }
}

/// A counter row whose track waits for the end of the trace.
struct Pending {
    row: usize,
    utid: Utid,
    counter: ProcessCounter,
}

/// A heap whose events feed a global total, a per-thread change counter and, for
/// `ion_stat` / `dma_heap_stat`, one slice per live buffer.
#[derive(Clone, Copy)]
enum Heap {
    Ion,
    DmaHeap,
}

#[derive(Default)]
pub struct MemoryEvents {
    pending: Vec<Pending>,
    /// rss_stat mm_id -> the thread last seen owning that mm (from `curr` events).
    mm_owner: rustc_hash::FxHashMap<i64, Utid>,
}

impl MemoryEvents {
    fn push_for_thread(
        &mut self,
        store: &mut Store,
        ts: i64,
        utid: Utid,
        counter: ProcessCounter,
        value: f64,
    ) {
        self.pending.push(Pending {
            row: store.counters.len(),
            utid,
            counter,
        });
        push_counter(store, ts, UNRESOLVED, value, None);
    }

    /// `rss_stat` (313) and `rss_stat_throttled` (359): one memory counter of the process
    /// whose mm changed. With `curr` and `mm_id`, a change to another task's mm (`curr` =
    /// 0) is charged to the thread last seen owning that mm, if it is still alive.
    pub fn rss_stat(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, event_id: u32, data: &[u8]) {
        // (member, size, curr, mm_id) field numbers differ between the two events.
        let [member_f, size_f, curr_f, mm_f] = if event_id == fid::RSS_STAT_THROTTLED {
            [2, 4, 1, 3]
        } else {
            [1, 2, 3, 4]
        };
        let (mut member, mut size, mut curr, mut mm_id) = (0u32, 0i64, None, None);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if id == member_f {
                member = v.as_i32() as u32;
            } else if id == size_f {
                size = v.as_i64();
            } else if id == curr_f {
                curr = Some(v.as_u32() != 0);
            } else if id == mm_f {
                mm_id = Some(v.as_u32() as i64);
            }
        }
        // The throttled event always has both (proto3-style defaults).
        if event_id == fid::RSS_STAT_THROTTLED {
            curr = curr.or(Some(false));
            mm_id = mm_id.or(Some(0));
        }
        if size < 0 {
            ctx.store.stat(
                "rss_stat_negative_size",
                Severity::Info,
                "An rss_stat event with a negative size was ignored.",
            );
            return;
        }
        let utid = match (mm_id, curr) {
            (Some(mm), Some(true)) => {
                let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
                self.mm_owner.insert(mm, utid);
                Some(utid)
            }
            (Some(mm), Some(false)) => match self.mm_owner.get(&mm).copied() {
                Some(u) if ctx.procs.is_thread_alive(&ctx.store, u) => Some(u),
                Some(_) => {
                    self.mm_owner.remove(&mm);
                    None
                }
                None => None,
            },
            _ => Some(ctx.procs.get_or_create_thread(&mut ctx.store, pid)),
        };
        let Some(utid) = utid else {
            ctx.store.stat(
                "rss_stat_unknown_thread_for_mm_id",
                Severity::Info,
                "An rss_stat event for another task's memory whose owner is unknown was ignored.",
            );
            return;
        };
        let counter = ProcessCounter::Memory(rss_member_key(member));
        self.push_for_thread(&mut ctx.store, ts, utid, counter, size as f64);
    }

    /// `dmabuf_rss_stat`: the DMA-BUF memory mapped by the emitting thread's process.
    pub fn dmabuf_rss_stat(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let rss = Fields::new(data)
            .map_while(Result::ok)
            .find(|(id, _)| *id == 1)
            .map_or(0, |(_, v)| v.as_u64());
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let counter = ProcessCounter::Memory("dmabuf_rss");
        self.push_for_thread(&mut ctx.store, ts, utid, counter, rss as f64);
    }

    /// `oom_score_adj_update`: the score of the task in the event (not the emitter).
    pub fn oom_score_adj_update(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let (mut adj, mut tid) = (0i32, 0u32);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                2 => adj = v.as_i32(),
                3 => tid = v.as_i32() as u32,
                _ => {}
            }
        }
        // Old tracers encoded negative scores wrongly (b/120618641); the score fits 16 bits.
        let adj = adj as i16;
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, tid as i64);
        let counter = ProcessCounter::OomScoreAdj;
        self.push_for_thread(&mut ctx.store, ts, utid, counter, adj as f64);
    }

    /// `mm_event_record`: count, max_lat and avg_lat of one kind of memory event.
    pub fn mm_event_record(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut f = [0u32; 5];
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if let Some(slot) = f.get_mut(id as usize) {
                *slot = v.as_u32();
            }
        }
        let (avg_lat, count, max_lat, kind) = (f[1], f[2], f[3], f[4]);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let Some(t) = mm_event_type(kind) else {
            ctx.store.stat(
                "mm_unknown_type",
                Severity::DataLoss,
                "An mm_event_record of an unknown type was ignored.",
            );
            return;
        };
        for (m, v) in [count, max_lat, avg_lat].into_iter().enumerate() {
            let counter = ProcessCounter::MmEvent(t, m as u8);
            self.push_for_thread(&mut ctx.store, ts, utid, counter, v as f64);
        }
    }

    /// `ion_heap_grow` / `ion_heap_shrink` (Pixel kernels): `total_allocated` is the heap
    /// size before the change.
    pub fn ion_heap_change(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, grow: bool, data: &[u8]) {
        let (mut heap, mut len, mut total) = (None, 0u64, 0i64);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match (id, v) {
                (1, Value::Bytes(b)) => heap = Some(b),
                (2, v) => len = v.as_u64(),
                (3, v) => total = v.as_i64(),
                _ => {}
            }
        }
        let change = (len as i64).wrapping_mul(if grow { 1 } else { -1 });
        let heap = heap.map_or(
            std::borrow::Cow::Borrowed("unknown"),
            String::from_utf8_lossy,
        );
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let total = total.wrapping_add(change) as f64;
        Self::heap_counters(ctx, ts, Heap::Ion, &heap, utid, total, change as f64, None);
    }

    /// `ion_stat` (4.19+ kernels): totals of the unnamed heap, plus a slice per buffer
    /// from its allocation to its release.
    pub fn ion_stat(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut f = [0u64; 4];
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if let Some(slot) = f.get_mut(id as usize) {
                *slot = v.as_u64();
            }
        }
        let (buffer_id, len, total) = (f[1] as u32, f[2] as i64, f[3]);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        Self::heap_counters(ctx, ts, Heap::Ion, "", utid, total as f64, len as f64, None);
        Self::buffer_slice(ctx, ts, Heap::Ion, buffer_id as i64, len);
    }

    /// `dma_heap_stat`: like ion_stat for DMA-BUF heaps, buffers known by inode.
    pub fn dma_heap_stat(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let mut f = [0u64; 4];
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if let Some(slot) = f.get_mut(id as usize) {
                *slot = v.as_u64();
            }
        }
        let (inode, len, total) = (f[1], f[2] as i64, f[3]);
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        let key = ctx.store.intern("inode");
        let args = ctx
            .store
            .args
            .insert_set(vec![(key, ArgValue::UInt(inode))]);
        Self::heap_counters(
            ctx,
            ts,
            Heap::DmaHeap,
            "",
            utid,
            total as f64,
            len as f64,
            args,
        );
        Self::buffer_slice(ctx, ts, Heap::DmaHeap, inode as i64, len);
    }

    /// The heap's global total and the emitting thread's change counter.
    #[allow(clippy::too_many_arguments)]
    fn heap_counters(
        ctx: &mut Ctx,
        ts: i64,
        heap: Heap,
        heap_name: &str,
        utid: Utid,
        total: f64,
        change: f64,
        change_args: Option<crate::store::args::ArgSetId>,
    ) {
        let heap_id = ctx.store.intern(heap_name);
        let (total_track, change_track) = match heap {
            Heap::Ion => {
                let suffix = |base: &str| match heap_name {
                    "" => base.to_string(),
                    h => format!("{base}.{h}"),
                };
                let dims = [("heap_name", DimValue::Str(heap_name))];
                let total_name = ctx.store.intern(&suffix("mem.ion"));
                let change_name = ctx.store.intern(&suffix("mem.ion_change"));
                let t =
                    Self::heap_track(ctx, "ion", TrackScope::Global, total_name, heap_id, &dims);
                let c = Self::heap_track(
                    ctx,
                    "ion_change",
                    TrackScope::Thread(utid),
                    change_name,
                    heap_id,
                    &dims,
                );
                (t, c)
            }
            Heap::DmaHeap => {
                let total_name = ctx.store.intern("mem.dma_heap");
                let change_name = ctx.store.intern("mem.dma_heap_change");
                let t = Self::heap_track(
                    ctx,
                    "android_dma_heap",
                    TrackScope::Global,
                    total_name,
                    heap_id,
                    &[],
                );
                let c = Self::heap_track(
                    ctx,
                    "android_dma_heap_change",
                    TrackScope::Thread(utid),
                    change_name,
                    heap_id,
                    &[],
                );
                (t, c)
            }
        };
        push_counter(&mut ctx.store, ts, total_track, total, None);
        push_counter(&mut ctx.store, ts, change_track, change, change_args);
    }

    fn heap_track(
        ctx: &mut Ctx,
        kind: &'static str,
        scope: TrackScope,
        name: StrId,
        heap: StrId,
        dims: &[(&str, DimValue<'_>)],
    ) -> TrackId {
        let spec = TrackSpec::new(kind, EventType::Counter, scope)
            .named(name)
            .extra(heap.index() as i64)
            .dims(dims)
            .machine(ctx.procs.machine_id);
        ctx.tracks.intern(&mut ctx.store, spec)
    }

    /// A buffer's slice opens when it is allocated (len > 0), named by its size, and closes
    /// when it is freed; overlapping buffers spread over several tracks of one name.
    fn buffer_slice(ctx: &mut Ctx, ts: i64, heap: Heap, cookie: i64, len: i64) {
        let (kind, track_name) = match heap {
            Heap::Ion => ("android_ion_allocations", "mem.ion_buffer"),
            Heap::DmaHeap => ("android_dma_allocations", "mem.dma_buffer"),
        };
        let name = ctx.store.intern(track_name);
        let spec = TrackSpec::new(kind, EventType::Slice, TrackScope::Global)
            .named(name)
            .machine(ctx.procs.machine_id);
        if len > 0 {
            let track = ctx.compressor.begin(&mut ctx.store, spec, cookie);
            let slice_name = ctx.store.intern(&format!("{} kB", len / 1024));
            ctx.slices
                .begin(&mut ctx.store, ts, track, None, Some(slice_name), None);
        } else {
            let track = ctx.compressor.end(&mut ctx.store, spec, cookie);
            ctx.slices.end(&mut ctx.store, ts, track, None, None);
        }
    }

    /// Gives every per-process counter its track, now that threads know their processes.
    pub fn finish(&mut self, ctx: &mut Ctx) {
        let mut cache: rustc_hash::FxHashMap<(Utid, ProcessCounter), TrackId> = Default::default();
        for p in std::mem::take(&mut self.pending) {
            let track = match cache.get(&(p.utid, p.counter)) {
                Some(&t) => t,
                None => {
                    let owner = ctx.store.threads[p.utid as usize].upid.ok_or(p.utid);
                    let t = p.counter.track(ctx, owner);
                    cache.insert((p.utid, p.counter), t);
                    t
                }
            };
            ctx.store.counters[p.row].track_id = track;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::put_varint;

    fn msg(ints: &[(u32, u64)], strs: &[(u32, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(id, v) in ints {
            put_varint(&mut out, (id as u64) << 3);
            put_varint(&mut out, v);
        }
        for &(id, s) in strs {
            put_varint(&mut out, ((id as u64) << 3) | 2);
            put_varint(&mut out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        out
    }

    /// (track name, track type, value) per counter row.
    fn counters(ctx: &Ctx) -> Vec<(String, String, f64)> {
        let s = &ctx.store;
        s.counters
            .iter()
            .map(|c| {
                let t = &s.tracks[c.track_id as usize];
                (
                    s.opt_str(t.name).unwrap().to_string(),
                    s.str(t.kind).to_string(),
                    c.value,
                )
            })
            .collect()
    }

    #[test]
    fn rss_stat_resolves_to_the_process_known_at_the_end() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        // Thread 11 reports its anon rss before anything says it belongs to process 10.
        m.rss_stat(
            &mut ctx,
            1,
            11,
            fid::RSS_STAT,
            &msg(&[(1, 1), (2, 4096)], &[]),
        );
        ctx.procs.update_thread(&mut ctx.store, 11, 10);
        // Thread 20 never gets a process: its counter falls back to a thread track.
        m.rss_stat(
            &mut ctx,
            2,
            20,
            fid::RSS_STAT,
            &msg(&[(1, 3), (2, 8192)], &[]),
        );
        m.finish(&mut ctx);
        assert_eq!(
            counters(&ctx),
            [
                ("mem.rss.anon".into(), "process_memory".into(), 4096.0),
                (
                    "mem.rss.shmem".into(),
                    "process_memory_thread_fallback".into(),
                    8192.0
                )
            ]
        );
        let s = &ctx.store;
        let TrackScope::Process(upid) = s.tracks[s.counters[0].track_id as usize].scope else {
            panic!("expected a process track");
        };
        assert_eq!(s.processes[upid as usize].pid, 10);
    }

    #[test]
    fn rss_stat_shares_the_track_process_stats_writes() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        ctx.procs.update_thread(&mut ctx.store, 10, 10);
        let upid = ctx.procs.process_for_pid(10).unwrap();
        let polled = process_memory_track(&mut ctx, upid, "swap");
        m.rss_stat(&mut ctx, 1, 10, fid::RSS_STAT, &msg(&[(1, 2), (2, 1)], &[]));
        m.finish(&mut ctx);
        assert_eq!(ctx.store.counters[0].track_id, polled);
    }

    #[test]
    fn rss_stat_of_another_mm_goes_to_its_last_owner() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        // curr=1: thread 30 owns mm 7. curr=0 from kswapd (pid 99) about mm 7 -> thread 30.
        m.rss_stat(
            &mut ctx,
            1,
            30,
            fid::RSS_STAT,
            &msg(&[(1, 0), (2, 10), (3, 1), (4, 7)], &[]),
        );
        m.rss_stat(
            &mut ctx,
            2,
            99,
            fid::RSS_STAT,
            &msg(&[(1, 0), (2, 20), (3, 0), (4, 7)], &[]),
        );
        // An unknown mm is dropped and counted; so is a negative size.
        m.rss_stat(
            &mut ctx,
            3,
            99,
            fid::RSS_STAT,
            &msg(&[(1, 0), (2, 30), (3, 0), (4, 8)], &[]),
        );
        m.rss_stat(
            &mut ctx,
            4,
            30,
            fid::RSS_STAT,
            &msg(&[(1, 0), (2, (-5i64) as u64)], &[]),
        );
        // The throttled variant numbers its fields differently (curr, member, mm_id, size).
        let throttled = msg(&[(1, 0), (2, 1), (3, 7), (4, 40)], &[]);
        m.rss_stat(&mut ctx, 5, 99, fid::RSS_STAT_THROTTLED, &throttled);
        m.finish(&mut ctx);
        let s = &ctx.store;
        assert_eq!(s.counters.len(), 3);
        assert_eq!(s.counters[0].track_id, s.counters[1].track_id);
        assert_eq!(s.stat_value("rss_stat_unknown_thread_for_mm_id"), 1);
        assert_eq!(s.stat_value("rss_stat_negative_size"), 1);
        assert_eq!(
            counters(&ctx)[2],
            (
                "mem.rss.anon".into(),
                "process_memory_thread_fallback".into(),
                40.0
            )
        );
        assert!(!s.threads.iter().any(|t| t.tid == 99 && t.upid.is_some()));
    }

    #[test]
    fn oom_score_adj_is_the_target_tasks_and_16_bit() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        ctx.procs.update_thread(&mut ctx.store, 50, 50);
        // A negative score sent as a 32-bit varint by an old tracer: -900 as u32.
        let e = msg(&[(2, (-900i32) as u32 as u64), (3, 50)], &[(1, "app")]);
        m.oom_score_adj_update(&mut ctx, 1, &e);
        m.finish(&mut ctx);
        assert_eq!(
            counters(&ctx),
            [("oom_score_adj".into(), "oom_score_adj".into(), -900.0)]
        );
        let upid = ctx.procs.process_for_pid(50).unwrap();
        let track = counter_tracks::oom_score_adj_track(&mut ctx, upid);
        assert_eq!(ctx.store.counters[0].track_id, track);
    }

    #[test]
    fn mm_event_record_makes_three_counters_per_type() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        ctx.procs.update_thread(&mut ctx.store, 5, 5);
        m.mm_event_record(
            &mut ctx,
            1,
            5,
            &msg(&[(1, 2), (2, 151), (3, 8), (4, 0)], &[]),
        );
        m.mm_event_record(&mut ctx, 2, 5, &msg(&[(4, 9)], &[]));
        m.finish(&mut ctx);
        assert_eq!(
            counters(&ctx),
            [
                ("mem.mm.min_flt.count".into(), "mm_event".into(), 151.0),
                ("mem.mm.min_flt.max_lat".into(), "mm_event".into(), 8.0),
                ("mem.mm.min_flt.avg_lat".into(), "mm_event".into(), 2.0),
            ]
        );
        assert_eq!(ctx.store.stat_value("mm_unknown_type"), 1);
    }

    #[test]
    fn ion_heap_totals_include_the_change() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        let grow = msg(&[(2, 4096), (3, 10_000)], &[(1, "system")]);
        m.ion_heap_change(&mut ctx, 1, 3, true, &grow);
        let shrink = msg(&[(2, 1000), (3, 14_096)], &[(1, "system")]);
        m.ion_heap_change(&mut ctx, 2, 3, false, &shrink);
        // No heap name: "unknown".
        m.ion_heap_change(&mut ctx, 3, 3, true, &msg(&[(2, 1)], &[]));
        assert_eq!(
            counters(&ctx),
            [
                ("mem.ion.system".into(), "ion".into(), 14_096.0),
                ("mem.ion_change.system".into(), "ion_change".into(), 4096.0),
                ("mem.ion.system".into(), "ion".into(), 13_096.0),
                ("mem.ion_change.system".into(), "ion_change".into(), -1000.0),
                ("mem.ion.unknown".into(), "ion".into(), 1.0),
                ("mem.ion_change.unknown".into(), "ion_change".into(), 1.0),
            ]
        );
        let s = &ctx.store;
        assert!(matches!(
            s.tracks[s.counters[1].track_id as usize].scope,
            TrackScope::Thread(_)
        ));
    }

    #[test]
    fn dma_heap_buffers_are_slices_from_alloc_to_free() {
        let mut ctx = Ctx::new();
        let mut m = MemoryEvents::default();
        m.dma_heap_stat(&mut ctx, 10, 3, &msg(&[(1, 77), (2, 8192), (3, 8192)], &[]));
        m.dma_heap_stat(
            &mut ctx,
            15,
            3,
            &msg(&[(1, 78), (2, 4096), (3, 12288)], &[]),
        );
        m.dma_heap_stat(
            &mut ctx,
            20,
            3,
            &msg(&[(1, 77), (2, (-8192i64) as u64), (3, 4096)], &[]),
        );
        let s = &ctx.store;
        let slices: Vec<_> = s
            .slices
            .iter()
            .map(|r| (s.opt_str(r.name).unwrap(), r.ts, r.dur))
            .collect();
        assert_eq!(slices, [("8 kB", 10, 10), ("4 kB", 15, -1)]);
        assert_ne!(s.slices[0].track_id, s.slices[1].track_id);
        assert_eq!(
            counters(&ctx)[0],
            ("mem.dma_heap".into(), "android_dma_heap".into(), 8192.0)
        );
        let inode = s
            .args
            .get_by_name(&s.strings, s.counters[1].arg_set_id.get(), "inode");
        assert_eq!(inode, Some(&ArgValue::UInt(77)));
    }
}
