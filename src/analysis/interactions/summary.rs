//! Per-interaction figures for analyze, check and report: frames, janky frames by each
//! definition, the worst frame and the top causes of its janky frames.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{Interaction, InteractionSource};
use crate::analysis::causes::{Aggregate, ChainTotals, TopCause};
use crate::analysis::definitions::{Definition, FrameDefinitions};
use crate::analysis::frame_model::Frame;
use crate::analysis::units::{ms, ms_since};
use crate::store::Upid;

/// Per process, aligned with its frames: the index (into the detected list) of the
/// interaction each frame belongs to.
pub type Membership = HashMap<Upid, Vec<Option<usize>>>;

pub fn membership(frames: &HashMap<Upid, Vec<Frame>>, list: &[Interaction]) -> Membership {
    let mut out: Membership = frames
        .iter()
        .map(|(&u, fs)| (u, vec![None; fs.len()]))
        .collect();
    for (k, i) in list.iter().enumerate() {
        if let Some(m) = out.get_mut(&i.upid) {
            for &f in &i.frames {
                m[f] = Some(k);
            }
        }
    }
    out
}

/// The one place the analysed frames are selected (analyze, frames, report, check): the
/// frames starting in `range` and, with `--interaction` globs, only those of interactions
/// whose label matches. Interactions are detected over every frame first, so the range
/// never changes what an interaction is. Returns the interactions and the membership of the
/// kept frames; a process left without frames goes.
pub fn select(
    store: &crate::store::Store,
    named: &crate::analysis::named_slices::NamedSlices,
    by_process: &mut HashMap<Upid, Vec<Frame>>,
    range: crate::analysis::time_range::TimeRange,
    opts: &super::InteractionOptions,
    frame_db: Option<&rusqlite::Connection>,
) -> (anyhow::Result<Vec<Interaction>>, Membership) {
    let detected = super::detect(store, named, by_process, opts, frame_db);
    let list = detected.as_deref().unwrap_or(&[]);
    let mut member = membership(by_process, list);
    let globs = &opts.sections;
    for (upid, frames) in by_process.iter_mut() {
        let m = member.entry(*upid).or_default();
        retain_aligned(frames, m, |f, k| {
            range.contains(f.ts)
                && (globs.is_empty() || k.is_some_and(|k| super::label_matches(&list[k], globs)))
        });
    }
    by_process.retain(|_, frames| !frames.is_empty());
    member.retain(|u, _| by_process.contains_key(u));
    (detected, member)
}

/// Keeps the frames (and their membership, in step) that `keep` accepts.
pub fn retain_aligned(
    frames: &mut Vec<Frame>,
    member: &mut Vec<Option<usize>>,
    keep: impl Fn(&Frame, Option<usize>) -> bool,
) {
    let flags: Vec<bool> = frames
        .iter()
        .zip(member.iter())
        .map(|(f, &m)| keep(f, m))
        .collect();
    let mut it = flags.iter();
    frames.retain(|_| *it.next().unwrap_or(&false));
    let mut it = flags.iter();
    member.retain(|_| *it.next().unwrap_or(&false));
}

/// The frame of an interaction that overran most (FrameTimeline), else the longest.
#[derive(Debug, Clone, Serialize)]
pub struct WorstFrame {
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub time_s: f64,
    pub overrun_ms: Option<f64>,
    pub dur_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct InteractionReport {
    pub source: InteractionSource,
    pub label: String,
    pub ordinal: u32,
    pub ts: i64,
    /// Seconds from the trace start.
    pub time_s: f64,
    pub dur_ms: f64,
    /// Frames of the interaction among the analysed ones.
    pub frames: usize,
    /// Per definition (`frame_timeline`, `perfetto_stdlib`, `hwui`, `macrobenchmark`,
    /// `vitals`, `missed_vsyncs`, `over_budget`): the frames it flags.
    pub janky: BTreeMap<&'static str, usize>,
    /// Per definition: the frames it judges (the denominator of `janky`).
    pub judged: BTreeMap<&'static str, usize>,
    pub worst_frame: Option<WorstFrame>,
    /// Top causes over the interaction's janky frames (by time).
    pub top_causes: Vec<TopCause>,
}

/// What the summaries read of one process's analysed frames, all aligned with `frames`.
pub struct ProcessFrames<'a> {
    pub frames: &'a [Frame],
    pub member: &'a [Option<usize>],
    pub defs: &'a [FrameDefinitions],
    /// Janky by the process's rule (the frames `causes` explains).
    pub janky: &'a [bool],
    /// Cause chain totals of the janky frames (None for the others).
    pub chains: &'a [Option<ChainTotals>],
    pub trace_start: i64,
}

/// How many top causes an interaction lists.
const TOP_CAUSES: usize = 3;

/// One report per interaction with analysed frames, in time order.
pub fn summarize(list: &[Interaction], p: &ProcessFrames<'_>) -> Vec<InteractionReport> {
    let mut by: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, m) in p.member.iter().enumerate() {
        if let Some(k) = m {
            by.entry(*k).or_default().push(i);
        }
    }
    by.into_iter()
        .map(|(k, ix)| {
            let it = &list[k];
            let mut janky = BTreeMap::new();
            let mut judged = BTreeMap::new();
            for d in Definition::ALL {
                let v = ix.iter().map(|&i| p.defs[i].get(d));
                judged.insert(d.key(), v.clone().filter(|v| v.considered).count());
                janky.insert(d.key(), v.filter(|v| v.flagged()).count());
            }
            let mut agg = Aggregate::default();
            for &i in ix.iter().filter(|&&i| p.janky[i]) {
                agg.add(p.frames[i].layer.as_deref(), p.chains[i].as_ref());
            }
            let worst = ix
                .iter()
                .copied()
                .max_by_key(|&i| {
                    let f = &p.frames[i];
                    (
                        f.overrun_ns().unwrap_or(i64::MIN),
                        f.dur,
                        std::cmp::Reverse(i),
                    )
                })
                .map(|i| {
                    let f = &p.frames[i];
                    WorstFrame {
                        frame_id: f.frame_id,
                        ts: f.ts,
                        time_s: ms_since(f.ts, p.trace_start) / 1e3,
                        overrun_ms: f.overrun_ns().map(ms),
                        dur_ms: ms(f.dur),
                    }
                });
            InteractionReport {
                source: it.source,
                label: it.label.clone(),
                ordinal: it.ordinal,
                ts: it.ts,
                time_s: ms_since(it.ts, p.trace_start) / 1e3,
                dur_ms: ms(it.dur),
                frames: ix.len(),
                janky,
                judged,
                worst_frame: worst,
                top_causes: agg
                    .summary()
                    .top_by_ms
                    .into_iter()
                    .take(TOP_CAUSES)
                    .collect(),
            }
        })
        .collect()
}
