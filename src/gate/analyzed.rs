//! Gate metrics read from `analyze`'s own verdicts of the measured app: the jank rate by each
//! definition of the reconciliation table (each with its own denominator), whole vsyncs
//! missed, vitals' slow frames, and the milliseconds of a root-cause category in the janky
//! frames' cause chains. Nothing is re-judged here: the numbers are analyze's, summed over the
//! app's processes and then pooled over iterations.

use std::collections::BTreeMap;

use crate::analysis::causes::categories::Category;
use crate::analysis::causes::TOP_N;
use crate::analysis::definitions::Definition;
use crate::analysis::report_model::ProcessReport;

use super::measure::Iteration;

/// What one iteration's analysis says about the app (its processes summed).
#[derive(Debug, Clone, Default)]
pub struct Analyzed {
    /// Per definition: units flagged (None: the definition flags nothing here, e.g.
    /// Macrobenchmark's overrun before API 31) and units considered, from the process rows
    /// of the reconciliation table.
    pub definitions: BTreeMap<Definition, (Option<usize>, usize)>,
    /// Frames per whole vsyncs missed.
    pub missed_vsyncs_histogram: BTreeMap<u32, usize>,
    /// Janky frames the cause chains were built for.
    pub janky_frames: usize,
    /// Each process's top causes by ms (category id, ms), at most [`TOP_N`] each.
    pub top_causes_ms: Vec<Vec<(&'static str, f64)>>,
}

impl Analyzed {
    /// Sums analyze's process reports of the app.
    pub fn of(processes: &[&ProcessReport]) -> Analyzed {
        let mut out = Analyzed::default();
        for p in processes {
            if let Some(r) = p.reconciliation.iter().find(|r| r.scope == "process") {
                for row in &r.rows {
                    let e = out
                        .definitions
                        .entry(row.definition)
                        .or_insert((Some(0), 0));
                    e.0 = e.0.zip(row.count).map(|(a, b)| a + b);
                    e.1 += row.of;
                }
                for (k, n) in &r.missed_vsyncs_histogram {
                    *out.missed_vsyncs_histogram.entry(*k).or_default() += n;
                }
            }
            let top = p.causes.as_ref().map_or(Vec::new(), |c| {
                c.top_by_ms
                    .iter()
                    .map(|t| (t.category, t.total_ms))
                    .collect()
            });
            out.janky_frames += p.causes.as_ref().map_or(0, |c| c.janky_frames);
            out.top_causes_ms.push(top);
        }
        out
    }
}

/// A metric from analyze's verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnalyzedMetric {
    /// Percent of the definition's units it flags.
    JankRate(Definition),
    /// Whole vsyncs missed, summed over frames.
    MissedVsyncs,
    /// Frames that missed at least one whole vsync.
    FramesMissedVsync,
    /// Android vitals' slow frames (UI + RenderThread > 16 ms).
    SlowFrames,
    /// Milliseconds of a cause category in the janky frames' cause chains.
    CauseMs(&'static str),
}

const RATE_PREFIX: &str = "jank_rate_pct_";

impl AnalyzedMetric {
    pub fn name(&self) -> String {
        match self {
            AnalyzedMetric::JankRate(d) => format!("{RATE_PREFIX}{}", d.key()),
            AnalyzedMetric::MissedVsyncs => "missed_vsyncs".into(),
            AnalyzedMetric::FramesMissedVsync => "frames_missed_vsync".into(),
            AnalyzedMetric::SlowFrames => "slow_frames".into(),
            AnalyzedMetric::CauseMs(c) => format!("cause_ms[{c}]"),
        }
    }

