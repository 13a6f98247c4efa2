//! Attribution of one thread's time over one interval: every instant goes to exactly one
//! cause, so the pieces tile the interval.
//!
//! At each instant the deepest categorised slice open on the thread decides, with the
//! thread's state: a wait category (binder, locks, GC wait, buffer and fence waits) takes
//! the instant whatever the state; otherwise Runnable time is CPU contention and
//! uninterruptible time IO; Sleeping time with no wait named is an unnamed wait (self time,
//! with the threads that woke it); a work category (inflate, measure, shader compile, ...)
//! takes the rest; with no categorised slice, Running is self time, and time without
//! scheduling data is reported as such.

use super::categories::{Category, Kind};
use super::context::Ctx;
use crate::analysis::thread_state::Kind as State;
use crate::store::{SliceId, Utid};

/// A piece of the interval with its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub start: i64,
    pub end: i64,
    pub category: Category,
    /// The categorised slice that decided, if one did.
    pub slice: Option<SliceId>,
    /// The deepest slice open meanwhile (any name), for context.
    pub context: Option<SliceId>,
    /// The thread_state row in effect, if any.
    pub state_row: Option<u32>,
    pub rule: &'static str,
}

/// Rules for time no slice explains.
pub const RULE_RUNNABLE: &str = "thread_state Runnable (R, R+)";
pub const RULE_D: &str = "thread_state uninterruptible (D, DK)";
pub const RULE_RUNNING: &str = "thread_state Running, no categorised slice";
pub const RULE_SLEEPING: &str = "thread_state Sleeping, no categorised slice";
pub const RULE_NO_DATA: &str = "no thread_state for this time";
pub const RULE_WOKEN_BY_RT: &str =
    "thread_state Sleeping, no categorised slice, ended by a wakeup from the frame's RenderThread";

/// The thread whose wakeup ended the state `row` of `utid` (the waker of the next state).
pub fn waker_of(ctx: &Ctx<'_>, utid: Utid, row: u32) -> Option<Utid> {
    let r = ctx.store.thread_states.row(row as usize);
    if r.dur < 0 {
        return None;
    }
    let end = r.ts + r.dur;
    let next = ctx.states.spans(utid, end, end + 1).next()?;
    let states = &ctx.store.thread_states;
    states.row(next.row as usize).waker_utid(states)
}

/// Every boundary in order, once each. The slices come in start order and the states in
/// time order, so only the slice ends usually need sorting and the four runs are merged:
/// a long frame's lane has thousands of boundaries, and sorting them all was a tenth of
/// the attribution's instructions. A run found out of order is sorted first.
fn boundaries(
    interval: [i64; 2],
    slice_starts: Vec<i64>,
    slice_ends: Vec<i64>,
    state_changes: Vec<i64>,
) -> Vec<i64> {
    let sorted = |mut v: Vec<i64>| {
        if !v.is_sorted() {
            v.sort_unstable();
        }
        v
    };
    let slices = merge(&sorted(slice_starts), &sorted(slice_ends));
    let states = merge(&sorted(interval.to_vec()), &sorted(state_changes));
    let mut cuts = merge(&slices, &states);
    cuts.dedup();
    cuts
}

/// Two sorted runs as one.
fn merge(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// How the lane treats time that no slice explains and the thread spends asleep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    /// An unnamed wait (self time).
    Sleeping,
    /// The UI thread idle before its doFrame: waiting for the vsync callback.
    Vsync,
}

