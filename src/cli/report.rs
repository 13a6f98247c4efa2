//! `frameprobe report TRACE... -o report.html` and
//! `frameprobe report --baseline ... --candidate ... --process PKG -o cmp.html`:
//! one self-contained HTML page.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::analysis::AnalyzeOptions;
use crate::gate::compare::Thresholds;
use crate::gate::{measure_inputs, run_compare};
use crate::report::html::{self, CompareDistributions};

#[derive(clap::Args)]
pub struct ReportArgs {
    /// Traces to report on (or use --baseline and --candidate for a comparison).
    #[arg(required_unless_present = "baseline", conflicts_with_all = ["baseline", "candidate"])]
    pub traces: Vec<PathBuf>,
    /// Only these processes: a name (glob) or a pid. Repeatable. With --baseline, the one
    /// package under test.
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    /// Only layers whose name matches this glob.
    #[arg(long)]
    pub layer: Option<String>,
    /// How many of the worst frames to explain per process.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// The HTML file to write (`-` for standard output).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Compare: baseline traces or directories of Macrobenchmark iteration traces.
    #[arg(long, num_args = 1.., requires = "candidate")]
    pub baseline: Vec<PathBuf>,
    /// Compare: candidate traces or directories.
    #[arg(long, num_args = 1.., requires = "baseline")]
    pub candidate: Vec<PathBuf>,
    /// Compare: the bootstrap and the traces loaded at once.
    #[command(flatten)]
    pub run: super::compare_run_args::CompareRunArgs,
    #[command(flatten)]
    pub range: super::range_args::RangeArgs,
    #[command(flatten)]
    pub interactions: super::interaction_args::InteractionArgs,
}

fn write_out(path: &Path, html: &str) -> Result<()> {
    super::output_file::write(path, html.as_bytes())?;
    if !super::output_file::is_stdout(path) {
        eprintln!(
            "wrote {} ({} KiB)",
            path.display(),
            html.len().div_ceil(1024)
        );
    }
    Ok(())
}

pub fn run(a: ReportArgs) -> Result<ExitCode> {
    if !a.baseline.is_empty() {
        return run_compare_report(a);
    }
    let opts = AnalyzeOptions {
        processes: a.processes.clone(),
        layer: a.layer.clone(),
        top: a.top,
        all_frames: true,
        only_janky: false,
        range: a.range.spec()?,
        interactions: a.interactions.options()?,
    };
    let (done, errors) = super::analyze::analyze_each_with(
        &a.traces,
        &opts,
        a.run.jobs(),
        crate::analysis::doctor::source_statuses,
    )?;
    let (reports, sources): (Vec<_>, Vec<_>) = done.into_iter().unzip();
    let page = html::render_analyze_with_sources(&reports, &sources);
    write_out(&a.output, &page)?;
    Ok(if errors.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_ERROR)
    })
}

fn run_compare_report(a: ReportArgs) -> Result<ExitCode> {
    let package = match a.processes.as_slice() {
        [p] => p.clone(),
        [] => bail!("--process PKG is required with --baseline/--candidate"),
        _ => bail!("give exactly one --process with --baseline/--candidate"),
    };
    if a.range.spec()?.is_set() {
        bail!("--from/--to are not supported with --baseline/--candidate (use them with `report TRACE...` or `check`)");
    }
    if a.layer.is_some() {
        eprintln!("warning: --layer is ignored by the compare report (Macrobenchmark's frames are per process)");
    }
    let th = Thresholds {
        resamples: a.run.resamples(),
        seed: a.run.seed,
        ..Default::default()
    };
    let jobs = a.run.jobs();
    let report = run_compare(&a.baseline, &a.candidate, Some(&package), &th, jobs);
    super::gate::print_warnings(&report.warnings);
    // The per-frame values for the histograms (the statistics above are run_compare's).
    let b = measure_inputs(&a.baseline, Some(&package), jobs, Default::default());
    let c = measure_inputs(&a.candidate, Some(&package), jobs, Default::default());
    let mut dists = Vec::new();
    for t in &report.tests {
        // Paired as run_compare pairs them: by name, or the only test on each side.
        let pair = if b.tests.len() == 1 && c.tests.len() == 1 {
            b.tests.values().next().zip(c.tests.values().next())
        } else {
            b.tests.get(&t.test).zip(c.tests.get(&t.test))
        };
        if let Some((bv, cv)) = pair {
            dists.push(CompareDistributions::new(&t.test, bv, cv));
        }
    }
    for e in &report.errors {
        eprintln!("warning: {e}");
    }
    // What changed per interaction; a page without it when the traces have none in common.
    let diff = compare_diff(&a, &package, jobs);
    if let Err(e) = &diff {
        eprintln!("warning: no per-interaction diff on the page: {e:#}");
    }
    let page = html::render_compare(&report, &dists, diff.as_ref().ok());
    write_out(&a.output, &page)?;
    Ok(ExitCode::SUCCESS)
}

/// `frameprobe diff` of the same sides, for the compare page.
fn compare_diff(a: &ReportArgs, package: &str, jobs: usize) -> Result<crate::diff::DiffReport> {
    use crate::diff::side::{load_side, SideOptions};
    let opts = SideOptions {
        processes: vec![package.to_string(), format!("{package}:*")],
        jobs,
        ..Default::default()
    };
    let th = crate::diff::DiffThresholds {
        resamples: a.run.resamples(),
        seed: a.run.seed,
        ..Default::default()
    };
    let (bi, bw, _) = load_side(&a.baseline, &opts).map_err(|e| e.context("baseline"))?;
    let (ci, cw, _) = load_side(&a.candidate, &opts).map_err(|e| e.context("candidate"))?;
    let d = crate::diff::diff_windows((&bi, &bw), (&ci, &cw), &th);
    if d.interactions.is_empty() {
        bail!("no interaction of {package} is found on both sides");
    }
    Ok(d)
}
