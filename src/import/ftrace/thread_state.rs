//! The `thread_state` table (trace_processor's thread state tracker): per thread, a run of
//! states "Running" (on a CPU), "R" (runnable, after a wakeup or preemption) and the blocked
//! states of sched_switch's end_state ("S", "D", ...). Each state is open (dur -1) until the
//! thread's next transition. sched_blocked_reason, which the kernel emits while waking a
//! task that slept uninterruptibly, annotates the thread's latest blocked state afterwards.

use crate::store::strings::StrId;
use crate::store::{SpuriousWakeupRow, Store, ThreadStateRow, Utid};

/// TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ in an event's common_flags.
const IRQ_FLAGS: u32 = 0x08 | 0x10;

const NO_ROW: u32 = u32::MAX;

/// A thread's latest row, and its latest blocked row while it has not run since.
#[derive(Clone, Copy)]
struct Latest {
    row: u32,
    blocked: u32,
}

const NO_LATEST: Latest = Latest {
    row: NO_ROW,
    blocked: NO_ROW,
};

pub struct ThreadStateTracker {
    running: StrId,
    runnable: StrId,
    latest: Vec<Latest>,
}

impl ThreadStateTracker {
    pub fn new(store: &mut Store) -> Self {
        ThreadStateTracker {
            running: store.intern("Running"),
            runnable: store.intern("R"),
            latest: Vec::new(),
        }
    }

    fn latest(&self, utid: Utid) -> Latest {
        self.latest.get(utid as usize).copied().unwrap_or(NO_LATEST)
    }

    fn last(&self, utid: Utid) -> Option<u32> {
        let row = self.latest(utid).row;
        (row != NO_ROW).then_some(row)
    }

    /// Everything but Running and R is blocked, including a NULL (undecodable) state.
    fn is_blocked(&self, state: Option<StrId>) -> bool {
        state != Some(self.running) && state != Some(self.runnable)
    }

    /// Ends the thread's open state at `ts`, unless data was lost (the duration is then
    /// unknown and stays -1).
    fn close(&self, store: &mut Store, ts: i64, utid: Utid, data_loss: bool) {
        let Some(last) = self.last(utid) else { return };
        if data_loss {
            return;
        }
        let states = &mut store.thread_states;
        if (last as usize) < states.len() {
            states.set_dur(last as usize, ts - states.ts(last as usize));
        }
    }

    /// Opens a state. The idle thread (utid 0) has no states. `state` is `None` when the
    /// end_state could not be decoded (a NULL state, which counts as blocked).
    #[allow(clippy::too_many_arguments)]
    fn open(
        &mut self,
        store: &mut Store,
        ts: i64,
        utid: Utid,
        state: Option<StrId>,
        cpu: Option<u32>,
        waker: Option<Utid>,
        common_flags: Option<u32>,
    ) {
        if utid == 0 {
            return;
        }
        // A waker that is not running (trace start, data loss) gives no waker state.
        let waker_id = waker
            .and_then(|w| self.last(w))
            .filter(|&r| store.thread_states.state(r as usize) == Some(self.running));
        let row = store.thread_states.len() as u32;
        store.thread_states.push(ThreadStateRow::new(
            ts,
            utid,
            state,
            cpu.map(|c| c as u16),
            waker.map(|w| (w, waker_id)),
            common_flags.map(|f| f & IRQ_FLAGS != 0),
        ));
        let i = utid as usize;
        if i >= self.latest.len() {
            self.latest.resize(i + 1, NO_LATEST);
        }
        let latest = &mut self.latest[i];
        latest.row = row;
        // Running forgets the blocked row (a late blocked reason no longer applies); a
        // runnable state keeps it (the blocked reason arrives after the waking).
        if state == Some(self.running) {
            latest.blocked = NO_ROW;
        } else if state != Some(self.runnable) {
            latest.blocked = row;
        }
    }

