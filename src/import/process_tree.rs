//! ProcessTree and ProcessStats packets (trace_processor's system probes parser): processes
//! and threads from /proc scans, cmdline, uid, start time, kernel threads; the per-process
//! counters of ProcessStats are handed to `process_memory`.
//!
//! Both are decoded with the wire scanner rather than prost: cmdlines are not always valid
//! UTF-8, and ProcessStats counters must be handled in wire order (it decides track ids).

use std::collections::HashSet;

use super::Ctx;
use crate::store::args::ArgValue;
use crate::store::processes::ThreadNamePriority;
use crate::store::strings::StrId;
use crate::store::{Severity, Store};
use crate::trace::wire::Fields;

/// Kernel threads are children of kthreadd.
const KTHREADD_PID: u32 = 2;

#[derive(Default)]
pub struct ProcessTreeImporter {}

/// One ProcessTree.Process entry.
#[derive(Default)]
struct ProcessEntry<'a> {
    pid: u32,
    ppid: u32,
    cmdline: Vec<&'a [u8]>,
    uid: Option<u32>,
    start_from_boot: Option<i64>,
    is_kthread: Option<bool>,
    cmdline_is_comm: bool,
}

impl<'a> ProcessEntry<'a> {
    fn decode(data: &'a [u8]) -> Self {
        let mut p = ProcessEntry::default();
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => p.pid = v.as_u32(),
                2 => p.ppid = v.as_u32(),
                3 => p.cmdline.push(v.as_bytes()),
                5 => p.uid = Some(v.as_u32()),
                7 => p.start_from_boot = Some(v.as_i64()),
                8 => p.is_kthread = Some(v.as_bool()),
                9 => p.cmdline_is_comm = v.as_bool(),
                _ => {}
            }
        }
        p
    }
}

/// One ProcessTree.Thread entry.
#[derive(Default)]
struct ThreadEntry<'a> {
    tid: u32,
    tgid: u32,
    name: Option<&'a [u8]>,
}

impl<'a> ThreadEntry<'a> {
    fn decode(data: &'a [u8]) -> Self {
        let mut t = ThreadEntry::default();
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => t.tid = v.as_u32(),
                2 => t.name = Some(v.as_bytes()),
                3 => t.tgid = v.as_u32(),
                _ => {}
            }
        }
        t
    }
}

/// kworker threads report "kworker/<pool>:<id>" plus the last workqueue they served
/// ("kworker/45:2-mm_percpu_wq" or "+..."), which is transient: keep only the worker part.
pub fn truncate_kworker_name(comm: &[u8]) -> &[u8] {
    const PREFIX: &[u8] = b"kworker/";
    if !comm.starts_with(PREFIX) {
        return comm;
    }
    match comm[PREFIX.len()..]
        .iter()
        .position(|&c| c == b'+' || c == b'-')
    {
        Some(i) => &comm[..PREFIX.len() + i],
        None => comm,
    }
}

/// Interns bytes as a name; empty means "no name" (trace_processor's null string).
fn intern_bytes(store: &mut Store, b: &[u8]) -> Option<StrId> {
    if b.is_empty() {
        return None;
    }
    Some(store.intern(&String::from_utf8_lossy(b)))
}

/// The process name and full cmdline trace_processor derives from a Process entry.
fn name_and_cmdline(p: &ProcessEntry<'_>) -> (Vec<u8>, Vec<u8>) {
    let mut argv0: &[u8] = p.cmdline.first().copied().unwrap_or(&[]);
    let mut joined: Option<Vec<u8>> = None;
    if p.ppid == KTHREADD_PID {
        let cut = truncate_kworker_name(argv0);
        if cut.len() != argv0.len() {
            argv0 = cut;
            joined = Some(cut.to_vec());
        }
    }
    // Some processes rewrite their cmdline with spaces instead of NULs: with a single
    // element, the name is taken up to the first space.
    if p.cmdline.len() == 1 {
        if let Some(i) = argv0.iter().position(|&c| c == b' ') {
            argv0 = &argv0[..i];
        }
    }
    let joined = joined.unwrap_or_else(|| p.cmdline.join(&b' '));
    (argv0.to_vec(), joined)
}

