//! ftrace events (trace_processor's ftrace parser): the crop rules that drop data from before
//! tracing started or before every CPU's buffer was valid, then one handler per event type.

pub mod atrace;
pub mod binder;
pub mod clock_events;
pub mod drm;
pub mod irq;
pub mod kernel_slices;
pub mod memory;
pub mod sched;
pub mod task_state;
pub mod thread_state;

use super::Ctx;
use crate::store::{Severity, Store};
use crate::trace::ftrace_ids as fid;
use crate::trace::sort::{CompactSwitch, CompactWaking};
use crate::trace::tokenizer::print_buf;
use crate::trace::wire::{Fields, Value};

/// What every ftrace event carries around its payload.
struct Envelope<'a> {
    pid: Option<u32>,
    /// The payload's field number in FtraceEvent: which event this is.
    id: u32,
    data: &'a [u8],
}

impl<'a> Envelope<'a> {
    /// The pid and the first payload field (None without one); Err on damage. The
    /// tokenizer reads an event's own message by a like rule (`tokenizer::envelope_by_fields`,
    /// with a fixed-tag path for the kernel's layout) that takes the first length-delimited
    /// field whatever its number.
    fn read(bytes: &'a [u8]) -> Result<Option<Envelope<'a>>, ()> {
        let mut pid = None;
        for field in Fields::new(bytes) {
            let (id, v) = field.map_err(|_| ())?;
            match (id, v) {
                (2, _) => pid = Some(v.as_u32()),
                (1, _) | (5, _) => {}
                (id, Value::Bytes(data)) => return Ok(Some(Envelope { pid, id, data })),
                _ => {}
            }
        }
        Ok(None)
    }
}

pub struct FtraceParser {
    pub sched: sched::SchedParser,
    pub atrace: atrace::AtraceParser,
    pub kernel_slices: kernel_slices::KernelSlices,
    pub clocks: clock_events::ClockEvents,
    pub memory: memory::MemoryEvents,
    pub drm: drm::DrmEvents,
    pub irq: irq::IrqEvents,
    pub binder: binder::BinderTracker,
    /// Create the thread that emitted each event, as trace_processor's raw table does
    /// (see `LoadOptions::ftrace_raw`).
    pub raw_threads: bool,
    seen_first_event: bool,
    drop_before: i64,
    /// Events dropped by `drop_before`, added to the stat once at the end: the stats map is
    /// keyed by name, too slow to update for every event of a long pre-start backlog.
    dropped_before_start: i64,
    soft_drop_before: i64,
}

impl FtraceParser {
    pub fn new(ctx: &mut Ctx) -> Self {
        // ftrace traces know pid 0 as the idle process with its "swapper" thread.
        ctx.procs.set_pid_zero_is_swapper(&mut ctx.store);
        FtraceParser {
            sched: sched::SchedParser::default(),
            atrace: atrace::AtraceParser::default(),
            kernel_slices: Default::default(),
            clocks: Default::default(),
            memory: Default::default(),
            drm: Default::default(),
            irq: Default::default(),
            binder: binder::BinderTracker::default(),
            raw_threads: true,
            seen_first_event: false,
            drop_before: 0,
            dropped_before_start: 0,
            soft_drop_before: 0,
        }
    }

    pub fn set_arch(&mut self, machine: &str) {
        self.atrace.set_arch(machine);
    }

    /// From SystemInfo.utsname: sched_switch prev_state decoding depends on it.
    pub fn set_kernel_version(&mut self, sysname: &str, release: &str) {
        self.sched
            .set_kernel_version(task_state::parse_kernel_version(sysname, release));
    }

    /// On the first ftrace event: events before `tracing_started` are dropped, and events
    /// before the latest per-CPU buffer start are "soft" dropped (they only feed raw tables,
    /// which frameprobe does not keep).
    fn on_first_event(&mut self, store: &Store) {
        if self.seen_first_event {
            return;
        }
        self.seen_first_event = true;
        self.drop_before = store.metadata_int("tracing_started_ns").unwrap_or(0);
        let soft = store
            .metadata_int("ftrace_latest_data_start_ns")
            .unwrap_or(0);
        self.soft_drop_before = soft.max(self.drop_before);
    }

