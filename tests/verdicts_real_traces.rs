//! Verdicts on the real traces: the api35 SystemUI reconciliation adds up (every frame of
//! every definition accounted for, a reason for every disagreeing frame), the api24 JSON has
//! null FrameTimeline fields (never zeros), nowinandroid counts its frames per refresh rate,
//! the worst frames rank janky frames by whole vsyncs missed, and filters that match nothing
//! or empty files exit 2.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use frameprobe::trace::frame_timeline_vocab::{surface_frame_jank_tag, TAG_OTHER, TAG_SELF};
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn trace(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.perfetto-trace"))
}

/// The MANIFEST's FrameTimeline jank_type histogram of a process: "name[pid]: n {mask:count, ...}".
fn manifest_histogram(manifest: &str, process: &str) -> BTreeMap<i32, u64> {
    let line = manifest
        .lines()
        .find(|l| l.contains(&format!("{process}[")) && l.contains('{'))
        .expect("histogram line");
    let body = &line[line.find('{').unwrap() + 1..line.find('}').unwrap()];
    body.split(',')
        .map(|kv| {
            let (k, v) = kv.trim().split_once(':').unwrap();
            (k.trim().parse().unwrap(), v.trim().parse().unwrap())
        })
        .collect()
}

fn csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let rows = common::parse_csv(&std::fs::read_to_string(path).unwrap());
    let head = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| head.iter().cloned().zip(r.iter().cloned()).collect())
        .collect()
}

fn row<'a>(table: &'a Value, def: &str) -> &'a Value {
    table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["definition"] == def)
        .unwrap()
}

