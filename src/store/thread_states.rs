//! The `thread_state` table, packed to 20 bytes a row: a 1 GB trace holds tens of millions
//! of states, and they were the largest table in `analyze`'s peak (issue 19). Rows are
//! read back as [`ThreadStateRow`] values; what does not fit the packing (a state lasting
//! over 4 s, a 255th distinct state name, a timestamp 1.6 days from its block's first, a
//! utid from 2^24 or a CPU from 4095) goes to side maps by row, so every value stays exact.

use rustc_hash::FxHashMap;

use super::prefault::Ahead;
use super::strings::StrId;
use super::Utid;

/// One scheduling state of a thread ("Running", "R", "S", ...), as read from or given to
/// [`ThreadStates`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThreadStateRow {
    pub ts: i64,
    /// -1 while the state is open (trace end, lost events).
    pub dur: i64,
    pub utid: Utid,
    state: Option<StrId>,
    waker: Option<Waker>,
    cpu: Option<u16>,
    irq_context: Option<bool>,
    io_wait: Option<bool>,
}

/// Who woke the thread: the waker's Running row when it was known to run, else only its
/// utid (trace_processor's waker_id is then NULL).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Waker {
    Row(u32),
    Utid(Utid),
}

impl ThreadStateRow {
    /// `state` is `None` when the kernel's prev_state could not be decoded; the waker's
    /// row is the row (of this table) of the waker's Running state.
    pub fn new(
        ts: i64,
        utid: Utid,
        state: Option<StrId>,
        cpu: Option<u16>,
        waker: Option<(Utid, Option<u32>)>,
        irq_context: Option<bool>,
    ) -> Self {
        ThreadStateRow {
            ts,
            dur: -1,
            utid,
            state,
            waker: waker.map(|(utid, row)| row.map_or(Waker::Utid(utid), Waker::Row)),
            cpu,
            irq_context,
            io_wait: None,
        }
    }
    pub fn state(&self) -> Option<StrId> {
        self.state
    }
    /// `table` is the table this row belongs to (it holds the waker's row).
    pub fn waker_utid(&self, table: &ThreadStates) -> Option<Utid> {
        match self.waker? {
            Waker::Row(row) => Some(table.utid(row as usize)),
            Waker::Utid(u) => Some(u),
        }
    }
    pub fn waker_id(&self) -> Option<u32> {
        match self.waker? {
            Waker::Row(row) => Some(row),
            Waker::Utid(_) => None,
        }
    }
    pub fn cpu(&self) -> Option<u16> {
        self.cpu
    }
    pub fn irq_context(&self) -> Option<u8> {
        self.irq_context.map(u8::from)
    }
    /// From sched_blocked_reason: whether a blocked state waited for I/O.
    pub fn io_wait(&self) -> Option<bool> {
        self.io_wait
    }
    pub fn set_io_wait(&mut self, io_wait: bool) {
        self.io_wait = Some(io_wait);
    }
}

/// A row as stored, in 4-byte words so that it packs to 20 bytes.
/// - The timestamp is 48 bits of offset from the first timestamp of the row's block of
///   [`BLOCK_ROWS`] rows: `ts_hi` is its signed upper part, [`FAR_TS`] when the timestamp
///   is in `far`. Per block, so that one odd timestamp cannot push every later row into
///   `far`.
/// - `utid_state` holds the utid in its low 24 bits ([`BIG_UTID`]: in `far`) and the
///   state code in its top 8.
/// - `waker` holds the waker's row, or its utid with [`WAKER_UTID`] set, or [`NO_WAKER`].
/// - `cpu_flags` holds the CPU in its low 12 bits ([`NO_CPU`], or [`BIG_CPU`]: in `far`)
///   and irq_context and io_wait as 2-bit optional booleans in its top 4.
#[derive(Clone, Copy, Default)]
struct Packed {
    ts_lo: u32,
    dur: u32,
    utid_state: u32,
    waker: u32,
    ts_hi: i16,
    cpu_flags: u16,
}

/// The bytes of one row as stored.
pub const ROW_BYTES: usize = std::mem::size_of::<Packed>();

