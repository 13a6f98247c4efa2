//! Frame causes on real device traces, checked against trace_processor's own answers (the
//! oracle CSVs): the window of the api35 startup frame is FrameTimeline's, every binder link
//! names the server trace_processor's `android_binder_txns` names, and every janky frame's
//! chain adds up to its window.

mod common;

use serde_json::Value;

fn frames_json(trace: &std::path::Path) -> Value {
    let out = common::run(&["frames", trace.to_str().unwrap(), "--format", "json"]);
    assert!(out.status.success());
    serde_json::from_slice(&out.stdout).unwrap()
}

fn oracle(name: &str, query: &str) -> Option<Vec<Vec<String>>> {
    let p = common::shared(
        &format!("perfetto-oracle/expected/{name}/{query}.csv"),
        "causes_real_traces",
    )?;
    Some(common::parse_csv(&std::fs::read_to_string(p).unwrap()))
}

fn col(rows: &[Vec<String>], name: &str) -> usize {
    rows[0].iter().position(|c| c == name).unwrap()
}

/// Every janky frame of every process has a chain whose links and phases add up to its
/// window; returns the janky frames.
fn check_every_janky_frame(v: &Value) -> Vec<Value> {
    let mut janky = Vec::new();
    for p in v["processes"].as_array().unwrap() {
        for f in p["frames"].as_array().unwrap() {
            if f["janky"] != true {
                assert!(f["causes"].is_null());
                continue;
            }
            let c = &f["causes"];
            assert!(c.is_object(), "janky frame {} has a chain", f["frame_id"]);
            let w = c["window"]["dur_ns"].as_i64().unwrap();
            let sum = |k: &str| -> i64 {
                c[k].as_array()
                    .unwrap()
                    .iter()
                    .map(|l| l["dur_ns"].as_i64().unwrap())
                    .sum()
            };
            assert_eq!(sum("links"), w, "links of frame {}", f["frame_id"]);
            assert_eq!(sum("phases"), w, "phases of frame {}", f["frame_id"]);
            assert_eq!(sum("by_category"), w);
            janky.push(f.clone());
        }
    }
    janky
}

/// trace_processor's janky surface frames (jank tag Self Jank, Other Jank or Dropped Frame)
/// of the processes frameprobe reports.
fn oracle_janky(actual: &[Vec<String>], v: &Value) -> usize {
    let pids: Vec<String> = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pid"].to_string())
        .collect();
    let (pid, token, tag) = (
        col(actual, "pid"),
        col(actual, "surface_frame_token"),
        col(actual, "jank_tag"),
    );
    actual[1..]
        .iter()
        .filter(|r| r[token] != "[NULL]" && pids.contains(&r[pid]))
        .filter(|r| {
            matches!(
                r[tag].as_str(),
                "Self Jank" | "Other Jank" | "Dropped Frame"
            )
        })
        .count()
}

const API35: &str = "androidx_api35_startup_cold_classinit";

