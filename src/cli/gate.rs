//! `frameprobe check` and `frameprobe compare`: the CI gate.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::gate::check::{parse_rule, GateConfig, Rule};
use crate::gate::compare::Thresholds;
use crate::gate::{annotations, run_check, run_compare, CheckOptions};
use crate::report::gate as output;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GateFormat {
    Table,
    Json,
    Markdown,
    Junit,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Macrobenchmark output directories (searched recursively for *-benchmarkData.json and
    /// traces), benchmarkData.json files, or traces.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The app under test (package name; `pkg:subprocess` processes are included). Not
    /// needed with a benchmarkData.json: each benchmark's app is inferred from its test
    /// package and the trace.
    #[arg(long)]
    pub process: Option<String>,
    /// Max percent of FrameTimeline frames that are janky (Self/Other Jank, Dropped).
    #[arg(long)]
    pub max_jank_rate: Option<f64>,
    /// Max P95 of Macrobenchmark's frameOverrunMs.
    #[arg(long)]
    pub max_p95_overrun_ms: Option<f64>,
    /// Max P99 of Macrobenchmark's frameDurationCpuMs.
    #[arg(long)]
    pub max_p99_cpu_ms: Option<f64>,
    /// Max frozen frames: CPU time over 700 ms (Android vitals).
    #[arg(long)]
    pub max_frozen_frames: Option<f64>,
    /// Fewer frames than this (all iterations pooled) cannot be judged: exit 2.
    #[arg(long)]
    pub min_frames: Option<f64>,
    /// Any metric: `[BENCHMARK_GLOB:]METRIC<=LIMIT` or `...>=LIMIT` (e.g.
    /// `frame_cpu_ms_p90<=12`, `*Scroll*#*:frameOverrunMs_P95<=4`). Repeatable.
    #[arg(long)]
    pub rule: Vec<String>,
    /// Rules from a TOML file (same keys as the flags, plus [[rule]] tables).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// table for people, json (`check/v1`), markdown (PR comment, $GITHUB_STEP_SUMMARY) or
    /// junit (one testcase per benchmark and rule).
    #[arg(long, value_enum, default_value = "table")]
    pub format: GateFormat,
    /// Also write the report to this file (e.g. a JUnit file for the CI system); `-` is
    /// standard output.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Traces processed in parallel (default: number of cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Evaluate the rules even when the numbers are inconclusive (an emulator, too few
    /// frames, ...); without it an inconclusive test exits 2.
    #[arg(long)]
    pub allow_inconclusive: bool,
    /// Accept runs whose CPU clocks were not locked (benchmarkData.json `cpuLocked: false`,
    /// most unrooted devices) as degraded instead of inconclusive.
    #[arg(long)]
    pub allow_unlocked_clocks: bool,
    #[command(flatten)]
    pub range: super::range_args::RangeArgs,
    #[command(flatten)]
    pub interactions: super::interaction_args::InteractionArgs,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Macrobenchmark output directories, benchmarkData.json files or traces.
    #[arg(long, num_args = 1.., required = true)]
    pub baseline: Vec<PathBuf>,
    /// The same for the change under test: directories, benchmarkData.json files or traces.
    #[arg(long, num_args = 1.., required = true)]
    pub candidate: Vec<PathBuf>,
    /// The app under test; inferred per benchmark when a benchmarkData.json names its test
    /// package.
    #[arg(long)]
    pub process: Option<String>,
    /// Smallest change in a duration (ms) that can be a regression.
    #[arg(long, default_value_t = 1.0)]
    pub min_abs_ms: f64,
    /// Smallest change in a rate (percentage points) that can be a regression.
    #[arg(long, default_value_t = 2.0)]
    pub min_abs_pct: f64,
    /// Smallest relative change (percent of the baseline) that can be a regression.
    #[arg(long, default_value_t = 10.0)]
    pub min_rel_pct: f64,
    /// table for people, json (`compare/v1`), markdown or junit.
    #[arg(long, value_enum, default_value = "table")]
    pub format: GateFormat,
    /// Also write the report to this file; `-` is standard output.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub run: super::compare_run_args::CompareRunArgs,
}

/// The report on standard output, and also in the `-o` file (`-o -`: standard output once).
pub fn emit(text: &str, output: &Option<PathBuf>) -> Result<()> {
    if let Some(p) = output
        .as_deref()
        .filter(|p| !super::output_file::is_stdout(p))
    {
        super::output_file::write(p, text.as_bytes())?;
    }
    super::stdout::write_all(text.as_bytes())?;
    Ok(())
}

pub fn run_check_cmd(a: CheckArgs) -> Result<ExitCode> {
    let config = match &a.config {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            toml::from_str::<GateConfig>(&text)
                .with_context(|| format!("parsing {}", p.display()))?
        }
        None => GateConfig::default(),
    };
    let process = a.process.clone().or(config.process.clone());
    let flags = GateConfig {
        process: None,
        max_jank_rate: a.max_jank_rate,
        max_p95_overrun_ms: a.max_p95_overrun_ms,
        max_p99_cpu_ms: a.max_p99_cpu_ms,
        max_frozen_frames: a.max_frozen_frames,
        min_frames: a.min_frames,
        rule: Vec::new(),
    };
    let mut rules: Vec<Rule> = config.rules()?;
    rules.extend(flags.rules()?);
    for r in &a.rule {
        rules.push(parse_rule(r)?);
    }
    let jobs = a.jobs.unwrap_or_else(crate::gate::measure::default_jobs);
    let opts = CheckOptions {
        jobs,
        allow_inconclusive: a.allow_inconclusive,
        allow_unlocked_clocks: a.allow_unlocked_clocks,
        range: a.range.spec()?,
        interactions: a.interactions.options()?,
    };
    let report = run_check(&a.inputs, process.as_deref(), &rules, opts);
    // The table and Markdown list the warnings themselves.
    if matches!(a.format, GateFormat::Json | GateFormat::Junit) {
        print_warnings(&report.warnings);
    }
    print_annotations(annotations::check(&report));
    let text = match a.format {
        GateFormat::Table => output::check_table(&report),
        GateFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        GateFormat::Markdown => output::check_markdown(&report),
        GateFormat::Junit => output::check_junit(&report),
    };
    emit(&text, &a.output)?;
    Ok(ExitCode::from(report.exit_code))
}

