//! Command-line interface: one module per command. Nothing below this module knows about
//! the command line.

pub mod analyze;
pub mod compare_run_args;
pub mod diff;
pub mod doctor;
mod examples;
pub mod export;
mod export_parquet;
pub mod gate;
pub mod gfxinfo;
pub mod interaction_args;
pub mod load;
pub mod many_traces;
pub mod output_file;
pub mod query;
pub mod range_args;
pub mod report;
pub mod stdout;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "frameprobe",
    version,
    about = "Frame and jank analysis for Android Perfetto traces"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Most decompressed bytes one trace may produce (gzip / zstd file plus every
    /// compressed_packets blob), e.g. `2G`. Default: 64 x the file size, at least 256 MiB and
    /// at most 8 GiB (8 GiB for standard input). What goes beyond is skipped and counted.
    #[arg(long, global = true, value_parser = crate::trace::limits::parse_size)]
    pub max_decompressed_bytes: Option<u64>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Frames and jank per app and layer: counts, jank by cause, durations, blame.
    #[command(after_help = examples::ANALYZE)]
    Analyze(analyze::AnalyzeArgs),
    /// One row per frame (with --janky, only the janky ones).
    #[command(after_help = examples::FRAMES)]
    Frames(analyze::FramesArgs),
    /// What the trace holds for frame analysis, what each missing source costs and the trace
    /// config that adds it.
    #[command(after_help = examples::DOCTOR)]
    Doctor(doctor::DoctorArgs),
    /// CI gate: evaluate limits on Macrobenchmark traces (exit 0 pass, 1 fail, 2 error).
    #[command(after_help = examples::CHECK)]
    Check(gate::CheckArgs),
    /// CI gate: baseline vs candidate with bootstrap confidence intervals.
    #[command(after_help = examples::COMPARE)]
    Compare(gate::CompareArgs),
    /// What a change did, per interaction: frame metrics before and after, the slices that
    /// grew (per thread role and name) and each frame pair's largest grown slice.
    #[command(after_help = examples::DIFF)]
    Diff(diff::DiffArgs),
    /// Run SQL over the trace's tables (named and shaped like Perfetto trace_processor's).
    #[command(after_help = examples::QUERY)]
    Query(query::QueryArgs),
    /// Write the loaded tables to a SQLite file (for sqlite3, DuckDB, Datasette).
    #[command(after_help = examples::EXPORT)]
    Export(export::ExportArgs),
    /// Recompute HWUI JankTracker verdicts from `dumpsys gfxinfo <pkg> framestats` output.
    #[command(after_help = examples::GFXINFO)]
    Gfxinfo(gfxinfo::GfxinfoArgs),
    /// One self-contained HTML page: frame timelines, histograms, worst frames with blame;
    /// or baseline vs candidate distributions (--baseline/--candidate).
    #[command(after_help = examples::REPORT)]
    Report(report::ReportArgs),
}

/// Exit codes: 0 success, 1 a check failed (CI gates), 2 could not do the job.
pub const EXIT_ERROR: u8 = 2;

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    crate::trace::limits::set_budget_override(cli.max_decompressed_bytes);
    let result = match cli.command {
        Command::Analyze(a) => analyze::run(a),
        Command::Frames(a) => analyze::run_frames(a),
        Command::Doctor(a) => doctor::run(a),
        Command::Check(a) => gate::run_check_cmd(a),
        Command::Compare(a) => gate::run_compare_cmd(a),
        Command::Diff(a) => diff::run(a),
        Command::Query(a) => query::run(a),
        Command::Export(a) => export::run(a),
        Command::Gfxinfo(a) => gfxinfo::run(a),
        Command::Report(a) => report::run(a),
    };
    report_peak_rss();
    match result {
        Ok(code) => code,
        // A reader that stops early (`| head`) ends the command quietly.
        Err(e) if stdout::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Prints import warnings (damage after a good prefix) on standard error.
pub fn report_warnings(path: &std::path::Path, warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {}: {w}", path.display());
    }
}

/// For the benchmark: prints the process's peak resident set size when asked to.
fn report_peak_rss() {
    if std::env::var_os("FRAMEPROBE_REPORT_PEAK_RSS").is_none() {
        return;
    }
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        if let Some(l) = status.lines().find(|l| l.starts_with("VmHWM:")) {
            let kib = l
                .trim_start_matches("VmHWM:")
                .trim()
                .trim_end_matches("kB")
                .trim();
            eprintln!("peak_rss_kib={kib}");
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every argument of every command says what it is for in `--help`.
    #[test]
    fn every_option_has_help_text() {
        let cli = super::Cli::command();
        let mut missing = Vec::new();
        for cmd in cli.get_subcommands() {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if arg.get_help().is_none() && arg.get_long_help().is_none() && id != "help" {
                    missing.push(format!("{} {id}", cmd.get_name()));
                }
            }
        }
        assert!(missing.is_empty(), "arguments without help: {missing:?}");
    }
}
