//! The per-window summary in the shape `dumpsys gfxinfo` prints it, recomputed or printed,
//! and the list of counters both are compared on.

use super::jank_type::JankType;
use super::parser::{PrintedSummary, PERCENTILES};
use super::profile_data::{HistogramEntry, ProfileData};

/// One line of the summary, in the order of the JSON contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    TotalFrames,
    JankyFrames,
    JankyFramesLegacy,
    Type(JankType),
    /// Index into [`PERCENTILES`].
    Percentile(usize),
}

impl Counter {
    /// Every counter: totals, the seven jank types, then P50/P90/P95/P99.
    pub fn all() -> Vec<Counter> {
        let mut v = vec![
            Counter::TotalFrames,
            Counter::JankyFrames,
            Counter::JankyFramesLegacy,
        ];
        v.extend(JankType::ALL.into_iter().map(Counter::Type));
        v.extend((0..PERCENTILES.len()).map(Counter::Percentile));
        v
    }

    /// The JSON key.
    pub fn key(self) -> &'static str {
        match self {
            Counter::TotalFrames => "total_frames",
            Counter::JankyFrames => "janky_frames",
            Counter::JankyFramesLegacy => "janky_frames_legacy",
            Counter::Type(t) => t.key(),
            Counter::Percentile(i) => ["p50_ms", "p90_ms", "p95_ms", "p99_ms"][i.min(3)],
        }
    }

    /// The label as HWUI prints it.
    pub fn label(self) -> String {
        match self {
            Counter::TotalFrames => "Total frames rendered".into(),
            Counter::JankyFrames => "Janky frames".into(),
            Counter::JankyFramesLegacy => "Janky frames (legacy)".into(),
            Counter::Type(t) => format!("Number {}", t.hwui_name()),
            Counter::Percentile(i) => format!("{}th percentile (ms)", PERCENTILES[i.min(3)]),
        }
    }
}

/// A window's statistics as frameprobe recomputed them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub total_frames: u32,
    pub janky_frames: u32,
    pub janky_frames_legacy: u32,
    pub jank_types: [u32; JankType::COUNT],
    pub percentiles_ms: [u32; 4],
    pub gpu_percentiles_ms: [u32; 4],
    pub histogram: Vec<HistogramEntry>,
    pub gpu_histogram: Vec<HistogramEntry>,
}

impl Summary {
    pub fn from_data(data: &ProfileData) -> Self {
        Self {
            total_frames: data.total_frame_count(),
            janky_frames: data.jank_frame_count(),
            janky_frames_legacy: data.jank_legacy_frame_count(),
            jank_types: JankType::ALL.map(|t| data.jank_type_count(t)),
            percentiles_ms: PERCENTILES.map(|p| data.find_percentile(p)),
            gpu_percentiles_ms: PERCENTILES.map(|p| data.find_gpu_percentile(p)),
            histogram: data.histogram(),
            gpu_histogram: data.gpu_histogram(),
        }
    }

    pub fn get(&self, c: Counter) -> u32 {
        match c {
            Counter::TotalFrames => self.total_frames,
            Counter::JankyFrames => self.janky_frames,
            Counter::JankyFramesLegacy => self.janky_frames_legacy,
            Counter::Type(t) => self.jank_types[t as usize],
            Counter::Percentile(i) => self.percentiles_ms[i.min(3)],
        }
    }
}

impl PrintedSummary {
    /// The printed value of a counter, if the dump has that line.
    pub fn get(&self, c: Counter) -> Option<u32> {
        match c {
            Counter::TotalFrames => self.total_frames,
            Counter::JankyFrames => self.janky_frames,
            Counter::JankyFramesLegacy => self.janky_frames_legacy,
            Counter::Type(t) => self.jank_type(t),
            Counter::Percentile(i) => self.percentiles_ms[i.min(3)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_follow_the_json_contract_order() {
        let keys: Vec<&str> = Counter::all().into_iter().map(Counter::key).collect();
        assert_eq!(
            keys,
            vec![
                "total_frames",
                "janky_frames",
                "janky_frames_legacy",
                "missed_vsync",
                "high_input_latency",
                "slow_ui_thread",
                "slow_bitmap_uploads",
                "slow_issue_draw_commands",
                "frame_deadline_missed",
                "frame_deadline_missed_legacy",
                "p50_ms",
                "p90_ms",
                "p95_ms",
                "p99_ms",
            ]
        );
        assert_eq!(
            Counter::Type(JankType::SlowSync).label(),
            "Number Slow bitmap uploads"
        );
    }
}
