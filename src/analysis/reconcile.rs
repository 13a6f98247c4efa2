//! The reconciliation table of a process or a layer: for each definition, what it counts
//! (its unit), how many it considers (the denominator) and flags, how the frames of the model
//! map onto that (frames flagged, frames considered, frames not considered by rule), units
//! that are no frame of the model, and the frames on which the definitions disagree, with the
//! reason in words. Every frame of every definition is accounted for:
//! `frames_considered + Σ frames_not_considered = frames`, and a definition's `of` is the
//! distinct units of its considered frames plus `units_without_frame`.

use std::collections::BTreeMap;

use rustc_hash::FxHashSet;

use serde::Serialize;

use super::definitions::{rule, Definition, FrameDefinitions};

/// The unit each definition counts a frame as (frames sharing a unit are one unit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameUnits {
    /// Perfetto stdlib: the vsync id (frames of two layers with one id are one row).
    pub stdlib: Option<i64>,
    /// HWUI: the doFrame and DrawFrame JankTracker was given.
    pub hwui: Option<(u32, u32)>,
    /// Macrobenchmark: entries of its list that are this frame.
    pub mb_entries: usize,
}

/// A frame as the table needs it.
pub struct Judged<'a> {
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub layer: Option<&'a str>,
    pub defs: &'a FrameDefinitions,
    pub units: FrameUnits,
    pub missed_vsyncs: Option<u32>,
}