impl ProcessTreeImporter {
    pub fn process_tree(&mut self, ctx: &mut Ctx, _ts: i64, data: &[u8]) {
        let mut kthread_pids = HashSet::new();
        let mut threads = Vec::new();
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => Self::process(ctx, &ProcessEntry::decode(v.as_bytes()), &mut kthread_pids),
                2 => threads.push(v.as_bytes()),
                _ => {}
            }
        }
        // All processes first, then threads, whatever their order on the wire.
        for t in threads {
            Self::thread(ctx, &ThreadEntry::decode(t), &kthread_pids);
        }
    }

    fn process(ctx: &mut Ctx, p: &ProcessEntry<'_>, kthread_pids: &mut HashSet<u32>) {
        if p.cmdline.is_empty() {
            return;
        }
        if p.ppid == KTHREADD_PID {
            kthread_pids.insert(p.pid);
        }
        let (name, cmdline) = name_and_cmdline(p);
        let (store, procs) = (&mut ctx.store, &mut ctx.procs);
        let parent = procs.get_or_create_process(store, p.ppid as i64);
        let upid = procs.get_or_create_process(store, p.pid as i64);
        if !procs.set_process_parent(store, upid, parent) {
            store.stat(
                "process_tracker_parent_pid_changed",
                Severity::Info,
                "A process was seen with a changed parent pid and was treated as the same process being reparented rather than pid reuse.",
            );
        }
        let name_id = intern_bytes(store, &name);
        let cmdline_id = intern_bytes(store, &cmdline);
        procs.set_process_metadata(store, upid, name_id, cmdline_id);
        // The "cmdline" of kernel threads (and zombies) is really the main thread's comm.
        if p.cmdline_is_comm {
            let utid = procs.get_or_create_thread(store, p.pid as i64);
            procs.update_thread_name(store, utid, cmdline_id, ThreadNamePriority::ProcessTree);
        }
        if let Some(uid) = p.uid {
            procs.set_process_uid(store, upid, uid as i64);
        }
        // Boot time is the trace clock in Android traces (see the clock note in the report).
        if let Some(start) = p.start_from_boot {
            procs.set_start_ts_if_unset(store, upid, start);
        }
        if let Some(k) = p.is_kthread {
            let key = store.intern("is_kthread");
            procs.add_process_arg(upid, key, ArgValue::Bool(k));
        }
    }

    fn thread(ctx: &mut Ctx, t: &ThreadEntry<'_>, kthread_pids: &HashSet<u32>) {
        let (store, procs) = (&mut ctx.store, &mut ctx.procs);
        procs.update_thread(store, t.tid as i64, t.tgid as i64);
        let Some(name) = t.name else { return };
        let name = if t.tid == t.tgid && kthread_pids.contains(&t.tid) {
            truncate_kworker_name(name)
        } else {
            name
        };
        let name_id = intern_bytes(store, name);
        let utid = procs.get_or_create_thread(store, t.tid as i64);
        procs.update_thread_name(store, utid, name_id, ThreadNamePriority::ProcessTree);
    }

    pub fn process_stats(&mut self, ctx: &mut Ctx, ts: i64, data: &[u8]) {
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            if id == 1 {
                Self::process_counters(ctx, ts, v.as_bytes());
            }
        }
    }

    /// One ProcessStats.Process: each known field becomes a sample on its counter track,
    /// tracks created in wire order.
    fn process_counters(ctx: &mut Ctx, ts: i64, data: &[u8]) {
        let pid = Fields::new(data)
            .map_while(Result::ok)
            .find(|(id, _)| *id == 1)
            .map(|(_, v)| v.as_u32())
            .unwrap_or(0) as i64;
        for (id, v) in Fields::new(data).map_while(Result::ok) {
            match id {
                1 => {}
                11 => {
                    let tid = Fields::new(v.as_bytes())
                        .map_while(Result::ok)
                        .find(|(i, _)| *i == 1)
                        .map(|(_, t)| t.as_u32())
                        .unwrap_or(0);
                    ctx.procs.update_thread(&mut ctx.store, tid as i64, pid);
                }
                15 => {
                    ctx.procs.get_or_create_process(&mut ctx.store, pid);
                }
                // Chrome-only fields, handled (or not) elsewhere in trace_processor.
                12 | 13 => {}
                _ => super::process_memory::process_field(ctx, ts, pid, id, &v),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kworker_name_is_cut_at_first_plus_or_minus() {
        assert_eq!(
            truncate_kworker_name(b"kworker/45:2-mm_percpu_wq"),
            b"kworker/45:2"
        );
        assert_eq!(
            truncate_kworker_name(b"kworker/u16:1+events"),
            b"kworker/u16:1"
        );
        assert_eq!(
            truncate_kworker_name(b"kworker/1:0H-kblockd"),
            b"kworker/1:0H"
        );
        assert_eq!(truncate_kworker_name(b"kworker/R-rcu_g"), b"kworker/R");
        // Only after the "kworker/" prefix, and only for kworkers.
        assert_eq!(truncate_kworker_name(b"kworker/7:1"), b"kworker/7:1");
        assert_eq!(truncate_kworker_name(b"ksoftirqd/1-x"), b"ksoftirqd/1-x");
    }

    fn entry<'a>(ppid: u32, cmdline: Vec<&'a [u8]>) -> ProcessEntry<'a> {
        ProcessEntry {
            pid: 10,
            ppid,
            cmdline,
            ..Default::default()
        }
    }

    #[test]
    fn cmdline_name_rules() {
        let (n, c) = name_and_cmdline(&entry(1, vec![b"/system/bin/app", b"--flag"]));
        assert_eq!(
            (n.as_slice(), c.as_slice()),
            (&b"/system/bin/app"[..], &b"/system/bin/app --flag"[..])
        );
        // A single element with spaces: name up to the first space, cmdline unchanged.
        let (n, c) = name_and_cmdline(&entry(1, vec![b"/usr/sbin/apache2 -k start"]));
        assert_eq!(
            (n.as_slice(), c.as_slice()),
            (
                &b"/usr/sbin/apache2"[..],
                &b"/usr/sbin/apache2 -k start"[..]
            )
        );
        // Kernel threads: the kworker suffix is cut from both.
        let (n, c) = name_and_cmdline(&entry(2, vec![b"kworker/1:0-events"]));
        assert_eq!(
            (n.as_slice(), c.as_slice()),
            (&b"kworker/1:0"[..], &b"kworker/1:0"[..])
        );
        // Not a child of kthreadd: no cut.
        let (n, _) = name_and_cmdline(&entry(1, vec![b"kworker/1:0-events"]));
        assert_eq!(n.as_slice(), b"kworker/1:0-events");
    }
}