#[test]
fn api35_startup_frame_window_binder_servers_and_class_loading() {
    let Some(trace) = common::shared(
        &format!("traces/{API35}.perfetto-trace"),
        "causes_real_traces",
    ) else {
        return;
    };
    let (Some(expected), Some(actual), Some(txns)) = (
        oracle(API35, "expected_frames"),
        oracle(API35, "actual_frames"),
        oracle(API35, "stdlib_binder_txns"),
    ) else {
        return;
    };
    let v = frames_json(&trace);
    let janky = check_every_janky_frame(&v);
    assert_eq!(janky.len(), oracle_janky(&actual, &v));

    // The app's one (startup) frame: expected start to the actual frame's end, as
    // trace_processor's expected and actual surface frame slices say.
    let find = |rows: &[Vec<String>]| -> (i64, i64) {
        let r = rows
            .iter()
            .find(|r| r[col(rows, "name")] == "1253421" && r[col(rows, "pid")] == "27246")
            .unwrap();
        (
            r[col(rows, "ts")].parse().unwrap(),
            r[col(rows, "dur")].parse().unwrap(),
        )
    };
    let (exp_ts, _) = find(&expected);
    let (act_ts, act_dur) = find(&actual);
    let f = janky
        .iter()
        .find(|f| f["frame_id"] == 1253421 && f["layer"].as_str().unwrap().contains("Jetsnack"))
        .unwrap();
    let c = &f["causes"];
    assert_eq!(c["window"]["ts"], exp_ts);
    assert_eq!(c["window"]["end_ts"], act_ts + act_dur);

    // Each binder call of the chain is served where trace_processor says.
    let links = c["links"].as_array().unwrap();
    // (Links merged past the chain's cap name no single slice.)
    let binder: Vec<&Value> = links
        .iter()
        .filter(|l| l["category"] == "binder" && l["slice_id"].is_u64())
        .collect();
    assert!(!binder.is_empty());
    let (cts, ctid, sproc, stid, aidl) = (
        col(&txns, "client_ts"),
        col(&txns, "client_tid"),
        col(&txns, "server_process"),
        col(&txns, "server_tid"),
        col(&txns, "aidl_name"),
    );
    for l in &binder {
        let row = txns
            .iter()
            .find(|r| r[cts].parse::<i64>().ok() == l["slice_ts"].as_i64() && r[ctid] == "27246")
            .unwrap_or_else(|| panic!("binder link {} in android_binder_txns", l["slice_id"]));
        let b = &l["binder"];
        assert_eq!(b["server"]["process"].as_str().unwrap_or(""), row[sproc]);
        assert_eq!(b["server"]["tid"].to_string(), row[stid]);
        let method = b["method"].as_str().unwrap_or("[NULL]");
        assert_eq!(method, row[aidl]);
    }
    let total = |cat: &str| -> f64 {
        c["by_category"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["category"] == cat)
            .map_or(0.0, |t| t["ms"].as_f64().unwrap())
    };
    // Startup work shows: class initialisation (ART's `L…;` slices), binder calls.
    assert!(total("class_loading") > 50.0, "{}", total("class_loading"));
    assert!(total("binder") > 10.0, "{}", total("binder"));
    // The UI thread waited for the RenderThread, which was compiling shaders.
    assert_eq!(c["primary"]["category"], "wait_for_render_thread");
    let wait = links
        .iter()
        .filter(|l| l["category"] == "wait_for_render_thread")
        .max_by_key(|l| l["dur_ns"].as_i64().unwrap())
        .unwrap();
    assert_eq!(wait["render_thread_activity"][0]["name"], "shader_compile");
    // Its longest stretch is the UI thread's longest sleep in the frame that a wakeup from
    // the RenderThread ended, as the thread_state table has it.
    let window = &c["window"];
    let sleeps = common::query_csv(
        &trace,
        &format!(
            "with u as (select s.ts, s.dur, s.state, lead(s.waker_utid) over (order by s.ts) as next_waker \
             from thread_state s join thread using (utid) where tid = 27246) \
             select ts, dur from u where state = 'S' and next_waker = (select utid from thread where tid = 27264) \
             and ts >= {} and ts + dur <= {} order by dur desc limit 1",
            window["ts"], window["end_ts"]
        ),
    );
    assert_eq!(wait["longest_stretch"]["ts"].to_string(), sleeps[1][0]);
    assert_eq!(wait["longest_stretch"]["dur_ns"].to_string(), sleeps[1][1]);
    assert!(wait["stretches"].as_u64().unwrap() > 1);
}

/// Every janky frame of every real trace (with FrameTimeline or without, with atrace or
/// without) has a chain that adds up to its window; the FrameTimeline ones are those
/// trace_processor's actual surface frames tag janky, the others slow frames without it.
#[test]
fn every_janky_frame_of_every_real_trace_has_a_chain() {
    let Some(dir) = common::shared("traces", "causes_real_traces") else {
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".perfetto-trace"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "{names:?}");
    let mut chains = 0;
    for name in &names {
        let v = frames_json(&dir.join(name));
        let janky = check_every_janky_frame(&v);
        chains += janky.len();
        // Slow frames without FrameTimeline: doFrame start to the end of the last DrawFrame.
        let (with_ft, without): (Vec<&Value>, Vec<&Value>) =
            janky.iter().partition(|f| f["jank_tag"].is_string());
        for f in &without {
            let w = &f["causes"]["window"];
            assert_eq!(
                (w["from"].as_str(), w["to"].as_str()),
                (Some("do_frame_start"), Some("frame_end")),
                "{name}"
            );
        }
        let stem = name.trim_end_matches(".perfetto-trace");
        if let Some(actual) = oracle(stem, "actual_frames") {
            assert_eq!(with_ft.len(), oracle_janky(&actual, &v), "{name}");
        }
    }
    assert!(chains > 40, "{chains}");
}

