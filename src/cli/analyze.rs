//! `frameprobe analyze TRACE...` and `frameprobe frames TRACE...` (files, directories or
//! globs; many traces run in parallel).

use crate::report::shorten::{render_fitted, table_width};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::AnalyzeOptions;
use crate::report::{analyze_csv, analyze_text};

use super::many_traces::{collect_each, exit_code, traces_of, write_jsonl, ManyArgs};
use super::range_args::RangeArgs;
use super::stdout::write_json_line;
use crate::fleet::run::Done;
use crate::report::frames_json::Many;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Markdown,
    /// One compact JSON object per trace, written as each trace finishes.
    Jsonl,
}

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// Traces, directories (searched recursively) or quoted glob patterns; `-` for standard
    /// input.
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// Only these processes: a name (glob) or a pid. Repeatable.
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    /// Only layers whose name matches this glob.
    #[arg(long)]
    pub layer: Option<String>,
    /// table for people, markdown for PR comments, csv (one row per process and layer),
    /// json (everything, see README) or jsonl (one line per trace, streamed).
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
    /// How many of the worst frames to explain per process.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Tables show names whole (by default long names are shortened in the middle with `…`
    /// to fit the terminal, or to 60 characters in a file or pipe; JSON, CSV and Markdown
    /// always have them whole).
    #[arg(long)]
    pub wide: bool,
    #[command(flatten)]
    pub range: RangeArgs,
    #[command(flatten)]
    pub interactions: super::interaction_args::InteractionArgs,
    #[command(flatten)]
    pub many: ManyArgs,
}

#[derive(clap::Args)]
pub struct FramesArgs {
    /// Traces, directories (searched recursively) or quoted glob patterns; `-` for standard
    /// input (gzip and zstd are detected).
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// Only these processes: a name (glob) or a pid. Repeatable.
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    /// Only layers whose name matches this glob.
    #[arg(long)]
    pub layer: Option<String>,
    /// Only janky frames.
    #[arg(long)]
    pub janky: bool,
    /// Tables show names whole (by default long names are shortened in the middle with `…`
    /// to fit the terminal, or to 60 characters in a file or pipe).
    #[arg(long)]
    pub wide: bool,
    /// table for people, markdown, csv (one row per frame), json (with cause chains) or
    /// jsonl (one line per trace, streamed).
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
    #[command(flatten)]
    pub range: RangeArgs,
    #[command(flatten)]
    pub interactions: super::interaction_args::InteractionArgs,
    #[command(flatten)]
    pub many: ManyArgs,
}

pub use crate::single_trace::analysis_load_options;

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let opts = AnalyzeOptions {
        processes: a.processes,
        layer: a.layer,
        top: a.top,
        all_frames: false,
        only_janky: false,
        range: a.range.spec()?,
        interactions: a.interactions.options()?,
    };
    let (traces, many) = traces_of(&a.traces)?;
    if a.format == ReportFormat::Jsonl {
        return write_jsonl(&traces, &a.many, |t| analyze_alone(t, &opts));
    }
    let (reports, errors) = analyze_each(&traces, &opts, a.many.jobs())?;
    if !reports.is_empty() {
        if let Some(code) = filter_matched_nothing(&reports, &opts) {
            return Ok(code);
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json => {
            if !many && errors.is_empty() {
                write_json_line(&mut out, &reports[0])?
            } else {
                write_json_line(&mut out, &Many::new(&reports, &errors))?
            }
        }
        ReportFormat::Table => {
            for r in &reports {
                let mut r = r.clone();
                crate::report::visible::escape_report_names(&mut r);
                let text = render_fitted(&r, a.wide, table_width(), analyze_text::render_table);
                write!(out, "{text}")?;
            }
        }
        ReportFormat::Markdown => {
            for r in &reports {
                write!(out, "{}", analyze_text::render_markdown(r))?;
            }
        }
        ReportFormat::Csv if many => {
            write!(out, "{}", csv_by_trace(&reports, analyze_csv::layers_rows))?;
        }
        ReportFormat::Csv => {
            let rows = analyze_csv::layers_rows(&reports[0]);
            write!(out, "{}", crate::report::csv_rows::to_csv(rows))?;
        }
        ReportFormat::Jsonl => unreachable!("streamed above"),
    }
    Ok(exit_code(errors.len()))
}

/// Loads and analyzes each trace on its own, `jobs` at a time: a trace that cannot be read
/// (or that trips an internal error) is reported on standard error while the others are
/// still analyzed. With a single trace its error is the command's error.
pub fn analyze_each(
    traces: &[PathBuf],
    opts: &AnalyzeOptions,
    jobs: usize,
) -> Result<(Vec<AnalyzeReport>, Vec<String>)> {
    let (done, errors) = analyze_each_with(traces, opts, jobs, |_| ())?;
    Ok((done.into_iter().map(|(r, ())| r).collect(), errors))
}

/// Each trace's report with what `also` computed, and one error line per failed trace.
pub type Analyzed<T> = (Vec<(AnalyzeReport, T)>, Vec<String>);

/// Analyzes each trace behind its own panic guard, with `also` computed from the same
/// loaded store. A trace that fails is an error line (the others go on), unless it is the
/// only one: then the error is the command's.
pub fn analyze_each_with<T: Send>(
    traces: &[PathBuf],
    opts: &AnalyzeOptions,
    jobs: usize,
    also: impl Fn(&crate::store::Store) -> T + Sync,
) -> Result<Analyzed<T>> {
    collect_each(traces, jobs, |t| analyze_trace(t, opts, &also))
}