pub fn run_compare_cmd(a: CompareArgs) -> Result<ExitCode> {
    let th = Thresholds {
        abs_ms: a.min_abs_ms,
        abs_pct: a.min_abs_pct,
        rel_pct: a.min_rel_pct,
        resamples: a.run.resamples(),
        seed: a.run.seed,
        ..Default::default()
    };
    let jobs = a.run.jobs();
    let report = run_compare(&a.baseline, &a.candidate, a.process.as_deref(), &th, jobs);
    print_warnings(&report.warnings);
    print_annotations(annotations::compare(&report));
    let text = match a.format {
        GateFormat::Table => output::compare_table(&report),
        GateFormat::Json => serde_json::to_string_pretty(&report)? + "\n",
        GateFormat::Markdown => output::compare_markdown(&report),
        GateFormat::Junit => output::compare_junit(&report),
    };
    emit(&text, &a.output)?;
    Ok(ExitCode::from(report.exit_code))
}

/// GitHub Actions annotations, inside a GitHub Actions job only. They go to standard error:
/// the runner reads workflow commands from both streams, and standard output carries the
/// report (JSON, or Markdown appended to `$GITHUB_STEP_SUMMARY`).
fn print_annotations(lines: Vec<String>) {
    if annotations::enabled() {
        for l in lines {
            eprintln!("{l}");
        }
    }
}

/// The traces' load warnings on standard error (each already names its trace).
pub fn print_warnings(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {w}");
    }
}
