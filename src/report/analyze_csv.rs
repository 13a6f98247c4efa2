//! CSV for `analyze` (one row per process and layer) and `frames` (one row per frame).

use super::causes_text::primary_cells;
use super::csv_rows::to_csv;
use crate::analysis::definitions::{Definition, FrameDefinitions};
use crate::analysis::reconcile::Reconciliation;
use crate::analysis::report_model::{AnalyzeReport, ProcessReport};
use crate::analysis::summary::Dist;

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn dist_cells(d: &Option<Dist>) -> Vec<String> {
    match d {
        Some(d) => vec![
            d.p50.to_string(),
            d.p90.to_string(),
            d.p95.to_string(),
            d.p99.to_string(),
            d.max.to_string(),
        ],
        None => vec![String::new(); 5],
    }
}

pub fn layers_csv(r: &AnalyzeReport) -> String {
    to_csv(layers_rows(r))
}

/// The analyze CSV's header then one row per process and layer.
pub fn layers_rows(r: &AnalyzeReport) -> Vec<Vec<String>> {
    let mut head = vec![
        "pid",
        "process",
        "layer",
        "frames",
        "frames_with_timeline",
        "janky",
        "janky_pct",
        "self_jank",
        "other_jank",
        "dropped",
        "buffer_stuffing",
        "deadline_missed",
        "slow_frames",
        "longest_janky_streak",
    ]
    .into_iter()
    .map(String::from)
    .collect::<Vec<_>>();
    for m in ["ui_ms", "cpu_ms", "overrun_ms"] {
        for p in ["p50", "p90", "p95", "p99", "max"] {
            head.push(format!("{m}_{p}"));
        }
    }
    // The layer's top causes across its janky frames (category id, total ms, frames).
    for i in 1..=TOP_CAUSE_COLUMNS {
        for c in ["", "_ms", "_frames"] {
            head.push(format!("top_cause_{i}{c}"));
        }
    }
    head.extend(verdict_head());
    let mut out = vec![head];
    for p in &r.processes {
        for l in &p.layers {
            // Empty cells, never 0, where FrameTimeline classified nothing.
            let t = |k: &str| {
                opt(l
                    .by_jank_tag
                    .as_ref()
                    .map(|m| m.get(k).map_or(0, |c| c.frames)))
            };
            let mut row = vec![
                p.pid.to_string(),
                String::from(p.name.as_deref().unwrap_or("")),
                String::from(l.layer.as_deref().unwrap_or("")),
                l.frames.to_string(),
                l.frames_with_timeline.to_string(),
                opt(l.janky.as_ref().map(|c| c.frames)),
                opt(l.janky.as_ref().map(|c| c.rate_pct)),
                t("Self Jank"),
                t("Other Jank"),
                t("Dropped Frame"),
                t("Buffer Stuffing"),
                opt(l.deadline_missed.as_ref().map(|c| c.frames)),
                opt(l.slow_frames.as_ref().map(|c| c.frames)),
                l.longest_janky_streak.to_string(),
            ];
            row.extend(dist_cells(&l.durations.ui_ms));
            row.extend(dist_cells(&l.durations.cpu_ms));
            row.extend(dist_cells(&l.durations.overrun_ms));
            row.extend(top_cause_cells(p, l.layer.as_deref()));
            row.extend(verdict_cells(r, p, layer_table(p, &l.layer)));
            out.push(row);
        }
    }
    out
}

/// How many of a layer's top causes the analyze CSV has columns for.
const TOP_CAUSE_COLUMNS: usize = 3;

fn top_cause_cells(p: &ProcessReport, layer: Option<&str>) -> Vec<String> {
    let top = p
        .causes
        .as_ref()
        .and_then(|c| c.by_layer.iter().find(|l| l.layer.as_deref() == layer))
        .map_or(&[][..], |l| l.top_by_ms.as_slice());
    (0..TOP_CAUSE_COLUMNS)
        .flat_map(|i| match top.get(i) {
            Some(t) => [
                t.category.to_string(),
                t.total_ms.to_string(),
                t.frames.to_string(),
            ],
            None => Default::default(),
        })
        .collect()
}

/// The reconciliation table of a layer (the process's when it has one layer).
fn layer_table<'a>(p: &'a ProcessReport, layer: &Option<String>) -> Option<&'a Reconciliation> {
    p.reconciliation
        .iter()
        .find(|t| t.scope == "layer" && &t.layer == layer)
        .or_else(|| p.reconciliation.first().filter(|_| p.layers.len() == 1))
}

/// Per-layer verdict columns: trust, refresh rates, each definition's count and denominator.
fn verdict_head() -> Vec<String> {
    let mut h: Vec<String> = ["metric_version", "trust", "refresh_hz"]
        .into_iter()
        .map(String::from)
        .collect();
    for d in Definition::ALL {
        h.push(format!("{}_count", d.key()));
        h.push(format!("{}_of", d.key()));
    }
    h.push("disagreeing_frames".into());
    h
}

