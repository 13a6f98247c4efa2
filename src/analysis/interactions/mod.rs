//! Interactions: the stretches of a trace a user would name ("the feed scroll", "opening the
//! app"), each with the frames that belong to it, so frames, jank and causes can be reported
//! (and compared between traces) per interaction instead of per trace.
//!
//! Sources, highest priority first: CUJ markers (Perfetto's `android.cujs`), app trace
//! sections named by `--interaction GLOB`, scroll slices (`RV Scroll`), input-to-frame spans
//! (not detected yet), app startups, and otherwise bursts of frames separated by idle gaps.
//! A frame belongs to at most one interaction: the highest-priority one that covers it (the
//! earliest, between interactions of one source); bursts only gather frames nothing else
//! covers. An interaction left without frames is not reported.

mod bursts;
mod cuj;
pub use cuj::ensure_cuj_module;
mod slices;
pub use slices::SCROLL_SLICES;
mod startup;
pub use startup::is_launch_marker;
pub mod summary;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::frame_model::Frame;
use super::glob::glob;
use super::named_slices::NamedSlices;
use crate::store::{Store, Upid};

/// Where an interaction comes from; the order is the priority (first wins a frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractionSource {
    Cuj,
    Section,
    Scroll,
    Input,
    Startup,
    Idle,
}

impl InteractionSource {
    /// The word every output uses (the serde name).
    pub fn name(self) -> &'static str {
        match self {
            InteractionSource::Cuj => "cuj",
            InteractionSource::Section => "section",
            InteractionSource::Scroll => "scroll",
            InteractionSource::Input => "input",
            InteractionSource::Startup => "startup",
            InteractionSource::Idle => "idle",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Interaction {
    pub upid: Upid,
    pub source: InteractionSource,
    /// CUJ name without `J<>`, section name, scroll slice name, "startup", "burst".
    pub label: String,
    /// 1-based: the nth interaction with this (upid, source, label), in time order.
    pub ordinal: u32,
    pub ts: i64,
    pub dur: i64,
    /// Indices into the process's `Vec<Frame>` from [`super::frames::build`] (sorted by ts).
    pub frames: Vec<usize>,
}

impl Interaction {
    pub fn end(&self) -> i64 {
        self.ts + self.dur
    }
}

#[derive(Debug, Clone, Default)]
pub struct InteractionOptions {
    /// `--interaction` globs: app trace sections whose name matches become interactions.
    pub sections: Vec<String>,
    /// The idle gap that ends a burst; [`DEFAULT_IDLE_GAP_NS`] when None.
    pub idle_gap_ns: Option<i64>,
}

/// No frame for this long ends a burst of frames: about six vsyncs at 60 Hz, longer than
/// any pause between the frames of one animation or fling.
pub const DEFAULT_IDLE_GAP_NS: i64 = 100_000_000;

/// A candidate interaction before frames are handed out.
struct Window {
    upid: Upid,
    source: InteractionSource,
    label: String,
    ts: i64,
    dur: i64,
    /// The frames the source itself names (CUJs); None: the frames the window covers.
    frames: Option<Vec<usize>>,
}

/// Whether a frame lies in a window: it starts inside it, or the window begins during the
/// frame's UI-thread work (a slice traced inside doFrame is that frame's work).
fn covers(ts: i64, end: i64, f: &Frame) -> bool {
    let starts_inside = f.ts >= ts && f.ts <= end;
    let begins_in_ui = f.ui.is_some_and(|u| ts >= u.ts && ts < u.end());
    starts_inside || begins_in_ui
}

/// Every interaction of every process that has frames, sorted by (upid, ts); deterministic.
pub fn detect(
    store: &Store,
    named: &NamedSlices,
    frames: &HashMap<Upid, Vec<Frame>>,
    opts: &InteractionOptions,
    frame_db: Option<&rusqlite::Connection>,
) -> anyhow::Result<Vec<Interaction>> {
    let mut windows = cuj::windows(store, frames, frame_db)?;
    windows.extend(slices::sections(store, frames, &opts.sections));
    windows.extend(slices::scrolls(
        store,
        named,
        frames,
        opts.idle_gap_ns.unwrap_or(DEFAULT_IDLE_GAP_NS),
    ));
    windows.extend(startup::windows(store, named, frames));
    windows.sort_by(|a, b| {
        (a.source, a.upid, a.ts, a.dur, &a.label).cmp(&(b.source, b.upid, b.ts, b.dur, &b.label))
    });
    let mut taken: HashMap<Upid, Vec<bool>> = frames
        .iter()
        .map(|(&u, fs)| (u, vec![false; fs.len()]))
        .collect();
    let mut out = Vec::new();
    for w in windows {
        let (Some(fs), Some(taken)) = (frames.get(&w.upid), taken.get_mut(&w.upid)) else {
            continue;
        };
        let candidates: Vec<usize> = match w.frames {
            Some(v) => v,
            None => (0..fs.len())
                .filter(|&i| covers(w.ts, w.ts + w.dur, &fs[i]))
                .collect(),
        };
        let mine: Vec<usize> = candidates.into_iter().filter(|&i| !taken[i]).collect();
        if mine.is_empty() {
            continue;
        }
        for &i in &mine {
            taken[i] = true;
        }
        out.push(Interaction {
            upid: w.upid,
            source: w.source,
            label: w.label,
            ordinal: 0,
            ts: w.ts,
            dur: w.dur,
            frames: mine,
        });
    }
    let gap = opts.idle_gap_ns.unwrap_or(DEFAULT_IDLE_GAP_NS);
    for (&upid, fs) in frames {
        out.extend(bursts::bursts(upid, fs, &taken[&upid], gap));
    }
    out.sort_by(|a, b| (a.upid, a.ts, a.source, &a.label).cmp(&(b.upid, b.ts, b.source, &b.label)));
    let mut seen: BTreeMap<(Upid, InteractionSource, String), u32> = BTreeMap::new();
    for i in &mut out {
        let n = seen.entry((i.upid, i.source, i.label.clone())).or_insert(0);
        *n += 1;
        i.ordinal = *n;
    }
    Ok(out)
}

/// Whether an interaction's label matches any of `globs` (all match when there are none):
/// the `--interaction` filter on output.
pub fn label_matches(i: &Interaction, globs: &[String]) -> bool {
    globs.is_empty() || globs.iter().any(|g| glob(g, &i.label))
}
