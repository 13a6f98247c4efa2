//! Bounds on what one trace may cost to read, whatever its bytes say: the total number of
//! decompressed bytes (whole-file gzip / zstd plus every `compressed_packets` blob, nested
//! or not) and how deeply compressed packets may nest.
//!
//! trace_processor v58.2 expands `compressed_packets` one level deep only (a compressed
//! packet inside a blob fails a CHECK) and has no budget across blobs. frameprobe expands a
//! few levels and refuses, counts and reports whatever goes past these bounds.

use std::sync::atomic::{AtomicU64, Ordering};

/// Nested `compressed_packets` levels expanded (1 = a blob inside a top-level packet).
/// Deeper blobs are skipped and counted; recursion depth (and so stack use) stays small.
pub const MAX_COMPRESSION_NESTING: u32 = 8;

/// The default budget is this many times the size of the input file...
pub const BUDGET_INPUT_RATIO: u64 = 64;
/// ...but never less than this (small traces may compress very well)...
pub const BUDGET_FLOOR: u64 = 256 << 20;
/// ...and never more than this (also the budget of standard input, whose size is unknown).
pub const BUDGET_CAP: u64 = 8 << 30;

/// The stat counting refusals for want of budget, and its description.
pub const BUDGET_STAT: &str = "decompression_budget_exceeded";
pub const BUDGET_STAT_DESCRIPTION: &str =
    "Decompressed data beyond the trace's decompression budget (--max-decompressed-bytes) was not read.";

/// The `--max-decompressed-bytes` value, 0 when not given (set once by the CLI).
static OVERRIDE: AtomicU64 = AtomicU64::new(0);

/// Replaces the default budget for every trace read by this process (`None`: default).
pub fn set_budget_override(bytes: Option<u64>) {
    OVERRIDE.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The decompression budget for an input of `input_size` bytes (`None`: unknown size).
pub fn default_budget(input_size: Option<u64>) -> u64 {
    match OVERRIDE.load(Ordering::Relaxed) {
        0 => budget_for(input_size),
        n => n,
    }
}

/// `BUDGET_INPUT_RATIO` × size, within [`BUDGET_FLOOR`, `BUDGET_CAP`].
pub fn budget_for(input_size: Option<u64>) -> u64 {
    match input_size {
        None => BUDGET_CAP,
        Some(n) => n
            .saturating_mul(BUDGET_INPUT_RATIO)
            .clamp(BUDGET_FLOOR, BUDGET_CAP),
    }
}

/// Decompressed bytes a trace may still produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limit: u64,
    pub used: u64,
}

impl Budget {
    pub fn new(limit: u64) -> Self {
        Budget { limit, used: 0 }
    }

    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Records `n` more decompressed bytes.
    pub fn charge(&mut self, n: u64) {
        self.used = self.used.saturating_add(n);
    }

    pub fn exhausted(&self) -> bool {
        self.used >= self.limit
    }
}

/// Parses a byte count as the CLI takes it: digits with an optional binary suffix
/// (`K`, `M`, `G`, `T`, optionally followed by `iB` or `B`), e.g. `512M`, `2GiB`, `1000000`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return Err(format!("{s:?} is not a byte count (e.g. 512M, 2G)"));
    }
    let n: u64 = t[..digits]
        .parse()
        .map_err(|_| format!("{s:?} is too large"))?;
    let shift = match t[digits..].to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {s:?} (use K, M, G or T)"
            ))
        }
    };
    let v = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))?;
    if v == 0 {
        return Err("the budget must be at least one byte".into());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_budget_scales_with_the_input_within_floor_and_cap() {
        // 1 MiB in: 64 MiB is under the floor.
        assert_eq!(budget_for(Some(1 << 20)), 256 << 20);
        // 100 MiB in: 6.25 GiB, between floor and cap.
        assert_eq!(budget_for(Some(100 << 20)), 6400 << 20);
        // 1 GiB in: 64 GiB is over the cap.
        assert_eq!(budget_for(Some(1 << 30)), 8 << 30);
        assert_eq!(budget_for(Some(u64::MAX)), 8 << 30);
        // Standard input: size unknown.
        assert_eq!(budget_for(None), 8 << 30);
    }

    #[test]
    fn budget_counts_down_and_saturates() {
        let mut b = Budget::new(10);
        b.charge(4);
        assert_eq!(b.remaining(), 6);
        assert!(!b.exhausted());
        b.charge(u64::MAX);
        assert_eq!(b.remaining(), 0);
        assert!(b.exhausted());
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("3k"), Ok(3 << 10));
        assert!(parse_size("").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("12X").is_err());
        assert!(parse_size("99999999999T").is_err());
    }
}