fn verdict_cells(r: &AnalyzeReport, p: &ProcessReport, t: Option<&Reconciliation>) -> Vec<String> {
    let hz: Vec<String> = p.refresh_rates.iter().map(|x| x.hz.to_string()).collect();
    let mut c = vec![
        r.metric_version.to_string(),
        p.trust.grade.as_str().to_string(),
        hz.join(";"),
    ];
    for d in Definition::ALL {
        let row = t.and_then(|t| t.rows.iter().find(|x| x.definition == d));
        c.push(opt(row.and_then(|x| x.count)));
        c.push(opt(row.map(|x| x.of)));
    }
    c.push(opt(t.map(|t| t.disagreeing_frames)));
    c
}

/// A definition's verdict as a cell: 1 flagged, 0 not, empty when it does not judge.
fn flag(d: &FrameDefinitions, k: Definition) -> String {
    opt(d.get(k).flagged.map(i32::from))
}

pub fn frames_csv(r: &AnalyzeReport) -> String {
    to_csv(frames_rows(r))
}

const FRAME_COLUMNS: &str = "pid,process,layer,frame_id,ts,ts_rel_ms,dur_ms,ui_ms,cpu_ms,overrun_ms,jank_tag,jank_type,present_type,on_time_finish,janky,display_frame_token,buffer_confidence,gpu_wait_ms,sf_ms,hwui_janky,hwui_janky_legacy,hwui_jank_types,budget_ms,budget_source,vsync_period_ms,refresh_hz,missed_vsyncs,ft_janky,stdlib_was_jank,hwui_deadline_janky,mb_counted,mb_late,mb_why_not,vitals_slow,vitals_frozen,over_budget,rules,disagreement,primary_cause,primary_cause_ms,cause_window_ms";

/// The frames CSV's header then one row per frame.
pub fn frames_rows(r: &AnalyzeReport) -> Vec<Vec<String>> {
    let mut out = vec![FRAME_COLUMNS.split(',').map(String::from).collect()];
    for p in &r.processes {
        for f in &p.all_frames {
            let b = f.buffer.as_ref();
            let [cause, cause_ms, window_ms] = primary_cells(f.causes.as_ref());
            let row = [
                p.pid.to_string(),
                String::from(p.name.as_deref().unwrap_or("")),
                String::from(f.layer.as_deref().unwrap_or("")),
                opt(f.frame_id),
                f.ts.to_string(),
                f.ts_rel_ms.to_string(),
                opt(f.dur_ms),
                opt(f.ui_ms),
                opt(f.cpu_ms),
                opt(f.overrun_ms),
                String::from(f.jank_tag.as_deref().unwrap_or("")),
                String::from(f.jank_type.as_deref().unwrap_or("")),
                String::from(f.present_type.as_deref().unwrap_or("")),
                opt(f.on_time_finish.map(|b| b as i32)),
                (f.janky as i32).to_string(),
                opt(f.display_frame_token),
                opt(b.map(|b| b.confidence.name())),
                opt(b
                    .and_then(|b| b.gpu)
                    .filter(|g| g.dur >= 0)
                    .map(|g| g.dur as f64 / 1e6)),
                opt(b
                    .and_then(|b| b.sf)
                    .filter(|s| s.dur >= 0)
                    .map(|s| s.dur as f64 / 1e6)),
                opt(f.hwui.as_ref().map(|h| h.janky as i32)),
                opt(f.hwui.as_ref().map(|h| h.janky_legacy as i32)),
                String::from(
                    &f.hwui
                        .as_ref()
                        .map_or(String::new(), |h| h.jank_types.join(";")),
                ),
                f.budget_ms.to_string(),
                f.budget_source.to_string(),
                f.vsync_period_ms.to_string(),
                f.refresh_hz.to_string(),
                opt(f.missed_vsyncs),
                flag(&f.definitions, Definition::FrameTimeline),
                flag(&f.definitions, Definition::PerfettoStdlib),
                flag(&f.definitions, Definition::Hwui),
                i32::from(f.definitions.macrobenchmark.considered).to_string(),
                flag(&f.definitions, Definition::Macrobenchmark),
                String::from(if f.definitions.macrobenchmark.considered {
                    ""
                } else {
                    &f.definitions.macrobenchmark.why
                }),
                flag(&f.definitions, Definition::Vitals),
                opt(f
                    .definitions
                    .vitals
                    .considered
                    .then(|| i32::from(f.definitions.vitals.rules.contains(&"vitals.frozen")))),
                flag(&f.definitions, Definition::OverBudget),
                String::from(&f.definitions.rule_ids().join(";")),
                String::from(
                    f.definitions
                        .disagreement
                        .as_ref()
                        .map_or("", |d| d.reason.as_str()),
                ),
                cause,
                cause_ms,
                window_ms,
            ];
            out.push(Vec::from(row));
        }
    }
    out
}