const OPEN: u32 = u32::MAX;
/// The duration is in `far.durs`.
const LONG: u32 = u32::MAX - 1;
const NO_WAKER: u32 = u32::MAX;
/// Marks a `waker` that holds a utid rather than a row: neither reaches 2^31.
const WAKER_UTID: u32 = 1 << 31;
const FAR_TS: i16 = i16::MIN;
/// Rows per timestamp base.
const BLOCK_ROWS: usize = 1 << 16;
const UTID_BITS: u32 = 24;
const BIG_UTID: u32 = (1 << UTID_BITS) - 1;
const CPU_BITS: u16 = 12;
const NO_CPU: u16 = (1 << CPU_BITS) - 1;
const BIG_CPU: u16 = NO_CPU - 1;
/// State code 0 is NULL, codes 1..=254 index `state_names`, this one is in `far.states`.
const RARE_STATE: u8 = u8::MAX;
const IRQ_SHIFT: u16 = CPU_BITS;
const IO_WAIT_SHIFT: u16 = CPU_BITS + 2;

fn pack_flag(v: Option<bool>, shift: u16) -> u16 {
    v.map_or(0, |b| 1 + u16::from(b)) << shift
}

fn unpack_flag(flags: u16, shift: u16) -> Option<bool> {
    match (flags >> shift) & 3 {
        0 => None,
        v => Some(v == 2),
    }
}

/// The values of rows that do not fit their packing, by row.
#[derive(Default, Clone)]
struct Far {
    durs: FxHashMap<u32, i64>,
    states: FxHashMap<u32, StrId>,
    ts: FxHashMap<u32, i64>,
    utids: FxHashMap<u32, Utid>,
    cpus: FxHashMap<u32, u16>,
}

#[derive(Default, Clone)]
pub struct ThreadStates {
    rows: Vec<Packed>,
    state_names: Vec<StrId>,
    state_codes: FxHashMap<StrId, u8>,
    /// Each block's first timestamp: its rows' timestamps are offsets from it.
    block_ts: Vec<i64>,
    far: Far,
}

