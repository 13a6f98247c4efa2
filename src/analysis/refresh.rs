//! The vsync period each frame ran at, so budgets and missed vsyncs follow the display's
//! refresh rate (60/90/120 Hz, mode switches mid-trace, variable refresh) instead of one guess
//! per process.
//!
//! Sources, best first; the first one the trace has is used for the whole trace:
//! 1. SurfaceFlinger's period counters (atrace gfx): `VsyncPeriod` (non-zero samples),
//!    `VSR-setPeriod`, `VSP-setPeriod <display>` (the period it switched to), else the measured
//!    `VSP-period` / `HWVsyncPeriod`;
//! 2. the spacing of hardware vsync toggles (`HW_VSYNC_<display>` counters);
//! 3. the spacing of FrameTimeline's expected display frames (SurfaceFlinger wakes once per
//!    vsync it composes), else of the expected surface frames;
//! 4. the spacing of SurfaceFlinger's `VSYNC-app` / `VSYNC-sf` toggles;
//! 5. none: the frame's period is unknown and 60 Hz is assumed (and said).
//!
//! Spacing is read locally (a window of neighbouring gaps), so a skipped vsync is a multiple
//! of the period, not a slower rate. Periods within 2% of a common nominal rate are snapped
//! to it (16.61 ms measured is 60 Hz); others are kept as measured (variable refresh).

use serde::Serialize;

use crate::store::{Store, TrackRow, TrackScope};

/// The period assumed when the trace says nothing (60 Hz).
pub const ASSUMED_PERIOD_NS: i64 = 16_666_667;
/// Nominal refresh rates periods are snapped to.
const NOMINAL_HZ: [u32; 17] = [
    24, 30, 45, 48, 50, 60, 72, 75, 80, 90, 96, 100, 120, 144, 165, 180, 240,
];
const SNAP_TOLERANCE: f64 = 0.02;
/// Plausible periods: 250 Hz .. 10 Hz.
const MIN_PERIOD_NS: i64 = 4_000_000;
const MAX_PERIOD_NS: i64 = 100_000_000;
/// Starts closer than this are one vsync (two layers at one vsync).
const SAME_VSYNC_NS: i64 = 500_000;
/// Gaps on each side of a gap that inform its period.
const WINDOW: usize = 6;
/// Gaps of exactly one period a neighbourhood needs before its period is believed (a lone
/// gap between idle stretches says nothing about the rate).
const MIN_SUPPORT: usize = 3;
/// The largest multiple of the period a gap may be to count (skipped vsyncs).
const MAX_SKIPPED: i64 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodSource {
    /// SurfaceFlinger's vsync period counters.
    SurfaceflingerCounters,
    /// Spacing of hardware vsync (`HW_VSYNC_*`).
    HardwareVsync,
    /// Spacing of FrameTimeline's expected frames.
    FrameTimeline,
    /// Spacing of `VSYNC-app` / `VSYNC-sf`.
    VsyncCallbacks,
    /// Nothing in the trace: 60 Hz assumed.
    Assumed,
}

impl PeriodSource {
    pub fn describe(self) -> &'static str {
        match self {
            PeriodSource::SurfaceflingerCounters => {
                "SurfaceFlinger vsync period counters (VsyncPeriod / VSR-setPeriod / VSP-*)"
            }
            PeriodSource::HardwareVsync => "spacing of hardware vsync (HW_VSYNC_*)",
            PeriodSource::FrameTimeline => "spacing of FrameTimeline expected frames",
            PeriodSource::VsyncCallbacks => "spacing of VSYNC-app / VSYNC-sf callbacks",
            PeriodSource::Assumed => "assumed 60 Hz (the trace says nothing about vsync)",
        }
    }
}

/// The period in force from each step's time on (the first step also covers earlier times).
#[derive(Debug, Clone)]
pub struct VsyncTimeline {
    steps: Vec<(i64, i64)>,
    pub source: PeriodSource,
}

/// A period snapped to a nominal rate when within 2% of it.
pub fn snap(period_ns: i64) -> i64 {
    for hz in NOMINAL_HZ {
        let nominal = 1e9 / f64::from(hz);
        if ((period_ns as f64 - nominal) / nominal).abs() <= SNAP_TOLERANCE {
            return nominal.round() as i64;
        }
    }
    period_ns
}

