//! Counters from trace packets (sys_stats, process_stats, battery, power_rails,
//! gpu_mem_total_event) on real device traces: counts, sums and first/last timestamps per
//! track name equal trace_processor v58.2's answers to the oracle's `counters` query
//! (`../shared/perfetto-oracle/expected/<trace>/counters.csv`).

mod common;

/// (trace, track name, samples, round(sum, 3), first ts, last ts) from the oracle CSVs.
const EXPECTED: &[(&str, &str, &str, &str, &str, &str)] = &[
    // sys_stats meminfo (kB -> bytes) and battery.
    (
        "androidx_api32_odpm_rails",
        "MemTotal",
        "7",
        "54666006528.0",
        "4727994259916",
        "4733059001984",
    ),
    (
        "androidx_api32_odpm_rails",
        "Active(anon)",
        "7",
        "1463934976.0",
        "4727994259916",
        "4733059001984",
    ),
    (
        "androidx_api32_odpm_rails",
        "batt.charge_uah",
        "21",
        "26922000.0",
        "4727924049263",
        "4732751249095",
    ),
    (
        "androidx_api32_odpm_rails",
        "batt.capacity_pct",
        "21",
        "567.0",
        "4727924049263",
        "4732751249095",
    ),
    // power rails: sample timestamps in ms since boot, not the packet's.
    (
        "androidx_api32_odpm_rails",
        "power.rails.cpu.big",
        "21",
        "5605249226.0",
        "4727932000000",
        "4732755000000",
    ),
    (
        "androidx_api32_odpm_rails",
        "power.rails.aoc.logic",
        "21",
        "900478425.0",
        "4727934000000",
        "4732757000000",
    ),
    (
        "androidx_api32_startup_warm",
        "power.L15M_VDD_SLC_M_uws",
        "8",
        "8738960672.0",
        "157479755000000",
        "157481361000000",
    ),
    (
        "androidx_api32_startup_warm",
        "power.rails.gps",
        "8",
        "1450014886.0",
        "157479756000000",
        "157481363000000",
    ),
    // process_stats: one poll of every process.
    (
        "androidx_api24_commas_in_slice_names",
        "mem.virt",
        "198",
        "2355048890368.0",
        "8563443386877",
        "8563443386877",
    ),
    (
        "androidx_api24_commas_in_slice_names",
        "mem.rss.watermark",
        "198",
        "10541027328.0",
        "8563443386877",
        "8563443386877",
    ),
    (
        "androidx_api24_startup_cold",
        "mem.locked",
        "94",
        "85553152.0",
        "790111946522",
        "790111946522",
    ),
    // gpu_mem_total_event: the global total and six processes, MONOTONIC packet clock.
    (
        "androidx_api35_startup_cold_classinit",
        "GPU Memory",
        "7",
        "589955072.0",
        "351867621677643",
        "351867621837027",
    ),
    (
        "androidx_api35_startup_cold_classinit",
        "batt.current_ua",
        "11",
        "-64200.0",
        "351867782420506",
        "351870175213284",
    ),
];

#[test]
fn packet_counters_match_trace_processor() {
    let Some(dir) = common::shared("traces", "packet_counters_match_trace_processor") else {
        return;
    };
    let mut traces: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    traces.dedup();
    for trace in traces {
        let want: Vec<Vec<String>> = EXPECTED
            .iter()
            .filter(|e| e.0 == trace)
            .map(|e| [e.1, e.2, e.3, e.4, e.5].map(String::from).to_vec())
            .collect();
        let names: Vec<String> = want.iter().map(|w| format!("'{}'", w[0])).collect();
        let sql = format!(
            "select t.name, count(*), round(sum(c.value), 3), min(c.ts), max(c.ts) \
             from counter c join counter_track t on c.track_id = t.id \
             where t.name in ({}) group by t.name",
            names.join(",")
        );
        let rows = common::query_csv(&dir.join(format!("{trace}.perfetto-trace")), &sql);
        for w in &want {
            let got = rows[1..]
                .iter()
                .find(|r| r[0] == w[0])
                .unwrap_or_else(|| panic!("{trace}: no counter track {}", w[0]));
            let sum: f64 = got[2].parse().unwrap();
            let want_sum: f64 = w[2].parse().unwrap();
            assert_eq!(
                (&got[1], &got[3], &got[4]),
                (&w[1], &w[3], &w[4]),
                "{trace}: {} count / first / last",
                w[0]
            );
            assert!(
                (sum - want_sum).abs() < 1e-3,
                "{trace}: {} sum {sum} vs {want_sum}",
                w[0]
            );
        }
    }
}

#[test]
fn packet_counter_tracks_are_typed_like_trace_processor() {
    let Some(dir) = common::shared("traces", "packet_counter_tracks_are_typed") else {
        return;
    };
    let rows = common::query_csv(
        &dir.join("androidx_api35_startup_cold_classinit.perfetto-trace"),
        "select t.type, coalesce(t.unit, ''), count(*) from counter_track t \
         where t.type in ('meminfo', 'battery_counter', 'gpu_memory', 'process_gpu_memory') \
         or t.name in ('mem.virt', 'mem.locked', 'mem.rss.watermark') group by 1, 2 order by 1",
    );
    let got: Vec<String> = rows[1..].iter().map(|r| r.join(" ")).collect();
    // The oracle has 20 meminfo names, 3 battery counters, "GPU Memory" from the global
    // total and 6 pids (MANIFEST: gpu_mem_total_event), and 120 processes with mem.virt,
    // mem.locked and mem.rss.watermark (polled only). Units are trace_processor's blueprints'.
    assert_eq!(
        got,
        [
            "battery_counter  3",
            "gpu_memory bytes 1",
            "meminfo bytes 20",
            "process_gpu_memory bytes 6",
            "process_memory  360",
        ]
    );
}
