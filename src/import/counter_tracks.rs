//! Counter tracks more than one importer writes to (trace_processor's shared blueprints in
//! `tracks_common.h`), each with a single interning key so that, say, the sys_stats
//! `cpufreq_khz` poll and the `cpu_frequency` ftrace event land on the same track; plus the
//! interning helper every counter importer uses.

use super::Ctx;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{EventType, TrackId, TrackScope, Upid};

/// Interns a counter track and gives it `unit` when it is created.
pub(crate) fn intern_with_unit(ctx: &mut Ctx, spec: TrackSpec<'_>, unit: Option<&str>) -> TrackId {
    let id = ctx.tracks.intern(&mut ctx.store, spec);
    if let Some(unit) = unit {
        if ctx.store.tracks[id as usize].counter_unit.is_none() {
            let unit = ctx.store.intern(unit);
            ctx.store.tracks[id as usize].counter_unit = Some(unit);
        }
    }
    id
}

/// A counter track whose name is a one-to-one function of its dimensions (`dims`, beyond the
/// scope): the name itself is the interning key, so callers need no key of their own.
pub(crate) fn named_counter(
    ctx: &mut Ctx,
    kind: &'static str,
    scope: TrackScope,
    name: &str,
    dims: &[(&str, DimValue<'_>)],
    unit: Option<&str>,
) -> TrackId {
    let name = ctx.store.intern(name);
    let spec = TrackSpec::new(kind, EventType::Counter, scope)
        .named(name)
        .extra(name.index() as i64)
        .dims(dims)
        .machine(ctx.procs.machine_id);
    intern_with_unit(ctx, spec, unit)
}

/// "cpufreq" of one CPU (ftrace `cpu_frequency`, sys_stats `cpufreq_khz`).
pub(crate) fn cpu_frequency_track(ctx: &mut Ctx, cpu: u32) -> TrackId {
    let name = ctx.store.intern("cpufreq");
    let spec = TrackSpec::new("cpu_frequency", EventType::Counter, TrackScope::Cpu(cpu))
        .named(name)
        .machine(ctx.procs.machine_id);
    ctx.tracks.intern(&mut ctx.store, spec)
}

/// "gpufreq" of one GPU (ftrace `gpu_frequency`, sys_stats `gpufreq_mhz`), keyed by the GPU's
/// row in the gpu table (`ugpu`) and its id. trace_processor labels it kHz whatever the source.
pub(crate) fn gpu_frequency_track(ctx: &mut Ctx, gpu: u32) -> TrackId {
    let ugpu = ctx.gpus.ugpu(gpu);
    let name = ctx.store.intern("gpufreq");
    let dims = [
        ("ugpu", DimValue::Int(ugpu as i64)),
        ("gpu", DimValue::Int(gpu as i64)),
    ];
    let spec = TrackSpec::new("gpu_frequency", EventType::Counter, TrackScope::Global)
        .named(name)
        .extra(gpu as i64)
        .dims(&dims)
        .machine(ctx.procs.machine_id);
    intern_with_unit(ctx, spec, Some("kHz"))
}

/// "<device> Frequency" of a clock or devfreq device (ftrace `clock_set_rate`, sys_stats
/// `devfreq`).
pub(crate) fn clock_frequency_track(ctx: &mut Ctx, device: &str) -> TrackId {
    let name = format!("{device} Frequency");
    let dims = [("linux_device", DimValue::Str(device))];
    named_counter(
        ctx,
        "clock_frequency",
        TrackScope::Global,
        &name,
        &dims,
        None,
    )
}

/// `mem.<key>` of a process (ProcessStats polls and the ftrace `rss_stat` events share it);
/// `name` is `mem.` followed by `key`.
pub(crate) fn process_memory_track(ctx: &mut Ctx, upid: Upid, key: &str, name: &str) -> TrackId {
    let dims = [("process_memory_key", DimValue::Str(key))];
    named_counter(
        ctx,
        "process_memory",
        TrackScope::Process(upid),
        name,
        &dims,
        None,
    )
}

/// "oom_score_adj" of a process (ProcessStats, the ftrace event, atrace's lmkd counter).
pub(crate) fn oom_score_adj_track(ctx: &mut Ctx, upid: Upid) -> TrackId {
    let name = ctx.store.intern("oom_score_adj");
    let spec = TrackSpec::new(
        "oom_score_adj",
        EventType::Counter,
        TrackScope::Process(upid),
    )
    .named(name)
    .machine(ctx.procs.machine_id);
    ctx.tracks.intern(&mut ctx.store, spec)
}

/// "GPU Memory" in bytes of one GPU: the whole GPU's total (`upid` None) or a process's
/// share (GpuMemTotalEvent packets and the `gpu_mem_total` ftrace event).
pub(crate) fn gpu_memory_track(ctx: &mut Ctx, gpu: u32, upid: Option<Upid>) -> TrackId {
    let ugpu = ctx.gpus.ugpu(gpu);
    let (kind, scope) = match upid {
        None => ("gpu_memory", TrackScope::Global),
        Some(upid) => ("process_gpu_memory", TrackScope::Process(upid)),
    };
    let name = ctx.store.intern("GPU Memory");
    let dims = [
        ("ugpu", DimValue::Int(ugpu as i64)),
        ("gpu", DimValue::Int(gpu as i64)),
    ];
    let spec = TrackSpec::new(kind, EventType::Counter, scope)
        .named(name)
        .extra(gpu as i64)
        .dims(&dims)
        .machine(ctx.procs.machine_id);
    intern_with_unit(ctx, spec, Some("bytes"))
}

/// Test views of what the counter importers wrote.
#[cfg(test)]
pub(crate) mod test_view {
    use super::Ctx;
    use crate::store::args::ArgValue;
    use crate::store::TrackRow;

    /// Every counter sample as (track name, ts, value), in the order pushed.
    pub fn samples(ctx: &Ctx) -> Vec<(String, i64, f64)> {
        let s = &ctx.store;
        s.counters
            .iter()
            .map(|c| {
                let t = &s.tracks[c.track_id as usize];
                (s.opt_str(t.name).unwrap_or("").to_string(), c.ts, c.value)
            })
            .collect()
    }

    /// The track named `name` (the first one).
    pub fn track<'a>(ctx: &'a Ctx, name: &str) -> &'a TrackRow {
        let s = &ctx.store;
        s.tracks
            .iter()
            .find(|t| s.opt_str(t.name) == Some(name))
            .unwrap_or_else(|| panic!("no track {name}"))
    }

    pub fn kind<'a>(ctx: &'a Ctx, name: &str) -> &'a str {
        ctx.store.str(track(ctx, name).kind)
    }

    pub fn unit<'a>(ctx: &'a Ctx, name: &str) -> Option<&'a str> {
        ctx.store.opt_str(track(ctx, name).counter_unit)
    }

    /// A dimension of the track named `name`, as text.
    pub fn dim(ctx: &Ctx, name: &str, key: &str) -> Option<String> {
        let s = &ctx.store;
        let key = s.strings.lookup(key)?;
        match s.args.get(track(ctx, name).dimension_arg_set_id, key)? {
            ArgValue::Str(v) => Some(s.str(*v).to_string()),
            ArgValue::Int(v) => Some(v.to_string()),
            ArgValue::UInt(v) => Some(v.to_string()),
            other => Some(format!("{other:?}")),
        }
    }
}
