//! The verdict parts of the analyze page: the trust grade with its reasons, the refresh
//! rates, and each reconciliation table with the frames its definitions disagree on.

use std::fmt::Write;

use super::esc;
use crate::analysis::doctor::{combined_config, SourceStatus};
use crate::analysis::reconcile::Reconciliation;
use crate::analysis::trust::{Grade, Trust};
use crate::report::verdicts;

fn colour(g: Grade) -> &'static str {
    match g {
        Grade::Trusted => "#2e7d32",
        Grade::Degraded => "#ef6c00",
        Grade::Inconclusive => "#b71c1c",
    }
}

/// "Trust: <pill>" and the reasons as a list.
pub fn trust(o: &mut String, label: &str, t: &Trust) {
    let _ = write!(
        o,
        "<div class=\"trust\" data-grade=\"{}\"><b>{}</b> <span class=\"pill\" style=\"background:{}\">{}</span>",
        t.grade.as_str(),
        esc(label),
        colour(t.grade),
        t.grade.as_str()
    );
    if !t.reasons.is_empty() {
        o.push_str("<ul class=\"meta\">");
        for r in &t.reasons {
            let _ = write!(
                o,
                "<li><code>{}</code> ({}, {}): {}</li>",
                esc(r.id),
                r.grade.as_str(),
                r.scope,
                esc(&r.text)
            );
        }
        o.push_str("</ul>");
    }
    o.push_str("</div>");
}

/// doctor's verdict on the frame data sources: the present ones in a line, each missing one
/// with what it costs the analysis, then the trace config fragment that adds them all.
pub fn sources(o: &mut String, sources: &[SourceStatus]) {
    if sources.is_empty() {
        return;
    }
    let missing: Vec<&SourceStatus> = sources.iter().filter(|s| !s.present).collect();
    let present: Vec<&str> = sources
        .iter()
        .filter(|s| s.present)
        .map(|s| s.name)
        .collect();
    let _ = write!(
        o,
        "<details class=\"sources\" data-missing=\"{}\"{}><summary>Frame data sources: {} missing (<code>frameprobe doctor</code>)</summary>",
        missing.len(),
        if missing.is_empty() { "" } else { " open" },
        missing.len()
    );
    if !present.is_empty() {
        let _ = write!(
            o,
            "<p class=\"meta\">Present: {}.</p>",
            esc(&present.join("; "))
        );
    }
    if !missing.is_empty() {
        o.push_str("<ul>");
        for s in &missing {
            let asked = match s.requested {
                Some(true) => " The config asked for it, but nothing arrived.",
                Some(false) => " The config did not ask for it.",
                None => "",
            };
            let _ = write!(
                o,
                "<li data-source=\"{}\"><b>{}</b> ({}).{} Costs: {}</li>",
                s.id.key(),
                esc(s.name),
                esc(&s.evidence),
                asked,
                esc(s.cost.unwrap_or(""))
            );
        }
        o.push_str("</ul>");
        let ids: Vec<_> = missing.iter().map(|s| s.id).collect();
        if let Some(c) = combined_config(&ids) {
            let _ = write!(
                o,
                "<p class=\"meta\">Add to the trace config:</p><pre class=\"config\">{}</pre>",
                esc(&c)
            );
        }
    }
    o.push_str("</details>");
}

/// One reconciliation table, then its disagreements (kinds, and every frame's reason).
pub fn reconciliation(o: &mut String, r: &Reconciliation, open: bool) {
    let _ = write!(
        o,
        "<details class=\"reconciliation\" data-scope=\"{}\"{}><summary>Reconciliation: {}</summary>",
        r.scope,
        if open { " open" } else { "" },
        esc(&verdicts::scope(r))
    );
    let rows = verdicts::rows(r);
    o.push_str("<div class=\"scroll\"><table><thead><tr>");
    for h in &rows[0] {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr></thead><tbody>");
    for (row, def) in rows[1..].iter().zip(&r.rows) {
        let _ = write!(o, "<tr title=\"{}\">", esc(def.source));
        for c in row {
            let _ = write!(o, "<td>{}</td>", esc(c));
        }
        o.push_str("</tr>");
    }
    o.push_str("</tbody></table></div>");
    for l in verdicts::disagreement_lines(r, 0) {
        let _ = write!(o, "<p class=\"meta\">{}</p>", esc(l.trim_start()));
    }
    if !r.disagreements.is_empty() {
        o.push_str("<details><summary>Frames where the definitions disagree</summary><ul>");
        for d in r.disagreements.iter().take(MAX_LISTED) {
            let _ = write!(
                o,
                "<li>frame {}{}: {}</li>",
                esc(&d.frame_id.map_or("?".into(), |i| i.to_string())),
                esc(&d
                    .layer
                    .as_ref()
                    .map_or(String::new(), |l| format!(" [{l}]"))),
                esc(&d.reason)
            );
        }
        o.push_str("</ul>");
        if r.disagreements.len() > MAX_LISTED {
            let _ = write!(
                o,
                "<p class=\"meta\">… and {} more (every frame's reason: <code>frameprobe frames --format csv</code>, column disagreement).</p>",
                r.disagreements.len() - MAX_LISTED
            );
        }
        o.push_str("</details>");
    }
    o.push_str("</details>");
}

/// Disagreeing frames listed with their reason per table (the page stays small).
const MAX_LISTED: usize = 20;
