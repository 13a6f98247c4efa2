//! `frameprobe doctor TRACE`: what the trace holds for frame analysis and what to add.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::analysis::doctor::doctor;
use crate::import::LoadOptions;
use crate::report::doctor_text;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DoctorFormat {
    Table,
    Json,
}

#[derive(clap::Args)]
pub struct DoctorArgs {
    /// The trace (`-` for standard input; gzip and zstd are detected).
    pub trace: PathBuf,
    /// table for people or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: DoctorFormat,
}

pub fn run(a: DoctorArgs) -> Result<ExitCode> {
    let loaded = super::load::load_trace(&a.trace, LoadOptions::all())?;
    super::report_warnings(&a.trace, &loaded.warnings);
    let r = doctor(
        &loaded.store,
        &a.trace.display().to_string(),
        loaded.packets,
    );
    let mut out = std::io::stdout().lock();
    match a.format {
        DoctorFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(&r)?)?,
        DoctorFormat::Table => write!(
            out,
            "{}",
            crate::report::visible::visible_lines(&doctor_text::render(&r))
        )?,
    }
    Ok(ExitCode::SUCCESS)
}