/// Refresh rate of a period, to 0.1 Hz.
pub fn hz(period_ns: i64) -> f64 {
    (1e10 / period_ns as f64).round() / 10.0
}

/// Whole vsyncs a frame missed: ceil(overrun / period), 0 when on time.
pub fn missed_vsyncs(overrun_ns: i64, period_ns: i64) -> u32 {
    if overrun_ns <= 0 || period_ns <= 0 {
        0
    } else {
        ((overrun_ns + period_ns - 1) / period_ns) as u32
    }
}

fn median(v: &mut [i64]) -> i64 {
    v.sort_unstable();
    v[v.len() / 2]
}

/// The period `gap` is a whole multiple of, if `base` is it: gap / k within 10% of `base`
/// for k = 1..=4 (skipped vsyncs).
fn fits(gap: i64, base: i64) -> Option<i64> {
    let k = (gap + base / 2) / base;
    let p = gap / k.max(1);
    ((1..=MAX_SKIPPED).contains(&k) && (p - base).abs() * 10 < base).then_some(p)
}

/// Periods from the times of events that happen on vsyncs (some vsyncs skipped): one step per
/// gap whose neighbourhood yields a period, consecutive equal periods merged. A gap's period
/// is the smallest neighbouring gap it is a whole multiple of (so gaps on each side of a mode
/// switch keep their own rate), refined as the median of the neighbours that fit it.
pub fn spacing_periods(times: &[i64]) -> Vec<(i64, i64)> {
    let mut t = times.to_vec();
    t.sort_unstable();
    t.dedup_by(|b, a| *b - *a < SAME_VSYNC_NS);
    let gaps: Vec<(i64, i64)> = t.windows(2).map(|w| (w[0], w[1] - w[0])).collect();
    let mut steps: Vec<(i64, i64)> = Vec::new();
    let mut candidates: Vec<i64> = Vec::with_capacity(2 * WINDOW + 1);
    for (i, &(start, gap)) in gaps.iter().enumerate() {
        let window = &gaps[i.saturating_sub(WINDOW)..(i + WINDOW + 1).min(gaps.len())];
        candidates.clear();
        candidates.extend(
            window
                .iter()
                .map(|g| g.1)
                .filter(|g| (MIN_PERIOD_NS..=MAX_PERIOD_NS).contains(g)),
        );
        candidates.sort_unstable();
        let Some(base) = candidates.iter().copied().find(|&b| fits(gap, b).is_some()) else {
            continue;
        };
        let single = |g: i64| (g - base).abs() * 10 < base;
        if window.iter().filter(|g| single(g.1)).count() < MIN_SUPPORT {
            continue;
        }
        let mut per: Vec<i64> = window.iter().filter_map(|g| fits(g.1, base)).collect();
        let p = snap(median(&mut per));
        if steps.last().is_none_or(|s| s.1 != p) {
            steps.push((start, p));
        }
    }
    steps
}

/// Merges period samples into steps (zero and implausible samples are ignored).
fn counter_steps(mut samples: Vec<(i64, f64)>) -> Vec<(i64, i64)> {
    samples.sort_by_key(|s| s.0);
    let mut steps: Vec<(i64, i64)> = Vec::new();
    for (ts, v) in samples {
        let p = v.round() as i64;
        if !(MIN_PERIOD_NS..=MAX_PERIOD_NS).contains(&p) {
            continue;
        }
        let p = snap(p);
        if steps.last().is_none_or(|s| s.1 != p) {
            steps.push((ts, p));
        }
    }
    steps
}

/// Which vsync source a counter track is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CounterKind {
    SetPeriod,
    MeasuredPeriod,
    HwVsync,
    Callback,
}

/// The vsync source a counter track is, by its name (per-CPU tracks never are one).
pub(crate) fn vsync_counter_kind(store: &Store, track: &TrackRow) -> Option<CounterKind> {
    if matches!(track.scope, TrackScope::Cpu(_)) {
        return None;
    }
    store.opt_str(track.name).and_then(counter_kind)
}

