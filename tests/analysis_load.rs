//! What `analyze` leaves out of its load (`single_trace::analysis_load_options`): each
//! omission must leave the report unchanged, and must really happen, since each was
//! megabytes of the 200 MB benchmark's peak (issue 19).

mod common;

use frameprobe::analysis::{analyze, AnalyzeOptions};
use frameprobe::import::{load, LoadOptions};
use frameprobe::store::Store;

/// The real traces named, when the reference material is there.
fn real_traces(test: &str, names: &[&str]) -> Vec<std::path::PathBuf> {
    common::shared("traces", test)
        .map(|dir| names.iter().map(|n| dir.join(n)).collect())
        .unwrap_or_default()
}

const API35: &str = "androidx_api35_startup_cold_classinit.perfetto-trace";
const NOWINANDROID: &str = "nowinandroid_demo_pixel7pro_api33.perfetto-trace";

fn analysis() -> LoadOptions {
    LoadOptions {
        progress: false,
        ..frameprobe::single_trace::analysis_load_options()
    }
}

/// The report as `analyze` gives it by default: the worst 5 frames of each process explained,
/// so the cause chains and their CPU details are in it.
fn report(s: &Store) -> String {
    let opts = AnalyzeOptions {
        top: 5,
        ..Default::default()
    };
    serde_json::to_string(&analyze(s, &opts, "t")).unwrap()
}

/// `analyze` loads FrameTimeline slices without their args (the same values are the
/// `frame_timeline` columns it reads): the report must not change, and the args must really
/// be left out, since they were 13 MB of the 200 MB benchmark's peak. `query` keeps them.
#[test]
fn analyze_needs_no_frame_timeline_args() {
    let mut traces = vec![common::sample_trace()];
    traces.extend(real_traces(
        "analyze_needs_no_frame_timeline_args",
        &[API35, NOWINANDROID],
    ));
    let analysis = analysis();
    for t in &traces {
        let with = load(
            t,
            LoadOptions {
                frame_timeline_args: true,
                ..analysis
            },
        )
        .unwrap();
        let without = load(t, analysis).unwrap();
        let args_of = |s: &Store| {
            let rows = s.frame_timeline.iter();
            rows.filter(|f| s.slices[f.slice_id as usize].arg_set_id.is_some())
                .count()
        };
        let frames = with.store.frame_timeline.len();
        assert!(frames > 0, "{}: no FrameTimeline slices", t.display());
        assert_eq!(args_of(&with.store), frames, "{}", t.display());
        assert_eq!(args_of(&without.store), 0, "{}", t.display());
        assert_eq!(
            report(&with.store),
            report(&without.store),
            "{}",
            t.display()
        );
    }
    // query's load keeps them: SQL over `args` sees trace_processor's rows.
    let rows = common::query_csv(
        &traces[0],
        "SELECT COUNT(*) FROM actual_frame_timeline_slice a JOIN args USING (arg_set_id) \
         WHERE args.key = 'Jank type'",
    );
    assert_ne!(rows[1][0], "0");
}

/// `analyze` loads binder slices without their args (it joins calls to replies by their
/// flows): the report, the slices, flows and threads must not change, and the args must
/// really be left out. `query` keeps them.
#[test]
fn analyze_needs_no_binder_args() {
    let traces = real_traces("analyze_needs_no_binder_args", &[API35]);
    for t in &traces {
        let with = load(
            t,
            LoadOptions {
                binder_args: true,
                ..analysis()
            },
        )
        .unwrap()
        .store;
        let without = load(t, analysis()).unwrap().store;
        let binder_slices = |s: &Store| {
            let slices = s.slices.iter().filter(|r| {
                let name = r.name.map(|n| s.strings.get(n)).unwrap_or_default();
                name.starts_with("binder ")
            });
            let with_args = slices
                .clone()
                .filter(|r| r.arg_set_id.get().is_some())
                .count();
            (slices.count(), with_args)
        };
        let (n, with_args) = binder_slices(&with);
        assert!(n > 100, "{}: {n} binder slices", t.display());
        assert_eq!(with_args, n, "{}", t.display());
        assert_eq!(binder_slices(&without), (n, 0), "{}", t.display());
        assert_eq!(with.slices.len(), without.slices.len(), "{}", t.display());
        assert_eq!(with.flows.len(), without.flows.len(), "{}", t.display());
        assert_eq!(with.threads.len(), without.threads.len(), "{}", t.display());
        assert_eq!(report(&with), report(&without), "{}", t.display());
        let rows = common::query_csv(
            t,
            "SELECT COUNT(*) FROM slice JOIN args USING (arg_set_id) \
             WHERE slice.name = 'binder reply' AND args.key = 'destination thread'",
        );
        assert_ne!(rows[1][0], "0", "{}", t.display());
    }
}

/// `analyze` keeps only the counter rows it reads (CPU frequencies, SurfaceFlinger and
/// hardware vsync): the report and `trace_bounds` must not change, and the other rows
/// (atrace and process-memory counters, 9 MB of the benchmark's peak) must be gone.
#[test]
fn analyze_keeps_only_the_counters_it_reads() {
    // SurfaceFlinger vsync counters (api35, api32), CPU frequencies (api35), hardware
    // vsync (api24).
    let traces = real_traces(
        "analyze_keeps_only_the_counters_it_reads",
        &[
            API35,
            "androidx_api24_startup_cold.perfetto-trace",
            "androidx_api32_startup_warm.perfetto-trace",
        ],
    );
    for t in &traces {
        let all = LoadOptions {
            counter_tracks: None,
            ..analysis()
        };
        let with = load(t, all).unwrap().store;
        let without = load(t, analysis()).unwrap().store;
        let (kept, dropped) = (without.counters.len(), without.counters_not_kept.rows);
        assert_eq!(kept + dropped, with.counters.len(), "{}", t.display());
        assert!(
            dropped > kept,
            "{}: {kept} kept, {dropped} dropped",
            t.display()
        );
        assert_eq!(with.bounds(), without.bounds(), "{}", t.display());
        assert_eq!(report(&with), report(&without), "{}", t.display());
    }
}
