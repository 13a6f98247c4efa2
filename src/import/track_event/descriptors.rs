//! The parse-time half of Track / Thread / ProcessDescriptor packets (in timestamp order):
//! resolving a descriptor creates its thread or process, and descriptors name them — a
//! thread's descriptor name outranks names from ftrace and /proc scans, a process's only
//! fills in when the system gave none; Chrome's process and thread types give fallback
//! names and process args.

use super::chrome;
use super::decode::{
    chrome_thread_type, for_each_bytes, ChromeProcessDescriptor, ProcessDescriptor,
    ThreadDescriptor, TrackDescriptor,
};
use super::event_args::parser_error;
use super::tracks::synthetic_tid;
use super::TrackEventImporter;
use crate::import::Ctx;
use crate::store::args::ArgValue;
use crate::store::processes::{ProcessNamePriority, ThreadNamePriority};
use crate::store::{Upid, Utid};

impl TrackEventImporter {
    pub fn parse_track_descriptor(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let d = TrackDescriptor::decode(data);
        // Resolving makes sure the track's thread / process (and its parents') exist.
        if self.tracks.resolve(ctx, d.uuid.unwrap_or(0)).is_none() {
            parser_error(&mut ctx.store);
            return;
        }
        if let Some(thread) = d.thread {
            let (thread_type, sandboxed) =
                d.chrome_thread.map_or((None, false), chrome_thread_type);
            let utid = parse_thread_descriptor(ctx, thread, sandboxed);
            if let Some(name) = thread_type.and_then(chrome::thread_name) {
                let name = ctx.store.intern(name);
                ctx.procs.update_thread_name(
                    &mut ctx.store,
                    utid,
                    Some(name),
                    ThreadNamePriority::TrackDescriptorThreadType,
                );
            }
        } else if let Some(process) = d.process {
            let upid = parse_process_descriptor(ctx, ts, process);
            if let Some(c) = d.chrome_process {
                chrome_process_descriptor(ctx, upid, c);
            }
        }
    }
}

/// Names the thread of a ThreadDescriptor (its name, else its Chrome thread type).
pub fn parse_thread_descriptor(ctx: &mut Ctx, data: &[u8], sandboxed: bool) -> Utid {
    let t = ThreadDescriptor::decode(data);
    let pid = t.pid.unwrap_or(0) as i64;
    let mut tid = t.tid.unwrap_or(0);
    if sandboxed {
        tid = synthetic_tid(tid, pid);
    }
    let utid = ctx.procs.update_thread(&mut ctx.store, tid, pid);
    let name = match t.thread_name.filter(|n| !n.is_empty()) {
        Some(n) => Some(super::intern_str(&mut ctx.store, n)),
        None => t
            .chrome_thread_type
            .and_then(chrome::thread_name)
            .map(|n| ctx.store.intern(n)),
    };
    ctx.procs.update_thread_name(
        &mut ctx.store,
        utid,
        name,
        ThreadNamePriority::TrackDescriptor,
    );
    utid
}

/// Creates the process of a ProcessDescriptor; its name is used only when nothing better
/// names the process.
pub fn parse_process_descriptor(ctx: &mut Ctx, _ts: i64, data: &[u8]) -> Upid {
    let p = ProcessDescriptor::decode(data);
    let store = &mut ctx.store;
    let upid = ctx
        .procs
        .get_or_create_process(store, p.pid.unwrap_or(0) as i64);
    if let Some(name) = p
        .process_name
        .and_then(|n| super::intern_nonempty(store, n))
    {
        ctx.procs.update_process_name(
            store,
            upid,
            Some(name),
            ProcessNamePriority::TrackDescriptor,
        );
    }
    if let Some(start) = p.start_timestamp_ns.filter(|&s| s > 0) {
        ctx.procs.set_start_ts_if_unset(store, upid, start);
    }
    if let Some(ty) = p.chrome_process_type {
        let name = chrome::process_name(ty).map(|n| store.intern(n));
        let priority = if ty == 2 {
            ProcessNamePriority::ChromeProcessLabelRenderer
        } else {
            ProcessNamePriority::ChromeProcessLabel
        };
        ctx.procs.update_process_name(store, upid, name, priority);
    }
    let mut i = 0;
    for_each_bytes(p.bytes, ProcessDescriptor::PROCESS_LABELS, |label| {
        let key = store.intern(&format!("chrome.process_label[{i}]"));
        let value = store.intern(&String::from_utf8_lossy(label));
        ctx.procs.add_process_arg(upid, key, ArgValue::Str(value));
        i += 1;
    });
    upid
}

/// Chrome's process type names the process (below system names) and is recorded in the
/// process's args, with the embedding app and the crash trace id.
fn chrome_process_descriptor(ctx: &mut Ctx, upid: Upid, data: &[u8]) {
    let c = ChromeProcessDescriptor::decode(data);
    let store = &mut ctx.store;
    let name = chrome::process_name(c.process_type).map(|n| store.intern(n));
    let priority = if chrome::is_renderer(c.process_type) {
        ProcessNamePriority::ChromeProcessLabelRenderer
    } else {
        ProcessNamePriority::ChromeProcessLabel
    };
    ctx.procs.update_process_name(store, upid, name, priority);
    if let Some(n) = name {
        let k = store.intern("chrome.process_type");
        ctx.procs.add_process_arg(upid, k, ArgValue::Str(n));
    }
    if let Some(pkg) = c.host_app_package_name {
        let k = store.intern("chrome.host_app_package_name");
        let v = store.intern(&String::from_utf8_lossy(pkg));
        ctx.procs.add_process_arg(upid, k, ArgValue::Str(v));
    }
    if let Some(id) = c.crash_trace_id {
        let k = store.intern("chrome.crash_trace_id");
        ctx.procs.add_process_arg(upid, k, ArgValue::UInt(id));
    }
}
