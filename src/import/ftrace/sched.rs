//! Scheduling and process-lifecycle ftrace events: sched_switch (regular and compact),
//! sched_waking, task_newtask / task_rename, sched_process_free, and the kernel counters
//! (cpu_frequency, cpu_frequency_limits, sched_cpu_util_cfs, cpu_idle, gpu_frequency).
//!
//! Follows trace_processor's ftrace parser and sched event tracker: one pending sched slice
//! per CPU, closed by the next switch on that CPU; the last one keeps dur -1.

use super::task_state::{self, KernelVersion};
use super::thread_state::ThreadStateTracker;
use crate::import::Ctx;
use crate::store::processes::ThreadNamePriority;
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{CounterRow, EventType, SchedRow, Severity, Store, TrackId, TrackScope, Utid};
use crate::trace::ftrace_ids as fid;
use crate::trace::sort::{CompactSwitch, CompactWaking};
use crate::trace::wire::{Fields, Value};

/// CLONE_THREAD from the kernel's sched.h: task_newtask created a thread, not a process.
const CLONE_THREAD: u64 = 0x0001_0000;

/// Per-CPU counter tracks cached by kind (cpu_frequency and cpu_idle arrive at high rates).
#[derive(Clone, Copy)]
enum CpuCounter {
    Freq,
    Idle,
    MaxFreqLimit,
    MinFreqLimit,
    Util,
    Cap,
    NrRunning,
}
const CPU_COUNTER_KINDS: usize = 7;
/// CPUs beyond this are looked up without the cache (bad input must not allocate much).
const MAX_CACHED_CPU: u32 = 1024;

impl CpuCounter {
    /// trace_processor's track type for this counter.
    fn kind(self) -> &'static str {
        match self {
            CpuCounter::Freq => "cpu_frequency",
            CpuCounter::Idle => "cpu_idle",
            CpuCounter::MaxFreqLimit => "cpu_max_frequency_limit",
            CpuCounter::MinFreqLimit => "cpu_min_frequency_limit",
            CpuCounter::Util => "cpu_utilization",
            CpuCounter::Cap => "cpu_capacity",
            CpuCounter::NrRunning => "cpu_nr_running",
        }
    }

    fn name(self, cpu: u32) -> String {
        match self {
            CpuCounter::Freq => "cpufreq".to_string(),
            CpuCounter::Idle => "cpuidle".to_string(),
            CpuCounter::MaxFreqLimit => format!("Cpu {cpu} Max Freq Limit"),
            CpuCounter::MinFreqLimit => format!("Cpu {cpu} Min Freq Limit"),
            CpuCounter::Util => format!("Cpu {cpu} Util"),
            CpuCounter::Cap => format!("Cpu {cpu} Cap"),
            CpuCounter::NrRunning => format!("Cpu {cpu} Nr Running"),
        }
    }
}

/// What the previous sched_switch on a CPU left behind.
#[derive(Clone, Copy)]
struct PendingSched {
    /// Row in `store.sched` the next switch closes.
    slice: Option<u32>,
    last_pid: i64,
    /// `None` until a switch was seen on this CPU (compact_sched needs one to start).
    last_utid: Option<Utid>,
}

const NO_PENDING: PendingSched = PendingSched {
    slice: None,
    last_pid: i64::MAX,
    last_utid: None,
};

/// Cache slot states for `end_state` strings.
const END_STATE_UNKNOWN: u32 = u32::MAX;
const END_STATE_INVALID: u32 = u32::MAX - 1;

#[derive(Default)]
pub struct SchedParser {
    pending: Vec<PendingSched>,
    kernel: Option<KernelVersion>,
    /// raw prev_state (u16) -> interned end_state, filled lazily.
    end_states: Vec<u32>,
    cpu_tracks: Vec<[Option<TrackId>; CPU_COUNTER_KINDS]>,
    /// Created on first use (it interns its state names).
    thread_states: Option<ThreadStateTracker>,
    /// Commands that never read `thread_state` skip building it.
    pub skip_thread_states: bool,
    /// Commands that never read `sched` count its rows instead of keeping them.
    pub skip_sched_rows: bool,
}

