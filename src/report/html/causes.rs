//! The causes in the HTML report: a cause breakdown bar per worst frame (its window split
//! by category, the parts adding up to the window) with the links and their evidence, and
//! the top-causes table of a process.

use std::fmt::Write;

use super::esc;
use super::svg::{self, Segment};
use crate::analysis::causes::{CauseChain, CausesSummary, Link};
use crate::report::causes_text::{phase_label, timeline};

/// Colours for a frame's categories, largest first.
const PALETTE: [&str; 10] = [
    "#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#6d4c41", "#ad1457",
    "#9e9d24", "#546e7a",
];
const REST: &str = "#bdbdbd";

/// The process's top causes across its janky frames.
pub fn top_table(c: &CausesSummary) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<details open><summary>Top causes across {} janky frame{} ({} with a cause chain, {:.1} ms of frame windows)</summary>\
         <table><thead><tr><th>#</th><th>cause</th><th>family</th><th>total ms</th><th>share</th><th>frames</th><th>primary in</th></tr></thead><tbody>",
        c.janky_frames,
        if c.janky_frames == 1 { "" } else { "s" },
        c.explained_frames,
        c.explained_ms
    );
    for (i, t) in c.top_by_ms.iter().enumerate() {
        let _ = write!(
            o,
            "<tr><td class=\"n\">{}</td><th>{}</th><td>{}</td><td class=\"n\">{:.2}</td><td class=\"n\">{:.1}%</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            i + 1,
            esc(t.label),
            esc(t.family),
            t.total_ms,
            t.share * 100.0,
            t.frames,
            t.primary_frames
        );
    }
    o.push_str("</tbody></table></details>");
    o
}

fn link_detail(l: &Link) -> String {
    let mut bits = Vec::new();
    if let Some(b) = &l.binder {
        if let Some(s) = &b.server {
            bits.push(format!(
                "server {} / {} ({})",
                s.process.as_deref().unwrap_or("?"),
                s.name.as_deref().unwrap_or("?"),
                s.tid
            ));
        }
        if let Some(m) = &b.method {
            bits.push(m.clone());
        }
        if let Some(st) = &b.server_states {
            bits.push(format!(
                "server running {:.1} / runnable {:.1} / sleeping {:.1} / D {:.1} ms",
                st.running_ms, st.runnable_ms, st.sleeping_ms, st.uninterruptible_ms
            ));
        }
    }
    if let Some(k) = &l.lock {
        if let Some(o) = &k.owner {
            bits.push(format!(
                "owner {} ({})",
                o.name.as_deref().unwrap_or("?"),
                o.tid
            ));
        }
        if let Some(m) = &k.blocking_method {
            bits.push(format!("at {m}"));
        }
        if let Some(s) = k.owner_slices.first() {
            bits.push(format!("owner in \"{}\"", s.name));
        }
    }
    if let Some(g) = &l.gc {
        if let Some(s) = &g.gc {
            bits.push(format!(
                "GC \"{}\" {:.1} ms (slice {})",
                s.name, s.ms, s.slice_id
            ));
        }
    }
    if let Some(c) = &l.cpu {
        if !c.cpus.is_empty() {
            bits.push(format!(
                "CPU {}{}{}",
                c.cpus
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                c.cluster.map_or(String::new(), |x| format!(" ({x})")),
                c.freq_khz
                    .map_or(String::new(), |f| format!(" at {:.2} GHz", f / 1e6))
            ));
        }
        for u in &c.ran_instead {
            bits.push(format!(
                "{} ({}) {:.1} ms",
                u.thread.name.as_deref().unwrap_or("?"),
                u.thread.process.as_deref().unwrap_or("?"),
                u.ms
            ));
        }
    }
    if let Some(i) = &l.io {
        if i.io_wait_ms > 0.0 {
            bits.push(format!("io_wait {:.1} ms", i.io_wait_ms));
        }
        for f in &i.blocked_functions {
            bits.push(format!("{} {:.1} ms", f.name, f.ms));
        }
    }
    if let Some(w) = &l.woken_by {
        for u in w {
            bits.push(format!(
                "woken by {} ({})",
                u.thread.name.as_deref().unwrap_or("?"),
                u.thread.process.as_deref().unwrap_or("?")
            ));
        }
    }
    if let Some(g) = &l.gpu {
        if let Some(x) = g.gpu_ms {
            bits.push(format!("FrameTracer GPU {x:.1} ms"));
        }
        if let Some(x) = g.surfaceflinger_ms {
            bits.push(format!("SurfaceFlinger latch-to-present {x:.1} ms"));
        }
    }
    bits.join("; ")
}

/// Most links listed per frame; the rest are summed in the bar and the category totals.
const MAX_LINKS: usize = 25;

/// A frame's cause breakdown: the bar, the sentence, the phase timeline and the links.
pub fn frame_section(c: &CauseChain, budget_ms: f64) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<div class=\"causes\"><b>Cause chain</b> <span class=\"meta\">window {} to {}, {:.2} ms</span><p>{}</p>",
        esc(c.window.from),
        esc(c.window.to),
        c.window.ms,
        esc(&c.sentence)
    );
    let mut segs: Vec<Segment> = c
        .by_category
        .iter()
        .take(PALETTE.len())
        .enumerate()
        .map(|(i, t)| Segment {
            label: t.label,
            ms: t.ms,
            colour: PALETTE[i],
        })
        .collect();
    let rest: f64 = c.by_category.iter().skip(PALETTE.len()).map(|t| t.ms).sum();
    if rest > 0.0 {
        segs.push(Segment {
            label: "other causes",
            ms: rest,
            colour: REST,
        });
    }
    let scale = c.window.ms.max(budget_ms * 1.1);
    o.push_str(&svg::stacked(&segs, scale, Some(budget_ms), 560.0));
    let items: Vec<(&str, String)> = segs
        .iter()
        .map(|s| (s.colour, format!("{} {:.2} ms", s.label, s.ms)))
        .collect();
    o.push_str(&svg::legend(items.iter().map(|(c, l)| (*c, l.as_str()))));
    let _ = write!(o, "<p class=\"meta\">{}</p>", esc(&timeline(c)));
    let mut links: Vec<&Link> = c.links.iter().collect();
    links.sort_by_key(|l| std::cmp::Reverse(l.dur_ns));
    let _ = write!(
        o,
        "<details><summary>{} link{} (evidence)</summary><table><thead><tr><th>phase</th><th>cause</th><th>ms</th><th>thread</th><th>slice</th><th>rule</th><th>evidence</th></tr></thead><tbody>",
        c.links.len(),
        if c.links.len() == 1 { "" } else { "s" }
    );
    for l in links.iter().take(MAX_LINKS) {
        let thread = l.thread.as_ref().map_or(String::new(), |t| {
            format!("{} ({})", t.name.as_deref().unwrap_or("?"), t.tid)
        });
        let slice = l.slice_id.map_or(String::new(), |id| {
            format!("{} \"{}\"", id, l.slice_name.as_deref().unwrap_or(""))
        });
        let _ = write!(
            o,
            "<tr><td>{}</td><th>{}</th><td class=\"n\">{:.2}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(phase_label(l.phase)),
            esc(l.label),
            l.ms,
            esc(&thread),
            esc(&slice),
            esc(&l.rule),
            esc(&link_detail(l))
        );
    }
    o.push_str("</tbody></table></details></div>");
    o
}