    pub fn parse(s: &str) -> Option<AnalyzedMetric> {
        match s {
            "missed_vsyncs" => Some(AnalyzedMetric::MissedVsyncs),
            "frames_missed_vsync" => Some(AnalyzedMetric::FramesMissedVsync),
            "slow_frames" => Some(AnalyzedMetric::SlowFrames),
            _ => {
                if let Some(k) = s.strip_prefix(RATE_PREFIX) {
                    return Definition::ALL
                        .into_iter()
                        .find(|d| d.key() == k)
                        .map(AnalyzedMetric::JankRate);
                }
                let id = s.strip_prefix("cause_ms[")?.strip_suffix(']')?;
                Category::from_id(id).map(|c| AnalyzedMetric::CauseMs(c.id()))
            }
        }
    }

    pub fn unit(&self) -> &'static str {
        match self {
            AnalyzedMetric::JankRate(_) => "%",
            AnalyzedMetric::MissedVsyncs => "vsyncs",
            AnalyzedMetric::FramesMissedVsync | AnalyzedMetric::SlowFrames => "frames",
            AnalyzedMetric::CauseMs(_) => "ms",
        }
    }

    /// Units flagged and considered by `d`, pooled; None when an iteration's definition
    /// flags nothing.
    fn pooled(d: Definition, its: &[&Iteration]) -> Option<(usize, usize)> {
        its.iter().try_fold((0, 0), |(c, of), i| {
            let (n, m) = i.analyzed.definitions.get(&d).copied()?;
            Some((c + n?, of + m))
        })
    }

    /// The value pooled over `its`; None when the data does not allow it (a definition that
    /// judges nothing, or a cause outside a full top list: its ms is then unknown).
    pub fn value(&self, its: &[&Iteration]) -> Option<f64> {
        match self {
            AnalyzedMetric::JankRate(d) => {
                let (c, of) = Self::pooled(*d, its)?;
                (of > 0).then(|| c as f64 * 100.0 / of as f64)
            }
            AnalyzedMetric::FramesMissedVsync => {
                Self::pooled(Definition::MissedVsyncs, its).map(|(c, _)| c as f64)
            }
            AnalyzedMetric::SlowFrames => {
                Self::pooled(Definition::Vitals, its).map(|(c, _)| c as f64)
            }
            AnalyzedMetric::MissedVsyncs => Some(
                its.iter()
                    .flat_map(|i| &i.analyzed.missed_vsyncs_histogram)
                    .map(|(k, n)| *k as usize * n)
                    .sum::<usize>() as f64,
            ),
            AnalyzedMetric::CauseMs(c) => its
                .iter()
                .flat_map(|i| &i.analyzed.top_causes_ms)
                .map(|top| match top.iter().find(|(id, _)| id == c) {
                    Some((_, ms)) => Some(*ms),
                    None if top.len() < TOP_N => Some(0.0),
                    None => None,
                })
                .sum(),
        }
    }

    /// What the value is counted over, with the numbers.
    pub fn denominator(&self, its: &[&Iteration]) -> String {
        let n = its.len();
        let of = |d: Definition| -> usize {
            its.iter()
                .filter_map(|i| i.analyzed.definitions.get(&d))
                .map(|e| e.1)
                .sum()
        };
        match self {
            AnalyzedMetric::JankRate(d) => format!(
                "% of {} {} flagged {} ({}), {n} iterations",
                of(*d),
                d.unit(),
                d.flag(),
                d.label()
            ),
            AnalyzedMetric::MissedVsyncs | AnalyzedMetric::FramesMissedVsync => {
                let d = Definition::MissedVsyncs;
                format!("of {} {}, {n} iterations", of(d), d.unit())
            }
            AnalyzedMetric::SlowFrames => {
                let d = Definition::Vitals;
                format!("of {} {}, {n} iterations", of(d), d.unit())
            }
            AnalyzedMetric::CauseMs(_) => {
                let janky: usize = its.iter().map(|i| i.analyzed.janky_frames).sum();
                format!("ms in the cause chains of {janky} janky frames (each process's top {TOP_N} causes by ms), {n} iterations")
            }
        }
    }
}