impl ThreadStates {
    /// Faults in pages of the rows ahead ([`Ahead::step`]).
    pub fn fault_in(&mut self, ahead: &mut Ahead, budget: usize) -> usize {
        ahead.step(&mut self.rows, budget)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Appends a row and returns its id.
    pub fn push(&mut self, r: ThreadStateRow) -> u32 {
        let i = self.rows.len() as u32;
        let waker = match r.waker {
            None => NO_WAKER,
            Some(Waker::Row(row)) => {
                debug_assert!(row < WAKER_UTID, "thread_state row {row} too large");
                row
            }
            Some(Waker::Utid(u)) => {
                debug_assert!(u < WAKER_UTID - 1, "utid {u} too large");
                u | WAKER_UTID
            }
        };
        let state = self.code(i, r.state);
        if (i as usize).is_multiple_of(BLOCK_ROWS) {
            self.block_ts.push(r.ts);
        }
        let base = self.block_ts[i as usize / BLOCK_ROWS];
        let (ts_lo, ts_hi) = match r.ts.checked_sub(base).map(split_offset) {
            Some(Some(parts)) => parts,
            _ => {
                self.far.ts.insert(i, r.ts);
                (0, FAR_TS)
            }
        };
        let utid = if r.utid < BIG_UTID {
            r.utid
        } else {
            self.far.utids.insert(i, r.utid);
            BIG_UTID
        };
        let cpu = match r.cpu {
            None => NO_CPU,
            Some(c) if c < BIG_CPU => c,
            Some(c) => {
                self.far.cpus.insert(i, c);
                BIG_CPU
            }
        };
        self.rows.push(Packed {
            ts_lo,
            dur: OPEN,
            utid_state: utid | u32::from(state) << UTID_BITS,
            waker,
            ts_hi,
            cpu_flags: cpu
                | pack_flag(r.irq_context, IRQ_SHIFT)
                | pack_flag(r.io_wait, IO_WAIT_SHIFT),
        });
        self.set_dur(i as usize, r.dur);
        i
    }

    fn code(&mut self, row: u32, state: Option<StrId>) -> u8 {
        let Some(s) = state else { return 0 };
        if let Some(&c) = self.state_codes.get(&s) {
            return c;
        }
        if self.state_names.len() < usize::from(RARE_STATE - 1) {
            self.state_names.push(s);
            let c = self.state_names.len() as u8;
            self.state_codes.insert(s, c);
            return c;
        }
        self.far.states.insert(row, s);
        RARE_STATE
    }

    /// Row `i`, unpacked. Panics when out of range, as indexing does.
    pub fn row(&self, i: usize) -> ThreadStateRow {
        let p = &self.rows[i];
        ThreadStateRow {
            ts: self.ts_of(i, p),
            dur: self.dur_of(i, p),
            utid: self.utid_of(i, p),
            state: self.state_of(i, p),
            waker: match p.waker {
                NO_WAKER => None,
                w if w & WAKER_UTID != 0 => Some(Waker::Utid(w & !WAKER_UTID)),
                w => Some(Waker::Row(w)),
            },
            cpu: match p.cpu_flags & NO_CPU {
                NO_CPU => None,
                BIG_CPU => Some(self.far.cpus[&(i as u32)]),
                c => Some(c),
            },
            irq_context: unpack_flag(p.cpu_flags, IRQ_SHIFT),
            io_wait: unpack_flag(p.cpu_flags, IO_WAIT_SHIFT),
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = ThreadStateRow> + '_ {
        (0..self.rows.len()).map(|i| self.row(i))
    }

    pub fn ts(&self, i: usize) -> i64 {
        self.ts_of(i, &self.rows[i])
    }

    /// Every row's (ts, dur), without unpacking the rest of the row (the trace bounds walk
    /// every row).
    pub fn times(&self) -> impl ExactSizeIterator<Item = (i64, i64)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, p)| (self.ts_of(i, p), self.dur_of(i, p)))
    }

    pub fn utid(&self, i: usize) -> Utid {
        self.utid_of(i, &self.rows[i])
    }

    fn ts_of(&self, i: usize, p: &Packed) -> i64 {
        match p.ts_hi {
            FAR_TS => self.far.ts[&(i as u32)],
            hi => self.block_ts[i / BLOCK_ROWS] + (i64::from(hi) << 32 | i64::from(p.ts_lo)),
        }
    }

    fn utid_of(&self, i: usize, p: &Packed) -> Utid {
        match p.utid_state & BIG_UTID {
            BIG_UTID => self.far.utids[&(i as u32)],
            u => u,
        }
    }

    pub fn state(&self, i: usize) -> Option<StrId> {
        self.state_of(i, &self.rows[i])
    }

    fn state_of(&self, i: usize, p: &Packed) -> Option<StrId> {
        match (p.utid_state >> UTID_BITS) as u8 {
            0 => None,
            RARE_STATE => self.far.states.get(&(i as u32)).copied(),
            c => Some(self.state_names[usize::from(c) - 1]),
        }
    }

    fn dur_of(&self, i: usize, p: &Packed) -> i64 {
        match p.dur {
            OPEN => -1,
            LONG => self.far.durs[&(i as u32)],
            d => i64::from(d),
        }
    }

    /// Sets row `i`'s duration (-1: open); false when there is no such row.
    pub fn set_dur(&mut self, i: usize, dur: i64) -> bool {
        let Some(p) = self.rows.get_mut(i) else {
            return false;
        };
        let key = i as u32;
        let was_long = p.dur == LONG;
        p.dur = match dur {
            -1 => OPEN,
            d if (0..i64::from(LONG)).contains(&d) => d as u32,
            d => {
                self.far.durs.insert(key, d);
                LONG
            }
        };
        // Only a duration that was long has an entry to drop (not every row's push).
        if was_long && p.dur != LONG {
            self.far.durs.remove(&key);
        }
        true
    }

    /// Sets row `i`'s io_wait; false when there is no such row.
    pub fn set_io_wait(&mut self, i: usize, io_wait: bool) -> bool {
        let Some(p) = self.rows.get_mut(i) else {
            return false;
        };
        p.cpu_flags =
            (p.cpu_flags & !(3 << IO_WAIT_SHIFT)) | pack_flag(Some(io_wait), IO_WAIT_SHIFT);
        true
    }
}