    /// sched_switch: `prev` leaves the CPU in `prev_state`, `next` starts running on it.
    pub fn sched_switch(
        &mut self,
        store: &mut Store,
        ts: i64,
        cpu: u32,
        prev: Utid,
        prev_state: Option<StrId>,
        next: Utid,
    ) {
        // A prev thread whose last state is not Running means lost events: leave it open.
        let data_loss = self
            .last(prev)
            .is_some_and(|r| store.thread_states.state(r as usize) != Some(self.running));
        self.close(store, ts, prev, data_loss);
        self.open(store, ts, prev, prev_state, None, None, None);
        // The next thread may still look Running elsewhere (forced migration): cut it here.
        self.close(store, ts, next, false);
        self.open(store, ts, next, Some(self.running), Some(cpu), None, None);
    }

    /// sched_waking: a blocked thread becomes runnable. Wakings of threads already running
    /// or runnable change no state and go to `spurious_wakeups`.
    pub fn waking(
        &mut self,
        store: &mut Store,
        ts: i64,
        utid: Utid,
        waker: Utid,
        common_flags: Option<u32>,
    ) {
        let runnable = Some(self.runnable);
        let Some(last) = self.last(utid) else {
            self.open(store, ts, utid, runnable, None, Some(waker), common_flags);
            return;
        };
        if !self.is_blocked(store.thread_states.state(last as usize)) {
            // Already running or runnable: no new state, but the wakeup is kept apart.
            store.spurious_wakeups.push(SpuriousWakeupRow {
                ts,
                thread_state_id: last,
                irq_context: common_flags.map(|f| f & IRQ_FLAGS != 0),
                utid,
                waker_utid: waker,
            });
            return;
        }
        self.close(store, ts, utid, false);
        self.open(store, ts, utid, runnable, None, Some(waker), common_flags);
    }

    /// sched_blocked_reason: sets `io_wait` and `blocked_function` (when the caller's
    /// symbol is known) on the thread's latest blocked state, if it has not run since.
    pub fn blocked_reason(
        &mut self,
        store: &mut Store,
        utid: Utid,
        io_wait: bool,
        blocked_function: Option<StrId>,
    ) {
        let blocked = self.latest(utid).blocked;
        if !store.thread_states.set_io_wait(blocked as usize, io_wait) {
            return;
        }
        if let Some(f) = blocked_function {
            store.blocked_functions.insert(blocked, f);
        }
    }

    /// task_newtask: the new task is runnable, woken by its creator in process context.
    pub fn new_task(&mut self, store: &mut Store, ts: i64, utid: Utid, creator: Utid) {
        let runnable = Some(self.runnable);
        self.open(store, ts, utid, runnable, None, Some(creator), Some(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(s: &Store) -> Vec<(i64, i64, Utid, String)> {
        s.thread_states
            .iter()
            .map(|r| {
                let st = s.opt_str(r.state()).unwrap_or("NULL").to_string();
                (r.ts, r.dur, r.utid, st)
            })
            .collect()
    }

    #[test]
    fn switch_waking_switch_cycle() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let sleep = s.intern("S");
        t.sched_switch(&mut s, 10, 0, 1, Some(sleep), 2);
        t.waking(&mut s, 20, 1, 2, Some(0));
        // A second waking of a runnable thread is ignored.
        t.waking(&mut s, 25, 1, 2, Some(0));
        t.sched_switch(&mut s, 30, 0, 2, Some(sleep), 1);
        assert_eq!(
            states(&s),
            [
                (10, 10, 1, "S".into()),
                (10, 20, 2, "Running".into()),
                (20, 10, 1, "R".into()),
                (30, -1, 2, "S".into()),
                (30, -1, 1, "Running".into()),
            ]
        );
        // The waker was running, so the runnable state points at its Running row.
        assert_eq!(s.thread_states.row(2).waker_id(), Some(1));
        assert_eq!(s.thread_states.row(2).waker_utid(&s.thread_states), Some(2));
        assert_eq!(s.thread_states.row(2).irq_context(), Some(0));
        // The sleeping and running states had no waker.
        assert_eq!(s.thread_states.row(0).waker_utid(&s.thread_states), None);
        assert_eq!(s.thread_states.row(4).waker_id(), None);
    }

    #[test]
    fn a_waker_not_known_to_run_is_kept_without_a_row() {
        // Thread 3 wakes thread 1 before any switch shows 3 running: trace_processor keeps
        // waker_utid 3 with a NULL waker_id. A large utid must survive the packing too.
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        t.waking(&mut s, 5, 1, 3, None);
        t.waking(&mut s, 6, 2, (1 << 31) - 2, None);
        let w: Vec<_> = (s.thread_states.iter())
            .map(|r| (r.waker_id(), r.waker_utid(&s.thread_states)))
            .collect();
        assert_eq!(w, [(None, Some(3)), (None, Some((1 << 31) - 2))]);
    }

    #[test]
    fn idle_thread_has_no_states() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let r = s.intern("R");
        t.sched_switch(&mut s, 10, 0, 0, Some(r), 5);
        assert_eq!(states(&s), [(10, -1, 5, "Running".into())]);
    }

    #[test]
    fn switch_out_of_a_thread_not_running_keeps_its_state_open() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let sleep = s.intern("S");
        t.sched_switch(&mut s, 10, 0, 1, Some(sleep), 2);
        // Thread 1 switches out again without having been switched in: lost events.
        t.sched_switch(&mut s, 20, 1, 1, Some(sleep), 3);
        assert_eq!(s.thread_states.row(0).dur, -1);
    }

