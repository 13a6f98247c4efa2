//! FrameTimeline vocabulary, as trace_processor renders it: the FrameTimelineEvent jank_type
//! bitmask as text, the jank tags of display and surface frames, and the present, prediction,
//! severity and fence enum names. The importer writes these into the tables and analysis
//! reads them back, so they sit below both.

/// FrameTimelineEvent.JankType bits (values from SurfaceFlinger's proto).
pub mod bits {
    pub const UNSPECIFIED: i32 = 0;
    pub const NONE: i32 = 1;
    pub const SF_SCHEDULING: i32 = 2;
    pub const PREDICTION_ERROR: i32 = 4;
    pub const DISPLAY_HAL: i32 = 8;
    pub const SF_CPU_DEADLINE_MISSED: i32 = 16;
    pub const SF_GPU_DEADLINE_MISSED: i32 = 32;
    pub const APP_DEADLINE_MISSED: i32 = 64;
    pub const BUFFER_STUFFING: i32 = 128;
    pub const UNKNOWN: i32 = 256;
    pub const SF_STUFFING: i32 = 512;
    pub const DROPPED: i32 = 1024;
    pub const NON_ANIMATING: i32 = 2048;
    pub const APP_RESYNCED_JITTER: i32 = 4096;
    pub const DISPLAY_NOT_ON: i32 = 8192;
    pub const DISPLAY_MODE_CHANGE_IN_PROGRESS: i32 = 16384;
    pub const DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS: i32 = 32768;
}

use bits::*;

/// Reasons in the order trace_processor lists them (not bit order: App Resynced Jitter
/// comes right after App Deadline Missed).
const REASONS: [(i32, &str); 16] = [
    (SF_SCHEDULING, "SurfaceFlinger Scheduling"),
    (PREDICTION_ERROR, "Prediction Error"),
    (DISPLAY_HAL, "Display HAL"),
    (SF_CPU_DEADLINE_MISSED, "SurfaceFlinger CPU Deadline Missed"),
    (SF_GPU_DEADLINE_MISSED, "SurfaceFlinger GPU Deadline Missed"),
    (APP_DEADLINE_MISSED, "App Deadline Missed"),
    (APP_RESYNCED_JITTER, "App Resynced Jitter"),
    (BUFFER_STUFFING, "Buffer Stuffing"),
    (UNKNOWN, "Unknown Jank"),
    (SF_STUFFING, "SurfaceFlinger Stuffing"),
    (DROPPED, "Dropped Frame"),
    (NON_ANIMATING, "Non Animating"),
    (DISPLAY_NOT_ON, "Display not ON"),
    (DISPLAY_MODE_CHANGE_IN_PROGRESS, "ModeChange in progress"),
    (
        DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS,
        "PowerModeChange in progress",
    ),
    (0, ""),
];

/// The reasons set in `mask`, in trace_processor's order.
pub fn jank_reasons(mask: i32) -> Vec<&'static str> {
    REASONS
        .iter()
        .filter(|(b, _)| *b != 0 && mask & b != 0)
        .map(|(_, n)| *n)
        .collect()
}

/// `jank_type` column text: "Unspecified", "None", or the ", "-joined reasons.
pub fn jank_type_string(mask: i32) -> String {
    match mask {
        UNSPECIFIED => "Unspecified".into(),
        NONE => "None".into(),
        _ => jank_reasons(mask).join(", "),
    }
}

/// Jank that SurfaceFlinger or the display is responsible for.
pub fn display_frame_janky(mask: i32) -> bool {
    if matches!(mask, UNSPECIFIED | NON_ANIMATING | DISPLAY_NOT_ON | NONE) {
        return false;
    }
    mask & (SF_SCHEDULING
        | PREDICTION_ERROR
        | DISPLAY_HAL
        | SF_CPU_DEADLINE_MISSED
        | SF_GPU_DEADLINE_MISSED)
        != 0
}

/// Jank the app is responsible for.
pub fn surface_frame_janky(mask: i32) -> bool {
    if matches!(mask, UNSPECIFIED | NONE | NON_ANIMATING | DISPLAY_NOT_ON) {
        return false;
    }
    mask & (APP_DEADLINE_MISSED | APP_RESYNCED_JITTER | UNKNOWN) != 0
}

fn is_non_perceivable(mask: i32) -> bool {
    matches!(
        mask,
        NON_ANIMATING | DISPLAY_NOT_ON | DISPLAY_POWER_MODE_CHANGE_IN_PROGRESS
    )
}

pub const TAG_UNSPECIFIED: &str = "Unspecified";
pub const TAG_NONE: &str = "No Jank";
pub const TAG_SELF: &str = "Self Jank";
pub const TAG_OTHER: &str = "Other Jank";
pub const TAG_DROPPED: &str = "Dropped Frame";
pub const TAG_BUFFER_STUFFING: &str = "Buffer Stuffing";
pub const TAG_SF_STUFFING: &str = "SurfaceFlinger Stuffing";
pub const TAG_NON_PERCEIVABLE: &str = "Non-perceivable Jank";

