//! Slice names made comparable across runs, as trace_processor v58.2 does it: its
//! `__intrinsic_strip_hex` (numbers and hex ids become `<num>`) and the stdlib function
//! `android_standardize_slice_name` (module `android.slices`), which
//! `android.critical_blocking_calls` applies to every blocking call. Registered on every
//! connection under Perfetto's names; the causes use them directly.

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

use super::glob::glob;

/// `__intrinsic_strip_hex(s, min)`: every run of hex digits that starts a word (at the
/// start, after a character that is not a letter or digit, at a digit, or after `0x`) and
/// holds a decimal digit (or follows `0x`) becomes `<num>` when it is at least `min` long.
pub fn strip_hex(s: &str, min: usize) -> String {
    strip_hex_as(s, min, "<num>")
}

/// [`strip_hex`] writing `token` in place of each run.
pub fn strip_hex_as(s: &str, min: usize, token: &str) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let mut after_0x = false;
        if (c == b'x' || c == b'X') && i >= 1 && b[i - 1] == b'0' {
            out.push(c);
            i += 1;
            after_0x = true;
        } else if !c.is_ascii_alphanumeric() {
            out.push(c);
            i += 1;
        } else if (i == 0 && c.is_ascii_hexdigit()) || c.is_ascii_digit() {
            // A run starts here.
        } else {
            out.push(c);
            i += 1;
            continue;
        }
        let start = i;
        let mut has_digit = after_0x;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            has_digit |= b[i].is_ascii_digit();
            i += 1;
        }
        if has_digit && i - start >= min {
            out.extend_from_slice(token.as_bytes());
        } else {
            out.extend_from_slice(&b[start..i]);
        }
    }
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// SQLite's `substr(s, 1, n)` on characters (n >= 0).
fn prefix_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// SQLite's `instr(s, pat)`: the 1-based character position, 0 when absent.
fn instr(s: &str, pat: &str) -> usize {
    s.find(pat).map_or(0, |i| s[..i].chars().count() + 1)
}

/// SQLite's `substr(s, start)` with a 1-based character start (0 behaves as 1).
fn from_char(s: &str, start: usize) -> &str {
    let skip = start.saturating_sub(1);
    match s.char_indices().nth(skip) {
        Some((i, _)) => &s[i..],
        None => "",
    }
}

/// `_remove_lambda_name`: the name up to its first `$`, numbers stripped. SQLite's
/// `substr(name, 0, instr(name, '$'))` keeps `instr - 1` characters.
fn remove_lambda(name: &str) -> String {
    let n = instr(name, "$").saturating_sub(1);
    strip_hex(prefix_chars(name, n), 2)
}

fn wakelock(name: &str) -> String {
    let tag = if glob("Wakelock(epolld*", name) {
        "epolld"
    } else {
        "epollm"
    };
    let colon = instr(name, ":");
    if colon == 0 {
        return strip_hex(name, 2);
    }
    let upto = instr(name, tag) + tag.len() - 1;
    format!(
        "{}<...>{}",
        prefix_chars(name, upto),
        from_char(name, colon)
    )
}