/// Reads the fields of a small ftrace event into slots by field number; absent fields read
/// as zero / empty, as protozero's decoder gives them. Stops quietly at damage.
pub(super) fn decode<const N: usize>(data: &[u8]) -> [Value<'_>; N] {
    let mut out = [Value::Varint(0); N];
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        if let Some(slot) = out.get_mut(id as usize) {
            *slot = v;
        }
    }
    out
}

/// Interns a name; the empty string is "no name" (trace_processor's null string).
fn name_id(store: &mut Store, v: &Value<'_>) -> Option<StrId> {
    let bytes = v.as_bytes();
    if bytes.is_empty() {
        return None;
    }
    match crate::trace::wire::utf8(bytes) {
        Ok(s) => Some(store.intern(s)),
        Err(_) => Some(store.intern(&String::from_utf8_lossy(bytes))),
    }
}

/// An ftrace pid field: int32 on the wire, used as an unsigned 32-bit tid.
fn pid_of(v: &Value<'_>) -> i64 {
    v.as_u32() as i64
}

impl SchedParser {
    /// Kernel version from SystemInfo.utsname; decides how prev_state is decoded.
    pub fn set_kernel_version(&mut self, version: Option<KernelVersion>) {
        if version != self.kernel {
            self.kernel = version;
            self.end_states.clear();
        }
    }

    fn thread_states(&mut self, store: &mut Store) -> Option<&mut ThreadStateTracker> {
        if self.skip_thread_states {
            return None;
        }
        Some(
            self.thread_states
                .get_or_insert_with(|| ThreadStateTracker::new(store)),
        )
    }

    fn pending_for(&mut self, cpu: u32) -> &mut PendingSched {
        let i = cpu as usize;
        if i >= self.pending.len() {
            self.pending.resize(i + 1, NO_PENDING);
        }
        &mut self.pending[i]
    }

    /// The `end_state` string for a raw prev_state; `None` (and a stat) when invalid.
    fn end_state(&mut self, store: &mut Store, raw: i64) -> Option<StrId> {
        let raw = raw as u16;
        if self.end_states.is_empty() {
            self.end_states = vec![END_STATE_UNKNOWN; 1 << 16];
        }
        let slot = &mut self.end_states[raw as usize];
        if *slot == END_STATE_UNKNOWN {
            let mut buf = [0u8; 16];
            *slot = match task_state::end_state_str(raw, self.kernel, &mut buf) {
                Some(s) => store.intern(s).index(),
                None => END_STATE_INVALID,
            };
        }
        if *slot == END_STATE_INVALID {
            store.stat(
                "task_state_invalid",
                Severity::Error,
                "A sched_switch prev_state could not be decoded for this kernel version.",
            );
            return None;
        }
        Some(StrId::from_index(*slot))
    }

    /// Opens the CPU's next `sched` row; returns what the next switch closes.
    fn open_slice(&self, store: &mut Store, ts: i64, cpu: u32, utid: Utid, prio: i32) -> u32 {
        if self.skip_sched_rows {
            let kept = &mut store.sched_not_kept;
            kept.see(ts);
            kept.rows += 1;
            return (kept.rows - 1) as u32;
        }
        store.sched.push(SchedRow {
            ts,
            dur: -1,
            cpu,
            utid,
            end_state: None,
            priority: prio,
        });
        (store.sched.len() - 1) as u32
    }

    fn close_slice(&self, store: &mut Store, idx: u32, ts: i64, end_state: Option<StrId>) {
        if self.skip_sched_rows {
            // Events arrive sorted, so the end is the latest time the row reaches.
            store.sched_not_kept.see(ts);
        } else if let Some(row) = store.sched.get_mut(idx as usize) {
            row.dur = ts - row.ts;
            row.end_state = end_state;
        }
    }

