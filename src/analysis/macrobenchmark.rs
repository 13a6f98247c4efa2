//! Macrobenchmark's FrameTimingMetric numbers for a process or a package: selects the slices
//! its query selects and applies [`super::frame_timing`].

use std::collections::HashMap;

use super::frame_timing::{self, MbInput, MbSlice};
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
    pkg.len() > 15 && sql_like(&pkg[pkg.len() - 15..], name)
}

/// Macrobenchmark's query rows (kind, slice) of every process accepted by `keep`, in one
/// pass over the slices: 0 = UI, 1 = RenderThread, 2 = actual, 3 = expected.
fn rows_by_process(
    store: &Store,
    keep: impl Fn(Upid) -> bool,
) -> HashMap<Upid, Vec<(u8, MbSlice)>> {
    let mut rows: HashMap<Upid, Vec<(u8, MbSlice)>> = HashMap::new();
    let name_of = |id: Option<crate::store::strings::StrId>| store.opt_str(id).unwrap_or("");
    // Name tests once per distinct string, not per slice.
    let mut kind_of_name: HashMap<u32, Option<u8>> = HashMap::new();
    for s in &store.slices {
        let Some(n) = s.name else { continue };
        let kind = *kind_of_name.entry(n.0).or_insert_with(|| {
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
            _ => sql_like("RenderThread", name_of(t.name)),
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
pub fn input_for(store: &Store, upids: &[Upid]) -> MbInput {
    to_input(
        rows_by_process(store, |u| upids.contains(&u))
            .into_values()
            .flatten()
            .collect(),
    )
}

/// Each process's inputs, in one pass over the trace.
pub fn inputs_by_process(store: &Store) -> HashMap<Upid, MbInput> {
    rows_by_process(store, |_| true)
        .into_iter()
        .map(|(u, r)| (u, to_input(r)))
        .collect()
}

pub fn block(input: &MbInput, api: u32) -> MacrobenchmarkBlock {
    let (frames, problem) = match frame_timing::frames(input, api) {
        Ok(f) => (f, None),
        Err(p) => (Vec::new(), Some(p.to_string())),
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

/// The block for one process; None when it has no doFrame slices (nothing to measure).
pub fn block_for_process(
    inputs: &HashMap<Upid, MbInput>,
    upid: Upid,
    api: u32,
) -> Option<MacrobenchmarkBlock> {
    let input = inputs.get(&upid).filter(|i| !i.ui.is_empty())?;
    Some(block(input, api))
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
    }
}
