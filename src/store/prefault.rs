//! Pages of the largest tables faulted in ahead of their rows, while the importers' thread
//! would otherwise wait: before the sorter's first window, and whenever the loading thread
//! is the longer side. On the benchmark's host a fresh page costs 2–4 µs to fault in; the
//! slice and thread-state rows took 46% of x60 `analyze`'s page faults, nearly all of them
//! on the importers' thread while it bounded the load (docs/speed.md, "CPU, twenty-fifth
//! round").

/// How many rows each table is expected to reach at least (`import::forecast`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowForecast {
    pub slices: usize,
    pub thread_states: usize,
}

/// Bytes faulted in per step: a batch that arrives meanwhile waits a fraction of a
/// millisecond.
pub const STEP_BYTES: usize = 256 << 10;

/// Writing one row per page is enough to fault it in; 4 KiB is the smallest page there is.
const PAGE_BYTES: usize = 4096;

/// How far one table's pages are faulted in ahead of its rows.
#[derive(Debug, Default)]
pub struct Ahead {
    /// Rows expected: the target of the faulting.
    target: usize,
    /// Rows whose pages are resident (pushed ones included).
    done: usize,
}

impl Ahead {
    /// Raises the target (a later forecast never lowers an earlier one).
    pub fn expect(&mut self, rows: usize) {
        self.target = self.target.max(rows);
    }

    /// The rows forecast (0 when none was).
    pub fn target(&self) -> usize {
        self.target
    }

    /// Reserves `rows` up to the target and faults in at most `budget` bytes of its spare
    /// capacity, from where the last step (or the last row) ended. Writes default rows
    /// into the spare capacity only: the rows themselves and their count are untouched.
    /// Returns the bytes faulted in (0 once the target is reached).
    pub fn step<T: Default>(&mut self, rows: &mut Vec<T>, budget: usize) -> usize {
        let from = self.done.max(rows.len());
        if from >= self.target {
            return 0;
        }
        if rows.try_reserve_exact(self.target - rows.len()).is_err() {
            // No room for the forecast: rows grow as they come, as without one.
            self.target = 0;
            return 0;
        }
        let size = std::mem::size_of::<T>().max(1);
        let upto = self.target.min(from + (budget / size).max(1));
        let stride = (PAGE_BYTES / size).max(1);
        let base = from - rows.len();
        let spare = rows.spare_capacity_mut();
        for slot in spare[base..base + (upto - from)].iter_mut().step_by(stride) {
            slot.write(T::default());
        }
        self.done = upto;
        (upto - from) * size
    }
}

/// The tables faulted in ahead.
#[derive(Debug, Default)]
pub struct TablesAhead {
    pub slices: Ahead,
    pub thread_states: Ahead,
}

impl TablesAhead {
    pub fn expect(&mut self, f: RowForecast) {
        self.slices.expect(f.slices);
        self.thread_states.expect(f.thread_states);
    }
}

impl super::Store {
    /// Faults in one step ([`STEP_BYTES`]) of the tables' pages ahead of their rows; false
    /// once the forecasts are met.
    pub fn fault_in_ahead(&mut self) -> bool {
        // One table per step: the slices until their forecast is met, then the thread states.
        self.ahead.slices.step(&mut self.slices, STEP_BYTES) > 0
            || self
                .thread_states
                .fault_in(&mut self.ahead.thread_states, STEP_BYTES)
                > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faulting_in_ahead_leaves_the_rows_as_they_were() {
        let mut rows: Vec<u64> = (0..1000).collect();
        let mut ahead = Ahead::default();
        ahead.expect(100_000);
        let mut total = 0;
        loop {
            let n = ahead.step(&mut rows, 64 << 10);
            if n == 0 {
                break;
            }
            assert!(n <= 64 << 10, "a step faults in at most its budget");
            total += n;
        }
        assert_eq!(
            total,
            99_000 * 8,
            "every row from the last one to the target"
        );
        assert_eq!(rows.len(), 1000);
        assert!(
            rows.iter().copied().eq(0..1000),
            "rows written before are kept"
        );
        assert!(
            rows.capacity() >= 100_000,
            "room for the forecast is reserved"
        );
        rows.extend(1000..100_000);
        assert!(rows.iter().copied().eq(0..100_000));
    }

    #[test]
    fn a_step_starts_where_the_rows_or_the_last_step_ended() {
        let mut rows: Vec<u32> = Vec::new();
        let mut ahead = Ahead::default();
        assert_eq!(
            ahead.step(&mut rows, 4096),
            0,
            "nothing expected, nothing done"
        );
        ahead.expect(10_000);
        assert_eq!(ahead.step(&mut rows, 4096), 4096);
        rows.extend(0..3000);
        // 1024 rows were faulted in, 3000 pushed since: the next step starts at 3000.
        assert_eq!(ahead.step(&mut rows, 1 << 20), (10_000 - 3000) * 4);
        ahead.expect(5_000);
        assert_eq!(
            ahead.step(&mut rows, 1 << 20),
            0,
            "a lower forecast changes nothing"
        );
    }

    #[test]
    fn a_forecast_too_large_to_reserve_is_dropped() {
        let mut rows: Vec<u64> = vec![1, 2, 3];
        let mut ahead = Ahead::default();
        ahead.expect(usize::MAX / 4);
        assert_eq!(ahead.step(&mut rows, 4096), 0);
        assert_eq!(rows, [1, 2, 3]);
    }
}
