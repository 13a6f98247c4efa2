//! frameprobe's own "slow frame": the frame's CPU time (Macrobenchmark's frameDurationCpu,
//! doFrame start to DrawFrame end; the doFrame alone when no DrawFrame matched) over the
//! frame's own budget (its expected surface frame, else its vsync period). Without
//! FrameTimeline this is what the `janky` column, the janky streak, the worst frames and the
//! cause chains go by; with FrameTimeline it is informational.

use crate::analysis::frame_model::Frame;

/// The time the budget is compared with: CPU time, else UI time.
pub fn time_ns(f: &Frame) -> Option<i64> {
    f.cpu_ns().or(f.ui_ns())
}

/// Over its budget: strictly more time than the budget.
pub fn is_over(time_ns: i64, budget_ns: i64) -> bool {
    time_ns > budget_ns
}

/// Whether the frame is over its budget; None without a UI or CPU time.
pub fn over(f: &Frame, budget_ns: i64) -> Option<bool> {
    time_ns(f).map(|t| is_over(t, budget_ns))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::index::Span;

    fn frame(ui: Option<(i64, i64)>, rt: Option<(i64, i64)>) -> Frame {
        let span = |(ts, dur)| Span { id: 1, ts, dur };
        Frame {
            upid: 1,
            ui: ui.map(span),
            rt: rt.map(span),
            ..Default::default()
        }
    }

    #[test]
    fn cpu_time_else_ui_time_against_the_budget() {
        // doFrame 0..5 ms, DrawFrame 4..17 ms: CPU time 17 ms.
        let f = frame(Some((0, 5_000_000)), Some((4_000_000, 13_000_000)));
        assert_eq!(time_ns(&f), Some(17_000_000));
        assert_eq!(over(&f, 16_666_667), Some(true));
        assert_eq!(over(&f, 20_000_000), Some(false));
        // Exactly the budget is within it.
        assert_eq!(over(&f, 17_000_000), Some(false));
        // No DrawFrame: the doFrame alone (9 ms) is over a 120 Hz budget, not a 60 Hz one.
        let f = frame(Some((0, 9_000_000)), None);
        assert_eq!(over(&f, 8_333_333), Some(true));
        assert_eq!(over(&f, 16_666_667), Some(false));
        // No doFrame: nothing to judge.
        assert_eq!(over(&frame(None, Some((0, 30_000_000))), 8_333_333), None);
    }
}
