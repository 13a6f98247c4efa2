//! Clock and device-frequency ftrace events as counters: `clock_set_rate` ("<clock>
//! Frequency"), `clock_enable` / `clock_disable` ("<clock> State"), `devfreq_frequency`
//! ("devfreq_<device>"), `dcvsh_freq` (per-CPU "cpufreq_throttle") and
//! `mali_gpu_power_state`.
//!
//! The `clk_*` events (320-322) carry the same information but trace_processor v58.2 only
//! records them in its raw table, so they make no counters here either.

use crate::import::android_props::push_counter;
use crate::import::Ctx;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec};
use crate::store::{EventType, TrackId, TrackScope};
use crate::trace::wire::{Fields, Value};

/// A global counter track named after a device, one per (kind, device name).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum DeviceCounter {
    ClockFrequency,
    ClockState,
    Devfreq,
}

impl DeviceCounter {
    fn kind(self) -> &'static str {
        match self {
            DeviceCounter::ClockFrequency => "clock_frequency",
            DeviceCounter::ClockState => "clock_state",
            DeviceCounter::Devfreq => "linux_device_frequency",
        }
    }

    fn track_name(self, device: &str) -> String {
        match self {
            DeviceCounter::ClockFrequency => format!("{device} Frequency"),
            DeviceCounter::ClockState => format!("{device} State"),
            DeviceCounter::Devfreq => devfreq_track_name(device),
        }
    }
}

/// devfreq device names carry an address prefix ("17000010.devfreq_mif"): the track is named
/// from "devfreq_" on, or gets that prefix when the name has none.
fn devfreq_track_name(device: &str) -> String {
    match device.find("devfreq_") {
        Some(i) => device[i..].to_string(),
        None => format!("devfreq_{device}"),
    }
}

#[derive(Default)]
pub struct ClockEvents {
    /// (kind, interned device name) -> track; names repeat at high rates.
    tracks: rustc_hash::FxHashMap<(DeviceCounter, StrId), TrackId>,
}

/// Reads a `{string name = 1; uint64 value = 2}` event (the value may be absent: 0).
fn name_and_value(data: &[u8]) -> (&[u8], u64) {
    let (mut name, mut value) = (&[][..], 0);
    for (id, v) in Fields::new(data).map_while(Result::ok) {
        match (id, v) {
            (1, Value::Bytes(b)) => name = b,
            (2, v) => value = v.as_u64(),
            _ => {}
        }
    }
    (name, value)
}

impl ClockEvents {
    fn device_track(&mut self, ctx: &mut Ctx, which: DeviceCounter, device: &[u8]) -> TrackId {
        let device = String::from_utf8_lossy(device);
        let dev_id = ctx.store.intern(&device);
        if let Some(&t) = self.tracks.get(&(which, dev_id)) {
            return t;
        }
        let name = ctx.store.intern(&which.track_name(&device));
        let dims = [("linux_device", DimValue::Str(&device))];
        let spec = TrackSpec::new(which.kind(), EventType::Counter, TrackScope::Global)
            .named(name)
            .extra(dev_id.index() as i64)
            .dims(&dims)
            .machine(ctx.procs.machine_id);
        let t = ctx.tracks.intern(&mut ctx.store, spec);
        self.tracks.insert((which, dev_id), t);
        t
    }

    fn device_counter(&mut self, ctx: &mut Ctx, ts: i64, which: DeviceCounter, data: &[u8]) {
        let (name, value) = name_and_value(data);
        let track = self.device_track(ctx, which, name);
        push_counter(&mut ctx.store, ts, track, value as f64, None);
    }

    pub fn clock_set_rate(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        self.device_counter(ctx, ts, DeviceCounter::ClockFrequency, data);
    }

    /// clock_enable and clock_disable both report the clock's new enable count.
    pub fn clock_enable_or_disable(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        self.device_counter(ctx, ts, DeviceCounter::ClockState, data);
    }

    pub fn devfreq_frequency(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        self.device_counter(ctx, ts, DeviceCounter::Devfreq, data);
    }

    /// Mali's GPU power state: `{uint64 change_ns = 1; int32 from_state = 2; int32
    /// to_state = 3}`, the new state on one global counter.
    pub fn mali_gpu_power_state(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let to_state = Fields::new(data)
            .map_while(Result::ok)
            .find(|(id, _)| *id == 3)
            .map_or(0, |(_, v)| v.as_i32());
        let name = ctx.store.intern("mali_gpu_power_state");
        let spec = TrackSpec::new(
            "mali_gpu_power_state",
            EventType::Counter,
            TrackScope::Global,
        )
        .named(name)
        .machine(ctx.procs.machine_id);
        let track = ctx.tracks.intern(&mut ctx.store, spec);
        push_counter(&mut ctx.store, ts, track, to_state as f64, None);
    }

