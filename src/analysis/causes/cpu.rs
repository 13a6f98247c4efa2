//! CPU contention: for the time a thread was Runnable, the CPU it waited for (the one it
//! ran on next), who ran there meanwhile (top 3 by time, with their process), the CPU's
//! cluster when the trace gives CPU capacities, and its frequency when cpufreq is traced.
//!
//! Clusters follow Perfetto's `android.cpu.cluster_type` over trace_processor's `cpu.cluster_id`:
//! the CpuInfo packet's CPUs grouped by sysfs capacity when every CPU has one, else by highest
//! available frequency, numbered from the lowest; 2 groups are `little`/`big`, 3
//! `little`/`medium`/`big`, 4 `little`/`medium`/`medium`/`big`; any other count (or no CpuInfo)
//! names no cluster.

use rustc_hash::FxHashMap;

use super::context::Ctx;
use super::model::{CpuDetail, ThreadMs};
use super::timeline::Piece;
use crate::analysis::thread_state::Kind as State;
use crate::analysis::units::ms;
use crate::store::trace_info::CpuDescription;
use crate::store::{Store, TrackRow, TrackScope, Utid};

/// How many threads that ran instead are listed.
const RAN_INSTEAD: usize = 3;

/// Per-CPU frequency series and cluster names.
#[derive(Default)]
pub struct CpuCounters {
    freq: FxHashMap<u32, Vec<(i64, f64)>>,
    cluster: Vec<Option<&'static str>>,
}

/// The CPU a `cpu_frequency` counter track belongs to; `None` for any other track.
pub(crate) fn frequency_track_cpu(store: &Store, track: &TrackRow) -> Option<u32> {
    match track.scope {
        TrackScope::Cpu(cpu) if store.str(track.kind) == "cpu_frequency" => Some(cpu),
        _ => None,
    }
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
        let cpu_of: FxHashMap<u32, u32> = store
            .tracks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((i as u32, frequency_track_cpu(store, t)?)))
            .collect();
        let mut out = CpuCounters::default();
        for c in &store.counters {
            if let Some(&cpu) = cpu_of.get(&c.track_id) {
                out.freq.entry(cpu).or_default().push((c.ts, c.value));
            }
        }
        for v in out.freq.values_mut() {
            v.sort_by_key(|p| p.0);
        }
        out.cluster = clusters(&store.trace_info.cpus);
        out
    }

    pub fn cluster_of(&self, cpu: u32) -> Option<&'static str> {
        self.cluster.get(cpu as usize).copied().flatten()
    }

    pub fn freq_at(&self, cpu: u32, ts: i64) -> Option<f64> {
        let v = self.freq.get(&cpu)?;
        let k = v.partition_point(|p| p.0 <= ts);
        (k > 0).then(|| v[k - 1].1)
    }
}

/// trace_processor's `cpu.cluster_id` per CPU (`SystemProbesParser::ParseCpuInfo`): CPUs
/// ranked by capacity when all have one, else by highest frequency when all have some;
/// equal values share an id, ids count up from 0. Without either, every CPU is cluster 0.
pub fn cluster_ids(cpus: &[CpuDescription]) -> Vec<u32> {
    let key: Option<Vec<u32>> = cpus
        .iter()
        .map(|c| c.capacity)
        .collect::<Option<Vec<u32>>>()
        .or_else(|| cpus.iter().map(|c| c.max_freq_khz).collect());
    let Some(key) = key else {
        return vec![0; cpus.len()];
    };
    let mut levels = key.clone();
    levels.sort_unstable();
    levels.dedup();
    key.iter()
        .map(|k| levels.partition_point(|l| l < k) as u32)
        .collect()
}

/// CPU -> cluster name (`android_cpu_cluster_mapping.cluster_type`).
fn clusters(cpus: &[CpuDescription]) -> Vec<Option<&'static str>> {
    let ids = cluster_ids(cpus);
    let mut distinct = ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let names = cluster_names(distinct.len());
    ids.iter()
        .map(|&i| names.and_then(|n| n.get(i as usize).copied()))
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
        .and_then(|r| ctx.store.thread_states.row(r as usize).cpu())
        .map(u32::from)
}

pub fn detail(ctx: &Ctx<'_>, utid: Utid, pieces: &[&Piece]) -> CpuDetail {
    let counters = ctx
        .cpu_counters
        .get_or_init(|| CpuCounters::build(ctx.store));
    let running = &ctx.store.thread_states;
    let mut cpus: Vec<u32> = Vec::new();
    let mut by_thread: FxHashMap<Utid, i64> = FxHashMap::default();
    for p in pieces {
        let Some(cpu) = cpu_waited_for(ctx, utid, p) else {
            continue;
        };
        if !cpus.contains(&cpu) {
            cpus.push(cpu);
        }
        let rows = ctx.running_on_cpu(cpu);
        let first = rows
            .partition_point(|r| running.ts(r as usize) <= p.start)
            .saturating_sub(1);
        for r in rows.iter_from(first) {
            let s = running.row(r as usize);
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
        cluster: first_cpu.and_then(|c| counters.cluster_of(c)),
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

    fn cpus(caps: &[Option<u32>], freqs: &[Option<u32>]) -> Vec<CpuDescription> {
        caps.iter()
            .zip(freqs)
            .map(|(&capacity, &max_freq_khz)| CpuDescription {
                capacity,
                max_freq_khz,
            })
            .collect()
    }

    #[test]
    fn clusters_by_capacity_as_perfetto_names_them() {
        // Capacities 160, 160, 512, 1024: three clusters, lowest first.
        let c = cpus(
            &[Some(160), Some(160), Some(512), Some(1024)],
            &[None, None, None, None],
        );
        assert_eq!(cluster_ids(&c), [0, 0, 1, 2]);
        assert_eq!(
            clusters(&c),
            [Some("little"), Some("little"), Some("medium"), Some("big")]
        );
        // Four clusters: the middle two are both "medium".
        let c = cpus(
            &[Some(1), Some(2), Some(3), Some(4)],
            &[None, None, None, None],
        );
        assert_eq!(
            clusters(&c),
            [Some("little"), Some("medium"), Some("medium"), Some("big")]
        );
        // CPU order is not capacity order.
        let c = cpus(&[Some(1024), Some(400)], &[None, None]);
        assert_eq!(clusters(&c), [Some("big"), Some("little")]);
    }

    #[test]
    fn frequency_when_a_capacity_is_missing_and_none_without_either() {
        // One CPU without a capacity: the highest available frequency decides.
        let c = cpus(
            &[Some(1024), None, Some(100)],
            &[Some(1_800_000), Some(2_400_000), Some(1_800_000)],
        );
        assert_eq!(cluster_ids(&c), [0, 1, 0]);
        assert_eq!(clusters(&c), [Some("little"), Some("big"), Some("little")]);
        // Neither: every CPU is cluster 0, one cluster names nothing.
        let c = cpus(&[Some(1), None], &[None, Some(1)]);
        assert_eq!(cluster_ids(&c), [0, 0]);
        assert_eq!(clusters(&c), [None, None]);
        // One level, five levels: no names.
        let c = cpus(&[Some(5), Some(5)], &[None, None]);
        assert_eq!(clusters(&c), [None, None]);
        let c = cpus(&[Some(1), Some(2), Some(3), Some(4), Some(5)], &[None; 5]);
        assert!(clusters(&c).iter().all(Option::is_none));
        assert!(clusters(&[]).is_empty());
    }
}
