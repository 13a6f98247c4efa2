//! `frameprobe export TRACE -o out.sqlite`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::import::{load, LoadOptions};
use crate::store::sqlite::{to_connection, ExportOptions};

#[derive(clap::Args)]
pub struct ExportArgs {
    pub trace: PathBuf,
    /// Output SQLite file (must not exist unless --force).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: ExportArgs) -> Result<ExitCode> {
    if a.output.exists() {
        if !a.force {
            bail!(
                "{} exists; pass --force to overwrite it",
                a.output.display()
            );
        }
        std::fs::remove_file(&a.output)?;
    }
    let loaded = load(&a.trace, LoadOptions::all())
        .with_context(|| format!("cannot load {}", a.trace.display()))?;
    super::report_warnings(&a.trace, &loaded.warnings);
    let conn = to_connection(&loaded.store, ExportOptions::default())?;
    let path = a
        .output
        .to_str()
        .context("output path is not valid UTF-8")?;
    conn.execute("VACUUM INTO ?1", [path])
        .context("writing the database")?;
    eprintln!("wrote {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
