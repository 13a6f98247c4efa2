//! Row ids grouped by a small key (a thread, a CPU, a track), at about two bytes per row:
//! the analysis indexes over millions of thread-state and slice rows (issue 19).
//!
//! Each id keeps its low 16 bits in one flat vector. Its high bits are shared by a run of
//! neighbours in the group: a group's ids mostly rise, so a group holds one run per 65,536
//! rows of the table it indexes, not one per row.

/// A run of a group's entries whose ids share their high 16 bits.
#[derive(Debug, Clone, Copy)]
struct Run {
    /// First entry of the run, counted from the start of its group.
    from: u32,
    high: u16,
}

/// Group `k` holds entries `starts[k]..starts[k + 1]`, in the order the rows were given
/// (or sorted by [`Grouped::sort_by_key_where`]).
#[derive(Debug, Default)]
pub struct Grouped {
    starts: Vec<u32>,
    lows: Vec<u16>,
    /// Group `k`'s runs are `runs[run_starts[k]..run_starts[k + 1]]`.
    run_starts: Vec<u32>,
    runs: Vec<Run>,
}

fn split(id: u32) -> (u16, u16) {
    ((id >> 16) as u16, id as u16)
}

/// Counts per group into each group's start (the last entry ends up as the total).
fn prefix_sums(v: &mut [u32]) {
    for k in 1..v.len() {
        v[k] += v[k - 1];
    }
}

/// The run entry `from` of a group opens, when its high half differs from the run before.
fn run_at(last_high: &mut Option<u16>, from: u32, high: u16) -> Option<Run> {
    (*last_high != Some(high)).then(|| {
        *last_high = Some(high);
        Run { from, high }
    })
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
        prefix_sums(&mut starts);
        let groups = starts.len().saturating_sub(1);
        let mut next = starts.clone();
        let mut lows = vec![0u16; starts.last().map_or(0, |&n| n as usize)];
        // Runs arrive interleaved across groups, each group's in entry order.
        let mut last_high: Vec<Option<u16>> = vec![None; groups];
        let mut runs: Vec<(u32, Run)> = Vec::new();
        for (k, row) in pairs() {
            let (high, low) = split(row);
            let e = next[k];
            lows[e as usize] = low;
            if let Some(run) = run_at(&mut last_high[k], e - starts[k], high) {
                runs.push((k as u32, run));
            }
            next[k] += 1;
        }
        runs.sort_by_key(|&(k, _)| k);
        let mut run_starts = vec![0u32; starts.len()];
        for &(k, _) in &runs {
            run_starts[k as usize + 1] += 1;
        }
        prefix_sums(&mut run_starts);
        Grouped {
            starts,
            lows,
            run_starts,
            runs: runs.into_iter().map(|(_, r)| r).collect(),
        }
    }

    pub fn get(&self, key: usize) -> Group<'_> {
        let range = |v: &[u32]| match (v.get(key), v.get(key + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        };
        Group {
            lows: &self.lows[range(&self.starts)],
            runs: &self.runs[range(&self.run_starts)],
        }
    }

    /// Sorts by `key` (stable: equal keys keep their order) each group `unsure` names; the
    /// caller knows the others are in order. Groups already in order, the usual case, are
    /// only checked.
    pub fn sort_by_key_where<K: Ord>(
        &mut self,
        unsure: impl Fn(usize) -> bool,
        mut key: impl FnMut(u32) -> K,
    ) {
        let mut runs = Vec::with_capacity(self.runs.len());
        let mut run_starts = vec![0u32; self.run_starts.len()];
        for g in 0..self.starts.len().saturating_sub(1) {
            let group = self.get(g);
            let mut last = None;
            let sorted = !unsure(g)
                || group.iter().all(|id| {
                    let k = key(id);
                    let in_order = last.as_ref().is_none_or(|l| *l <= k);
                    last = Some(k);
                    in_order
                });
            if sorted {
                runs.extend_from_slice(group.runs);
            } else {
                let mut ids: Vec<u32> = group.iter().collect();
                ids.sort_by_key(|&i| key(i));
                let at = self.starts[g] as usize;
                let mut high = None;
                for (e, id) in ids.into_iter().enumerate() {
                    let (h, low) = split(id);
                    self.lows[at + e] = low;
                    runs.extend(run_at(&mut high, e as u32, h));
                }
            }
            run_starts[g + 1] = runs.len() as u32;
        }
        self.runs = runs;
        self.run_starts = run_starts;
    }
}

/// Which groups were given entries out of key order, noted as the entries come in row order
/// (the order [`Grouped::new`] keeps): the caller then sorts only those
/// ([`Grouped::sort_by_key_where`]) instead of reading every group's scattered rows again.
#[derive(Debug, Default)]
pub struct OrderWatch<K> {
    last: Vec<Option<K>>,
    unsure: Vec<bool>,
}

impl<K: Ord + Copy> OrderWatch<K> {
    pub fn see(&mut self, group: usize, key: K) {
        if self.last.len() <= group {
            self.last.resize(group + 1, None);
            self.unsure.resize(group + 1, false);
        }
        self.unsure[group] |= self.last[group].is_some_and(|l| l > key);
        self.last[group] = Some(key);
    }

    pub fn unsure(&self, group: usize) -> bool {
        self.unsure.get(group).copied().unwrap_or(false)
    }
}

/// One group's row ids, in order.
#[derive(Debug, Clone, Copy)]
pub struct Group<'a> {
    lows: &'a [u16],
    runs: &'a [Run],
}

impl<'a> Group<'a> {
    pub fn len(&self) -> usize {
        self.lows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lows.is_empty()
    }

