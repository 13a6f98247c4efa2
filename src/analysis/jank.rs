//! Perfetto stdlib's jank-type predicates over the `jank_type` text (the text itself is
//! decoded in [`crate::trace::frame_timeline_vocab`]). Pure functions, tested rule by rule.

/// Perfetto stdlib `android_is_sf_jank_type`: the jank type text names a SurfaceFlinger
/// or display cause.
pub fn is_sf_jank_type(jank_type: &str) -> bool {
    [
        "SurfaceFlinger CPU Deadline Missed",
        "SurfaceFlinger GPU Deadline Missed",
        "SurfaceFlinger Scheduling",
        "Prediction Error",
        "Display HAL",
    ]
    .iter()
    .any(|p| jank_type.contains(p))
}

/// Perfetto stdlib `android_is_app_jank_type`.
pub fn is_app_jank_type(jank_type: &str) -> bool {
    jank_type.contains("App Deadline Missed") || jank_type.contains("App Resynced Jitter")
}

/// Perfetto stdlib `android_is_missed_frame_type`.
pub fn is_missed_frame_type(jank_type: &str) -> bool {
    is_sf_jank_type(jank_type) || is_app_jank_type(jank_type) || jank_type.contains("Dropped Frame")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdlib_jank_type_predicates() {
        assert!(is_sf_jank_type("Prediction Error"));
        assert!(is_sf_jank_type("App Deadline Missed, Display HAL"));
        assert!(!is_sf_jank_type("Buffer Stuffing"));
        assert!(is_app_jank_type("App Resynced Jitter"));
        assert!(!is_app_jank_type("Dropped Frame"));
        // Each of the three families alone makes a missed frame (stdlib: OR of the three).
        assert!(is_missed_frame_type("Dropped Frame"));
        assert!(is_missed_frame_type("App Deadline Missed"));
        assert!(is_missed_frame_type("SurfaceFlinger Scheduling"));
        assert!(!is_missed_frame_type("Buffer Stuffing"));
    }
}