/// SystemUI draws the app's starting window with the `wmshell.splashscreen` thread's own
/// Choreographer: the frame's doFrame is not on SystemUI's main thread, but trace_processor's
/// `android_frames` finds it by vsync id, and so does the chain; its time is then the
/// splashscreen thread's binder calls to system_server, as `android_binder_txns` has them.
#[test]
fn api32_splash_screen_frame_follows_its_doframe_on_another_thread() {
    const NAME: &str = "androidx_api32_startup_warm";
    let Some(trace) = common::shared(
        &format!("traces/{NAME}.perfetto-trace"),
        "causes_real_traces",
    ) else {
        return;
    };
    let (Some(frames), Some(txns)) = (
        oracle(NAME, "stdlib_android_frames"),
        oracle(NAME, "stdlib_binder_txns"),
    ) else {
        return;
    };
    let v = frames_json(&trace);
    let f = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["frames"].as_array().unwrap())
        .find(|f| f["frame_id"] == 191058 && f["janky"] == true)
        .expect("the janky splash screen frame");
    // The frame model has no doFrame for it (not on the main thread).
    assert!(f["do_frame_slice_id"].is_null());
    let c = &f["causes"];
    assert_eq!(c["frame_slices"]["matched_by"], "vsync_id_any_thread");
    // The doFrame and DrawFrame trace_processor's android_frames joins to vsync 191058.
    let row = frames
        .iter()
        .find(|r| r[col(&frames, "frame_id")] == "191058")
        .unwrap();
    let name_of = |id: &Value| -> String {
        common::query_csv(&trace, &format!("select name from slice where id = {id}"))[1][0].clone()
    };
    assert_eq!(
        name_of(&c["frame_slices"]["do_frame"]),
        row[col(&frames, "do_frame")]
    );
    assert_eq!(
        name_of(&c["frame_slices"]["draw_frame"]),
        row[col(&frames, "draw_frame")]
    );
    // The chain runs on the splashscreen thread and its primary cause is the binder call
    // trace_processor lists from it to system_server's binder:1858_6.
    let ui = c["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == "ui_thread")
        .unwrap();
    assert_eq!(ui["thread"]["tid"], 2380);
    assert_eq!(c["primary"]["category"], "binder");
    let links = c["links"].as_array().unwrap();
    let longest = links
        .iter()
        .filter(|l| l["category"] == "binder")
        .max_by_key(|l| l["dur_ns"].as_i64().unwrap())
        .unwrap();
    let txn = txns
        .iter()
        .find(|r| r[col(&txns, "client_ts")].parse::<i64>().ok() == longest["slice_ts"].as_i64())
        .expect("the call in android_binder_txns");
    assert_eq!(txn[col(&txns, "client_tid")], "2380");
    assert_eq!(
        longest["slice_dur_ns"].to_string(),
        txn[col(&txns, "client_dur")]
    );
    assert_eq!(
        longest["binder"]["server"]["process"],
        txn[col(&txns, "server_process")].as_str()
    );
    assert_eq!(
        longest["binder"]["server"]["tid"].to_string(),
        txn[col(&txns, "server_tid")]
    );
}

/// The sample trace, and the api35 trace when `../shared` is there.
fn sample_and_api35(test: &str) -> Vec<std::path::PathBuf> {
    let mut traces = vec![common::sample_trace()];
    if let Some(dir) = common::shared("traces", test) {
        traces.push(dir.join("androidx_api35_startup_cold_classinit.perfetto-trace"));
    }
    traces
}

/// A trace loaded the way `analyze` loads it.
fn analysis_store(t: &std::path::Path) -> frameprobe::store::Store {
    frameprobe::import::load(t, frameprobe::single_trace::analysis_load_options())
        .unwrap()
        .store
}

/// `analyze` builds the shared cause lookups ahead while the frame database is still being
/// built, else on first use (which one depends on timing): both must answer alike.
#[test]
fn lookups_built_ahead_answer_as_those_built_on_first_use() {
    use frameprobe::analysis::causes::context::{Ctx, Prebuilt};
    use frameprobe::analysis::index::Index;
    use frameprobe::analysis::thread_state::ThreadStateIndex;
    for t in &sample_and_api35("lookups_built_ahead") {
        let store = analysis_store(t);
        let (idx, states) = (Index::new(&store), ThreadStateIndex::all(&store));
        let on_first_use = Ctx::new(&idx, &states);
        let ahead = Ctx::new(&idx, &states).with_prebuilt(Some(Prebuilt::build(&idx)));
        let (start, end) = store.bounds();
        let step = (end - start) / 7;
        let (mut slices, mut running) = (0, 0);
        for utid in 0..store.threads.len() as u32 {
            for k in 0..7 {
                let (a, b) = (start + k * step, start + (k + 2) * step);
                let want = on_first_use.slices_overlapping(utid, a, b);
                assert_eq!(
                    ahead.slices_overlapping(utid, a, b),
                    want,
                    "{}",
                    t.display()
                );
                slices += want.len();
            }
        }
        for cpu in 0..32 {
            let want: Vec<u32> = on_first_use.running_on_cpu(cpu).iter().collect();
            let got: Vec<u32> = ahead.running_on_cpu(cpu).iter().collect();
            assert_eq!(got, want, "{} cpu {cpu}", t.display());
            running += want.len();
        }
        let frames = |c: &Ctx| {
            let by = c.by_vsync();
            let mut v: Vec<_> = (by.do_frames.iter().map(|(k, ids)| (0, *k, ids.clone())))
                .chain(by.draw_frames.iter().map(|(k, ids)| (1, *k, ids.clone())))
                .collect();
            v.sort();
            v
        };
        let by_vsync = frames(&on_first_use);
        assert_eq!(frames(&ahead), by_vsync, "{}", t.display());
        let flows: Vec<_> = (0..store.slices.len() as u32)
            .map(|id| on_first_use.flow_from(id))
            .collect();
        let flows_ahead: Vec<_> = (0..store.slices.len() as u32)
            .map(|id| ahead.flow_from(id))
            .collect();
        assert_eq!(flows_ahead, flows, "{}", t.display());
        assert!(
            slices > 0 && running > 0 && !by_vsync.is_empty() && flows.iter().any(Option::is_some),
            "{}: nothing compared",
            t.display()
        );
    }
}

