//! `frameprobe export TRACE -o out.sqlite`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::import::{load, LoadOptions};
use crate::store::sqlite::{to_connection, ExportOptions};

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The trace (`-` for standard input; gzip and zstd are detected).
    pub trace: PathBuf,
    /// Output SQLite file (must not exist unless --force; `-` for standard output). It is
    /// written beside the target and renamed into place once complete.
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Replace an existing output file (only once the new one is complete).
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: ExportArgs) -> Result<ExitCode> {
    // Checked before the (slow) load; nothing is removed until the new file is complete.
    let to_stdout = super::output_file::is_stdout(&a.output);
    let pending = if to_stdout {
        None
    } else {
        Some(super::output_file::Pending::new(&a.output, a.force)?)
    };
    let loaded = load(&a.trace, LoadOptions::all())
        .with_context(|| format!("cannot load {}", a.trace.display()))?;
    super::report_warnings(&a.trace, &loaded.warnings);
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
    eprintln!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