fn counter_kind(name: &str) -> Option<CounterKind> {
    match name {
        "VsyncPeriod" | "VSR-setPeriod" => Some(CounterKind::SetPeriod),
        "VSP-period" | "HWVsyncPeriod" => Some(CounterKind::MeasuredPeriod),
        "VSYNC-app" | "VSYNC-sf" => Some(CounterKind::Callback),
        n if n.starts_with("VSP-setPeriod") => Some(CounterKind::SetPeriod),
        n if n.starts_with("HW_VSYNC_") && !n.starts_with("HW_VSYNC_ON_") => {
            Some(CounterKind::HwVsync)
        }
        _ => None,
    }
}

impl VsyncTimeline {
    pub fn assumed() -> Self {
        VsyncTimeline {
            steps: Vec::new(),
            source: PeriodSource::Assumed,
        }
    }

    pub fn from_steps(steps: Vec<(i64, i64)>, source: PeriodSource) -> Self {
        if steps.is_empty() {
            return Self::assumed();
        }
        VsyncTimeline { steps, source }
    }

    pub fn new(store: &Store) -> Self {
        let kind_of_track: Vec<Option<CounterKind>> = store
            .tracks
            .iter()
            .map(|t| vsync_counter_kind(store, t))
            .collect();
        let (mut set, mut measured) = (Vec::new(), Vec::new());
        let (mut hw, mut callbacks) = (Vec::new(), Vec::new());
        for c in &store.counters {
            match kind_of_track.get(c.track_id as usize).copied().flatten() {
                Some(CounterKind::SetPeriod) => set.push((c.ts, c.value)),
                Some(CounterKind::MeasuredPeriod) => measured.push((c.ts, c.value)),
                Some(CounterKind::HwVsync) => hw.push(c.ts),
                Some(CounterKind::Callback) => callbacks.push(c.ts),
                None => {}
            }
        }
        let counters = match counter_steps(set) {
            s if s.is_empty() => counter_steps(measured),
            s => s,
        };
        if !counters.is_empty() {
            return Self::from_steps(counters, PeriodSource::SurfaceflingerCounters);
        }
        let hw = spacing_periods(&hw);
        if !hw.is_empty() {
            return Self::from_steps(hw, PeriodSource::HardwareVsync);
        }
        let (mut display, mut surface) = (Vec::new(), Vec::new());
        for r in store.frame_timeline.iter().filter(|r| !r.actual) {
            let ts = store.slices[r.slice_id as usize].ts;
            if r.surface_frame_token.is_some() {
                surface.push(ts);
            } else {
                display.push(ts);
            }
        }
        for starts in [display, surface] {
            let s = spacing_periods(&starts);
            if !s.is_empty() {
                return Self::from_steps(s, PeriodSource::FrameTimeline);
            }
        }
        Self::from_steps(spacing_periods(&callbacks), PeriodSource::VsyncCallbacks)
    }

    /// The period at `ts`: the step in force then (the first step before any step).
    pub fn period_at(&self, ts: i64) -> Option<i64> {
        let i = self.steps.partition_point(|s| s.0 <= ts);
        self.steps.get(i.saturating_sub(1)).map(|s| s.1)
    }

    /// The period at `ts`, or the assumed 60 Hz.
    pub fn period_or_assumed(&self, ts: i64) -> i64 {
        self.period_at(ts).unwrap_or(ASSUMED_PERIOD_NS)
    }
}

/// Frames at one refresh rate.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RefreshRate {
    pub hz: f64,
    pub period_ms: f64,
    pub frames: usize,
}

