//! Kernel events trace_processor turns into slices on the emitting (or target) thread's
//! track: secure-monitor calls (`scm_call_start/end`), direct and memcg reclaim
//! (`mm_vmscan_*_reclaim_begin/end`), and the instants `signal_generate`,
//! `signal_deliver` and `mark_victim`. They share the thread track with atrace slices, so
//! they nest with them and change the depth of what opens inside them.

use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::{Store, TrackId};
use crate::trace::wire::Fields;

/// Arg keys and slice names, interned on first use.
#[derive(Clone, Copy)]
struct Names {
    direct_reclaim: StrId,
    direct_reclaim_order: StrId,
    direct_reclaim_may_writepage: StrId,
    direct_reclaim_gfp_flags: StrId,
    direct_reclaim_nr_reclaimed: StrId,
    memcg_reclaim: StrId,
    memcg_reclaim_order: StrId,
    memcg_reclaim_may_writepage: StrId,
    memcg_reclaim_gfp_flags: StrId,
    memcg_reclaim_nr_reclaimed: StrId,
    signal_generate: StrId,
    signal_deliver: StrId,
    signal_sig: StrId,
    oom_kill: StrId,
}

impl Names {
    fn new(s: &mut Store) -> Names {
        Names {
            direct_reclaim: s.intern("mm_vmscan_direct_reclaim"),
            direct_reclaim_order: s.intern("direct_reclaim_order"),
            direct_reclaim_may_writepage: s.intern("direct_reclaim_may_writepage"),
            direct_reclaim_gfp_flags: s.intern("direct_reclaim_gfp_flags"),
            direct_reclaim_nr_reclaimed: s.intern("direct_reclaim_nr_reclaimed"),
            memcg_reclaim: s.intern("mm_vmscan_memcg_reclaim"),
            memcg_reclaim_order: s.intern("memcg_reclaim_order"),
            memcg_reclaim_may_writepage: s.intern("memcg_reclaim_may_writepage"),
            memcg_reclaim_gfp_flags: s.intern("memcg_reclaim_gfp_flags"),
            memcg_reclaim_nr_reclaimed: s.intern("memcg_reclaim_nr_reclaimed"),
            signal_generate: s.intern("signal_generate"),
            signal_deliver: s.intern("signal_deliver"),
            signal_sig: s.intern("signal.sig"),
            oom_kill: s.intern("mem.oom_kill"),
        }
    }
}

/// Which reclaim a begin/end pair belongs to (the two share one layout).
#[derive(Clone, Copy)]
pub enum Reclaim {
    Direct,
    Memcg,
}

#[derive(Default)]
pub struct KernelSlices {
    names: Option<Names>,
}

/// Reads up to 7 fields into slots by field number (absent fields read as 0).
fn ints(data: &[u8]) -> [u64; 7] {
    let mut out = [0u64; 7];
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        if let Some(slot) = out.get_mut(id as usize) {
            *slot = v.as_u64();
        }
    }
    out
}

/// The name of an SCM call slice: its x0 register, printed as C's `%#x` does ("0" for zero,
/// "0x..." otherwise).
fn scm_name(x0: u64) -> String {
    if x0 == 0 {
        "scm id=0".to_string()
    } else {
        format!("scm id={x0:#x}")
    }
}

impl KernelSlices {
    fn names(&mut self, store: &mut Store) -> Names {
        *self.names.get_or_insert_with(|| Names::new(store))
    }

    fn track_of_tid(ctx: &mut Ctx, tid: i64) -> TrackId {
        let utid = ctx.procs.get_or_create_thread(&mut ctx.store, tid);
        ctx.tracks.thread_track(&mut ctx.store, utid)
    }

