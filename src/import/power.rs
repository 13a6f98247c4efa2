//! Battery and power-rail counters (trace_processor's Android probes parser): `batt.*` from
//! BatteryCounters packets, and `power.rails.*` / `power.<rail>_uws` energy counters from
//! PowerRails, whose descriptors name the rails of a session before its samples arrive.

use rustc_hash::FxHashMap;

use super::android_props::push_counter;
use super::counter_tracks::named_counter;
use super::Ctx;
use crate::store::args::ArgValue;
use crate::store::strings::StrId;
use crate::store::tracks::{DimValue, TrackSpec, TrackTracker};
use crate::store::{EventType, Severity, TrackId, TrackScope};
use crate::trace::power_rails::{self, EnergySample};
use crate::trace::wire::{slots, Value};

/// Rail indexes above this are ignored (a guard against absurd descriptors).
const MAX_RAIL_INDEX: u32 = 256;

#[derive(Default)]
pub struct PowerImporter {
    /// (session, rail index) -> track, from the descriptors.
    rails: FxHashMap<(u64, u32), TrackId>,
    /// (raw rail name, session) -> track: a rail described twice keeps its track.
    tracks: FxHashMap<(StrId, u64), TrackId>,
}

/// The short name trace_processor gives well-known rails of Pixel power monitors, matched on
/// the end of the raw rail name (first match wins).
fn friendly_rail_name(raw: &str) -> Option<&'static str> {
    const SUFFIXES: [(&[&str], &str); 29] = [
        (&["M_VDD_CPUCL0"], "cpu.little"),
        (&["M_VDD_CPUCL0_M"], "cpu.little.mem"),
        (&["M_VDD_CPUCL1"], "cpu.mid"),
        (&["M_VDD_CPUCL1_M"], "cpu.mid.mem"),
        (&["M_VDD_CPUCL2"], "cpu.big"),
        (&["M_VDD_INT"], "system.fabric"),
        (&["M_VDD_TPU"], "tpu"),
        (&["VSYS_PWR_DISP", "VSYS_PWR_DISPLAY"], "display"),
        (&["M_DISP"], "ldo.main.a.display"),
        (&["VSYS_PWR_MODEM"], "modem"),
        (&["M_VDD_MIF"], "memory.interface"),
        (&["VSYS_PWR_WLAN_BT"], "wifi.bt"),
        (&["VSYS_PWR_MMWAVE"], "mmwave"),
        (&["S_VDD_AOC_RET"], "aoc.memory"),
        (&["S_VDD_AOC"], "aoc.logic"),
        (&["S_VDDQ_MEM"], "ddr.a"),
        (&["S_VDD2L", "S_VDD2L_MEM"], "ddr.b"),
        (&["S_VDD2H_MEM"], "ddr.c"),
        (&["S_VDD_G3D"], "gpu"),
        (&["S_VDD_G3D_L2"], "gpu.l2"),
        (&["S_GNSS_CORE"], "gps"),
        (&["VSYS_PWR_RFFE"], "radio.frontend"),
        (&["VSYS_PWR_CAMERA"], "camera"),
        (&["S_VDD_CAM"], "multimedia"),
        (&["S_UDFPS"], "udfps"),
        (&["S_PLL_MIPI_UFS"], "ufs"),
        (&["M_LLDO1"], "ldo.main.a"),
        (&["M_LLDO2"], "ldo.main.b"),
        (&["S_LLDO1"], "ldo.sub"),
    ];
    SUFFIXES
        .iter()
        .find(|(ends, _)| ends.iter().any(|e| raw.ends_with(e)))
        .map(|&(_, name)| name)
}

/// The counter track name of a rail.
fn rail_track_name(raw: &str) -> String {
    match friendly_rail_name(raw) {
        Some(f) => format!("power.rails.{f}"),
        None => format!("power.{raw}_uws"),
    }
}

fn string_of<'a>(v: Option<Value<'a>>) -> std::borrow::Cow<'a, str> {
    v.map_or_else(Default::default, |v| v.as_string_lossy())
}

