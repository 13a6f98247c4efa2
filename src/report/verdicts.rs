//! The verdict parts of a report as text, shared by the table, Markdown and HTML renderers:
//! the trust grade, the refresh rates, the reconciliation table and its disagreements.

use crate::analysis::reconcile::Reconciliation;
use crate::analysis::refresh::{PeriodSource, RefreshRate};
use crate::analysis::trust::Trust;

/// "degraded: reason; reason" (or "trusted").
pub fn trust_line(t: &Trust) -> String {
    if t.reasons.is_empty() {
        return t.grade.as_str().to_string();
    }
    let reasons: Vec<String> = t
        .reasons
        .iter()
        .map(|r| format!("[{}] {}", r.id, r.text))
        .collect();
    format!("{}: {}", t.grade.as_str(), reasons.join("; "))
}

/// "60 Hz: 120 frames, 120 Hz: 30 frames (vsync period from ...)".
pub fn refresh_line(rates: &[RefreshRate], source: Option<PeriodSource>) -> String {
    if rates.is_empty() {
        return "no frames".into();
    }
    let parts: Vec<String> = rates
        .iter()
        .map(|r| {
            format!(
                "{} Hz ({:.2} ms): {} frame{}",
                r.hz,
                r.period_ms,
                r.frames,
                if r.frames == 1 { "" } else { "s" }
            )
        })
        .collect();
    match source {
        Some(s) => format!("{} — vsync period from {}", parts.join(", "), s.describe()),
        None => parts.join(", "),
    }
}

/// The reconciliation table, header first.
pub fn rows(r: &Reconciliation) -> Vec<Vec<String>> {
    let mut out = vec![vec![
        "definition".to_string(),
        "flags".into(),
        "count / of".into(),
        "rate".into(),
        "frames flagged / judged".into(),
        "frames not judged (rule)".into(),
        "units without a frame".into(),
        "unit".into(),
    ]];
    for row in &r.rows {
        let not: Vec<String> = row
            .frames_not_considered
            .iter()
            .map(|n| format!("{} {}", n.frames, n.rule))
            .collect();
        out.push(vec![
            row.label.to_string(),
            row.flag.to_string(),
            match row.count {
                Some(c) => format!("{c} / {}", row.of),
                None => format!("n/a / {}", row.of),
            },
            row.rate_pct.map_or("n/a".into(), |p| format!("{p:.1}%")),
            format!("{} / {}", row.frames_flagged, row.frames_considered),
            if not.is_empty() {
                "-".into()
            } else {
                not.join(", ")
            },
            if row.units_without_frame > 0 {
                format!(
                    "{} ({} flagged)",
                    row.units_without_frame, row.units_without_frame_flagged
                )
            } else {
                "-".into()
            },
            row.unit.to_string(),
        ]);
    }
    out
}

/// The scope line of a table: "all 44 frames of the process" / "layer X (22 frames)".
pub fn scope(r: &Reconciliation) -> String {
    match (r.scope, &r.layer) {
        ("process", _) => format!("all {} frames of the process", r.frames),
        (_, Some(l)) => format!("layer {l} ({} frames)", r.frames),
        _ => format!("frames without a layer ({})", r.frames),
    }
}

/// "N frames where the definitions disagree", then each kind with its frame count, then up
/// to `examples` full reasons.
pub fn disagreement_lines(r: &Reconciliation, examples: usize) -> Vec<String> {
    let mut out = Vec::new();
    if r.disagreeing_frames == 0 {
        out.push("the definitions agree on every frame they judge".into());
        return out;
    }
    out.push(format!(
        "{} of {} frames where the definitions disagree:",
        r.disagreeing_frames, r.frames
    ));
    for k in &r.disagreement_kinds {
        out.push(format!("  {} × {}", k.frames, k.kind));
    }
    for d in r.disagreements.iter().take(examples) {
        out.push(format!(
            "  e.g. frame {}{}: {}",
            d.frame_id.map_or("?".into(), |i| i.to_string()),
            d.layer
                .as_ref()
                .map_or(String::new(), |l| format!(" [{l}]")),
            d.reason
        ));
    }
    out
}
