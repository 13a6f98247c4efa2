//! SysStats packets (trace_processor's system probes parser): the periodic polls of
//! /proc/meminfo, /proc/vmstat, /proc/stat, devfreq, cpufreq, buddyinfo, diskstats, PSI,
//! thermal zones, cpuidle residency, GPU frequency and slabinfo, each a counter sample at the
//! packet's timestamp. Every repeated field is read in turn (all meminfo, then all devfreq,
//! ...), as trace_processor does, since that order decides track ids.

use rustc_hash::FxHashMap;

use super::android_props::push_counter;
use super::counter_tracks::{
    clock_frequency_track, cpu_frequency_track, gpu_frequency_track, named_counter,
};
use super::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::tracks::DimValue;
use crate::store::{Severity, TrackScope};
use crate::trace::wire::{repeated, slots, Value};

/// SysStats field numbers, in the order trace_processor reads them.
const MEMINFO: u32 = 1;
const DEVFREQ: u32 = 10;
const CPUFREQ_KHZ: u32 = 11;
const VMSTAT: u32 = 2;
const CPU_STAT: u32 = 3;
const NUM_IRQ: u32 = 6;
const NUM_SOFTIRQ: u32 = 8;
const NUM_FORKS: u32 = 4;
const NUM_IRQ_TOTAL: u32 = 5;
const NUM_SOFTIRQ_TOTAL: u32 = 7;
const BUDDY_INFO: u32 = 12;
const DISK_STAT: u32 = 13;
const PSI: u32 = 14;
const THERMAL_ZONE: u32 = 15;
const CPUIDLE_STATE: u32 = 16;
const GPUFREQ_MHZ: u32 = 17;
const SLAB_INFO: u32 = 18;

/// /proc/meminfo names by `MeminfoCounters` value.
const MEMINFO_NAMES: [&str; 39] = [
    "MemUnspecified",
    "MemTotal",
    "MemFree",
    "MemAvailable",
    "Buffers",
    "Cached",
    "SwapCached",
    "Active",
    "Inactive",
    "Active(anon)",
    "Inactive(anon)",
    "Active(file)",
    "Inactive(file)",
    "Unevictable",
    "Mlocked",
    "SwapTotal",
    "SwapFree",
    "Dirty",
    "Writeback",
    "AnonPages",
    "Mapped",
    "Shmem",
    "Slab",
    "SReclaimable",
    "SUnreclaim",
    "KernelStack",
    "PageTables",
    "CommitLimit",
    "Committed_AS",
    "VmallocTotal",
    "VmallocUsed",
    "VmallocChunk",
    "CmaTotal",
    "CmaFree",
    "Gpu",
    "Zram",
    "Misc",
    "ION_heap",
    "ION_heap_pool",
];

