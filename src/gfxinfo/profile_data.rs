//! HWUI's `ProfileData`: the counters and histograms `dumpsys gfxinfo` prints, with the
//! platform's bucketing and percentile search reproduced bit for bit (unsigned wrap-around
//! and truncating casts included), so percentiles match what the device printed.

use super::jank_type::JankType;

/// A frame of ≤ this many ms goes to bucket 0.
const BUCKET_MIN_THRESHOLD: u32 = 5;
/// Above this, buckets are 2 ms wide.
const BUCKET_2MS_INTERVALS: u32 = 32;
/// Above this, buckets are 4 ms wide.
const BUCKET_4MS_INTERVALS: u32 = 48;
/// Frames that do not fit the 57 fine buckets go to 50 ms buckets from 150 ms to 4950 ms.
const SLOW_FRAME_BUCKET_INTERVAL_MS: u32 = 50;
const SLOW_FRAME_BUCKET_START_MS: u32 = 150;

pub const FRAME_BUCKETS: usize = 57;
pub const SLOW_FRAME_BUCKETS: usize = 97;
/// GPU histogram: 1 ms buckets for 1..=25 ms, the last one printed as 4950 ms.
pub const GPU_BUCKETS: usize = 26;

/// `ns2ms`: integer nanoseconds to integer milliseconds, truncating like C++.
fn ns2ms(ns: i64) -> i64 {
    ns / 1_000_000
}

/// `frameCountIndexForFrameTime`: the fine histogram bucket of a frame time. Indices ≥ 57
/// mean "slow frame". Written with HWUI's unsigned wrap-around on purpose.
pub fn frame_count_index_for_frame_time(frame_time_ns: i64) -> u32 {
    let mut index = ns2ms(frame_time_ns) as u32;
    let mask = if index > BUCKET_MIN_THRESHOLD {
        u32::MAX
    } else {
        0
    };
    index = (index.wrapping_sub(BUCKET_4MS_INTERVALS) >> u32::from(index > BUCKET_4MS_INTERVALS))
        .wrapping_add(BUCKET_4MS_INTERVALS);
    index = (index.wrapping_sub(BUCKET_2MS_INTERVALS) >> u32::from(index > BUCKET_2MS_INTERVALS))
        .wrapping_add(BUCKET_2MS_INTERVALS);
    index.wrapping_sub(BUCKET_MIN_THRESHOLD) & mask
}

/// `frameTimeForFrameCountIndex`: the ms label HWUI prints for a fine bucket.
pub fn frame_time_for_frame_count_index(index: u32) -> u32 {
    let mut index = index + BUCKET_MIN_THRESHOLD;
    if index > BUCKET_2MS_INTERVALS {
        index += index - BUCKET_2MS_INTERVALS;
    }
    if index > BUCKET_4MS_INTERVALS {
        // Already doubled above; +1 nudges the label towards the middle of the bucket.
        index += (index - BUCKET_4MS_INTERVALS) + 1;
    }
    index
}

/// `frameTimeForSlowFrameCountIndex`.
pub fn frame_time_for_slow_frame_count_index(index: u32) -> u32 {
    index * SLOW_FRAME_BUCKET_INTERVAL_MS + SLOW_FRAME_BUCKET_START_MS
}

/// `GPUFrameTimeForFrameCountIndex`.
pub fn gpu_frame_time_for_frame_count_index(index: u32) -> u32 {
    if index != 25 {
        index + 1
    } else {
        4950
    }
}

/// The statistics of one JankTracker (one window).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileData {
    jank_type_counts: [u32; JankType::COUNT],
    frame_counts: [u32; FRAME_BUCKETS],
    // uint16_t on the device; kept so a bucket wraps where the device's would.
    slow_frame_counts: [u16; SLOW_FRAME_BUCKETS],
    gpu_frame_counts: [u32; GPU_BUCKETS],
    total_frame_count: u32,
    jank_frame_count: u32,
    jank_legacy_frame_count: u32,
}

