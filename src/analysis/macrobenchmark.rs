//! Macrobenchmark's FrameTimingMetric numbers for a process or a package: selects the slices
//! its query selects and applies [`super::frame_timing`].

use std::collections::HashMap;

use super::frame_timing::{self, MbFrame, MbInput, MbProblem, MbSlice};
use super::named_slices::{Named, NamedSlices};
use super::report_model::MacrobenchmarkBlock;
use super::summary::Dist;
use crate::store::{Store, TrackScope, Upid};

/// SQLite LIKE without escapes: `%` any run, `_` one character, ASCII case-insensitive.
pub fn sql_like(pattern: &str, text: &str) -> bool {
    let g: String = pattern
        .chars()
        .map(|c| match c {
            '%' => '*',
            '_' => '?',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    super::glob::glob(&g, &text.to_ascii_lowercase())
}

/// Macrobenchmark's package match: the name, `name:subprocess`, or the last 15 characters
/// (a name truncated to the kernel's comm).
pub fn process_matches_package(name: &str, pkg: &str) -> bool {
    if sql_like(pkg, name) || sql_like(&format!("{pkg}:%"), name) {
        return true;
    }
    // By bytes, as the kernel truncates comm; a package whose 15th-last byte splits a
    // character has no such suffix (and must not panic: the package is user input).
    let tail = pkg.len().checked_sub(15).and_then(|i| pkg.get(i..));
    pkg.len() > 15 && tail.is_some_and(|t| sql_like(t, name))
}

/// Macrobenchmark's query rows (kind, slice) of every process accepted by `keep`, in one
/// pass over the slices: 0 = UI, 1 = RenderThread, 2 = actual, 3 = expected.
fn rows_by_process(
    store: &Store,
    named: &NamedSlices,
    keep: impl Fn(Upid) -> bool,
) -> HashMap<Upid, Vec<(u8, MbSlice)>> {
    let mut rows: HashMap<Upid, Vec<(u8, MbSlice)>> = HashMap::new();
    let name_of = |id: Option<crate::store::strings::StrId>| store.opt_str(id).unwrap_or("");
    // Name tests once per distinct string (by string index), not per slice; the same for
    // each thread's RenderThread test.
    let mut kind_of_name: Vec<Option<Option<u8>>> = vec![None; store.strings.len()];
    let mut render_thread: Vec<Option<bool>> = vec![None; store.threads.len()];
    for &id in named.ids(Named::FrameSlice) {
        let s = &store.slices[id as usize];
        let Some(n) = s.name else { continue };
        let kind = *kind_of_name[n.index() as usize].get_or_insert_with(|| {
            let name = store.str(n);
            if sql_like("Choreographer#doFrame%", name) {
                Some(0)
            } else if sql_like("DrawFrame%", name) {
                Some(1)
            } else {
                None
            }
        });
        let Some(kind) = kind else { continue };
        let TrackScope::Thread(utid) = store.tracks[s.track_id as usize].scope else {
            continue;
        };
        let t = &store.threads[utid as usize];
        let Some(upid) = t.upid.filter(|&u| keep(u)) else {
            continue;
        };
        let is_main = store.processes[upid as usize].pid == t.tid;
        let selected = match kind {
            0 => is_main,
            _ => *render_thread[utid as usize]
                .get_or_insert_with(|| sql_like("RenderThread", name_of(t.name))),
        };
        if selected {
            rows.entry(upid).or_default().push((
                kind,
                MbSlice {
                    name: store.str(n).to_string(),
                    ts: s.ts,
                    dur: s.dur,
                },
            ));
        }
    }
    for f in &store.frame_timeline {
        if !keep(f.upid) {
            continue;
        }
        let s = &store.slices[f.slice_id as usize];
        let (kind, prefix) = if f.actual {
            (2, "actual ")
        } else {
            (3, "expected ")
        };
        rows.entry(f.upid).or_default().push((
            kind,
            MbSlice {
                name: format!("{prefix}{}", name_of(s.name)),
                ts: s.ts,
                dur: s.dur,
            },
        ));
    }
    rows
}

/// UNION semantics (identical rows count once), ORDER BY ts, split by kind.
fn to_input(mut rows: Vec<(u8, MbSlice)>) -> MbInput {
    rows.sort_by(|a, b| (a.1.ts, &a.1.name, a.1.dur).cmp(&(b.1.ts, &b.1.name, b.1.dur)));
    rows.dedup_by(|a, b| a.1 == b.1);
    let mut input = MbInput::default();
    for (kind, s) in rows {
        match kind {
            0 => input.ui.push(s),
            1 => input.rt.push(s),
            2 => input.actual.push(s),
            _ => input.expected.push(s),
        }
    }
    input
}

/// The inputs of Macrobenchmark's query for the given processes together (a package).
pub fn input_for(store: &Store, named: &NamedSlices, upids: &[Upid]) -> MbInput {
    to_input(
        rows_by_process(store, named, |u| upids.contains(&u))
            .into_values()
            .flatten()
            .collect(),
    )
}

/// Each process's inputs, in one pass over the trace.
pub fn inputs_by_process(store: &Store, named: &NamedSlices) -> HashMap<Upid, MbInput> {
    rows_by_process(store, named, |_| true)
        .into_iter()
        .map(|(u, r)| (u, to_input(r)))
        .collect()
}

pub fn block(input: &MbInput, api: u32) -> MacrobenchmarkBlock {
    block_of(&frame_timing::frames(input, api), api)
}

/// The block of Macrobenchmark's list (or of why it has none).
pub fn block_of(measured: &Result<Vec<MbFrame>, MbProblem>, api: u32) -> MacrobenchmarkBlock {
    let (frames, problem) = match measured {
        Ok(f) => (&f[..], None),
        Err(p) => (&[][..], Some(p.to_string())),
    };
    let m: Vec<_> = frames.iter().map(|f| f.metrics()).collect();
    MacrobenchmarkBlock {
        frame_count: frames.len(),
        frame_duration_cpu_ms: Dist::of_ns(m.iter().map(|x| x.duration_cpu_ns)),
        frame_duration_ui_ms: Dist::of_ns(m.iter().map(|x| x.duration_ui_ns)),
        frame_overrun_ms: Dist::of_ns(m.iter().filter_map(|x| x.overrun_ns)),
        frame_duration_full_ms: Dist::of_ns(m.iter().filter_map(|x| x.duration_full_ns)),
        api_level: api,
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_and_package_matching() {
        assert!(sql_like(
            "Choreographer#doFrame%",
            "Choreographer#doFrame 12"
        ));
        assert!(sql_like("drawframe%", "DrawFrames 3"));
        assert!(!sql_like("DrawFrame%", "xDrawFrame"));
        assert!(process_matches_package(
            "com.example.app",
            "com.example.app"
        ));
        assert!(process_matches_package(
            "com.example.app:remote",
            "com.example.app"
        ));
        assert!(!process_matches_package(
            "com.example.apps",
            "com.example.app"
        ));
        // Truncated to the last 15 characters of the package.
        assert!(process_matches_package(
            "macrobenchmark.target".get(6..).unwrap(),
            "androidx.benchmark.macrobenchmark.target"
        ));
        // A long package matches a truncated name only by its last 15 characters.
        assert!(!process_matches_package(
            "com.other",
            "androidx.benchmark.macrobenchmark.target"
        ));
        assert!(!process_matches_package(
            "benchmark.macrobenchmark.target",
            "androidx.benchmark.macrobenchmark.target"
        ));
        // A package given on the command line in any script: never a panic.
        assert!(!process_matches_package("x", "com.exämple.äääääääää.app"));
        assert!(process_matches_package(
            "com.exämple.äääääääää.app",
            "com.exämple.äääääääää.app"
        ));
    }

    fn slice(name: &str, ts: i64, dur: i64) -> MbSlice {
        MbSlice {
            name: name.into(),
            ts,
            dur,
        }
    }

    /// Selection as MACROBENCHMARK.md states it: doFrame on the main thread (pid = tid),
    /// DrawFrame on a thread named RenderThread, the process's actual and expected
    /// FrameTimeline slices, identical rows once (UNION), by ts.
    #[test]
    fn query_rows_of_a_process_and_its_block() {
        use crate::analysis::frames::tests::{Trace, APP};
        use crate::store::FrameTimelineRow;
        const MS: i64 = 1_000_000;
        let mut t = Trace::new();
        let worker = t.thread(APP, 102, Some("Worker"));
        t.slice(0, "Choreographer#doFrame 10", 0, 5 * MS);
        // The same DrawFrame twice is one row; a DrawFrame off the RenderThread and a
        // doFrame off the main thread are not selected.
        t.slice(1, "DrawFrames 10", 5 * MS, 5 * MS);
        t.slice(1, "DrawFrames 10", 5 * MS, 5 * MS);
        t.slice(worker, "DrawFrames 10", 6 * MS, MS);
        t.slice(worker, "Choreographer#doFrame 10", 6 * MS, MS);
        let timeline = |upid, actual| FrameTimelineRow {
            upid,
            actual,
            display_frame_token: 7,
            surface_frame_token: Some(10),
            ..Default::default()
        };
        t.timeline(timeline(APP, false), 0, 16 * MS);
        t.timeline(timeline(APP, true), 0, 17 * MS);
        // Another process: its own doFrame, and a process with FrameTimeline rows only.
        let other = t.process(200, "com.other");
        let other_main = t.thread(other, 200, None);
        t.slice(other_main, "Choreographer#doFrame 30", 2 * MS, MS);
        let sf = t.process(300, "/system/bin/surfaceflinger");
        t.timeline(timeline(sf, true), 3 * MS, MS);

        let named = NamedSlices::collect(&t.store);
        let input = input_for(&t.store, &named, &[APP]);
        assert_eq!(input.ui, [slice("Choreographer#doFrame 10", 0, 5 * MS)]);
        assert_eq!(input.rt, [slice("DrawFrames 10", 5 * MS, 5 * MS)]);
        assert_eq!(input.actual, [slice("actual 10", 0, 17 * MS)]);
        assert_eq!(input.expected, [slice("expected 10", 0, 16 * MS)]);

        let all = inputs_by_process(&t.store, &named);
        assert_eq!(all.len(), 3);
        assert_eq!(all[&APP].rt, input.rt);
        assert_eq!(
            all[&other].ui,
            [slice("Choreographer#doFrame 30", 2 * MS, MS)]
        );
        assert!(all[&other].actual.is_empty());
        assert_eq!(all[&sf].actual, [slice("actual 10", 3 * MS, MS)]);

        // One frame: CPU = DrawFrame end 10 ms - doFrame start 0; overrun = max(actual end
        // 17 ms, DrawFrame end 10 ms) - expected end 16 ms.
        let block = |u: Upid| {
            let m = crate::analysis::definitions::mb_frames::map(&[], all.get(&u), 33);
            m.measured.map(|l| block_of(&l, 33))
        };
        let b = block(APP).unwrap();
        assert_eq!((b.frame_count, b.api_level, b.problem), (1, 33, None));
        assert_eq!(b.frame_duration_cpu_ms.unwrap().p50, 10.0);
        assert_eq!(b.frame_overrun_ms.unwrap().p50, 1.0);
        // Nothing to measure without doFrames.
        assert!(block(sf).is_none());
        assert!(block(99).is_none());
    }
}