/// /proc/vmstat names by `VmstatCounters` value.
const VMSTAT_NAMES: [&str; 189] = [
    "VmstatUnspecified",
    "nr_free_pages",
    "nr_alloc_batch",
    "nr_inactive_anon",
    "nr_active_anon",
    "nr_inactive_file",
    "nr_active_file",
    "nr_unevictable",
    "nr_mlock",
    "nr_anon_pages",
    "nr_mapped",
    "nr_file_pages",
    "nr_dirty",
    "nr_writeback",
    "nr_slab_reclaimable",
    "nr_slab_unreclaimable",
    "nr_page_table_pages",
    "nr_kernel_stack",
    "nr_overhead",
    "nr_unstable",
    "nr_bounce",
    "nr_vmscan_write",
    "nr_vmscan_immediate_reclaim",
    "nr_writeback_temp",
    "nr_isolated_anon",
    "nr_isolated_file",
    "nr_shmem",
    "nr_dirtied",
    "nr_written",
    "nr_pages_scanned",
    "workingset_refault",
    "workingset_activate",
    "workingset_nodereclaim",
    "nr_anon_transparent_hugepages",
    "nr_free_cma",
    "nr_swapcache",
    "nr_dirty_threshold",
    "nr_dirty_background_threshold",
    "pgpgin",
    "pgpgout",
    "pgpgoutclean",
    "pswpin",
    "pswpout",
    "pgalloc_dma",
    "pgalloc_normal",
    "pgalloc_movable",
    "pgfree",
    "pgactivate",
    "pgdeactivate",
    "pgfault",
    "pgmajfault",
    "pgrefill_dma",
    "pgrefill_normal",
    "pgrefill_movable",
    "pgsteal_kswapd_dma",
    "pgsteal_kswapd_normal",
    "pgsteal_kswapd_movable",
    "pgsteal_direct_dma",
    "pgsteal_direct_normal",
    "pgsteal_direct_movable",
    "pgscan_kswapd_dma",
    "pgscan_kswapd_normal",
    "pgscan_kswapd_movable",
    "pgscan_direct_dma",
    "pgscan_direct_normal",
    "pgscan_direct_movable",
    "pgscan_direct_throttle",
    "pginodesteal",
    "slabs_scanned",
    "kswapd_inodesteal",
    "kswapd_low_wmark_hit_quickly",
    "kswapd_high_wmark_hit_quickly",
    "pageoutrun",
    "allocstall",
    "pgrotated",
    "drop_pagecache",
    "drop_slab",
    "pgmigrate_success",
    "pgmigrate_fail",
    "compact_migrate_scanned",
    "compact_free_scanned",
    "compact_isolated",
    "compact_stall",
    "compact_fail",
    "compact_success",
    "compact_daemon_wake",
    "unevictable_pgs_culled",
    "unevictable_pgs_scanned",
    "unevictable_pgs_rescued",
    "unevictable_pgs_mlocked",
    "unevictable_pgs_munlocked",
    "unevictable_pgs_cleared",
    "unevictable_pgs_stranded",
    "nr_zspages",
    "nr_ion_heap",
    "nr_gpu_heap",
    "allocstall_dma",
    "allocstall_movable",
    "allocstall_normal",
    "compact_daemon_free_scanned",
    "compact_daemon_migrate_scanned",
    "nr_fastrpc",
    "nr_indirectly_reclaimable",
    "nr_ion_heap_pool",
    "nr_kernel_misc_reclaimable",
    "nr_shadow_call_stack_bytes",
    "nr_shmem_hugepages",
    "nr_shmem_pmdmapped",
    "nr_unreclaimable_pages",
    "nr_zone_active_anon",
    "nr_zone_active_file",
    "nr_zone_inactive_anon",
    "nr_zone_inactive_file",
    "nr_zone_unevictable",
    "nr_zone_write_pending",
    "oom_kill",
    "pglazyfree",
    "pglazyfreed",
    "pgrefill",
    "pgscan_direct",
    "pgscan_kswapd",
    "pgskip_dma",
    "pgskip_movable",
    "pgskip_normal",
    "pgsteal_direct",
    "pgsteal_kswapd",
    "swap_ra",
    "swap_ra_hit",
    "workingset_restore",
    "allocstall_device",
    "allocstall_dma32",
    "balloon_deflate",
    "balloon_inflate",
    "balloon_migrate",
    "cma_alloc_fail",
    "cma_alloc_success",
    "nr_file_hugepages",
    "nr_file_pmdmapped",
    "nr_foll_pin_acquired",
    "nr_foll_pin_released",
    "nr_sec_page_table_pages",
    "nr_shadow_call_stack",
    "nr_swapcached",
    "nr_throttled_written",
    "pgalloc_device",
    "pgalloc_dma32",
    "pgdemote_direct",
    "pgdemote_kswapd",
    "pgreuse",
    "pgscan_anon",
    "pgscan_file",
    "pgskip_device",
    "pgskip_dma32",
    "pgsteal_anon",
    "pgsteal_file",
    "thp_collapse_alloc",
    "thp_collapse_alloc_failed",
    "thp_deferred_split_page",
    "thp_fault_alloc",
    "thp_fault_fallback",
    "thp_fault_fallback_charge",
    "thp_file_alloc",
    "thp_file_fallback",
    "thp_file_fallback_charge",
    "thp_file_mapped",
    "thp_migration_fail",
    "thp_migration_split",
    "thp_migration_success",
    "thp_scan_exceed_none_pte",
    "thp_scan_exceed_share_pte",
    "thp_scan_exceed_swap_pte",
    "thp_split_page",
    "thp_split_page_failed",
    "thp_split_pmd",
    "thp_swpout",
    "thp_swpout_fallback",
    "thp_zero_page_alloc",
    "thp_zero_page_alloc_failed",
    "vma_lock_abort",
    "vma_lock_miss",
    "vma_lock_retry",
    "vma_lock_success",
    "workingset_activate_anon",
    "workingset_activate_file",
    "workingset_nodes",
    "workingset_refault_anon",
    "workingset_refault_file",
    "workingset_restore_anon",
    "workingset_restore_file",
];