/// One trace's report (import warnings included) and what `also` computed from its store.
fn analyze_trace<T>(
    t: &Path,
    opts: &AnalyzeOptions,
    also: impl Fn(&crate::store::Store) -> T,
) -> Result<Done<(AnalyzeReport, T)>> {
    let done = crate::single_trace::analyze_trace(t, opts, also)?;
    Ok(Done {
        value: (done.report, done.also),
        warnings: done.load_warnings,
    })
}

/// One trace as the single-trace command sees it: a report with no frame to show is the
/// error that command exits 2 with.
fn analyze_alone(t: &Path, opts: &AnalyzeOptions) -> Result<Done<AnalyzeReport>> {
    let done = crate::single_trace::analyze_one(t, opts)?;
    Ok(Done {
        value: done.report,
        warnings: done.load_warnings,
    })
}

pub fn run_frames(a: FramesArgs) -> Result<ExitCode> {
    let opts = AnalyzeOptions {
        processes: a.processes,
        layer: a.layer,
        top: 0,
        all_frames: true,
        only_janky: a.janky,
        range: a.range.spec()?,
        interactions: a.interactions.options()?,
    };
    let (traces, many) = traces_of(&a.traces)?;
    if a.format == ReportFormat::Jsonl {
        return write_jsonl(&traces, &a.many, |t| {
            let done = analyze_alone(t, &opts)?;
            let doc = crate::report::frames_json::FramesDoc::new(&done.value);
            Ok(Done {
                value: serde_json::to_value(doc)?,
                warnings: done.warnings,
            })
        });
    }
    let (reports, errors) = analyze_each(&traces, &opts, a.many.jobs())?;
    if !reports.is_empty() {
        if let Some(code) = filter_matched_nothing(&reports, &opts) {
            return Ok(code);
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json if many || !errors.is_empty() => {
            let docs: Vec<_> = reports
                .iter()
                .map(crate::report::frames_json::FramesDoc::new)
                .collect();
            let all = Many::new(&docs, &errors);
            write_json_line(&mut out, &all)?;
        }
        ReportFormat::Json => {
            let doc = crate::report::frames_json::FramesDoc::new(&reports[0]);
            write_json_line(&mut out, &doc)?;
        }
        ReportFormat::Csv if many => {
            write!(out, "{}", csv_by_trace(&reports, analyze_csv::frames_rows))?;
        }
        ReportFormat::Csv => write!(out, "{}", analyze_csv::frames_csv(&reports[0]))?,
        ReportFormat::Table | ReportFormat::Markdown => {
            for r in &reports {
                if many {
                    writeln!(out, "{}\n", trace_heading(&r.trace, a.format))?;
                }
                write!(out, "{}", frames_block(r, a.format, a.wide))?;
            }
        }
        ReportFormat::Jsonl => unreachable!("streamed above"),
    }
    Ok(exit_code(errors.len()))
}

/// Every report's rows under one header with a leading `trace` column.
fn csv_by_trace(reports: &[AnalyzeReport], rows: fn(&AnalyzeReport) -> Vec<Vec<String>>) -> String {
    let per_trace = reports.iter().map(|r| (r.trace.clone(), rows(r))).collect();
    super::many_traces::csv_with_trace_column(per_trace)
}

/// The line that names a trace above its block when there are several.
fn trace_heading(trace: &str, format: ReportFormat) -> String {
    match format {
        ReportFormat::Markdown => format!("### {}", crate::report::gate::md_code(trace)),
        _ => format!("== {} ==", crate::report::visible::visible(trace)),
    }
}

/// One trace's frames as a table for people or a Markdown table.
fn frames_block(r: &AnalyzeReport, format: ReportFormat, wide: bool) -> String {
    let mut text = String::new();
    if let Some(range) = &r.range {
        text.push_str(&format!("{}\n\n", range.header()));
    }
    if format == ReportFormat::Markdown {
        let rows = times_for_people(analyze_csv::frames_rows(r));
        text.push_str(&analyze_text::md_table(&rows));
    } else {
        text.push_str(&render_fitted(r, wide, table_width(), |shown| {
            let rows = times_for_people(analyze_csv::frames_rows(shown));
            crate::report::grid(rows) + "\n"
        }));
    }
    text
}

/// A trace with no frame to report is an error (exit 2) when no trace has one: with a
/// --process/--layer filter, the message lists the processes with frames, closest names
/// first; without one, the trace has no frame data (doctor says what to record), or, with
/// --from/--to, none in the range (the message gives the trace's span). When other traces do
/// have frames, each empty one is a warning.
pub fn filter_matched_nothing(
    reports: &[AnalyzeReport],
    opts: &AnalyzeOptions,
) -> Option<ExitCode> {
    let all_empty = reports.iter().all(|r| r.processes.is_empty());
    for msg in reports
        .iter()
        .filter_map(|r| crate::single_trace::empty_report_message(r, opts))
    {
        eprintln!("{}: {msg}", if all_empty { "error" } else { "warning" });
    }
    all_empty.then(|| ExitCode::from(super::EXIT_ERROR))
}

/// Tables show the `ts_rel_ms` column as `time`, seconds from the trace start (`+1.234 s`).
fn times_for_people(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let Some(col) = rows
        .first()
        .and_then(|h| h.iter().position(|c| c == "ts_rel_ms"))
    else {
        return rows;
    };
    for (i, row) in rows.iter_mut().enumerate() {
        if let Some(cell) = row.get_mut(col) {
            *cell = match (i, cell.parse::<f64>()) {
                (0, _) => "time".to_string(),
                (_, Ok(ms)) => crate::report::since_start(ms),
                (_, Err(_)) => std::mem::take(cell),
            };
        }
    }
    rows
}