/// Units of a definition that are no frame of the model (process tables only).
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub units: usize,
    pub flagged: usize,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct NotConsidered {
    pub rule: &'static str,
    pub reason: &'static str,
    pub frames: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DefinitionRow {
    pub definition: Definition,
    pub label: &'static str,
    /// What a flagged unit is.
    pub flag: &'static str,
    /// What the definition counts.
    pub unit: &'static str,
    pub source: &'static str,
    /// Units flagged; null when the definition flags nothing here (e.g. Macrobenchmark's
    /// overrun before API 31).
    pub count: Option<usize>,
    /// Units considered: the denominator.
    pub of: usize,
    pub rate_pct: Option<f64>,
    /// Frames of the model the definition flags / considers.
    pub frames_flagged: usize,
    pub frames_considered: usize,
    pub frames_not_considered: Vec<NotConsidered>,
    /// Units that are no frame of the model (in `of` and, when flagged, in `count`).
    pub units_without_frame: usize,
    pub units_without_frame_flagged: usize,
    pub units_without_frame_reason: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DisagreeingFrame {
    pub frame_id: Option<i64>,
    pub ts: i64,
    pub layer: Option<String>,
    /// Each voting definition's verdict (null: it does not judge the frame).
    pub verdicts: BTreeMap<&'static str, Option<bool>>,
    pub kind: String,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DisagreementKind {
    pub kind: String,
    pub frames: usize,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Reconciliation {
    /// "process" (all its layers) or "layer".
    pub scope: &'static str,
    pub layer: Option<String>,
    pub frames: usize,
    pub rows: Vec<DefinitionRow>,
    /// Frames whose missed whole vsyncs are 0, 1, 2, ... (key: vsyncs missed).
    pub missed_vsyncs_histogram: BTreeMap<u32, usize>,
    pub disagreeing_frames: usize,
    pub disagreement_kinds: Vec<DisagreementKind>,
    pub disagreements: Vec<DisagreeingFrame>,
}

fn pct(n: usize, of: usize) -> Option<f64> {
    (of > 0).then(|| (n as f64 * 10000.0 / of as f64).round() / 100.0)
}

fn row(d: Definition, frames: &[Judged<'_>], extra: &Extra) -> DefinitionRow {
    let mut considered_units: FxHashSet<(i64, i64)> = FxHashSet::default();
    let mut flagged_units: FxHashSet<(i64, i64)> = FxHashSet::default();
    let (mut frames_flagged, mut frames_considered) = (0, 0);
    let (mut entries, mut flagged_entries) = (0, 0);
    let mut any_flag = false;
    let mut not: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, f) in frames.iter().enumerate() {
        let v = f.defs.get(d);
        if !v.considered {
            *not.entry(v.rules[0]).or_default() += 1;
            continue;
        }
        frames_considered += 1;
        any_flag |= v.flagged.is_some();
        let flagged = v.flagged();
        frames_flagged += flagged as usize;
        let unit = match d {
            Definition::PerfettoStdlib => f.units.stdlib.map(|t| (t, 0)),
            Definition::Hwui => f.units.hwui.map(|(a, b)| (a as i64, b as i64)),
            _ => None,
        }
        .unwrap_or((-1, i as i64));
        if d == Definition::Macrobenchmark {
            entries += f.units.mb_entries;
            flagged_entries += if flagged { f.units.mb_entries } else { 0 };
            continue;
        }
        considered_units.insert(unit);
        if flagged {
            flagged_units.insert(unit);
        }
    }
    let (units, flagged) = if d == Definition::Macrobenchmark {
        (entries, flagged_entries)
    } else {
        (considered_units.len(), flagged_units.len())
    };
    let of = units + extra.units;
    let count = (any_flag || extra.flagged > 0).then_some(flagged + extra.flagged);
    DefinitionRow {
        definition: d,
        label: d.label(),
        flag: d.flag(),
        unit: d.unit(),
        source: d.source(),
        count,
        of,
        rate_pct: count.and_then(|c| pct(c, of)),
        frames_flagged,
        frames_considered,
        frames_not_considered: not
            .into_iter()
            .map(|(r, n)| NotConsidered {
                rule: r,
                reason: rule(r).map_or("", |x| x.text),
                frames: n,
            })
            .collect(),
        units_without_frame: extra.units,
        units_without_frame_flagged: extra.flagged,
        units_without_frame_reason: extra.reason.clone(),
    }
}

/// The table over `frames`; `extras` are each definition's units without a frame.
pub fn reconcile(
    scope: &'static str,
    layer: Option<&str>,
    frames: &[Judged<'_>],
    extras: &BTreeMap<Definition, Extra>,
) -> Reconciliation {
    let none = Extra::default();
    let rows = Definition::ALL
        .iter()
        .map(|&d| row(d, frames, extras.get(&d).unwrap_or(&none)))
        .collect();
    let mut histogram = BTreeMap::new();
    for n in frames.iter().filter_map(|f| f.missed_vsyncs) {
        *histogram.entry(n).or_default() += 1;
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for f in frames {
        let Some(d) = &f.defs.disagreement else {
            continue;
        };
        *kinds.entry(d.kind.as_str()).or_default() += 1;
        disagreements.push(DisagreeingFrame {
            frame_id: f.frame_id,
            ts: f.ts,
            layer: f.layer.map(str::to_string),
            verdicts: super::definitions::disagreement::VOTERS
                .iter()
                .map(|&k| (k.key(), f.defs.get(k).flagged))
                .collect(),
            kind: d.kind.clone(),
            reason: d.reason.clone(),
        });
    }
    let mut disagreement_kinds: Vec<DisagreementKind> = kinds
        .into_iter()
        .map(|(k, n)| DisagreementKind {
            kind: k.to_string(),
            frames: n,
        })
        .collect();
    disagreement_kinds.sort_by_key(|k| std::cmp::Reverse(k.frames));
    Reconciliation {
        scope,
        layer: layer.map(str::to_string),
        frames: frames.len(),
        rows,
        missed_vsyncs_histogram: histogram,
        disagreeing_frames: disagreements.len(),
        disagreement_kinds,
        disagreements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::definitions::{FrameDefinitions, Verdict};

    fn v(considered: bool, flagged: Option<bool>, rule: &'static str) -> Verdict {
        Verdict {
            considered,
            flagged,
            rules: vec![rule],
            why: String::new(),
        }
    }

    fn defs(ft: Option<bool>, stdlib: Option<bool>) -> FrameDefinitions {
        let j = |f: Option<bool>, yes, no, absent| match f {
            Some(x) => v(true, Some(x), if x { yes } else { no }),
            None => v(false, None, absent),
        };
        FrameDefinitions {
            frame_timeline: j(ft, "ft.self_jank", "ft.no_jank", "ft.absent"),
            perfetto_stdlib: j(stdlib, "stdlib.was_jank", "stdlib.on_time", "stdlib.absent"),
            hwui: v(false, None, "hwui.absent"),
            macrobenchmark: v(true, Some(false), "mb.counted"),
            vitals: v(false, None, "vitals.absent"),
            missed_vsyncs: v(false, None, "vsync.absent"),
            over_budget: v(false, None, "budget.absent"),
            disagreement: None,
        }
    }

    #[test]
    fn units_denominators_and_frames_add_up() {
        // Two layers draw vsync 5 (one stdlib row), a third frame has vsync 6, a fourth has
        // no stdlib row.
        let d = [
            defs(Some(true), Some(true)),
            defs(Some(false), Some(true)),
            defs(Some(false), Some(false)),
            defs(Some(true), None),
        ];
        let units = [Some(5), Some(5), Some(6), None];
        let frames: Vec<Judged> = d
            .iter()
            .zip(units)
            .enumerate()
            .map(|(i, (defs, u))| Judged {
                frame_id: Some(i as i64),
                ts: i as i64,
                layer: None,
                defs,
                units: FrameUnits {
                    stdlib: u,
                    hwui: None,
                    mb_entries: 1,
                },
                missed_vsyncs: None,
            })
            .collect();
        let mut extras = BTreeMap::new();
        extras.insert(
            Definition::PerfettoStdlib,
            Extra {
                units: 2,
                flagged: 1,
                reason: Some("doFrames of ids without a frame".into()),
            },
        );
        let r = reconcile("process", None, &frames, &extras);
        let ft = &r.rows[0];
        assert_eq!((ft.count, ft.of, ft.frames_considered), (Some(2), 4, 4));
        let s = &r.rows[1];
        // Units: {5, 6} plus 2 without a frame; flagged: {5} plus 1.
        assert_eq!((s.count, s.of), (Some(2), 4));
        assert_eq!((s.frames_flagged, s.frames_considered), (2, 3));
        assert_eq!(s.frames_not_considered.len(), 1);
        assert_eq!(s.frames_not_considered[0].rule, "stdlib.absent");
        assert_eq!(s.frames_not_considered[0].frames, 1);
        for row in &r.rows {
            let not: usize = row.frames_not_considered.iter().map(|n| n.frames).sum();
            assert_eq!(
                row.frames_considered + not,
                r.frames,
                "{:?}",
                row.definition
            );
        }
        // HWUI judged nothing: null count, not 0.
        assert_eq!(r.rows[2].count, None);
        assert_eq!(r.rows[2].rate_pct, None);
        let mb = &r.rows[3];
        assert_eq!((mb.count, mb.of), (Some(0), 4));
    }
}
