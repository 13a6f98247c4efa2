//! CPU contention: for the time a thread was Runnable, the CPU it waited for (the one it
//! ran on next), who ran there meanwhile (top 3 by time, with their process), the CPU's
//! cluster when the trace gives CPU capacities, and its frequency when cpufreq is traced.
//!
//! Cluster names follow Perfetto's `android.cpu.cluster_type`: CPUs grouped by capacity,
//! lowest first, are `little`/`big` (2 groups), `little`/`medium`/`big` (3) or
//! `little`/`medium`/`medium`/`big` (4); any other count names no cluster.

use std::collections::{BTreeMap, HashMap};

use super::context::Ctx;
use super::model::{CpuDetail, ThreadMs};
use super::timeline::Piece;
use crate::analysis::blame::ms;
use crate::analysis::thread_state::Kind as State;
use crate::store::{Store, TrackScope, Utid};

/// How many threads that ran instead are listed.
const RAN_INSTEAD: usize = 3;

/// Per-CPU frequency series and cluster names.
#[derive(Default)]
pub struct CpuCounters {
    freq: HashMap<u32, Vec<(i64, f64)>>,
    cluster: HashMap<u32, &'static str>,
}

/// Cluster names for `n` capacity groups, lowest capacity first.
pub fn cluster_names(n: usize) -> Option<&'static [&'static str]> {
    match n {
        2 => Some(&["little", "big"]),
        3 => Some(&["little", "medium", "big"]),
        4 => Some(&["little", "medium", "medium", "big"]),
        _ => None,
    }
}

impl CpuCounters {
    pub fn build(store: &Store) -> Self {
        let mut kind_of: HashMap<u32, (u32, bool)> = HashMap::new();
        for (i, t) in store.tracks.iter().enumerate() {
            if let TrackScope::Cpu(cpu) = t.scope {
                match store.str(t.kind) {
                    "cpu_frequency" => {
                        kind_of.insert(i as u32, (cpu, true));
                    }
                    "cpu_capacity" => {
                        kind_of.insert(i as u32, (cpu, false));
                    }
                    _ => {}
                }
            }
        }
        let mut out = CpuCounters::default();
        let mut capacity: BTreeMap<u32, f64> = BTreeMap::new();
        for c in &store.counters {
            match kind_of.get(&c.track_id) {
                Some(&(cpu, true)) => out.freq.entry(cpu).or_default().push((c.ts, c.value)),
                Some(&(cpu, false)) => {
                    let e = capacity.entry(cpu).or_insert(c.value);
                    *e = e.max(c.value);
                }
                None => {}
            }
        }
        for v in out.freq.values_mut() {
            v.sort_by_key(|p| p.0);
        }
        out.cluster = clusters(&capacity);
        out
    }

    pub fn freq_at(&self, cpu: u32, ts: i64) -> Option<f64> {
        let v = self.freq.get(&cpu)?;
        let k = v.partition_point(|p| p.0 <= ts);
        (k > 0).then(|| v[k - 1].1)
    }
}

/// CPU -> cluster name from each CPU's capacity.
fn clusters(capacity: &BTreeMap<u32, f64>) -> HashMap<u32, &'static str> {
    let mut levels: Vec<f64> = capacity.values().copied().collect();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    let Some(names) = cluster_names(levels.len()) else {
        return HashMap::new();
    };
    capacity
        .iter()
        .map(|(&cpu, c)| {
            let i = levels.iter().position(|l| l == c).unwrap_or(0);
            (cpu, names[i])
        })
        .collect()
}

/// The CPU a Runnable piece waited for: where the thread ran next, else the one its state
/// row names.
fn cpu_waited_for(ctx: &Ctx<'_>, utid: Utid, p: &Piece) -> Option<u32> {
    let next = ctx
        .states
        .spans(utid, p.end, p.end + 1)
        .find(|s| s.kind == State::Running);
    next.map(|s| s.row)
        .or(p.state_row)
        .and_then(|r| ctx.store.thread_states[r as usize].cpu())
        .map(u32::from)
}

