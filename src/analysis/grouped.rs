//! Row ids grouped by a small key (a thread, a CPU, a track) in two flat vectors: one
//! allocation of exactly one u32 per row, where a vector per group would allocate thousands
//! of times and keep up to half of each unused (issue 19: millions of thread-state rows).

/// Group `k` holds `items[starts[k]..starts[k + 1]]`, in the order the rows were given.
#[derive(Debug, Default)]
pub struct Grouped {
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Grouped {
    /// Groups the `(key, row)` pairs; `pairs` is walked twice (count, then place).
    pub fn new<I>(pairs: impl Fn() -> I) -> Self
    where
        I: Iterator<Item = (usize, u32)>,
    {
        let mut starts: Vec<u32> = Vec::new();
        for (k, _) in pairs() {
            if starts.len() <= k + 1 {
                starts.resize(k + 2, 0);
            }
            starts[k + 1] += 1;
        }
        for k in 1..starts.len() {
            starts[k] += starts[k - 1];
        }
        let mut next = starts.clone();
        let mut items = vec![0u32; starts.last().map_or(0, |&n| n as usize)];
        for (k, row) in pairs() {
            items[next[k] as usize] = row;
            next[k] += 1;
        }
        Grouped { starts, items }
    }

    pub fn get(&self, key: usize) -> &[u32] {
        match (self.starts.get(key), self.starts.get(key + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Sorts every group by `key` (stable: equal keys keep their order); groups already in
    /// order, the usual case, are only checked.
    pub fn sort_each_by_key<K: Ord>(&mut self, mut key: impl FnMut(u32) -> K) {
        for w in self.starts.windows(2) {
            let group = &mut self.items[w[0] as usize..w[1] as usize];
            if !group.is_sorted_by_key(|&i| key(i)) {
                group.sort_by_key(|&i| key(i));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_land_in_their_group_in_the_order_given() {
        let pairs = [(3, 10), (0, 11), (3, 12), (5, 13), (0, 14), (3, 15)];
        let g = Grouped::new(|| pairs.iter().copied());
        assert_eq!(g.get(0), &[11, 14]);
        assert_eq!(g.get(3), &[10, 12, 15]);
        assert_eq!(g.get(5), &[13]);
        // Keys in between and past the last one are empty groups.
        assert!(g.get(1).is_empty() && g.get(4).is_empty() && g.get(6).is_empty());
        assert!(Grouped::new(std::iter::empty).get(0).is_empty());
    }

    #[test]
    fn sorting_stays_inside_each_group() {
        let pairs = [(0, 5), (1, 4), (0, 3), (1, 2), (0, 1)];
        let mut g = Grouped::new(|| pairs.iter().copied());
        g.sort_each_by_key(|i| i);
        assert_eq!(g.get(0), &[1, 3, 5]);
        assert_eq!(g.get(1), &[2, 4]);
        // Stable: rows with equal keys keep the order they were given.
        let mut g = Grouped::new(|| pairs.iter().copied());
        g.sort_each_by_key(|_| 0);
        assert_eq!(g.get(0), &[5, 3, 1]);
    }
}
