//! Real device traces (../shared/traces, see its MANIFEST.md): every atrace begin of a
//! `Choreographer#doFrame…` or `DrawFrame…` section must come out of `frameprobe query` as
//! exactly one slice, attributed to the process (atrace tgid) and thread that wrote it.
//!
//! Two references: the counts MANIFEST.md lists, and a raw scan of the trace's `print`
//! events counting `B|<tgid>|<name>` records per tgid. Skips (with a message) when the
//! traces folder is not there.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use frameprobe::trace::wire::Fields;

/// Per-process (or per-thread) counts: (id or name, doFrame, DrawFrame); `None` where the
/// manifest does not say.
type Counts<'a, K> = &'a [(K, Option<u64>, Option<u64>)];

struct Expect {
    file: &'static str,
    do_frame: u64,
    draw_frame: u64,
    by_pid: Counts<'static, i64>,
    by_tid: Counts<'static, i64>,
    /// Checked only when process names are known (they come from the process tree).
    by_name: Counts<'static, &'static str>,
}

const EXPECT: &[Expect] = &[
    Expect {
        file: "androidx_api35_startup_cold_classinit.perfetto-trace",
        do_frame: 158,
        draw_frame: 54,
        by_pid: &[(27246, Some(41), Some(1)), (3067, None, Some(46))],
        by_tid: &[
            (27246, Some(41), None),
            (3143, Some(29), None),
            (3067, Some(24), None),
            (3127, Some(17), None),
            (3180, None, Some(46)),
            (27264, None, Some(1)),
        ],
        by_name: &[
            ("system_server", Some(35), None),
            ("com.android.launcher3", Some(11), Some(7)),
        ],
    },
    Expect {
        file: "androidx_api32_startup_warm.perfetto-trace",
        do_frame: 30,
        draw_frame: 7,
        by_pid: &[(7663, Some(3), Some(3))],
        by_tid: &[(7663, Some(3), None), (7684, None, Some(3))],
        by_name: &[
            ("system_server", Some(18), None),
            ("com.google.android.apps.nexuslauncher", Some(4), Some(2)),
            ("com.android.systemui", Some(4), Some(2)),
        ],
    },
    Expect {
        file: "androidx_api24_startup_cold.perfetto-trace",
        do_frame: 93,
        draw_frame: 66,
        by_pid: &[(5873, Some(76), Some(60)), (7694, Some(3), Some(2))],
        by_tid: &[(5931, None, Some(60))],
        by_name: &[
            ("system_server", Some(10), None),
            ("com.android.systemui", Some(4), Some(4)),
        ],
    },
    Expect {
        file: "androidx_api24_startup_sameproc_immediatefullydrawn.perfetto-trace",
        do_frame: 95,
        draw_frame: 55,
        by_pid: &[(9393, Some(2), Some(1))],
        by_tid: &[],
        by_name: &[("system_server", Some(28), None)],
    },
    Expect {
        file: "androidx_api24_commas_in_slice_names.perfetto-trace",
        do_frame: 70,
        draw_frame: 5,
        by_pid: &[(29495, Some(2), None)],
        by_tid: &[],
        by_name: &[
            ("system_server", Some(37), None),
            ("com.android.systemui", Some(3), None),
        ],
    },
    Expect {
        file: "androidx_api32_odpm_rails.perfetto-trace",
        do_frame: 3,
        draw_frame: 0,
        by_pid: &[],
        by_tid: &[],
        by_name: &[],
    },
    Expect {
        file: "nowinandroid_demo_pixel7pro_api33.perfetto-trace",
        do_frame: 0,
        draw_frame: 0,
        by_pid: &[],
        by_tid: &[],
        by_name: &[],
    },
];

const DO_FRAME: &str = "Choreographer#doFrame";
const DRAW_FRAME: &str = "DrawFrame";

/// One row per (process, thread) holding frame slices.
#[derive(Debug)]
struct Row {
    pid: Option<i64>,
    tid: i64,
    do_frame: u64,
    draw_frame: u64,
    process_name: Option<String>,
}

const QUERY: &str = "
SELECT p.pid, t.tid,
       SUM(s.name GLOB 'Choreographer#doFrame*') AS do_frame,
       SUM(s.name GLOB 'DrawFrame*') AS draw_frame,
       p.name AS process_name
FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
LEFT JOIN process p USING (upid)
WHERE s.name GLOB 'Choreographer#doFrame*' OR s.name GLOB 'DrawFrame*'
GROUP BY t.utid
ORDER BY p.pid, t.tid;
";

