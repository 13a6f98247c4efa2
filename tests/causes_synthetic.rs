//! Frame causes end to end on the planted-causes trace (`frameprobe_tools::synth::causes`): each
//! janky frame's primary cause and its milliseconds are the plan's, the chain tiles the
//! frame's window, and each link carries the evidence the plan put there.

mod common;

use frameprobe_tools::synth::causes::{self, Cause, PlantedTrace};
use serde_json::Value;

fn write(name: &str, t: &PlantedTrace) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("frameprobe-causes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, &t.bytes).unwrap();
    p
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

fn ms(ns: i64) -> f64 {
    (ns as f64 / 1e4).round() / 100.0
}

fn app(v: &Value) -> &Value {
    v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == causes::APP_NAME)
        .expect("the planted app")
}

/// The link of the frame's primary category with the most time.
fn primary_link(c: &Value) -> &Value {
    let cat = &c["primary"]["category"];
    c["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| &l["category"] == cat)
        .max_by_key(|l| l["dur_ns"].as_i64().unwrap())
        .unwrap()
}

#[test]
fn each_planted_frame_has_its_cause_as_primary_with_the_planned_ms() {
    let t = causes::generate(false);
    let path = write("planted.pftrace", &t);
    let v = json(&["frames", path.to_str().unwrap(), "--format", "json"]);
    let frames = app(&v)["frames"].as_array().unwrap();
    assert_eq!(frames.len(), t.frames.len());
    for plan in &t.frames {
        let f = frames
            .iter()
            .find(|f| f["frame_id"] == plan.vsync_id)
            .unwrap();
        let Some(cause) = plan.cause else {
            assert_eq!(f["janky"], false, "frame {}", plan.vsync_id);
            assert!(f["causes"].is_null());
            continue;
        };
        assert_eq!(f["janky"], true, "frame {}", plan.vsync_id);
        let c = &f["causes"];
        // The window: expected start to the actual frame's end; the links tile it.
        assert_eq!(c["window"]["ts"], plan.expected_start);
        assert_eq!(c["window"]["end_ts"], plan.actual_end);
        assert_eq!(c["window"]["from"], "expected_start");
        let window = plan.actual_end - plan.expected_start;
        let links = c["links"].as_array().unwrap();
        let sum: i64 = links.iter().map(|l| l["dur_ns"].as_i64().unwrap()).sum();
        assert_eq!(sum, window, "frame {}", plan.vsync_id);
        let phases: i64 = c["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["dur_ns"].as_i64().unwrap())
            .sum();
        assert_eq!(phases, window);
        // Links never overlap.
        let mut spans: Vec<(i64, i64)> = links
            .iter()
            .map(|l| (l["ts"].as_i64().unwrap(), l["dur_ns"].as_i64().unwrap()))
            .collect();
        spans.sort();
        assert!(spans[0].0 >= plan.expected_start);
        assert_eq!(c["primary"]["category"], cause.category(), "{cause:?}");
        assert_eq!(c["primary"]["dur_ns"], cause.ns(), "{cause:?}");
        assert_eq!(c["primary"]["ms"].as_f64(), Some(ms(cause.ns())));
        let l = primary_link(c);
        assert_eq!(l["ts"], plan.cause_start, "{cause:?}");
        let on_rt = cause == Cause::ShaderCompile;
        assert_eq!(
            l["phase"],
            if on_rt { "render_thread" } else { "ui_thread" }
        );
        let thread = &l["thread"]["tid"];
        let expected_tid = if on_rt {
            causes::RENDER_TID
        } else {
            causes::APP_PID
        };
        assert_eq!(thread, expected_tid);
        assert!(c["sentence"]
            .as_str()
            .unwrap()
            .contains(&format!("{:.1} ms", ms(cause.ns()))));
    }
}

#[test]
fn each_link_carries_the_planted_evidence() {
    let t = causes::generate(false);
    let path = write("evidence.pftrace", &t);
    let v = json(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    let p = app(&v);
    let worst = p["worst_frames"].as_array().unwrap();
    let link_of = |cause: Cause| -> Value {
        let plan = t.frames.iter().find(|f| f.cause == Some(cause)).unwrap();
        let f = worst
            .iter()
            .find(|f| f["frame_id"] == plan.vsync_id)
            .unwrap_or_else(|| panic!("{cause:?} frame among the worst"));
        primary_link(&f["causes"]).clone()
    };
    let b = link_of(Cause::Binder);
    assert_eq!(b["slice_name"], "binder transaction");
    assert_eq!(b["binder"]["server"]["process"], "system_server");
    assert_eq!(b["binder"]["server"]["tid"], causes::BINDER_TID);
    assert_eq!(b["binder"]["method"], causes::AIDL_METHOD);
    assert!(b["binder"]["reply_slice_id"].is_u64());
    // The server ran the whole reply.
    let st = &b["binder"]["server_states"];
    assert_eq!(
        st["running_ms"].as_f64(),
        Some(ms(Cause::Binder.ns() - 100_000))
    );

    let l = link_of(Cause::Lock);
    assert_eq!(l["lock"]["owner"]["name"], "bg-worker");
    assert_eq!(l["lock"]["owner_tid"], causes::OWNER_TID);
    assert_eq!(l["lock"]["owner_slices"][0]["name"], causes::OWNER_SLICE);
    assert_eq!(
        l["lock"]["blocking_method"],
        "void com.example.Cache.load()"
    );

    let g = link_of(Cause::GcWait);
    assert_eq!(g["gc"]["gc"]["name"], causes::GC_SLICE);
    assert_eq!(g["gc"]["gc_thread"]["name"], "HeapTaskDaemon");

    let c = link_of(Cause::Runnable);
    assert_eq!(c["cpu"]["cpus"][0], 0);
    assert_eq!(c["cpu"]["ran_instead"][0]["thread"]["name"], "hog");
    assert_eq!(
        c["cpu"]["ran_instead"][0]["thread"]["process"],
        "com.example.hog"
    );
    assert_eq!(
        c["cpu"]["ran_instead"][0]["ms"].as_f64(),
        Some(ms(Cause::Runnable.ns()))
    );
    // CPU 0 has the lowest of the CpuInfo capacities: a little core, at its cpufreq.
    assert_eq!(c["cpu"]["cluster"], "little");
    assert_eq!(
        c["cpu"]["freq_khz"].as_f64(),
        Some(causes::CPU0_FREQ_KHZ as f64)
    );

    let s = link_of(Cause::ShaderCompile);
    assert_eq!(s["slice_name"], "shader_compile");
    assert_eq!(s["thread"]["name"], "RenderThread");

    // By frames: the UI thread's and RenderThread's own running time (outside the planted
    // cause) is in every janky frame, and a frame counts once however many links it has.
    let by_frames = p["causes"]["top_by_frames"].as_array().unwrap();
    assert_eq!(by_frames[0]["category"], "running_self");
    assert_eq!(by_frames[0]["frames"], 5);
    assert_eq!(by_frames[0]["primary_frames"], 0);
    assert!(by_frames.iter().all(|e| e["frames"].as_u64().unwrap() <= 5));
    // The aggregate: each planted category in exactly one janky frame, as its primary.
    let top = p["causes"]["top_by_ms"].as_array().unwrap();
    assert_eq!(p["causes"]["janky_frames"], 5);
    assert_eq!(p["causes"]["explained_frames"], 5);
    for cause in Cause::ALL {
        let e = top
            .iter()
            .find(|e| e["category"] == cause.category())
            .unwrap_or_else(|| panic!("{cause:?} in the top causes"));
        assert_eq!(e["frames"], 1);
        assert_eq!(e["primary_frames"], 1);
        assert_eq!(e["total_ms"].as_f64(), Some(ms(cause.ns())));
    }
}