/// Whether a surface frame's jank tag is jank the user could see: the app's own, another
/// party's, or a dropped frame (buffer stuffing and unspecified are not).
pub fn user_visible_jank_tag(tag: &str) -> bool {
    matches!(tag, TAG_SELF | TAG_OTHER | TAG_DROPPED)
}

/// `jank_tag` of a display frame (SurfaceFlinger's own frame).
pub fn display_frame_jank_tag(mask: i32) -> &'static str {
    if mask == UNSPECIFIED {
        TAG_UNSPECIFIED
    } else if display_frame_janky(mask) {
        TAG_SELF
    } else if mask == SF_STUFFING {
        TAG_SF_STUFFING
    } else if mask == DROPPED {
        TAG_DROPPED
    } else if is_non_perceivable(mask) {
        TAG_NON_PERCEIVABLE
    } else {
        TAG_NONE
    }
}

/// `jank_tag` of a surface frame (an app's frame). `present_type` is the validated raw
/// present type, when the event carried a valid one.
pub fn surface_frame_jank_tag(mask: i32, present_type: Option<i32>) -> &'static str {
    if mask == UNSPECIFIED {
        TAG_UNSPECIFIED
    } else if surface_frame_janky(mask) {
        TAG_SELF
    } else if display_frame_janky(mask) {
        TAG_OTHER
    } else if mask == BUFFER_STUFFING {
        TAG_BUFFER_STUFFING
    } else if mask == SF_STUFFING {
        TAG_SF_STUFFING
    } else if present_type == Some(PRESENT_DROPPED) {
        TAG_DROPPED
    } else if is_non_perceivable(mask) {
        TAG_NON_PERCEIVABLE
    } else {
        TAG_NONE
    }
}

pub const PRESENT_DROPPED: i32 = 4;
const PRESENT_NAMES: [&str; 6] = [
    "Unspecified Present",
    "On-time Present",
    "Late Present",
    "Early Present",
    "Dropped Frame",
    "Unknown Present",
];

/// A present type is valid when it is ON_TIME..UNKNOWN (1..=5).
pub fn valid_present_type(v: i32) -> bool {
    (1..=5).contains(&v)
}

/// Present type text; unspecified or out-of-range values read "Unspecified Present".
pub fn present_type_name(v: Option<i32>) -> &'static str {
    match v {
        Some(p) if valid_present_type(p) => PRESENT_NAMES[p as usize],
        _ => PRESENT_NAMES[0],
    }
}

pub fn valid_prediction_type(v: i32) -> bool {
    (1..=3).contains(&v)
}

pub fn prediction_type_name(v: Option<i32>) -> &'static str {
    const NAMES: [&str; 4] = [
        "Unspecified Prediction",
        "Valid Prediction",
        "Expired Prediction",
        "Unknown Prediction",
    ];
    match v {
        Some(p) if valid_prediction_type(p) => NAMES[p as usize],
        _ => NAMES[0],
    }
}

/// Severity text. Traces from before the field existed get "None" for frames without jank
/// and "Unknown" otherwise.
pub fn severity_name(v: Option<i32>, mask: i32) -> &'static str {
    const NAMES: [&str; 4] = ["Unknown", "None", "Partial", "Full"];
    match v {
        Some(s) if (0..=3).contains(&s) => NAMES[s as usize],
        Some(_) => NAMES[0],
        None if mask == NONE => NAMES[1],
        None => NAMES[0],
    }
}

