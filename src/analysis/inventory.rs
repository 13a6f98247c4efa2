//! The processes that have frames, their layers and frame counts: what `doctor` lists and
//! what `analyze` offers when a filter matches nothing (closest names first).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::frame_model::Frame;
use super::index::Index;
use crate::store::Upid;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LayerCount {
    pub layer: Option<String>,
    pub frames: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FrameProcess {
    pub upid: Upid,
    pub pid: i64,
    pub name: Option<String>,
    /// "process" (process tree / ftrace) or "layer" (guessed from its layer names).
    pub name_source: Option<&'static str>,
    pub frames: usize,
    pub layers: Vec<LayerCount>,
}

/// The process's name and where it came from: the trace's, else the app package its layers
/// name (see [`Index::process_name`]).
pub fn display_name(
    idx: &Index<'_>,
    upid: Upid,
    layers: &[String],
) -> (Option<String>, Option<&'static str>) {
    let store = idx.store;
    match store.opt_str(store.processes[upid as usize].name) {
        Some(n) => (Some(n.to_string()), Some("process")),
        None => match idx.process_name(upid, layers) {
            Some(n) => (Some(n), Some("layer")),
            None => (None, None),
        },
    }
}

/// The distinct layer names of frames, sorted.
pub fn layer_names(frames: &[Frame]) -> Vec<String> {
    let mut l: Vec<String> = frames.iter().filter_map(|f| f.layer.clone()).collect();
    l.sort();
    l.dedup();
    l
}

/// Every process with frames, most frames first.
pub fn list(idx: &Index<'_>, by_process: &HashMap<Upid, Vec<Frame>>) -> Vec<FrameProcess> {
    let mut out: Vec<FrameProcess> = by_process
        .iter()
        .filter(|(_, f)| !f.is_empty())
        .map(|(&upid, frames)| {
            let (name, name_source) = display_name(idx, upid, &layer_names(frames));
            let mut layers: BTreeMap<Option<String>, usize> = BTreeMap::new();
            for f in frames {
                *layers.entry(f.layer.clone()).or_default() += 1;
            }
            let mut layers: Vec<LayerCount> = layers
                .into_iter()
                .map(|(layer, frames)| LayerCount { layer, frames })
                .collect();
            layers.sort_by_key(|l| std::cmp::Reverse(l.frames));
            FrameProcess {
                upid,
                pid: idx.store.processes[upid as usize].pid,
                name,
                name_source,
                frames: frames.len(),
                layers,
            }
        })
        .collect();
    out.sort_by_key(|p| (std::cmp::Reverse(p.frames), p.upid));
    out
}

/// Edit distance (insertions, deletions, substitutions), ASCII case folded.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<u8> = a.bytes().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<u8> = b.bytes().map(|c| c.to_ascii_lowercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// How far `p` is from what the user asked for: a name containing (or contained in) the
/// request first, then by edit distance to the name (or the pid's digits).
fn distance(wanted: &[String], p: &FrameProcess) -> (usize, usize) {
    let name = p.name.clone().unwrap_or_default();
    let pid = p.pid.to_string();
    wanted
        .iter()
        .map(|w| {
            let w = w.trim_matches('*');
            let lw = w.to_ascii_lowercase();
            let ln = name.to_ascii_lowercase();
            let contains =
                !lw.is_empty() && (ln.contains(&lw) || lw.contains(&ln) && !ln.is_empty());
            (
                usize::from(!contains),
                edit_distance(w, &name).min(edit_distance(w, &pid)),
            )
        })
        .min()
        .unwrap_or((1, usize::MAX))
}

/// The processes sorted closest to the filter first.
pub fn closest_first(mut list: Vec<FrameProcess>, wanted: &[String]) -> Vec<FrameProcess> {
    list.sort_by_key(|p| (distance(wanted, p), std::cmp::Reverse(p.frames)));
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, pid: i64, frames: usize) -> FrameProcess {
        FrameProcess {
            upid: pid as u32,
            pid,
            name: Some(name.into()),
            name_source: Some("process"),
            frames,
            layers: Vec::new(),
        }
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ABC", "abc"), 0);
    }

    #[test]
    fn closest_names_first() {
        let list = vec![
            p("system_server", 1286, 68),
            p("com.android.systemui", 3067, 44),
            p("com.android.launcher3", 3363, 7),
        ];
        // A truncated name: the process containing it comes first.
        let sorted = closest_first(list.clone(), &["launcher".into()]);
        assert_eq!(sorted[0].name.as_deref(), Some("com.android.launcher3"));
        // A typo: the nearest by edit distance.
        let sorted = closest_first(list.clone(), &["com.android.systemiu".into()]);
        assert_eq!(sorted[0].name.as_deref(), Some("com.android.systemui"));
        // A pid near one of them.
        let sorted = closest_first(list, &["3068".into()]);
        assert_eq!(sorted[0].pid, 3067);
    }
}