/// `_standardize_vsync_slice_name`.
fn vsync(name: &str) -> String {
    const FIXED: &[(&str, &str)] = &[
        ("beginFrame*", "beginFrame <...>"),
        ("frameIsEarly*", "frameIsEarly <...>"),
        ("*vsync*in*", "vsync in <...>"),
        ("present for*vsyncIn*", "present for vsync in <...>"),
        (
            "wait for earliest present time*",
            "wait for earliest present time <vsync>",
        ),
        ("present for Common Panel*", "present for Common Panel"),
        ("frameTimelineInfo*", "frameTimelineInfo <...>"),
        ("*setFrameTimelineInfo*", "setFrameTimelineInfo <...>"),
        (
            "*AChoreographer_vsyncCallback*",
            "AChoreographer_vsyncCallback <...>",
        ),
        (
            "unsync-vsync-id=* isSfChoreo=false",
            "unsync-vsync-id=<...> isSfChoreo=false",
        ),
        (
            "unsync-vsync-id=* isSfChoreo=true",
            "unsync-vsync-id=<...> isSfChoreo=true",
        ),
        ("Discarding old vsync*", "Discarding old vsync"),
        ("setDisplayModePtr*", "setDisplayModePtr"),
        ("adjusting vsync by*", "adjusting vsync by <...>"),
        ("Not-Adjusting vsync by*", "Not-Adjusting vsync by <...>"),
        ("dropping stale frameNumber*", "dropping stale frameNumber <...>"),
        (
            "Sensor event from com.google.sensor.camera_vsync*",
            "Sensor event from com.google.sensor.camera_vsync <...>",
        ),
        ("*DisplayInfo*", "DisplayInfo <...>"),
        ("Choreographer#onVsync*", "Choreographer#onVsync<...>"),
        (
            "appSf alarm*;*VSYNC in*",
            "appSf alarm in <...>; vsync in <...>",
        ),
        ("sf alarm*;*VSYNC in*", "sf alarm in <...>; vsync in <...>"),
        ("app alarm*;*VSYNC in*", "app alarm in <...>; vsync in <...>"),
        ("FT#*", "FT#FrameTrackerEvent"),
        ("*isVsyncValid*", "isVsyncValid <...>"),
        ("onHardwareVsyncRequest*", "onHardwareVsyncRequest <...>"),
        ("onComposerHalVsync*", "onComposerHalVsync <...>"),
        (
            "ensureMinFrameDurationIsKept*mNumVsyncsForFrame=*mPastExpectedPresentTimes.size()=*",
            "ensureMinFrameDurationIsKept mNumVsyncsForFrame=<...> mPastExpectedPresentTimes.size()=<...>",
        ),
        ("*lastVsyncDelta*", "lastVsyncDelta=<...>"),
        ("mLastCommittedVsync in*", "mLastCommittedVsync in <...>"),
    ];
    FIXED
        .iter()
        .find(|(g, _)| glob(g, name))
        .map_or_else(|| strip_hex(name, 2), |(_, r)| r.to_string())
}

/// Names whose standard form is a constant, in Perfetto's order (before the computed ones).
const FIXED: &[(&str, &str)] = &[
    ("monitor contention with*", "monitor contention with <...>"),
    ("SuspendThreadByThreadId*", "SuspendThreadByThreadId <...>"),
    ("LoadApkAssetsFd*", "LoadApkAssetsFd <...>"),
    ("relayoutWindow*", "relayoutWindow <...>"),
    (
        "android.os.Handler: kotlinx.coroutines*",
        "CoroutineContinuation",
    ),
    ("Choreographer#doFrame*", "Choreographer#doFrame"),
    ("DrawFrames*", "DrawFrames"),
];

const FIXED_AFTER_DRAW_LAYER: &[(&str, &str)] = &[
    ("Texture upload*", "Texture upload"),
    (
        "AssetManager::OpenNonAsset*",
        "AssetManager::OpenNonAsset <...>",
    ),
    (
        "AssetManager::OpenXmlAsset*",
        "AssetManager::OpenXmlAsset <...>",
    ),
    ("AssetManager::OpenAsset*", "AssetManager::OpenAsset <...>"),
    ("*AssetInputStream*", "AssetInputStream"),
    ("openTypedAssetFile*", "openTypedAssetFile <...>"),
    ("LoadApkAssets*", "LoadApkAssets <...>"),
    ("*AssetLoader:*", "AssetLoader: <...>"),
    ("JIT compiling*", "JIT compiling"),
    ("requested config :*", "requested config : <...>"),
    ("/data/app*.apk", "APK load"),
    ("OpenDexFilesFromOat*", "OpenDexFilesFromOat"),
    ("Open oat file*", "Open oat file"),
    ("Open dex file*", "Open dex file"),
    ("VdexFile*", "VdexFile"),
    ("GC: Wait For*", "Garbage Collector"),
    (
        "prepareDispatchCycleLocked*",
        "prepareDispatchCycleLocked <...>",
    ),
    (
        "enqueueDispatchEntryAndStartDispatchCycleLocked*",
        "enqueueDispatchEntryAndStartDispatchCycleLocked <...>",
    ),
    ("Layers: *", "Layers: <...>"),
];