/// CpuTimes fields: (field number, key, track name).
const CPU_TIMES: [(usize, &str, &str); 8] = [
    (2, "user_ns", "cpu.times.user_ns"),
    (3, "user_nice_ns", "cpu.times.user_nice_ns"),
    (4, "system_mode_ns", "cpu.times.system_mode_ns"),
    (5, "idle_ns", "cpu.times.idle_ns"),
    (6, "io_wait_ns", "cpu.times.io_wait_ns"),
    (7, "irq_ns", "cpu.times.irq_ns"),
    (8, "softirq_ns", "cpu.times.softirq_ns"),
    (9, "steal_ns", "cpu.times.steal_ns"),
];

/// PSI resources by `PsiSample.PsiResource` value: (key, track name).
const PSI_RESOURCES: [(&str, &str); 7] = [
    ("resource.unspecified", "psi.resource.unspecified"),
    ("cpu.some", "psi.cpu.some"),
    ("cpu.full", "psi.cpu.full"),
    ("io.some", "psi.io.some"),
    ("io.full", "psi.io.full"),
    ("mem.some", "psi.mem.some"),
    ("mem.full", "psi.mem.full"),
];

/// The previous /proc/diskstats sample of a device (throughput needs two).
#[derive(Clone, Copy)]
struct DiskSample {
    read_sectors: i64,
    write_sectors: i64,
    discard_sectors: i64,
    flush_count: i64,
    read_time_ms: i64,
    write_time_ms: i64,
    discard_time_ms: i64,
    flush_time_ms: i64,
}

#[derive(Default)]
pub struct SysStatsImporter {
    /// From SystemInfo; 0 until it arrives (buddyinfo chunk sizes read 0 before it).
    page_size: u32,
    disks: FxHashMap<StrId, DiskSample>,
}

/// A varint field as the uint64 it is, or 0 when absent.
fn u64_of(v: Option<Value<'_>>) -> u64 {
    v.map_or(0, |v| v.as_u64())
}

impl SysStatsImporter {
    /// SystemInfo's page size; an absent or zero one means 4096.
    pub fn set_page_size(&mut self, page_size: Option<u32>) {
        self.page_size = page_size.filter(|&p| p != 0).unwrap_or(4096);
    }

