//! GpuMemTotalEvent packets (trace_processor's GPU event parser): "GPU Memory" in bytes, per
//! process, or for the whole GPU when the pid is 0.

use super::android_props::push_counter;
use super::counter_tracks::gpu_memory_track;
use super::Ctx;
use crate::trace::wire::slots;

pub fn gpu_mem_total(ctx: &mut Ctx, ts: i64, data: &[u8]) {
    let [_, gpu, pid, size] = slots::<4>(data);
    let gpu = gpu.map_or(0, |v| v.as_u32());
    let pid = pid.map_or(0, |v| v.as_u32());
    // The GPU's row comes first, as in trace_processor, whoever the memory belongs to.
    ctx.gpus.ugpu(gpu);
    let upid = (pid != 0).then(|| {
        // The pid is the process the memory belongs to, not the packet's writer.
        let store = &mut ctx.store;
        let utid = ctx.procs.update_thread(store, pid as i64, pid as i64);
        store.threads[utid as usize].upid.unwrap_or(0)
    });
    let track = gpu_memory_track(ctx, gpu, upid);
    let size = size.map_or(0, |v| v.as_u64());
    push_counter(&mut ctx.store, ts, track, size as f64, None);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::counter_tracks::test_view::{samples, unit};
    use crate::store::TrackScope;
    use crate::trace::wire::Msg;

    #[test]
    fn global_and_per_process_gpu_memory() {
        let mut ctx = Ctx::new();
        let event = |gpu, pid, size| Msg::default().int(1, gpu).int(2, pid).int(3, size).0;
        gpu_mem_total(&mut ctx, 10, &event(1, 0, 456));
        gpu_mem_total(&mut ctx, 20, &event(0, 0, 123));
        gpu_mem_total(&mut ctx, 30, &event(0, 42, 100));
        gpu_mem_total(&mut ctx, 40, &event(0, 0, 256));
        assert!(samples(&ctx).iter().all(|(n, _, _)| n == "GPU Memory"));
        let s = &ctx.store;
        let c = &s.counters;
        let scope = |i: usize| s.tracks[c[i].track_id as usize].scope;
        let ugpu = |i: usize| {
            let t = &s.tracks[c[i].track_id as usize];
            s.args
                .get_by_name(&s.strings, t.dimension_arg_set_id, "ugpu")
                .cloned()
        };
        // One global track per GPU; gpu 1 was seen first, so it is row 0 of the gpu table.
        assert_eq!(c[1].track_id, c[3].track_id);
        assert_ne!(c[0].track_id, c[1].track_id);
        assert_eq!(ugpu(0), Some(crate::store::args::ArgValue::Int(0)));
        assert_eq!(ugpu(1), Some(crate::store::args::ArgValue::Int(1)));
        // The pid's process owns the per-process track (its main thread is created too).
        let upid = ctx.procs.process_for_pid(42).unwrap();
        assert_eq!(scope(2), TrackScope::Process(upid));
        assert_eq!(scope(0), TrackScope::Global);
        assert_eq!(
            c.iter().map(|c| c.value).collect::<Vec<_>>(),
            [456.0, 123.0, 100.0, 256.0]
        );
        assert_eq!(unit(&ctx, "GPU Memory"), Some("bytes"));
        assert_eq!(
            s.str(s.tracks[c[2].track_id as usize].kind),
            "process_gpu_memory"
        );
    }
}