    pub fn sched_switch(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, data: &[u8]) {
        let f = decode::<8>(data);
        let (prev_pid, prev_state) = (pid_of(&f[2]), f[4].as_i64());
        let (next_pid, next_prio) = (pid_of(&f[6]), f[7].as_i32());
        let store = &mut ctx.store;

        let next_name = name_id(store, &f[5]);
        let next_utid = ctx.procs.get_or_create_thread(store, next_pid);
        ctx.procs
            .update_thread_name(store, next_utid, next_name, ThreadNamePriority::Ftrace);

        let end_state = self.end_state(store, prev_state);
        let pending = *self.pending_for(cpu);
        if let Some(idx) = pending.slice {
            if prev_pid == pending.last_pid {
                self.close_slice(store, idx, ts, end_state);
            } else {
                store.stat(
                    "mismatched_sched_switch_tids",
                    Severity::Error,
                    "A sched_switch's prev_pid differed from the previous switch's next_pid on that CPU; the open slice was left unfinished.",
                );
            }
        }

        // The thread may have been renamed while it ran, so prev_comm counts as well.
        let prev_name = name_id(store, &f[1]);
        let prev_utid = ctx.procs.get_or_create_thread(store, prev_pid);
        ctx.procs
            .update_thread_name(store, prev_utid, prev_name, ThreadNamePriority::Ftrace);

        let slice = self.open_slice(store, ts, cpu, next_utid, next_prio);
        *self.pending_for(cpu) = PendingSched {
            slice: Some(slice),
            last_pid: next_pid,
            last_utid: Some(next_utid),
        };
        if let Some(t) = self.thread_states(store) {
            t.sched_switch(store, ts, cpu, prev_utid, end_state, next_utid);
        }
    }

    /// A compact_sched switch carries no prev_* fields: they are inferred from the previous
    /// switch on the CPU, so the first one per CPU only primes that state. `raw_only` is
    /// set in the window before all CPU buffers are valid: the state advances, but no slice
    /// is made.
    pub fn compact_switch(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        cpu: u32,
        e: &CompactSwitch,
        raw_only: bool,
    ) {
        let store = &mut ctx.store;
        let next_pid = e.next_pid as u32 as i64;
        let next_utid = ctx.procs.get_or_create_thread(store, next_pid);
        let next_name = (!store.str(e.next_comm).is_empty()).then_some(e.next_comm);
        ctx.procs
            .update_thread_name(store, next_utid, next_name, ThreadNamePriority::Ftrace);

        let pending = *self.pending_for(cpu);
        let Some(prev_utid) = pending.last_utid else {
            store.stat(
                "compact_sched_switch_skipped",
                Severity::Info,
                "The first compact sched_switch on each CPU only provides the state for the next one.",
            );
            *self.pending_for(cpu) = PendingSched {
                slice: None,
                last_pid: next_pid,
                last_utid: Some(next_utid),
            };
            return;
        };
        let end_state = self.end_state(store, e.prev_state);
        if let Some(idx) = pending.slice {
            self.close_slice(store, idx, ts, end_state);
        }
        // Like trace_processor, a raw-only switch leaves the pending slot as it was.
        let slice = if raw_only {
            pending.slice
        } else {
            Some(self.open_slice(store, ts, cpu, next_utid, e.next_prio))
        };
        *self.pending_for(cpu) = PendingSched {
            slice,
            last_pid: next_pid,
            last_utid: Some(next_utid),
        };
        if !raw_only {
            if let Some(t) = self.thread_states(store) {
                t.sched_switch(store, ts, cpu, prev_utid, end_state, next_utid);
            }
        }
    }

    /// The waker is whatever last ran on the CPU, so wakings before the first switch on a
    /// CPU are dropped.
    pub fn compact_waking(
        &mut self,
        ctx: &mut Ctx,
        ts: i64,
        cpu: u32,
        e: &CompactWaking,
        raw_only: bool,
    ) {
        let Some(waker) = self.pending_for(cpu).last_utid else {
            ctx.store.stat(
                "compact_sched_waking_skipped",
                Severity::Info,
                "A compact sched_waking arrived before any sched_switch on its CPU and was dropped.",
            );
            return;
        };
        if raw_only {
            return;
        }
        let store = &mut ctx.store;
        let wakee = ctx.procs.get_or_create_thread(store, e.pid as u32 as i64);
        // common_flags is 16 bits wide in the kernel.
        let flags = e.common_flags & 0xffff;
        if let Some(t) = self.thread_states(store) {
            t.waking(store, ts, wakee, waker, Some(flags));
        }
    }