    pub fn sys_stats(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        for v in repeated(data, MEMINFO) {
            let [_, key, value] = slots::<3>(v.as_bytes());
            let Some(&name) = MEMINFO_NAMES.get(u64_of(key) as usize) else {
                ctx.store.stat(
                    "meminfo_unknown_keys",
                    Severity::Error,
                    "A sys_stats meminfo key frameprobe does not know was ignored.",
                );
                continue;
            };
            let dims = [("meminfo_key", DimValue::Str(name))];
            let t = named_counter(
                ctx,
                "meminfo",
                TrackScope::Global,
                name,
                &dims,
                Some("bytes"),
            );
            // /proc/meminfo is in kB.
            push_counter(&mut ctx.store, ts, t, u64_of(value) as f64 * 1024.0, None);
        }
        for v in repeated(data, DEVFREQ) {
            let [_, key, value] = slots::<3>(v.as_bytes());
            let device = key.map_or_else(Default::default, |k| k.as_string_lossy());
            let t = clock_frequency_track(ctx, &device);
            push_counter(&mut ctx.store, ts, t, u64_of(value) as f64, None);
        }
        for (cpu, v) in repeated(data, CPUFREQ_KHZ).enumerate() {
            let t = cpu_frequency_track(ctx, cpu as u32);
            push_counter(&mut ctx.store, ts, t, v.as_u32() as f64, None);
        }
        for v in repeated(data, VMSTAT) {
            let [_, key, value] = slots::<3>(v.as_bytes());
            let Some(&name) = VMSTAT_NAMES.get(u64_of(key) as usize) else {
                ctx.store.stat(
                    "vmstat_unknown_keys",
                    Severity::Error,
                    "A sys_stats vmstat key frameprobe does not know was ignored.",
                );
                continue;
            };
            let dims = [("vmstat_key", DimValue::Str(name))];
            let t = named_counter(ctx, "vmstat", TrackScope::Global, name, &dims, None);
            push_counter(&mut ctx.store, ts, t, u64_of(value) as f64, None);
        }
        for v in repeated(data, CPU_STAT) {
            cpu_times(ctx, ts, v.as_bytes());
        }
        interrupt_counts(ctx, ts, data, NUM_IRQ, "num_irq");
        interrupt_counts(ctx, ts, data, NUM_SOFTIRQ, "num_softirq");
        let top = slots::<8>(data);
        for (field, name) in [
            (NUM_FORKS, "num_forks"),
            (NUM_IRQ_TOTAL, "num_irq_total"),
            (NUM_SOFTIRQ_TOTAL, "num_softirq_total"),
        ] {
            if let Some(v) = top[field as usize] {
                let t = named_counter(ctx, name, TrackScope::Global, name, &[], None);
                push_counter(&mut ctx.store, ts, t, v.as_u64() as f64, None);
            }
        }
        for v in repeated(data, BUDDY_INFO) {
            self.buddy_info(ctx, ts, v.as_bytes());
        }
        for v in repeated(data, DISK_STAT) {
            self.disk_stat(ctx, ts, v.as_bytes());
        }
        for v in repeated(data, PSI) {
            let [_, resource, total_ns] = slots::<3>(v.as_bytes());
            let Some(&(key, name)) = PSI_RESOURCES.get(u64_of(resource) as usize) else {
                ctx.store.stat(
                    "psi_unknown_resource",
                    Severity::Error,
                    "A sys_stats PSI resource frameprobe does not know ended the packet's import.",
                );
                // trace_processor abandons the rest of the packet here, not just the sample.
                return;
            };
            let dims = [("psi_resource", DimValue::Str(key))];
            let t = named_counter(ctx, "psi", TrackScope::Global, name, &dims, None);
            push_counter(&mut ctx.store, ts, t, u64_of(total_ns) as f64, None);
        }
        for v in repeated(data, THERMAL_ZONE) {
            let [_, _, temp, kind] = slots::<4>(v.as_bytes());
            let zone = kind.map_or_else(Default::default, |k| k.as_string_lossy());
            let dims = [("thermal_zone", DimValue::Str(&zone))];
            let scope = TrackScope::Global;
            let t = named_counter(
                ctx,
                "thermal_temperature_sys",
                scope,
                &zone,
                &dims,
                Some("C"),
            );
            push_counter(&mut ctx.store, ts, t, u64_of(temp) as f64, None);
        }
        for v in repeated(data, CPUIDLE_STATE) {
            cpuidle_state(ctx, ts, v.as_bytes());
        }
        for v in repeated(data, GPUFREQ_MHZ) {
            // Always GPU 0, and labelled kHz like the ftrace event although it is MHz.
            let t = gpu_frequency_track(ctx, 0);
            push_counter(&mut ctx.store, ts, t, v.as_u64() as f64, None);
        }
        for v in repeated(data, SLAB_INFO) {
            self.slab_info(ctx, ts, v.as_bytes());
        }
    }

    /// /proc/buddyinfo: free chunks of each order of a zone, one track per chunk size.
    fn buddy_info(&self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let [_, node, zone] = slots::<3>(data);
        let node = node.map_or_else(Default::default, |v| v.as_string_lossy());
        let zone = zone.map_or_else(Default::default, |v| v.as_string_lossy());
        for (order, pages) in repeated(data, 3).enumerate() {
            // 32-bit unsigned arithmetic, as trace_processor computes it.
            let chunk_kb = 1u32
                .checked_shl(order as u32)
                .unwrap_or(0)
                .wrapping_mul(self.page_size)
                / 1024;
            let name = format!("mem.buddyinfo[{node}][{zone}][{chunk_kb} kB]");
            let dims = [
                ("buddyinfo_node", DimValue::Str(&node)),
                ("buddyinfo_zone", DimValue::Str(&zone)),
                ("buddyinfo_chunk_size_kb", DimValue::Int(chunk_kb as i64)),
            ];
            let t = named_counter(ctx, "buddyinfo", TrackScope::Global, &name, &dims, None);
            push_counter(&mut ctx.store, ts, t, pages.as_u32() as f64, None);
        }
    }

