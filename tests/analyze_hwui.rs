//! HWUI verdicts in `analyze` / `frames` (issue 6 part 5), end to end: on generated traces,
//! whose plan says what every frame did, and on a real Android 15 trace.

mod common;

use frameprobe_tools::synth::{generate, PlannedFrame, SynthConfig};
use serde_json::Value;

fn write_trace(name: &str, cfg: &SynthConfig) -> (std::path::PathBuf, Vec<PlannedFrame>) {
    let t = generate(cfg);
    let dir = std::env::temp_dir().join(format!("frameprobe-hwui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, &t.bytes).unwrap();
    (p, t.frames)
}

fn json(args: &[&str]) -> Value {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn process(r: &Value, pid: i64) -> &Value {
    r["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .expect("the app is reported")
}

/// What HWUI's JankTracker decides for one synthetic frame.
#[derive(Debug, Clone, PartialEq)]
struct Expected {
    janky: bool,
    janky_legacy: bool,
    jank_types: Vec<String>,
}

/// JankTracker's rules (Android 12–15) worked through on the generator's plan, with the
/// documented slice mapping written out for the synthetic slices:
/// - IntendedVsync = expected start, FrameDeadline = expected end, FrameInterval = the vsync
///   spacing `p`; Vsync = IntendedVsync (every doFrame here starts less than `p` late);
/// - SyncQueued = DrawFrames start (no postAndWait), SyncStart = syncFrameState start =
///   DrawFrames + 20 µs, so the sync stall every span across SyncQueued loses is 20 µs;
/// - IssueDrawCommandsStart = syncFrameState end = DrawFrames + a third of it;
/// - SwapBuffersCompleted = queueBuffer end = DrawFrames end − 50 µs; FrameCompleted =
///   DrawFrames end; GpuCompleted = FrameTracer acquire fence = `gpu_done`.
fn hwui_rules(plan: &[PlannedFrame], p: i64) -> Vec<Expected> {
    let tenth = |d: i64| d as f64 > p as f64 * 0.1;
    let stall = 20_000;
    let mut next_unstuffed = -1i64;
    let mut swap_deadline = -1i64;
    let mut out = Vec::new();
    for f in plan {
        let iv = f.expected_start;
        assert!(
            f.ui_start - iv < p,
            "no Choreographer resync in these traces"
        );
        let vsync = iv;
        let sync_start = f.rt_start + 20_000;
        let issue = f.rt_start + (f.rt_end - f.rt_start) / 3;
        let swap_done = f.rt_end - 50_000;
        let completed = f.rt_end;
        let gpu = f.gpu_done;
        let mut types = Vec::new();

        // calculateLegacyJank.
        let legacy_total = swap_done - iv - stall;
        let janky_legacy = legacy_total > p;
        if swap_deadline < 0 {
            swap_deadline = iv + p;
        }
        let legacy_stuffed = tenth(swap_deadline - iv);
        swap_deadline = (swap_deadline + p).max(iv + p);
        if completed < swap_deadline || legacy_total < p {
            if legacy_stuffed {
                types.push("high_input_latency");
            }
        } else {
            types.push("frame_deadline_missed_legacy");
            swap_deadline = completed - (completed - vsync) % p + p;
        }

        // finishFrame.
        let stuffed = tenth(next_unstuffed - iv);
        let deadline = if stuffed {
            next_unstuffed + (f.expected_end - iv)
        } else {
            f.expected_end
        };
        let janky = gpu >= deadline;
        if !janky {
            if stuffed {
                types.push("high_input_latency");
                next_unstuffed += p;
            }
        } else {
            types.push("frame_deadline_missed");
            next_unstuffed = gpu - (gpu - vsync) % p + p;
            let share = |s: f64| (s * p as f64) as i64;
            // Missed vsync: IntendedVsync → Vsync is 0 here.
            if sync_start - vsync - stall >= share(0.5) {
                types.push("slow_ui_thread");
            }
            if issue - sync_start >= share(0.2) {
                types.push("slow_bitmap_uploads");
            }
            if completed - issue >= share(0.75) {
                types.push("slow_issue_draw_commands");
            }
        }
        out.push(Expected {
            janky,
            janky_legacy,
            jank_types: types.into_iter().map(String::from).collect(),
        });
    }
    out
}

fn reported(frame: &Value) -> Expected {
    let h = &frame["hwui"];
    assert!(h.is_object(), "frame has an HWUI verdict: {frame}");
    Expected {
        janky: h["janky"].as_bool().unwrap(),
        janky_legacy: h["janky_legacy"].as_bool().unwrap(),
        jank_types: h["jank_types"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect(),
    }
}

#[test]
fn hwui_verdicts_flag_the_slowed_frames_of_a_synthetic_scroll() {
    let cfg = SynthConfig {
        seed: 11,
        frames: 150,
        jank_rate: 0.15,
        ..Default::default()
    };
    let p = 1_000_000_000 / i64::from(cfg.refresh_hz);
    let (path, plan) = write_trace("hwui.perfetto-trace", &cfg);
    let trace = path.to_str().unwrap();
    let slowed: Vec<usize> = (0..plan.len()).filter(|&i| plan[i].slowed).collect();
    assert!(slowed.len() > 10, "the seed slows enough frames");

    let frames = json(&["frames", trace, "--format", "json"]);
    let frames = process(&frames, 4242)["frames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), plan.len());
    let got: Vec<Expected> = plan
        .iter()
        .map(|pf| {
            let f = frames
                .iter()
                .find(|f| f["frame_id"] == pf.vsync_id)
                .expect("planned frame reported");
            reported(f)
        })
        .collect();
    let want = hwui_rules(&plan, p);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "frame {i} ({:?})", plan[i]);
    }

    // What the rules say about this plan, in words:
    // - a slowed frame runs ≥ 17 ms of UI work, so IntendedVsync → swap done is > one
    //   16.67 ms interval: every slowed frame is janky by the legacy rule, and no other is;
    let legacy: Vec<usize> = (0..plan.len()).filter(|&i| got[i].janky_legacy).collect();
    assert_eq!(legacy, slowed);
    // - the first slowed frame finishes its GPU work after its deadline: janky, slow UI
    //   thread (Vsync → SyncStart ≥ 17 ms ≥ half an interval). From then on frames come every
    //   vsync, so JankTracker sees the pipeline as stuffed: each later frame gets one more
    //   vsync of deadline (high input latency instead of jank) unless it is later still.
    let janky: Vec<usize> = (0..plan.len()).filter(|&i| got[i].janky).collect();
    assert_eq!(janky.first(), slowed.first());
    assert!(janky.iter().all(|i| slowed.contains(i)), "{janky:?}");
    for &i in &janky {
        assert!(got[i].jank_types.contains(&"slow_ui_thread".to_string()));
    }
    for g in &got {
        for never in [
            "missed_vsync",
            "slow_bitmap_uploads",
            "slow_issue_draw_commands",
        ] {
            assert!(!g.jank_types.iter().any(|t| t == never), "{g:?}");
        }
    }

    // The process block: JankTracker's counters over the same frames.
    let r = json(&["analyze", trace, "--format", "json"]);
    let h = &process(&r, 4242)["hwui"];
    assert!(h.is_object(), "{h}");
    let count = |k: &str| -> usize {
        got.iter()
            .map(|g| g.jank_types.iter().filter(|t| *t == k).count())
            .sum()
    };
    assert_eq!(h["total_frames"], plan.len());
    assert_eq!(h["janky_frames"], janky.len());
    assert_eq!(h["janky_frames_legacy"], slowed.len());
    for k in [
        "missed_vsync",
        "high_input_latency",
        "slow_ui_thread",
        "slow_bitmap_uploads",
        "slow_issue_draw_commands",
        "frame_deadline_missed",
        "frame_deadline_missed_legacy",
    ] {
        assert_eq!(h[k], count(k), "{k}");
    }
    for k in ["p50_ms", "p90_ms", "p95_ms", "p99_ms"] {
        assert!(h[k].as_u64().unwrap() > 0, "{k}");
    }
    assert_eq!(h["windows"], 1);
    assert_eq!(h["frames_without_verdict"], 0);
    assert_eq!(h["gpu_completed_from_frame_tracer"], plan.len());
    assert_eq!(h["intended_vsync_from_frame_timeline"], plan.len());
    assert!(h["note"].as_str().unwrap().contains("approximation"));
    // The worst frames carry the verdict too.
    let worst = process(&r, 4242)["worst_frames"].as_array().unwrap();
    assert!(!worst.is_empty());
    assert!(worst.iter().all(|f| f["hwui"].is_object()));

    // Table and CSV show it.
    let out = common::run(&["analyze", trace, "--top", "200"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("HWUI JankTracker (approximation"), "{text}");
    let janky_line = text
        .lines()
        .find(|l| l.contains("HWUI: janky ["))
        .expect("the janky frame is among the worst");
    assert!(janky_line.contains("slow_ui_thread"), "{janky_line}");
    assert!(text.contains("HWUI: on time (janky by the legacy rule)"));
    let out = common::run(&["frames", trace, "--format", "csv"]);
    let rows = common::parse_csv(&String::from_utf8(out.stdout).unwrap());
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (j, jl, jt) = (
        col("hwui_janky"),
        col("hwui_janky_legacy"),
        col("hwui_jank_types"),
    );
    let id = col("frame_id");
    for (pf, w) in plan.iter().zip(&want) {
        let row = rows
            .iter()
            .find(|r| r[id] == pf.vsync_id.to_string())
            .unwrap();
        assert_eq!(row[j], if w.janky { "1" } else { "0" });
        assert_eq!(row[jl], if w.janky_legacy { "1" } else { "0" });
        assert_eq!(row[jt], w.jank_types.join(";"));
    }
}

#[test]
fn without_frame_timeline_the_verdict_uses_the_doframe_start() {
    let cfg = SynthConfig {
        seed: 5,
        frames: 90,
        jank_rate: 0.15,
        frame_timeline: false,
        frame_tracer: false,
        ..Default::default()
    };
    let (path, plan) = write_trace("hwui-atrace-only.perfetto-trace", &cfg);
    let r = json(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    let h = &process(&r, 4242)["hwui"];
    assert_eq!(h["total_frames"], plan.len());
    assert_eq!(h["intended_vsync_from_frame_timeline"], 0);
    assert_eq!(h["gpu_completed_from_frame_tracer"], 0);
    // IntendedVsync = doFrame start: a slowed frame's ≥ 17 ms of UI work alone is over the
    // 16.67 ms interval, so the legacy rule flags every slowed frame.
    let f = json(&["frames", path.to_str().unwrap(), "--format", "json"]);
    let frames = process(&f, 4242)["frames"].as_array().unwrap().clone();
    for pf in plan.iter().filter(|pf| pf.slowed) {
        let fr = frames
            .iter()
            .find(|f| f["ts"] == pf.ui_start)
            .expect("frame at its doFrame");
        assert_eq!(fr["hwui"]["janky_legacy"], true, "{fr}");
    }
}

#[test]
fn frame_timeline_only_traces_get_no_hwui_verdict() {
    let cfg = SynthConfig {
        seed: 3,
        frames: 60,
        atrace: false,
        ..Default::default()
    };
    let (path, plan) = write_trace("hwui-ft-only.perfetto-trace", &cfg);
    let r = json(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    let p = process(&r, 4242);
    assert_eq!(p["frames"], plan.len());
    assert!(p["hwui"].is_null(), "{}", p["hwui"]);
    assert!(p["worst_frames"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["hwui"].is_null()));
    let f = json(&["frames", path.to_str().unwrap(), "--format", "json"]);
    let frames = process(&f, 4242)["frames"].as_array().unwrap();
    assert_eq!(frames.len(), plan.len());
    assert!(frames.iter().all(|f| f["hwui"].is_null()));
}

#[test]
fn systemui_on_android_15_gets_an_hwui_block() {
    let Some(dir) = common::shared("traces", "systemui_on_android_15_gets_an_hwui_block") else {
        return;
    };
    let trace = dir.join("androidx_api35_startup_cold_classinit.perfetto-trace");
    let r = json(&["analyze", trace.to_str().unwrap(), "--format", "json"]);
    let ui = r["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "com.android.systemui")
        .expect("systemui is reported");
    let h = &ui["hwui"];
    assert!(h["total_frames"].as_u64().unwrap() > 0, "{h}");
    // StatusBar and NavigationBar0 are drawn by the same doFrames: two windows, each with
    // its own DrawFrames.
    assert_eq!(h["windows"], 2);
    // Frames whose doFrame ran on a shell thread, not the main thread, have no verdict.
    assert!(h["frames_without_verdict"].as_u64().unwrap() > 0);
    let f = json(&[
        "frames",
        trace.to_str().unwrap(),
        "--process",
        "com.android.systemui",
        "--format",
        "json",
    ]);
    let frames = f["processes"][0]["frames"].as_array().unwrap();
    // Same doFrame, two windows: different DrawFrames for HWUI.
    let nav = frames
        .iter()
        .find(|f| f["frame_id"] == 1253232 && f["layer"] == "TX - NavigationBar0#76")
        .unwrap();
    let bar = frames
        .iter()
        .find(|f| f["frame_id"] == 1253232 && f["layer"] == "TX - StatusBar#82")
        .unwrap();
    assert_eq!(nav["do_frame_slice_id"], bar["do_frame_slice_id"]);
    assert_ne!(
        nav["hwui"]["draw_frame_slice_id"],
        bar["hwui"]["draw_frame_slice_id"]
    );
}