    pub fn sched_waking(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let f = decode::<3>(data);
        let store = &mut ctx.store;
        let name = name_id(store, &f[1]);
        let wakee = ctx.procs.get_or_create_thread(store, pid_of(&f[2]));
        ctx.procs
            .update_thread_name(store, wakee, name, ThreadNamePriority::Ftrace);
        let waker = ctx.procs.get_or_create_thread(store, pid);
        if let Some(t) = self.thread_states(store) {
            t.waking(store, ts, wakee, waker, None);
        }
    }

    /// sched_blocked_reason (pid 1, caller 2, io_wait 3): the kernel emits it while waking
    /// a task that slept in D, after its sched_waking. The caller is an iid of the
    /// sequence's interned kernel symbols, resolved by the tokenizer (`RESOLVED_CALLER` on
    /// the whole `event`); without a symbol for it, blocked_function stays NULL.
    pub fn sched_blocked_reason(&mut self, ctx: &mut Ctx, data: &[u8], event: &[u8]) {
        let f = decode::<4>(data);
        let utid = ctx
            .procs
            .get_or_create_thread(&mut ctx.store, pid_of(&f[1]));
        let io_wait = f[3].as_u32() != 0;
        // The tokenizer appends the field last (a copy in the trace itself comes earlier).
        let caller = Fields::new(event)
            .map_while(Result::ok)
            .filter(|(id, _)| *id == fid::RESOLVED_CALLER)
            .last()
            .and_then(|(_, v)| u32::try_from(v.as_u64()).ok())
            .and_then(|id| ctx.tokenizer_name(StrId::from_index(id)));
        let store = &mut ctx.store;
        if let Some(t) = self.thread_states(store) {
            t.blocked_reason(store, utid, io_wait, caller);
        }
    }

