//! The args of a track event, in trace_processor's order: source location, posted-from
//! location of a task, log message, histogram name, correlation id, legacy async id, the
//! TrackEvent fields it reflects (Chrome's typed fields and extensions), the debug
//! annotations under `debug.`, and the emitting thread of events that live on process or
//! global tracks (`legacy_event.passthrough_utid`).

use super::args::{reflect_field, ArgsSink, KeyPath};
use super::chrome::{self, Reflect};
use super::debug_annotations::{self, Problem};
use super::decode::{interned as iid, te, TrackEvent};
use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::{Severity, Store, Utid};
use crate::trace::interned::InternedData;
use crate::trace::wire::{Fields, Value};

/// What the args of one event depend on besides the event itself.
pub struct Input<'a, 'e> {
    pub event: &'a TrackEvent<'e>,
    pub interned: &'a InternedData,
    pub interval: u32,
    pub utid: Option<Utid>,
    pub legacy_trace_source_id: Option<i64>,
    pub passthrough_utid: Option<Utid>,
}

pub fn parser_error(store: &mut Store) {
    store.stat(
        "track_event_parser_errors",
        Severity::Info,
        "Track events (or parts of their args) that could not be interpreted.",
    );
}

/// An interned message, counting a miss as trace_processor does.
pub fn interned<'a>(
    store: &mut Store,
    data: &'a InternedData,
    interval: u32,
    field: u32,
    id: u64,
) -> Option<&'a [u8]> {
    let m = data.get(interval, field, id);
    if m.is_none() {
        store.stat(
            "interned_data_tokenizer_errors",
            Severity::Info,
            "References to interned data that was never sent on their sequence.",
        );
    }
    m
}

/// The value (field 2) of a string-like interned message.
pub fn interned_string<'a>(
    store: &mut Store,
    data: &'a InternedData,
    interval: u32,
    field: u32,
    id: u64,
) -> Option<&'a [u8]> {
    let m = interned(store, data, interval, field, id)?;
    Some(string_field(m, 2).unwrap_or(&[]))
}

fn string_field(msg: &[u8], field: u32) -> Option<&[u8]> {
    Fields::new(msg)
        .map_while(Result::ok)
        .filter(|(id, _)| *id == field)
        .last()
        .map(|(_, v)| v.as_bytes())
}

fn uint_field(msg: &[u8], field: u32) -> Option<u64> {
    Fields::new(msg)
        .map_while(Result::ok)
        .filter(|(id, _)| *id == field)
        .last()
        .map(|(_, v)| v.as_u64())
}

/// Windows paths use `\`; trace_processor normalises them to `/`.
fn normalized_path(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw).replace('\\', "/")
}

fn add_str(store: &mut Store, sink: &mut ArgsSink, key: &str, value: &str) {
    let k = store.intern(key);
    let v = store.intern(value);
    sink.add(k, k, ArgValue::Str(v));
}

fn add(store: &mut Store, sink: &mut ArgsSink, key: &str, value: ArgValue) {
    let k = store.intern(key);
    sink.add(k, k, value);
}

/// Adds a SourceLocation's file, function and line under `prefix`.
fn source_location(
    store: &mut Store,
    sink: &mut ArgsSink,
    input: &Input<'_, '_>,
    location_iid: u64,
    prefix: &str,
) -> bool {
    if location_iid == 0 {
        return false;
    }
    let Some(loc) = interned(
        store,
        input.interned,
        input.interval,
        iid::SOURCE_LOCATIONS,
        location_iid,
    ) else {
        return false;
    };
    let file = normalized_path(string_field(loc, 2).unwrap_or(&[]));
    let function = String::from_utf8_lossy(string_field(loc, 3).unwrap_or(&[])).into_owned();
    let line = uint_field(loc, 4).unwrap_or(0) as u32;
    add_str(store, sink, &format!("{prefix}.file_name"), &file);
    add_str(store, sink, &format!("{prefix}.function_name"), &function);
    add(
        store,
        sink,
        &format!("{prefix}.line_number"),
        ArgValue::UInt(line as u64),
    );
    true
}

