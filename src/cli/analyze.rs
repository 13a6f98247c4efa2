//! `frameprobe analyze TRACE...` and `frameprobe frames TRACE`.

use crate::report::shorten::{render_fitted, table_width};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::AnalyzeOptions;
use crate::report::{analyze_csv, analyze_text};

use super::range_args::RangeArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Markdown,
}

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// One or more traces.
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// Only these processes: a name (glob) or a pid. Repeatable.
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    /// Only layers whose name matches this glob.
    #[arg(long)]
    pub layer: Option<String>,
    /// table for people, markdown for PR comments, csv (one row per process and layer) or
    /// json (everything, see README).
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
}

#[derive(clap::Args)]
pub struct FramesArgs {
    /// The trace (`-` for standard input; gzip and zstd are detected).
    pub trace: PathBuf,
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
    /// table for people, markdown, csv (one row per frame) or json (with cause chains).
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
    #[command(flatten)]
    pub range: RangeArgs,
    #[command(flatten)]
    pub interactions: super::interaction_args::InteractionArgs,
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
    let (reports, errors) = analyze_each(&a.traces, &opts)?;
    if !reports.is_empty() {
        if let Some(code) = filter_matched_nothing(&reports, &opts) {
            return Ok(code);
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json => {
            let text = if reports.len() == 1 && errors.is_empty() {
                serde_json::to_string_pretty(&reports[0])?
            } else {
                serde_json::to_string_pretty(&crate::report::frames_json::AnalyzeMany {
                    schema: crate::analysis::report_model::SCHEMA,
                    metric_version: crate::analysis::definitions::METRIC_VERSION,
                    traces: &reports,
                    errors: &errors,
                })?
            };
            writeln!(out, "{text}")?;
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
        ReportFormat::Csv => {
            // One header for all traces.
            let rows = reports.iter().enumerate().flat_map(|(i, r)| {
                analyze_csv::layers_rows(r)
                    .into_iter()
                    .skip(usize::from(i > 0))
            });
            write!(out, "{}", crate::report::csv_rows::to_csv(rows))?;
        }
    }
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_ERROR)
    })
}

/// Loads and analyzes each trace on its own: a trace that cannot be read (or that trips an
/// internal error) is reported on standard error while the others are still analyzed. With
/// a single trace its error is the command's error.
pub fn analyze_each(
    traces: &[PathBuf],
    opts: &AnalyzeOptions,
) -> Result<(Vec<AnalyzeReport>, Vec<String>)> {
    let (done, errors) = analyze_each_with(traces, opts, |_| ())?;
    Ok((done.into_iter().map(|(r, ())| r).collect(), errors))
}

/// Each trace's report with what `also` computed, and one error line per failed trace.
pub type Analyzed<T> = (Vec<(AnalyzeReport, T)>, Vec<String>);

/// Analyzes each trace behind its own panic guard, with `also` computed from the same
/// loaded store. A trace that fails is an error line (the others go on), unless it is the
/// only one: then the error is the command's.
pub fn analyze_each_with<T>(
    traces: &[PathBuf],
    opts: &AnalyzeOptions,
    also: impl Fn(&crate::store::Store) -> T,
) -> Result<Analyzed<T>> {
    let mut done = Vec::new();
    let mut errors = Vec::new();
    for t in traces {
        let one = crate::single_trace::analyze_trace(t, opts, &also).map(|done| {
            super::report_warnings(t, &done.load_warnings);
            (done.report, done.also)
        });
        match one {
            Ok(r) => done.push(r),
            Err(e) if traces.len() == 1 => return Err(e),
            Err(e) => {
                eprintln!("error: {e:#}");
                errors.push(format!("{}: {e:#}", t.display()));
            }
        }
    }
    Ok((done, errors))
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
    let done = crate::single_trace::analyze_trace(&a.trace, &opts, |_| ())?;
    super::report_warnings(&a.trace, &done.load_warnings);
    let r = done.report;
    if let Some(code) = filter_matched_nothing(std::slice::from_ref(&r), &opts) {
        return Ok(code);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json => {
            let doc = crate::report::frames_json::FramesDoc::new(&r);
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        ReportFormat::Csv => write!(out, "{}", analyze_csv::frames_csv(&r))?,
        ReportFormat::Table | ReportFormat::Markdown => {
            if let Some(range) = &r.range {
                writeln!(out, "{}\n", range.header())?;
            }
            if a.format == ReportFormat::Markdown {
                let rows = times_for_people(analyze_csv::frames_rows(&r));
                write!(out, "{}", analyze_text::md_table(&rows))?;
            } else {
                let text = render_fitted(&r, a.wide, table_width(), |shown| {
                    let rows = times_for_people(analyze_csv::frames_rows(shown));
                    crate::report::grid(rows) + "\n"
                });
                write!(out, "{text}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
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
    for r in reports {
        if let Some(msg) = crate::single_trace::empty_report_message(r, opts) {
            eprintln!("{}: {msg}", if all_empty { "error" } else { "warning" });
        }
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