/// The pieces of [start, end) on `utid`, in time order, adjacent pieces with the same cause
/// merged.
///
/// `render_thread`: the frame's RenderThread, when `utid` is its UI thread: an unnamed sleep
/// that the RenderThread's wakeup ended is a wait for the RenderThread.
pub fn attribute(
    ctx: &Ctx<'_>,
    utid: Utid,
    start: i64,
    end: i64,
    idle: Idle,
    render_thread: Option<Utid>,
) -> Vec<Piece> {
    if end <= start {
        return Vec::new();
    }
    let slices = ctx.slices_overlapping(utid, start, end);
    let states: Vec<_> = ctx.states.spans(utid, start, end).collect();
    let has_states = ctx.states.has(utid);
    let ends: Vec<i64> = slices.iter().map(|&s| ctx.end_of(s)).collect();
    // Boundaries: the interval, slice starts and ends, state changes.
    let cuts = boundaries(
        [start, end],
        slices
            .iter()
            .map(|&s| ctx.store.slices[s as usize].ts.max(start))
            .collect(),
        ends.iter().map(|&e| e.min(end)).collect(),
        states.iter().flat_map(|sp| [sp.start, sp.end]).collect(),
    );

    let cats: Vec<_> = slices.iter().map(|&s| ctx.category_of(s)).collect();
    let mut out: Vec<Piece> = Vec::new();
    let mut open = OpenSlices::default();
    let mut next_slice = 0;
    let mut st = 0;
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        open.close_until(a, &ends);
        while next_slice < slices.len() && ctx.store.slices[slices[next_slice] as usize].ts <= a {
            if ends[next_slice] > a {
                open.push(next_slice, &ends);
            }
            next_slice += 1;
        }
        let open = &open.open;
        while st < states.len() && states[st].end <= a {
            st += 1;
        }
        let state = states.get(st).filter(|sp| sp.start <= a);
        // Slices of a thread nest and open in (ts, depth) order: the last open is the
        // deepest.
        let deepest = open.last().map(|&k| slices[k]);
        let categorised = open
            .iter()
            .rev()
            .find_map(|&k| cats[k].map(|c| (slices[k], c)));
        let (mut category, slice, mut rule) = decide(
            categorised,
            state.map(|sp| sp.kind),
            has_states,
            deepest.is_some(),
            idle,
        );
        if category == Category::SleepingSelf
            && render_thread.is_some()
            && state.and_then(|sp| waker_of(ctx, utid, sp.row)) == render_thread
        {
            category = Category::WaitForRenderThread;
            rule = RULE_WOKEN_BY_RT;
        }
        let piece = Piece {
            start: a,
            end: b,
            category,
            slice,
            context: deepest,
            state_row: state.map(|sp| sp.row),
            rule,
        };
        // Time no slice explains keeps its state row: IO, CPU and wakeup evidence read it.
        match out.last_mut() {
            Some(p)
                if p.end == a
                    && p.category == category
                    && p.slice == slice
                    && (slice.is_some()
                        || (p.context == piece.context && p.state_row == piece.state_row)) =>
            {
                p.end = b;
            }
            _ => out.push(piece),
        }
    }
    out
}

/// The slices open at a cut (indices into the thread's slices), outermost first.
#[derive(Default)]
struct OpenSlices {
    open: Vec<usize>,
    /// The earliest end among them: unfinished slices stay open to the end, so most cuts
    /// close none and skip the scan.
    until: Option<i64>,
    /// Whether each ends no later than the one before it, as nested slices do: then those
    /// that close are the last ones, popped without a scan. Slices of several tracks, or
    /// a child outliving its parent, need the scan.
    nested: bool,
}

impl OpenSlices {
    fn push(&mut self, k: usize, ends: &[i64]) {
        self.nested = match self.open.last() {
            Some(&last) => self.nested && ends[k] <= ends[last],
            None => true,
        };
        self.open.push(k);
        self.until = Some(self.until.map_or(ends[k], |u| u.min(ends[k])));
    }

    /// Drops the slices that end at or before `at`.
    fn close_until(&mut self, at: i64, ends: &[i64]) {
        if self.until.is_none_or(|u| u > at) {
            return;
        }
        if self.nested {
            while self.open.last().is_some_and(|&k| ends[k] <= at) {
                self.open.pop();
            }
            self.until = self.open.last().map(|&k| ends[k]);
        } else {
            self.open.retain(|&k| ends[k] > at);
            self.until = self.open.iter().map(|&k| ends[k]).min();
            self.nested = self.open.windows(2).all(|w| ends[w[1]] <= ends[w[0]]);
        }
    }
}

