//! `frameprobe query TRACE [SQL] [--file F] [--format table|csv|json]`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::result_set::{self as output, Format};
use crate::single_trace::query::{load_for_query, run_query, QueryOptions};
use anyhow::{bail, Context, Result};

#[derive(clap::Args)]
pub struct QueryArgs {
    /// Trace file (`-` for standard input; gzip is detected).
    pub trace: PathBuf,
    /// The SQL to run; read from --file or standard input when absent.
    pub sql: Option<String>,
    /// Read the SQL from this file.
    #[arg(long, short = 'f')]
    pub file: Option<PathBuf>,
    /// table for people, csv, or json (`columns` and `rows` as objects).
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// As trace_processor_shell's flag of the same name (and its Python API's default): do
    /// not create threads for ftrace events that only its raw table would record.
    #[arg(long)]
    pub no_ftrace_raw: bool,
    /// Let the SQL write files (ATTACH, VACUUM INTO). By default the query can only read
    /// and change the in-memory tables.
    #[arg(long)]
    pub allow_writes: bool,
}

pub fn run(a: QueryArgs) -> Result<ExitCode> {
    let sql = match (&a.sql, &a.file) {
        (Some(s), None) => s.clone(),
        (None, Some(f)) => std::fs::read_to_string(f)
            .with_context(|| format!("cannot read SQL file {}", f.display()))?,
        (None, None) => {
            if a.trace.as_os_str() == "-" {
                bail!("the trace is read from standard input, so give the SQL as an argument or with --file");
            }
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading SQL from standard input")?;
            s
        }
        (Some(_), Some(_)) => bail!("give the SQL either as an argument or with --file, not both"),
    };
    let opts = QueryOptions {
        ftrace_raw: !a.no_ftrace_raw,
        allow_writes: a.allow_writes,
    };
    let loaded = load_for_query(&a.trace, &sql, opts)?;
    super::report_warnings(&a.trace, &loaded.warnings);
    let rs = run_query(std::sync::Arc::new(loaded.store), &sql, opts)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    output::write(&mut out, &rs, a.format)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
