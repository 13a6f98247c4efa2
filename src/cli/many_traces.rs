//! The options and the JSON Lines output that `analyze`, `frames` and `doctor` share when
//! given many traces (files, directories, globs).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;

use crate::fleet::run::{each_trace, Done, RunOptions};

#[derive(clap::Args, Debug, Clone)]
pub struct ManyArgs {
    /// Traces processed in parallel (default: number of cores).
    #[arg(long = "jobs", value_name = "JOBS")]
    jobs_arg: Option<usize>,
    /// With --format jsonl: lines in input order (each still written as soon as every
    /// earlier trace is done) instead of the order traces finish.
    #[arg(long)]
    pub sort: bool,
}

impl ManyArgs {
    pub fn jobs(&self) -> usize {
        self.jobs_arg
            .unwrap_or_else(crate::gate::measure::default_jobs)
            .max(1)
    }
}

/// The traces the inputs name and whether the output is a many-trace one (several inputs,
/// or a directory or glob).
pub fn traces_of(inputs: &[PathBuf]) -> Result<(Vec<PathBuf>, bool)> {
    let traces = crate::fleet::discover::find_traces(inputs)?;
    let many = crate::fleet::discover::names_many(inputs, &traces);
    Ok((traces, many))
}

/// `--format jsonl`: one line per trace on standard output, written as the trace finishes
/// (`one` gives a finished trace's object); exit 2 at the end if any trace failed.
pub fn write_jsonl<T: serde::Serialize>(
    traces: &[PathBuf],
    args: &ManyArgs,
    one: impl Fn(&Path) -> Result<Done<T>> + Sync,
) -> Result<ExitCode> {
    let opts = RunOptions {
        jobs: args.jobs(),
        sorted: args.sort,
        report_errors: true,
    };
    let stdout = std::io::stdout();
    let failed = each_trace(
        traces,
        opts,
        // The object is serialised on the worker, so the writer only writes.
        |t| {
            let done = one(t)?;
            Ok(Done {
                value: crate::fleet::jsonl::ok_line(t, &done.value)?,
                warnings: done.warnings,
            })
        },
        |t, r| {
            let line = match r {
                Ok(line) => line,
                Err(e) => crate::fleet::jsonl::error_line(t, &format!("{e:#}")),
            };
            let mut out = stdout.lock();
            writeln!(out, "{line}")?;
            // Each line reaches a reader (`| jq`, a log shipper) when its trace is done.
            out.flush()?;
            Ok(())
        },
    )?;
    Ok(exit_code(failed))
}

/// 0 when every trace was handled, 2 when one was not.
pub fn exit_code(failed: usize) -> ExitCode {
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_ERROR)
    }
}

/// Every trace's value in input order and one error line per trace that failed (also
/// printed on standard error); the traces run in parallel. With a single trace its error is
/// the command's.
pub fn collect_each<T: Send>(
    traces: &[PathBuf],
    jobs: usize,
    one: impl Fn(&Path) -> Result<Done<T>> + Sync,
) -> Result<(Vec<T>, Vec<String>)> {
    let single = traces.len() == 1;
    let opts = RunOptions {
        jobs,
        sorted: true,
        report_errors: !single,
    };
    let (mut done, mut errors, mut only_error) = (Vec::new(), Vec::new(), None);
    each_trace(traces, opts, one, |t, r| {
        match r {
            Ok(v) => done.push(v),
            Err(e) if single => only_error = Some(e),
            Err(e) => errors.push(format!("{}: {e:#}", t.display())),
        }
        Ok(())
    })?;
    match only_error {
        Some(e) => Err(e),
        None => Ok((done, errors)),
    }
}

/// A many-trace CSV: a leading `trace` column, one header for all traces (each trace's rows
/// come with their own header first).
pub fn csv_with_trace_column(per_trace: Vec<(String, Vec<Vec<String>>)>) -> String {
    let mut rows = Vec::new();
    for (i, (trace, trace_rows)) in per_trace.into_iter().enumerate() {
        for (j, mut row) in trace_rows.into_iter().enumerate() {
            if j == 0 && i > 0 {
                continue;
            }
            row.insert(
                0,
                if j == 0 {
                    "trace".into()
                } else {
                    trace.clone()
                },
            );
            rows.push(row);
        }
    }
    crate::report::csv_rows::to_csv(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_header_and_a_trace_cell_per_row() {
        let rows = |v: &str| vec![vec!["a".to_string()], vec![v.to_string()]];
        let csv = csv_with_trace_column(vec![
            ("x.pb".into(), rows("1")),
            ("y, z.pb".into(), rows("2")),
        ]);
        assert_eq!(csv, "trace,a\nx.pb,1\n\"y, z.pb\",2\n");
    }
}
