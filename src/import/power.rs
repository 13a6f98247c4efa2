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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::counter_tracks::test_view::{dim, kind, samples, track};
    use crate::import::{load_source, LoadOptions};
    use crate::trace::reader::TraceSource;
    use crate::trace::wire::Msg;

    fn battery(packets: Vec<(i64, Msg)>) -> Ctx {
        let mut ctx = Ctx::new();
        let mut imp = PowerImporter::default();
        for (ts, m) in packets {
            imp.battery(&mut ctx, ts, &m.0);
        }
        ctx
    }

    fn sample(name: &str, ts: i64, v: f64) -> (String, i64, f64) {
        (name.to_string(), ts, v)
    }

    /// Perfetto's diff tests LinuxSysfsPower.test_counters and test_multiple_batteries.
    #[test]
    fn battery_counters_named_per_battery() {
        let pct = |p: f32| p.to_bits();
        let bat0 = Msg::default()
            .int(1, 3005000)
            .fixed32(2, pct(100.0))
            .int(3, 0)
            .str(5, "BAT0");
        let bat1 = Msg::default().fixed32(2, pct(90.0)).str(5, "BAT1");
        let plain = Msg::default()
            .int(1, 3005000)
            .fixed32(2, pct(100.0))
            .int(3, 0);
        let ctx = battery(vec![(3000000, bat0), (3000000, bat1), (4000000, plain)]);
        assert_eq!(
            samples(&ctx),
            [
                sample("batt.BAT0.charge_uah", 3000000, 3005000.0),
                sample("batt.BAT0.capacity_pct", 3000000, 100.0),
                sample("batt.BAT0.current_ua", 3000000, 0.0),
                sample("batt.BAT1.capacity_pct", 3000000, 90.0),
                sample("batt.charge_uah", 4000000, 3005000.0),
                sample("batt.capacity_pct", 4000000, 100.0),
                sample("batt.current_ua", 4000000, 0.0),
            ]
        );
        assert_eq!(kind(&ctx, "batt.current_ua"), "battery_counter");
        assert_eq!(
            dim(&ctx, "batt.BAT1.capacity_pct", "battery_name").as_deref(),
            Some("BAT1")
        );
        assert_eq!(
            dim(&ctx, "batt.current_ua", "counter_name").as_deref(),
            Some("current_ua")
        );
    }

    /// Perfetto's diff tests test_charge_from_energy_and_voltage, ..._bad_voltage and
    /// test_power_from_current_and_voltage.
    #[test]
    fn charge_and_power_derived_in_integers() {
        let ctx = battery(vec![
            (3000000, Msg::default().int(6, 56680000).int(7, 17356000)),
            (4000000, Msg::default().int(6, 56600000).int(7, 17356000)),
            (5000000, Msg::default().int(6, 56680000).int(7, 0)),
            (6000000, Msg::default().int(3, 710000).int(7, 11900000)),
            (7000000, Msg::default().int(3, -510000).int(7, 12000000)),
        ]);
        let got: Vec<_> = samples(&ctx)
            .into_iter()
            .filter(|(n, _, _)| n == "batt.charge_uah" || n == "batt.power_mw")
            .collect();
        assert_eq!(
            got,
            [
                sample("batt.charge_uah", 3000000, 3265729.0),
                sample("batt.charge_uah", 4000000, 3261120.0),
                sample("batt.power_mw", 6000000, 8449.0),
                sample("batt.power_mw", 7000000, 6120.0),
            ]
        );
    }

    #[test]
    fn rail_names() {
        assert_eq!(rail_track_name("S3M_VDD_CPUCL1"), "power.rails.cpu.mid");
        assert_eq!(rail_track_name("S4M_VDD_CPUCL0"), "power.rails.cpu.little");
        assert_eq!(
            rail_track_name("L2M_VDD_CPUCL0_M"),
            "power.rails.cpu.little.mem"
        );
        assert_eq!(rail_track_name("S9S_VDD_AOC_RET"), "power.rails.aoc.memory");
        assert_eq!(rail_track_name("S9S_VDD_AOC"), "power.rails.aoc.logic");
        assert_eq!(rail_track_name("VSYS_PWR_DISPLAY"), "power.rails.display");
        assert_eq!(
            rail_track_name("L15M_VDD_SLC_M"),
            "power.L15M_VDD_SLC_M_uws"
        );
        assert_eq!(rail_track_name("test_rail"), "power.test_rail_uws");
    }

    fn trace(packets: Vec<Msg>) -> Vec<u8> {
        packets
            .into_iter()
            .fold(Msg::default(), |t, p| t.msg(1, p))
            .0
    }

    fn descriptor(index: i64, rail: &str, subsys: &str) -> Msg {
        Msg::default().int(1, index).str(2, rail).str(3, subsys)
    }

    fn energy(index: i64, timestamp_ms: Option<i64>, energy: i64) -> Msg {
        let m = Msg::default().int(1, index);
        let m = match timestamp_ms {
            Some(ms) => m.int(2, ms),
            None => m,
        };
        m.int(3, energy)
    }

    /// A power_rails packet: (packet timestamp, PowerRails).
    fn rails_packet(ts: Option<i64>, rails: Msg) -> Msg {
        let p = Msg::default().int(10, 1);
        let p = match ts {
            Some(ts) => p.int(8, ts),
            None => p,
        };
        p.msg(40, rails)
    }

    fn load(packets: Vec<Msg>) -> crate::store::Store {
        let src = TraceSource::from_bytes("rails", trace(packets)).unwrap();
        let opts = LoadOptions {
            progress: false,
            ..LoadOptions::all()
        };
        load_source(src, opts).unwrap().store
    }

    /// Perfetto's diff tests test_power_rails_timestamp_sort and
    /// test_power_rails_well_known_power_rails: each sample is sorted on its own timestamp_ms
    /// (the packet's when absent) and keeps the packet timestamp as `packet_ts`.
    #[test]
    fn rail_samples_sorted_on_their_own_timestamps() {
        let store = load(vec![
            rails_packet(
                None,
                Msg::default().msg(1, descriptor(4, "S3M_VDD_CPUCL1", "cpu")),
            ),
            rails_packet(
                Some(3000003),
                Msg::default().msg(2, energy(4, Some(3), 333)),
            ),
            rails_packet(
                Some(3000005),
                Msg::default()
                    .msg(1, descriptor(3, "S2S_VDD_G3D", "gpu"))
                    .msg(2, energy(4, Some(5), 666))
                    .msg(2, energy(3, None, 999))
                    .msg(2, energy(4, Some(3), 0))
                    .msg(2, energy(9, Some(6), 1)),
            ),
        ]);
        let s = &store;
        let got: Vec<_> = s
            .counters
            .iter()
            .map(|c| {
                let name = s.opt_str(s.tracks[c.track_id as usize].name).unwrap();
                let packet_ts = s
                    .args
                    .get_by_name(&s.strings, c.arg_set_id.get(), "packet_ts");
                (c.ts, packet_ts.cloned(), c.value, name)
            })
            .collect();
        let p = |ts| Some(ArgValue::UInt(ts));
        assert_eq!(
            got,
            [
                (3000000, p(3000003), 333.0, "power.rails.cpu.mid"),
                (3000000, p(3000005), 0.0, "power.rails.cpu.mid"),
                (3000005, p(3000005), 999.0, "power.rails.gpu"),
                (5000000, p(3000005), 666.0, "power.rails.cpu.mid"),
            ]
        );
        // The sample of an undescribed rail is dropped; a descriptor-only packet is "empty".
        assert_eq!(s.stat_value("power_rail_unknown_index"), 1);
        assert_eq!(s.stat_value("power_rail_empty_packet"), 1);
        let t = &s.tracks[s.counters[0].track_id as usize];
        let src = |k| {
            s.args
                .get_by_name(&s.strings, t.source_arg_set_id, k)
                .cloned()
        };
        assert_eq!(
            src("raw_name"),
            Some(ArgValue::Str(s.strings.lookup("S3M_VDD_CPUCL1").unwrap()))
        );
        assert_eq!(
            src("subsystem_name"),
            Some(ArgValue::Str(s.strings.lookup("cpu").unwrap()))
        );
    }

    /// Perfetto's diff test test_power_rails_session_uuid: the same index in two sessions is
    /// two rails.
    #[test]
    fn rails_are_per_session() {
        let mut ctx = Ctx::new();
        let mut imp = PowerImporter::default();
        let session = |uuid, rail| Msg::default().int(3, uuid).msg(1, descriptor(0, rail, "x"));
        imp.rail_descriptors(&mut ctx, &session(100, "CPU_RAIL").0);
        imp.rail_descriptors(&mut ctx, &session(200, "GPU_RAIL").0);
        let mut payload = Vec::new();
        for (uuid, ts, e) in [(100, 1000000, 500), (200, 2000000, 750)] {
            payload.clear();
            EnergySample {
                session_uuid: uuid,
                index: 0,
                energy: e,
                packet_ts: ts,
            }
            .encode(&mut payload);
            imp.energy(&mut ctx, ts, &payload);
        }
        assert_eq!(
            samples(&ctx),
            [
                sample("power.CPU_RAIL_uws", 1000000, 500.0),
                sample("power.GPU_RAIL_uws", 2000000, 750.0),
            ]
        );
        assert_eq!(
            dim(&ctx, "power.GPU_RAIL_uws", "session_uuid").as_deref(),
            Some("200")
        );
        assert_eq!(
            dim(&ctx, "power.GPU_RAIL_uws", "name").as_deref(),
            Some("GPU_RAIL")
        );
        assert_eq!(track(&ctx, "power.GPU_RAIL_uws").scope, TrackScope::Global);
    }
}
