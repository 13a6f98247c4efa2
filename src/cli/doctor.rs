//! `frameprobe doctor TRACE...`: what each trace holds for frame analysis and what to add.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use super::many_traces::{collect_each, traces_of, write_jsonl, ManyArgs};
use super::stdout::write_json_line;
use crate::analysis::doctor::{doctor, DoctorReport};
use crate::fleet::run::Done;
use crate::import::LoadOptions;
use crate::report::doctor_text;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DoctorFormat {
    Table,
    Json,
    /// One compact JSON object per trace, written as each trace finishes.
    Jsonl,
}

#[derive(clap::Args)]
pub struct DoctorArgs {
    /// Traces, directories (searched recursively) or quoted glob patterns; `-` for standard
    /// input (gzip and zstd are detected).
    #[arg(required = true)]
    pub traces: Vec<PathBuf>,
    /// table for people, json, or jsonl (one line per trace, streamed).
    #[arg(long, value_enum, default_value = "table")]
    pub format: DoctorFormat,
    #[command(flatten)]
    pub many: ManyArgs,
}

/// One trace's doctor report.
fn doctor_trace(t: &Path) -> Result<Done<DoctorReport>> {
    let loaded = super::load::load_trace(t, LoadOptions::all())?;
    let r = doctor(&loaded.store, &t.display().to_string(), loaded.packets);
    Ok(Done {
        value: r,
        warnings: loaded.warnings,
    })
}

pub fn run(a: DoctorArgs) -> Result<ExitCode> {
    let (traces, many) = traces_of(&a.traces)?;
    if a.format == DoctorFormat::Jsonl {
        return write_jsonl(&traces, &a.many, doctor_trace);
    }
    let (reports, errors) = collect_each(&traces, a.many.jobs(), doctor_trace)?;
    let mut out = std::io::stdout().lock();
    match a.format {
        DoctorFormat::Json if many || !errors.is_empty() => {
            let all = crate::report::frames_json::Many::new(&reports, &errors);
            write_json_line(&mut out, &all)?;
        }
        DoctorFormat::Json => write_json_line(&mut out, &reports[0])?,
        DoctorFormat::Table => {
            for (i, r) in reports.iter().enumerate() {
                if i > 0 {
                    writeln!(out)?;
                }
                let text = doctor_text::render(r);
                write!(out, "{}", crate::report::visible::visible_lines(&text))?;
            }
        }
        DoctorFormat::Jsonl => unreachable!("streamed above"),
    }
    Ok(super::many_traces::exit_code(errors.len()))
}