    fn io_wait_and_function(s: &Store, row: usize) -> (Option<bool>, Option<&str>) {
        let r = s.thread_states.row(row);
        (r.io_wait(), s.opt_str(s.blocked_function(row as u32)))
    }

    #[test]
    fn blocked_reason_after_waking_annotates_the_blocked_state() {
        // The kernel emits sched_blocked_reason inside the wakeup, after sched_waking: the
        // thread is already runnable, but the reason belongs to its D state.
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let d = s.intern("D");
        let func = s.intern("wait_on_page_bit");
        t.sched_switch(&mut s, 10, 0, 1, Some(d), 2);
        t.waking(&mut s, 20, 1, 2, Some(0));
        t.blocked_reason(&mut s, 1, true, Some(func));
        assert_eq!(
            io_wait_and_function(&s, 0),
            (Some(true), Some("wait_on_page_bit"))
        );
        // The runnable state and the waker's Running state are untouched.
        assert_eq!(io_wait_and_function(&s, 1), (None, None));
        assert_eq!(io_wait_and_function(&s, 2), (None, None));
    }

    #[test]
    fn blocked_reason_after_the_thread_ran_again_is_ignored() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let d = s.intern("D");
        t.sched_switch(&mut s, 10, 0, 1, Some(d), 2);
        t.waking(&mut s, 20, 1, 2, Some(0));
        t.sched_switch(&mut s, 30, 0, 2, Some(d), 1);
        t.blocked_reason(&mut s, 1, true, None);
        assert!(s.thread_states.iter().all(|r| r.io_wait().is_none()));
        // A thread with no state at all: nothing to annotate.
        t.blocked_reason(&mut s, 9, false, None);
        assert!(s.thread_states.iter().all(|r| r.io_wait().is_none()));
    }

    #[test]
    fn blocked_reason_without_symbol_keeps_io_wait_and_earlier_function() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let d = s.intern("DK");
        let func = s.intern("do_page_fault");
        t.sched_switch(&mut s, 10, 0, 1, Some(d), 2);
        t.blocked_reason(&mut s, 1, true, Some(func));
        t.blocked_reason(&mut s, 1, false, None);
        assert_eq!(
            io_wait_and_function(&s, 0),
            (Some(false), Some("do_page_fault"))
        );
    }

    #[test]
    fn blocked_reason_for_threads_switched_with_the_idle_thread() {
        // trace_processor's SchedBlockedReasonWithIdleThread: io_wait 0 then 1.
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let d = s.intern("D");
        t.sched_switch(&mut s, 1, 0, 0, Some(d), 1);
        t.sched_switch(&mut s, 2, 0, 1, Some(d), 0);
        t.blocked_reason(&mut s, 1, false, None);
        t.sched_switch(&mut s, 3, 0, 0, Some(d), 2);
        t.sched_switch(&mut s, 4, 0, 2, Some(d), 0);
        t.blocked_reason(&mut s, 2, true, None);
        assert_eq!(
            states(&s),
            [
                (1, 1, 1, "Running".into()),
                (2, -1, 1, "D".into()),
                (3, 1, 2, "Running".into()),
                (4, -1, 2, "D".into()),
            ]
        );
        let io: Vec<_> = s.thread_states.iter().map(|r| r.io_wait()).collect();
        assert_eq!(io, [None, Some(false), None, Some(true)]);
    }

    #[test]
    fn waking_a_running_or_runnable_thread_is_spurious() {
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let sleep = s.intern("S");
        t.sched_switch(&mut s, 10, 0, 1, Some(sleep), 2);
        // Thread 2 is running: no state, a spurious wakeup pointing at its Running row.
        t.waking(&mut s, 15, 2, 1, Some(0x10));
        t.waking(&mut s, 20, 1, 2, None);
        // Thread 1 is runnable now.
        t.waking(&mut s, 25, 1, 2, None);
        assert_eq!(s.thread_states.len(), 3);
        let w: Vec<_> = s
            .spurious_wakeups
            .iter()
            .map(|w| (w.ts, w.thread_state_id, w.irq_context, w.utid, w.waker_utid))
            .collect();
        assert_eq!(w, [(15, 1, Some(true), 2, 1), (25, 2, None, 1, 2)]);
    }

    #[test]
    fn waking_sequence_from_trace_processor_tests() {
        // trace_processor's SchedWakingBigTest, with the same utids and expectations.
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let (r, sl) = (s.intern("R"), s.intern("S"));
        t.waking(&mut s, 1, 8, 11, None);
        t.sched_switch(&mut s, 2, 0, 0, Some(r), 8);
        t.sched_switch(&mut s, 2, 0, 11, Some(sl), 0);
        t.sched_switch(&mut s, 3, 0, 8, Some(sl), 0);
        t.sched_switch(&mut s, 4, 0, 17771, Some(sl), 17772);
        t.sched_switch(&mut s, 5, 0, 17772, Some(sl), 0);
        t.waking(&mut s, 6, 18, 0, None);
        t.sched_switch(&mut s, 7, 0, 0, Some(r), 18);
        assert_eq!(
            states(&s),
            [
                (1, 1, 8, "R".into()),
                (2, 1, 8, "Running".into()),
                (2, -1, 11, "S".into()),
                (3, -1, 8, "S".into()),
                (4, -1, 17771, "S".into()),
                (4, 1, 17772, "Running".into()),
                (5, -1, 17772, "S".into()),
                (6, 1, 18, "R".into()),
                (7, -1, 18, "Running".into()),
            ]
        );
        let wakers: Vec<_> = s
            .thread_states
            .iter()
            .map(|r| r.waker_utid(&s.thread_states))
            .collect();
        assert_eq!(wakers[0], Some(11));
        assert_eq!(wakers[7], Some(0));
        assert!(wakers[1..7].iter().all(Option::is_none));
    }

    #[test]
    fn forced_migration_cuts_the_running_state_on_the_old_cpu() {
        // trace_processor's RunningOnMultipleCPUsForcedMigration.
        let mut s = Store::default();
        let mut t = ThreadStateTracker::new(&mut s);
        let sl = s.intern("S");
        t.sched_switch(&mut s, 1, 0, 3, Some(sl), 1);
        t.sched_switch(&mut s, 2, 1, 2, Some(sl), 1);
        assert_eq!(
            states(&s),
            [
                (1, -1, 3, "S".into()),
                (1, 1, 1, "Running".into()),
                (2, -1, 2, "S".into()),
                (2, -1, 1, "Running".into()),
            ]
        );
        assert_eq!(s.thread_states.row(3).cpu(), Some(1));
    }
}
