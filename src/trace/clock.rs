//! Conversion of timestamps between clock domains using ClockSnapshot packets, the way
//! trace_processor's clock tracker does it: a graph whose edges are snapshots containing both
//! clocks; on each hop the latest snapshot at or before the timestamp is used (the first one
//! for timestamps that precede every snapshot).

use std::collections::{HashMap, VecDeque};

use rustc_hash::FxHashMap;

pub const BOOTTIME: u32 = 6;
pub const MONOTONIC: u32 = 3;

/// Clocks 64..128 are scoped to the packet sequence that defines them.
pub fn is_sequence_clock(id: u32) -> bool {
    (64..128).contains(&id)
}

/// A clock qualified by its sequence when it is sequence-scoped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClockKey {
    pub id: u32,
    pub seq: u32,
}

impl ClockKey {
    pub fn global(id: u32) -> Self {
        ClockKey { id, seq: 0 }
    }
}

#[derive(Default)]
struct Domain {
    unit_ns: i64,
    incremental: bool,
    last_ns: i64,
}

/// The snapshots of one group (same set of clocks), each clock's values in snapshot order.
struct Group {
    clocks: Vec<ClockKey>,
    /// values[snapshot][clock index], in ns
    values: Vec<Vec<i64>>,
}

/// One hop of a cached conversion path (indices into the snapshot groups).
type PathStep = (usize, usize, usize);

pub struct ClockTracker {
    trace_clock: ClockKey,
    trace_clock_locked: bool,
    /// Looked up for every timestamp not already in the trace clock (ftrace's sequence-scoped
    /// clock on many devices): Fx, not SipHash.
    domains: FxHashMap<ClockKey, Domain>,
    groups: Vec<Group>,
    /// Clocks seen going backwards between two snapshots of a group (e.g. REALTIME at a
    /// daylight-saving change): they stay usable as a target, never as a source, since one
    /// of their values can map to two instants.
    non_monotonic: Vec<ClockKey>,
    path_cache: FxHashMap<ClockKey, Option<Vec<PathStep>>>,
}

impl Default for ClockTracker {
    fn default() -> Self {
        ClockTracker {
            trace_clock: ClockKey::global(BOOTTIME),
            trace_clock_locked: false,
            domains: FxHashMap::default(),
            groups: Vec::new(),
            non_monotonic: Vec::new(),
            path_cache: FxHashMap::default(),
        }
    }
}

impl ClockTracker {
    pub fn trace_clock(&self) -> ClockKey {
        self.trace_clock
    }

    /// The trace clock can be changed (by ClockSnapshot.primary_trace_clock or the config)
    /// only before the first conversion.
    pub fn set_trace_clock(&mut self, id: u32) {
        if !self.trace_clock_locked {
            self.trace_clock = ClockKey::global(id);
            self.path_cache.clear();
        }
    }

