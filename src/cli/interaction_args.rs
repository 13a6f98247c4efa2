//! `--interaction GLOB`: interactions on analyze, frames, check and report.

use crate::analysis::interactions::InteractionOptions;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct InteractionArgs {
    /// Only the frames of interactions whose label matches this glob (repeatable): CUJ names
    /// (without J<>), `RV Scroll`, `startup`, `burst`; app trace sections whose name matches
    /// become interactions too. Without it every frame is analysed and the interactions are
    /// listed.
    #[arg(long, value_name = "GLOB")]
    pub interaction: Vec<String>,
    /// No frame for this long ends a burst of frames (milliseconds).
    #[arg(long, value_name = "MS", default_value_t = 100.0)]
    pub idle_gap_ms: f64,
}

impl InteractionArgs {
    pub fn options(&self) -> anyhow::Result<InteractionOptions> {
        if !(self.idle_gap_ms.is_finite() && self.idle_gap_ms > 0.0) {
            anyhow::bail!(
                "--idle-gap-ms must be a positive number of milliseconds, not {}",
                self.idle_gap_ms
            );
        }
        Ok(InteractionOptions {
            sections: self.interaction.clone(),
            idle_gap_ns: Some((self.idle_gap_ms * 1e6).round() as i64),
        })
    }
}