const FIXED_AFTER_SURFACE_VIEW: &[(&str, &str)] = &[
    ("uid=*", "uid = <...>"),
    ("wakeupap=*", "wakeupap = <...>"),
    ("launchingActivity#*", "launchingActivity#<...>"),
    ("updateUidStateUL*", "updateUidStateUL <...>"),
];

const FIXED_AFTER_WAKELOCK: &[(&str, &str)] = &[
    ("cpuhp*", "cpuhp<...>"),
    ("atc*", "atc<...>"),
    ("[0-9]* Alarm:*", "Alarm: <...>"),
    ("[0-9]* Wifi:*", "Wifi: <...>"),
    ("[0-9]* Sensor:*", "Sensor: <...>"),
    ("*Cellular_data*", "Cellular_data <...>"),
    (
        "*GET_ACTIVITY_INFO ModemActivityInfo*",
        "<...>GET_ACTIVITY_INFO ModemActivityInfo <...>",
    ),
    ("UNSOL_SIGNAL_STRENGTH*", "UNSOL_SIGNAL_STRENGTH <...>"),
    ("*GET_CELL_INFO_LIST*", "<...> GET_CELL_INFO_LIST <...>"),
    (
        "*VOICE_REGISTRATION_STATE*",
        "<...> VOICE_REGISTRATION_STATE <...>",
    ),
    (
        "*DATA_REGISTRATION_STATE*",
        "<...> DATA_REGISTRATION_STATE <...>",
    ),
    (
        "InputConsumer processing on ClientState*",
        "InputConsumer processing on ClientState<...>",
    ),
];

fn fixed(table: &[(&str, &str)], name: &str) -> Option<String> {
    table
        .iter()
        .find(|(g, _)| glob(g, name))
        .map(|(_, r)| r.to_string())
}

/// GLOB with a character class at the start (`[0-9]*`), which [`glob`] does not know.
fn glob_class(pattern: &str, name: &str) -> bool {
    match pattern.strip_prefix("[0-9]") {
        Some(rest) => {
            name.as_bytes().first().is_some_and(u8::is_ascii_digit) && glob(rest, &name[1..])
        }
        None => glob(pattern, name),
    }
}

/// `android_standardize_slice_name(name)`.
pub fn standardize(name: &str) -> String {
    if let Some(s) = fixed(FIXED, name) {
        return s;
    }
    // "drawLayer [Node] 55.0 x 55.0" -> "drawLayer [Node]".
    if name
        .strip_prefix("drawLayer [")
        .is_some_and(|rest| rest.contains(']'))
    {
        return prefix_chars(name, instr(name, "]")).to_string();
    }
    if let Some(s) = fixed(FIXED_AFTER_DRAW_LAYER, name) {
        return s;
    }
    // "… SurfaceView[…](BLAST)#12" -> "SurfaceView[…](BLAST)".
    if glob("* SurfaceView*(BLAST)#*", name) {
        let sv = instr(name, "SurfaceView");
        let hash = instr(name, "#");
        let len = hash.saturating_sub(sv);
        return prefix_chars(from_char(name, sv), len).to_string();
    }
    if let Some(s) = fixed(FIXED_AFTER_SURFACE_VIEW, name) {
        return s;
    }
    if glob("Wakelock(epolld*", name) || glob("Wakelock(epollm*", name) {
        return wakelock(name);
    }
    if let Some((_, r)) = FIXED_AFTER_WAKELOCK
        .iter()
        .find(|(g, _)| glob_class(g, name))
    {
        return r.to_string();
    }
    if glob("Transaction (*, *)", name) {
        let comma = instr(name, ",");
        if glob("Transaction (Thread-*, *)", name) {
            let paren = instr(name, "(");
            // Perfetto keeps the text from the comma on, so the comma appears twice.
            return format!(
                "{}Thread-<...>,{}",
                prefix_chars(name, paren),
                from_char(name, comma)
            );
        }
        return format!("{}<...>)", prefix_chars(name, comma + 1));
    }
    if glob("Lock contention on* (*", name) {
        // substr(name, 0, instr(name, '(')) keeps the characters before the '('.
        let paren = instr(name, "(");
        return format!("{}<...>", prefix_chars(name, paren.saturating_sub(1)));
    }
    if glob("*Handler: *$*", name) {
        return remove_lambda(from_char(name, instr(name, "Handler:")));
    }
    if glob("*.*.*: *$*", name) {
        // substr(name, ': ') casts ': ' to the integer 0: the whole name.
        return format!("Handler: {}", remove_lambda(name));
    }
    if glob("*.*$*: #*", name) {
        return format!("Handler: {}", remove_lambda(name));
    }
    if glob("deliverInputEvent*", name) {
        return "deliverInputEvent <...>".to_string();
    }
    if name.to_lowercase().contains("vsync") {
        return vsync(name);
    }
    if glob("StatsPull-*", name) {
        return name.to_string();
    }
    strip_hex(name, 2)
}