impl Default for ProfileData {
    fn default() -> Self {
        Self {
            jank_type_counts: [0; JankType::COUNT],
            frame_counts: [0; FRAME_BUCKETS],
            slow_frame_counts: [0; SLOW_FRAME_BUCKETS],
            gpu_frame_counts: [0; GPU_BUCKETS],
            total_frame_count: 0,
            jank_frame_count: 0,
            jank_legacy_frame_count: 0,
        }
    }
}

/// One histogram bucket: the label HWUI prints and its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistogramEntry {
    pub render_time_ms: u32,
    pub frame_count: u32,
}

impl ProfileData {
    pub fn new() -> Self {
        Self::default()
    }

    /// `reportFrame`: count the frame and put its duration in the histogram.
    pub fn report_frame(&mut self, duration_ns: i64) {
        self.total_frame_count = self.total_frame_count.wrapping_add(1);
        let bucket = frame_count_index_for_frame_time(duration_ns) as usize;
        if bucket < FRAME_BUCKETS {
            self.frame_counts[bucket] = self.frame_counts[bucket].wrapping_add(1);
        } else {
            // int64 arithmetic, then assigned to uint32 (C++ truncation), then capped.
            let slow = (ns2ms(duration_ns).wrapping_sub(i64::from(SLOW_FRAME_BUCKET_START_MS))
                / i64::from(SLOW_FRAME_BUCKET_INTERVAL_MS)) as u32;
            let slow = slow.min(SLOW_FRAME_BUCKETS as u32 - 1) as usize;
            self.slow_frame_counts[slow] = self.slow_frame_counts[slow].wrapping_add(1);
        }
    }

    /// `reportGPUFrame`: ms bucket of a non-negative GPU draw time, capped at 25.
    pub fn report_gpu_frame(&mut self, duration_ns: i64) {
        let index = (ns2ms(duration_ns) as u32).min(25) as usize;
        self.gpu_frame_counts[index] = self.gpu_frame_counts[index].wrapping_add(1);
    }

    pub fn report_jank(&mut self) {
        self.jank_frame_count = self.jank_frame_count.wrapping_add(1);
    }

    pub fn report_jank_legacy(&mut self) {
        self.jank_legacy_frame_count = self.jank_legacy_frame_count.wrapping_add(1);
    }

    pub fn report_jank_type(&mut self, jank_type: JankType) {
        let slot = jank_type as usize;
        self.jank_type_counts[slot] = self.jank_type_counts[slot].wrapping_add(1);
    }

    pub fn total_frame_count(&self) -> u32 {
        self.total_frame_count
    }

    pub fn jank_frame_count(&self) -> u32 {
        self.jank_frame_count
    }

    pub fn jank_legacy_frame_count(&self) -> u32 {
        self.jank_legacy_frame_count
    }

    pub fn jank_type_count(&self, jank_type: JankType) -> u32 {
        self.jank_type_counts[jank_type as usize]
    }

    /// `findPercentile`: walks the histogram from the slowest bucket down until the frames
    /// seen reach `total - percentile*total/100`. With no frames it returns the slowest
    /// label (4950 ms), as the device prints for empty windows.
    pub fn find_percentile(&self, percentile: u32) -> u32 {
        // `int pos = percentile * mTotalFrameCount / 100` is unsigned arithmetic on device.
        let pos = (percentile.wrapping_mul(self.total_frame_count) / 100) as i32;
        let mut remaining = (self.total_frame_count as i32).wrapping_sub(pos);
        for i in (0..SLOW_FRAME_BUCKETS).rev() {
            remaining = remaining.wrapping_sub(i32::from(self.slow_frame_counts[i]));
            if remaining <= 0 {
                return frame_time_for_slow_frame_count_index(i as u32);
            }
        }
        for i in (0..FRAME_BUCKETS).rev() {
            remaining = remaining.wrapping_sub(self.frame_counts[i] as i32);
            if remaining <= 0 {
                return frame_time_for_frame_count_index(i as u32);
            }
        }
        0
    }

