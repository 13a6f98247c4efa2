//! Kernel ftrace events on real device traces (../shared/traces): the slices and counters
//! trace_processor v58.2 builds from them, as its answers in
//! ../shared/perfetto-oracle/expected/<trace>/{slice_names,counters}.csv give them.
//!
//! Covers the Pixel `zero` atrace event (DM_CALL, exynos_cpufreq_target, dm_mif), DMA
//! fences, SCM calls, clock_set_rate / clock_enable, rss_stat + oom_score_adj_update (with
//! process_stats on the same tracks), mm_event_record and ION heap events. Skips (with a
//! message) when the traces folder is not there.

mod common;

/// (name, count, sum of dur or values, max depth for slices).
type Row = (&'static str, i64, f64, Option<i64>);

struct Expect {
    trace: &'static str,
    slices: &'static [Row],
    counters: &'static [Row],
}

const EXPECT: &[Expect] = &[
    Expect {
        trace: "androidx_api32_odpm_rails",
        slices: &[
            ("DM_CALL", 843, 60_566_698.0, Some(7)),
            ("acpm_ipc_send_data", 570, 62_610_041.0, Some(1)),
            ("exynos_cpufreq_target", 688, 58_521_056.0, Some(0)),
        ],
        counters: &[
            ("dm_mif", 149, 132_621_000.0, None),
            ("UCLAMP_MIN", 4, 0.0, None),
            ("17000010.devfreq_mif Frequency", 87, 84_215_000.0, None),
            ("gpu0 Frequency", 10, 2_170_000.0, None),
            ("mem.rss.anon", 446, 12_621_533_184.0, None),
            ("oom_score_adj", 400, -184_379.0, None),
        ],
    },
    Expect {
        trace: "androidx_api32_startup_warm",
        slices: &[
            ("dma_fence_wait", 54, 68_239.0, Some(1)),
            ("fence", 17, 110_620_116.0, Some(0)),
            ("DM_CALL", 569, 21_103_512.0, Some(3)),
        ],
        counters: &[],
    },
    Expect {
        trace: "androidx_api24_commas_in_slice_names",
        slices: &[
            ("scm id=0x42000d0a", 3, 388_177.0, Some(0)),
            ("__scm_call_armv8_64", 4, 504_479.0, Some(1)),
        ],
        counters: &[
            ("mem.ion.system", 46, 8_840_617_984.0, None),
            ("mem.ion_change.system", 46, -70_447_104.0, None),
            ("mem.mm.min_flt.count", 151, 4589.0, None),
            ("mem.rss.anon", 273, 5_675_610_112.0, None),
            ("oom_score_adj", 228, -116_695.0, None),
        ],
    },
    Expect {
        trace: "androidx_api24_startup_cold",
        slices: &[],
        counters: &[
            ("a53_clk Frequency", 24, 22_608_000_000.0, None),
            ("gfx3d_clk_src State", 76, 38.0, None),
            ("oom_score_adj", 122, -36_758.0, None),
        ],
    },
];

const SLICES: &str = "select name, count(*), sum(dur), max(depth) from slice group by name";
const COUNTERS: &str = "select t.name, count(*), sum(c.value), null from counter c \
     join counter_track t on c.track_id = t.id group by t.name";

fn check(trace: &std::path::Path, sql: &str, want: &[Row]) {
    if want.is_empty() {
        return;
    }
    let rows = common::query_csv(trace, sql);
    for &(name, n, total, depth) in want {
        let row = rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("{}: no {name:?}", trace.display()));
        let got_n: i64 = row[1].parse().unwrap();
        let got_total: f64 = row[2].parse().unwrap();
        assert_eq!(got_n, n, "{}: count of {name:?}", trace.display());
        assert!(
            (got_total - total).abs() <= 1e-6 * total.abs().max(1.0),
            "{}: total of {name:?}: {got_total} != {total}",
            trace.display()
        );
        if let Some(d) = depth {
            assert_eq!(
                row[3],
                d.to_string(),
                "{}: max depth of {name:?}",
                trace.display()
            );
        }
    }
}

#[test]
fn kernel_slices_and_counters_match_trace_processor() {
    let Some(dir) = common::shared("traces", "kernel_slices_and_counters_match_trace_processor")
    else {
        return;
    };
    for e in EXPECT {
        let trace = dir.join(format!("{}.perfetto-trace", e.trace));
        check(&trace, SLICES, e.slices);
        check(&trace, COUNTERS, e.counters);
    }
}
