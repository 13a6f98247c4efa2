//! The causes in text, Markdown and CSV: the top-causes table of a process, a frame's phase
//! timeline and primary cause.

use crate::analysis::causes::{CauseChain, CausesSummary, TopCause};

/// The top causes as table rows (the first is the header).
pub fn top_rows(c: &CausesSummary) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "#",
        "cause",
        "family",
        "total ms",
        "share",
        "frames",
        "primary in",
    ]
    .map(String::from)
    .to_vec()];
    for (i, t) in c.top_by_ms.iter().enumerate() {
        rows.push(vec![
            (i + 1).to_string(),
            t.label.to_string(),
            t.family.to_string(),
            format!("{:.1}", t.total_ms),
            format!("{:.1}%", t.share * 100.0),
            t.frames.to_string(),
            t.primary_frames.to_string(),
        ]);
    }
    rows
}

/// "top causes across 8 janky frames (8 explained, 412.0 ms):".
pub fn top_title(c: &CausesSummary) -> String {
    format!(
        "top causes across {} janky frames ({} explained, {:.1} ms of frame windows; most frames: {}):",
        c.janky_frames,
        c.explained_frames,
        c.explained_ms,
        c.top_by_frames
            .first()
            .map_or("-".to_string(), |t: &TopCause| format!(
                "{} in {}",
                t.label, t.frames
            ))
    )
}

/// "timeline: before doFrame 0.5 | UI thread 23.0 | RenderThread 2.0 | GPU/composition 1.0 ms".
pub fn timeline(c: &CauseChain) -> String {
    let parts: Vec<String> = c
        .phases
        .iter()
        .map(|p| format!("{} {:.1}", phase_label(p.phase), p.ms))
        .collect();
    format!("timeline: {} ms", parts.join(" | "))
}

pub fn phase_label(phase: &str) -> &str {
    match phase {
        "before_do_frame" => "before doFrame",
        "ui_thread" => "UI thread",
        "render_thread" => "RenderThread",
        "gpu_composition" => "GPU/composition",
        "no_frame_slices" => "no doFrame/DrawFrame",
        other => other,
    }
}

/// The CSV cells of a frame's primary cause: id, ms, and the window's ms.
pub fn primary_cells(c: Option<&CauseChain>) -> [String; 3] {
    match c {
        Some(c) => [
            c.primary
                .as_ref()
                .map_or(String::new(), |p| p.category.to_string()),
            c.primary
                .as_ref()
                .map_or(String::new(), |p| p.ms.to_string()),
            c.window.ms.to_string(),
        ],
        None => Default::default(),
    }
}
