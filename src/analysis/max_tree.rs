//! Values at fixed positions, some removed as a search consumes them, answering "the last
//! position before `k` whose value is at least `t`" in logarithmic time: the matching rules
//! that upstream states as a scan of a shrinking list (Macrobenchmark's "last unused actual
//! slice") would otherwise be quadratic in the frames of one app.

/// A segment tree of maxima over the values not yet removed.
pub struct MaxTree {
    /// Leaves from `leaves`; node `i`'s children are `2i` and `2i + 1`.
    max: Vec<i64>,
    leaves: usize,
}

/// The value of a removed (or padding) position: below every query.
const GONE: i64 = i64::MIN;

impl MaxTree {
    pub fn new(values: impl ExactSizeIterator<Item = i64>) -> MaxTree {
        let leaves = values.len().next_power_of_two();
        let mut max = vec![GONE; 2 * leaves];
        for (i, v) in values.enumerate() {
            max[leaves + i] = v;
        }
        for i in (1..leaves).rev() {
            max[i] = max[2 * i].max(max[2 * i + 1]);
        }
        MaxTree { max, leaves }
    }

    /// The last position below `before` still present whose value is at least `at_least`
    /// (`at_least` above `i64::MIN`, the mark of a removed position).
    pub fn last_at_least(&self, before: usize, at_least: i64) -> Option<usize> {
        debug_assert!(at_least > GONE);
        self.last_in(1, 0, self.leaves, before, at_least)
    }

    /// The search within node `node`, which covers positions `lo..hi`.
    fn last_in(&self, node: usize, lo: usize, hi: usize, before: usize, t: i64) -> Option<usize> {
        if lo >= before || self.max[node] < t {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = (lo + hi) / 2;
        self.last_in(2 * node + 1, mid, hi, before, t)
            .or_else(|| self.last_in(2 * node, lo, mid, before, t))
    }

    /// Takes position `i` out of every later search.
    pub fn remove(&mut self, i: usize) {
        let mut n = self.leaves + i;
        self.max[n] = GONE;
        while n > 1 {
            n /= 2;
            self.max[n] = self.max[2 * n].max(self.max[2 * n + 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan the tree replaces: the last present position before `before` reaching `t`.
    fn scan(values: &[Option<i64>], before: usize, t: i64) -> Option<usize> {
        values[..before.min(values.len())]
            .iter()
            .rposition(|v| v.is_some_and(|v| v >= t))
    }

    #[test]
    fn agrees_with_a_scan_as_positions_are_removed() {
        // A fixed pseudo-random sequence of values, queries and removals over sizes that are
        // and are not powers of two.
        let mut rng = crate::rng::Rng::new(12345);
        let mut next = move |m: u64| rng.next_u64() % m;
        for n in [1usize, 2, 5, 8, 13, 64, 100] {
            let mut values: Vec<Option<i64>> = (0..n).map(|_| Some(next(50) as i64)).collect();
            let mut tree = MaxTree::new(values.iter().map(|v| v.unwrap()));
            for _ in 0..4 * n {
                let before = next(n as u64 + 2) as usize;
                let t = next(55) as i64;
                let found = tree.last_at_least(before, t);
                assert_eq!(
                    found,
                    scan(&values, before, t),
                    "n {n} before {before} t {t}"
                );
                if let Some(p) = found {
                    tree.remove(p);
                    values[p] = None;
                }
            }
        }
    }

    #[test]
    fn a_removed_position_is_never_found_again() {
        let mut tree = MaxTree::new([7, 9, 3].into_iter());
        assert_eq!(tree.last_at_least(3, 8), Some(1));
        tree.remove(1);
        assert_eq!(tree.last_at_least(3, 8), None);
        assert_eq!(tree.last_at_least(3, 3), Some(2));
        assert_eq!(tree.last_at_least(2, 3), Some(0));
        assert_eq!(tree.last_at_least(0, 0), None);
    }
}