#[test]
fn api35_systemui_reconciliation_adds_up() {
    let Some(dir) = common::shared("traces", "api35_systemui_reconciliation_adds_up") else {
        return;
    };
    let t = trace(&dir, "androidx_api35_startup_cold_classinit");
    let r = json(&[
        "analyze",
        t.to_str().unwrap(),
        "-p",
        "com.android.systemui",
        "--format",
        "json",
    ]);
    assert_eq!(r["metric_version"], 1);
    let p = &r["processes"][0];
    let tables = p["reconciliation"].as_array().unwrap();
    assert_eq!(tables[0]["scope"], "process");
    assert_eq!(tables.len(), 4, "the process, then its three layers");
    // Every frame of every definition is accounted for, in every table.
    for tb in tables {
        let frames = tb["frames"].as_u64().unwrap();
        for rw in tb["rows"].as_array().unwrap() {
            let not: u64 = rw["frames_not_considered"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n["frames"].as_u64().unwrap())
                .sum();
            assert_eq!(
                rw["frames_considered"].as_u64().unwrap() + not,
                frames,
                "{rw}"
            );
            assert!(rw["frames_flagged"].as_u64() <= rw["frames_considered"].as_u64());
            if let Some(c) = rw["count"].as_u64() {
                assert!(c <= rw["of"].as_u64().unwrap(), "{rw}");
            }
            assert!(rw["units_without_frame"].as_u64() <= rw["of"].as_u64());
        }
        let kinds: u64 = tb["disagreement_kinds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["frames"].as_u64().unwrap())
            .sum();
        assert_eq!(kinds, tb["disagreeing_frames"].as_u64().unwrap());
        assert_eq!(
            tb["disagreements"].as_array().unwrap().len() as u64,
            tb["disagreeing_frames"].as_u64().unwrap()
        );
    }
    let layer_frames: u64 = tables[1..]
        .iter()
        .map(|t| t["frames"].as_u64().unwrap())
        .sum();
    assert_eq!(layer_frames, 44);
    let process = &tables[0];

    // FrameTimeline: the MANIFEST's jank_type histogram of systemui, tagged by the
    // surface-frame rules (none of its frames is a dropped present).
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.md")).unwrap();
    let hist = manifest_histogram(&manifest, "com.android.systemui");
    let total: u64 = hist.values().sum();
    let janky: u64 = hist
        .iter()
        .filter(|(m, _)| {
            let tag = surface_frame_jank_tag(**m, Some(1));
            tag == TAG_SELF || tag == TAG_OTHER
        })
        .map(|(_, n)| n)
        .sum();
    let ft = row(process, "frame_timeline");
    assert_eq!(
        (ft["count"].as_u64(), ft["of"].as_u64()),
        (Some(janky), Some(total))
    );
    assert_eq!((janky, total), (12, 44));
    let ft_layers: u64 = tables[1..]
        .iter()
        .map(|t| row(t, "frame_timeline")["count"].as_u64().unwrap())
        .sum();
    assert_eq!(ft_layers, 12, "layer counts add up to the process count");

    // Perfetto stdlib: trace_processor's android_frames rows of systemui that have an
    // android_frame_stats row (40 frame ids, 2 of them without), and their verdicts (the
    // oracle CSVs).
    let Some(oracle) = common::shared(
        "perfetto-oracle/expected/androidx_api35_startup_cold_classinit",
        "stdlib part",
    ) else {
        return;
    };
    let ids: BTreeSet<String> = csv(&oracle.join("stdlib_android_frames.csv"))
        .into_iter()
        .filter(|r| r["process_name"] == "com.android.systemui")
        .map(|r| r["frame_id"].clone())
        .collect();
    assert_eq!(ids.len(), 40);
    let stats = csv(&oracle.join("frame_stats.csv"));
    let ids: BTreeSet<String> = stats
        .iter()
        .filter(|r| ids.contains(&r["frame_id"]))
        .map(|r| r["frame_id"].clone())
        .collect();
    let jank_ids: BTreeSet<String> = stats
        .iter()
        .filter(|r| ids.contains(&r["frame_id"]) && r["was_jank"] == "1")
        .map(|r| r["frame_id"].clone())
        .collect();
    let s = row(process, "perfetto_stdlib");
    assert_eq!(s["of"].as_u64(), Some(ids.len() as u64));
    assert_eq!(s["count"].as_u64(), Some(jank_ids.len() as u64));
    assert_eq!((ids.len(), jank_ids.len()), (38, 28));
    assert_eq!(p["perfetto_frame_stats"]["frames"], 38);

    // HWUI: the JankTracker counters of the process block.
    let h = row(process, "hwui");
    assert_eq!(h["of"], p["hwui"]["total_frames"]);
    assert_eq!(h["count"], p["hwui"]["janky_frames"]);
    // Macrobenchmark: "FrameTimingQuery.getFrameData(captureApiLevel=35,
    // packageName="com.android.systemui") returns 22 frames" (MANIFEST).
    let mb = row(process, "macrobenchmark");
    assert_eq!(mb["of"], 22);
    assert_eq!(p["macrobenchmark"]["frameCount"], 22);
    assert_eq!(mb["units_without_frame"], 0);

    // Every disagreeing frame has its reason, and only those.
    let f = json(&[
        "frames",
        t.to_str().unwrap(),
        "-p",
        "com.android.systemui",
        "--format",
        "json",
    ]);
    let frames = f["processes"][0]["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 44);
    let mut disagreeing = 0;
    for fr in frames {
        let d = &fr["definitions"];
        let votes: BTreeSet<bool> = [
            "frame_timeline",
            "perfetto_stdlib",
            "hwui",
            "vitals",
            "missed_vsyncs",
        ]
        .iter()
        .filter_map(|k| d[*k]["flagged"].as_bool())
        .collect();
        let reason = d["disagreement"]["reason"].as_str();
        if votes.len() > 1 {
            disagreeing += 1;
            let reason = reason.unwrap_or_else(|| panic!("no reason: {fr}"));
            for k in ["FrameTimeline", "Perfetto stdlib"] {
                assert!(reason.contains(k), "{reason}");
            }
        } else {
            assert!(d["disagreement"].is_null(), "{fr}");
        }
        for k in [
            "frame_timeline",
            "perfetto_stdlib",
            "hwui",
            "macrobenchmark",
            "vitals",
            "missed_vsyncs",
        ] {
            assert!(!d[k]["rules"].as_array().unwrap().is_empty(), "{k}: {fr}");
            if d[k]["considered"] == false {
                assert!(d[k]["flagged"].is_null() && !d[k]["why"].as_str().unwrap().is_empty());
            }
        }
    }
    assert_eq!(disagreeing, process["disagreeing_frames"].as_u64().unwrap());
    // The example: buffer-stuffed frames Perfetto counts as jank.
    assert!(process["disagreement_kinds"][0]["kind"]
        .as_str()
        .unwrap()
        .contains("Buffer Stuffing"));
    // Every frame has its own budget: its expected surface frame in trace_processor's
    // expected_frame_timeline_slice (the oracle; one per token, 20 ms on this device), at
    // 60 Hz (its VSP-setPeriod counter: 16666667 ns).
    let expected: BTreeMap<String, f64> = csv(&oracle.join("expected_frames.csv"))
        .into_iter()
        .filter(|r| r["pid"] == "3067")
        .map(|r| {
            let ms = r["dur"].parse::<f64>().unwrap() / 1e6;
            (r["surface_frame_token"].clone(), ms)
        })
        .collect();
    for fr in frames {
        assert_eq!(
            fr["budget_source"],
            "its expected surface frame (FrameTimeline)"
        );
        let key = fr["frame_id"].to_string();
        let want =
            (expected.get(&key).unwrap_or_else(|| panic!("{key:?}")) * 100.0).round() / 100.0;
        assert_eq!(fr["budget_ms"].as_f64(), Some(want), "{key:?}");
        assert_eq!(fr["refresh_hz"], 60.0);
        assert_eq!(fr["vsync_period_ms"], 16.67);
    }
}

#[test]
fn worst_frames_rank_janky_frames_by_whole_vsyncs_missed() {
    let Some(dir) = common::shared("traces", "worst_frames_rank_janky_frames") else {
        return;
    };
    for name in [
        "androidx_api35_startup_cold_classinit",
        "nowinandroid_demo_pixel7pro_api33",
    ] {
        let t = trace(&dir, name);
        let r = json(&[
            "analyze",
            t.to_str().unwrap(),
            "--format",
            "json",
            "--top",
            "15",
        ]);
        for p in r["processes"].as_array().unwrap() {
            let worst = p["worst_frames"].as_array().unwrap();
            let key = |f: &Value| {
                (
                    f["janky"].as_bool().unwrap(),
                    f["missed_vsyncs"].as_u64().unwrap_or(0),
                    f["overrun_ms"].as_f64().unwrap_or(f64::MIN),
                )
            };
            for w in worst.windows(2) {
                let (a, b) = (key(&w[0]), key(&w[1]));
                assert!(a.0 >= b.0, "janky first: {name}");
                if a.0 == b.0 {
                    assert!(a.1 >= b.1, "{name}: by missed vsyncs");
                    if a.1 == b.1 {
                        assert!(a.2 >= b.2, "{name}: then by overrun");
                    }
                }
            }
            for f in worst {
                // FrameTimeline frames are listed only when janky; none without detail.
                assert!(f["jank_tag"].is_null() || f["janky"] == true, "{f}");
                assert!(
                    !f["jank_tag"].is_null() || !f["ui_ms"].is_null() || !f["cpu_ms"].is_null()
                );
            }
        }
    }
}

#[test]
fn api24_json_has_null_frame_timeline_fields() {
    let Some(dir) = common::shared("traces", "api24_json_has_null_frame_timeline_fields") else {
        return;
    };
    let t = trace(&dir, "androidx_api24_startup_cold");
    let r = json(&[
        "analyze",
        t.to_str().unwrap(),
        "--format",
        "json",
        "--top",
        "50",
    ]);
    assert_eq!(r["sources"]["frame_timeline"], false);
    let ids: Vec<&str> = r["trust"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"no_frame_timeline"), "{ids:?}");
    let procs = r["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 3);
    for p in procs {
        assert!(p["perfetto_frame_stats"].is_null());
        for l in p["layers"].as_array().unwrap() {
            assert_eq!(l["frames_with_timeline"], 0);
            for k in ["janky", "by_jank_tag", "by_jank_reason", "deadline_missed"] {
                assert!(l[k].is_null(), "{k} = {}", l[k]);
            }
            assert!(l["durations"]["overrun_ms"].is_null());
            assert!(l["durations"]["actual_ms"].is_null());
        }
        let ft = row(&p["reconciliation"][0], "frame_timeline");
        assert!(ft["count"].is_null() && ft["rate_pct"].is_null());
        assert_eq!(ft["of"], 0);
        for f in p["worst_frames"].as_array().unwrap() {
            for k in [
                "jank_tag",
                "jank_type",
                "present_type",
                "overrun_ms",
                "missed_vsyncs",
                "on_time_finish",
            ] {
                assert!(f[k].is_null(), "{k}");
            }
            assert!(f["definitions"]["frame_timeline"]["flagged"].is_null());
            assert!(
                !f["ui_ms"].is_null() || !f["cpu_ms"].is_null(),
                "no detail: {f}"
            );
            // Budget: the vsync period, from hardware vsync spacing (60 Hz).
            assert_eq!(f["budget_source"], "its vsync period");
            assert_eq!(f["budget_ms"], 16.67);
        }
    }
    // The table prints n/a, never 0, for FrameTimeline columns.
    let out = common::run(&["analyze", t.to_str().unwrap()]);
    let table = String::from_utf8(out.stdout).unwrap();
    let layer_line = table
        .lines()
        .find(|l| l.contains("(no FrameTimeline layer)"))
        .unwrap();
    let cells: Vec<&str> = layer_line.split('|').map(str::trim).collect();
    assert_eq!(
        &cells[3..8],
        ["n/a", "n/a", "n/a", "n/a", "n/a"],
        "{layer_line}"
    );
}

#[test]
fn nowinandroid_counts_frames_per_refresh_rate() {
    let Some(dir) = common::shared("traces", "nowinandroid_counts_frames_per_refresh_rate") else {
        return;
    };
    let t = trace(&dir, "nowinandroid_demo_pixel7pro_api33");
    let r = json(&["analyze", t.to_str().unwrap(), "--format", "json"]);
    let total: u64 = r["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["frames"].as_u64().unwrap())
        .sum();
    // MANIFEST: ASF 1068.
    assert_eq!(total, 1068);
    let rates: Vec<(f64, u64)> = r["refresh_rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["hz"].as_f64().unwrap(), x["frames"].as_u64().unwrap()))
        .collect();
    // Every frame is counted once, each rate separately (60 and 120 Hz would be two rows);
    // this Pixel 7 Pro ran at 120 Hz throughout (expected display frames 8.33 ms apart,
    // longer gaps whole multiples of it).
    assert_eq!(rates.iter().map(|r| r.1).sum::<u64>(), total);
    assert_eq!(rates, vec![(120.0, 1068)]);
    assert_eq!(r["vsync_period_source"], "frame_timeline");
    // "There is no doFrame or DrawFrame, no process_tree and no sched."
    let ids: Vec<&str> = r["trust"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap())
        .collect();
    assert_eq!(r["trust"]["grade"], "degraded");
    assert!(
        ids.contains(&"no_atrace_view") && ids.contains(&"no_sched"),
        "{ids:?}"
    );
    let app = r["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == 9305)
        .unwrap();
    assert_eq!(app["frames"], 739);
    assert!(app["trust"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["id"] == "name_guessed"));
    // 120 Hz: the app's budget is its expected surface frame, two vsyncs (16.6 ms).
    let f = json(&[
        "frames",
        t.to_str().unwrap(),
        "-p",
        "9305",
        "--format",
        "json",
    ]);
    for fr in f["processes"][0]["frames"].as_array().unwrap() {
        assert_eq!(fr["vsync_period_ms"], 8.33);
        if let (Some(o), Some(n)) = (fr["overrun_ms"].as_f64(), fr["missed_vsyncs"].as_u64()) {
            assert_eq!(
                n,
                if o <= 0.0 {
                    0
                } else {
                    (o / 8.333333).ceil() as u64
                },
                "{fr}"
            );
        }
    }
}

#[test]
fn a_filter_matching_nothing_and_an_empty_file_exit_2() {
    let Some(dir) = common::shared("traces", "a_filter_matching_nothing_exits_2") else {
        return;
    };
    let t = trace(&dir, "androidx_api35_startup_cold_classinit");
    let out = common::run(&["analyze", t.to_str().unwrap(), "-p", "com.nonexistent.app"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("no frames match \"com.nonexistent.app\""),
        "{err}"
    );
    assert!(
        err.contains("com.android.systemui (pid 3067): 44 frames"),
        "{err}"
    );
    // A truncated name: the process it is part of comes first.
    let out = common::run(&[
        "analyze",
        t.to_str().unwrap(),
        "-p",
        "launcher",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    let first = err.lines().nth(1).unwrap();
    assert!(first.contains("com.android.launcher3"), "{err}");
    let out = common::run(&["frames", t.to_str().unwrap(), "--layer", "nothing*"]);
    assert_eq!(out.status.code(), Some(2));
    // An empty file is an error, not an empty report.
    let empty =
        std::env::temp_dir().join(format!("frameprobe-empty-{}.pftrace", std::process::id()));
    std::fs::write(&empty, b"").unwrap();
    for cmd in ["analyze", "frames", "doctor"] {
        let out = common::run(&[cmd, empty.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("no trace packets"));
    }
    // A trace with a packet but no frame: nothing to analyze, and doctor says what to add.
    let frameless = std::env::temp_dir().join(format!(
        "frameprobe-frameless-{}.pftrace",
        std::process::id()
    ));
    std::fs::write(&frameless, [0x0a, 0x00]).unwrap();
    for cmd in ["analyze", "frames"] {
        let out = common::run(&[cmd, frameless.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("no frames") && err.contains("frameprobe doctor"),
            "{err}"
        );
    }
    // Several traces: one without the process is a warning, the others are reported.
    let api24 = trace(&dir, "androidx_api24_startup_cold");
    let out = common::run(&[
        "analyze",
        api24.to_str().unwrap(),
        t.to_str().unwrap(),
        "-p",
        "com.android.launcher3",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!("warning: {}: no frames match", api24.display())),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["traces"][1]["processes"][0]["pid"], 3363);
    assert_eq!(v["metric_version"], 1);
}

/// Vitals and over-budget on api24 (no FrameTimeline), from trace_processor's doFrame and
/// DrawFrame slices (the oracle's frame_thread_slices.csv): a frame is a main-thread doFrame
/// with the DrawFrames that start before the next doFrame; CPU time = the last DrawFrame's
/// end - the doFrame's start. Vitals: CPU time > 16 ms over frames with both; over budget:
/// CPU time, else the doFrame's duration, > the 60 Hz vsync period, over every frame. The
/// table's "N slow" is the over-budget count.
#[test]
fn api24_vitals_and_over_budget_follow_the_slices() {
    let Some(dir) = common::shared("traces", "api24_vitals_and_over_budget") else {
        return;
    };
    let Some(oracle) = common::shared(
        "perfetto-oracle/expected/androidx_api24_startup_cold",
        "api24_vitals_and_over_budget",
    ) else {
        return;
    };
    let slices = csv(&oracle.join("frame_thread_slices.csv"));
    let t = trace(&dir, "androidx_api24_startup_cold");
    let r = json(&["analyze", t.to_str().unwrap(), "--format", "json"]);
    let procs = r["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 3);
    let mut slow_anywhere = 0;
    for p in procs {
        let pid = p["pid"].as_i64().unwrap().to_string();
        let num = |r: &BTreeMap<String, String>, k: &str| r[k].parse::<i64>().unwrap();
        let mut do_frames: Vec<&BTreeMap<String, String>> = slices
            .iter()
            .filter(|s| s["pid"] == pid && s["tid"] == pid)
            .filter(|s| s["name"].starts_with("Choreographer#doFrame"))
            .collect();
        do_frames.sort_by_key(|s| num(s, "ts"));
        let draw_frames: Vec<&BTreeMap<String, String>> = slices
            .iter()
            .filter(|s| s["pid"] == pid && s["tid"] != pid && s["name"].starts_with("DrawFrame"))
            .collect();
        let (mut vitals_of, mut vitals_slow, mut over) = (0u64, 0u64, 0u64);
        for (i, d) in do_frames.iter().enumerate() {
            let start = num(d, "ts");
            let next = do_frames.get(i + 1).map_or(i64::MAX, |n| num(n, "ts"));
            let cpu = draw_frames
                .iter()
                .filter(|x| (start..next).contains(&num(x, "ts")))
                .map(|x| num(x, "ts") + num(x, "dur") - start)
                .max();
            if let Some(c) = cpu {
                vitals_of += 1;
                vitals_slow += u64::from(c > 16_000_000);
            }
            over += u64::from(cpu.unwrap_or(num(d, "dur")) > 16_666_667);
        }
        let process = &p["reconciliation"][0];
        assert_eq!(process["frames"].as_u64(), Some(do_frames.len() as u64));
        let v = row(process, "vitals");
        assert_eq!(
            (v["count"].as_u64(), v["of"].as_u64()),
            (Some(vitals_slow), Some(vitals_of)),
            "{pid}"
        );
        let o = row(process, "over_budget");
        assert_eq!(
            (o["count"].as_u64(), o["of"].as_u64()),
            (Some(over), Some(do_frames.len() as u64)),
            "{pid}"
        );
        let slow: u64 = p["layers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["slow_frames"]["frames"].as_u64().unwrap())
            .sum();
        assert_eq!(
            slow, over,
            "the table's slow frames are the over-budget frames"
        );
        slow_anywhere += over;
    }
    // The macrobenchmark target: 3 frames over 16.67 ms, 2 of them with a DrawFrame.
    assert_eq!(slow_anywhere, 3);
}
