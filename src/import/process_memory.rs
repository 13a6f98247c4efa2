//! The per-process counters of ProcessStats packets (trace_processor's system probes and
//! Chrome system probes parsers): `mem.*` from /proc/<pid>/status, `mem.smaps.*`,
//! `runtime.*`, `oom_score_adj` and Chrome's `chrome.*`. Process identity (threads, fds) stays
//! in `process_tree`, which hands every other field of a ProcessStats.Process here, in wire
//! order, because that order decides track ids.

use super::android_props::push_counter;
use super::counter_tracks::{named_counter, oom_score_adj_track, process_memory_track};
use super::Ctx;
use crate::store::args::ArgValue;
use crate::store::tracks::DimValue;
use crate::store::{Severity, TrackScope};
use crate::trace::wire::{Fields, Value};

/// ProcessStats.Process fields read by Chrome's parser.
const IS_PEAK_RSS_RESETTABLE: u32 = 12;
const CHROME_PRIVATE_FOOTPRINT_KB: u32 = 13;
const CHROME_PEAK_RESIDENT_SET_KB: u32 = 14;
const OOM_SCORE_ADJ: u32 = 10;

/// What a ProcessStats.Process field feeds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Counter {
    /// `mem.<key>` (a size in KiB).
    Memory(&'static str, &'static str),
    /// `mem.smaps.<key>` (a size in KiB).
    Smaps(&'static str, &'static str),
    /// `runtime.<key>` (nanoseconds).
    Runtime(&'static str, &'static str),
    OomScoreAdj,
}

/// The counter of a field: (dimension key, track name) by field number.
fn counter_of(field: u32) -> Option<Counter> {
    use Counter::*;
    Some(match field {
        2 => Memory("virt", "mem.virt"),
        3 => Memory("rss", "mem.rss"),
        4 => Memory("rss.anon", "mem.rss.anon"),
        5 => Memory("rss.file", "mem.rss.file"),
        6 => Memory("rss.shmem", "mem.rss.shmem"),
        7 => Memory("swap", "mem.swap"),
        8 => Memory("locked", "mem.locked"),
        9 => Memory("rss.watermark", "mem.rss.watermark"),
        24 => Memory("dmabuf_rss", "mem.dmabuf_rss"),
        16 => Smaps("rss", "mem.smaps.rss"),
        17 => Smaps("pss", "mem.smaps.pss"),
        18 => Smaps("pss.anon", "mem.smaps.pss.anon"),
        19 => Smaps("pss.file", "mem.smaps.pss.file"),
        20 => Smaps("pss.smem", "mem.smaps.pss.smem"),
        23 => Smaps("swap.pss", "mem.smaps.swap.pss"),
        21 => Runtime("user_ns", "runtime.user_ns"),
        22 => Runtime("kernel_ns", "runtime.kernel_ns"),
        OOM_SCORE_ADJ => OomScoreAdj,
        _ => return None,
    })
}

/// KiB counters are kept in bytes, multiplied as the 64-bit integers they are on the wire.
fn kib_to_bytes(v: &Value<'_>) -> f64 {
    v.as_i64().wrapping_mul(1024) as f64
}

/// One field of a ProcessStats.Process of process `pid` that is not about identity. The
/// process is created whatever the field, and a field no parser knows is counted (this
/// includes `chrome_peak_resident_set_kb`, which trace_processor's system parser fails to skip
/// although Chrome's parser reads it).
pub(crate) fn process_field(ctx: &mut Ctx, ts: i64, pid: i64, field: u32, v: &Value<'_>) {
    let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid);
    let (track, value) = match counter_of(field) {
        Some(Counter::OomScoreAdj) => (oom_score_adj_track(ctx, upid), v.as_i64() as f64),
        Some(Counter::Memory(key, name)) => {
            (process_memory_track(ctx, upid, key, name), kib_to_bytes(v))
        }
        Some(Counter::Smaps(key, name)) => {
            let dims = [("smaps_key", DimValue::Str(key))];
            let scope = TrackScope::Process(upid);
            let t = named_counter(ctx, "smaps", scope, name, &dims, None);
            (t, kib_to_bytes(v))
        }
        Some(Counter::Runtime(key, name)) => {
            let dims = [("proc_stat_runtime_key", DimValue::Str(key))];
            let scope = TrackScope::Process(upid);
            let t = named_counter(ctx, "proc_stat_runtime", scope, name, &dims, None);
            (t, v.as_i64() as f64)
        }
        None => {
            ctx.store.stat(
                "proc_stat_unknown_counters",
                Severity::Error,
                "A ProcessStats field frameprobe does not know was ignored.",
            );
            return;
        }
    };
    push_counter(&mut ctx.store, ts, track, value, None);
}

/// Chrome's pass over a whole ProcessStats packet (trace_processor runs it before the system
/// pass): `chrome.private_footprint_kb`, `chrome.peak_resident_set_kb` (in bytes) and the
/// `is_peak_rss_resettable` process arg.
pub(crate) fn chrome_process_stats(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        if id == 1 {
            chrome_process(ctx, ts, v.as_bytes());
        }
    }
}

