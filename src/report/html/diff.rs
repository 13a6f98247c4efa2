//! The diff on the compare page: per interaction, bars of the baseline's and the
//! candidate's janky frames and P90 frame duration, then the slices that grew in each
//! changed interaction. The numbers are `diff::diff_windows`'s; this only draws them.

use std::fmt::Write;

use super::compare::{BASE_COLOUR, CAND_COLOUR};
use super::{esc, svg};
use crate::diff::{DiffReport, InteractionDiff};
use crate::report::diff::{grew_by, interval};

/// One value of an interaction on both sides.
type BothSides = (Option<f64>, Option<f64>);

/// `RV Scroll #2` (the group label under a bar pair).
fn short_label(label: &str, ordinal: u32) -> String {
    format!("{label} #{ordinal}")
}

pub fn diff_section(r: &DiffReport) -> String {
    let mut o = String::new();
    o.push_str("<section class=\"process\" id=\"diff\"><h2>What changed, per interaction</h2>");
    let _ = write!(
        o,
        "<p class=\"meta\">From <code>frameprobe diff</code>: {} interaction(s) on both sides, {} with slices that grew \
         (mean time per frame up by at least {} ms and {}%, {:.0}% bootstrap interval above zero).</p>",
        r.interactions.len(),
        r.changed().count(),
        r.thresholds.min_abs_ms,
        r.thresholds.min_rel_pct,
        r.thresholds.confidence * 100.0
    );
    let groups = |f: &dyn Fn(&InteractionDiff) -> BothSides| {
        r.interactions
            .iter()
            .map(|i| {
                let (b, c) = f(i);
                (short_label(&i.key.label, i.key.ordinal), b, c)
            })
            .collect::<Vec<_>>()
    };
    o.push_str("<div class=\"row\">");
    o.push_str(&svg::paired_bars(
        "Janky frames per interaction",
        &groups(&|i| (i.summary.janky.base, i.summary.janky.cand)),
        "frames (per iteration)",
        (BASE_COLOUR, CAND_COLOUR),
    ));
    o.push_str(&svg::paired_bars(
        "P90 frame duration per interaction",
        &groups(&|i| {
            let p = i.summary.metrics.first().map(|m| m.p90);
            (p.and_then(|c| c.base), p.and_then(|c| c.cand))
        }),
        "ms",
        (BASE_COLOUR, CAND_COLOUR),
    ));
    o.push_str("</div>");
    for i in r.changed() {
        let _ = write!(
            o,
            "<h3>{} <code>{}</code> {} of <code>{}</code>: slices that grew</h3>",
            esc(&i.key.source),
            esc(&i.key.label),
            i.key.ordinal,
            esc(&i.key.process)
        );
        o.push_str(
            "<table class=\"grown\"><thead><tr><th>role</th><th>slice</th><th>by</th><th>self ms base</th>\
             <th>self ms cand</th><th>added self ms</th><th>added wall ms</th><th>per frame base → cand</th>\
             <th>added in janky frames</th><th>interval</th></tr></thead><tbody>",
        );
        for g in &i.grown_slices {
            let (by, interval) = (grew_by(g), interval(g));
            let _ = write!(
                o,
                "<tr><td>{}</td><td><code>{}</code>{}</td><td>{by}</td><td>{:.2}</td><td>{:.2}</td><td>{:+.2}</td>\
                 <td>{:+.2}</td><td>{:.2} → {:.2}</td><td>{:+.2}</td><td>{}</td></tr>",
                g.role.label(),
                esc(&g.name),
                if g.new { " <b>new</b>" } else { "" },
                g.base_self_ms,
                g.cand_self_ms,
                g.added_self_ms,
                g.added_wall_ms,
                g.base_per_frame_ms,
                g.cand_per_frame_ms,
                g.added_janky_ms,
                interval
            );
        }
        o.push_str("</tbody></table>");
    }
    for w in &r.warnings {
        let _ = write!(o, "<p class=\"note\">{}</p>", esc(w));
    }
    o.push_str("</section>\n");
    o
}