/// Registers `__intrinsic_strip_hex` and `android_standardize_slice_name`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("__intrinsic_strip_hex", 2, flags, |ctx| {
        let s: Option<String> = ctx.get(0)?;
        let min: Option<i64> = ctx.get(1)?;
        Ok(s.zip(min).map(|(s, m)| strip_hex(&s, m.max(0) as usize)))
    })?;
    conn.create_scalar_function("android_standardize_slice_name", 1, flags, |ctx| {
        let s: Option<String> = ctx.get(0)?;
        Ok(s.map(|s| standardize(&s)))
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_hex_replaces_numbers_that_start_words() {
        assert_eq!(
            strip_hex("Texture upload(2634389) 192x192", 2),
            "Texture upload(<num>) <num>x<num>"
        );
        assert_eq!(strip_hex("addr 0xdeadbeef end", 2), "addr 0x<num> end");
        // A word starting the name is a run when it is hex; inside a word it is not.
        assert_eq!(strip_hex("a1 b", 2), "<num> b");
        assert_eq!(strip_hex("ga1 b", 2), "ga1 b");
        assert_eq!(strip_hex("7 x", 2), "7 x");
        assert_eq!(strip_hex("12 x", 2), "<num> x");
        assert_eq!(strip_hex("beef 1234", 2), "beef <num>");
        assert_eq!(strip_hex("measure", 2), "measure");
    }

    #[test]
    fn blocking_call_names_as_perfetto_standardises_them() {
        assert_eq!(
            standardize("monitor contention with owner a (1) at x"),
            "monitor contention with <...>"
        );
        assert_eq!(standardize("DrawFrames 123"), "DrawFrames");
        assert_eq!(
            standardize("drawLayer [DoubleShadowNode] 55.0 x 55.0"),
            "drawLayer [DoubleShadowNode]"
        );
        assert_eq!(standardize("Texture upload(2) 72x72"), "Texture upload");
        assert_eq!(
            standardize("GC: Wait For Completion Alloc"),
            "Garbage Collector"
        );
        assert_eq!(
            standardize("Lock contention on thread list lock (owner tid: 1665)"),
            "Lock contention on thread list lock <...>"
        );
        assert_eq!(
            standardize(
                "android.os.Handler: com.android.systemui.qs.external.TileServiceManager$1"
            ),
            "Handler: com.android.systemui.qs.external.TileServiceManager"
        );
        assert_eq!(
            standardize("android.os.AsyncTask$InternalHandler: #1"),
            "Handler: android.os.AsyncTask"
        );
        assert_eq!(
            standardize("Transaction (ptz-fgd-1-LOCAL_MEDIA, 11910)"),
            "Transaction (ptz-fgd-1-LOCAL_MEDIA, <...>)"
        );
        assert_eq!(standardize("measure"), "measure");
        assert_eq!(standardize("binder transaction"), "binder transaction");
        assert_eq!(
            standardize("Choreographer#onVsync 5"),
            "Choreographer#onVsync<...>"
        );
        assert_eq!(
            standardize("Transaction (Thread-3, 12)"),
            "Transaction (Thread-<...>,, 12)"
        );
        assert_eq!(standardize("12 Alarm: x"), "Alarm: <...>");
    }
}
