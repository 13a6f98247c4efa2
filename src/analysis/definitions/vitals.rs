//! Android vitals' (and Firebase Performance's) slow and frozen frames: fixed thresholds on
//! the frame's UI + RenderThread time, independent of the refresh rate (the slow threshold
//! assumes 60 Hz). frameprobe measures that time as Macrobenchmark's frameDurationCpu:
//! doFrame start to the end of the frame's DrawFrame.

/// Slow: more than 16 ms.
pub const SLOW_NS: i64 = 16_000_000;
/// Frozen: more than 700 ms.
pub const FROZEN_NS: i64 = 700_000_000;

pub fn is_slow(cpu_ns: i64) -> bool {
    cpu_ns > SLOW_NS
}

pub fn is_frozen(cpu_ns: i64) -> bool {
    cpu_ns > FROZEN_NS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_strictly_greater() {
        assert!(!is_slow(16_000_000));
        assert!(is_slow(16_000_001));
        assert!(!is_frozen(700_000_000));
        assert!(is_frozen(700_000_001));
        // A 20 ms frame is slow at any refresh rate, frozen only past 700 ms.
        assert!(is_slow(20_000_000) && !is_frozen(20_000_000));
    }
}
