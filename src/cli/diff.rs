//! `frameprobe diff BASE CANDIDATE`: which interactions a change made worse, and which
//! slices grew in them.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

use crate::analysis::interactions::InteractionOptions;
use crate::diff::side::{load_side, SideOptions};
use crate::diff::{diff_windows, DiffThresholds};
use crate::report::diff as output;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Table,
    Json,
    Markdown,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The baseline: a trace, or a directory of one test's iteration traces (a
    /// Macrobenchmark output directory). For several files use --baseline.
    #[arg(required_unless_present = "baseline", conflicts_with = "baseline")]
    pub base: Option<PathBuf>,
    /// The candidate, as BASE. For several files use --candidate.
    #[arg(required_unless_present = "candidate", conflicts_with = "candidate")]
    pub cand: Option<PathBuf>,
    /// Baseline iterations: traces or directories (instead of BASE).
    #[arg(long, num_args = 1.., requires = "candidate")]
    pub baseline: Vec<PathBuf>,
    /// Candidate iterations: traces or directories (instead of CANDIDATE).
    #[arg(long, num_args = 1.., requires = "baseline")]
    pub candidate: Vec<PathBuf>,
    /// Only processes whose name matches this glob. Repeatable.
    #[arg(long = "process", short = 'p')]
    pub processes: Vec<String>,
    /// App trace sections whose name matches this glob are interactions. Repeatable.
    #[arg(long)]
    pub interaction: Vec<String>,
    /// No frame for this long (ms) ends a burst of frames (default 100).
    #[arg(long)]
    pub idle_gap_ms: Option<f64>,
    /// Noise threshold: smallest rise in a slice's mean time per frame (ms) that is claimed.
    #[arg(long, default_value_t = DiffThresholds::default().min_abs_ms)]
    pub min_abs_ms: f64,
    /// Noise threshold: smallest relative rise (percent of the baseline) that is claimed.
    #[arg(long, default_value_t = DiffThresholds::default().min_rel_pct)]
    pub min_rel_pct: f64,
    /// table for people, json (`frameprobe.diff/v1`) or markdown (a PR comment).
    #[arg(long, value_enum, default_value = "table")]
    pub format: DiffFormat,
    /// Also write the report to this file; `-` is standard output.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: super::compare_run_args::CompareRunArgs,
    /// Table: keep long names whole instead of fitting the terminal.
    #[arg(long)]
    pub wide: bool,
}

pub fn run(a: DiffArgs) -> Result<ExitCode> {
    let side = |one: &Option<PathBuf>, many: &[PathBuf]| match one {
        Some(p) => vec![p.clone()],
        None => many.to_vec(),
    };
    let (base, cand) = (side(&a.base, &a.baseline), side(&a.cand, &a.candidate));
    let idle_gap_ns = match a.idle_gap_ms {
        Some(ms) if !(ms.is_finite() && ms > 0.0) => {
            bail!("--idle-gap-ms must be a positive number of ms, not {ms}")
        }
        Some(ms) => Some((ms * 1e6).round() as i64),
        None => None,
    };
    let non_negative = |x: f64| x.is_finite() && x >= 0.0;
    if !(non_negative(a.min_abs_ms) && non_negative(a.min_rel_pct)) {
        bail!("--min-abs-ms and --min-rel-pct must be numbers >= 0");
    }
    let opts = SideOptions {
        processes: a.processes.clone(),
        interactions: InteractionOptions {
            sections: a.interaction.clone(),
            idle_gap_ns,
        },
        jobs: a.run.jobs(),
    };
    let th = DiffThresholds {
        min_abs_ms: a.min_abs_ms,
        min_rel_pct: a.min_rel_pct,
        resamples: a.run.resamples(),
        seed: a.run.seed,
        ..Default::default()
    };
    let (bi, bw, bwarn) = load_side(&base, &opts).map_err(|e| e.context("baseline"))?;
    let (ci, cw, cwarn) = load_side(&cand, &opts).map_err(|e| e.context("candidate"))?;
    let mut report = diff_windows((&bi, &bw), (&ci, &cw), &th);
    report
        .warnings
        .extend(bwarn.into_iter().map(|w| format!("baseline: {w}")));
    report
        .warnings
        .extend(cwarn.into_iter().map(|w| format!("candidate: {w}")));
    if report.interactions.is_empty() {
        bail!(
            "no interaction is found on both sides (baseline: {} in {} trace(s), candidate: {} in {} trace(s))",
            bi.interactions.iter().sum::<usize>(),
            bi.traces.len(),
            ci.interactions.iter().sum::<usize>(),
            ci.traces.len()
        );
    }
    let text = match a.format {
        DiffFormat::Table if a.wide => output::diff_table_whole(&report),
        DiffFormat::Table => output::diff_table(&report, crate::report::shorten::table_width()),
        DiffFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        DiffFormat::Markdown => output::diff_markdown(&report),
    };
    super::gate::emit(&text, &a.output)?;
    Ok(ExitCode::SUCCESS)
}