/// Builds the event's args into `sink` (cleared first).
pub fn build(ctx: &mut Ctx, input: &Input<'_, '_>, sink: &mut ArgsSink, path: &mut KeyPath) {
    sink.clear();
    let e = input.event;
    let store = &mut ctx.store;
    if let Some(i) = e.source_location_iid {
        if !source_location(store, sink, input, i, "source") {
            parser_error(store);
        }
    }
    if let Some(task) = e.task_execution {
        let posted_from = uint_field(task, 1).unwrap_or(0);
        if !source_location(store, sink, input, posted_from, "task.posted_from") {
            parser_error(store);
        }
    }
    if let Some(log) = e.log_message {
        log_message(store, sink, input, log);
    }
    if let Some(sample) = e.chrome_histogram_sample {
        if let Some(name_iid) = uint_field(sample, 4) {
            let name = if string_field(sample, 2).is_some() {
                None
            } else {
                interned_string(
                    store,
                    input.interned,
                    input.interval,
                    iid::HISTOGRAM_NAMES,
                    name_iid,
                )
            };
            match name {
                Some(n) => add_str(
                    store,
                    sink,
                    "chrome_histogram_sample.name",
                    &String::from_utf8_lossy(n),
                ),
                None => parser_error(store),
            }
        }
    }
    if let Some(id) = e.correlation_id {
        add_str(store, sink, "correlation_id", &format!("tp:#{id}"));
    }
    if let Some(s) = e.correlation_id_str {
        add_str(store, sink, "correlation_id", &String::from_utf8_lossy(s));
    }
    if let Some(i) = e.correlation_id_str_iid {
        if let Some(s) = interned_string(
            store,
            input.interned,
            input.interval,
            iid::CORRELATION_ID_STR,
            i,
        ) {
            add_str(store, sink, "correlation_id", &String::from_utf8_lossy(s));
        }
    }
    if let Some(id) = input.legacy_trace_source_id {
        add(store, sink, "legacy_trace_source_id", ArgValue::Int(id));
    }
    if e.has_reflectable {
        reflected(ctx, input, sink, path);
    }
    let store = &mut ctx.store;
    if !e.has_debug_annotations {
        passthrough(store, sink, input);
        return;
    }
    path.flat.clear();
    path.key.clear();
    path.push_field("debug");
    let cx = debug_annotations::Context {
        interned: input.interned,
        interval: input.interval,
    };
    for (id, v) in Fields::new(e.bytes).map_while(Result::ok) {
        if id != te::DEBUG_ANNOTATIONS {
            continue;
        }
        match debug_annotations::add(&cx, store, sink, path, v.as_bytes()) {
            Ok(()) => {}
            Err(Problem::Invalid) => parser_error(store),
            Err(Problem::ProtoValue) => store.stat(
                "track_event_proto_debug_annotation_not_imported",
                Severity::Info,
                "Debug annotations holding typed proto values are not imported by frameprobe.",
            ),
        }
    }
    passthrough(store, sink, input);
}

fn passthrough(store: &mut Store, sink: &mut ArgsSink, input: &Input<'_, '_>) {
    if let Some(u) = input.passthrough_utid {
        let k = store.intern("legacy_event.passthrough_utid");
        sink.add_if_absent(k, ArgValue::UInt(u as u64));
    }
}

fn log_message(store: &mut Store, sink: &mut ArgsSink, input: &Input<'_, '_>, log: &[u8]) {
    if input.utid.is_none() {
        parser_error(store);
        return;
    }
    let body_iid = uint_field(log, 2).unwrap_or(0);
    let Some(body) = interned_string(
        store,
        input.interned,
        input.interval,
        iid::LOG_MESSAGE_BODY,
        body_iid,
    ) else {
        parser_error(store);
        return;
    };
    add_str(
        store,
        sink,
        "track_event.log_message.message",
        &String::from_utf8_lossy(body),
    );
    if let Some(loc_iid) = uint_field(log, 1) {
        let Some(loc) = interned(
            store,
            input.interned,
            input.interval,
            iid::SOURCE_LOCATIONS,
            loc_iid,
        ) else {
            parser_error(store);
            return;
        };
        let file = String::from_utf8_lossy(string_field(loc, 2).unwrap_or(&[])).into_owned();
        let function = String::from_utf8_lossy(string_field(loc, 3).unwrap_or(&[])).into_owned();
        let line = uint_field(loc, 4).unwrap_or(0) as u32;
        add_str(store, sink, "track_event.log_message.file_name", &file);
        add_str(
            store,
            sink,
            "track_event.log_message.function_name",
            &function,
        );
        add(
            store,
            sink,
            "track_event.log_message.line_number",
            ArgValue::Int(line as i64),
        );
    }
    // LogMessage.Priority and Android's log priorities share their numbering.
    if let Some(prio) = uint_field(log, 3) {
        add(
            store,
            sink,
            "track_event.priority",
            ArgValue::Int(prio as i32 as i64),
        );
    }
}

/// The TrackEvent fields trace_processor turns into args by reflection.
fn reflected(ctx: &mut Ctx, input: &Input<'_, '_>, sink: &mut ArgsSink, path: &mut KeyPath) {
    let mut unknown = 0u32;
    let mut not_modeled = 0i64;
    for (id, v) in Fields::new(input.event.bytes).map_while(Result::ok) {
        match chrome::reflect(id) {
            Reflect::Skip => {}
            Reflect::Unknown => unknown += 1,
            Reflect::NotModeled => not_modeled += 1,
            Reflect::Args(f) => {
                if id == 49 {
                    active_processes(ctx, v);
                }
                path.flat.clear();
                path.key.clear();
                reflect_field(&mut ctx.store, sink, path, f, v, None, &mut unknown);
            }
        }
    }
    if unknown > 0 {
        ctx.store.stat_add(
            "unknown_extension_fields",
            -1,
            Severity::Error,
            "TrackEvent fields unknown to the schema were not turned into args.",
            unknown as i64,
        );
    }
    if not_modeled > 0 {
        ctx.store.stat_add(
            "track_event_typed_args_not_imported",
            -1,
            Severity::Info,
            "Typed Chrome TrackEvent fields whose schema frameprobe does not carry were not turned into args.",
            not_modeled,
        );
    }
}

/// ChromeActiveProcesses names processes that exist at this point of the trace.
fn active_processes(ctx: &mut Ctx, v: Value<'_>) {
    super::decode::for_each_u64(v.as_bytes(), 1, false, |pid| {
        ctx.procs
            .get_or_create_process(&mut ctx.store, pid as i32 as i64);
    });
}
