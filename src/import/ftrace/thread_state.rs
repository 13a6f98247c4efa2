//! The `thread_state` table (trace_processor's thread state tracker): per thread, a run of
//! states "Running" (on a CPU), "R" (runnable, after a wakeup or preemption) and the blocked
//! states of sched_switch's end_state ("S", "D", ...). Each state is open (dur -1) until the
//! thread's next transition. sched_blocked_reason, which the kernel emits while waking a
//! task that slept uninterruptibly, annotates the thread's latest blocked state afterwards.

use crate::store::strings::StrId;
use crate::store::{Store, ThreadStateRow, Utid};

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
        if let Some(row) = store.thread_states.get_mut(last as usize) {
            row.dur = ts - row.ts;
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
            .filter(|&r| store.thread_states[r as usize].state() == Some(self.running));
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
            .is_some_and(|r| store.thread_states[r as usize].state() != Some(self.running));
        self.close(store, ts, prev, data_loss);
        self.open(store, ts, prev, prev_state, None, None, None);
        // The next thread may still look Running elsewhere (forced migration): cut it here.
        self.close(store, ts, next, false);
        self.open(store, ts, next, Some(self.running), Some(cpu), None, None);
    }

    /// sched_waking: a blocked thread becomes runnable. Wakings of threads already running
    /// or runnable change nothing.
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
        if !self.is_blocked(store.thread_states[last as usize].state()) {
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
        let Some(row) = store.thread_states.get_mut(blocked as usize) else {
            return;
        };
        row.set_io_wait(io_wait);
        if let Some(f) = blocked_function {
            row.set_blocked_function(f);
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
        assert_eq!(s.thread_states[2].waker_id(), Some(1));
        assert_eq!(s.thread_states[2].irq_context(), Some(0));
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
        assert_eq!(s.thread_states[0].dur, -1);
    }
}