    /// The id of entry `k`.
    pub fn get(&self, k: usize) -> Option<u32> {
        let low = *self.lows.get(k)?;
        let r = match self.runs {
            [only] => only,
            runs => &runs[runs.partition_point(|r| r.from as usize <= k) - 1],
        };
        Some(join(r.high, low))
    }

    pub fn first(&self) -> Option<u32> {
        self.get(0)
    }

    /// The number of leading entries whose id satisfies `pred` (which must hold for a
    /// prefix), as `slice::partition_point`: first over the runs' first ids, then inside
    /// the run where the prefix ends.
    pub fn partition_point(&self, mut pred: impl FnMut(u32) -> bool) -> usize {
        let r = self
            .runs
            .partition_point(|run| pred(join(run.high, self.lows[run.from as usize])));
        let Some(run) = r.checked_sub(1).map(|r| self.runs[r]) else {
            return 0;
        };
        let (from, to) = (run.from as usize, self.run_end(r - 1));
        from + self.lows[from..to].partition_point(|&low| pred(join(run.high, low)))
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + 'a {
        self.iter_from(0)
    }

    /// The ids from entry `k` on.
    pub fn iter_from(&self, k: usize) -> impl Iterator<Item = u32> + 'a {
        let Group { lows, runs } = *self;
        let first = runs
            .partition_point(|r| r.from as usize <= k)
            .saturating_sub(1);
        let group = *self;
        (first..runs.len()).flat_map(move |r| {
            let to = group.run_end(r);
            let from = (runs[r].from as usize).max(k).min(to);
            let high = runs[r].high;
            lows[from..to].iter().map(move |&low| join(high, low))
        })
    }

    /// One past the last entry of run `r`.
    fn run_end(&self, r: usize) -> usize {
        self.runs
            .get(r + 1)
            .map_or(self.lows.len(), |n| n.from as usize)
    }
}

fn join(high: u16, low: u16) -> u32 {
    (high as u32) << 16 | low as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn ids(g: Group) -> Vec<u32> {
        g.iter().collect()
    }

    #[test]
    fn rows_land_in_their_group_in_the_order_given() {
        let pairs = [(3, 10), (0, 11), (3, 12), (5, 13), (0, 14), (3, 15)];
        let g = Grouped::new(|| pairs.iter().copied());
        assert_eq!(ids(g.get(0)), [11, 14]);
        assert_eq!(ids(g.get(3)), [10, 12, 15]);
        assert_eq!(ids(g.get(5)), [13]);
        // Keys in between and past the last one are empty groups.
        assert!(g.get(1).is_empty() && g.get(4).is_empty() && g.get(6).is_empty());
        assert!(Grouped::new(std::iter::empty).get(0).is_empty());
    }

    #[test]
    fn sorting_stays_inside_each_group() {
        let pairs = [(0, 5), (1, 4), (0, 3), (1, 2), (0, 1)];
        let mut g = Grouped::new(|| pairs.iter().copied());
        g.sort_by_key_where(|_| true, |i| i);
        assert_eq!(ids(g.get(0)), [1, 3, 5]);
        assert_eq!(ids(g.get(1)), [2, 4]);
        // Stable: rows with equal keys keep the order they were given.
        let mut g = Grouped::new(|| pairs.iter().copied());
        g.sort_by_key_where(|_| true, |_| 0);
        assert_eq!(ids(g.get(0)), [5, 3, 1]);
    }

    /// Every read agrees with a vector per group, on ids spread over the whole u32 range
    /// (many runs per group, high halves that come back), before and after sorting.
    #[test]
    fn reads_match_a_vector_per_group_across_every_high_half() {
        let mut rng = Rng::new(19);
        let mut pairs = Vec::new();
        for i in 0..60_000u32 {
            let id = match i % 4 {
                0 => i * 70_001,                           // across all of u32
                1 => 0x0001_0000 * (i % 7) + (i & 0xffff), // high halves that repeat
                _ => rng.range(0, 300_000) as u32,
            };
            pairs.push((rng.range(0, 40) as usize, id));
        }
        let mut model: Vec<Vec<u32>> = vec![Vec::new(); 41];
        for &(k, id) in &pairs {
            model[k].push(id);
        }
        let check = |g: &Grouped, model: &[Vec<u32>]| {
            for (k, want) in model.iter().enumerate() {
                let group = g.get(k);
                assert_eq!(ids(group), *want, "group {k}");
                assert_eq!(group.len(), want.len());
                for (e, &id) in want.iter().enumerate().step_by(37) {
                    assert_eq!(group.get(e), Some(id), "group {k} entry {e}");
                    assert_eq!(group.iter_from(e).collect::<Vec<_>>(), want[e..]);
                }
                assert_eq!(group.get(want.len()), None);
                assert_eq!(group.first(), want.first().copied());
            }
        };
        let mut g = Grouped::new(|| pairs.iter().copied());
        check(&g, &model);
        g.sort_by_key_where(|_| true, |id| id);
        for v in &mut model {
            v.sort();
        }
        check(&g, &model);
        for (k, want) in model.iter().enumerate() {
            for probe in [0, 5_000, 70_000, 250_000, 3_000_000_000] {
                let p = g.get(k).partition_point(|id| id < probe);
                assert_eq!(p, want.partition_point(|&id| id < probe), "group {k}");
            }
        }
    }

    /// Two bytes per row when a group's ids rise: one run per 65,536 ids of the table.
    #[test]
    fn rising_ids_cost_two_bytes_each() {
        let g = Grouped::new(|| (0..1_000_000u32).map(|i| ((i % 8) as usize, i)));
        assert_eq!(g.lows.len(), 1_000_000);
        assert!(
            g.runs.len() <= 8 * (1_000_000 / 65_536 + 1),
            "{}",
            g.runs.len()
        );
    }
}
