//! `frameprobe export INPUT... --parquet DIR`: every trace loaded and analyzed as `frames`
//! does, in parallel, each into its own files; a trace that fails is an error line and exit
//! code 2 at the end, the others' files are still written.

use std::collections::HashSet;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use crate::analysis::AnalyzeOptions;
use crate::export_parquet::{trace_id, write_table, Table, TraceColumns};

use super::output_file::Pending;

pub fn run(inputs: &[PathBuf], dir: &Path, jobs: usize, force: bool) -> Result<ExitCode> {
    if inputs.iter().any(|i| super::output_file::is_stdout(i)) {
        bail!("--parquet reads trace files and directories, not standard input (`-`)");
    }
    let mut traces = crate::fleet::discover::find_traces(inputs)?;
    // A trace named twice (as a file and inside a folder) would race for one file name.
    let mut seen = HashSet::new();
    traces.retain(|t| seen.insert(trace_id(&t.display().to_string())));
    for t in Table::ALL {
        let sub = dir.join(t.name());
        std::fs::create_dir_all(&sub)
            .with_context(|| format!("cannot create {}", sub.display()))?;
    }
    let results = crate::gate::isolate::each_isolated(&traces, jobs, |t| export_one(t, dir, force));
    let failed = results.iter().filter(|r| r.is_err()).count();
    for (t, r) in traces.iter().zip(&results) {
        if let Err(e) = r {
            eprintln!("error: {}: {e:#}", t.display());
        }
    }
    eprintln!(
        "wrote {} of {} traces to {}",
        traces.len() - failed,
        traces.len(),
        dir.display()
    );
    Ok(if failed > 0 {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// One trace's two files, both written before either is moved into place.
fn export_one(trace: &Path, dir: &Path, force: bool) -> Result<()> {
    let path = trace.display().to_string();
    let id = trace_id(&path);
    // Refused before the (slow) load when a file exists and --force is not given.
    let pending = Table::ALL
        .iter()
        .map(|&t| {
            let target = dir.join(t.name()).join(format!("{id}.parquet"));
            Ok((t, Pending::new(&target, force)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let opts = AnalyzeOptions {
        all_frames: true,
        ..Default::default()
    };
    let done =
        crate::single_trace::analyze_trace(trace, &opts, |store| TraceColumns::new(&path, store))?;
    super::report_warnings(trace, &done.load_warnings);
    let (report, columns) = (done.report, done.also);
    if report.processes.is_empty() {
        eprintln!("warning: {path}: no frames; its tables have no rows");
    }
    for (t, p) in &pending {
        let file = File::create_new(p.path())
            .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
        let mut out = BufWriter::new(file);
        write_table(&mut out, *t, &report, &columns)?;
        out.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .with_context(|| format!("writing the {} table of {path}", t.name()))?;
    }
    for (_, p) in pending {
        p.commit()?;
    }
    Ok(())
}
