//! Scheduling and process-lifecycle ftrace events: sched_switch (regular and compact),
//! sched_waking, task_newtask / task_rename, sched_process_free / exit, and the kernel
//! counters (cpu_frequency, cpu_frequency_limits, sched_cpu_util_cfs, ...).

use crate::import::Ctx;
use crate::trace::sort::{CompactSwitch, CompactWaking};

#[derive(Default)]
pub struct SchedParser {}

impl SchedParser {
    pub fn sched_switch(&mut self, _ctx: &mut Ctx, _ts: i64, _cpu: u32, _data: &[u8]) {}
    pub fn compact_switch(&mut self, _ctx: &mut Ctx, _ts: i64, _cpu: u32, _e: &CompactSwitch) {}
    pub fn compact_waking(&mut self, _ctx: &mut Ctx, _ts: i64, _cpu: u32, _e: &CompactWaking) {}
    pub fn sched_waking(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn sched_wakeup(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn sched_wakeup_new(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn sched_process_free(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn sched_process_exit(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn task_newtask(&mut self, _ctx: &mut Ctx, _ts: i64, _pid: i64, _data: &[u8]) {}
    pub fn task_rename(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn lowmemory_kill(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn cpu_frequency(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn cpu_frequency_limits(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn cpu_idle(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn gpu_frequency(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn sched_cpu_util_cfs(&mut self, _ctx: &mut Ctx, _ts: i64, _data: &[u8]) {}
    pub fn finish(&mut self, _ctx: &mut Ctx) {}
}