pub fn detail(ctx: &Ctx<'_>, utid: Utid, pieces: &[&Piece]) -> CpuDetail {
    let counters = ctx
        .cpu_counters
        .get_or_init(|| CpuCounters::build(ctx.store));
    let sched = &ctx.store.sched;
    let mut cpus: Vec<u32> = Vec::new();
    let mut by_thread: HashMap<Utid, i64> = HashMap::new();
    for p in pieces {
        let Some(cpu) = cpu_waited_for(ctx, utid, p) else {
            continue;
        };
        if !cpus.contains(&cpu) {
            cpus.push(cpu);
        }
        let rows = ctx.sched_on_cpu(cpu);
        let first = rows
            .partition_point(|&r| sched[r as usize].ts <= p.start)
            .saturating_sub(1);
        for &r in &rows[first..] {
            let s = &sched[r as usize];
            if s.ts >= p.end {
                break;
            }
            let end = if s.dur < 0 { p.end } else { s.ts + s.dur };
            let d = end.min(p.end) - s.ts.max(p.start);
            let idle = ctx
                .store
                .threads
                .get(s.utid as usize)
                .is_none_or(|t| t.is_idle || t.tid == 0);
            if d > 0 && s.utid != utid && !idle {
                *by_thread.entry(s.utid).or_default() += d;
            }
        }
    }
    let mut top: Vec<(Utid, i64)> = by_thread.into_iter().collect();
    top.sort_by_key(|&(u, d)| (std::cmp::Reverse(d), u));
    let first_cpu = cpus.first().copied();
    CpuDetail {
        ran_instead: top
            .into_iter()
            .take(RAN_INSTEAD)
            .map(|(u, d)| ThreadMs {
                thread: ctx.thread_ref(u),
                ms: ms(d),
            })
            .collect(),
        cluster: first_cpu.and_then(|c| counters.cluster.get(&c).copied()),
        freq_khz: first_cpu
            .zip(pieces.first())
            .and_then(|(c, p)| counters.freq_at(c, p.start)),
        cpus,
    }
}

/// " on CPU 3 (little, 1.2 GHz), behind kworker/0:1 (kworker) 5.0 ms".
pub fn phrase(c: &CpuDetail) -> String {
    let mut s = String::new();
    if let Some(cpu) = c.cpus.first() {
        let mut what = Vec::new();
        if let Some(cl) = c.cluster {
            what.push(format!("{cl} core"));
        }
        if let Some(f) = c.freq_khz {
            what.push(format!("{:.2} GHz", f / 1e6));
        }
        s.push_str(&format!(" on CPU {cpu}"));
        if !what.is_empty() {
            s.push_str(&format!(" ({})", what.join(", ")));
        }
    }
    if let Some(u) = c.ran_instead.first() {
        s.push_str(&format!(
            ", behind {} ({}) {:.1} ms",
            u.thread.name.as_deref().unwrap_or("?"),
            u.thread.process.as_deref().unwrap_or("?"),
            u.ms
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clusters_by_capacity_as_perfetto_names_them() {
        let cap: BTreeMap<u32, f64> = [(0, 160.0), (1, 160.0), (2, 512.0), (3, 1024.0)].into();
        let c = clusters(&cap);
        assert_eq!(c[&0], "little");
        assert_eq!(c[&2], "medium");
        assert_eq!(c[&3], "big");
        let two: BTreeMap<u32, f64> = [(0, 400.0), (1, 1024.0)].into();
        assert_eq!(clusters(&two)[&0], "little");
        // One capacity level says nothing about clusters.
        let one: BTreeMap<u32, f64> = [(0, 1024.0), (1, 1024.0)].into();
        assert!(clusters(&one).is_empty());
    }
}
