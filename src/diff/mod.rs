//! `frameprobe diff BASE CANDIDATE`: what a change did, per interaction. Interactions pair
//! by (process, source, label, ordinal) ([`matching`]); within each, frames pair by order or
//! vsync slot ([`align`]); the report gives the frame metrics on both sides ([`summary`]),
//! the slices that grew ([`growth`]) and each frame pair's largest grown slice.

pub mod align;
pub mod growth;
pub mod matching;
pub mod normalize;
pub mod sample;
pub mod side;
pub mod summary;

use serde::Serialize;

use crate::gate::compare::Thresholds;
use growth::{FramePair, GrownSlice};
use matching::{match_windows, Window, WindowKey};
use summary::InteractionSummary;

pub const SCHEMA: &str = "frameprobe.diff/v1";

/// The noise thresholds and the bootstrap of the claims.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DiffThresholds {
    /// Smallest rise in a slice's mean time per frame (ms) that can be claimed; a new slice
    /// name must total at least this in every candidate iteration.
    pub min_abs_ms: f64,
    /// Smallest relative rise (percent of the baseline's mean per frame).
    pub min_rel_pct: f64,
    pub confidence: f64,
    pub resamples: usize,
    pub seed: u64,
}

impl DiffThresholds {
    pub fn gate(&self) -> Thresholds {
        Thresholds {
            abs_ms: self.min_abs_ms,
            rel_pct: self.min_rel_pct,
            confidence: self.confidence,
            resamples: self.resamples,
            seed: self.seed,
            ..Default::default()
        }
    }
}

impl Default for DiffThresholds {
    fn default() -> Self {
        let g = Thresholds::default();
        DiffThresholds {
            min_abs_ms: 0.5,
            min_rel_pct: g.rel_pct,
            confidence: g.confidence,
            resamples: g.resamples,
            seed: g.seed,
        }
    }
}

/// One side as read: its traces (iterations) in order.
#[derive(Debug, Clone, Serialize)]
pub struct SideInfo {
    pub traces: Vec<String>,
    /// Interactions found, per trace.
    pub interactions: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct InteractionDiff {
    #[serde(flatten)]
    pub key: WindowKey,
    /// Start and length of the interaction in the first iteration of each side.
    pub base_ts: i64,
    pub base_dur_ns: i64,
    pub cand_ts: i64,
    pub cand_dur_ns: i64,
    pub base_iterations: usize,
    pub cand_iterations: usize,
    /// How the first iteration pair's frames were paired.
    pub alignment: align::AlignRule,
    pub summary: InteractionSummary,
    /// Claims only, ranked (see [`growth`]); empty when nothing grew past the noise.
    pub grown_slices: Vec<GrownSlice>,
    /// First iteration pair; listed for interactions with claims.
    pub frame_pairs: Vec<FramePair>,
}

impl InteractionDiff {
    pub fn changed(&self) -> bool {
        !self.grown_slices.is_empty()
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub schema: &'static str,
    pub tool_version: &'static str,
    pub metric_version: u32,
    pub thresholds: DiffThresholds,
    pub baseline: SideInfo,
    pub candidate: SideInfo,
    pub interactions: Vec<InteractionDiff>,
    pub only_in_baseline: Vec<WindowKey>,
    pub only_in_candidate: Vec<WindowKey>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl DiffReport {
    /// The interactions with claims.
    pub fn changed(&self) -> impl Iterator<Item = &InteractionDiff> {
        self.interactions.iter().filter(|i| i.changed())
    }
}

/// Diffs the windows of both sides (one list per iteration).
pub fn diff_windows(
    base: (&SideInfo, &[Vec<Window>]),
    cand: (&SideInfo, &[Vec<Window>]),
    th: &DiffThresholds,
) -> DiffReport {
    let gate_th = th.gate();
    let m = match_windows(base.1, cand.1);
    let mut interactions = Vec::new();
    for x in &m.matched {
        let pairs = growth::iteration_pairs(x);
        let grown = growth::grown_slices(x, &pairs, &gate_th);
        let frame_pairs = if grown.is_empty() {
            Vec::new()
        } else {
            growth::frame_pairs(x, &pairs, &gate_th)
        };
        let (b0, c0) = (x.base[0], x.cand[0]);
        interactions.push(InteractionDiff {
            key: x.key.clone(),
            base_ts: b0.ts,
            base_dur_ns: b0.dur,
            cand_ts: c0.ts,
            cand_dur_ns: c0.dur,
            base_iterations: x.base.len(),
            cand_iterations: x.cand.len(),
            alignment: align::align(&b0.frames, &c0.frames).0,
            summary: summary::summarize(&growth::frames_of(&x.base), &growth::frames_of(&x.cand)),
            grown_slices: grown,
            frame_pairs,
        });
    }
    DiffReport {
        schema: SCHEMA,
        tool_version: env!("CARGO_PKG_VERSION"),
        metric_version: crate::analysis::definitions::METRIC_VERSION,
        thresholds: *th,
        baseline: base.0.clone(),
        candidate: cand.0.clone(),
        interactions,
        only_in_baseline: m.only_base,
        only_in_candidate: m.only_cand,
        warnings: Vec::new(),
    }
}