    /// trace_processor only records sched_wakeup / sched_wakeup_new in its raw table (which
    /// creates the emitting thread, done by the dispatcher for every event).
    pub fn sched_wakeup(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn sched_wakeup_new(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    /// Threads end at sched_process_free, not at exit (the kernel frees a group leader
    /// only after the whole group is gone).
    pub fn sched_process_exit(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn lowmemory_kill(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}

    pub fn sched_process_free(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<3>(data);
        ctx.procs.end_thread(&mut ctx.store, ts, pid_of(&f[2]));
    }

    pub fn task_newtask(&mut self, ctx: &mut Ctx, ts: i64, source_tid: i64, data: &[u8]) {
        let f = decode::<4>(data);
        let new_tid = pid_of(&f[1]);
        let clone_flags = f[3].as_u64() as u32 as u64;
        // Boot-time traces show init creating the swapper (idle) tasks; they are not
        // processes and must not disturb pid 0.
        if new_tid == 0 {
            return;
        }
        let store = &mut ctx.store;
        let new_comm = name_id(store, &f[2]);
        let procs = &mut ctx.procs;
        if clone_flags & CLONE_THREAD == 0 {
            let upid = procs.start_new_process(
                store,
                Some(ts),
                None,
                new_tid,
                new_comm,
                ThreadNamePriority::Ftrace,
            );
            let source_utid = procs.get_or_create_thread(store, source_tid);
            let new_utid = procs.get_or_create_thread(store, new_tid);
            procs.associate_created_process_to_parent_thread(store, upid, source_utid);
            if let Some(t) = self.thread_states(store) {
                t.new_task(store, ts, new_utid, source_utid);
            }
            return;
        }
        let source_utid = procs.get_or_create_thread(store, source_tid);
        let new_utid = procs.start_new_thread_at(store, Some(ts), new_tid);
        procs.update_thread_name(store, new_utid, new_comm, ThreadNamePriority::Ftrace);
        if !procs.associate_threads(store, source_utid, new_utid, true) {
            store.stat(
                "process_tracker_errors",
                Severity::Error,
                "Two threads said to share a process were already in different processes.",
            );
        }
        if let Some(t) = self.thread_states(store) {
            t.new_task(store, ts, new_utid, source_utid);
        }
    }

    pub fn task_rename(&mut self, ctx: &mut Ctx, _ts: i64, data: &[u8]) {
        let f = decode::<4>(data);
        let store = &mut ctx.store;
        let name = name_id(store, &f[3]);
        let utid = ctx.procs.get_or_create_thread(store, pid_of(&f[1]));
        ctx.procs.update_thread_name_and_maybe_process_name(
            store,
            utid,
            name,
            ThreadNamePriority::Ftrace,
        );
    }

    fn cpu_track(&mut self, ctx: &mut Ctx, cpu: u32, which: CpuCounter) -> TrackId {
        if cpu < MAX_CACHED_CPU {
            let i = cpu as usize;
            if i >= self.cpu_tracks.len() {
                self.cpu_tracks.resize(i + 1, [None; CPU_COUNTER_KINDS]);
            }
            if let Some(id) = self.cpu_tracks[i][which as usize] {
                return id;
            }
        }
        let name = ctx.store.intern(&which.name(cpu));
        let spec = TrackSpec::new(which.kind(), EventType::Counter, TrackScope::Cpu(cpu))
            .named(name)
            .machine(ctx.procs.machine_id);
        let id = ctx.tracks.intern(&mut ctx.store, spec);
        if let Some(slots) = self.cpu_tracks.get_mut(cpu as usize) {
            slots[which as usize] = Some(id);
        }
        id
    }

    fn push_counter(store: &mut Store, ts: i64, track_id: TrackId, value: f64) {
        store.counters.push(CounterRow {
            ts,
            track_id,
            value,
            arg_set_id: None.into(),
        });
    }

    fn cpu_counter(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, which: CpuCounter, v: f64) {
        let track = self.cpu_track(ctx, cpu, which);
        Self::push_counter(&mut ctx.store, ts, track, v);
    }

    pub fn cpu_frequency(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<3>(data);
        let (state, cpu) = (f[1].as_u32(), f[2].as_u32());
        self.cpu_counter(ctx, ts, cpu, CpuCounter::Freq, state as f64);
    }

    pub fn cpu_frequency_limits(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<4>(data);
        let (min, max, cpu) = (f[1].as_u32(), f[2].as_u32(), f[3].as_u32());
        self.cpu_counter(ctx, ts, cpu, CpuCounter::MaxFreqLimit, max as f64);
        self.cpu_counter(ctx, ts, cpu, CpuCounter::MinFreqLimit, min as f64);
    }

    pub fn cpu_idle(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<3>(data);
        let (state, cpu) = (f[1].as_u32(), f[2].as_u32());
        self.cpu_counter(ctx, ts, cpu, CpuCounter::Idle, state as f64);
    }

    pub fn sched_cpu_util_cfs(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<12>(data);
        let cpu = f[4].as_u32();
        self.cpu_counter(ctx, ts, cpu, CpuCounter::Util, f[6].as_u64() as f64);
        self.cpu_counter(ctx, ts, cpu, CpuCounter::Cap, f[2].as_u64() as f64);
        self.cpu_counter(ctx, ts, cpu, CpuCounter::NrRunning, f[11].as_u32() as f64);
    }

    pub fn gpu_frequency(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<3>(data);
        let (gpu, state) = (f[1].as_u32(), f[2].as_u32());
        let track = crate::import::counter_tracks::gpu_frequency_track(ctx, gpu);
        Self::push_counter(&mut ctx.store, ts, track, state as f64);
    }

    /// Adreno's `kgsl_gpu_frequency` reports kHz / 1000 (gpu_freq = 1, gpu_id = 2); it
    /// feeds the same "gpufreq" track, in kHz.
    pub fn kgsl_gpu_frequency(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = decode::<3>(data);
        let (freq, gpu) = (f[1].as_u32(), f[2].as_u32());
        let track = crate::import::counter_tracks::gpu_frequency_track(ctx, gpu);
        Self::push_counter(&mut ctx.store, ts, track, freq as f64 * 1000.0);
    }

    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(out: &mut Vec<u8>, field: u32, v: i64) {
        crate::trace::wire::put_varint(out, (field as u64) << 3);
        crate::trace::wire::put_varint(out, v as u64);
    }
    fn bytes(out: &mut Vec<u8>, field: u32, b: &[u8]) {
        crate::trace::wire::put_varint(out, ((field as u64) << 3) | 2);
        crate::trace::wire::put_varint(out, b.len() as u64);
        out.extend_from_slice(b);
    }

    fn switch(prev: (&str, i64, i64), next: (&str, i64)) -> Vec<u8> {
        let mut e = Vec::new();
        bytes(&mut e, 1, prev.0.as_bytes());
        int(&mut e, 2, prev.1);
        int(&mut e, 3, 120);
        int(&mut e, 4, prev.2);
        bytes(&mut e, 5, next.0.as_bytes());
        int(&mut e, 6, next.1);
        int(&mut e, 7, 120);
        e
    }

    fn compact(ctx: &mut Ctx, prev_state: i64, next_pid: i32, comm: &str) -> CompactSwitch {
        CompactSwitch {
            prev_state,
            next_pid,
            next_prio: 120,
            next_comm: ctx.store.intern(comm),
        }
    }

    fn end_state(ctx: &Ctx, i: usize) -> Option<&str> {
        ctx.store.opt_str(ctx.store.sched[i].end_state)
    }

    fn tid_of(ctx: &Ctx, i: usize) -> i64 {
        ctx.store.threads[ctx.store.sched[i].utid as usize].tid
    }

    #[test]
    fn regular_switch_closes_pending_slice_with_end_state() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        p.sched_switch(&mut ctx, 10, 0, &switch(("a", 1, 0), ("b", 2)));
        p.sched_switch(&mut ctx, 25, 0, &switch(("b", 2, 1), ("a", 1)));
        p.sched_switch(&mut ctx, 30, 1, &switch(("c", 3, 0), ("d", 4)));
        let s = &ctx.store.sched;
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].ts, s[0].dur, tid_of(&ctx, 0)), (10, 15, 2));
        assert_eq!(end_state(&ctx, 0), Some("S"));
        // The last slice on each CPU stays open.
        assert_eq!((s[1].dur, end_state(&ctx, 1)), (-1, None));
        assert_eq!((s[2].dur, end_state(&ctx, 2)), (-1, None));
    }

    #[test]
    fn sched_rows_not_kept_leave_their_count_bounds_and_thread_states() {
        let run = |skip_sched_rows: bool| {
            let mut ctx = Ctx::new();
            let mut p = SchedParser {
                skip_sched_rows,
                ..Default::default()
            };
            p.sched_switch(&mut ctx, 10, 0, &switch(("a", 1, 0), ("b", 2)));
            p.sched_switch(&mut ctx, 25, 0, &switch(("b", 2, 1), ("a", 1)));
            p.sched_switch(&mut ctx, 40, 0, &switch(("a", 1, 1), ("c", 3)));
            // A mismatched switch leaves its row open; the row after it counts too.
            p.sched_switch(&mut ctx, 55, 1, &switch(("x", 9, 0), ("d", 4)));
            p.sched_switch(&mut ctx, 90, 1, &switch(("y", 8, 0), ("e", 5)));
            // The trace's last time is where a raw-only compact switch closes a row.
            for (ts, pid, raw_only) in [(100, 6, false), (110, 7, false), (120, 6, true)] {
                let e = compact(&mut ctx, 1, pid, "t");
                p.compact_switch(&mut ctx, ts, 2, &e, raw_only);
            }
            let states: Vec<_> = ctx
                .store
                .thread_states
                .iter()
                .map(|r| (r.ts, r.dur, r.utid, r.state(), r.cpu()))
                .collect();
            let s = &ctx.store;
            (s.sched.len(), s.sched_slice_count(), s.bounds(), states)
        };
        let (kept_rows, kept_count, kept_bounds, kept_states) = run(false);
        let (rows, count, bounds, states) = run(true);
        assert_eq!((kept_rows, kept_count), (6, 6));
        assert_eq!((rows, count), (0, 6));
        assert_eq!(bounds, kept_bounds);
        assert_eq!(bounds, (10, 120));
        assert_eq!(states, kept_states);
        assert!(!states.is_empty());
    }

    #[test]
    fn mismatched_prev_pid_leaves_slice_open() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        p.sched_switch(&mut ctx, 10, 0, &switch(("a", 1, 0), ("b", 2)));
        p.sched_switch(&mut ctx, 20, 0, &switch(("x", 9, 0), ("c", 3)));
        assert_eq!(ctx.store.sched[0].dur, -1);
        assert_eq!(ctx.store.sched.len(), 2);
        assert_eq!(ctx.store.stat_value("mismatched_sched_switch_tids"), 1);
    }

    #[test]
    fn thread_names_come_from_comms() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        p.sched_switch(&mut ctx, 10, 0, &switch(("init", 1, 0), ("worker", 2)));
        let names: Vec<_> = ctx
            .store
            .threads
            .iter()
            .map(|t| (t.tid, ctx.store.opt_str(t.name).map(str::to_string)))
            .collect();
        assert!(names.contains(&(2, Some("worker".into()))));
        assert!(names.contains(&(1, Some("init".into()))));
    }

    #[test]
    fn end_state_depends_on_kernel_version() {
        for (version, expected) in [(None, "W"), (Some((5, 10)), "R+")] {
            let mut ctx = Ctx::new();
            let mut p = SchedParser::default();
            p.set_kernel_version(version);
            p.sched_switch(&mut ctx, 10, 0, &switch(("a", 1, 0), ("b", 2)));
            p.sched_switch(&mut ctx, 20, 0, &switch(("b", 2, 0x100), ("a", 1)));
            assert_eq!(end_state(&ctx, 0), Some(expected));
        }
    }

    #[test]
    fn first_compact_switch_per_cpu_only_primes_state() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        let e = compact(&mut ctx, 0, 5, "five");
        p.compact_switch(&mut ctx, 100, 2, &e, false);
        assert!(ctx.store.sched.is_empty());
        assert_eq!(ctx.store.stat_value("compact_sched_switch_skipped"), 1);

        let e = compact(&mut ctx, 1, 6, "six");
        p.compact_switch(&mut ctx, 150, 2, &e, false);
        let e = compact(&mut ctx, 2, 7, "seven");
        p.compact_switch(&mut ctx, 180, 2, &e, false);
        assert_eq!(ctx.store.sched.len(), 2);
        assert_eq!((ctx.store.sched[0].ts, ctx.store.sched[0].dur), (150, 30));
        assert_eq!(tid_of(&ctx, 0), 6);
        assert_eq!(end_state(&ctx, 0), Some("D"));
        // Another CPU is primed separately.
        let e = compact(&mut ctx, 0, 8, "eight");
        p.compact_switch(&mut ctx, 190, 3, &e, false);
        assert_eq!(ctx.store.sched.len(), 2);
        assert_eq!(ctx.store.stat_value("compact_sched_switch_skipped"), 2);
    }

    #[test]
    fn raw_only_compact_switch_advances_state_without_slices() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        for (ts, pid) in [(10, 1), (20, 2)] {
            let e = compact(&mut ctx, 0, pid, "t");
            p.compact_switch(&mut ctx, ts, 0, &e, true);
        }
        assert!(ctx.store.sched.is_empty());
        // Primed by the raw-only records: the next switch makes a slice at once.
        let e = compact(&mut ctx, 0, 3, "t");
        p.compact_switch(&mut ctx, 30, 0, &e, false);
        assert_eq!(ctx.store.sched.len(), 1);
        assert_eq!(tid_of(&ctx, 0), 3);
    }

    #[test]
    fn compact_waking_before_any_switch_is_skipped() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        let w = CompactWaking {
            pid: 42,
            target_cpu: 0,
            prio: 120,
            comm: ctx.store.intern("w"),
            common_flags: 0,
        };
        p.compact_waking(&mut ctx, 5, 0, &w, false);
        assert_eq!(ctx.store.stat_value("compact_sched_waking_skipped"), 1);
        assert!(!ctx.store.threads.iter().any(|t| t.tid == 42));
        let e = compact(&mut ctx, 0, 1, "t");
        p.compact_switch(&mut ctx, 6, 0, &e, false);
        p.compact_waking(&mut ctx, 7, 0, &w, false);
        assert!(ctx.store.threads.iter().any(|t| t.tid == 42));
    }

    fn newtask(pid: i64, comm: &str, flags: u64) -> Vec<u8> {
        let mut e = Vec::new();
        int(&mut e, 1, pid);
        bytes(&mut e, 2, comm.as_bytes());
        int(&mut e, 3, flags as i64);
        e
    }

    #[test]
    fn newtask_fork_vs_thread_and_swapper() {
        let mut ctx = Ctx::new();
        ctx.procs.set_pid_zero_is_swapper(&mut ctx.store);
        let mut p = SchedParser::default();
        // init creating the idle task: ignored.
        p.task_newtask(&mut ctx, 1, 1, &newtask(0, "swapper/0", 0x100));
        // A fork: new process 20 whose parent is 10's process.
        ctx.procs.update_thread(&mut ctx.store, 10, 10);
        p.task_newtask(&mut ctx, 5, 10, &newtask(20, "child", 0));
        // A thread of the child.
        p.task_newtask(&mut ctx, 6, 20, &newtask(21, "child-t", CLONE_THREAD));
        let s = &ctx.store;
        assert_eq!(s.opt_str(s.threads[0].name), Some("swapper"));
        assert_eq!(s.threads.iter().filter(|t| t.tid == 0).count(), 1);
        let up = |pid: i64| s.processes.iter().position(|p| p.pid == pid).unwrap() as u32;
        let child = &s.processes[up(20) as usize];
        assert_eq!(child.parent_upid, Some(up(10)));
        assert_eq!(child.start_ts, Some(5));
        assert_eq!(s.opt_str(child.name), Some("child"));
        let t21 = s.threads.iter().find(|t| t.tid == 21).unwrap();
        assert_eq!((t21.upid, t21.is_main_thread), (Some(up(20)), Some(false)));
        assert_eq!(s.opt_str(t21.name), Some("child-t"));
    }

    #[test]
    fn rename_of_main_thread_renames_process() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        ctx.procs.update_thread(&mut ctx.store, 30, 30);
        ctx.procs.update_thread(&mut ctx.store, 31, 30);
        let mut e = Vec::new();
        int(&mut e, 1, 30);
        bytes(&mut e, 3, b"main");
        p.task_rename(&mut ctx, 1, &e);
        let mut e = Vec::new();
        int(&mut e, 1, 31);
        bytes(&mut e, 3, b"worker");
        p.task_rename(&mut ctx, 2, &e);
        let s = &ctx.store;
        let proc30 = s.processes.iter().find(|p| p.pid == 30).unwrap();
        assert_eq!(s.opt_str(proc30.name), Some("main"));
    }

    #[test]
    fn cpu_counter_tracks_named_and_typed() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        let mut e = Vec::new();
        int(&mut e, 1, 500_000);
        int(&mut e, 2, 2_000_000);
        int(&mut e, 3, 6);
        p.cpu_frequency_limits(&mut ctx, 10, &e);
        p.cpu_frequency_limits(&mut ctx, 20, &e);
        let s = &ctx.store;
        let names: Vec<_> = s
            .tracks
            .iter()
            .map(|t| (s.opt_str(t.name).unwrap(), s.str(t.kind)))
            .collect();
        assert_eq!(
            names,
            [
                ("Cpu 6 Max Freq Limit", "cpu_max_frequency_limit"),
                ("Cpu 6 Min Freq Limit", "cpu_min_frequency_limit")
            ]
        );
        assert_eq!(s.counters.len(), 4);
        assert_eq!(
            (s.counters[1].track_id, s.counters[1].value),
            (1, 500_000.0)
        );
    }

    #[test]
    fn kgsl_frequency_is_scaled_to_khz_on_the_gpufreq_track() {
        let mut ctx = Ctx::new();
        let mut p = SchedParser::default();
        let mut generic = Vec::new();
        int(&mut generic, 1, 0);
        int(&mut generic, 2, 585_000);
        p.gpu_frequency(&mut ctx, 1, &generic);
        // kgsl_gpu_frequency {gpu_freq = 585000 / 1000, gpu_id = 0}
        let mut kgsl = Vec::new();
        int(&mut kgsl, 1, 585);
        int(&mut kgsl, 2, 0);
        p.kgsl_gpu_frequency(&mut ctx, 2, &kgsl);
        let c = &ctx.store.counters;
        assert_eq!((c[1].value, c[1].track_id), (585_000.0, c[0].track_id));
        let t = &ctx.store.tracks[c[0].track_id as usize];
        assert_eq!(ctx.store.opt_str(t.name), Some("gpufreq"));
    }
}
