//! `frameprobe gfxinfo FILE`: HWUI JankTracker verdicts recomputed from framestats dumps.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde_json::{json, Value};

use super::output::{csv_field, Format};
use crate::gfxinfo::jank_tracker::{dequeue_forgiveness_ns, FrameVerdict};
use crate::gfxinfo::jank_type::JankType;
use crate::gfxinfo::parser::{self, PrintedSummary, StartIntervalOrder, SummarySource};
use crate::gfxinfo::replay::{self, FrameReport, IntervalSource, ReplayOptions, WindowReport};
use crate::gfxinfo::summary::{Counter, Summary};

/// The JSON contract's version tag.
pub const JSON_SCHEMA: &str = "frameprobe.gfxinfo/v1";

#[derive(clap::Args)]
pub struct GfxinfoArgs {
    /// A `dumpsys gfxinfo [<pkg>] framestats` dump (`-` for standard input). UTF-8 or
    /// UTF-16 (as written by a PowerShell redirect), LF or CRLF.
    pub file: PathBuf,
    /// table for people, csv (one row per frame; with --summary-only one per window) or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// App vsync offset in ns. With --sf-offset-ns it turns on the legacy path's
    /// dequeueBuffer forgiveness (off otherwise: a dump does not record the offsets).
    #[arg(long, requires = "sf_offset_ns", allow_negative_numbers = true)]
    pub app_offset_ns: Option<i64>,
    /// SurfaceFlinger vsync offset in ns (see --app-offset-ns).
    #[arg(long, requires = "app_offset_ns", allow_negative_numbers = true)]
    pub sf_offset_ns: Option<i64>,
    /// Frame interval for dumps without a FrameInterval column (Android 6–11); inferred
    /// from the IntendedVsync spacing when absent.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
    pub frame_interval_ns: Option<i64>,
    /// Only the per-window summaries: no frame rows in table and CSV, empty `frames` in JSON.
    #[arg(long)]
    pub summary_only: bool,
}

pub fn run(a: GfxinfoArgs) -> Result<ExitCode> {
    let bytes = if a.file.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("reading the dump from standard input")?;
        b
    } else {
        std::fs::read(&a.file).map_err(|e| {
            anyhow::anyhow!(
                "cannot read {}: {}",
                a.file.display(),
                crate::trace::reader::io_reason(&e)
            )
        })?
    };
    // The parsed rows own their values: the text is dropped before replaying.
    let dump = {
        let text = parser::decode_owned(bytes);
        parser::parse(&text).with_context(|| format!("{}", a.file.display()))?
    };
    let warnings: Vec<String> = dump.diagnostics.iter().map(|d| d.to_string()).collect();
    super::report_warnings(&a.file, &warnings);

    let forgiveness = match (a.app_offset_ns, a.sf_offset_ns) {
        (Some(app), Some(sf)) => dequeue_forgiveness_ns(app, sf),
        _ => 0,
    };
    let opts = ReplayOptions {
        dequeue_forgiveness_ns: forgiveness,
        frame_interval_ns: a.frame_interval_ns,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // A closed pipe (`| head`) is handled by cli::main.
    write_output(&mut out, &a, &dump, &opts)?;
    Ok(ExitCode::SUCCESS)
}