    /// `findGPUPercentile`, same walk over the GPU histogram.
    pub fn find_gpu_percentile(&self, percentile: u32) -> u32 {
        let total = self
            .gpu_frame_counts
            .iter()
            .fold(0u32, |a, &c| a.wrapping_add(c));
        let pos = (percentile.wrapping_mul(total) / 100) as i32;
        let mut remaining = (total as i32).wrapping_sub(pos);
        for i in (0..GPU_BUCKETS).rev() {
            remaining = remaining.wrapping_sub(self.gpu_frame_counts[i] as i32);
            if remaining <= 0 {
                return gpu_frame_time_for_frame_count_index(i as u32);
            }
        }
        0
    }

    /// The `HISTOGRAM:` line: 57 fine buckets then 97 slow ones.
    pub fn histogram(&self) -> Vec<HistogramEntry> {
        let fine = self
            .frame_counts
            .iter()
            .enumerate()
            .map(|(i, &c)| HistogramEntry {
                render_time_ms: frame_time_for_frame_count_index(i as u32),
                frame_count: c,
            });
        let slow = self
            .slow_frame_counts
            .iter()
            .enumerate()
            .map(|(i, &c)| HistogramEntry {
                render_time_ms: frame_time_for_slow_frame_count_index(i as u32),
                frame_count: u32::from(c),
            });
        fine.chain(slow).collect()
    }

