//! GpuMemTotalEvent packets (trace_processor's GPU event parser): "GPU Memory" in bytes, per
//! process, or for the whole GPU when the pid is 0.

use super::android_props::push_counter;
use super::counter_tracks::intern_with_unit;
use super::Ctx;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{EventType, TrackScope};
use crate::trace::wire::slots;

pub fn gpu_mem_total(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    let [_, gpu, pid, size] = slots::<4>(data);
    let gpu = gpu.map_or(0, |v| v.as_u32());
    let pid = pid.map_or(0, |v| v.as_u32());
    let ugpu = ctx.gpus.ugpu(gpu);
    let (kind, scope) = if pid == 0 {
        ("gpu_memory", TrackScope::Global)
    } else {
        // The pid is the process the memory belongs to, not the packet's writer.
        let store = &mut ctx.store;
        let utid = ctx.procs.update_thread(store, pid as i64, pid as i64);
        let upid = store.threads[utid as usize].upid.unwrap_or(0);
        ("process_gpu_memory", TrackScope::Process(upid))
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
    let track = intern_with_unit(ctx, spec, Some("bytes"));
    let size = size.map_or(0, |v| v.as_u64());
    push_counter(&mut ctx.store, ts, track, size as f64, None);
}
