//! Parquet tables for fleet analysis: `frames` (one row per frame) and `summary` (one row per
//! process and layer), each the columns of the matching CSV (`frames --format csv`,
//! `analyze --format csv`) with their real types, after columns naming the trace and the
//! device. One file per trace and table; docs/parquet.md is the contract.

mod columns;
mod schema;
mod trace_columns;
mod trace_id;
mod write;

pub use schema::SCHEMA_VERSION;
pub use trace_columns::TraceColumns;
pub use trace_id::trace_id;

use std::io::Write;

use anyhow::Result;

use crate::analysis::report_model::AnalyzeReport;
use crate::report::analyze_csv::{frames_rows, layers_rows};

/// The two tables one trace contributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    Frames,
    Summary,
}

impl Table {
    pub const ALL: [Table; 2] = [Table::Frames, Table::Summary];

    /// The table's name: its folder under the output directory.
    pub fn name(self) -> &'static str {
        match self {
            Table::Frames => "frames",
            Table::Summary => "summary",
        }
    }
}

/// Writes `table` of one analyzed trace (analyzed with `all_frames` for the frames table) as
/// a Parquet file into `out`.
pub fn write_table(
    out: impl Write + Send,
    table: Table,
    report: &AnalyzeReport,
    trace: &TraceColumns,
) -> Result<()> {
    let rows = match table {
        Table::Frames => frames_rows(report),
        Table::Summary => layers_rows(report),
    };
    let cols = columns::build(table, &rows, trace)?;
    write::write(out, table, &cols)
}
