//! Parity with Perfetto where it defines blocking calls per frame: inside a CUJ, the totals
//! frameprobe's causes compute for each frame (by standardised name, over the extended frame
//! boundary) equal those of `android.frame_blocking_calls.blocking_calls_aggregation` (its SQL,
//! as frameprobe's stdlib module runs it) on the planted-causes trace with a CUJ.

mod common;

use std::collections::BTreeMap;

use frameprobe::analysis::causes::{blocking_calls, context::Ctx};
use frameprobe::analysis::index::Index;
use frameprobe::analysis::thread_state::ThreadStateIndex;
use frameprobe::import::{load, LoadOptions};
use frameprobe::synth::causes;

type Totals = BTreeMap<i64, BTreeMap<String, (i64, usize)>>;

#[test]
fn per_frame_blocking_call_totals_match_perfettos_aggregation() {
    let t = causes::generate(true);
    assert!(t.cuj.is_some());
    let dir = std::env::temp_dir().join(format!("frameprobe-cuj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("cuj.pftrace");
    std::fs::write(&path, &t.bytes).unwrap();

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

#[test]
fn analyze_reports_perfettos_blocking_calls_per_janky_frame() {
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
    let calls = f["causes"]["blocking_calls"].as_array().unwrap();
    let mc = calls
        .iter()
        .find(|c| c["name"] == "monitor contention with <...>")
        .unwrap();
    assert_eq!(mc["dur_ns"], causes::Cause::Lock.ns());
    assert!(calls.iter().any(|c| c["name"] == "DrawFrames"));
}
