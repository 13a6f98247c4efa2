//! FtraceStats (TracePacket field 34): the kernel ring buffer's per-CPU counters at the start
//! and end of the trace, as trace_processor's `ftrace_cpu_*_{begin,end,delta}` stats, and the
//! setup errors (events or atrace categories that failed to enable), which trace_processor
//! keeps in its import logs and frameprobe in [`crate::store::trace_info::TraceInfo`].

use crate::store::{Severity, Store};
use crate::trace::wire::{repeated, slots, Value};

use Severity::{Error, Info};

const START_OF_TRACE: u64 = 1;
const END_OF_TRACE: u64 = 2;

/// FtraceCpuStats counters: (field, begin, end, delta name, delta severity).
const COUNTERS: [(usize, &str, &str, &str, Severity); 6] = [
    (
        2,
        "ftrace_cpu_entries_begin",
        "ftrace_cpu_entries_end",
        "ftrace_cpu_entries_delta",
        Info,
    ),
    (
        3,
        "ftrace_cpu_overrun_begin",
        "ftrace_cpu_overrun_end",
        "ftrace_cpu_overrun_delta",
        Info,
    ),
    (
        4,
        "ftrace_cpu_commit_overrun_begin",
        "ftrace_cpu_commit_overrun_end",
        "ftrace_cpu_commit_overrun_delta",
        Error,
    ),
    (
        5,
        "ftrace_cpu_bytes_begin",
        "ftrace_cpu_bytes_end",
        "ftrace_cpu_bytes_delta",
        Info,
    ),
    (
        8,
        "ftrace_cpu_dropped_events_begin",
        "ftrace_cpu_dropped_events_end",
        "ftrace_cpu_dropped_events_delta",
        Error,
    ),
    (
        9,
        "ftrace_cpu_read_events_begin",
        "ftrace_cpu_read_events_end",
        "ftrace_cpu_read_events_delta",
        Info,
    ),
];

/// Stats whose non-zero value means the kernel dropped ftrace events during the trace.
pub const LOSS_STATS: [&str; 3] = [
    "ftrace_cpu_overrun_delta",
    "ftrace_cpu_dropped_events_delta",
    "ftrace_cpu_commit_overrun_delta",
];

/// Seconds as a double -> ns, saturating as trace_processor does for huge values.
fn seconds_to_ns(v: Option<Value<'_>>) -> i64 {
    let s = v.map_or(0.0, |v| f64::from_bits(v.as_u64()));
    let ns = s * 1e9;
    if ns >= i64::MAX as f64 {
        i64::MAX
    } else {
        ns as i64
    }
}

pub fn ftrace_stats(store: &mut Store, data: &[u8]) {
    let top = slots::<14>(data);
    let phase = top[1].map_or(0, |v| v.as_u64());
    let end = match phase {
        START_OF_TRACE => false,
        END_OF_TRACE => true,
        _ => return,
    };
    for cpu_stats in repeated(data, 2) {
        let c = slots::<10>(cpu_stats.as_bytes());
        let cpu = c[1].map_or(0, |v| v.as_i64());
        for (field, begin_name, end_name, delta_name, delta_sev) in COUNTERS {
            let v = c[field].map_or(0, |v| v.as_i64());
            if end {
                store.stat_set(end_name, cpu, Info, "", v);
                if let Some(b) = store.stats.get(&(begin_name, cpu)).map(|e| e.value) {
                    store.stat_set(delta_name, cpu, delta_sev, "", v - b);
                }
            } else {
                store.stat_set(begin_name, cpu, Info, "", v);
            }
        }
        let (now, oldest) = if end {
            ("ftrace_cpu_now_ts_end", "ftrace_cpu_oldest_event_ts_end")
        } else {
            (
                "ftrace_cpu_now_ts_begin",
                "ftrace_cpu_oldest_event_ts_begin",
            )
        };
        store.stat_set(now, cpu, Info, "", seconds_to_ns(c[7]));
        store.stat_set(oldest, cpu, Info, "", seconds_to_ns(c[6]));
    }
    if !end {
        let errors = &mut store.trace_info.ftrace_setup_errors;
        for e in repeated(data, 7) {
            errors.push(format!("Ftrace event failed: {}", e.as_string_lossy()));
        }
        for e in repeated(data, 6) {
            errors.push(format!("Ftrace event unknown: {}", e.as_string_lossy()));
        }
        if let Some(a) = top[5].filter(|a| !a.as_bytes().is_empty()) {
            errors.push(format!("Atrace failures: {}", a.as_string_lossy()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::wire::Msg;

    fn cpu(cpu: i64, overrun: i64, entries: i64) -> Msg {
        Msg::default().int(1, cpu).int(2, entries).int(3, overrun)
    }

    #[test]
    fn deltas_are_end_minus_begin_per_cpu() {
        let mut s = Store::default();
        let start = Msg::default()
            .int(1, 1)
            .msg(2, cpu(0, 2, 10))
            .msg(2, cpu(1, 0, 5))
            .str(7, "sched/sched_blah")
            .str(5, "gfx");
        ftrace_stats(&mut s, &start.0);
        let end = Msg::default()
            .int(1, 2)
            .msg(2, cpu(0, 9, 4))
            .msg(2, cpu(1, 0, 8));
        ftrace_stats(&mut s, &end.0);
        let v = |n: &str, i: i64| s.stats.get(&(n, i)).map(|e| e.value);
        assert_eq!(v("ftrace_cpu_overrun_begin", 0), Some(2));
        assert_eq!(v("ftrace_cpu_overrun_end", 0), Some(9));
        assert_eq!(v("ftrace_cpu_overrun_delta", 0), Some(7));
        assert_eq!(v("ftrace_cpu_overrun_delta", 1), Some(0));
        assert_eq!(v("ftrace_cpu_entries_delta", 0), Some(-6));
        assert_eq!(
            s.trace_info.ftrace_setup_errors,
            vec![
                "Ftrace event failed: sched/sched_blah".to_string(),
                "Atrace failures: gfx".to_string()
            ]
        );
    }

    #[test]
    fn unknown_phase_is_ignored_and_end_without_begin_has_no_delta() {
        let mut s = Store::default();
        ftrace_stats(&mut s, &Msg::default().int(1, 0).msg(2, cpu(0, 3, 1)).0);
        assert!(s.stats.is_empty());
        ftrace_stats(&mut s, &Msg::default().int(1, 2).msg(2, cpu(0, 3, 1)).0);
        assert_eq!(s.stat_value("ftrace_cpu_overrun_end"), 3);
        assert!(!s.stats.contains_key(&("ftrace_cpu_overrun_delta", 0)));
    }
}