    /// Whether an event at `ts` is dropped for being from before tracing started.
    fn before_start(&mut self, store: &Store, ts: i64) -> bool {
        self.on_first_event(store);
        let before = ts < self.drop_before;
        self.dropped_before_start += before as i64;
        before
    }

    /// Whether event `id` of thread `pid` goes on to its handler: the raw table's rows are
    /// counted (and their threads made) first, even in the soft-drop window.
    fn past_soft_drop(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, id: u32) -> bool {
        // trace_processor's raw table records every event but sched_switch with the thread
        // that emitted it, creating that thread even in the soft-drop window.
        if self.raw_threads {
            ctx.store.see_ftrace_event(ts);
            if id != fid::SCHED_SWITCH {
                ctx.procs.get_or_create_thread(&mut ctx.store, pid);
            }
        }
        ts >= self.soft_drop_before
    }

    pub fn event(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, bytes: &[u8]) {
        if self.before_start(&ctx.store, ts) {
            return;
        }
        let Ok(envelope) = Envelope::read(bytes) else {
            ctx.store.stat(
                "ftrace_bundle_tokenizer_errors",
                Severity::DataLoss,
                "An ftrace bundle was malformed; the events after the damage were dropped.",
            );
            return;
        };
        let Some(Envelope { pid, id, data }) = envelope else {
            return;
        };
        let Some(pid) = pid else {
            ctx.store.stat(
                "ftrace_missing_pid",
                Severity::DataLoss,
                "An ftrace event without a pid was dropped.",
            );
            return;
        };
        let pid = pid as i64;
        if !self.past_soft_drop(ctx, ts, pid, id) {
            return;
        }
        match id {
            fid::SCHED_SWITCH => self.sched.sched_switch(ctx, ts, cpu, data),
            fid::SCHED_WAKING => self.sched.sched_waking(ctx, ts, pid, data),
            fid::SCHED_WAKEUP => self.sched.sched_wakeup(ctx, ts, pid, data),
            fid::SCHED_WAKEUP_NEW => self.sched.sched_wakeup_new(ctx, ts, pid, data),
            fid::SCHED_BLOCKED_REASON => self.sched.sched_blocked_reason(ctx, data, bytes),
            fid::SCHED_PROCESS_FREE => self.sched.sched_process_free(ctx, ts, data),
            fid::SCHED_PROCESS_EXIT => self.sched.sched_process_exit(ctx, ts, pid, data),
            fid::TASK_NEWTASK => self.sched.task_newtask(ctx, ts, pid, data),
            fid::TASK_RENAME => self.sched.task_rename(ctx, ts, data),
            fid::LOWMEMORY_KILL => self.sched.lowmemory_kill(ctx, ts, data),
            fid::CPU_FREQUENCY => self.sched.cpu_frequency(ctx, ts, data),
            fid::CPU_FREQUENCY_LIMITS => self.sched.cpu_frequency_limits(ctx, ts, data),
            fid::CPU_IDLE => self.sched.cpu_idle(ctx, ts, data),
            fid::GPU_FREQUENCY => self.sched.gpu_frequency(ctx, ts, data),
            fid::SCHED_CPU_UTIL_CFS => self.sched.sched_cpu_util_cfs(ctx, ts, data),
            fid::PRINT => self.atrace.print(ctx, ts, pid, print_buf(data)),
            fid::TRACING_MARK_WRITE
            | fid::SDE_TRACING_MARK_WRITE
            | fid::DPU_TRACING_MARK_WRITE
            | fid::G2D_TRACING_MARK_WRITE
            | fid::MALI_TRACING_MARK_WRITE
            | fid::SAMSUNG_TRACING_MARK_WRITE
            | fid::LWIS_TRACING_MARK_WRITE
            | fid::PANEL_WRITE_GENERIC => self.atrace.kernel_mark_write(ctx, ts, pid, id, data),
            fid::ZERO => self.atrace.zero(ctx, ts, pid, data),
            fid::SYS_ENTER => self.atrace.sys_enter(ctx, ts, pid, data),
            fid::SYS_EXIT => self.atrace.sys_exit(ctx, ts, pid, data),
            fid::BINDER_TRANSACTION => self.binder.transaction(ctx, ts, pid as u32, data),
            fid::BINDER_TRANSACTION_RECEIVED => {
                self.binder.transaction_received(ctx, ts, pid as u32, data)
            }
            fid::BINDER_TRANSACTION_ALLOC_BUF => {
                self.binder.transaction_alloc_buf(ctx, pid as u32, data)
            }
            fid::BINDER_COMMAND => self.binder.command(ctx, pid as u32, data),
            fid::BINDER_RETURN => self.binder.return_cmd(ctx, ts, pid as u32, data),
            fid::BINDER_LOCK => self.binder.lock(ctx, ts, pid as u32),
            fid::BINDER_LOCKED => self.binder.locked(ctx, ts, pid as u32),
            fid::BINDER_UNLOCK => self.binder.unlock(ctx, ts, pid as u32),
            _ => self.kernel_event(ctx, ts, cpu, pid, id, data),
        }
    }

