//! Parity with Perfetto where it defines blocking calls per frame: inside a CUJ, the totals
//! frameprobe's causes compute for each frame (by standardised name, over the extended frame
//! boundary) equal those of `android.frame_blocking_calls.blocking_calls_aggregation` (its SQL,
//! as frameprobe's stdlib module runs it) on the planted-causes trace with a CUJ, both from the
//! library and in every janky frame of `frames`' JSON.

mod common;

use std::collections::BTreeMap;

use frameprobe::analysis::causes::{blocking_calls, context::Ctx};
use frameprobe::analysis::index::Index;
use frameprobe::analysis::thread_state::ThreadStateIndex;
use frameprobe::import::{load, LoadOptions};
use frameprobe_tools::synth::causes;

type Totals = BTreeMap<i64, BTreeMap<String, (i64, usize)>>;

#[test]
fn per_frame_blocking_call_totals_match_perfettos_aggregation() {
    let (t, path) = cuj_trace("cuj.pftrace");
    assert!(t.cuj.is_some());

    // Perfetto's module.
    let include =
        "INCLUDE PERFETTO MODULE android.frame_blocking_calls.blocking_calls_aggregation; ";
    let frames = common::query_csv(
        &path,
        &format!("{include} SELECT frame_id, ts, ts_end, ui_thread_utid, render_thread_utid FROM _extended_frame_boundary ORDER BY frame_id"),
    );
    let calls = common::query_csv(
        &path,
        &format!("{include} SELECT frame_id, name, sum(dur), count(*) FROM _blocking_calls_frame_cuj GROUP BY 1, 2"),
    );
    assert_eq!(
        frames.len() - 1,
        t.frames.len(),
        "every frame is in the CUJ"
    );
    let mut sql: Totals = BTreeMap::new();
    for r in &calls[1..] {
        sql.entry(r[0].parse().unwrap())
            .or_default()
            .insert(r[1].clone(), (r[2].parse().unwrap(), r[3].parse().unwrap()));
    }

    // frameprobe's causes over the same boundaries.
    let loaded = load(&path, LoadOptions::all()).unwrap();
    let store = &loaded.store;
    let idx = Index::new(store);
    let states = ThreadStateIndex::all(store);
    let ctx = Ctx::new(&idx, &states);
    let mut rust: Totals = BTreeMap::new();
    for r in &frames[1..] {
        let n = |i: usize| r[i].parse::<i64>().unwrap();
        let threads = [n(3) as u32, n(4) as u32];
        let totals = blocking_calls::totals(&ctx, &threads, n(1), n(2));
        let e = rust.entry(n(0)).or_default();
        for b in totals {
            e.insert(b.name, (b.dur_ns, b.count));
        }
    }
    assert_eq!(rust, sql);

    // And the numbers are the planted ones.
    let binder_frame = t
        .frames
        .iter()
        .find(|f| f.cause == Some(causes::Cause::Binder))
        .unwrap();
    let b = &sql[&binder_frame.vsync_id];
    assert_eq!(b["binder transaction"], (causes::Cause::Binder.ns(), 1));
    assert_eq!(b[causes::AIDL_METHOD], (causes::Cause::Binder.ns(), 1));
    let gc_frame = t
        .frames
        .iter()
        .find(|f| f.cause == Some(causes::Cause::GcWait))
        .unwrap();
    assert_eq!(
        sql[&gc_frame.vsync_id]["Garbage Collector"],
        (causes::Cause::GcWait.ns(), 1)
    );
}

/// The CUJ trace written to a temporary file.
fn cuj_trace(name: &str) -> (causes::PlantedTrace, std::path::PathBuf) {
    let t = causes::generate(true);
    let dir = std::env::temp_dir().join(format!("frameprobe-cuj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, &t.bytes).unwrap();
    (t, path)
}

#[test]
fn each_janky_frames_blocking_calls_in_a_cuj_are_perfettos() {
    let (t, path) = cuj_trace("frames.pftrace");
    let include =
        "INCLUDE PERFETTO MODULE android.frame_blocking_calls.blocking_calls_aggregation; ";
    let bounds = common::query_csv(
        &path,
        &format!("{include} SELECT frame_id, ts, ts_end, cuj_name FROM _extended_frame_boundary"),
    );
    let calls = common::query_csv(
        &path,
        &format!("{include} SELECT frame_id, name, sum(dur), count(*) FROM _blocking_calls_frame_cuj GROUP BY 1, 2"),
    );
    let out = common::run(&["frames", path.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == causes::APP_NAME)
        .unwrap()["frames"]
        .as_array()
        .unwrap();
    let mut janky = 0;
    for f in frames.iter().filter(|f| f["janky"] == true) {
        janky += 1;
        let id = f["frame_id"].as_i64().unwrap().to_string();
        let c = &f["causes"];
        // The boundary is Perfetto's, not the cause window.
        let b = bounds.iter().find(|r| r[0] == id).unwrap();
        let w = &c["blocking_calls_window"];
        assert_eq!(w["from"], "perfetto_cuj_frame");
        assert_eq!(w["cuj"], "SYNTH_CUJ");
        assert_eq!(w["ts"].to_string(), b[1]);
        assert_eq!(w["end_ts"].to_string(), b[2]);
        assert_ne!(w["end_ts"], c["window"]["end_ts"]);
        // Every call total is the module's, and nothing more.
        let mut want: BTreeMap<String, (String, String)> = BTreeMap::new();
        for r in calls.iter().filter(|r| r[0] == id) {
            want.insert(r[1].clone(), (r[2].clone(), r[3].clone()));
        }
        let got: BTreeMap<String, (String, String)> = c["blocking_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                (
                    b["name"].as_str().unwrap().to_string(),
                    (b["dur_ns"].to_string(), b["count"].to_string()),
                )
            })
            .collect();
        assert_eq!(got, want, "frame {id}");
    }
    assert_eq!(janky, causes::Cause::ALL.len());
    let lock = t
        .frames
        .iter()
        .find(|f| f.cause == Some(causes::Cause::Lock))
        .unwrap();
    let mc = calls
        .iter()
        .find(|r| r[0] == lock.vsync_id.to_string() && r[1] == "monitor contention with <...>")
        .unwrap();
    assert_eq!(mc[2], causes::Cause::Lock.ns().to_string());
}

#[test]
fn outside_a_cuj_blocking_calls_span_the_cause_window() {
    let t = causes::generate(false);
    let dir = std::env::temp_dir().join(format!("frameprobe-cuj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plain.pftrace");
    std::fs::write(&path, &t.bytes).unwrap();
    let out = common::run(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let lock = t
        .frames
        .iter()
        .find(|f| f.cause == Some(causes::Cause::Lock))
        .unwrap();
    let f = v["processes"][0]["worst_frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["frame_id"] == lock.vsync_id)
        .unwrap();
    let w = &f["causes"]["blocking_calls_window"];
    assert_eq!(w["from"], "cause_window");
    assert!(w["cuj"].is_null());
    assert_eq!(w["ts"], f["causes"]["window"]["ts"]);
    assert_eq!(w["end_ts"], f["causes"]["window"]["end_ts"]);
    let calls = f["causes"]["blocking_calls"].as_array().unwrap();
    let mc = calls
        .iter()
        .find(|c| c["name"] == "monitor contention with <...>")
        .unwrap();
    assert_eq!(mc["dur_ns"], causes::Cause::Lock.ns());
    assert!(calls.iter().any(|c| c["name"] == "DrawFrames"));
}
