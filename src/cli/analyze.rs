//! `frameprobe analyze TRACE...` and `frameprobe frames TRACE`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::analysis::report_model::AnalyzeReport;
use crate::analysis::{analyze, AnalyzeOptions};
use crate::import::LoadOptions;
use crate::report::{analyze_csv, analyze_text};

use super::load::{load_trace, no_match_message};

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
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
    /// How many of the worst frames to explain per process.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
}

#[derive(clap::Args)]
pub struct FramesArgs {
    pub trace: PathBuf,
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    #[arg(long)]
    pub layer: Option<String>,
    /// Only janky frames.
    #[arg(long)]
    pub janky: bool,
    #[arg(long, value_enum, default_value = "table")]
    pub format: ReportFormat,
}

/// What analyze needs from a trace (kernel and system counters are skipped but for CPU
/// frequency; thread states split the UI thread's time in blame and causes).
pub fn analysis_load_options() -> LoadOptions {
    LoadOptions {
        kernel_counters: false,
        system_counters: false,
        system_properties: false,
        ..LoadOptions::all()
    }
}

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let opts = AnalyzeOptions {
        processes: a.processes,
        layer: a.layer,
        top: a.top,
        all_frames: false,
        only_janky: false,
    };
    let mut reports = Vec::new();
    for t in &a.traces {
        let loaded = load_trace(t, analysis_load_options())?;
        super::report_warnings(t, &loaded.warnings);
        let mut r = analyze(&loaded.store, &opts, &t.display().to_string());
        r.warnings.extend(loaded.warnings);
        reports.push(r);
    }
    if let Some(code) = filter_matched_nothing(&reports, &opts) {
        return Ok(code);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json => {
            let v = if reports.len() == 1 {
                serde_json::to_value(&reports[0])?
            } else {
                serde_json::json!({ "schema": crate::analysis::report_model::SCHEMA, "traces": reports })
            };
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        ReportFormat::Table => {
            for r in &reports {
                write!(out, "{}", analyze_text::render_table(r))?;
            }
        }
        ReportFormat::Markdown => {
            for r in &reports {
                write!(out, "{}", analyze_text::render_markdown(r))?;
            }
        }
        ReportFormat::Csv => {
            for (i, r) in reports.iter().enumerate() {
                let csv = analyze_csv::layers_csv(r);
                // One header for all traces.
                let body = if i == 0 {
                    csv.as_str()
                } else {
                    csv.split_once('\n').map_or("", |x| x.1)
                };
                write!(out, "{body}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_frames(a: FramesArgs) -> Result<ExitCode> {
    let opts = AnalyzeOptions {
        processes: a.processes,
        layer: a.layer,
        top: 0,
        all_frames: true,
        only_janky: a.janky,
    };
    let loaded = load_trace(&a.trace, analysis_load_options())?;
    super::report_warnings(&a.trace, &loaded.warnings);
    let r = analyze(&loaded.store, &opts, &a.trace.display().to_string());
    if let Some(code) = filter_matched_nothing(std::slice::from_ref(&r), &opts) {
        return Ok(code);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match a.format {
        ReportFormat::Json => {
            let frames: Vec<_> = r
                .processes
                .iter()
                .map(|p| serde_json::json!({"pid": p.pid, "name": p.name, "trust": p.trust, "frames": p.all_frames}))
                .collect();
            let v = serde_json::json!({"schema": "frameprobe.frames/v1", "metric_version": r.metric_version, "trace": r.trace, "sources": r.sources, "trust": r.trust, "processes": frames});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        }
        ReportFormat::Csv => write!(out, "{}", analyze_csv::frames_csv(&r))?,
        ReportFormat::Table | ReportFormat::Markdown => {
            let csv = analyze_csv::frames_csv(&r);
            let rows: Vec<Vec<String>> = csv.lines().map(split_csv_line).collect();
            if a.format == ReportFormat::Markdown {
                write!(out, "{}", analyze_text::md_table(&rows))?;
            } else {
                writeln!(out, "{}", crate::report::grid(rows))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A --process/--layer filter that matched nothing in any trace is an error (exit 2) that
/// lists the processes with frames, closest names first.
pub fn filter_matched_nothing(
    reports: &[AnalyzeReport],
    opts: &AnalyzeOptions,
) -> Option<ExitCode> {
    let filtered = !opts.processes.is_empty() || opts.layer.is_some();
    if !filtered || reports.iter().any(|r| !r.processes.is_empty()) {
        return None;
    }
    let mut wanted = opts.processes.clone();
    wanted.extend(opts.layer.iter().map(|l| format!("layer {l}")));
    for r in reports {
        eprintln!(
            "error: {}",
            no_match_message(&r.trace, &wanted, &r.processes_with_frames)
        );
    }
    Some(ExitCode::from(super::EXIT_ERROR))
}

/// Splits one line of our own CSV (quoted fields with doubled quotes).
fn split_csv_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut q = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, q) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => q = !q,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}