    pub fn scm_call_start(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let track = Self::track_of_tid(ctx, pid);
        let name = ctx.store.intern(&scm_name(ints(data)[2]));
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, Some(name), None);
    }

    pub fn scm_call_end(&mut self, ctx: &mut Ctx, ts: i64, pid: i64) {
        let track = Self::track_of_tid(ctx, pid);
        ctx.slices.end(&mut ctx.store, ts, track, None, None);
    }

    /// `mm_vmscan_{direct,memcg}_reclaim_begin`: order, may_writepage, gfp_flags.
    pub fn reclaim_begin(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, which: Reclaim, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let f = ints(data);
        let (name, order, writepage, gfp) = match which {
            Reclaim::Direct => (
                n.direct_reclaim,
                n.direct_reclaim_order,
                n.direct_reclaim_may_writepage,
                n.direct_reclaim_gfp_flags,
            ),
            Reclaim::Memcg => (
                n.memcg_reclaim,
                n.memcg_reclaim_order,
                n.memcg_reclaim_may_writepage,
                n.memcg_reclaim_gfp_flags,
            ),
        };
        // order and may_writepage are int32 on the wire.
        let args = ctx.store.args.insert_set(vec![
            (order, ArgValue::Int(f[1] as i32 as i64)),
            (writepage, ArgValue::Int(f[2] as i32 as i64)),
            (gfp, ArgValue::UInt(f[3])),
        ]);
        let track = Self::track_of_tid(ctx, pid);
        ctx.slices
            .begin(&mut ctx.store, ts, track, None, Some(name), args);
    }

    /// The matching end adds how many pages were reclaimed to the slice's args.
    pub fn reclaim_end(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, which: Reclaim, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let key = match which {
            Reclaim::Direct => n.direct_reclaim_nr_reclaimed,
            Reclaim::Memcg => n.memcg_reclaim_nr_reclaimed,
        };
        let track = Self::track_of_tid(ctx, pid);
        if let Some(sid) = ctx.slices.end(&mut ctx.store, ts, track, None, None) {
            let arg = (key, key, ArgValue::UInt(ints(data)[1]));
            super::atrace::write_args(&mut ctx.store, sid, vec![arg]);
        }
    }

    fn instant(ctx: &mut Ctx, ts: i64, tid: i64, name: StrId, arg: Option<(StrId, i64)>) {
        let args = arg.and_then(|(k, v)| ctx.store.args.insert_set(vec![(k, ArgValue::Int(v))]));
        let track = Self::track_of_tid(ctx, tid);
        ctx.slices
            .scoped(&mut ctx.store, ts, track, None, Some(name), 0, args);
    }

    /// On the thread the signal is sent to (the event's pid field), not the sender.
    pub fn signal_generate(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let f = ints(data);
        let (target, sig) = (f[4] as u32 as i64, f[6] as i32 as i64);
        Self::instant(
            ctx,
            ts,
            target,
            n.signal_generate,
            Some((n.signal_sig, sig)),
        );
    }

    pub fn signal_deliver(&mut self, ctx: &mut Ctx, ts: i64, pid: i64, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let sig = ints(data)[3] as i32 as i64;
        Self::instant(ctx, ts, pid, n.signal_deliver, Some((n.signal_sig, sig)));
    }

    /// The OOM killer chose a victim: an instant on the victim's thread.
    pub fn mark_victim(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let victim = ints(data)[1] as u32 as i64;
        Self::instant(ctx, ts, victim, n.oom_kill, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::put_varint;

    fn msg(fields: &[(u32, u64)]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(id, v) in fields {
            put_varint(&mut out, (id as u64) << 3);
            put_varint(&mut out, v);
        }
        out
    }

    fn names(ctx: &Ctx) -> Vec<(String, i64, i64, u32)> {
        let s = &ctx.store;
        s.slices
            .iter()
            .map(|r| {
                (
                    s.opt_str(r.name).unwrap().to_string(),
                    r.ts,
                    r.dur,
                    r.depth(),
                )
            })
            .collect()
    }

    fn arg(ctx: &Ctx, i: usize, key: &str) -> Option<ArgValue> {
        let s = &ctx.store;
        s.args
            .get_by_name(&s.strings, s.slices[i].arg_set_id.get(), key)
            .cloned()
    }

    #[test]
    fn scm_names_print_x0_like_c_hash_x() {
        assert_eq!(scm_name(0x4200_0d07), "scm id=0x42000d07");
        assert_eq!(scm_name(0), "scm id=0");
    }

    #[test]
    fn scm_calls_nest_on_the_thread_track() {
        let mut ctx = Ctx::new();
        let mut k = KernelSlices::default();
        k.scm_call_start(&mut ctx, 10, 7, &msg(&[(1, 3), (2, 0x4200_0d0a)]));
        k.scm_call_start(&mut ctx, 12, 7, &msg(&[(2, 1)]));
        k.scm_call_end(&mut ctx, 15, 7);
        k.scm_call_end(&mut ctx, 20, 7);
        // An end with nothing open is ignored.
        k.scm_call_end(&mut ctx, 30, 7);
        assert_eq!(
            names(&ctx),
            [
                ("scm id=0x42000d0a".to_string(), 10, 10, 0),
                ("scm id=0x1".to_string(), 12, 3, 1)
            ]
        );
        let t = &ctx.store.tracks[ctx.store.slices[0].track_id as usize];
        assert_eq!(ctx.store.str(t.kind), "thread_execution");
    }

    #[test]
    fn reclaim_slices_carry_begin_and_end_args() {
        let mut ctx = Ctx::new();
        let mut k = KernelSlices::default();
        let begin = msg(&[(1, 3), (2, 1), (3, 0x100cca)]);
        k.reclaim_begin(&mut ctx, 100, 42, Reclaim::Direct, &begin);
        k.reclaim_end(&mut ctx, 150, 42, Reclaim::Direct, &msg(&[(1, 32)]));
        k.reclaim_begin(
            &mut ctx,
            200,
            42,
            Reclaim::Memcg,
            &msg(&[(1, (-1i64) as u64)]),
        );
        assert_eq!(
            names(&ctx)[0],
            ("mm_vmscan_direct_reclaim".into(), 100, 50, 0)
        );
        assert_eq!(arg(&ctx, 0, "direct_reclaim_order"), Some(ArgValue::Int(3)));
        assert_eq!(
            arg(&ctx, 0, "direct_reclaim_may_writepage"),
            Some(ArgValue::Int(1))
        );
        assert_eq!(
            arg(&ctx, 0, "direct_reclaim_gfp_flags"),
            Some(ArgValue::UInt(0x100cca))
        );
        assert_eq!(
            arg(&ctx, 0, "direct_reclaim_nr_reclaimed"),
            Some(ArgValue::UInt(32))
        );
        assert_eq!(
            names(&ctx)[1],
            ("mm_vmscan_memcg_reclaim".into(), 200, -1, 0)
        );
        assert_eq!(arg(&ctx, 1, "memcg_reclaim_order"), Some(ArgValue::Int(-1)));
    }

    #[test]
    fn signals_and_oom_victims_are_instants_on_the_right_thread() {
        let mut ctx = Ctx::new();
        let mut k = KernelSlices::default();
        // Thread 5 sends SIGKILL (9) to thread 9: the instant goes on 9.
        k.signal_generate(&mut ctx, 10, &msg(&[(4, 9), (6, 9)]));
        k.signal_deliver(&mut ctx, 11, 9, &msg(&[(3, 9)]));
        k.mark_victim(&mut ctx, 12, &msg(&[(1, 9)]));
        let s = &ctx.store;
        let tids: Vec<i64> = s
            .slices
            .iter()
            .map(|r| match s.tracks[r.track_id as usize].scope {
                crate::store::TrackScope::Thread(u) => s.threads[u as usize].tid,
                _ => -1,
            })
            .collect();
        assert_eq!(tids, [9, 9, 9]);
        let got: Vec<_> = names(&ctx).into_iter().map(|n| (n.0, n.2)).collect();
        assert_eq!(
            got,
            [
                ("signal_generate".into(), 0),
                ("signal_deliver".into(), 0),
                ("mem.oom_kill".into(), 0)
            ]
        );
        assert_eq!(arg(&ctx, 0, "signal.sig"), Some(ArgValue::Int(9)));
        assert!(ctx.store.slices[2].arg_set_id.is_none());
    }
}
