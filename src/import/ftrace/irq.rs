//! Hard and soft interrupts as slices on per-CPU tracks ("Irq Cpu N", "SoftIrq Cpu N"),
//! category "irq": `irq_handler_entry/exit` ("IRQ (<handler>)", with whether it was
//! handled) and `softirq_entry/exit` (named by the softirq vector, with the vector).

use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{EventType, Store, TrackId, TrackScope};
use crate::trace::wire::{Fields, Value};

/// The kernel's softirq vectors, in `enum softirq` order.
const SOFTIRQ_NAMES: [&str; 10] = [
    "HI",
    "TIMER",
    "NET_TX",
    "NET_RX",
    "BLOCK",
    "BLOCK_IOPOLL",
    "TASKLET",
    "SCHED",
    "HRTIMER",
    "RCU",
];

#[derive(Clone, Copy)]
struct Names {
    irq: StrId,
    ret: StrId,
    handled: StrId,
    unhandled: StrId,
    vec: StrId,
}

#[derive(Default)]
pub struct IrqEvents {
    names: Option<Names>,
    /// cpu -> [hard, soft] track (interrupts arrive at high rates).
    tracks: Vec<[Option<TrackId>; 2]>,
    /// handler name -> "IRQ (<handler>)".
    irq_names: rustc_hash::FxHashMap<Box<[u8]>, StrId>,
}

/// CPUs beyond this are looked up without the cache (bad input must not allocate much).
const MAX_CACHED_CPU: u32 = 1024;

#[derive(Clone, Copy)]
enum Kind {
    Hard,
    Soft,
}

impl IrqEvents {
    fn names(&mut self, s: &mut Store) -> Names {
        *self.names.get_or_insert_with(|| Names {
            irq: s.intern("irq"),
            ret: s.intern("ret"),
            handled: s.intern("handled"),
            unhandled: s.intern("unhandled"),
            vec: s.intern("vec"),
        })
    }

    fn track(&mut self, ctx: &mut Ctx, cpu: u32, kind: Kind) -> TrackId {
        let cached = (cpu < MAX_CACHED_CPU).then(|| {
            let i = cpu as usize;
            if self.tracks.len() <= i {
                self.tracks.resize(i + 1, [None; 2]);
            }
            &mut self.tracks[i][kind as usize]
        });
        if let Some(Some(t)) = cached.as_deref() {
            return *t;
        }
        let t = Self::make_track(ctx, cpu, kind);
        if let Some(slot) = cached {
            *slot = Some(t);
        }
        t
    }

    fn make_track(ctx: &mut Ctx, cpu: u32, kind: Kind) -> TrackId {
        let (k, name) = match kind {
            Kind::Hard => ("cpu_irq", format!("Irq Cpu {cpu}")),
            Kind::Soft => ("cpu_softirq", format!("SoftIrq Cpu {cpu}")),
        };
        let name = ctx.store.intern(&name);
        let spec = TrackSpec::new(k, EventType::Slice, TrackScope::Cpu(cpu))
            .named(name)
            .machine(ctx.procs.machine_id);
        ctx.tracks.intern(&mut ctx.store, spec)
    }

    /// `irq_handler_entry`: irq (1), name (2).
    pub fn irq_entry(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let handler = Fields::new(data)
            .map_while(Result::ok)
            .find_map(|(id, v)| match (id, v) {
                (2, Value::Bytes(b)) => Some(b),
                _ => None,
            })
            .unwrap_or_default();
        let name = match self.irq_names.get(handler) {
            Some(&id) => id,
            None => {
                let id = ctx
                    .store
                    .intern(&format!("IRQ ({})", String::from_utf8_lossy(handler)));
                self.irq_names.insert(handler.into(), id);
                id
            }
        };
        let track = self.track(ctx, cpu, Kind::Hard);
        ctx.slices
            .begin(&mut ctx.store, ts, track, Some(n.irq), Some(name), None);
    }