    /// The `GPU HISTOGRAM:` line.
    pub fn gpu_histogram(&self) -> Vec<HistogramEntry> {
        self.gpu_frame_counts
            .iter()
            .enumerate()
            .map(|(i, &c)| HistogramEntry {
                render_time_ms: gpu_frame_time_for_frame_count_index(i as u32),
                frame_count: c,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn label_of(ms_times_1e6: i64) -> u32 {
        frame_time_for_frame_count_index(frame_count_index_for_frame_time(ms_times_1e6))
    }

    #[test]
    fn frames_up_to_5ms_share_bucket_0() {
        // kBucketMinThreshold = 5: "If a frame is <= to this it goes in bucket 0".
        assert_eq!(frame_count_index_for_frame_time(0), 0);
        assert_eq!(frame_count_index_for_frame_time(5 * MS + 999_999), 0);
        assert_eq!(frame_time_for_frame_count_index(0), 5);
    }

    #[test]
    fn one_ms_buckets_from_6_to_32ms() {
        // 6 ms → index 1 (label 6); 32 ms → index 27 (label 32). Truncation: 17.9 ms → 17.
        assert_eq!(frame_count_index_for_frame_time(6 * MS), 1);
        assert_eq!(frame_count_index_for_frame_time(32 * MS), 27);
        assert_eq!(label_of(17 * MS + 900_000), 17);
    }

    #[test]
    fn two_ms_buckets_from_33_to_48ms() {
        // 33 ms: ((33−32)>>1)+32 = 32 → index 27, the same bucket as 32 ms;
        // 34 ms: ((34−32)>>1)+32 = 33 → index 28, labelled 33 + (33−32) = 34.
        assert_eq!(frame_count_index_for_frame_time(33 * MS), 27);
        assert_eq!(frame_count_index_for_frame_time(34 * MS), 28);
        assert_eq!(frame_time_for_frame_count_index(28), 34);
        assert_eq!(label_of(35 * MS), 34);
        assert_eq!(label_of(48 * MS), 48);
    }

    #[test]
    fn four_ms_buckets_from_49_to_135ms() {
        // 53 ms: (53−48)>>1 + 48 = 50; (50−32)>>1 + 32 = 41; − 5 = 36 → label:
        // 41 → +9 = 50 → +(50−48)+1 = 53.
        assert_eq!(frame_count_index_for_frame_time(53 * MS), 36);
        assert_eq!(frame_time_for_frame_count_index(36), 53);
        // 135 ms is the last that fits: (87>>1)+48 = 91; (59>>1)+32 = 61; −5 = 56.
        assert_eq!(frame_count_index_for_frame_time(135 * MS), 56);
        assert_eq!(frame_time_for_frame_count_index(56), 133);
        // 136 ms → 57: slow.
        assert_eq!(frame_count_index_for_frame_time(136 * MS), 57);
    }

    #[test]
    fn slow_frames_go_to_50ms_buckets_from_150ms() {
        // 136..=199 ms → slow bucket 0 (label 150): (136−150)/50 truncates to 0.
        let mut d = ProfileData::new();
        d.report_frame(136 * MS);
        d.report_frame(199 * MS);
        d.report_frame(435 * MS); // (435−150)/50 = 5 → 400
        d.report_frame(60_000 * MS); // capped at bucket 96 → 4950
        let h = d.histogram();
        let count = |ms| {
            h.iter()
                .find(|e| e.render_time_ms == ms)
                .unwrap()
                .frame_count
        };
        assert_eq!(count(150), 2);
        assert_eq!(count(400), 1);
        assert_eq!(count(4950), 1);
        assert_eq!(h.len(), FRAME_BUCKETS + SLOW_FRAME_BUCKETS);
        assert_eq!(d.total_frame_count(), 4);
    }

    #[test]
    fn histogram_labels_match_the_printed_hwui_line() {
        // From a real dump: "5ms=0 6ms=0 ... 32ms=0 34ms=0 36ms=0 ... 48ms=0 53ms=0 57ms=0
        // ... 133ms=0 150ms=0 200ms=0 ... 4950ms=0".
        let labels: Vec<u32> = ProfileData::new()
            .histogram()
            .iter()
            .map(|e| e.render_time_ms)
            .collect();
        assert_eq!(&labels[..3], &[5, 6, 7]);
        assert_eq!(labels[27], 32);
        assert_eq!(labels[28], 34);
        assert_eq!(labels[35], 48);
        assert_eq!(labels[36], 53);
        assert_eq!(labels[56], 133);
        assert_eq!(labels[57], 150);
        assert_eq!(*labels.last().unwrap(), 4950);
    }

    #[test]
    fn percentile_walks_down_from_slowest_bucket() {
        // 6 frames: 18, 31, 35, 138, 435, 1676 ms (the real emulator dump's frames).
        // p50: pos = 3, remaining 3: 1650 → 2, 400 → 1, 150 → 0 → 150 ms.
        // p90: pos = 5, remaining 1 → 1650 ms.
        let mut d = ProfileData::new();
        for ms in [18, 31, 35, 138, 435, 1676] {
            d.report_frame(ms * MS);
        }
        assert_eq!(d.find_percentile(50), 150);
        assert_eq!(d.find_percentile(90), 1650);
        assert_eq!(d.find_percentile(95), 1650);
        assert_eq!(d.find_percentile(99), 1650);
    }

    #[test]
    fn percentile_of_fast_frames_uses_fine_bucket_labels() {
        // 10 frames: 9×10 ms, 1×35 ms. p50: pos 5, remaining 5 → 34 label has 1 → 4, then
        // the 10 ms bucket has 9 → ≤ 0 → 10. p95: pos 9, remaining 1 → 34.
        let mut d = ProfileData::new();
        for _ in 0..9 {
            d.report_frame(10 * MS);
        }
        d.report_frame(35 * MS);
        assert_eq!(d.find_percentile(50), 10);
        assert_eq!(d.find_percentile(95), 34);
    }

    #[test]
    fn percentile_of_empty_data_is_4950ms() {
        // remaining = 0, so the first (slowest) bucket already satisfies `remaining <= 0`;
        // real dumps print "50th percentile: 4950ms" for windows with 0 frames.
        let d = ProfileData::new();
        assert_eq!(d.find_percentile(50), 4950);
        assert_eq!(d.find_gpu_percentile(99), 4950);
    }

    #[test]
    fn gpu_frames_bucket_by_ms_and_cap_at_25() {
        // 7.68 ms → index 7, printed 8ms; 118 ms → index 25, printed 4950ms.
        let mut d = ProfileData::new();
        d.report_gpu_frame(7_680_000);
        d.report_gpu_frame(118 * MS);
        d.report_gpu_frame(118 * MS);
        let g = d.gpu_histogram();
        assert_eq!(g[7].render_time_ms, 8);
        assert_eq!(g[7].frame_count, 1);
        assert_eq!(g[25].render_time_ms, 4950);
        assert_eq!(g[25].frame_count, 2);
        // total 3: p50 pos 1, remaining 2 → bucket 25 has 2 → 4950.
        assert_eq!(d.find_gpu_percentile(50), 4950);
    }
}
