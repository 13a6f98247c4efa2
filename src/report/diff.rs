//! `frameprobe diff` as a table (people, fitted to the terminal) and as Markdown (a pull
//! request comment). JSON is the report's serde form.

use std::fmt::Write;

use super::gate::{md, md_code};
use super::grid;
use super::shorten::{fit, shorten_middle};
use crate::diff::growth::{GrewBy, GrownSlice};
use crate::diff::summary::{Change, InteractionSummary};
use crate::diff::{DiffReport, InteractionDiff};

/// Two decimals; whole numbers (frame counts) without them.
fn num(v: Option<f64>) -> String {
    match v {
        None => "n/a".into(),
        Some(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Some(x) => format!("{x:.2}"),
    }
}

fn signed(v: Option<f64>) -> String {
    match v {
        None => "n/a".into(),
        Some(x) if x.fract() == 0.0 => format!("{x:+.0}"),
        Some(x) => format!("{x:+.2}"),
    }
}

/// Frame pairs a table lists (JSON has them all).
const TABLE_PAIRS: usize = 10;

/// `frames 30 → 30, janky 3 → 3, frame_duration_ms P90 11.54 → 11.72`.
fn one_line(s: &InteractionSummary) -> String {
    let arrow = |c: &Change| format!("{} → {}", num(c.base), num(c.cand));
    let mut out = format!("frames {}, janky {}", arrow(&s.frames), arrow(&s.janky));
    if let Some(m) = s.metrics.first() {
        let _ = write!(out, ", {} P90 {}", m.metric, arrow(&m.p90));
    }
    out
}

fn change_cells(c: &Change) -> [String; 3] {
    [num(c.base), num(c.cand), signed(c.delta)]
}

/// The rows of an interaction's numbers: frames, janky frames (frameprobe's and each
/// definition's that flags a frame on either side), then P50/P90/P99 of each metric.
fn summary_rows(s: &InteractionSummary) -> Vec<(String, Change)> {
    let mut rows = vec![
        ("frames".to_string(), s.frames),
        ("janky frames".to_string(), s.janky),
    ];
    for j in &s.janky_by_definition {
        if j.frames.base.unwrap_or(0.0) > 0.0 || j.frames.cand.unwrap_or(0.0) > 0.0 {
            rows.push((format!("  flagged by {}", j.definition.key()), j.frames));
        }
    }
    for m in &s.metrics {
        for (p, c) in [("P50", m.p50), ("P90", m.p90), ("P99", m.p99)] {
            rows.push((format!("{} {p}", m.metric), c));
        }
    }
    rows
}

/// `[+0.12, +0.34]`: a claim's interval, `-` without one.
pub fn interval(g: &GrownSlice) -> String {
    match (g.ci_low_ms, g.ci_high_ms) {
        (Some(lo), Some(hi)) => format!("[{lo:+.2}, {hi:+.2}]"),
        _ => "-".into(),
    }
}

/// What made the claim, in a word.
pub fn grew_by(g: &GrownSlice) -> &'static str {
    match g.grew_by {
        GrewBy::SelfTime => "self",
        GrewBy::WallTime => "wall",
        GrewBy::New => "new",
    }
}

fn title(i: &InteractionDiff, cap: Option<usize>) -> String {
    let d = i.key.describe();
    cap.map_or(d.clone(), |c| shorten_middle(&d, c))
}

fn headline(r: &DiffReport) -> String {
    let changed = r.changed().count();
    format!(
        "frameprobe diff: baseline {} trace(s) vs candidate {} trace(s); {} interaction(s) matched, {} with slices that grew",
        r.baseline.traces.len(),
        r.candidate.traces.len(),
        r.interactions.len(),
        changed
    )
}

fn rule_line(r: &DiffReport) -> String {
    let t = &r.thresholds;
    format!(
        "a slice grew when its mean time per frame rose by >= {} ms and >= {}% with the {}% bootstrap interval above 0 ({} resamples, seed {:#x}); ranked by self time added in janky candidate frames",
        t.min_abs_ms,
        t.min_rel_pct,
        t.confidence * 100.0,
        t.resamples,
        t.seed
    )
}