/// `analyze` builds a process's cause chains on two threads, each taking the next janky frame:
/// every chain must still be its own frame's, in frame order, and the frames not asked for
/// must get none (here every third frame is left out, so the positions have gaps). Only the
/// frames a report shows keep their whole chain (here every other one); the rest keep the
/// totals the aggregates read, which must be their whole chain's. The totals of half the
/// janky frames are worked out ahead (as `analyze` does while the frame database is built)
/// by a context of their own, and every process's frames share that one lookup; some of
/// them (shown or not) are attributed whole ahead, and a shown one's chain must be the same
/// as if the loop had attributed it.
#[test]
fn chains_built_on_two_threads_are_each_frames_own() {
    use frameprobe::analysis::causes::{chain, chains_of, context::Ctx, early::EarlyTotals};
    use frameprobe::analysis::index::Index;
    use frameprobe::analysis::thread_state::ThreadStateIndex;
    for t in &sample_and_api35("chains_built_on_two_threads") {
        let store = analysis_store(t);
        let (idx, states) = (Index::new(&store), ThreadStateIndex::all(&store));
        let (two, one) = (Ctx::new(&idx, &states), Ctx::new(&idx, &states));
        let (mut compared, mut totals_only, mut whole_from_ahead) = (0, 0, 0);
        let by_process = frameprobe::analysis::frames::build(&idx);
        let ahead = Ctx::new(&idx, &states);
        let all = || by_process.values().flatten();
        let half = std::cell::Cell::new(all().count() / 2);
        // Whole ahead: every third frame of each process, every other one of them shown.
        let whole_ahead: std::collections::HashSet<(u32, i64)> = by_process
            .values()
            .flat_map(|fs| fs.iter().step_by(3).map(|f| (f.upid, f.ts)))
            .collect();
        let early = EarlyTotals::work_out(
            &ahead,
            all(),
            |f| whole_ahead.contains(&(f.upid, f.ts)),
            || {
                half.set(half.get().saturating_sub(1));
                half.get() > 0
            },
        );
        assert!(!early.is_empty() && early.len() < all().count());
        for frames in by_process.values() {
            let wanted: Vec<bool> = (0..frames.len()).map(|i| i % 3 != 2).collect();
            let shown: Vec<bool> = (0..frames.len()).map(|i| i % 2 == 0).collect();
            let got = chains_of(&two, frames, &wanted, &shown, &early);
            assert_eq!(got.totals.len(), frames.len());
            assert_eq!(got.whole.len(), frames.len());
            for (i, f) in frames.iter().enumerate() {
                let want = if wanted[i] { chain(&one, f) } else { None };
                let whole = if shown[i] { want.clone() } else { None };
                assert_eq!(
                    serde_json::to_value(&got.whole[i]).unwrap(),
                    serde_json::to_value(&whole).unwrap(),
                    "{} frame {i}",
                    t.display()
                );
                assert_eq!(
                    got.totals[i],
                    want.as_ref().map(|c| c.totals()),
                    "{} frame {i}: totals",
                    t.display()
                );
                if let Some(ahead) = early.get(f) {
                    assert_eq!(
                        *ahead,
                        chain(&one, f).map(|c| c.totals()),
                        "{} frame {i}: totals worked out ahead",
                        t.display()
                    );
                }
                compared += usize::from(want.is_some());
                totals_only += usize::from(want.is_some() && !shown[i]);
                let ahead_whole = early.get(f).is_some() && whole_ahead.contains(&(f.upid, f.ts));
                whole_from_ahead += usize::from(want.is_some() && shown[i] && ahead_whole);
            }
        }
        assert!(
            compared >= 16 && totals_only >= 8 && whole_from_ahead >= 2,
            "{}: {compared} chains compared, {totals_only} as totals only, \
             {whole_from_ahead} whole from ahead",
            t.display()
        );
    }
}
