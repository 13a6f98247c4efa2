//! ftrace events (trace_processor's ftrace parser): the crop rules that drop data from before
//! tracing started or before every CPU's buffer was valid, then one handler per event type.

pub mod atrace;
pub mod sched;
pub mod task_state;
pub mod thread_state;

use super::Ctx;
use crate::store::{Severity, Store};
use crate::trace::ftrace_ids as fid;
use crate::trace::sort::{CompactSwitch, CompactWaking};
use crate::trace::wire::{Fields, Value};

pub struct FtraceParser {
    pub sched: sched::SchedParser,
    pub atrace: atrace::AtraceParser,
    seen_first_event: bool,
    drop_before: i64,
    soft_drop_before: i64,
}

impl FtraceParser {
    pub fn new(ctx: &mut Ctx) -> Self {
        // ftrace traces know pid 0 as the idle process with its "swapper" thread.
        ctx.procs.set_pid_zero_is_swapper(&mut ctx.store);
        FtraceParser {
            sched: sched::SchedParser::default(),
            atrace: atrace::AtraceParser::default(),
            seen_first_event: false,
            drop_before: 0,
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

    pub fn event(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, bytes: &[u8]) {
        self.on_first_event(&ctx.store);
        if ts < self.drop_before {
            ctx.store.stat(
                "ftrace_packet_before_tracing_start",
                Severity::Info,
                "ftrace events from before tracing started were dropped.",
            );
            return;
        }
        let mut pid = None;
        let mut payload = None;
        for field in Fields::new(bytes) {
            let Ok((id, v)) = field else {
                ctx.store.stat(
                    "ftrace_bundle_tokenizer_errors",
                    Severity::DataLoss,
                    "An ftrace bundle was malformed; the events after the damage were dropped.",
                );
                return;
            };
            match (id, v) {
                (2, _) => pid = Some(v.as_u32()),
                (1, _) | (5, _) => {}
                (id, Value::Bytes(b)) => {
                    payload = Some((id, b));
                    break;
                }
                _ => {}
            }
        }
        let Some((id, data)) = payload else { return };
        let Some(pid) = pid else {
            ctx.store.stat(
                "ftrace_missing_pid",
                Severity::DataLoss,
                "An ftrace event without a pid was dropped.",
            );
            return;
        };
        let pid = pid as i64;
        // trace_processor's raw table records every event but sched_switch with the thread
        // that emitted it, creating that thread even in the soft-drop window.
        if id != fid::SCHED_SWITCH {
            ctx.procs.get_or_create_thread(&mut ctx.store, pid);
        }
        if ts < self.soft_drop_before {
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
            fid::PRINT => self.atrace.print(ctx, ts, pid, data),
            fid::TRACING_MARK_WRITE
            | fid::SDE_TRACING_MARK_WRITE
            | fid::DPU_TRACING_MARK_WRITE
            | fid::G2D_TRACING_MARK_WRITE
            | fid::MALI_TRACING_MARK_WRITE => self.atrace.kernel_mark_write(ctx, ts, pid, id, data),
            fid::SYS_ENTER => self.atrace.sys_enter(ctx, ts, pid, data),
            fid::SYS_EXIT => self.atrace.sys_exit(ctx, ts, pid, data),
            _ => {}
        }
    }

    /// Crop rules for compact_sched records: dropped before tracing started; in the
    /// soft-drop window they still advance the per-CPU switch state ("raw only").
    /// Returns `None` when dropped, else whether the record is raw-only.
    fn compact_crop(&mut self, store: &mut Store, ts: i64) -> Option<bool> {
        self.on_first_event(store);
        if ts >= self.soft_drop_before {
            return Some(false);
        }
        if ts < self.drop_before {
            store.stat(
                "ftrace_packet_before_tracing_start",
                Severity::Info,
                "ftrace events from before tracing started were dropped.",
            );
            return None;
        }
        Some(true)
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
        self.sched.finish(ctx);
        self.atrace.finish(ctx);
    }
}