/// A timestamp's offset from the base as its low 32 bits and signed upper 16, when it fits
/// (the upper part [`FAR_TS`] is kept for the side map).
fn split_offset(off: i64) -> Option<(u32, i16)> {
    let hi = i16::try_from(off >> 32).ok().filter(|&h| h != FAR_TS)?;
    Some((off as u32, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_20_bytes() {
        // ts: 6; dur, utid with state, waker: 12; cpu with flags: 2.
        assert_eq!(std::mem::size_of::<Packed>(), 20);
    }

    #[test]
    fn one_odd_timestamp_sends_only_its_block_to_the_side_map() {
        // A first state at 0, then a device up for five days (past the 48-bit offset).
        let days5 = 5 * 86_400 * 1_000_000_000i64;
        let mut t = ThreadStates::default();
        let n = 3 * BLOCK_ROWS + 7;
        let ts_of = |k: usize| if k == 0 { 0 } else { days5 + 1_000 * k as i64 };
        for k in 0..n {
            t.push(ThreadStateRow::new(ts_of(k), 1, None, None, None, None));
        }
        assert!((0..n).all(|k| t.ts(k) == ts_of(k)));
        assert_eq!(t.far.ts.len(), BLOCK_ROWS - 1);
    }

    #[test]
    fn every_column_reads_back_as_given_including_what_overflows_the_packing() {
        let mut t = ThreadStates::default();
        let names: Vec<StrId> = (0..300).map(StrId::from_index).collect();
        let mut given = Vec::new();
        for (k, &name) in names.iter().enumerate() {
            let k64 = k as i64;
            // Timestamps near the first row's, 1.6 days or more away either side, and at
            // the ends of the range; utids and CPUs at and over their packed widths.
            let ts = match k % 11 {
                3 => i64::MAX - k64,
                5 => i64::MIN + k64,
                7 => (1 << 47) + k64,
                8 => -(1 << 47) - k64,
                9 => (1 << 47) - (1 << 32) - 1,
                // An offset whose upper part is the side map's marker.
                10 => -(1 << 47) + 7,
                _ => k64 * 1_000_000_007 - 5,
            };
            let utid = match k % 13 {
                4 => BIG_UTID - 1,
                6 => BIG_UTID,
                8 => (1 << 31) - 3,
                _ => k as u32 + 1,
            };
            let cpu = match k % 9 {
                2 => Some(BIG_CPU - 1),
                4 => Some(BIG_CPU),
                5 => Some(NO_CPU),
                6 => Some(u16::MAX),
                _ => (k % 3 == 0).then_some(k as u16 % 8),
            };
            let mut r = ThreadStateRow::new(
                ts,
                utid,
                (k % 7 != 0).then_some(name),
                cpu,
                match k % 4 {
                    0 => None,
                    1 => Some((9, Some(k as u32 / 2))),
                    _ => Some(((1 << 31) - 2, None)),
                },
                [None, Some(false), Some(true)][k % 3],
            );
            // Short, just under and over 32 bits, huge, negative and open durations.
            r.dur = [
                17,
                i64::from(LONG) - 1,
                i64::from(LONG),
                1 << 40,
                i64::MAX,
                -7,
                -1,
            ][k % 7];
            if k % 5 == 0 {
                r.set_io_wait(k % 10 == 0);
            }
            t.push(r);
            given.push(r);
        }
        let back: Vec<_> = t.iter().collect();
        assert_eq!(back, given);
        for (i, g) in given.iter().enumerate() {
            assert_eq!((t.ts(i), t.utid(i), t.state(i)), (g.ts, g.utid, g.state));
        }
        let times: Vec<(i64, i64)> = t.times().collect();
        assert_eq!(
            times,
            given.iter().map(|g| (g.ts, g.dur)).collect::<Vec<_>>()
        );
        // A rewritten duration drops its overflow entry.
        assert!(t.set_dur(3, 12));
        assert_eq!(t.row(3).dur, 12);
        assert!(!t.far.durs.contains_key(&3));
        assert!(!t.set_dur(300, 1));
        assert!(t.set_io_wait(1, true));
        assert_eq!(
            (t.row(1).io_wait(), t.row(1).irq_context()),
            (Some(true), Some(0))
        );
        assert_eq!(t.row(1).waker_utid(&t), Some(t.utid(0)));
    }
}