fn query(trace: &Path) -> Vec<Row> {
    let rows = common::query_csv(trace, QUERY);
    assert_eq!(
        rows.first().map(|h| h.join(",")).as_deref(),
        Some("pid,tid,do_frame,draw_frame,process_name")
    );
    let int = |c: &String| c.trim().parse::<i64>().ok();
    rows[1..]
        .iter()
        .filter(|r| r.len() == 5)
        .map(|r| Row {
            pid: int(&r[0]),
            tid: int(&r[1]).expect("tid"),
            do_frame: int(&r[2]).unwrap_or(0) as u64,
            draw_frame: int(&r[3]).unwrap_or(0) as u64,
            process_name: Some(r[4].clone()).filter(|n| !n.is_empty()),
        })
        .collect()
}

/// The length-delimited fields numbered `want` of one message.
fn sub(buf: &[u8], want: u32) -> Vec<&[u8]> {
    Fields::new(buf)
        .map_while(Result::ok)
        .filter(|(id, _)| *id == want)
        .map(|(_, v)| v.as_bytes())
        .collect()
}

/// Counts `B|tgid|Choreographer#doFrame…` and `B|tgid|DrawFrame…` print records per tgid,
/// straight from the protobuf (Trace.packet -> ftrace_events -> event -> print.buf).
fn raw_begin_counts(trace: &Path) -> BTreeMap<i64, (u64, u64)> {
    let bytes = std::fs::read(trace).expect("read trace");
    let mut counts = BTreeMap::new();
    for packet in sub(&bytes, 1) {
        for bundle in sub(packet, 1) {
            for event in sub(bundle, 2) {
                for print in sub(event, 3) {
                    for buf in sub(print, 2) {
                        let text = String::from_utf8_lossy(buf);
                        let mut parts = text.splitn(3, '|');
                        if parts.next() != Some("B") {
                            continue;
                        }
                        let Some(Ok(tgid)) = parts.next().map(str::parse::<i64>) else {
                            continue;
                        };
                        let name = parts.next().unwrap_or("");
                        let e = counts.entry(tgid).or_insert((0, 0));
                        e.0 += name.starts_with(DO_FRAME) as u64;
                        e.1 += name.starts_with(DRAW_FRAME) as u64;
                    }
                }
            }
        }
    }
    counts.retain(|_, c| *c != (0, 0));
    counts
}

fn check_counts<K: std::fmt::Debug + PartialEq>(
    what: &str,
    file: &str,
    expected: Counts<'_, K>,
    actual: &[(K, u64, u64)],
) {
    for (key, d, r) in expected {
        let (got_d, got_r) = actual
            .iter()
            .filter(|(k, _, _)| k == key)
            .fold((0, 0), |acc, (_, d, r)| (acc.0 + d, acc.1 + r));
        if let Some(d) = d {
            assert_eq!(got_d, *d, "{file}: doFrame slices of {what} {key:?}");
        }
        if let Some(r) = r {
            assert_eq!(got_r, *r, "{file}: DrawFrame slices of {what} {key:?}");
        }
    }
}

#[test]
fn frame_slices_match_atrace_begins() {
    let Some(dir) = common::shared("traces", "frame_slices_match_atrace_begins") else {
        return;
    };
    let mut names_checked = false;
    for e in EXPECT {
        let path = dir.join(e.file);
        if !path.exists() {
            common::missing(e.file, &path);
            continue;
        }
        let rows = query(&path);
        let total_d: u64 = rows.iter().map(|r| r.do_frame).sum();
        let total_r: u64 = rows.iter().map(|r| r.draw_frame).sum();
        assert_eq!(total_d, e.do_frame, "{}: doFrame slices", e.file);
        assert_eq!(total_r, e.draw_frame, "{}: DrawFrame slices", e.file);

        // Every slice belongs to the process named by its record's tgid.
        let mut by_pid: BTreeMap<i64, (u64, u64)> = BTreeMap::new();
        for r in &rows {
            let pid = r.pid.unwrap_or_else(|| {
                panic!(
                    "{}: thread {} has frame slices but no process",
                    e.file, r.tid
                )
            });
            let c = by_pid.entry(pid).or_insert((0, 0));
            c.0 += r.do_frame;
            c.1 += r.draw_frame;
        }
        assert_eq!(
            by_pid,
            raw_begin_counts(&path),
            "{}: per-tgid counts",
            e.file
        );

        let pids: Vec<_> = by_pid.iter().map(|(p, c)| (*p, c.0, c.1)).collect();
        check_counts("pid", e.file, e.by_pid, &pids);
        let tids: Vec<_> = rows
            .iter()
            .map(|r| (r.tid, r.do_frame, r.draw_frame))
            .collect();
        check_counts("tid", e.file, e.by_tid, &tids);
        if rows.iter().any(|r| r.process_name.is_some()) {
            let names: Vec<_> = rows
                .iter()
                .filter_map(|r| Some((r.process_name.as_deref()?, r.do_frame, r.draw_frame)))
                .collect();
            check_counts("process", e.file, e.by_name, &names);
            names_checked = true;
        }
    }
    if !names_checked {
        common::skip(
            "per-process-name checks",
            "no process names in the tables (process tree not imported)",
        );
    }
}