impl PowerImporter {
    /// BatteryCounters: one `batt[.<name>].<counter>` sample per field present, plus the
    /// charge derived from energy and voltage and the power derived from current and voltage.
    pub fn battery(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let [_, charge_uah, capacity_pct, current_ua, current_avg_ua, name, energy_uwh, voltage_uv] =
            slots::<8>(data);
        let battery = string_of(name);
        let counter = |ctx: &mut Ctx, counter: &str, value: Option<f64>| {
            let track = if battery.is_empty() {
                format!("batt.{counter}")
            } else {
                format!("batt.{battery}.{counter}")
            };
            let dims = [
                ("battery_name", DimValue::Str(&battery)),
                ("counter_name", DimValue::Str(counter)),
            ];
            let t = named_counter(
                ctx,
                "battery_counter",
                TrackScope::Global,
                &track,
                &dims,
                None,
            );
            if let Some(v) = value {
                push_counter(&mut ctx.store, ts, t, v, None);
            }
        };
        let int = |v: Value<'_>| v.as_i64();
        if let Some(c) = charge_uah {
            counter(ctx, "charge_uah", Some(int(c) as f64));
        } else if let (Some(e), Some(v)) = (energy_uwh, voltage_uv) {
            // The track exists even when the voltage makes the charge unknowable.
            let (e, v) = (int(e), int(v));
            let charge = (v > 0).then(|| (e.wrapping_mul(1_000_000) / v) as f64);
            counter(ctx, "charge_uah", charge);
        }
        if let Some(c) = capacity_pct {
            // A float on the wire.
            counter(ctx, "capacity_pct", Some(f32::from_bits(c.as_u32()) as f64));
        }
        if let Some(c) = current_ua {
            counter(ctx, "current_ua", Some(int(c) as f64));
        }
        if let Some(c) = current_avg_ua {
            counter(ctx, "current.avg_ua", Some(int(c) as f64));
        }
        if let Some(v) = voltage_uv {
            counter(ctx, "voltage_uv", Some(int(v) as f64));
        }
        if let (Some(c), Some(v)) = (current_ua, voltage_uv) {
            // Integer milliwatts, always positive (the current is negative when discharging).
            let mw = int(c).wrapping_mul(int(v)) / 1_000_000_000;
            counter(ctx, "power_mw", Some((mw as f64).abs()));
        }
    }

    /// The rail descriptors of a PowerRails packet (seen while tokenizing, in file order).
    pub fn rail_descriptors(&mut self, ctx: &mut Ctx, data: &[u8]) {
        let session = power_rails::session_uuid(data);
        for d in power_rails::descriptors(data) {
            let [_, index, rail_name, subsys_name] = slots::<4>(d);
            let index = index.map_or(0, |v| v.as_u32());
            if index > MAX_RAIL_INDEX {
                continue;
            }
            let raw = string_of(rail_name);
            let raw_id = ctx.store.intern(&raw);
            let track = match self.tracks.get(&(raw_id, session)) {
                Some(&t) => t,
                None => {
                    let subsys = string_of(subsys_name);
                    let t = rail_track(ctx, &raw, raw_id, &subsys, session);
                    self.tracks.insert((raw_id, session), t);
                    t
                }
            };
            self.rails.insert((session, index), track);
        }
    }

    /// One energy sample (sorted on its own timestamp), with the packet timestamp as an arg.
    pub fn energy(&mut self, ctx: &mut Ctx, ts: i64, payload: &[u8]) {
        let s = EnergySample::decode(payload);
        let Some(&track) = self.rails.get(&(s.session_uuid, s.index)) else {
            ctx.store.stat(
                "power_rail_unknown_index",
                Severity::Error,
                "A power rail sample named a rail no descriptor of its session described.",
            );
            return;
        };
        let store = &mut ctx.store;
        let key = store.intern("packet_ts");
        let args = store
            .args
            .insert_set(vec![(key, ArgValue::UInt(s.packet_ts as u64))]);
        push_counter(store, ts, track, s.energy as f64, args);
    }
}

/// A rail's counter track: named after the rail, identified by its raw name and session,
/// with the raw and subsystem names as args.
fn rail_track(ctx: &mut Ctx, raw: &str, raw_id: StrId, subsys: &str, session: u64) -> TrackId {
    let name = ctx.store.intern(&rail_track_name(raw));
    let dims = [
        ("name", DimValue::Str(raw)),
        ("session_uuid", DimValue::Int(session as i64)),
    ];
    let spec = TrackSpec::new("power_rails", EventType::Counter, TrackScope::Global)
        .named(name)
        .dims(&dims)
        .machine(ctx.procs.machine_id);
    let t = TrackTracker::create(&mut ctx.store, spec);
    let store = &mut ctx.store;
    let args = vec![
        (store.intern("raw_name"), ArgValue::Str(raw_id)),
        (
            store.intern("subsystem_name"),
            ArgValue::Str(store.intern(subsys)),
        ),
    ];
    store.tracks[t as usize].source_arg_set_id = store.args.insert_set(args);
    t
}
