//! `--from` / `--to`: the time range of analyze, frames, check and report.

use anyhow::{bail, Result};

use crate::analysis::time_range::{RangeSpec, TimePoint};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct RangeArgs {
    /// Only frames starting at or after this time: seconds from the trace start (`2`, `2.5`,
    /// `+2.5s`, `1500ms`) or an absolute trace timestamp (`ns:578090289999415`). A frame
    /// starts at its actual surface frame's start, else its doFrame's (`ts` in `frames`).
    #[arg(long, value_name = "TIME", value_parser = TimePoint::parse, allow_hyphen_values = true)]
    pub from: Option<TimePoint>,
    /// Only frames starting before this time (same forms as --from; a frame starting exactly
    /// at --to is left out).
    #[arg(long, value_name = "TIME", value_parser = TimePoint::parse, allow_hyphen_values = true)]
    pub to: Option<TimePoint>,
}

impl RangeArgs {
    /// The range; --from at or after --to is an error when both are the same kind (relative
    /// or `ns:`). Mixed kinds are compared once the trace start is known.
    pub fn spec(&self) -> Result<RangeSpec> {
        use TimePoint::{Absolute, SinceStart};
        if let (Some(f), Some(t)) = (self.from, self.to) {
            let ordered = match (f, t) {
                (SinceStart(a), SinceStart(b)) | (Absolute(a), Absolute(b)) => Some(a < b),
                _ => None,
            };
            if ordered == Some(false) {
                bail!("--from ({f}) must be before --to ({t}): the range is [from, to)");
            }
        }
        Ok(RangeSpec {
            from: self.from,
            to: self.to,
        })
    }
}
