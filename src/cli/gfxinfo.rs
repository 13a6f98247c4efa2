//! `frameprobe gfxinfo FILE`: HWUI JankTracker verdicts recomputed from framestats dumps.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use crate::gfxinfo::jank_tracker::dequeue_forgiveness_ns;
use crate::gfxinfo::parser;
use crate::gfxinfo::replay::ReplayOptions;
use crate::report::gfxinfo;
use crate::report::result_set::Format;

#[derive(clap::Args)]
pub struct GfxinfoArgs {
    /// A `dumpsys gfxinfo [<pkg>] framestats` dump (`-` for standard input). UTF-8 or
    /// UTF-16 (as written by a PowerShell redirect), LF or CRLF.
    pub file: PathBuf,
    /// table for people, csv (one row per frame; with --summary-only one per window) or json.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// App vsync offset in ns. With --sf-offset-ns it turns on the legacy path's
    /// dequeueBuffer forgiveness (off otherwise: a dump does not record the offsets).
    #[arg(long, requires = "sf_offset_ns", allow_negative_numbers = true)]
    pub app_offset_ns: Option<i64>,
    /// SurfaceFlinger vsync offset in ns (see --app-offset-ns).
    #[arg(long, requires = "app_offset_ns", allow_negative_numbers = true)]
    pub sf_offset_ns: Option<i64>,
    /// Frame interval for dumps without a FrameInterval column (Android 6–11); inferred
    /// from the IntendedVsync spacing when absent.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..))]
    pub frame_interval_ns: Option<i64>,
    /// Only the per-window summaries: no frame rows in table and CSV, empty `frames` in JSON.
    #[arg(long)]
    pub summary_only: bool,
}

pub fn run(a: GfxinfoArgs) -> Result<ExitCode> {
    let bytes = if a.file.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::stdin()
            .read_to_end(&mut b)
            .context("reading the dump from standard input")?;
        b
    } else {
        std::fs::read(&a.file).map_err(|e| {
            anyhow::anyhow!(
                "cannot read {}: {}",
                a.file.display(),
                crate::trace::reader::io_reason(&e)
            )
        })?
    };
    // The parsed rows own their values: the text is dropped before replaying.
    let dump = {
        let text = parser::decode_owned(bytes);
        parser::parse(&text).with_context(|| format!("{}", a.file.display()))?
    };
    let warnings: Vec<String> = dump.diagnostics.iter().map(|d| d.to_string()).collect();
    super::report_warnings(&a.file, &warnings);

    let forgiveness = match (a.app_offset_ns, a.sf_offset_ns) {
        (Some(app), Some(sf)) => dequeue_forgiveness_ns(app, sf),
        _ => 0,
    };
    let opts = ReplayOptions {
        dequeue_forgiveness_ns: forgiveness,
        frame_interval_ns: a.frame_interval_ns,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // A closed pipe (`| head`) is handled by cli::main.
    write_output(&mut out, &a, &dump, &opts)?;
    Ok(ExitCode::SUCCESS)
}

fn write_output(
    out: &mut dyn Write,
    a: &GfxinfoArgs,
    dump: &parser::Dump,
    opts: &ReplayOptions,
) -> Result<()> {
    match a.format {
        Format::Table => gfxinfo::write_table(out, dump, opts, a.summary_only)?,
        Format::Csv if a.summary_only => gfxinfo::csv::write_summary(out, dump, opts)?,
        Format::Csv => gfxinfo::csv::write_frames(out, dump, opts)?,
        Format::Json => {
            let options = gfxinfo::json::OptionsJson {
                app_offset_ns: a.app_offset_ns,
                sf_offset_ns: a.sf_offset_ns,
                dequeue_forgiveness_ns: opts.dequeue_forgiveness_ns,
                frame_interval_ns: a.frame_interval_ns,
            };
            let file = a.file.display().to_string();
            gfxinfo::json::write(out, &file, options, dump, opts, a.summary_only)?;
        }
    }
    out.flush()?;
    Ok(())
}