/// Frames per refresh rate (by period), fastest rate first.
pub fn rates(periods: impl IntoIterator<Item = i64>) -> Vec<RefreshRate> {
    let mut by: std::collections::BTreeMap<i64, usize> = Default::default();
    for p in periods {
        *by.entry(p).or_default() += 1;
    }
    by.into_iter()
        .map(|(p, n)| RefreshRate {
            hz: hz(p),
            period_ms: (p as f64 / 1e4).round() / 100.0,
            frames: n,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const P60: i64 = 16_666_667;
    const P90: i64 = 11_111_111;
    const P120: i64 = 8_333_333;

    fn ticks(start: i64, period: i64, n: usize, skip: &[usize]) -> Vec<i64> {
        (0..n)
            .filter(|i| !skip.contains(i))
            .map(|i| start + i as i64 * period)
            .collect()
    }

    #[test]
    fn snapping_and_rates() {
        assert_eq!(snap(16_610_000), P60);
        assert_eq!(snap(11_197_571), P90);
        assert_eq!(snap(8_300_000), P120);
        // 13 ms (77 Hz) is no nominal rate: kept as measured.
        assert_eq!(snap(13_000_000), 13_000_000);
        assert_eq!(hz(P60), 60.0);
        assert_eq!(hz(P90), 90.0);
        assert_eq!(hz(P120), 120.0);
    }

    #[test]
    fn whole_vsyncs_missed_round_up() {
        assert_eq!(missed_vsyncs(-5, P60), 0);
        assert_eq!(missed_vsyncs(0, P60), 0);
        assert_eq!(missed_vsyncs(1, P60), 1);
        assert_eq!(missed_vsyncs(P60, P60), 1);
        assert_eq!(missed_vsyncs(P60 + 1, P60), 2);
        // The same 10 ms overrun is one vsync at 60 Hz and two at 120 Hz.
        assert_eq!(missed_vsyncs(10_000_000, P60), 1);
        assert_eq!(missed_vsyncs(10_000_000, P120), 2);
    }

    #[test]
    fn skipped_vsyncs_do_not_slow_the_rate() {
        let t = ticks(0, P120, 40, &[3, 4, 10, 11, 12, 20]);
        let s = spacing_periods(&t);
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].1, P120);
    }

    #[test]
    fn lone_gaps_between_idle_stretches_are_not_a_rate() {
        // Bursts at 120 Hz separated by idle; one 14.4 ms gap and one 83 ms gap alone.
        let mut t = ticks(0, P120, 10, &[]);
        let a = 10 * P120 + 500_000_000;
        t.extend([a, a + 14_430_000]);
        let b = a + 600_000_000;
        t.extend([b, b + 83_333_333]);
        t.extend(ticks(b + 700_000_000, P120, 10, &[]));
        let s = spacing_periods(&t);
        assert!(s.iter().all(|x| x.1 == P120), "{s:?}");
    }

    #[test]
    fn a_mode_switch_mid_trace_is_two_steps() {
        let mut t = ticks(0, P90, 30, &[]);
        let switch = 29 * P90 + P120;
        t.extend(ticks(switch, P120, 40, &[]));
        // Two layers at one vsync: starts 0.1 ms apart are one vsync.
        t.push(switch + 100_000);
        let tl = VsyncTimeline::from_steps(spacing_periods(&t), PeriodSource::FrameTimeline);
        assert_eq!(tl.period_at(0), Some(P90));
        assert_eq!(tl.period_at(10 * P90), Some(P90));
        // Right up to the switch, and right after it.
        assert_eq!(tl.period_at(28 * P90), Some(P90));
        assert_eq!(tl.period_at(switch + P120), Some(P120));
        assert_eq!(tl.period_at(switch + 20 * P120), Some(P120));
        // Before the first step: the first period.
        assert_eq!(tl.period_at(-1_000_000_000), Some(P90));
    }

    #[test]
    fn counters_ignore_zero_and_snap() {
        let s = counter_steps(vec![
            (5, 0.0),
            (10, 11_111_111.0),
            (20, 11_111_111.0),
            (30, 16_590_000.0),
            (40, 0.0),
        ]);
        assert_eq!(s, vec![(10, P90), (30, P60)]);
    }

    #[test]
    fn nothing_known_is_assumed_60() {
        let tl = VsyncTimeline::assumed();
        assert_eq!(tl.period_at(5), None);
        assert_eq!(tl.period_or_assumed(5), P60);
        assert_eq!(tl.source, PeriodSource::Assumed);
    }

    #[test]
    fn rates_count_frames_per_period() {
        let r = rates([P60, P120, P60]);
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].hz, r[0].frames), (120.0, 1));
        assert_eq!((r[1].hz, r[1].frames, r[1].period_ms), (60.0, 2, 16.67));
    }
}
