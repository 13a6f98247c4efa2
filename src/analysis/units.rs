//! Durations as the outputs print them. Every frame analysis rounds the same way, so the
//! helpers live below all of them.

/// Nanoseconds as milliseconds to two decimals.
pub fn ms(ns: i64) -> f64 {
    (ns as f64 / 1e4).round() / 100.0
}

/// Milliseconds from `start` to `ts`, to the microsecond.
pub fn ms_since(ts: i64, start: i64) -> f64 {
    (ts.saturating_sub(start) as f64 / 1e3).round() / 1e3
}
