//! A generated trace whose display runs at 90 Hz then 120 Hz: every frame's budget, vsync
//! period and whole vsyncs missed equal the generator's plan, with the period read from
//! SurfaceFlinger's counters and, without them, from FrameTimeline's spacing.

mod common;

use std::path::{Path, PathBuf};

use frameprobe_tools::synth::{generate, PlannedFrame, SynthConfig};
use serde_json::Value;

fn cfg(counters: bool) -> SynthConfig {
    SynthConfig {
        seed: 11,
        frames: 160,
        refresh_phases: vec![(90, 80), (120, 80)],
        vsync_period_counters: counters,
        // Work that fits a 120 Hz frame, with some frames slowed past it by more than a
        // vsync at 90 or 120 Hz but less than a 60 Hz one, so the period decides the count.
        ui_work_ns: 2_000_000,
        rt_work_ns: 1_500_000,
        gpu_work_ns: 1_000_000,
        work_jitter_ns: 300_000,
        jank_rate: 0.15,
        slow_extra_ns: 20_000_000,
        ..Default::default()
    }
}

fn write(name: &str, c: &SynthConfig) -> (PathBuf, Vec<PlannedFrame>) {
    let dir = std::env::temp_dir().join(format!("frameprobe-refresh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let t = generate(c);
    std::fs::write(&p, &t.bytes).unwrap();
    (p, t.frames)
}

fn frames_json(path: &Path) -> Vec<Value> {
    let out = common::run(&["frames", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["processes"][0]["frames"].as_array().unwrap().clone()
}

fn check(name: &str, counters: bool, source: &str) {
    let (path, plan) = write(name, &cfg(counters));
    let frames = frames_json(&path);
    assert_eq!(frames.len(), plan.len());
    let mut missed_total = 0;
    let mut period_decides = 0;
    for pf in &plan {
        let f = frames
            .iter()
            .find(|f| f["frame_id"] == pf.vsync_id)
            .unwrap_or_else(|| panic!("frame {} missing", pf.vsync_id));
        let period_ms = (pf.vsync_period_ns as f64 / 1e4).round() / 100.0;
        assert_eq!(f["vsync_period_ms"].as_f64(), Some(period_ms), "{f}");
        assert_eq!(f["vsync_period_source"], source);
        let want_hz = if pf.vsync_period_ns == 11_111_111 {
            90.0
        } else {
            120.0
        };
        assert_eq!(f["refresh_hz"].as_f64(), Some(want_hz));
        // The budget is the frame's expected surface frame: one period here.
        let budget = ((pf.expected_end - pf.expected_start) as f64 / 1e4).round() / 100.0;
        assert_eq!(f["budget_ms"].as_f64(), Some(budget));
        // Overrun = max(actual end, RenderThread end) - expected end; whole vsyncs, ceil.
        let overrun = pf.actual_end.max(pf.rt_end) - pf.expected_end;
        let whole = |period: i64| {
            if overrun <= 0 {
                0
            } else {
                (overrun + period - 1) / period
            }
        };
        let missed = whole(pf.vsync_period_ns);
        assert_eq!(f["missed_vsyncs"].as_i64(), Some(missed), "{f}");
        missed_total += missed;
        // Counted at 60 Hz these frames would have missed fewer vsyncs.
        if missed != whole(16_666_667) {
            period_decides += 1;
        }
    }
    assert!(missed_total > 0, "the plan has late frames");
    assert!(
        period_decides > 0,
        "no frame where the period changes the count"
    );
    // The header counts frames per rate.
    let out = common::run(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rates: Vec<(f64, u64)> = v["refresh_rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["hz"].as_f64().unwrap(), r["frames"].as_u64().unwrap()))
        .collect();
    assert_eq!(rates, vec![(120.0, 80), (90.0, 80)]);
    let table =
        String::from_utf8(common::run(&["analyze", path.to_str().unwrap()]).stdout).unwrap();
    assert!(
        table.contains("120 Hz (8.33 ms): 80 frames, 90 Hz (11.11 ms): 80 frames"),
        "{table}"
    );
}

#[test]
fn budgets_and_missed_vsyncs_follow_the_counters() {
    check("counters.perfetto-trace", true, "surfaceflinger_counters");
}

#[test]
fn without_counters_the_frame_timeline_spacing_gives_the_same_answer() {
    check("spacing.perfetto-trace", false, "frame_timeline");
}
