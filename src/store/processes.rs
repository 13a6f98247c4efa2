//! Process and thread identity, following trace_processor's process tracker: upid/utid are
//! row numbers that survive pid/tid reuse, threads are associated with processes as soon as
//! any event tells us how, and names come from the highest-priority source seen.

use std::collections::BTreeMap;

use super::args::ArgValue;
use super::strings::StrId;
use super::{ProcessRow, Store, ThreadRow, Upid, Utid};

/// tid/pid lookups run for every sched_switch: a fast non-cryptographic hash.
type IdMap<K, V> = rustc_hash::FxHashMap<K, V>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ThreadNamePriority {
    Other = 0,
    Ftrace = 1,
    ProcessTree = 2,
    /// A Chrome thread type named by a TrackDescriptor.
    TrackDescriptorThreadType = 3,
    TrackDescriptor = 4,
    TraceProcessorConstant = 5,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProcessNamePriority {
    Other = 0,
    ChromeProcessLabel = 1,
    TrackDescriptor = 2,
    ChromeProcessLabelRenderer = 3,
    System = 4,
}

#[derive(Default)]
pub struct ProcessTracker {
    pids: IdMap<i64, Upid>,
    tids: IdMap<i64, Vec<Utid>>,
    live_tid: IdMap<i64, Utid>,
    process_threads: IdMap<Upid, Vec<Utid>>,
    pending_assocs: Vec<(Utid, Utid)>,
    pending_parent_assocs: Vec<(Utid, Upid)>,
    thread_name_priority: Vec<ThreadNamePriority>,
    process_name_priority: Vec<ProcessNamePriority>,
    process_args: BTreeMap<Upid, Vec<(StrId, ArgValue)>>,
    pub machine_id: Option<u32>,
    /// Bumped by every change that can alter a remembered `update_thread` answer: a thread
    /// started or ended, a process replaced under its pid (or pid 0 made the swapper), and
    /// a pending association between two threads that already have a process (resolving
    /// it touches the other thread again). Nothing else needs to: a remembered thread has
    /// a process and is the newest live match for its ids, so a process created under a
    /// free pid, a thread joining a process or a pending parent cannot change the answer.
    generation: u64,
    /// [`ProcessTracker::update_thread`]'s recent answers, slotted by tid.
    recent: Vec<RecentUpdate>,
}

/// One answer of `update_thread`. It stays right while the generation is unchanged: a
/// second call with the same ids finds the same thread and changes nothing (the first
/// created and associated what was missing and resolved what was pending on it). atrace
/// calls it for every slice begin and end, from a few hundred threads (issue 19).
#[derive(Clone, Copy, Default)]
struct RecentUpdate {
    tid: i64,
    pid: i64,
    generation: u64,
    utid: Utid,
}

const RECENT_SLOTS: usize = 256;

fn recent_slot(tid: i64) -> usize {
    (tid as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> (usize::BITS - 8)
}

impl ProcessTracker {
    /// Creates the swapper rows (upid 0 / utid 0 for pid 0 / tid 0).
    pub fn new(store: &mut Store) -> Self {
        let mut t = ProcessTracker {
            // Slots start at generation 0, so none matches before its first answer.
            generation: 1,
            recent: vec![RecentUpdate::default(); RECENT_SLOTS],
            ..Default::default()
        };
        store.processes.push(ProcessRow {
            pid: 0,
            ..Default::default()
        });
        store.threads.push(ThreadRow {
            tid: 0,
            upid: Some(0),
            is_main_thread: Some(true),
            is_idle: true,
            ..Default::default()
        });
        t.thread_name_priority.push(ThreadNamePriority::Other);
        t.process_name_priority.push(ProcessNamePriority::Other);
        t
    }

    /// pid 0 is the idle process and tid 0 its "swapper" thread (ftrace traces).
    pub fn set_pid_zero_is_swapper(&mut self, store: &mut Store) {
        self.generation += 1;
        self.tids.insert(0, vec![0]);
        self.live_tid.insert(0, 0);
        self.pids.insert(0, 0);
        let name = store.intern("swapper");
        let utid = self.get_or_create_thread(store, 0);
        self.update_thread_name(
            store,
            utid,
            Some(name),
            ThreadNamePriority::TraceProcessorConstant,
        );
    }

    fn start_new_thread(&mut self, store: &mut Store, ts: Option<i64>, tid: i64) -> Utid {
        self.generation += 1;
        let utid = store.threads.len() as Utid;
        store.threads.push(ThreadRow {
            tid,
            start_ts: ts,
            machine_id: self.machine_id,
            ..Default::default()
        });
        self.tids.entry(tid).or_default().push(utid);
        self.live_tid.insert(tid, utid);
        self.thread_name_priority.push(ThreadNamePriority::Other);
        utid
    }

    pub fn start_new_thread_at(&mut self, store: &mut Store, ts: Option<i64>, tid: i64) -> Utid {
        self.start_new_thread(store, ts, tid)
    }

    pub fn end_thread(&mut self, store: &mut Store, ts: i64, tid: i64) {
        let Some(utid) = self.get_thread_or_null(store, tid, None) else {
            return;
        };
        self.generation += 1;
        store.threads[utid as usize].end_ts = Some(ts);
        if let Some(v) = self.tids.get_mut(&tid) {
            v.retain(|&u| u != utid);
        }
        self.refresh_live_tid(store, tid);
        let Some(upid) = store.threads[utid as usize].upid else {
            return;
        };
        if store.processes[upid as usize].pid != tid {
            return;
        }
        store.processes[upid as usize].end_ts = Some(ts);
        self.pids.remove(&tid);
        self.invalidate_process_threads(store, upid);
    }

    pub fn is_thread_alive(&self, store: &Store, utid: Utid) -> bool {
        let t = &store.threads[utid as usize];
        if t.end_ts.is_some() {
            return false;
        }
        let Some(upid) = t.upid else { return true };
        let p = &store.processes[upid as usize];
        if p.end_ts.is_some() {
            return false;
        }
        match self.pids.get(&p.pid) {
            None => true,
            Some(&u) => u == upid,
        }
    }

    /// The live thread with this tid (in process `pid` when given).
    pub fn get_thread_or_null(&self, store: &Store, tid: i64, pid: Option<i64>) -> Option<Utid> {
        let Some(pid) = pid else {
            return self.live_tid.get(&tid).copied();
        };
        let v = self.tids.get(&tid)?;
        for &utid in v.iter().rev() {
            if !self.is_thread_alive(store, utid) {
                continue;
            }
            match store.threads[utid as usize].upid {
                None => return Some(utid),
                Some(upid) if store.processes[upid as usize].pid == pid => return Some(utid),
                _ => {}
            }
        }
        None
    }

    fn refresh_live_tid(&mut self, store: &Store, tid: i64) {
        if let Some(v) = self.tids.get(&tid) {
            for &utid in v.iter().rev() {
                if self.is_thread_alive(store, utid) {
                    self.live_tid.insert(tid, utid);
                    return;
                }
            }
        }
        self.live_tid.remove(&tid);
    }

    fn invalidate_process_threads(&mut self, store: &Store, upid: Upid) {
        let Some(threads) = self.process_threads.get(&upid).cloned() else {
            return;
        };
        for utid in threads {
            let tid = store.threads[utid as usize].tid;
            self.refresh_live_tid(store, tid);
        }
    }

    pub fn get_or_create_thread(&mut self, store: &mut Store, tid: i64) -> Utid {
        match self.get_thread_or_null(store, tid, None) {
            Some(u) => u,
            None => self.start_new_thread(store, None, tid),
        }
    }

    fn get_or_create_thread_with_parent_internal(
        &mut self,
        store: &mut Store,
        tid: i64,
        upid: Upid,
        is_main_thread: bool,
        associate_main_threads: bool,
    ) -> Utid {
        let pid = store.processes[upid as usize].pid;
        // Finding an older thread of this process does not make it the one bare tid lookups
        // resolve to: that stays the newest live thread with the tid.
        let utid = match self.get_thread_or_null(store, tid, Some(pid)) {
            Some(u) => u,
            None => self.start_new_thread(store, None, tid),
        };
        if store.threads[utid as usize].upid.is_none() {
            self.associate_thread_to_process(store, utid, upid, is_main_thread);
        }
        let real_upid = store.threads[utid as usize].upid.unwrap_or(upid);
        self.resolve_pending_associations(store, utid, real_upid, associate_main_threads);
        utid
    }

    pub fn get_or_create_thread_with_parent(
        &mut self,
        store: &mut Store,
        tid: i64,
        upid: Upid,
        associate_main_threads: bool,
    ) -> Utid {
        self.get_or_create_thread_with_parent_internal(
            store,
            tid,
            upid,
            false,
            associate_main_threads,
        )
    }

    /// Says that `tid` belongs to process `pid` (both created as needed).
    pub fn update_thread(&mut self, store: &mut Store, tid: i64, pid: i64) -> Utid {
        let slot = recent_slot(tid);
        if let Some(r) = self.recent.get(slot) {
            if r.generation == self.generation && r.tid == tid && r.pid == pid {
                return r.utid;
            }
        }
        let upid = self.get_or_create_process(store, pid);
        let utid =
            self.get_or_create_thread_with_parent_internal(store, tid, upid, tid == pid, true);
        // A thread born into an ended process is no answer to remember: the next call
        // would not find it alive and would start another.
        if !self.is_thread_alive(store, utid) {
            return utid;
        }
        let generation = self.generation;
        if let Some(r) = self.recent.get_mut(slot) {
            *r = RecentUpdate {
                tid,
                pid,
                generation,
                utid,
            };
        }
        utid
    }

    pub fn update_thread_name(
        &mut self,
        store: &mut Store,
        utid: Utid,
        name: Option<StrId>,
        priority: ThreadNamePriority,
    ) {
        let Some(name) = name else { return };
        let slot = &mut self.thread_name_priority[utid as usize];
        if priority >= *slot {
            store.threads[utid as usize].name = Some(name);
            *slot = priority;
        }
    }

    pub fn update_process_name(
        &mut self,
        store: &mut Store,
        upid: Upid,
        name: Option<StrId>,
        priority: ProcessNamePriority,
    ) {
        let Some(name) = name else { return };
        while self.process_name_priority.len() <= upid as usize {
            self.process_name_priority.push(ProcessNamePriority::Other);
        }
        let slot = &mut self.process_name_priority[upid as usize];
        if priority >= *slot {
            store.processes[upid as usize].name = Some(name);
            *slot = priority;
        }
    }

    pub fn update_thread_name_and_maybe_process_name(
        &mut self,
        store: &mut Store,
        utid: Utid,
        name: Option<StrId>,
        priority: ThreadNamePriority,
    ) {
        self.update_thread_name(store, utid, name, priority);
        let t = &store.threads[utid as usize];
        let Some(upid) = t.upid else { return };
        if store.processes[upid as usize].pid == t.tid {
            self.update_process_name(store, upid, name, ProcessNamePriority::System);
        }
    }

    fn get_or_create_process_internal(
        &mut self,
        store: &mut Store,
        pid: i64,
        associate_main_thread: bool,
    ) -> Upid {
        if let Some(&u) = self.pids.get(&pid) {
            return u;
        }
        let upid = store.processes.len() as Upid;
        store.processes.push(ProcessRow {
            pid,
            machine_id: self.machine_id,
            ..Default::default()
        });
        self.process_name_priority.push(ProcessNamePriority::Other);
        self.pids.insert(pid, upid);
        if associate_main_thread {
            self.update_thread(store, pid, pid);
        }
        upid
    }

    pub fn get_or_create_process(&mut self, store: &mut Store, pid: i64) -> Upid {
        self.get_or_create_process_internal(store, pid, true)
    }

    pub fn get_or_create_process_without_main_thread(
        &mut self,
        store: &mut Store,
        pid: i64,
    ) -> Upid {
        self.get_or_create_process_internal(store, pid, false)
    }

    /// The process currently known under `pid`, if any.
    pub fn process_for_pid(&self, pid: i64) -> Option<Upid> {
        self.pids.get(&pid).copied()
    }

    #[allow(clippy::too_many_arguments)] // mirrors trace_processor's signature
    fn start_new_process_internal(
        &mut self,
        store: &mut Store,
        ts: Option<i64>,
        parent_upid: Option<Upid>,
        pid: i64,
        name: Option<StrId>,
        priority: ThreadNamePriority,
        associate_main_thread: bool,
    ) -> Upid {
        self.generation += 1;
        let recycled = self.pids.remove(&pid);
        self.tids.remove(&pid);
        self.live_tid.remove(&pid);
        if associate_main_thread {
            let utid = self.start_new_thread(store, ts, pid);
            self.update_thread_name(store, utid, name, priority);
        }
        let upid = self.get_or_create_process_internal(store, pid, associate_main_thread);
        if let Some(ts) = ts {
            store.processes[upid as usize].start_ts = Some(ts);
        }
        self.update_process_name(store, upid, name, ProcessNamePriority::System);
        if let Some(p) = parent_upid {
            store.processes[upid as usize].parent_upid = Some(p);
        }
        if let Some(r) = recycled {
            self.invalidate_process_threads(store, r);
        }
        upid
    }

    pub fn start_new_process(
        &mut self,
        store: &mut Store,
        ts: Option<i64>,
        parent_upid: Option<Upid>,
        pid: i64,
        name: Option<StrId>,
        priority: ThreadNamePriority,
    ) -> Upid {
        self.start_new_process_internal(store, ts, parent_upid, pid, name, priority, true)
    }

    pub fn start_new_process_without_main_thread(
        &mut self,
        store: &mut Store,
        ts: Option<i64>,
        parent_upid: Option<Upid>,
        pid: i64,
        name: Option<StrId>,
        priority: ThreadNamePriority,
    ) -> Upid {
        self.start_new_process_internal(store, ts, parent_upid, pid, name, priority, false)
    }

    pub fn associate_created_process_to_parent_thread(
        &mut self,
        store: &mut Store,
        upid: Upid,
        parent_utid: Utid,
    ) {
        match store.threads[parent_utid as usize].upid {
            Some(p) => store.processes[upid as usize].parent_upid = Some(p),
            None => self.pending_parent_assocs.push((parent_utid, upid)),
        }
    }

    pub fn set_process_parent(&mut self, store: &mut Store, upid: Upid, parent: Upid) -> bool {
        let row = &mut store.processes[upid as usize];
        match row.parent_upid {
            None => {
                row.parent_upid = Some(parent);
                true
            }
            Some(p) => p == parent,
        }
    }

    /// Name and cmdline from a /proc scan. An empty (`None`) name leaves the name alone;
    /// the cmdline is always replaced.
    pub fn set_process_metadata(
        &mut self,
        store: &mut Store,
        upid: Upid,
        name: Option<StrId>,
        cmdline: Option<StrId>,
    ) {
        self.update_process_name(store, upid, name, ProcessNamePriority::System);
        store.processes[upid as usize].cmdline = cmdline;
    }

    /// Queues an arg for the process's `arg_set_id` (written by [`Self::flush_args`] at
    /// the end of the trace; a later value for the same key wins).
    pub fn add_process_arg(&mut self, upid: Upid, key: StrId, value: ArgValue) {
        let args = self.process_args.entry(upid).or_default();
        match args.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => args.push((key, value)),
        }
    }

    /// Writes queued process args into arg sets, keeping args the process already had.
    pub fn flush_args(&mut self, store: &mut Store) {
        for (upid, args) in std::mem::take(&mut self.process_args) {
            let Some(row) = store.processes.get(upid as usize) else {
                continue;
            };
            let mut set: Vec<(StrId, ArgValue)> = match row.arg_set_id {
                Some(id) => store
                    .args
                    .set(id)
                    .iter()
                    .map(|a| (a.key, a.value.clone()))
                    .collect(),
                None => Vec::new(),
            };
            for (key, value) in args {
                match set.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = value,
                    None => set.push((key, value)),
                }
            }
            store.processes[upid as usize].arg_set_id = store.args.insert_set(set);
        }
    }

    pub fn set_process_uid(&mut self, store: &mut Store, upid: Upid, uid: i64) {
        let p = &mut store.processes[upid as usize];
        p.uid = Some(uid);
        p.android_appid = Some(uid % 100000);
        p.android_user_id = Some(uid / 100000);
    }

    pub fn set_start_ts_if_unset(&mut self, store: &mut Store, upid: Upid, ts: i64) {
        let p = &mut store.processes[upid as usize];
        if p.start_ts.is_none() {
            p.start_ts = Some(ts);
        }
    }

    /// Two threads are known to share a process (e.g. task_newtask with CLONE_THREAD).
    /// Returns false when they are already in different processes.
    pub fn associate_threads(
        &mut self,
        store: &mut Store,
        a: Utid,
        b: Utid,
        assoc_main: bool,
    ) -> bool {
        let ua = store.threads[a as usize].upid;
        let ub = store.threads[b as usize].upid;
        match (ua, ub) {
            (Some(p), None) => {
                let main =
                    assoc_main && store.threads[b as usize].tid == store.processes[p as usize].pid;
                self.associate_thread_to_process(store, b, p, main);
                self.resolve_pending_associations(store, b, p, assoc_main);
                true
            }
            (None, Some(p)) => {
                let main =
                    assoc_main && store.threads[a as usize].tid == store.processes[p as usize].pid;
                self.associate_thread_to_process(store, a, p, main);
                self.resolve_pending_associations(store, a, p, assoc_main);
                true
            }
            (Some(x), Some(y)) if x != y => false,
            (Some(_), Some(_)) | (None, None) => {
                self.generation += 1;
                self.pending_assocs.push((a, b));
                true
            }
        }
    }

    fn resolve_pending_associations(
        &mut self,
        store: &mut Store,
        utid: Utid,
        upid: Upid,
        assoc_main: bool,
    ) {
        // Called for every thread lookup; almost always nothing is pending.
        if self.pending_parent_assocs.is_empty() && self.pending_assocs.is_empty() {
            return;
        }
        let mut resolved = vec![utid];
        while let Some(u) = resolved.pop() {
            let mut i = 0;
            while i < self.pending_parent_assocs.len() {
                let (parent_utid, child_upid) = self.pending_parent_assocs[i];
                if parent_utid != u {
                    i += 1;
                    continue;
                }
                store.processes[child_upid as usize].parent_upid = Some(upid);
                self.pending_parent_assocs.swap_remove(i);
            }
            let mut end = self.pending_assocs.len();
            let mut i = 0;
            while i < end {
                let (x, y) = self.pending_assocs[i];
                let other = if x == u {
                    y
                } else if y == u {
                    x
                } else {
                    i += 1;
                    continue;
                };
                let main = assoc_main
                    && store.threads[other as usize].tid == store.processes[upid as usize].pid;
                self.associate_thread_to_process(store, other, upid, main);
                end -= 1;
                self.pending_assocs.swap(i, end);
                resolved.push(other);
            }
            self.pending_assocs.truncate(end);
        }
    }

    fn associate_thread_to_process(
        &mut self,
        store: &mut Store,
        utid: Utid,
        upid: Upid,
        is_main: bool,
    ) {
        let t = &mut store.threads[utid as usize];
        t.upid = Some(upid);
        t.is_main_thread = Some(is_main);
        self.process_threads.entry(upid).or_default().push(utid);
    }

    pub fn set_main_thread(&mut self, store: &mut Store, utid: Utid, is_main: bool) {
        store.threads[utid as usize].is_main_thread = Some(is_main);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Store, ProcessTracker) {
        let mut store = Store::default();
        let mut t = ProcessTracker::new(&mut store);
        t.set_pid_zero_is_swapper(&mut store);
        (store, t)
    }

    #[test]
    fn freed_tid_is_reused_as_a_new_thread() {
        let (mut s, mut t) = setup();
        let old = t.update_thread(&mut s, 11, 10);
        assert_eq!(t.get_or_create_thread(&mut s, 11), old);
        t.end_thread(&mut s, 50, 11);
        assert_eq!(s.threads[old as usize].end_ts, Some(50));
        let new = t.get_or_create_thread(&mut s, 11);
        assert_ne!(new, old);
        assert_eq!(s.threads[new as usize].upid, None);
        // The process lives on: only its main thread's free ends it.
        let upid = s.threads[old as usize].upid.unwrap();
        assert_eq!(s.processes[upid as usize].end_ts, None);
        t.end_thread(&mut s, 60, 10);
        assert_eq!(s.processes[upid as usize].end_ts, Some(60));
    }

    #[test]
    fn reused_pid_starts_a_new_process_and_hides_old_threads() {
        let (mut s, mut t) = setup();
        let old_thread = t.update_thread(&mut s, 21, 20);
        let old_upid = s.threads[old_thread as usize].upid.unwrap();
        let new_upid = t.start_new_process(
            &mut s,
            Some(100),
            None,
            20,
            None,
            ThreadNamePriority::Ftrace,
        );
        assert_ne!(new_upid, old_upid);
        // The old process's thread 21 is dead: a bare lookup makes a new thread.
        assert_ne!(t.get_or_create_thread(&mut s, 21), old_thread);
        let main = t.get_or_create_thread(&mut s, 20);
        assert_eq!(s.threads[main as usize].upid, Some(new_upid));
        assert_eq!(s.threads[main as usize].start_ts, Some(100));
    }

    #[test]
    fn same_tid_in_two_processes_resolves_by_pid() {
        let (mut s, mut t) = setup();
        let a = t.update_thread(&mut s, 31, 30);
        let b = t.start_new_thread_at(&mut s, None, 31);
        let up40 = t.get_or_create_process(&mut s, 40);
        let b2 = t.get_or_create_thread_with_parent(&mut s, 31, up40, true);
        assert_eq!(b, b2);
        assert_eq!(t.get_thread_or_null(&s, 31, Some(30)), Some(a));
        assert_eq!(t.get_thread_or_null(&s, 31, Some(40)), Some(b));
    }

    #[test]
    fn lookup_by_pid_does_not_change_the_bare_tid_lookup() {
        let (mut s, mut t) = setup();
        let a = t.update_thread(&mut s, 31, 30);
        let b = t.start_new_thread_at(&mut s, None, 31);
        let up40 = t.get_or_create_process(&mut s, 40);
        t.get_or_create_thread_with_parent(&mut s, 31, up40, true);
        // Process 30 still has its thread 31...
        assert_eq!(t.update_thread(&mut s, 31, 30), a);
        // ...but a bare tid 31 is the newest live thread with that tid.
        assert_eq!(t.get_or_create_thread(&mut s, 31), b);
    }

    #[test]
    fn pending_thread_associations_resolve_transitively() {
        let (mut s, mut t) = setup();
        let a = t.get_or_create_thread(&mut s, 51);
        let b = t.get_or_create_thread(&mut s, 52);
        let c = t.get_or_create_thread(&mut s, 50);
        assert!(t.associate_threads(&mut s, a, b, true));
        assert!(t.associate_threads(&mut s, b, c, true));
        let main = t.update_thread(&mut s, 50, 50);
        assert_eq!(main, c);
        let upid = s.threads[c as usize].upid;
        assert!(upid.is_some());
        assert_eq!(s.threads[a as usize].upid, upid);
        assert_eq!(s.threads[b as usize].upid, upid);
        assert_eq!(s.threads[c as usize].is_main_thread, Some(true));
        assert_eq!(s.threads[a as usize].is_main_thread, Some(false));
    }

    #[test]
    fn thread_names_follow_priority() {
        let (mut s, mut t) = setup();
        let u = t.get_or_create_thread(&mut s, 5);
        let (ftrace1, tree, ftrace2) = (s.intern("f1"), s.intern("tree"), s.intern("f2"));
        t.update_thread_name(&mut s, u, Some(ftrace1), ThreadNamePriority::Ftrace);
        t.update_thread_name(&mut s, u, Some(ftrace2), ThreadNamePriority::Ftrace);
        assert_eq!(s.threads[u as usize].name, Some(ftrace2));
        t.update_thread_name(&mut s, u, Some(tree), ThreadNamePriority::ProcessTree);
        t.update_thread_name(&mut s, u, Some(ftrace1), ThreadNamePriority::Ftrace);
        assert_eq!(s.threads[u as usize].name, Some(tree));
        // "No name" never clears one.
        t.update_thread_name(&mut s, u, None, ThreadNamePriority::ProcessTree);
        assert_eq!(s.threads[u as usize].name, Some(tree));
    }

    /// update_thread's remembered answers never differ from looking again: random runs of
    /// every call that changes threads or processes (tid reuse, pid reuse, pending and
    /// parent associations) over a few ids, against a tracker that remembers nothing.
    #[test]
    fn remembered_thread_updates_match_fresh_lookups() {
        for seed in 1..=200u64 {
            let (mut s1, mut t1) = setup();
            let (mut s2, mut t2) = setup();
            t2.recent.clear();
            let mut x = seed;
            let mut next = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            for step in 0..300i64 {
                let (tid, pid, other) = (next(12) as i64, next(5) as i64, next(12) as i64);
                let op = next(13);
                let run = |s: &mut Store, t: &mut ProcessTracker| -> Option<u32> {
                    match op {
                        0..=3 => Some(t.update_thread(s, tid, pid)),
                        4 => Some(t.get_or_create_thread(s, tid)),
                        5 => {
                            t.end_thread(s, step, tid);
                            None
                        }
                        6 => Some(t.start_new_process(
                            s,
                            Some(step),
                            None,
                            pid,
                            None,
                            ThreadNamePriority::Ftrace,
                        )),
                        7 => {
                            let a = t.get_or_create_thread(s, tid);
                            let b = t.get_or_create_thread(s, other);
                            Some(t.associate_threads(s, a, b, true) as u32)
                        }
                        8 => {
                            let parent = t.get_or_create_thread(s, other);
                            let upid = t.get_or_create_process_without_main_thread(s, pid);
                            t.associate_created_process_to_parent_thread(s, upid, parent);
                            Some(upid)
                        }
                        9 => {
                            let upid = t.get_or_create_process(s, pid);
                            Some(t.get_or_create_thread_with_parent(s, tid, upid, true))
                        }
                        10 => Some(t.start_new_thread_at(s, Some(step), tid)),
                        11 => Some(t.start_new_process_without_main_thread(
                            s,
                            Some(step),
                            None,
                            pid,
                            None,
                            ThreadNamePriority::Ftrace,
                        )),
                        12 => {
                            t.set_pid_zero_is_swapper(s);
                            None
                        }
                        _ => unreachable!(),
                    }
                };
                let (r1, r2) = (run(&mut s1, &mut t1), run(&mut s2, &mut t2));
                assert_eq!(r1, r2, "seed {seed} step {step} op {op}");
            }
            let threads = |s: &Store| -> Vec<_> {
                s.threads
                    .iter()
                    .map(|r| (r.tid, r.upid, r.end_ts, r.is_main_thread))
                    .collect()
            };
            let procs = |s: &Store| -> Vec<_> {
                s.processes
                    .iter()
                    .map(|p| (p.pid, p.end_ts, p.parent_upid))
                    .collect()
            };
            assert_eq!(threads(&s1), threads(&s2), "seed {seed}");
            assert_eq!(procs(&s1), procs(&s2), "seed {seed}");
        }
    }

    /// Two threads of one process said to share it again: the next update of either is
    /// not answered from memory, as resolving the pair makes the process's main thread
    /// its main thread (which a lookup without the main-thread rule had left unset).
    #[test]
    fn a_pair_of_threads_already_in_one_process_is_resolved_on_the_next_update() {
        let run = |remember: bool| {
            let (mut s, mut t) = setup();
            if !remember {
                t.recent.clear();
            }
            let p = t.get_or_create_process_without_main_thread(&mut s, 50);
            let main = t.get_or_create_thread_with_parent(&mut s, 50, p, false);
            let other = t.update_thread(&mut s, 51, 50);
            assert!(t.associate_threads(&mut s, other, main, true));
            assert_eq!(t.update_thread(&mut s, 51, 50), other);
            s.threads[main as usize].is_main_thread
        };
        assert_eq!(run(true), run(false));
        assert_eq!(run(true), Some(true));
    }

    #[test]
    fn swapper_is_utid_zero() {
        let (mut s, mut t) = setup();
        assert_eq!(t.get_or_create_thread(&mut s, 0), 0);
        assert_eq!(s.opt_str(s.threads[0].name), Some("swapper"));
        assert_eq!(t.get_or_create_process(&mut s, 0), 0);
    }
}