    /// `irq_handler_exit`: ret (2) is 1 when the handler handled the interrupt.
    pub fn irq_exit(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let ret = Fields::new(data)
            .map_while(Result::ok)
            .find(|(id, _)| *id == 2)
            .map_or(0, |(_, v)| v.as_i32());
        let value = if ret == 1 { n.handled } else { n.unhandled };
        let track = self.track(ctx, cpu, Kind::Hard);
        if let Some(sid) = ctx.slices.end(&mut ctx.store, ts, track, Some(n.irq), None) {
            let arg = (n.ret, n.ret, ArgValue::Str(value));
            super::atrace::write_args(&mut ctx.store, sid, vec![arg]);
        }
    }

    fn vec_of(data: &[u8]) -> u32 {
        Fields::new(data)
            .map_while(Result::ok)
            .find(|(id, _)| *id == 1)
            .map_or(0, |(_, v)| v.as_u32())
    }

    /// `softirq_entry`: vec (1); a vector the kernel does not define is ignored.
    pub fn softirq_entry(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let Some(&action) = SOFTIRQ_NAMES.get(Self::vec_of(data) as usize) else {
            return;
        };
        let name = ctx.store.intern(action);
        let track = self.track(ctx, cpu, Kind::Soft);
        ctx.slices
            .begin(&mut ctx.store, ts, track, Some(n.irq), Some(name), None);
    }

    pub fn softirq_exit(&mut self, ctx: &mut Ctx, ts: i64, cpu: u32, data: &[u8]) {
        let n = self.names(&mut ctx.store);
        let vec = Self::vec_of(data);
        let track = self.track(ctx, cpu, Kind::Soft);
        if let Some(sid) = ctx.slices.end(&mut ctx.store, ts, track, Some(n.irq), None) {
            let arg = (n.vec, n.vec, ArgValue::Int(vec as i64));
            super::atrace::write_args(&mut ctx.store, sid, vec![arg]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::put_varint;

    fn msg(ints: &[(u32, u64)], strs: &[(u32, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for &(id, v) in ints {
            put_varint(&mut out, (id as u64) << 3);
            put_varint(&mut out, v);
        }
        for &(id, s) in strs {
            put_varint(&mut out, ((id as u64) << 3) | 2);
            put_varint(&mut out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
        out
    }

    #[test]
    fn irqs_nest_per_cpu_with_their_outcome() {
        let mut ctx = Ctx::new();
        let mut q = IrqEvents::default();
        q.irq_entry(&mut ctx, 10, 2, &msg(&[(1, 40)], &[(2, "dpu")]));
        q.softirq_entry(&mut ctx, 11, 2, &msg(&[(1, 3)], &[]));
        q.softirq_exit(&mut ctx, 12, 2, &msg(&[(1, 3)], &[]));
        q.irq_exit(&mut ctx, 15, 2, &msg(&[(1, 40), (2, 1)], &[]));
        q.irq_entry(&mut ctx, 20, 3, &msg(&[(1, 41)], &[(2, "ufs")]));
        q.irq_exit(&mut ctx, 21, 3, &msg(&[(1, 41), (2, 0)], &[]));
        // Vector 10 does not exist: nothing is made.
        q.softirq_entry(&mut ctx, 30, 2, &msg(&[(1, 10)], &[]));
        let s = &ctx.store;
        let got: Vec<_> = s
            .slices
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let t = &s.tracks[r.track_id as usize];
                (
                    s.opt_str(r.name).unwrap(),
                    s.opt_str(t.name).unwrap(),
                    r.dur,
                    s.opt_str(s.slice_category(i as u32)),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("IRQ (dpu)", "Irq Cpu 2", 5, Some("irq")),
                ("NET_RX", "SoftIrq Cpu 2", 1, Some("irq")),
                ("IRQ (ufs)", "Irq Cpu 3", 1, Some("irq")),
            ]
        );
        let arg = |i: usize, k: &str| {
            s.args
                .get_by_name(&s.strings, s.slices[i].arg_set_id.get(), k)
        };
        assert_eq!(
            arg(0, "ret"),
            Some(&ArgValue::Str(s.strings.lookup("handled").unwrap()))
        );
        assert_eq!(
            arg(2, "ret"),
            Some(&ArgValue::Str(s.strings.lookup("unhandled").unwrap()))
        );
        assert_eq!(arg(1, "vec"), Some(&ArgValue::Int(3)));
        assert_eq!(
            s.tracks[s.slices[0].track_id as usize].scope,
            TrackScope::Cpu(2)
        );
    }
}