/// Every format streams: a window is replayed once for its summary and again to write its
/// frames one at a time, so a dump of any size holds one frame's report at a time.
fn write_output(
    out: &mut dyn Write,
    a: &GfxinfoArgs,
    dump: &parser::Dump,
    opts: &ReplayOptions,
) -> Result<()> {
    match a.format {
        Format::Table => write_table(out, dump, opts, a.summary_only)?,
        Format::Csv => {
            if a.summary_only {
                write_summary_csv(out, dump, opts)?
            } else {
                write_frames_csv(out, dump, opts)?
            }
        }
        Format::Json => {
            let doc = json!({
                "schema": JSON_SCHEMA,
                "metric_version": crate::analysis::definitions::METRIC_VERSION,
                "file": a.file.display().to_string(),
                "options": {
                    "app_offset_ns": a.app_offset_ns,
                    "sf_offset_ns": a.sf_offset_ns,
                    "dequeue_forgiveness_ns": opts.dequeue_forgiveness_ns,
                    "frame_interval_ns": a.frame_interval_ns,
                },
                "warnings": dump.diagnostics.iter().map(|d| json!({
                    "line": d.line,
                    "message": d.message,
                })).collect::<Vec<_>>(),
                "windows": [],
            });
            json_stream::object(out, &doc, 0, "windows", &mut |out, indent| {
                json_stream::array(out, indent, dump.windows.iter(), &mut |out, indent, win| {
                    let w = replay::replay_window_each(win, opts, &mut |_| {});
                    let head = window_json(&w);
                    json_stream::object(out, &head, indent, "frames", &mut |out, indent| {
                        if a.summary_only {
                            return json_stream::array(
                                out,
                                indent,
                                std::iter::empty::<()>(),
                                &mut |_, _, _| Ok(()),
                            );
                        }
                        json_stream::each_frame(out, indent, win, opts, &frame_json)
                    })
                })
            })?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(())
}

// ----- shared helpers ------------------------------------------------------------------

fn ms(ns: i64) -> String {
    format!("{:.2}", ns as f64 / 1e6)
}

fn opt_ms(ns: Option<i64>) -> String {
    ns.map(ms).unwrap_or_else(|| "-".into())
}

/// Jank type keys in report order, repeats folded (`high_input_latency×2`).
fn jank_type_list(types: &[JankType], sep: &str) -> String {
    let mut seen: Vec<(JankType, usize)> = Vec::new();
    for t in types {
        match seen.iter_mut().find(|(x, _)| x == t) {
            Some((_, n)) => *n += 1,
            None => seen.push((*t, 1)),
        }
    }
    seen.iter()
        .map(|(t, n)| {
            if *n > 1 {
                format!("{}×{n}", t.key())
            } else {
                t.key().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(sep)
}

fn judged(w: &WindowReport) -> usize {
    w.judged
}

fn interval_text(w: &WindowReport) -> String {
    match w.interval {
        Some(IntervalSource::Column(StartIntervalOrder::Swapped { decided_by_data })) => format!(
            "each row's FrameInterval, read from the column headed \"FrameStartTime\" \
             (Android 12–14 header pitfall; {})",
            if decided_by_data {
                "seen in the data"
            } else {
                "no rows: enum order"
            }
        ),
        Some(IntervalSource::Column(_)) => "each row's FrameInterval column".into(),
        Some(IntervalSource::Given(ns)) => format!("{} ms (--frame-interval-ns)", ms(ns)),
        Some(IntervalSource::Inferred(ns)) => {
            format!("{} ms, inferred from IntendedVsync spacing", ms(ns))
        }
        Some(IntervalSource::Default(ns)) => format!("{} ms (default: too few rows)", ms(ns)),
        None => "-".into(),
    }
}

fn printed_matches(w: &WindowReport) -> Option<bool> {
    let (Some(s), Some(p)) = (&w.summary, &w.printed) else {
        return None;
    };
    if !w.printed_covers_rows {
        return None;
    }
    Some(
        Counter::all()
            .into_iter()
            .all(|c| p.get(c).is_none_or(|v| v == s.get(c))),
    )
}

// ----- table -----------------------------------------------------------------------------

use crate::report::grid as table;
use crate::report::visible::visible;

fn write_table(
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
        let not_judged = w.frame_count - judged(w);
        writeln!(
            out,
            "{process}PROFILEDATA at line {}, {} columns, {} rows ({} judged, {} never finished by HWUI{})",
            w.block_line,
            w.column_count.map_or("?".into(), |c| c.to_string()),
            w.rows,
            judged(w),
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

// ----- JSON ------------------------------------------------------------------------------

fn summary_json(s: &Summary) -> Value {
    let mut m = serde_json::Map::new();
    for c in Counter::all() {
        m.insert(c.key().into(), s.get(c).into());
    }
    for (i, key) in ["gpu_p50_ms", "gpu_p90_ms", "gpu_p95_ms", "gpu_p99_ms"]
        .iter()
        .enumerate()
    {
        m.insert((*key).into(), s.gpu_percentiles_ms[i].into());
    }
    let nonzero = |h: &[crate::gfxinfo::profile_data::HistogramEntry]| -> Value {
        h.iter()
            .filter(|e| e.frame_count > 0)
            .map(|e| json!([e.render_time_ms, e.frame_count]))
            .collect::<Vec<_>>()
            .into()
    };
    m.insert("histogram".into(), nonzero(&s.histogram));
    m.insert("gpu_histogram".into(), nonzero(&s.gpu_histogram));
    Value::Object(m)
}

fn printed_json(p: &PrintedSummary) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("line".into(), p.line.into());
    m.insert("stats_since_ns".into(), p.stats_since_ns.into());
    m.insert("filtered".into(), p.filtered.into());
    for c in Counter::all() {
        m.insert(c.key().into(), p.get(c).into());
    }
    for (i, key) in ["gpu_p50_ms", "gpu_p90_ms", "gpu_p95_ms", "gpu_p99_ms"]
        .iter()
        .enumerate()
    {
        m.insert((*key).into(), p.gpu_percentiles_ms[i].into());
    }
    let nonzero = |h: &Option<Vec<(u32, u32)>>| -> Value {
        match h {
            Some(h) => h
                .iter()
                .filter(|e| e.1 > 0)
                .map(|e| json!([e.0, e.1]))
                .collect::<Vec<_>>()
                .into(),
            None => Value::Null,
        }
    };
    m.insert("histogram".into(), nonzero(&p.histogram));
    m.insert("gpu_histogram".into(), nonzero(&p.gpu_histogram));
    Value::Object(m)
}

fn interval_json(w: &WindowReport) -> Value {
    match w.interval {
        Some(IntervalSource::Column(order)) => json!({
            "source": "column",
            "ns": null,
            "header_pitfall": matches!(order, StartIntervalOrder::Swapped { .. }),
            "decided_by_data": match order {
                StartIntervalOrder::Swapped { decided_by_data }
                | StartIntervalOrder::AsNamed { decided_by_data } => Some(decided_by_data),
                StartIntervalOrder::NotApplicable => None,
            },
        }),
        Some(IntervalSource::Given(ns)) => json!({"source": "given", "ns": ns}),
        Some(IntervalSource::Inferred(ns)) => json!({"source": "inferred", "ns": ns}),
        Some(IntervalSource::Default(ns)) => json!({"source": "default", "ns": ns}),
        None => Value::Null,
    }
}

fn verdict_json(v: &FrameVerdict) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert("counted".into(), v.counted.into());
    m.insert("janky".into(), v.janky.into());
    m.insert("janky_legacy".into(), v.janky_legacy().into());
    m.insert(
        "jank_types".into(),
        v.jank_types
            .iter()
            .map(|t| t.key())
            .collect::<Vec<_>>()
            .into(),
    );
    m.insert(
        "reasons".into(),
        v.causes
            .iter()
            .filter(|c| c.fired)
            .map(|c| {
                json!({
                    "jank_type": c.jank_type.key(),
                    "duration_ns": c.duration_ns,
                    "threshold_ns": c.threshold_ns,
                })
            })
            .collect::<Vec<_>>()
            .into(),
    );
    m.insert("exempt".into(), v.exempt.into());
    m.insert("triple_buffered".into(), v.triple_buffered.into());
    m.insert(
        "triple_buffered_legacy".into(),
        v.legacy.triple_buffered().into(),
    );
    m.insert("davey".into(), v.davey.into());
    m.insert(
        "total_duration_ns".into(),
        if v.counted {
            v.total_duration_ns.into()
        } else {
            Value::Null
        },
    );
    m.insert("legacy_duration_ns".into(), v.legacy.duration_ns.into());
    m.insert("dequeue_forgiven_ns".into(), v.legacy.forgiven_ns.into());
    m.insert("deadline_ns".into(), v.deadline_ns.into());
    m.insert("gpu_draw_time_ns".into(), v.gpu_draw_time_ns.into());
    m
}

fn frame_json(f: &FrameReport) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("line".into(), f.line.into());
    m.insert("vsync_id".into(), f.vsync_id.into());
    m.insert("intended_vsync_ns".into(), f.intended_vsync_ns.into());
    m.insert("flags".into(), f.flags.into());
    m.insert("frame_interval_ns".into(), f.frame_interval_ns.into());
    m.insert("judged".into(), f.verdict.is_some().into());
    m.insert(
        "not_judged_reason".into(),
        f.not_judged.map(|n| n.key()).into(),
    );
    match &f.verdict {
        Some(v) => m.extend(verdict_json(v)),
        None => {
            m.insert("counted".into(), false.into());
            m.insert("janky".into(), false.into());
            m.insert("janky_legacy".into(), false.into());
            m.insert("jank_types".into(), json!([]));
            m.insert("reasons".into(), json!([]));
        }
    }
    m.insert(
        "frame_metrics".into(),
        match &f.metrics {
            Some(x) => json!({
                "unknown_delay_ns": x.unknown_delay_ns,
                "input_handling_ns": x.input_handling_ns,
                "animation_ns": x.animation_ns,
                "layout_measure_ns": x.layout_measure_ns,
                "draw_ns": x.draw_ns,
                "sync_ns": x.sync_ns,
                "command_issue_ns": x.command_issue_ns,
                "swap_buffers_ns": x.swap_buffers_ns,
                "total_ns": x.total_ns,
                "gpu_ns": x.gpu_ns,
                "deadline_ns": x.deadline_ns,
                "first_draw_frame": x.first_draw_frame,
            }),
            None => Value::Null,
        },
    );
    m.insert(
        "jank_stats".into(),
        match &f.jank_stats {
            Some(j) => json!({
                "ui_duration_ns": j.ui_duration_ns,
                "jank_threshold_ns": j.jank_threshold_ns,
                "is_jank": j.is_jank,
                "frame_overrun_ns": j.frame_overrun_ns,
            }),
            None => Value::Null,
        },
    );
    Value::Object(m)
}

/// A window without its frames (streamed into `"frames"` by the caller).
fn window_json(w: &WindowReport) -> Value {
    json!({
        "window": w.window,
        "process": w.process,
        "pid": w.pid,
        "profiledata_line": w.block_line,
        "columns": w.column_count,
        "rows": w.rows,
        "bad_rows": w.bad_rows,
        "judged_frames": judged(w),
        "frame_interval": interval_json(w),
        "problem": w.problem,
        "summary": w.summary.as_ref().map(summary_json),
        "hwui_summary": w.printed.as_ref().map(printed_json),
        "hwui_summary_source": w.printed_source.map(|s| match s {
            SummarySource::Window => "window",
            SummarySource::Process => "process",
        }),
        "hwui_summary_covers_rows": w.printed_covers_rows,
        "hwui_summary_matches": printed_matches(w),
        "frames": [],
    })
}

// ----- CSV -------------------------------------------------------------------------------

fn cell<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn write_frames_csv(out: &mut dyn Write, dump: &parser::Dump, opts: &ReplayOptions) -> Result<()> {
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
    writeln!(out, "{}", HEADER.join(","))?;
    for win in &dump.windows {
        let mut failed = None;
        replay::replay_window_each(win, opts, &mut |f| {
            if failed.is_none() {
                failed = write_frame_csv(out, win, &f).err();
            }
        });
        if let Some(e) = failed {
            return Err(e.into());
        }
    }
    Ok(())
}

fn write_frame_csv(
    out: &mut dyn Write,
    w: &parser::WindowDump,
    f: &FrameReport,
) -> std::io::Result<()> {
    let window = &w.name;
    {
        {
            let v = f.verdict.as_ref();
            let m = f.metrics.as_ref();
            let j = f.jank_stats.as_ref();
            let cells: Vec<String> = vec![
                csv_field(window),
                csv_field(w.process.as_deref().unwrap_or("")),
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
                csv_field(
                    &v.map(|v| jank_type_list_raw(&v.jank_types))
                        .unwrap_or_default(),
                ),
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
            ];
            writeln!(out, "{}", cells.join(","))?;
        }
    }
    Ok(())
}

/// Every report, `;`-separated (repeats kept, so counts add up to the summary).
fn jank_type_list_raw(types: &[JankType]) -> String {
    types.iter().map(|t| t.key()).collect::<Vec<_>>().join(";")
}

fn write_summary_csv(out: &mut dyn Write, dump: &parser::Dump, opts: &ReplayOptions) -> Result<()> {
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
    writeln!(out, "{}", header.join(","))?;
    for win in &dump.windows {
        let w = &replay::replay_window_each(win, opts, &mut |_| {});
        let mut cells = vec![
            csv_field(&w.window),
            csv_field(w.process.as_deref().unwrap_or("")),
            cell(w.pid),
            w.rows.to_string(),
            judged(w).to_string(),
        ];
        for c in Counter::all() {
            cells.push(cell(w.summary.as_ref().map(|s| s.get(c))));
        }
        for c in Counter::all() {
            cells.push(cell(w.printed.as_ref().and_then(|p| p.get(c))));
        }
        cells.push(w.printed_covers_rows.to_string());
        cells.push(csv_field(w.problem.as_deref().unwrap_or("")));
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

/// Pretty JSON written piece by piece, byte for byte what `serde_json::to_string_pretty` of
/// the whole document gives, with one key of an object filled by a writer (so an array of
/// a million frames never exists as a value).
mod json_stream {
    use std::io::Write;

    use anyhow::Result;
    use serde_json::Value;

    type Fill<'a> = dyn FnMut(&mut dyn Write, usize) -> Result<()> + 'a;

    /// `v` pretty-printed as if it sat `indent` spaces deep.
    fn pretty(out: &mut dyn Write, v: &Value, indent: usize) -> Result<()> {
        let text = serde_json::to_string_pretty(v)?;
        let pad = format!("\n{}", " ".repeat(indent));
        out.write_all(text.replace('\n', &pad).as_bytes())?;
        Ok(())
    }

    /// The object `v` (keys in its own order) with the value of `key` written by `fill`.
    pub fn object(
        out: &mut dyn Write,
        v: &Value,
        indent: usize,
        key: &str,
        fill: &mut Fill<'_>,
    ) -> Result<()> {
        let Value::Object(map) = v else {
            return pretty(out, v, indent);
        };
        if map.is_empty() {
            out.write_all(b"{}")?;
            return Ok(());
        }
        out.write_all(b"{")?;
        for (i, (k, value)) in map.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            write!(
                out,
                "\n{}{}: ",
                " ".repeat(indent + 2),
                Value::from(k.as_str())
            )?;
            if k == key {
                fill(out, indent + 2)?;
            } else {
                pretty(out, value, indent + 2)?;
            }
        }
        write!(out, "\n{}}}", " ".repeat(indent))?;
        Ok(())
    }

    /// An array of `items`, each written by `item`.
    pub fn array<T>(
        out: &mut dyn Write,
        indent: usize,
        items: impl Iterator<Item = T>,
        item: &mut dyn FnMut(&mut dyn Write, usize, T) -> Result<()>,
    ) -> Result<()> {
        let mut first = true;
        for x in items {
            out.write_all(if first { b"[" } else { b"," })?;
            write!(out, "\n{}", " ".repeat(indent + 2))?;
            item(out, indent + 2, x)?;
            first = false;
        }
        if first {
            out.write_all(b"[]")?;
        } else {
            write!(out, "\n{}]", " ".repeat(indent))?;
        }
        Ok(())
    }

    /// A window's frames as a JSON array, replayed one at a time.
    pub fn each_frame(
        out: &mut dyn Write,
        indent: usize,
        win: &crate::gfxinfo::parser::WindowDump,
        opts: &crate::gfxinfo::replay::ReplayOptions,
        to_json: &dyn Fn(&crate::gfxinfo::replay::FrameReport) -> Value,
    ) -> Result<()> {
        let mut first = true;
        let mut failed = None;
        crate::gfxinfo::replay::replay_window_each(win, opts, &mut |f| {
            if failed.is_some() {
                return;
            }
            let r = (|| -> Result<()> {
                out.write_all(if first { b"[" } else { b"," })?;
                write!(out, "\n{}", " ".repeat(indent + 2))?;
                pretty(out, &to_json(&f), indent + 2)
            })();
            first = false;
            failed = r.err();
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if first {
            out.write_all(b"[]")?;
        } else {
            write!(out, "\n{}]", " ".repeat(indent))?;
        }
        Ok(())
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use serde_json::json;

        #[test]
        fn streamed_pretty_json_is_byte_identical() {
            let doc = json!({
                "a": 1,
                "list": [],
                "z": {"k": [1, 2], "empty": {}},
            });
            let items = [json!({"x": [1, {"y": null}]}), json!("s\nt"), json!([])];
            let mut whole = doc.clone();
            whole["list"] = Value::Array(items.to_vec());
            let mut out = Vec::new();
            object(&mut out, &doc, 0, "list", &mut |out, indent| {
                array(out, indent, items.iter(), &mut |out, indent, v| {
                    pretty(out, v, indent)
                })
            })
            .unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string_pretty(&whole).unwrap()
            );
        }
    }
}
