//! `frameprobe gfxinfo FILE`: HWUI JankTracker verdicts recomputed from framestats dumps.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct GfxinfoArgs {
    /// A `dumpsys gfxinfo <pkg> framestats` dump (`-` for standard input).
    pub file: PathBuf,
}

pub fn run(_a: GfxinfoArgs) -> Result<ExitCode> {
    bail!("gfxinfo is not implemented yet")
}