    /// A print event queued as its pid and PrintFtraceEvent
    /// ([`crate::trace::sort::Sorter::push_print`]): the same path as [`FtraceParser::event`]
    /// without the envelope.
    pub fn print(&mut self, ctx: &mut Ctx, ts: i64, pid: u32, print: &[u8]) {
        let pid = pid as i64;
        if self.print_admitted(ctx, ts, pid) {
            self.atrace.print(ctx, ts, pid, print_buf(print));
        }
    }

    /// A print event whose atrace record the loading thread has read already
    /// ([`atrace::read_print`]): the same path as [`FtraceParser::event`] without reading.
    pub fn atrace_print(&mut self, ctx: &mut Ctx, ts: i64, pid: u32, rec: atrace::Record<'_>) {
        let pid = pid as i64;
        if self.print_admitted(ctx, ts, pid) {
            self.atrace
                .print_record(ctx, ts, pid, atrace::Parsed::Record(rec));
        }
    }

    /// A print's begin or counter read on the loading thread, its name interned there.
    pub fn atrace_named(&mut self, ctx: &mut Ctx, ts: i64, pid: u32, rec: atrace::Named) {
        let pid = pid as i64;
        if self.print_admitted(ctx, ts, pid) {
            self.atrace.print_named(ctx, ts, pid, rec);
        }
    }

    /// Whether a print read outside [`FtraceParser::event`] passes the checks that every
    /// event there does (trace start, soft drop).
    fn print_admitted(&mut self, ctx: &mut Ctx, ts: i64, pid: i64) -> bool {
        !self.before_start(&ctx.store, ts) && self.past_soft_drop(ctx, ts, pid, fid::PRINT)
    }

