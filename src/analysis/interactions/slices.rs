//! Interactions from app slices: trace sections named by `--interaction GLOB`, and scroll
//! slices. RecyclerView traces each scroll step as `RV Scroll` (its `TRACE_SCROLL_TAG`),
//! inside the frame's input or animation callback, so the steps of one gesture are merged
//! while the next step starts less than the idle gap after the last. Compose emits no scroll
//! section (the nowinandroid trace has only `compose:lazylist:prefetch*`).

use std::collections::{BTreeMap, HashMap};

use super::{InteractionSource, Window};
use crate::analysis::frame_model::Frame;
use crate::analysis::glob::glob;
use crate::analysis::named_slices::{Named, NamedSlices};
use crate::store::{SliceId, Store, TrackId, TrackScope, Upid};

/// Slice names that mark a scroll step.
pub const SCROLL_SLICES: &[&str] = &["RV Scroll"];

/// The process a slice's track belongs to (thread or process tracks).
fn track_upid(store: &Store, track: TrackId) -> Option<Upid> {
    match store.tracks.get(track as usize)?.scope {
        TrackScope::Thread(utid) => store.threads.get(utid as usize)?.upid,
        TrackScope::Process(upid) => Some(upid),
        _ => None,
    }
}

/// Among the slices `ids` (in id order), those of processes with frames whose name passes
/// `wanted`: (upid, name, ts, end); an unfinished slice lasts to the end of the trace.
fn app_slices<'a>(
    store: &'a Store,
    ids: impl Iterator<Item = SliceId>,
    frames: &HashMap<Upid, Vec<Frame>>,
    wanted: impl Fn(&str) -> bool,
) -> Vec<(Upid, &'a str, i64, i64)> {
    let names: Vec<bool> = store.strings.iter().map(wanted).collect();
    // The trace's end scans every row: only worked out for an unfinished slice.
    let mut trace_end = None;
    let mut out = Vec::new();
    for id in ids {
        let s = &store.slices[id as usize];
        let Some(n) = s.name.filter(|n| names[n.index() as usize]) else {
            continue;
        };
        let Some(upid) = track_upid(store, s.track_id).filter(|u| frames.contains_key(u)) else {
            continue;
        };
        let end = if s.dur < 0 {
            *trace_end.get_or_insert_with(|| store.bounds().1)
        } else {
            s.ts + s.dur
        };
        out.push((upid, store.str(n), s.ts, end));
    }
    out
}

pub(super) fn sections(
    store: &Store,
    frames: &HashMap<Upid, Vec<Frame>>,
    globs: &[String],
) -> Vec<Window> {
    if globs.is_empty() {
        return Vec::new();
    }
    let all = 0..store.slices.len() as SliceId;
    app_slices(store, all, frames, |n| globs.iter().any(|g| glob(g, n)))
        .into_iter()
        .map(|(upid, name, ts, end)| Window {
            upid,
            source: InteractionSource::Section,
            label: name.to_string(),
            ts,
            dur: end - ts,
            frames: None,
        })
        .collect()
}

pub(super) fn scrolls(
    store: &Store,
    named: &NamedSlices,
    frames: &HashMap<Upid, Vec<Frame>>,
    gap_ns: i64,
) -> Vec<Window> {
    let mut by_key: BTreeMap<(Upid, &str), Vec<(i64, i64)>> = BTreeMap::new();
    let ids = named.ids(Named::Scroll).iter().copied();
    for (upid, name, ts, end) in app_slices(store, ids, frames, |n| SCROLL_SLICES.contains(&n)) {
        by_key.entry((upid, name)).or_default().push((ts, end));
    }
    let mut out = Vec::new();
    for ((upid, name), mut steps) in by_key {
        steps.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::new();
        for (ts, end) in steps {
            match merged.last_mut() {
                Some(m) if ts - m.1 < gap_ns => m.1 = m.1.max(end),
                _ => merged.push((ts, end)),
            }
        }
        out.extend(merged.into_iter().map(|(ts, end)| Window {
            upid,
            source: InteractionSource::Scroll,
            label: name.to_string(),
            ts,
            dur: end - ts,
            frames: None,
        }));
    }
    out
}