    /// /proc/diskstats: amounts and throughputs since the device's previous sample (the first
    /// sample of a device only primes it).
    fn disk_stat(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let f = slots::<10>(data);
        let n = |i: usize| u64_of(f[i]) as i64;
        let cur = DiskSample {
            read_sectors: n(2),
            read_time_ms: n(3),
            write_sectors: n(4),
            write_time_ms: n(5),
            discard_sectors: n(6),
            discard_time_ms: n(7),
            flush_count: n(8),
            flush_time_ms: n(9),
        };
        let device = f[1].map_or_else(Default::default, |v| v.as_string_lossy());
        let device_id = ctx.store.intern(&device);
        let Some(prev) = self.disks.insert(device_id, cur) else {
            return;
        };
        // /proc/diskstats counts 512-byte sectors.
        const SECTORS_PER_MB: f64 = 2048.0;
        let mb = |c: i64, p: i64| c.wrapping_sub(p) as f64 / SECTORS_PER_MB;
        let per_s = |amount: f64, c: i64, p: i64| {
            let ms = c.wrapping_sub(p);
            if ms == 0 {
                0.0
            } else {
                amount * 1000.0 / ms as f64
            }
        };
        let read = mb(cur.read_sectors, prev.read_sectors);
        let write = mb(cur.write_sectors, prev.write_sectors);
        let discard = mb(cur.discard_sectors, prev.discard_sectors);
        let samples = [
            ("read_amount", "MB", read),
            (
                "read_throughput",
                "MB/s",
                per_s(read, cur.read_time_ms, prev.read_time_ms),
            ),
            ("write_amount", "MB", write),
            (
                "write_throughput",
                "MB/s",
                per_s(write, cur.write_time_ms, prev.write_time_ms),
            ),
            ("discard_amount", "MB", discard),
            (
                "discard_throughput",
                "MB/s",
                per_s(discard, cur.discard_time_ms, prev.discard_time_ms),
            ),
            (
                "flush_amount",
                "count",
                cur.flush_count.wrapping_sub(prev.flush_count) as f64,
            ),
            (
                "flush_time",
                "ms",
                cur.flush_time_ms.wrapping_sub(prev.flush_time_ms) as f64,
            ),
        ];
        for (counter, unit, value) in samples {
            let name = format!("diskstat.[{device}].{counter}");
            let dims = [
                ("device_name", DimValue::Str(&device)),
                ("counter_name", DimValue::Str(counter)),
            ];
            let t = named_counter(
                ctx,
                "diskstat",
                TrackScope::Global,
                &name,
                &dims,
                Some(unit),
            );
            push_counter(&mut ctx.store, ts, t, value, None);
        }
    }

    /// /proc/slabinfo: bytes held by a slab cache, with its page and slab counts as args.
    fn slab_info(&self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let [_, name, pages_per_slab, num_slabs] = slots::<4>(data);
        let slab = name.map_or_else(Default::default, |v| v.as_string_lossy());
        let (pages, slabs) = (
            pages_per_slab.map_or(0, |v| v.as_u32()),
            num_slabs.map_or(0, |v| v.as_u32()),
        );
        let name = format!("mem.slab.{slab}");
        let dims = [("slab_name", DimValue::Str(&slab))];
        let t = named_counter(
            ctx,
            "slabinfo",
            TrackScope::Global,
            &name,
            &dims,
            Some("bytes"),
        );
        let bytes = pages as f64 * slabs as f64 * self.page_size as f64;
        let store = &mut ctx.store;
        let args = vec![
            (store.intern("pages_per_slab"), ArgValue::UInt(pages as u64)),
            (store.intern("num_slabs"), ArgValue::UInt(slabs as u64)),
        ];
        let args = store.args.insert_set(args);
        push_counter(store, ts, t, bytes, args);
    }
}

/// /proc/stat times of one CPU; a sample without a CPU is counted and dropped.
fn cpu_times(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    let f = slots::<10>(data);
    let Some(cpu) = f[1] else {
        ctx.store.stat(
            "invalid_cpu_times",
            Severity::Error,
            "A sys_stats cpu_stat entry had no CPU and was ignored.",
        );
        return;
    };
    let scope = TrackScope::Cpu(cpu.as_u32());
    for (field, key, name) in CPU_TIMES {
        let dims = [("cpustat_key", DimValue::Str(key))];
        let t = named_counter(ctx, "cpustat", scope, name, &dims, None);
        push_counter(&mut ctx.store, ts, t, u64_of(f[field]) as f64, None);
    }
}

