//! AndroidSystemProperty and InitialDisplayState packets, merged with the atrace tracks that
//! carry the same information (ScreenState, DeviceStateChanged, battery_stats.*): both
//! sources write to one global track each, as trace_processor does.

use super::Ctx;
use crate::store::args::{ArgSetId, ArgValue};
use crate::store::strings::StrId;
use crate::store::tracks::TrackSpec;
use crate::store::{CounterRow, EventType, MetaValue, Store, TrackId, TrackScope};
use crate::trace::wire::{Fields, Value};

const PREFIX: &str = "debug.tracing.";

#[derive(Default)]
pub struct AndroidPropsImporter {
    /// The device build facts (SystemInfo and the SDK property).
    pub build: super::build_info::BuildInfo,
}

impl AndroidPropsImporter {
    pub fn system_property(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        for field in Fields::new(data) {
            match field {
                Ok((1, Value::Bytes(kv))) => {
                    let (name, value) = decode_property(kv);
                    if name == super::build_info::SDK_PROPERTY {
                        self.build.sdk_property(value.as_deref().unwrap_or(""));
                        continue;
                    }
                    property(ctx, ts, &name, value.as_deref());
                }
                Ok(_) => {}
                Err(_) => {
                    ctx.store.stat(
                        "android_system_property_malformed",
                        crate::store::Severity::DataLoss,
                        "An AndroidSystemProperty packet was malformed; the properties after the damage were dropped.",
                    );
                    return;
                }
            }
        }
    }

    pub fn initial_display_state(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let mut state = 0i32;
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if id == 1 {
                state = v.as_i32();
            }
        }
        let track = screen_state_track(ctx);
        push_counter(&mut ctx.store, ts, track, state as f64, None);
    }
}

/// (name, value) of one PropertyValue; a missing value is `None`.
fn decode_property(kv: &[u8]) -> (String, Option<String>) {
    let mut name = String::new();
    let mut value = None;
    for (id, v) in Fields::new(kv).map_while(Result::ok) {
        match id {
            1 => name = v.as_string_lossy().into_owned(),
            2 => value = Some(v.as_string_lossy().into_owned()),
            _ => {}
        }
    }
    (name, value)
}

fn property(ctx: &mut Ctx, ts: i64, name: &str, value: Option<&str>) {
    let text = value.unwrap_or("");
    match name {
        "debug.tracing.device_state" => {
            let state = (!text.is_empty()).then(|| ctx.store.intern(text));
            let track = device_state_track(ctx);
            ctx.slices
                .scoped(&mut ctx.store, ts, track, None, state, 0, None);
            return;
        }
        "debug.tracing.wallpaper.package_name" | "debug.tracing.wallpaper.class_name" => {
            ctx.store
                .set_metadata(name, MetaValue::Str(text.to_string()));
            return;
        }
        _ => {}
    }
    // Every other property we know is an integer; anything else is ignored.
    let Some(v) = crate::import::ftrace::atrace::record::c_str_to_i32(text) else {
        return;
    };
    let short = name.strip_prefix(PREFIX).unwrap_or(name);
    let track = match name {
        "debug.tracing.profile_boot_classpath" => {
            let m = MetaValue::Int(v as i64);
            ctx.store.set_metadata("android_profile_boot_classpath", m);
            return;
        }
        "debug.tracing.profile_system_server" => {
            let m = MetaValue::Int(v as i64);
            ctx.store.set_metadata("android_profile_system_server", m);
            return;
        }
        "debug.tracing.screen_state" => screen_state_track(ctx),
        _ if name.starts_with("debug.tracing.battery_stats.") => battery_stats_track(ctx, short),
        "debug.tracing.mcc" | "debug.tracing.mnc" | "debug.tracing.desktop_mode_visible_tasks" => {
            sysprop_track(ctx, name, short)
        }
        "debug.tracing.battery_status" => sysprop_track(ctx, name, "BatteryStatus"),
        "debug.tracing.plug_type" => sysprop_track(ctx, name, "PlugType"),
        _ => return,
    };
    push_counter(&mut ctx.store, ts, track, v as f64, None);
}

pub(crate) fn push_counter(
    store: &mut Store,
    ts: i64,
    track_id: TrackId,
    value: f64,
    arg_set_id: Option<ArgSetId>,
) {
    store.counters.push(CounterRow {
        ts,
        track_id,
        value,
        arg_set_id: arg_set_id.into(),
    });
}

/// The global "ScreenState" counter (atrace `C|..|ScreenState|v`, the screen_state sysprop
/// and InitialDisplayState all write here).
pub(crate) fn screen_state_track(ctx: &mut Ctx) -> TrackId {
    let name = ctx.store.intern("ScreenState");
    let spec = TrackSpec::new("screen_state", EventType::Counter, TrackScope::Global).named(name);
    ctx.tracks.intern(&mut ctx.store, spec)
}

/// The global "DeviceStateChanged" instant track (atrace `N|..|DeviceStateChanged|state`
/// and the device_state sysprop).
pub(crate) fn device_state_track(ctx: &mut Ctx) -> TrackId {
    let name = ctx.store.intern("DeviceStateChanged");
    let spec =
        TrackSpec::new("android_device_state", EventType::Slice, TrackScope::Global).named(name);
    ctx.tracks.intern(&mut ctx.store, spec)
}

/// A global counter named `battery_stats.*` (atrace counters and sysprops share it).
pub(crate) fn battery_stats_track(ctx: &mut Ctx, name: &str) -> TrackId {
    let name = ctx.store.intern(name);
    global_counter_with_dim(ctx, "battery_stats", "counter_key", name, name)
}