    /// Records one snapshot: (clock, raw timestamp, unit multiplier, incremental).
    pub fn add_snapshot(&mut self, clocks: &[(ClockKey, i64, i64, bool)]) {
        let mut keys: Vec<ClockKey> = Vec::with_capacity(clocks.len());
        let mut vals = Vec::with_capacity(clocks.len());
        for &(key, ts, unit, incremental) in clocks {
            if keys.contains(&key) {
                continue;
            }
            let d = self.domains.entry(key).or_default();
            d.unit_ns = unit.max(1);
            d.incremental = incremental;
            let ns = if incremental {
                d.last_ns = ts * d.unit_ns;
                d.last_ns
            } else {
                ts * d.unit_ns
            };
            keys.push(key);
            vals.push(ns);
        }
        if keys.len() < 2 {
            return;
        }
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&i| keys[i]);
        let sorted_keys: Vec<ClockKey> = order.iter().map(|&i| keys[i]).collect();
        let sorted_vals: Vec<i64> = order.iter().map(|&i| vals[i]).collect();
        if let Some(g) = self.groups.iter_mut().find(|g| g.clocks == sorted_keys) {
            let went_back: Vec<ClockKey> = match g.values.last() {
                Some(last) => sorted_keys
                    .iter()
                    .zip(sorted_vals.iter().zip(last))
                    .filter(|(_, (now, before))| now < before)
                    .map(|(k, _)| *k)
                    .collect(),
                None => Vec::new(),
            };
            // A trace clock going backwards makes the whole snapshot invalid.
            if went_back.contains(&self.trace_clock) {
                return;
            }
            for key in went_back {
                if !self.non_monotonic.contains(&key) {
                    self.non_monotonic.push(key);
                    self.path_cache.clear();
                }
            }
            g.values.push(sorted_vals);
        } else {
            self.groups.push(Group {
                clocks: sorted_keys,
                values: vec![sorted_vals],
            });
            self.path_cache.clear();
        }
    }

    pub fn has_snapshots(&self) -> bool {
        !self.groups.is_empty()
    }

    /// Shortest path (in hops) from `src` to the trace clock: (group, from idx, to idx).
    fn find_path(&self, src: ClockKey) -> Option<Vec<(usize, usize, usize)>> {
        let target = self.trace_clock;
        let mut prev: HashMap<ClockKey, (ClockKey, usize, usize, usize)> = HashMap::new();
        let mut queue = VecDeque::from([src]);
        let mut seen = vec![src];
        while let Some(cur) = queue.pop_front() {
            if cur != target && self.non_monotonic.contains(&cur) {
                continue;
            }
            if cur == target {
                let mut path = Vec::new();
                let mut at = cur;
                while at != src {
                    let (from, g, fi, ti) = prev[&at];
                    path.push((g, fi, ti));
                    at = from;
                }
                path.reverse();
                return Some(path);
            }
            for (gi, g) in self.groups.iter().enumerate() {
                let Some(fi) = g.clocks.iter().position(|&c| c == cur) else {
                    continue;
                };
                for (ti, &next) in g.clocks.iter().enumerate() {
                    if !seen.contains(&next) {
                        seen.push(next);
                        prev.insert(next, (cur, gi, fi, ti));
                        queue.push_back(next);
                    }
                }
            }
        }
        None
    }

    /// Converts a raw timestamp of `clock` into the trace clock; None when no snapshot links
    /// the two clocks.
    pub fn to_trace_time(&mut self, clock: ClockKey, raw: i64) -> Option<i64> {
        self.trace_clock_locked = true;
        if clock == self.trace_clock {
            return Some(raw);
        }
        let mut ns = match self.domains.get_mut(&clock) {
            Some(d) if d.incremental => {
                d.last_ns += raw * d.unit_ns;
                d.last_ns
            }
            Some(d) => raw * d.unit_ns,
            None => return None,
        };
        let path = match self.path_cache.get(&clock) {
            Some(p) => p.as_ref()?,
            None => {
                let p = self.find_path(clock);
                self.path_cache.entry(clock).or_insert(p).as_ref()?
            }
        };
        for &(g, fi, ti) in path {
            let values = &self.groups[g].values;
            // Latest snapshot with a source value <= ns; the first one when ns precedes all.
            let idx = values.partition_point(|v| v[fi] <= ns).saturating_sub(1);
            ns = ns - values[idx][fi] + values[idx][ti];
        }
        Some(ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonic_to_boottime_uses_latest_snapshot_before() {
        let mut c = ClockTracker::default();
        let mono = ClockKey::global(MONOTONIC);
        let boot = ClockKey::global(BOOTTIME);
        c.add_snapshot(&[(boot, 1000, 1, false), (mono, 100, 1, false)]);
        c.add_snapshot(&[(boot, 5000, 1, false), (mono, 4000, 1, false)]);
        assert_eq!(c.to_trace_time(mono, 150), Some(1050));
        assert_eq!(c.to_trace_time(mono, 4001), Some(5001));
        // Before every snapshot: the first one applies.
        assert_eq!(c.to_trace_time(mono, 50), Some(950));
        assert_eq!(c.to_trace_time(boot, 7), Some(7));
    }

    #[test]
    fn a_clock_that_went_backwards_is_never_a_source() {
        let mut c = ClockTracker::default();
        let real = ClockKey::global(1);
        let boot = ClockKey::global(BOOTTIME);
        c.add_snapshot(&[(boot, 1000, 1, false), (real, 9000, 1, false)]);
        assert_eq!(c.to_trace_time(real, 9100), Some(1100));
        // REALTIME jumps back an hour: 8000 now means two different boot times.
        c.add_snapshot(&[(boot, 2000, 1, false), (real, 8000, 1, false)]);
        assert_eq!(c.to_trace_time(real, 9100), None);
    }

    #[test]
    fn unknown_clock_does_not_convert() {
        let mut c = ClockTracker::default();
        assert_eq!(c.to_trace_time(ClockKey::global(MONOTONIC), 5), None);
    }

    #[test]
    fn sequence_scoped_clocks_are_64_to_127() {
        // builtin_clock.proto: ids 64..=127 are defined per packet sequence.
        let scoped: Vec<u32> = (0..200).filter(|&id| is_sequence_clock(id)).collect();
        assert_eq!(scoped, (64..=127).collect::<Vec<u32>>());
    }

    #[test]
    fn the_trace_clock_can_change_only_before_the_first_conversion() {
        let (boot, mono) = (ClockKey::global(BOOTTIME), ClockKey::global(MONOTONIC));
        let mut c = ClockTracker::default();
        c.add_snapshot(&[(boot, 1000, 1, false), (mono, 100, 1, false)]);
        c.set_trace_clock(MONOTONIC);
        assert_eq!(c.trace_clock(), mono);
        // Boot 1500 is mono 600; mono is now the trace clock and passes through.
        assert_eq!(c.to_trace_time(boot, 1500), Some(600));
        assert_eq!(c.to_trace_time(mono, 7), Some(7));
        // After a conversion the choice is locked.
        c.set_trace_clock(BOOTTIME);
        assert_eq!(c.trace_clock(), mono);
        assert_eq!(c.to_trace_time(boot, 1500), Some(600));
    }

    #[test]
    fn units_and_incremental_clocks() {
        let boot = ClockKey::global(BOOTTIME);
        let us = ClockKey::global(1);
        let delta = ClockKey { id: 64, seq: 3 };
        let mut c = ClockTracker::default();
        // A microsecond clock: 5 µs ↔ boot 10,000 ns; 7 µs = 5,000 + 2,000 → 12,000.
        c.add_snapshot(&[(boot, 10_000, 1, false), (us, 5, 1000, false)]);
        assert_eq!(c.to_trace_time(us, 7), Some(12_000));
        // An incremental clock in 10 ns units: the snapshot sets it to 40 ticks (400 ns) at
        // boot 20,000; each timestamp then adds its delta: +3 ticks → 430 ns → boot 20,030,
        // +2 more → 450 ns → 20,050.
        c.add_snapshot(&[(boot, 20_000, 1, false), (delta, 40, 10, true)]);
        assert_eq!(c.to_trace_time(delta, 3), Some(20_030));
        assert_eq!(c.to_trace_time(delta, 2), Some(20_050));
    }

    #[test]
    fn an_incremental_clock_is_placed_between_snapshots_in_nanoseconds() {
        let boot = ClockKey::global(BOOTTIME);
        let delta = ClockKey { id: 64, seq: 3 };
        let mut c = ClockTracker::default();
        // 10 ns ticks: 40 ticks = 400 ns at boot 20,000; 100 ticks = 1,000 ns at boot 30,000.
        c.add_snapshot(&[(boot, 20_000, 1, false), (delta, 40, 10, true)]);
        c.add_snapshot(&[(boot, 30_000, 1, false), (delta, 100, 10, true)]);
        // One tick back from the second snapshot: 990 ns, before 1,000 ns, so the first
        // snapshot applies: 990 − 400 + 20,000.
        assert_eq!(c.to_trace_time(delta, -1), Some(20_590));
    }

    #[test]
    fn a_snapshot_needs_two_clocks_and_may_have_more() {
        let (boot, mono, real) = (
            ClockKey::global(BOOTTIME),
            ClockKey::global(MONOTONIC),
            ClockKey::global(1),
        );
        let mut c = ClockTracker::default();
        assert!(!c.has_snapshots());
        // One clock alone relates nothing.
        c.add_snapshot(&[(mono, 100, 1, false)]);
        assert!(!c.has_snapshots());
        assert_eq!(c.to_trace_time(mono, 150), None);
        // Three clocks in one snapshot: each converts.
        c.add_snapshot(&[
            (boot, 1000, 1, false),
            (mono, 100, 1, false),
            (real, 50, 1, false),
        ]);
        assert!(c.has_snapshots());
        assert_eq!(c.to_trace_time(mono, 150), Some(1050));
        assert_eq!(c.to_trace_time(real, 60), Some(1010));
    }

    #[test]
    fn a_clock_that_stood_still_is_still_a_source() {
        // REALTIME equal in two snapshots (not < the previous value) is not "going back".
        let (boot, real) = (ClockKey::global(BOOTTIME), ClockKey::global(1));
        let mut c = ClockTracker::default();
        c.add_snapshot(&[(boot, 1000, 1, false), (real, 9000, 1, false)]);
        c.add_snapshot(&[(boot, 2000, 1, false), (real, 9000, 1, false)]);
        // The latest snapshot at or before 9100 is the second: 9100 − 9000 + 2000.
        assert_eq!(c.to_trace_time(real, 9100), Some(2100));
    }

    #[test]
    fn two_hop_path() {
        let mut c = ClockTracker::default();
        let (a, b, boot) = (
            ClockKey::global(1),
            ClockKey::global(3),
            ClockKey::global(BOOTTIME),
        );
        c.add_snapshot(&[(a, 10, 1, false), (b, 20, 1, false)]);
        c.add_snapshot(&[(b, 20, 1, false), (boot, 120, 1, false)]);
        assert_eq!(c.to_trace_time(a, 15), Some(125));
    }
}