    /// Kernel slices, clock and memory counters, fences (one module each).
    fn kernel_event(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, pid: i64, id: u32, data: &[u8]) {
        use kernel_slices::Reclaim;
        let k = &mut self.kernel_slices;
        match id {
            fid::SCM_CALL_START => k.scm_call_start(ctx, ts, pid, data),
            fid::SCM_CALL_END => k.scm_call_end(ctx, ts, pid),
            fid::MM_VMSCAN_DIRECT_RECLAIM_BEGIN => {
                k.reclaim_begin(ctx, ts, pid, Reclaim::Direct, data)
            }
            fid::MM_VMSCAN_DIRECT_RECLAIM_END => k.reclaim_end(ctx, ts, pid, Reclaim::Direct, data),
            fid::MM_VMSCAN_MEMCG_RECLAIM_BEGIN => {
                k.reclaim_begin(ctx, ts, pid, Reclaim::Memcg, data)
            }
            fid::MM_VMSCAN_MEMCG_RECLAIM_END => k.reclaim_end(ctx, ts, pid, Reclaim::Memcg, data),
            fid::SIGNAL_GENERATE => k.signal_generate(ctx, ts, data),
            fid::SIGNAL_DELIVER => k.signal_deliver(ctx, ts, pid, data),
            fid::MARK_VICTIM => k.mark_victim(ctx, ts, data),
            fid::CLOCK_SET_RATE => self.clocks.clock_set_rate(ctx, ts, data),
            fid::CLOCK_ENABLE | fid::CLOCK_DISABLE => {
                self.clocks.clock_enable_or_disable(ctx, ts, data)
            }
            fid::DEVFREQ_FREQUENCY => self.clocks.devfreq_frequency(ctx, ts, data),
            fid::DCVSH_FREQ => self.clocks.dcvsh_freq(ctx, ts, data),
            fid::KGSL_GPU_FREQUENCY => self.sched.kgsl_gpu_frequency(ctx, ts, data),
            fid::MALI_GPU_POWER_STATE => self.clocks.mali_gpu_power_state(ctx, ts, data),
            fid::IRQ_HANDLER_ENTRY => self.irq.irq_entry(ctx, ts, cpu, data),
            fid::IRQ_HANDLER_EXIT => self.irq.irq_exit(ctx, ts, cpu, data),
            fid::SOFTIRQ_ENTRY => self.irq.softirq_entry(ctx, ts, cpu, data),
            fid::SOFTIRQ_EXIT => self.irq.softirq_exit(ctx, ts, cpu, data),
            fid::RSS_STAT | fid::RSS_STAT_THROTTLED => self.memory.rss_stat(ctx, ts, pid, id, data),
            fid::DMABUF_RSS_STAT => self.memory.dmabuf_rss_stat(ctx, ts, pid, data),
            fid::OOM_SCORE_ADJ_UPDATE => self.memory.oom_score_adj_update(ctx, ts, data),
            fid::MM_EVENT_RECORD => self.memory.mm_event_record(ctx, ts, pid, data),
            fid::ION_HEAP_GROW => self.memory.ion_heap_change(ctx, ts, pid, true, data),
            fid::ION_HEAP_SHRINK => self.memory.ion_heap_change(ctx, ts, pid, false, data),
            fid::ION_STAT => self.memory.ion_stat(ctx, ts, pid, data),
            fid::DMA_HEAP_STAT => self.memory.dma_heap_stat(ctx, ts, pid, data),
            fid::DMA_FENCE_INIT => self.drm.fence_init(ctx, ts, data),
            fid::DMA_FENCE_EMIT => self.drm.fence_emit(ctx, ts, data),
            fid::DMA_FENCE_SIGNALED => self.drm.fence_signaled(ctx, ts, data),
            fid::DMA_FENCE_WAIT_START => self.drm.fence_wait_start(ctx, ts, pid, data),
            fid::DMA_FENCE_WAIT_END => self.drm.fence_wait_end(ctx, ts, pid),
            fid::DRM_VBLANK_EVENT => self.drm.vblank(ctx, ts, false, data),
            fid::DRM_VBLANK_EVENT_DELIVERED => self.drm.vblank(ctx, ts, true, data),
            _ => {}
        }
    }

    /// Crop rules for compact_sched records: dropped before tracing started; in the
    /// soft-drop window they still advance the per-CPU switch state ("raw only").
    /// Returns `None` when dropped, else whether the record is raw-only.
    fn compact_crop(&mut self, store: &mut Store, ts: i64) -> Option<bool> {
        self.on_first_event(store);
        if ts < self.drop_before {
            self.dropped_before_start += 1;
            return None;
        }
        // Every kept record is a row of the raw table (when it is on).
        if self.raw_threads {
            store.see_ftrace_event(ts);
        }
        Some(ts < self.soft_drop_before)
    }

    pub fn compact_switch(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, e: &CompactSwitch) {
        if let Some(raw_only) = self.compact_crop(&mut ctx.store, ts) {
            self.sched.compact_switch(ctx, ts, cpu, e, raw_only);
        }
    }

    pub fn compact_waking(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, e: &CompactWaking) {
        if let Some(raw_only) = self.compact_crop(&mut ctx.store, ts) {
            self.sched.compact_waking(ctx, ts, cpu, e, raw_only);
        }
    }

    pub fn finish(&mut self, ctx: &mut Ctx) {
        if self.dropped_before_start > 0 {
            ctx.store.stat_add(
                "ftrace_packet_before_tracing_start",
                -1,
                Severity::Info,
                "ftrace events from before tracing started were dropped.",
                std::mem::take(&mut self.dropped_before_start),
            );
        }
        self.sched.finish(ctx);
        self.atrace.finish(ctx);
        self.memory.finish(ctx);
        self.binder.finish(ctx);
    }
}