/// Interrupt counts by IRQ number: "num_irq (id: N)" or "num_softirq (id: N)".
fn interrupt_counts(ctx: &mut Ctx, ts: i64, data: &[u8], field: u32, kind: &'static str) {
    for v in repeated(data, field) {
        let [_, irq, count] = slots::<3>(v.as_bytes());
        // An int32 on the wire, an unsigned dimension in trace_processor.
        let irq = irq.map_or(0, |v| v.as_u32());
        let name = format!("{kind} (id: {irq})");
        let dims = [("irq", DimValue::Int(irq as i64))];
        let t = named_counter(ctx, kind, TrackScope::Global, &name, &dims, None);
        push_counter(&mut ctx.store, ts, t, u64_of(count) as f64, None);
    }
}

/// Time spent in each cpuidle state of a CPU: "cpuidle<cpu>.<state>", in microseconds.
fn cpuidle_state(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    let cpu = slots::<2>(data)[1].map_or(0, |v| v.as_u32());
    for entry in repeated(data, 2) {
        let [_, state, duration_us] = slots::<3>(entry.as_bytes());
        let state = state.map_or_else(Default::default, |v| v.as_string_lossy());
        let name = format!("cpuidle{cpu}.{state}");
        let dims = [("state", DimValue::Str(&state))];
        let scope = TrackScope::Cpu(cpu);
        let t = named_counter(ctx, "cpu_idle_state", scope, &name, &dims, Some("us"));
        push_counter(&mut ctx.store, ts, t, u64_of(duration_us) as f64, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::counter_tracks::test_view::{dim, kind, samples, track, unit};
    use crate::trace::wire::Msg;

    fn import(packets: Vec<(i64, Msg)>) -> Ctx {
        let mut ctx = Ctx::new();
        let mut imp = SysStatsImporter::default();
        imp.set_page_size(None);
        for (ts, m) in packets {
            imp.sys_stats(&mut ctx, ts, &m.0);
        }
        ctx
    }

    fn key_value(field: u32, key: i64, value: i64) -> Msg {
        Msg::default().msg(field, Msg::default().int(1, key).int(2, value))
    }

    fn sample(name: &str, ts: i64, v: f64) -> (String, i64, f64) {
        (name.to_string(), ts, v)
    }

    #[test]
    fn meminfo_is_named_by_key_and_kept_in_bytes() {
        let m = Msg::default()
            .msg(MEMINFO, Msg::default().int(1, 1).int(2, 5))
            .msg(MEMINFO, Msg::default().int(1, 9).int(2, 7))
            .msg(MEMINFO, Msg::default().int(1, 39).int(2, 1))
            .msg(MEMINFO, Msg::default().int(2, 2));
        let ctx = import(vec![(100, m)]);
        // 39 is past MEMINFO_ION_HEAP_POOL (38); key 0 is a name too.
        assert_eq!(
            samples(&ctx),
            [
                sample("MemTotal", 100, 5120.0),
                sample("Active(anon)", 100, 7168.0),
                sample("MemUnspecified", 100, 2048.0),
            ]
        );
        assert_eq!(ctx.store.stat_value("meminfo_unknown_keys"), 1);
        assert_eq!(kind(&ctx, "MemTotal"), "meminfo");
        assert_eq!(unit(&ctx, "MemTotal"), Some("bytes"));
        assert_eq!(
            dim(&ctx, "Active(anon)", "meminfo_key").as_deref(),
            Some("Active(anon)")
        );
    }

    #[test]
    fn each_kind_is_read_in_turn_not_in_wire_order() {
        let mut m = key_value(VMSTAT, 1, 3);
        m = m.msg(MEMINFO, Msg::default().int(1, 2).int(2, 1));
        m = m.msg(VMSTAT, Msg::default().int(1, 189).int(2, 1));
        let ctx = import(vec![(7, m), (9, key_value(VMSTAT, 1, 4))]);
        assert_eq!(
            samples(&ctx),
            [
                sample("MemFree", 7, 1024.0),
                sample("nr_free_pages", 7, 3.0),
                sample("nr_free_pages", 9, 4.0),
            ]
        );
        assert_eq!(
            ctx.store.counters[1].track_id,
            ctx.store.counters[2].track_id
        );
        assert!(ctx.store.counters[0].track_id < ctx.store.counters[1].track_id);
        assert_eq!(ctx.store.stat_value("vmstat_unknown_keys"), 1);
        assert_eq!(unit(&ctx, "nr_free_pages"), None);
    }

    /// Perfetto's diff test ParsingSysStats.test_disk_stats_multiple_disks, device sda.
    #[test]
    fn disk_stats_are_deltas_from_the_previous_sample() {
        let disk = |read, write, discard, flush, rt, wt, dt, ft| {
            Msg::default().msg(
                DISK_STAT,
                Msg::default()
                    .str(1, "sda")
                    .int(2, read)
                    .int(3, rt)
                    .int(4, write)
                    .int(5, wt)
                    .int(6, discard)
                    .int(7, dt)
                    .int(8, flush)
                    .int(9, ft),
            )
        };
        let ctx = import(vec![
            (1000, disk(100, 200, 10, 5, 100, 200, 50, 25)),
            (2000, disk(150, 250, 15, 8, 120, 220, 60, 35)),
        ]);
        let got = samples(&ctx);
        let want = [
            ("diskstat.[sda].read_amount", 0.024414, "MB"),
            ("diskstat.[sda].read_throughput", 1.220703, "MB/s"),
            ("diskstat.[sda].write_amount", 0.024414, "MB"),
            ("diskstat.[sda].write_throughput", 1.220703, "MB/s"),
            ("diskstat.[sda].discard_amount", 0.002441, "MB"),
            ("diskstat.[sda].discard_throughput", 0.244141, "MB/s"),
            ("diskstat.[sda].flush_amount", 3.0, "count"),
            ("diskstat.[sda].flush_time", 10.0, "ms"),
        ];
        assert_eq!(got.len(), want.len());
        for ((name, ts, v), (wname, wv, wunit)) in got.iter().zip(want) {
            assert_eq!((name.as_str(), *ts), (wname, 2000));
            assert!((v - wv).abs() < 1e-6, "{name}: {v} vs {wv}");
            assert_eq!(unit(&ctx, name), Some(wunit));
        }
        assert_eq!(
            dim(&ctx, "diskstat.[sda].flush_time", "device_name").as_deref(),
            Some("sda")
        );
    }

    /// Perfetto's diff tests test_cpuidle_stats, test_thermal_zones and test_gpufreq.
    #[test]
    fn cpuidle_thermal_and_gpufreq() {
        let entry = Msg::default().str(1, "C8").int(2, 486626084);
        let m = Msg::default()
            .msg(CPUIDLE_STATE, Msg::default().int(1, 0).msg(2, entry))
            .msg(
                THERMAL_ZONE,
                Msg::default()
                    .str(1, "thermal_zone0")
                    .int(2, 29)
                    .str(3, "x86_pkg_temp"),
            );
        let gpu = Msg::default().int(GPUFREQ_MHZ, 300);
        let ctx = import(vec![(71625871363623, m), (115835063108, gpu)]);
        // The zone's type names the track; thermal zones come before cpuidle.
        assert_eq!(
            samples(&ctx),
            [
                sample("x86_pkg_temp", 71625871363623, 29.0),
                sample("cpuidle0.C8", 71625871363623, 486626084.0),
                sample("gpufreq", 115835063108, 300.0),
            ]
        );
        assert_eq!(unit(&ctx, "x86_pkg_temp"), Some("C"));
        assert_eq!(unit(&ctx, "cpuidle0.C8"), Some("us"));
        assert_eq!(track(&ctx, "cpuidle0.C8").scope, TrackScope::Cpu(0));
        assert_eq!(dim(&ctx, "cpuidle0.C8", "state").as_deref(), Some("C8"));
        assert_eq!(unit(&ctx, "gpufreq"), Some("kHz"));
        assert_eq!(dim(&ctx, "gpufreq", "gpu").as_deref(), Some("0"));
    }

    #[test]
    fn cpu_times_need_a_cpu() {
        let times = Msg::default().int(1, 2).int(2, 10).int(5, 40).int(9, 80);
        let m = Msg::default()
            .msg(CPU_STAT, Msg::default().int(2, 1))
            .msg(CPU_STAT, times);
        let ctx = import(vec![(5, m)]);
        assert_eq!(ctx.store.stat_value("invalid_cpu_times"), 1);
        let got = samples(&ctx);
        assert_eq!(got.len(), 8);
        assert_eq!(got[0], sample("cpu.times.user_ns", 5, 10.0));
        assert_eq!(got[1], sample("cpu.times.user_nice_ns", 5, 0.0));
        assert_eq!(got[3], sample("cpu.times.idle_ns", 5, 40.0));
        assert_eq!(got[7], sample("cpu.times.steal_ns", 5, 80.0));
        assert_eq!(track(&ctx, "cpu.times.idle_ns").scope, TrackScope::Cpu(2));
        assert_eq!(kind(&ctx, "cpu.times.idle_ns"), "cpustat");
    }

    #[test]
    fn frequencies_interrupts_and_totals() {
        let m = Msg::default()
            .int(CPUFREQ_KHZ, 1000)
            .int(CPUFREQ_KHZ, 2000)
            .msg(
                DEVFREQ,
                Msg::default().str(1, "17000010.devfreq_mif").int(2, 421000),
            )
            .msg(NUM_IRQ, Msg::default().int(1, 5).int(2, 7))
            .msg(NUM_SOFTIRQ, Msg::default().int(1, 1).int(2, 9))
            .int(NUM_SOFTIRQ_TOTAL, 30)
            .int(NUM_FORKS, 11);
        let ctx = import(vec![(1, m)]);
        assert_eq!(
            samples(&ctx),
            [
                sample("17000010.devfreq_mif Frequency", 1, 421000.0),
                sample("cpufreq", 1, 1000.0),
                sample("cpufreq", 1, 2000.0),
                sample("num_irq (id: 5)", 1, 7.0),
                sample("num_softirq (id: 1)", 1, 9.0),
                sample("num_forks", 1, 11.0),
                sample("num_softirq_total", 1, 30.0),
            ]
        );
        let c = &ctx.store.counters;
        assert_eq!(
            ctx.store.tracks[c[2].track_id as usize].scope,
            TrackScope::Cpu(1)
        );
        assert_eq!(
            kind(&ctx, "17000010.devfreq_mif Frequency"),
            "clock_frequency"
        );
        assert_eq!(dim(&ctx, "num_irq (id: 5)", "irq").as_deref(), Some("5"));
    }

    #[test]
    fn unknown_psi_resource_abandons_the_rest_of_the_packet() {
        let m = key_value(PSI, 1, 10)
            .msg(PSI, Msg::default().int(1, 7).int(2, 20))
            .msg(THERMAL_ZONE, Msg::default().int(2, 29).str(3, "skin"));
        let ctx = import(vec![(3, m)]);
        assert_eq!(samples(&ctx), [sample("psi.cpu.some", 3, 10.0)]);
        assert_eq!(ctx.store.stat_value("psi_unknown_resource"), 1);
    }

    #[test]
    fn buddyinfo_and_slabinfo_use_the_page_size() {
        let buddy = Msg::default()
            .str(1, "Node 0")
            .str(2, "DMA")
            .int(3, 5)
            .int(3, 3);
        let slab = Msg::default().str(1, "kmalloc-64").int(2, 2).int(3, 3);
        let m = Msg::default().msg(SLAB_INFO, slab).msg(BUDDY_INFO, buddy);
        let mut ctx = Ctx::new();
        let mut imp = SysStatsImporter::default();
        // Before SystemInfo the page size is 0, as in trace_processor.
        imp.sys_stats(&mut ctx, 1, &m.0);
        imp.set_page_size(Some(16384));
        imp.sys_stats(&mut ctx, 2, &m.0);
        assert_eq!(
            samples(&ctx),
            [
                sample("mem.buddyinfo[Node 0][DMA][0 kB]", 1, 5.0),
                sample("mem.buddyinfo[Node 0][DMA][0 kB]", 1, 3.0),
                sample("mem.slab.kmalloc-64", 1, 0.0),
                sample("mem.buddyinfo[Node 0][DMA][16 kB]", 2, 5.0),
                sample("mem.buddyinfo[Node 0][DMA][32 kB]", 2, 3.0),
                sample("mem.slab.kmalloc-64", 2, 2.0 * 3.0 * 16384.0),
            ]
        );
        let last = ctx.store.counters.last().unwrap();
        let s = &ctx.store;
        let arg = |k| {
            s.args
                .get_by_name(&s.strings, last.arg_set_id.get(), k)
                .cloned()
        };
        assert_eq!(arg("pages_per_slab"), Some(ArgValue::UInt(2)));
        assert_eq!(arg("num_slabs"), Some(ArgValue::UInt(3)));
        assert_eq!(unit(&ctx, "mem.slab.kmalloc-64"), Some("bytes"));
    }
}
