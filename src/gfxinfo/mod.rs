//! `dumpsys gfxinfo <pkg> framestats` parsing and HWUI JankTracker verdicts (issue 6).
//!
//! - [`frame_info`]: HWUI's per-frame record and `FrameInfo::duration`;
//! - [`jank_tracker`]: JankTracker's state machine (deadline path, legacy path, COMPARISONS);
//! - [`profile_data`]: the counters, histograms and percentiles `dumpsys` prints;
//! - [`metrics`]: FrameMetrics durations and androidx JankStats' verdict per frame.

pub mod frame_info;
pub mod jank_tracker;
pub mod profile_data;
