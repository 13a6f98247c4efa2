//! gfxinfo CSV: one row per frame, or with --summary-only one per window.

use std::io::Write;

use anyhow::Result;

use crate::gfxinfo::jank_type::JankType;
use crate::gfxinfo::parser;
use crate::gfxinfo::replay::{self, FrameReport, ReplayOptions};
use crate::gfxinfo::summary::Counter;
use crate::report::csv_rows::writer;

fn cell<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// One row per replayed frame of every window.
pub fn write_frames(out: &mut dyn Write, dump: &parser::Dump, opts: &ReplayOptions) -> Result<()> {
    const HEADER: &[&str] = &[
        "window",
        "process",
        "pid",
        "line",
        "vsync_id",
        "intended_vsync_ns",
        "flags",
        "frame_interval_ns",
        "judged",
        "not_judged_reason",
        "counted",
        "janky",
        "janky_legacy",
        "jank_types",
        "triple_buffered",
        "davey",
        "total_duration_ns",
        "legacy_duration_ns",
        "deadline_ns",
        "fm_unknown_delay_ns",
        "fm_input_handling_ns",
        "fm_animation_ns",
        "fm_layout_measure_ns",
        "fm_draw_ns",
        "fm_sync_ns",
        "fm_command_issue_ns",
        "fm_swap_buffers_ns",
        "fm_total_ns",
        "fm_gpu_ns",
        "fm_deadline_ns",
        "js_ui_duration_ns",
        "js_jank_threshold_ns",
        "js_is_jank",
        "js_frame_overrun_ns",
    ];
    let mut w = writer(out);
    w.write_record(HEADER)?;
    for win in &dump.windows {
        let mut failed = None;
        replay::replay_window_each(win, opts, &mut |f| {
            if failed.is_none() {
                failed = w.write_record(frame_cells(win, &f)).err();
            }
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
    }
    w.flush()?;
    Ok(())
}

fn frame_cells(w: &parser::WindowDump, f: &FrameReport) -> Vec<String> {
    let v = f.verdict.as_ref();
    let m = f.metrics.as_ref();
    let j = f.jank_stats.as_ref();
    vec![
        w.name.clone(),
        String::from(w.process.as_deref().unwrap_or("")),
        cell(w.pid),
        f.line.to_string(),
        cell(f.vsync_id),
        f.intended_vsync_ns.to_string(),
        f.flags.to_string(),
        f.frame_interval_ns.to_string(),
        v.is_some().to_string(),
        f.not_judged.map(|n| n.key()).unwrap_or("").to_string(),
        v.is_some_and(|v| v.counted).to_string(),
        v.is_some_and(|v| v.janky).to_string(),
        v.is_some_and(|v| v.janky_legacy()).to_string(),
        v.map(|v| jank_type_list_raw(&v.jank_types))
            .unwrap_or_default(),
        v.is_some_and(|v| v.triple_buffered).to_string(),
        v.is_some_and(|v| v.davey).to_string(),
        cell(v.filter(|v| v.counted).map(|v| v.total_duration_ns)),
        cell(v.map(|v| v.legacy.duration_ns)),
        cell(v.and_then(|v| v.deadline_ns)),
        cell(m.map(|m| m.unknown_delay_ns)),
        cell(m.map(|m| m.input_handling_ns)),
        cell(m.map(|m| m.animation_ns)),
        cell(m.map(|m| m.layout_measure_ns)),
        cell(m.map(|m| m.draw_ns)),
        cell(m.map(|m| m.sync_ns)),
        cell(m.map(|m| m.command_issue_ns)),
        cell(m.map(|m| m.swap_buffers_ns)),
        cell(m.map(|m| m.total_ns)),
        cell(m.and_then(|m| m.gpu_ns)),
        cell(m.and_then(|m| m.deadline_ns)),
        cell(j.map(|j| j.ui_duration_ns)),
        cell(j.map(|j| j.jank_threshold_ns)),
        cell(j.map(|j| j.is_jank)),
        cell(j.and_then(|j| j.frame_overrun_ns)),
    ]
}

/// Every report, `;`-separated (repeats kept, so counts add up to the summary).
fn jank_type_list_raw(types: &[JankType]) -> String {
    types.iter().map(|t| t.key()).collect::<Vec<_>>().join(";")
}

/// One row per window: the recomputed counters, then the printed ones.
pub fn write_summary(out: &mut dyn Write, dump: &parser::Dump, opts: &ReplayOptions) -> Result<()> {
    let mut header: Vec<String> = ["window", "process", "pid", "rows", "judged_frames"]
        .map(String::from)
        .to_vec();
    header.extend(Counter::all().into_iter().map(|c| c.key().to_string()));
    header.extend(
        Counter::all()
            .into_iter()
            .map(|c| format!("hwui_{}", c.key())),
    );
    header.push("hwui_summary_covers_rows".into());
    header.push("problem".into());
    let mut csv = writer(out);
    csv.write_record(&header)?;
    for win in &dump.windows {
        let w = &replay::replay_window_each(win, opts, &mut |_| {});
        let mut cells = vec![
            w.window.clone(),
            String::from(w.process.as_deref().unwrap_or("")),
            cell(w.pid),
            w.rows.to_string(),
            w.judged.to_string(),
        ];
        for c in Counter::all() {
            cells.push(cell(w.summary.as_ref().map(|s| s.get(c))));
        }
        for c in Counter::all() {
            cells.push(cell(w.printed.as_ref().and_then(|p| p.get(c))));
        }
        cells.push(w.printed_covers_rows.to_string());
        cells.push(String::from(w.problem.as_deref().unwrap_or("")));
        csv.write_record(&cells)?;
    }
    csv.flush()?;
    Ok(())
}
