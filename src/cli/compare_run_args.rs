//! The options every baseline-vs-candidate command shares (`compare`, `diff`, `report
//! --baseline/--candidate`): how the bootstrap is drawn and how many traces load at once.

use clap::Args;

#[derive(Args, Debug, Clone)]
pub struct CompareRunArgs {
    /// Bootstrap resamples for the confidence intervals (at least 10 are drawn).
    #[arg(long = "resamples", value_name = "RESAMPLES", default_value_t = 1000)]
    resamples_arg: usize,
    /// Seed of the bootstrap: the same inputs and seed give the same output.
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    /// Traces processed in parallel (default: number of cores).
    #[arg(long = "jobs", value_name = "JOBS")]
    jobs_arg: Option<usize>,
}

impl CompareRunArgs {
    /// Fewer than 10 resamples give no usable interval.
    pub fn resamples(&self) -> usize {
        self.resamples_arg.max(10)
    }

    pub fn jobs(&self) -> usize {
        self.jobs_arg
            .unwrap_or_else(crate::gate::measure::default_jobs)
    }
}