pub fn latched_fence_state_name(v: i32) -> &'static str {
    match v {
        1 => "Latched Signaled",
        2 => "Latched Unsignaled",
        3 => "Delayed Latch Fence Unsignaled",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jank_type_special_values() {
        assert_eq!(jank_type_string(0), "Unspecified");
        assert_eq!(jank_type_string(1), "None");
    }

    #[test]
    fn every_jank_bit_has_its_name() {
        let cases = [
            (2, "SurfaceFlinger Scheduling"),
            (4, "Prediction Error"),
            (8, "Display HAL"),
            (16, "SurfaceFlinger CPU Deadline Missed"),
            (32, "SurfaceFlinger GPU Deadline Missed"),
            (64, "App Deadline Missed"),
            (128, "Buffer Stuffing"),
            (256, "Unknown Jank"),
            (512, "SurfaceFlinger Stuffing"),
            (1024, "Dropped Frame"),
            (2048, "Non Animating"),
            (4096, "App Resynced Jitter"),
            (8192, "Display not ON"),
            (16384, "ModeChange in progress"),
            (32768, "PowerModeChange in progress"),
        ];
        for (bit, name) in cases {
            assert_eq!(jank_type_string(bit), name, "bit {bit}");
        }
    }

    #[test]
    fn combined_bits_join_in_perfettos_order() {
        // App Resynced Jitter (4096) is listed before Buffer Stuffing (128).
        assert_eq!(
            jank_type_string(64 | 128 | 4096),
            "App Deadline Missed, App Resynced Jitter, Buffer Stuffing"
        );
        assert_eq!(
            jank_type_string(2 | 16),
            "SurfaceFlinger Scheduling, SurfaceFlinger CPU Deadline Missed"
        );
        // NONE combined with a reason is not "None".
        assert_eq!(jank_type_string(1 | 64), "App Deadline Missed");
    }

    #[test]
    fn display_frame_tags() {
        assert_eq!(display_frame_jank_tag(0), "Unspecified");
        assert_eq!(display_frame_jank_tag(1), "No Jank");
        for b in [2, 4, 8, 16, 32] {
            assert_eq!(display_frame_jank_tag(b), "Self Jank", "bit {b}");
        }
        assert_eq!(display_frame_jank_tag(512), "SurfaceFlinger Stuffing");
        assert_eq!(display_frame_jank_tag(1024), "Dropped Frame");
        assert_eq!(display_frame_jank_tag(2048), "Non-perceivable Jank");
        assert_eq!(display_frame_jank_tag(8192), "Non-perceivable Jank");
        assert_eq!(display_frame_jank_tag(32768), "Non-perceivable Jank");
        // Mode change is not in the non-perceivable list; app bits are not display jank.
        assert_eq!(display_frame_jank_tag(16384), "No Jank");
        assert_eq!(display_frame_jank_tag(64), "No Jank");
        // Only an exact SF_STUFFING is "SurfaceFlinger Stuffing".
        assert_eq!(display_frame_jank_tag(512 | 1024), "No Jank");
    }

    #[test]
    fn surface_frame_tags() {
        assert_eq!(surface_frame_jank_tag(0, None), "Unspecified");
        assert_eq!(surface_frame_jank_tag(1, Some(1)), "No Jank");
        assert_eq!(surface_frame_jank_tag(64, None), "Self Jank");
        assert_eq!(surface_frame_jank_tag(4096, None), "Self Jank");
        assert_eq!(surface_frame_jank_tag(256, None), "Self Jank");
        // App jank wins over display jank.
        assert_eq!(surface_frame_jank_tag(64 | 16, None), "Self Jank");
        assert_eq!(surface_frame_jank_tag(2, None), "Other Jank");
        assert_eq!(surface_frame_jank_tag(4 | 128, None), "Other Jank");
        assert_eq!(surface_frame_jank_tag(128, None), "Buffer Stuffing");
        assert_eq!(surface_frame_jank_tag(512, None), "SurfaceFlinger Stuffing");
        assert_eq!(surface_frame_jank_tag(1024, Some(4)), "Dropped Frame");
        // Dropped is decided by the present type, not the DROPPED jank bit.
        assert_eq!(surface_frame_jank_tag(1024, Some(2)), "No Jank");
        assert_eq!(surface_frame_jank_tag(1, Some(4)), "Dropped Frame");
        assert_eq!(surface_frame_jank_tag(2048, None), "Non-perceivable Jank");
        assert_eq!(surface_frame_jank_tag(8192, None), "Non-perceivable Jank");
        assert_eq!(surface_frame_jank_tag(32768, None), "Non-perceivable Jank");
        assert_eq!(surface_frame_jank_tag(16384, None), "No Jank");
    }

    #[test]
    fn present_and_prediction_types_are_range_checked() {
        assert_eq!(present_type_name(Some(1)), "On-time Present");
        assert_eq!(present_type_name(Some(2)), "Late Present");
        assert_eq!(present_type_name(Some(3)), "Early Present");
        assert_eq!(present_type_name(Some(4)), "Dropped Frame");
        assert_eq!(present_type_name(Some(5)), "Unknown Present");
        assert_eq!(present_type_name(Some(0)), "Unspecified Present");
        assert_eq!(present_type_name(Some(9)), "Unspecified Present");
        assert_eq!(present_type_name(None), "Unspecified Present");
        assert_eq!(prediction_type_name(Some(1)), "Valid Prediction");
        assert_eq!(prediction_type_name(Some(2)), "Expired Prediction");
        assert_eq!(prediction_type_name(Some(3)), "Unknown Prediction");
        assert_eq!(prediction_type_name(Some(4)), "Unspecified Prediction");
    }

    #[test]
    fn severity_defaults_for_old_traces() {
        assert_eq!(severity_name(None, 1), "None");
        assert_eq!(severity_name(None, 64), "Unknown");
        assert_eq!(severity_name(Some(3), 64), "Full");
        assert_eq!(severity_name(Some(2), 64), "Partial");
        // A value past the enum (a newer producer) is "Unknown", even on a frame without jank.
        assert_eq!(severity_name(Some(4), 1), "Unknown");
        assert_eq!(severity_name(Some(-1), 1), "Unknown");
    }

    #[test]
    fn latched_fence_state_texts() {
        // trace_processor's latched_fence_state_ids_: the proto enum's order, 0 = Unknown.
        let names: Vec<&str> = (0..=3).map(latched_fence_state_name).collect();
        assert_eq!(
            names,
            [
                "Unknown",
                "Latched Signaled",
                "Latched Unsignaled",
                "Delayed Latch Fence Unsignaled"
            ]
        );
        assert_eq!(latched_fence_state_name(4), "Unknown");
    }
}
