//! `frameprobe query`'s computation: load the tables the SQL reads, run it, keep the last
//! result set.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::Value;
use rusqlite::Connection;

use crate::import::{LoadOptions, Loaded};
use crate::report::result_set::ResultSet;
use crate::store::sqlite::{to_shared_connection, ExportOptions};
use crate::store::Store;

#[derive(Clone, Copy, Debug)]
pub struct QueryOptions {
    /// Create threads for ftrace events that only trace_processor's raw table would record
    /// (trace_processor_shell's default; `--no-ftrace-raw` turns it off).
    pub ftrace_raw: bool,
    /// Let the SQL write files (ATTACH, VACUUM INTO).
    pub allow_writes: bool,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            ftrace_raw: true,
            allow_writes: false,
        }
    }
}

/// Loads from `trace` the tables `sql` reads. The caller shows the loader's warnings
/// (damage after a good prefix) before [`run_query`], so they are seen even when the SQL fails.
pub fn load_for_query(trace: &Path, sql: &str, opts: QueryOptions) -> Result<Loaded> {
    let tables = export_options(sql);
    let load_opts = LoadOptions {
        thread_state: tables.thread_state,
        sched_rows: tables.sched,
        ftrace_raw: opts.ftrace_raw,
        ..LoadOptions::all()
    };
    super::load_trace(trace, load_opts)
}

/// Runs `sql` over the store of a trace loaded by [`load_for_query`].
pub fn run_query(store: Arc<Store>, sql: &str, opts: QueryOptions) -> Result<ResultSet> {
    let mut conn =
        to_shared_connection(store, export_options(sql)).context("building the SQL tables")?;
    let refusals = if opts.allow_writes {
        None
    } else {
        Some(crate::store::read_only::restrict(&mut conn).context("restricting the SQL")?)
    };
    match run_sql(&conn, sql) {
        Ok(rs) => Ok(rs),
        Err(e) if refusals.as_ref().is_some_and(|r| r.any()) || is_attach_limit(&e) => {
            bail!("query failed: {e}; frameprobe query is read-only (ATTACH and VACUUM INTO would write files), pass --allow-writes to allow them")
        }
        Err(e) => Err(e.context("query failed")),
    }
}

/// Only the tables the query (or a stdlib module it uses) names are built: thread_state and
/// args are the costliest.
fn export_options(sql: &str) -> ExportOptions {
    ExportOptions::for_sql(&crate::analysis::stdlib::sql_read_by(sql))
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

/// SQLite's refusal of an ATTACH (also run by VACUUM INTO) under the zero-database limit.
fn is_attach_limit(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.to_string().contains("too many attached databases"))
}