fn sysprop_track(ctx: &mut Ctx, prop: &str, display: &str) -> TrackId {
    let prop = ctx.store.intern(prop);
    let display = ctx.store.intern(display);
    global_counter_with_dim(ctx, "sysprop_counter", "sysprop_name", prop, display)
}

/// A global counter track identified by one string dimension whose key is not "name".
/// The dimension value rides in the track key's `extra` slot so the interning stays shared.
fn global_counter_with_dim(
    ctx: &mut Ctx,
    kind: &'static str,
    dim_key: &str,
    dim_value: StrId,
    name: StrId,
) -> TrackId {
    let before = ctx.store.tracks.len();
    let spec = TrackSpec::new(kind, EventType::Counter, TrackScope::Global)
        .named(name)
        .extra(dim_value.index() as i64);
    let id = ctx.tracks.intern(&mut ctx.store, spec);
    if ctx.store.tracks.len() > before {
        let key = ctx.store.intern(dim_key);
        let dims = ctx
            .store
            .args
            .insert_set(vec![(key, ArgValue::Str(dim_value))]);
        ctx.store.tracks[id as usize].dimension_arg_set_id = dims;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn bytes_field(id: u32, b: &[u8], out: &mut Vec<u8>) {
        varint(((id << 3) | 2) as u64, out);
        varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }

    fn props(kvs: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (k, v) in kvs {
            let mut kv = Vec::new();
            bytes_field(1, k.as_bytes(), &mut kv);
            bytes_field(2, v.as_bytes(), &mut kv);
            bytes_field(1, &kv, &mut out);
        }
        out
    }

    fn track_name(ctx: &Ctx, t: TrackId) -> &str {
        ctx.store
            .opt_str(ctx.store.tracks[t as usize].name)
            .unwrap()
    }

    #[test]
    fn screen_state_and_device_state() {
        let mut ctx = Ctx::new();
        let mut imp = AndroidPropsImporter::default();
        let data = props(&[
            ("debug.tracing.screen_state", "2"),
            ("debug.tracing.device_state", "folded"),
            ("debug.tracing.unknown", "5"),
        ]);
        imp.system_property(&mut ctx, 1000, &data);
        imp.initial_display_state(&mut ctx, 1500, &[0x08, 0x01]);
        assert_eq!(ctx.store.counters.len(), 2);
        let c = &ctx.store.counters;
        assert_eq!(c[0].track_id, c[1].track_id);
        assert_eq!(track_name(&ctx, c[0].track_id), "ScreenState");
        assert_eq!((c[0].ts, c[0].value), (1000, 2.0));
        assert_eq!((c[1].ts, c[1].value), (1500, 1.0));
        let s = &ctx.store.slices[0];
        assert_eq!(ctx.store.opt_str(s.name), Some("folded"));
        assert_eq!((s.ts, s.dur), (1000, 0));
        assert_eq!(track_name(&ctx, s.track_id), "DeviceStateChanged");
    }

    #[test]
    fn battery_and_sysprop_counters() {
        let mut ctx = Ctx::new();
        let mut imp = AndroidPropsImporter::default();
        let data = props(&[
            ("debug.tracing.battery_stats.audio", "1"),
            ("debug.tracing.plug_type", "2"),
            ("debug.tracing.mcc", "310"),
            ("debug.tracing.plug_type", "not a number"),
        ]);
        imp.system_property(&mut ctx, 5, &data);
        let names: Vec<_> = ctx
            .store
            .counters
            .iter()
            .map(|c| track_name(&ctx, c.track_id).to_string())
            .collect();
        assert_eq!(names, ["battery_stats.audio", "PlugType", "mcc"]);
        let t = ctx.store.counters[1].track_id as usize;
        let key = ctx.store.strings.lookup("sysprop_name").unwrap();
        let dim = ctx
            .store
            .args
            .get(ctx.store.tracks[t].dimension_arg_set_id, key);
        let want = ctx.store.strings.lookup("debug.tracing.plug_type").unwrap();
        assert_eq!(dim, Some(&ArgValue::Str(want)));
    }

    #[test]
    fn boot_profiling_and_wallpaper_go_to_metadata() {
        let mut ctx = Ctx::new();
        let mut imp = AndroidPropsImporter::default();
        let data = props(&[
            ("debug.tracing.profile_boot_classpath", "1"),
            ("debug.tracing.wallpaper.package_name", "com.example.wall"),
        ]);
        imp.system_property(&mut ctx, 5, &data);
        assert_eq!(
            ctx.store.metadata_int("android_profile_boot_classpath"),
            Some(1)
        );
        assert!(matches!(
            ctx.store.metadata.get("debug.tracing.wallpaper.package_name"),
            Some(MetaValue::Str(s)) if s == "com.example.wall"
        ));
        assert!(ctx.store.counters.is_empty());
    }

    #[test]
    fn sdk_property_feeds_the_build_info_only() {
        let mut ctx = Ctx::new();
        let mut imp = AndroidPropsImporter::default();
        let data = props(&[("ro.build.version.sdk", "32")]);
        imp.system_property(&mut ctx, 5, &data);
        assert!(ctx.store.counters.is_empty());
        assert_eq!(ctx.store.metadata_int("android_sdk_version"), None);
        imp.build.finish(&mut ctx.store);
        assert_eq!(ctx.store.metadata_int("android_sdk_version"), Some(32));
    }

    #[test]
    fn malformed_packet_is_counted_not_fatal() {
        let mut ctx = Ctx::new();
        let mut imp = AndroidPropsImporter::default();
        imp.system_property(&mut ctx, 5, &[0x0a, 0x7f]);
        assert_eq!(ctx.store.stat_value("android_system_property_malformed"), 1);
    }
}