    /// Qualcomm's cpufreq throttling (dcvsh): `{uint64 cpu = 1; uint64 freq = 2}`.
    pub fn dcvsh_freq(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let (mut cpu, mut freq) = (0u64, 0u64);
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => cpu = v.as_u64(),
                2 => freq = v.as_u64(),
                _ => {}
            }
        }
        let name = ctx.store.intern("cpufreq_throttle");
        let spec = TrackSpec::new(
            "cpu_frequency_throttle",
            EventType::Counter,
            TrackScope::Cpu(cpu as u32),
        )
        .named(name)
        .machine(ctx.procs.machine_id);
        let track = ctx.tracks.intern(&mut ctx.store, spec);
        push_counter(&mut ctx.store, ts, track, freq as f64, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::put_varint;

    fn event(name: &str, value: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, (1 << 3) | 2);
        put_varint(&mut out, name.len() as u64);
        out.extend_from_slice(name.as_bytes());
        put_varint(&mut out, 2 << 3);
        put_varint(&mut out, value);
        out
    }

    fn counters(ctx: &Ctx) -> Vec<(String, String, f64)> {
        let s = &ctx.store;
        s.counters
            .iter()
            .map(|c| {
                let t = &s.tracks[c.track_id as usize];
                (
                    s.opt_str(t.name).unwrap().to_string(),
                    s.str(t.kind).to_string(),
                    c.value,
                )
            })
            .collect()
    }

    #[test]
    fn clock_events_make_frequency_and_state_tracks_per_clock() {
        let mut ctx = Ctx::new();
        let mut c = ClockEvents::default();
        c.clock_set_rate(&mut ctx, 1, &event("a53_clk", 960_000_000));
        c.clock_enable_or_disable(&mut ctx, 2, &event("a53_clk", 1));
        c.clock_enable_or_disable(&mut ctx, 3, &event("a53_clk", 0));
        c.clock_set_rate(&mut ctx, 4, &event("gpu0", 434_000));
        assert_eq!(
            counters(&ctx),
            [
                ("a53_clk Frequency".into(), "clock_frequency".into(), 960e6),
                ("a53_clk State".into(), "clock_state".into(), 1.0),
                ("a53_clk State".into(), "clock_state".into(), 0.0),
                ("gpu0 Frequency".into(), "clock_frequency".into(), 434e3),
            ]
        );
        let s = &ctx.store;
        assert_eq!(s.tracks.len(), 3);
        let dims = s.args.set(s.tracks[0].dimension_arg_set_id.unwrap());
        assert_eq!(
            (s.str(dims[0].key), &dims[0].value),
            (
                "linux_device",
                &crate::store::args::ArgValue::Str(s.strings.lookup("a53_clk").unwrap())
            )
        );
    }

    #[test]
    fn devfreq_names_start_at_devfreq() {
        assert_eq!(devfreq_track_name("17000010.devfreq_mif"), "devfreq_mif");
        assert_eq!(devfreq_track_name("gpu"), "devfreq_gpu");
        let mut ctx = Ctx::new();
        let mut c = ClockEvents::default();
        c.devfreq_frequency(&mut ctx, 1, &event("17000010.devfreq_mif", 5));
        assert_eq!(
            counters(&ctx),
            [("devfreq_mif".into(), "linux_device_frequency".into(), 5.0)]
        );
    }

    #[test]
    fn dcvsh_is_a_per_cpu_throttle_counter() {
        let mut ctx = Ctx::new();
        let mut c = ClockEvents::default();
        c.dcvsh_freq(&mut ctx, 1, &event_cpu(4, 1_000));
        c.dcvsh_freq(&mut ctx, 2, &event_cpu(4, 2_000));
        let s = &ctx.store;
        assert_eq!(s.tracks.len(), 1);
        assert_eq!(s.tracks[0].scope, TrackScope::Cpu(4));
        assert_eq!(
            counters(&ctx)[1],
            (
                "cpufreq_throttle".into(),
                "cpu_frequency_throttle".into(),
                2000.0
            )
        );
    }

    #[test]
    fn mali_power_state_counts_the_new_state() {
        let mut ctx = Ctx::new();
        let mut c = ClockEvents::default();
        let mut e = Vec::new();
        for (f, v) in [(1u64, 123u64), (2, 1), (3, 2)] {
            put_varint(&mut e, f << 3);
            put_varint(&mut e, v);
        }
        c.mali_gpu_power_state(&mut ctx, 5, &e);
        assert_eq!(
            counters(&ctx),
            [(
                "mali_gpu_power_state".into(),
                "mali_gpu_power_state".into(),
                2.0
            )]
        );
    }

    fn event_cpu(cpu: u64, freq: u64) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, 1 << 3);
        put_varint(&mut out, cpu);
        put_varint(&mut out, 2 << 3);
        put_varint(&mut out, freq);
        out
    }
}
