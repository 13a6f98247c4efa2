//! `dumpsys gfxinfo <pkg> framestats` parsing and HWUI JankTracker verdicts (issue 6).
//!
//! - [`frame_info`]: HWUI's per-frame record and `FrameInfo::duration`;
//! - [`jank_tracker`]: JankTracker's state machine (deadline path, legacy path, COMPARISONS);
//! - [`jank_type`]: HWUI's jank types, shared by the tracker and the counters;
//! - [`profile_data`]: the counters, histograms and percentiles `dumpsys` prints;
//! - [`metrics`]: FrameMetrics durations and androidx JankStats' verdict per frame;
//! - [`parser`]: reading `dumpsys gfxinfo ... framestats` text into windows and rows;
//! - [`replay`]: running each window's rows through a JankTracker;
//! - [`summary`]: the per-window counters, recomputed or as HWUI printed them.

pub mod frame_info;
pub mod jank_tracker;
pub mod jank_type;
pub mod metrics;
pub mod parser;
pub mod profile_data;
pub mod replay;
pub mod summary;

/// Why a dump could not be read at all. Damage inside a readable dump is reported as
/// [`parser::Diagnostic`]s instead.
#[derive(Debug, thiserror::Error)]
pub enum GfxinfoError {
    #[error(
        "no `---PROFILEDATA---` block in {lines} lines{hint} (capture with \
         `adb shell dumpsys gfxinfo <package> framestats`)"
    )]
    NoProfileData { lines: usize, hint: String },
}
