//! Refresh-rate phases for the synthesiser: the vsync schedule of a display that switches
//! rate mid-trace (e.g. 90 Hz then 120 Hz), and SurfaceFlinger's `VsyncPeriod` counter at
//! each switch, so tests know each frame's true period.

use super::{print, Streams, SynthConfig, SF_PID};

/// Each frame's vsync time and period.
pub struct Schedule {
    vsyncs: Vec<(i64, i64)>,
}

impl Schedule {
    /// `cfg.refresh_phases` (rate, frames) in order; without phases every frame runs at
    /// `cfg.refresh_hz`. Frames beyond the phases keep the last rate. `cfg.pauses` delay
    /// the frame they name.
    pub fn new(cfg: &SynthConfig) -> Self {
        let rate_of = |i: u32| -> u32 {
            let mut left = i;
            for &(hz, n) in &cfg.refresh_phases {
                if left < n {
                    return hz;
                }
                left -= n;
            }
            cfg.refresh_phases
                .last()
                .map_or(cfg.refresh_hz, |&(hz, _)| hz)
        };
        let mut t = cfg.start_ns;
        let vsyncs = (0..cfg.frames)
            .map(|i| {
                t += cfg
                    .pauses
                    .iter()
                    .filter(|p| p.0 == i)
                    .map(|p| p.1)
                    .sum::<i64>();
                let period = 1_000_000_000i64 / i64::from(rate_of(i).max(1));
                let v = (t, period);
                t += period;
                v
            })
            .collect();
        Schedule { vsyncs }
    }

    pub fn vsync(&self, i: usize) -> i64 {
        self.vsyncs[i].0
    }

    pub fn period(&self, i: usize) -> i64 {
        self.vsyncs[i].1
    }

    /// (time, period) where the period changes, the first vsync included.
    pub fn switches(&self) -> Vec<(i64, i64)> {
        let mut out: Vec<(i64, i64)> = Vec::new();
        for &(t, p) in &self.vsyncs {
            if out.last().is_none_or(|l| l.1 != p) {
                out.push((t, p));
            }
        }
        out
    }
}

/// SurfaceFlinger's `VsyncPeriod` counter (atrace, as `C|pid|name|value`) 1 ms before each
/// switch.
pub(super) fn period_counters(s: &mut Streams, sched: &Schedule) {
    for (t, p) in sched.switches() {
        let ts = t - 1_000_000;
        s.ftrace.push((
            ts,
            0,
            print(ts, SF_PID, format!("C|{SF_PID}|VsyncPeriod|{p}")),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_set_each_frames_period() {
        let cfg = SynthConfig {
            frames: 5,
            refresh_phases: vec![(90, 2), (120, 3)],
            start_ns: 0,
            ..Default::default()
        };
        let s = Schedule::new(&cfg);
        assert_eq!(s.period(0), 11_111_111);
        assert_eq!(s.vsync(1), 11_111_111);
        assert_eq!(s.period(2), 8_333_333);
        assert_eq!(s.vsync(3), 2 * 11_111_111 + 8_333_333);
        assert_eq!(s.switches(), vec![(0, 11_111_111), (22_222_222, 8_333_333)]);
        let flat = Schedule::new(&SynthConfig {
            frames: 2,
            ..Default::default()
        });
        assert_eq!(flat.period(1), 16_666_666);
    }
}