/// The cause of an instant from the deepest categorised slice and the thread's state.
fn decide(
    categorised: Option<(SliceId, (Category, &'static str))>,
    state: Option<State>,
    has_states: bool,
    in_slice: bool,
    idle: Idle,
) -> (Category, Option<SliceId>, &'static str) {
    if let Some((s, (c, rule))) = categorised {
        if c.kind() == Kind::Wait {
            return (c, Some(s), rule);
        }
    }
    match state {
        Some(State::Runnable) => return (Category::CpuContention, None, RULE_RUNNABLE),
        Some(State::Uninterruptible) => return (Category::Io, None, RULE_D),
        _ => {}
    }
    if let Some((s, (c, rule))) = categorised {
        // Asleep inside work with no wait named: the work did not take this time.
        if state != Some(State::Sleeping) {
            return (c, Some(s), rule);
        }
    }
    match state {
        Some(State::Running) => (Category::RunningSelf, None, RULE_RUNNING),
        Some(State::Sleeping) | Some(State::Unknown) if idle == Idle::Vsync && !in_slice => (
            Category::VsyncDelay,
            None,
            "UI thread asleep outside any slice before doFrame",
        ),
        Some(State::Sleeping) => (Category::SleepingSelf, None, RULE_SLEEPING),
        _ if !has_states && idle == Idle::Vsync && !in_slice => (
            Category::VsyncDelay,
            None,
            "UI thread outside any slice before doFrame (no thread_state)",
        ),
        // Inside a slice without scheduling data the thread was busy with it.
        _ if in_slice && !has_states => (
            Category::RunningSelf,
            None,
            "inside a slice, no thread_state",
        ),
        _ => (Category::NoThreadData, None, RULE_NO_DATA),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::index::Index;
    use crate::analysis::thread_state::ThreadStateIndex;
    use crate::store::{NewSlice, Store, ThreadStateRow};

    /// The merged boundaries are every boundary sorted once each, whether the runs come in
    /// order (slice starts, state changes), in any order (slice ends) or out of the order
    /// they usually have; with repeats, ties across runs and empty runs.
    #[test]
    fn boundaries_are_every_cut_in_order_once() {
        let mut rng = crate::rng::Rng::new(11);
        let mut run = |n: u64, in_order: bool| {
            let mut v: Vec<i64> = (0..rng.next_u64() % n)
                .map(|_| (rng.next_u64() % 40) as i64)
                .collect();
            if in_order {
                v.sort_unstable();
            }
            v
        };
        for case in 0..2000 {
            let in_order = case % 3 != 0;
            let (starts, ends, states) = (run(12, in_order), run(12, false), run(16, in_order));
            let interval = [5, 30];
            let mut expected: Vec<i64> = interval
                .iter()
                .chain(&starts)
                .chain(&ends)
                .chain(&states)
                .copied()
                .collect();
            expected.sort_unstable();
            expected.dedup();
            let got = boundaries(interval, starts.clone(), ends.clone(), states.clone());
            assert_eq!(got, expected, "{starts:?} {ends:?} {states:?}");
        }
    }

    /// One thread (utid 0) with slices (ts, dur, depth, name) and states (ts, dur, state,
    /// waker); utid 1 is a second thread that can wake it.
    fn store(slices: &[(i64, i64, u32, &str)], states: &[(i64, i64, &str, Option<u32>)]) -> Store {
        let mut s = Store::with_thread_tracks(&[10, 11]);
        for &(ts, dur, depth, name) in slices {
            let name = Some(s.intern(name));
            s.push_slice(NewSlice {
                ts,
                dur,
                name,
                depth,
                ..Default::default()
            });
        }
        for &(ts, dur, st, waker) in states {
            let st = Some(s.intern(st));
            let mut r = ThreadStateRow::new(ts, 0, st, Some(0), waker.map(|w| (w, None)), None);
            r.dur = dur;
            s.thread_states.push(r);
        }
        s
    }

    fn run(
        s: &Store,
        start: i64,
        end: i64,
        idle: Idle,
        rt: Option<u32>,
    ) -> Vec<(i64, i64, &'static str)> {
        let idx = Index::new(s);
        let states = ThreadStateIndex::all(s);
        let ctx = Ctx::new(&idx, &states);
        attribute(&ctx, 0, start, end, idle, rt)
            .into_iter()
            .map(|p| (p.start, p.end, p.category.id()))
            .collect()
    }

    #[test]
    fn pieces_tile_the_interval_by_deepest_slice_and_state() {
        // doFrame 0-100 > traversal 10-90 > inflate 20-60 > binder transaction 30-50.
        // Running 0-30, asleep in the binder call 30-50, Runnable 50-55, Running 55-70,
        // D 70-75, asleep 75-85 (woken by thread 1), Running 85-100.
        let s = store(
            &[
                (0, 100, 0, "Choreographer#doFrame 1"),
                (10, 80, 1, "traversal"),
                (20, 40, 2, "inflate"),
                (30, 20, 3, "binder transaction"),
            ],
            &[
                (0, 30, "Running", None),
                (30, 20, "S", None),
                (50, 5, "R", None),
                (55, 15, "Running", None),
                (70, 5, "D", None),
                (75, 10, "S", None),
                (85, 15, "R", Some(1)),
            ],
        );
        let got = run(&s, 0, 100, Idle::Sleeping, None);
        assert_eq!(
            got,
            vec![
                (0, 10, "running_self"),
                (10, 20, "traversal"),
                (20, 30, "inflate"),
                (30, 50, "binder"),
                (50, 55, "cpu_contention"),
                (55, 60, "inflate"),
                (60, 70, "traversal"),
                (70, 75, "io"),
                (75, 85, "sleeping_self"),
                (85, 90, "cpu_contention"),
                (90, 100, "cpu_contention"),
            ]
        );
        // Clipped to a sub-interval, still tiling it.
        let got = run(&s, 25, 52, Idle::Sleeping, None);
        assert_eq!(
            got,
            vec![
                (25, 30, "inflate"),
                (30, 50, "binder"),
                (50, 52, "cpu_contention")
            ]
        );
        // A sleep ended by the RenderThread's wakeup is a wait for it.
        let got = run(&s, 75, 85, Idle::Sleeping, Some(1));
        assert_eq!(got, vec![(75, 85, "wait_for_render_thread")]);
    }

    #[test]
    fn before_do_frame_idle_is_vsync_delay() {
        let s = store(
            &[(50, 10, 0, "Choreographer#doFrame 1")],
            &[(0, 40, "S", None), (40, 20, "Running", None)],
        );
        assert_eq!(
            run(&s, 0, 50, Idle::Vsync, None),
            vec![(0, 40, "vsync_delay"), (40, 50, "running_self")]
        );
    }

    const MS: i64 = 1_000_000;

    #[test]
    fn io_and_wakeup_evidence_per_state_row() {
        // D 0-10 ms (io_wait, filemap_fault), D 10-14 ms (no io_wait, do_page_fault),
        // Running 14-15, S 15-20 then woken by thread 1, S 21-24 woken by thread 1 again,
        // S 25-27 ended by thread 0 itself (no waker named).
        let mut s = store(
            &[],
            &[
                (0, 10 * MS, "D", None),
                (10 * MS, 4 * MS, "D", None),
                (14 * MS, MS, "Running", None),
                (15 * MS, 5 * MS, "S", None),
                (20 * MS, MS, "R", Some(1)),
                (21 * MS, 3 * MS, "S", None),
                (24 * MS, MS, "R", Some(1)),
                (25 * MS, 2 * MS, "S", None),
                (27 * MS, MS, "Running", None),
            ],
        );
        let f = s.intern("filemap_fault");
        let g = s.intern("do_page_fault");
        s.thread_states.set_io_wait(0, true);
        s.blocked_functions.insert(0, f);
        s.thread_states.set_io_wait(1, false);
        s.blocked_functions.insert(1, g);
        let idx = Index::new(&s);
        let states = ThreadStateIndex::all(&s);
        let ctx = Ctx::new(&idx, &states);
        let pieces = attribute(&ctx, 0, 0, 28 * MS, Idle::Sleeping, None);
        let of =
            |c: Category| -> Vec<&Piece> { pieces.iter().filter(|p| p.category == c).collect() };
        // Two D rows back to back stay two pieces, each with its own row.
        let io = super::super::io::detail(&ctx, &of(Category::Io));
        assert_eq!(io.io_wait_ms, 10.0);
        let fns: Vec<(&str, f64)> = io
            .blocked_functions
            .iter()
            .map(|n| (n.name.as_str(), n.ms))
            .collect();
        assert_eq!(fns, [("filemap_fault", 10.0), ("do_page_fault", 4.0)]);
        // The sleeps ended by thread 1: 5 + 3 ms; the last one names no waker.
        let w = super::super::wakeups::woken_by(&ctx, 0, &of(Category::SleepingSelf));
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].thread.tid, w[0].ms), (11, 8.0));
    }

    const BINDER: (Category, &str) = (Category::Binder, "binder transaction");
    const INFLATE: (Category, &str) = (Category::Inflate, "inflate*");

    #[test]
    fn waits_take_the_time_whatever_the_state() {
        for st in [
            State::Running,
            State::Runnable,
            State::Sleeping,
            State::Uninterruptible,
        ] {
            let (c, s, _) = decide(Some((7, BINDER)), Some(st), true, true, Idle::Sleeping);
            assert_eq!((c, s), (Category::Binder, Some(7)));
        }
    }

    #[test]
    fn work_gives_runnable_to_cpu_and_d_to_io() {
        let d = |st| decide(Some((3, INFLATE)), Some(st), true, true, Idle::Sleeping).0;
        assert_eq!(d(State::Running), Category::Inflate);
        assert_eq!(d(State::Sleeping), Category::SleepingSelf);
        // Without scheduling data the work keeps its time.
        assert_eq!(
            decide(Some((3, INFLATE)), None, false, true, Idle::Sleeping).0,
            Category::Inflate
        );
        assert_eq!(d(State::Runnable), Category::CpuContention);
        assert_eq!(d(State::Uninterruptible), Category::Io);
    }

    #[test]
    fn unnamed_time_is_self_time_or_vsync_delay() {
        let d = |st, in_slice, idle| decide(None, st, true, in_slice, idle).0;
        assert_eq!(
            d(Some(State::Running), true, Idle::Sleeping),
            Category::RunningSelf
        );
        assert_eq!(
            d(Some(State::Sleeping), true, Idle::Sleeping),
            Category::SleepingSelf
        );
        assert_eq!(
            d(Some(State::Sleeping), false, Idle::Vsync),
            Category::VsyncDelay
        );
        // Asleep inside a slice before doFrame is still an unnamed wait.
        assert_eq!(
            d(Some(State::Sleeping), true, Idle::Vsync),
            Category::SleepingSelf
        );
        assert_eq!(d(None, false, Idle::Sleeping), Category::NoThreadData);
        assert_eq!(
            decide(None, None, false, true, Idle::Sleeping).0,
            Category::RunningSelf
        );
    }

    /// The open slices after every cut equal those the rule gives written plainly (every
    /// slice begun and not yet ended, in the order begun), for nested stacks and for
    /// slices of several tracks that overlap without nesting.
    #[test]
    fn open_slices_follow_the_rule_nested_or_not() {
        let mut rng = crate::rng::Rng::new(7);
        for round in 0..300 {
            let nested_only = round % 2 == 0;
            // (start, end) in start order; nested ones end within the slice they open in.
            let mut slices: Vec<(i64, i64)> = Vec::new();
            let mut stack: Vec<i64> = Vec::new();
            let mut t = 0;
            for _ in 0..rng.range(1, 40) {
                t += rng.range(0, 3);
                stack.retain(|&e| e > t);
                let end = if nested_only {
                    let cap = stack.last().copied().unwrap_or(t + 40);
                    rng.range(t + 1, cap.max(t + 1))
                } else if rng.chance(0.1) {
                    i64::MAX
                } else {
                    t + rng.range(1, 40)
                };
                stack.push(end);
                slices.push((t, end));
            }
            let ends: Vec<i64> = slices.iter().map(|s| s.1).collect();
            let mut open = OpenSlices::default();
            let mut next = 0;
            for at in 0..t + 45 {
                open.close_until(at, &ends);
                while next < slices.len() && slices[next].0 <= at {
                    if ends[next] > at {
                        open.push(next, &ends);
                    }
                    next += 1;
                }
                let plain: Vec<usize> = (0..slices.len())
                    .filter(|&k| slices[k].0 <= at && ends[k] > at)
                    .collect();
                assert_eq!(open.open, plain, "round {round} at {at}: {slices:?}");
            }
        }
    }
}