fn table_with(r: &DiffReport, cap: Option<usize>) -> String {
    let short = |s: &str| cap.map_or(s.to_string(), |c| shorten_middle(s, c));
    let mut out = String::new();
    let _ = writeln!(out, "{}\n{}\n", headline(r), rule_line(r));
    for i in &r.interactions {
        if !i.changed() {
            let _ = writeln!(
                out,
                "{} — no slice grew past the noise ({})\n",
                title(i, cap),
                one_line(&i.summary)
            );
            continue;
        }
        let _ = writeln!(out, "{} — CHANGED", title(i, cap));
        let mut rows = vec![["", "baseline", "candidate", "delta"]
            .map(String::from)
            .to_vec()];
        for (name, c) in summary_rows(&i.summary) {
            let [b, cd, d] = change_cells(&c);
            rows.push(vec![name, b, cd, d]);
        }
        let _ = writeln!(out, "{}", grid(rows));
        if i.changed() {
            let mut rows = vec![[
                "role",
                "slice",
                "by",
                "self ms base",
                "cand",
                "added",
                "wall added",
                "per frame base",
                "cand",
                "janky added",
                "interval",
            ]
            .map(String::from)
            .to_vec()];
            for g in &i.grown_slices {
                let name = if g.new {
                    format!("{} (new)", g.name)
                } else {
                    g.name.clone()
                };
                rows.push(vec![
                    g.role.label().to_string(),
                    short(&name),
                    grew_by(g).to_string(),
                    format!("{:.2}", g.base_self_ms),
                    format!("{:.2}", g.cand_self_ms),
                    format!("{:+.2}", g.added_self_ms),
                    format!("{:+.2}", g.added_wall_ms),
                    format!("{:.2}", g.base_per_frame_ms),
                    format!("{:.2}", g.cand_per_frame_ms),
                    format!("{:+.2}", g.added_janky_ms),
                    interval(g),
                ]);
            }
            let _ = writeln!(out, "slices that grew:\n{}", grid(rows));
            if !i.frame_pairs.is_empty() {
                let mut rows = vec![[
                    "base frame ts",
                    "cand frame ts",
                    "janky",
                    "largest grown slice",
                    "added ms",
                    "base slice ts",
                    "cand slice ts",
                ]
                .map(String::from)
                .to_vec()];
                let mut shown: Vec<_> = i.frame_pairs.iter().collect();
                shown.sort_by(|a, b| b.added_ms.total_cmp(&a.added_ms));
                shown.truncate(TABLE_PAIRS);
                shown.sort_by_key(|p| p.cand_frame_ts);
                for p in shown {
                    let ts = |t: Option<i64>| t.map_or("-".into(), |t| t.to_string());
                    rows.push(vec![
                        ts(p.base_frame_ts),
                        ts(p.cand_frame_ts),
                        if p.cand_janky { "yes" } else { "no" }.into(),
                        short(&format!("{}: {}", p.role.label(), p.name)),
                        format!("{:+.2}", p.added_ms),
                        ts(p.base_slice_ts),
                        ts(p.cand_slice_ts),
                    ]);
                }
                let more = i.frame_pairs.len().saturating_sub(TABLE_PAIRS);
                let _ = writeln!(
                    out,
                    "frame pairs, largest grown slice (first iteration of each side{}):\n{}",
                    if more > 0 {
                        format!("; the {TABLE_PAIRS} largest, {more} more in --format json")
                    } else {
                        String::new()
                    },
                    grid(rows)
                );
            }
        }
        out.push('\n');
    }
    for (what, keys) in [
        ("baseline", &r.only_in_baseline),
        ("candidate", &r.only_in_candidate),
    ] {
        for k in keys {
            let d = k.describe();
            let _ = writeln!(out, "only in the {what}: {}", short(&d));
        }
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The report as tables with every name whole (`--wide`).
pub fn diff_table_whole(r: &DiffReport) -> String {
    table_with(r, None)
}

/// The report as tables whose names fit `width` (None: a file or pipe).
pub fn diff_table(r: &DiffReport, width: Option<usize>) -> String {
    let longest = r
        .interactions
        .iter()
        .flat_map(|i| {
            std::iter::once(i.key.describe().chars().count())
                .chain(i.grown_slices.iter().map(|g| g.name.chars().count() + 6))
        })
        .max()
        .unwrap_or(0);
    fit(width, longest, |cap| table_with(r, cap))
}

fn md_key(i: &InteractionDiff) -> String {
    format!(
        "{} {} {} #{}",
        md_code(&i.key.process),
        md(&i.key.source),
        md_code(&i.key.label),
        i.key.ordinal
    )
}

/// The report as a pull request comment.
pub fn diff_markdown(r: &DiffReport) -> String {
    let mut out = String::new();
    let changed = r.changed().count();
    let icon = if changed == 0 { "✅" } else { "🔎" };
    let _ = writeln!(
        out,
        "## {icon} frameprobe diff: {changed} of {} interaction(s) with slices that grew\n",
        r.interactions.len()
    );
    let _ = writeln!(out, "{}\n", md(&rule_line(r)));
    let _ = writeln!(
        out,
        "| interaction | frames | janky | frame duration P90 (ms) | top grown slice |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|");
    for i in &r.interactions {
        let s = &i.summary;
        let p90 = s.metrics.first().map(|m| m.p90);
        let top = i.grown_slices.first().map_or("—".to_string(), |g| {
            format!(
                "{} {} {:+.2} ms/frame",
                g.role.label(),
                md_code(&g.name),
                g.added_per_frame_ms
            )
        });
        let _ = writeln!(
            out,
            "| {} | {} → {} | {} → {} | {} → {} | {} |",
            md_key(i),
            num(s.frames.base),
            num(s.frames.cand),
            num(s.janky.base),
            num(s.janky.cand),
            num(p90.and_then(|c| c.base)),
            num(p90.and_then(|c| c.cand)),
            top
        );
    }
    for i in r.changed() {
        let _ = writeln!(out, "\n### {}\n", md_key(i));
        let _ = writeln!(out, "| role | slice | by | self ms base → cand | added | wall added | per frame base → cand | janky added | interval |");
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
        for g in &i.grown_slices {
            let new = if g.new { " **new**" } else { "" };
            let _ = writeln!(
                out,
                "| {} | {}{new} | {} | {:.2} → {:.2} | {:+.2} | {:+.2} | {:.2} → {:.2} | {:+.2} | {} |",
                g.role.label(),
                md_code(&g.name),
                grew_by(g),
                g.base_self_ms,
                g.cand_self_ms,
                g.added_self_ms,
                g.added_wall_ms,
                g.base_per_frame_ms,
                g.cand_per_frame_ms,
                g.added_janky_ms,
                interval(g)
            );
        }
    }
    for (what, keys) in [
        ("baseline", &r.only_in_baseline),
        ("candidate", &r.only_in_candidate),
    ] {
        for k in keys {
            let _ = writeln!(
                out,
                "\nOnly in the {what}: {} {} {} #{}",
                md_code(&k.process),
                md(&k.source),
                md_code(&k.label),
                k.ordinal
            );
        }
    }
    out
}