fn chrome_process(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    let mut pid = None;
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        let key = match id {
            IS_PEAK_RSS_RESETTABLE => None,
            CHROME_PRIVATE_FOOTPRINT_KB => {
                Some(("private_footprint_kb", "chrome.private_footprint_kb"))
            }
            CHROME_PEAK_RESIDENT_SET_KB => {
                Some(("peak_resident_set_kb", "chrome.peak_resident_set_kb"))
            }
            _ => continue,
        };
        let pid = *pid.get_or_insert_with(|| pid_of(data));
        let upid = ctx.procs.get_or_create_process(&mut ctx.store, pid);
        match key {
            None => {
                let k = ctx.store.intern("is_peak_rss_resettable");
                ctx.procs
                    .add_process_arg(upid, k, ArgValue::Bool(v.as_bool()));
            }
            Some((key, name)) => {
                let dims = [("key", DimValue::Str(key))];
                let scope = TrackScope::Process(upid);
                let t = named_counter(ctx, "chrome_process_stats", scope, name, &dims, None);
                push_counter(&mut ctx.store, ts, t, kib_to_bytes(&v), None);
            }
        }
    }
}

/// The pid of a ProcessStats.Process, wherever it is on the wire (0 when absent, as
/// protozero reads a missing field).
fn pid_of(data: &[u8]) -> i64 {
    Fields::new(data)
        .map_while(Result::ok)
        .find(|(id, _)| *id == 1)
        .map_or(0, |(_, v)| v.as_u32() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::counter_tracks::test_view::{dim, kind, samples, track, unit};
    use crate::import::process_tree::ProcessTreeImporter;
    use crate::trace::wire::Msg;

    /// A ProcessStats packet through both passes, as the importer runs them.
    fn import(ctx: &mut Ctx, ts: i64, stats: &Msg) {
        chrome_process_stats(ctx, ts, &stats.0);
        ProcessTreeImporter::default().process_stats(ctx, ts, &stats.0);
    }

    fn sample(name: &str, ts: i64, v: f64) -> (String, i64, f64) {
        (name.to_string(), ts, v)
    }

    #[test]
    fn status_smaps_runtime_and_oom_counters() {
        let process = Msg::default()
            .int(1, 42)
            .int(2, 10)
            .int(9, 3)
            .int(10, -900)
            .int(17, 2)
            .int(21, 5)
            .int(24, 1);
        let mut ctx = Ctx::new();
        import(&mut ctx, 100, &Msg::default().msg(1, process));
        // KiB become bytes; oom_score_adj and runtimes are kept as they are.
        assert_eq!(
            samples(&ctx),
            [
                sample("mem.virt", 100, 10240.0),
                sample("mem.rss.watermark", 100, 3072.0),
                sample("oom_score_adj", 100, -900.0),
                sample("mem.smaps.pss", 100, 2048.0),
                sample("runtime.user_ns", 100, 5.0),
                sample("mem.dmabuf_rss", 100, 1024.0),
            ]
        );
        let upid = ctx.procs.process_for_pid(42).unwrap();
        assert_eq!(track(&ctx, "mem.virt").scope, TrackScope::Process(upid));
        assert_eq!(kind(&ctx, "mem.virt"), "process_memory");
        assert_eq!(
            dim(&ctx, "mem.virt", "process_memory_key").as_deref(),
            Some("virt")
        );
        assert_eq!(unit(&ctx, "mem.virt"), None);
        assert_eq!(kind(&ctx, "mem.smaps.pss"), "smaps");
        assert_eq!(
            dim(&ctx, "runtime.user_ns", "proc_stat_runtime_key").as_deref(),
            Some("user_ns")
        );
        assert_eq!(kind(&ctx, "oom_score_adj"), "oom_score_adj");
    }

    #[test]
    fn one_track_per_process_and_key_across_polls() {
        let poll = |rss| Msg::default().msg(1, Msg::default().int(1, 7).int(3, rss));
        let mut ctx = Ctx::new();
        import(&mut ctx, 1, &poll(1));
        import(&mut ctx, 2, &poll(2));
        let other = Msg::default().msg(1, Msg::default().int(1, 8).int(3, 3));
        import(&mut ctx, 3, &other);
        let c = &ctx.store.counters;
        assert_eq!(c[0].track_id, c[1].track_id);
        assert_ne!(c[1].track_id, c[2].track_id);
    }

    /// Chrome's parser runs first over the whole packet; the system parser does not skip
    /// chrome_peak_resident_set_kb (it lists private_footprint twice) and counts it unknown.
    #[test]
    fn chrome_fields() {
        let process = Msg::default()
            .int(3, 1)
            .int(14, 4)
            .int(13, 3)
            .int(12, 1)
            .int(99, 5)
            .int(1, 9);
        let mut ctx = Ctx::new();
        import(&mut ctx, 50, &Msg::default().msg(1, process));
        assert_eq!(
            samples(&ctx),
            [
                sample("chrome.peak_resident_set_kb", 50, 4096.0),
                sample("chrome.private_footprint_kb", 50, 3072.0),
                sample("mem.rss", 50, 1024.0),
            ]
        );
        assert_eq!(ctx.store.stat_value("proc_stat_unknown_counters"), 2);
        assert_eq!(
            kind(&ctx, "chrome.private_footprint_kb"),
            "chrome_process_stats"
        );
        let upid = ctx.procs.process_for_pid(9).unwrap();
        assert_eq!(track(&ctx, "mem.rss").scope, TrackScope::Process(upid));
        ctx.procs.flush_args(&mut ctx.store);
        let s = &ctx.store;
        let args = s.processes[upid as usize].arg_set_id;
        assert_eq!(
            s.args
                .get_by_name(&s.strings, args, "is_peak_rss_resettable"),
            Some(&ArgValue::Bool(true))
        );
    }
}
