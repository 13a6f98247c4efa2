//! `frameprobe query TRACE [SQL] [--file F] [--format table|csv|json]`.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::Value;
use rusqlite::Connection;

use crate::import::{load, LoadOptions};
use crate::report::result_set::{self as output, Format, ResultSet};
use crate::store::sqlite::{to_connection, ExportOptions};

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

/// Runs every statement; returns the result of the last one that produces columns.
pub fn run_sql(conn: &Connection, sql: &str) -> Result<ResultSet> {
    let sql = crate::analysis::stdlib::strip_includes(conn, sql)?;
    let mut last = ResultSet {
        columns: Vec::new(),
        rows: Vec::new(),
    };
    let mut batch = rusqlite::Batch::new(conn, &sql);
    while let Some(mut stmt) = batch.next()? {
        let columns: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut q = stmt.raw_query();
        while let Some(r) = q.next()? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(r.get::<_, Value>(i)?);
            }
            rows.push(row);
        }
        if n > 0 {
            last = ResultSet { columns, rows };
        }
    }
    Ok(last)
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
    // Only the tables the query (or a stdlib module it uses) names are built: thread_state
    // and args are the costliest.
    let opts = ExportOptions::for_sql(&crate::analysis::stdlib::sql_read_by(&sql));
    let wants_thread_state = opts.thread_state;
    let load_opts = LoadOptions {
        thread_state: wants_thread_state,
        ftrace_raw: !a.no_ftrace_raw,
        ..LoadOptions::all()
    };
    let loaded =
        load(&a.trace, load_opts).with_context(|| format!("cannot load {}", a.trace.display()))?;
    super::report_warnings(&a.trace, &loaded.warnings);
    let mut conn = to_connection(&loaded.store, opts).context("building the SQL tables")?;
    let refusals = if a.allow_writes {
        None
    } else {
        Some(crate::store::read_only::restrict(&mut conn).context("restricting the SQL")?)
    };
    let rs = match run_sql(&conn, &sql) {
        Ok(rs) => rs,
        Err(e) if refusals.as_ref().is_some_and(|r| r.any()) || is_attach_limit(&e) => {
            bail!("query failed: {e}; frameprobe query is read-only (ATTACH and VACUUM INTO would write files), pass --allow-writes to allow them")
        }
        Err(e) => return Err(e.context("query failed")),
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    output::write(&mut out, &rs, a.format)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// SQLite's refusal of an ATTACH (also run by VACUUM INTO) under the zero-database limit.
fn is_attach_limit(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.to_string().contains("too many attached databases"))
}
