//! `frameprobe export TRACE -o out.sqlite` and `frameprobe export INPUT... --parquet DIR`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::import::{load, LoadOptions};
use crate::store::sqlite::{to_connection, ExportOptions};

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("to").required(true).args(["output", "parquet"])))]
pub struct ExportArgs {
    /// The trace (`-` for standard input; gzip and zstd are detected). With --parquet, any
    /// number of traces and directories (searched for *.perfetto-trace, *.pftrace).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output SQLite file (must not exist unless --force; `-` for standard output). It is
    /// written beside the target and renamed into place once complete.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Write Parquet tables instead: DIR/frames/<trace id>.parquet (one row per frame) and
    /// DIR/summary/<trace id>.parquet (one row per process and layer); see docs/parquet.md.
    #[arg(long, value_name = "DIR")]
    pub parquet: Option<PathBuf>,
    /// How many traces to export at once with --parquet (default: one per core).
    #[arg(long, requires = "parquet")]
    pub jobs: Option<usize>,
    /// Replace existing output files (only once the new ones are complete).
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: ExportArgs) -> Result<ExitCode> {
    if let Some(dir) = &a.parquet {
        let jobs = a
            .jobs
            .unwrap_or_else(crate::gate::measure::default_jobs)
            .max(1);
        return super::export_parquet::run(&a.inputs, dir, jobs, a.force);
    }
    let (Some(output), [trace]) = (&a.output, a.inputs.as_slice()) else {
        bail!(
            "-o writes one trace's tables to one SQLite file; give one trace (or use \
             --parquet DIR for several)"
        );
    };
    sqlite(trace, output, a.force)
}

fn sqlite(trace: &std::path::Path, output: &std::path::Path, force: bool) -> Result<ExitCode> {
    // Checked before the (slow) load; nothing is removed until the new file is complete.
    let to_stdout = super::output_file::is_stdout(output);
    let pending = if to_stdout {
        None
    } else {
        Some(super::output_file::Pending::new(output, force)?)
    };
    let loaded = load(trace, LoadOptions::all())
        .with_context(|| format!("cannot load {}", trace.display()))?;
    super::report_warnings(trace, &loaded.warnings);
    let conn = to_connection(&loaded.store, ExportOptions::default())?;
    let Some(pending) = pending else {
        // `-o -`: the database file's bytes on standard output, by way of a temporary file.
        let tmp = super::output_file::Pending::new(
            &std::env::temp_dir().join("frameprobe-export.sqlite"),
            true,
        )?;
        let path = tmp.path().to_str().context("temporary path is not UTF-8")?;
        conn.execute("VACUUM INTO ?1", [path])
            .context("writing the database")?;
        let bytes = std::fs::read(tmp.path()).context("reading the database back")?;
        super::stdout::write_all(&bytes)?;
        return Ok(ExitCode::SUCCESS);
    };
    let path = pending
        .path()
        .to_str()
        .context("output path is not valid UTF-8")?;
    conn.execute("VACUUM INTO ?1", [path])
        .context("writing the database")?;
    pending.commit()?;
    eprintln!("wrote {}", output.display());
    Ok(ExitCode::SUCCESS)
}
