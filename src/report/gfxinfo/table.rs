//! The gfxinfo table: per window the counters beside HWUI's printed ones, then its frames.

use std::io::Write;

use anyhow::Result;

use super::{interval_text, jank_type_list, ms, opt_ms, printed_matches};
use crate::gfxinfo::parser::{self, SummarySource};
use crate::gfxinfo::replay::{self, FrameReport, ReplayOptions};
use crate::gfxinfo::summary::Counter;
use crate::report::grid as table;
use crate::report::visible::visible;

pub fn write_table(
    out: &mut dyn Write,
    dump: &parser::Dump,
    opts: &ReplayOptions,
    summary_only: bool,
) -> Result<()> {
    for (i, win) in dump.windows.iter().enumerate() {
        let w = &replay::replay_window_each(win, opts, &mut |_| {});
        if i > 0 {
            writeln!(out)?;
        }
        // Names from the dump reach the terminal escaped, like every table's.
        writeln!(out, "Window: {}", visible(&w.window))?;
        let process = match (&w.process, w.pid) {
            (Some(p), Some(pid)) => format!("process {} (pid {pid}); ", visible(p)),
            (Some(p), None) => format!("process {}; ", visible(p)),
            _ => String::new(),
        };
        let not_judged = w.frame_count - w.judged;
        writeln!(
            out,
            "{process}PROFILEDATA at line {}, {} columns, {} rows ({} judged, {} never finished by HWUI{})",
            w.block_line,
            w.column_count.map_or("?".into(), |c| c.to_string()),
            w.rows,
            w.judged,
            not_judged,
            if w.bad_rows > 0 {
                format!(", {} unreadable", w.bad_rows)
            } else {
                String::new()
            }
        )?;
        if let Some(problem) = &w.problem {
            writeln!(out, "not replayed: {problem}")?;
            continue;
        }
        writeln!(out, "frame interval: {}", interval_text(w))?;
        let Some(s) = &w.summary else { continue };

        let show_printed = w.printed_covers_rows && w.printed.is_some();
        let mut rows = vec![if show_printed {
            vec!["counter".into(), "frameprobe".into(), "HWUI printed".into()]
        } else {
            vec!["counter".into(), "frameprobe".into()]
        }];
        for c in Counter::all() {
            let mut r = vec![c.label(), s.get(c).to_string()];
            if show_printed {
                let p = w.printed.as_ref().and_then(|p| p.get(c));
                r.push(match p {
                    Some(v) if v == s.get(c) => v.to_string(),
                    Some(v) => format!("{v} (differs)"),
                    None => "-".into(),
                });
            }
            rows.push(r);
        }
        writeln!(out, "{}", table(rows))?;
        match (&w.printed, printed_matches(w)) {
            (Some(_), Some(true)) => writeln!(
                out,
                "HWUI's printed summary ({}) agrees on every counter it prints.",
                summary_source_text(w.printed_source)
            )?,
            (Some(_), Some(false)) => writeln!(
                out,
                "HWUI's printed summary ({}) differs; see \"(differs)\".",
                summary_source_text(w.printed_source)
            )?,
            (Some(p), None) => writeln!(
                out,
                "HWUI's printed summary counts {} frames but only {} rows remain in the ring \
                 buffer, so it is not comparable and not shown.",
                p.total_frames.map_or("?".into(), |t| t.to_string()),
                w.rows
            )?,
            (None, _) => writeln!(out, "HWUI printed no summary for this window.")?,
        }

        if summary_only || w.frame_count == 0 {
            continue;
        }
        let header = [
            "line",
            "vsync_id",
            "total ms",
            "janky",
            "legacy",
            "jank types",
            "unknown",
            "input",
            "anim",
            "layout",
            "draw",
            "sync",
            "issue",
            "swap",
            "gpu",
            "deadline",
            "overrun",
            "JankStats",
        ]
        .map(String::from);
        // Two passes over the frames: column widths, then the rows.
        let mut grid = crate::report::StreamGrid::new(&header);
        replay::replay_window_each(win, opts, &mut |f| grid.measure(&frame_table_row(&f)));
        grid.write_header(out)?;
        let mut failed = None;
        replay::replay_window_each(win, opts, &mut |f| {
            if failed.is_none() {
                failed = grid.write_row(out, &frame_table_row(&f)).err();
            }
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
    }
    Ok(())
}

fn summary_source_text(s: Option<SummarySource>) -> &'static str {
    match s {
        Some(SummarySource::Process) => "the process summary",
        _ => "the window summary",
    }
}

fn frame_table_row(f: &FrameReport) -> Vec<String> {
    let yes = |b: bool| if b { "yes" } else { "" }.to_string();
    let mut r = vec![
        f.line.to_string(),
        f.vsync_id.map_or("-".into(), |v| v.to_string()),
    ];
    let Some(v) = &f.verdict else {
        r.push("-".into());
        r.push(String::new());
        r.push(String::new());
        r.push(format!(
            "not judged: {}",
            f.not_judged.map_or("", |n| n.describe())
        ));
        r.extend(std::iter::repeat_n("-".to_string(), 12));
        return r;
    };
    r.push(if v.counted {
        ms(v.total_duration_ns)
    } else {
        "0 (not counted)".into()
    });
    r.push(yes(v.janky));
    r.push(yes(v.janky_legacy()));
    let mut types = jank_type_list(&v.jank_types, ", ");
    if v.exempt {
        types = "exempt (SurfaceCanvas)".into();
    }
    if v.davey {
        types.push_str(", Davey");
    }
    r.push(types);
    match &f.metrics {
        Some(m) => {
            for ns in [
                m.unknown_delay_ns,
                m.input_handling_ns,
                m.animation_ns,
                m.layout_measure_ns,
                m.draw_ns,
                m.sync_ns,
                m.command_issue_ns,
                m.swap_buffers_ns,
            ] {
                r.push(ms(ns));
            }
            r.push(opt_ms(m.gpu_ns));
            r.push(opt_ms(m.deadline_ns));
        }
        None => r.extend(std::iter::repeat_n("-".to_string(), 10)),
    }
    match &f.jank_stats {
        Some(j) => {
            r.push(opt_ms(j.frame_overrun_ns));
            r.push(if j.is_jank { "jank" } else { "" }.into());
        }
        None => r.extend(["-".to_string(), "-".to_string()]),
    }
    r
}
