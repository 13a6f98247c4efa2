//! HWUI's jank types: the names JankTracker reports and ProfileData counts. Both use them,
//! so they live below both.

/// HWUI's `JankType`, in its order (the order of the `Number ...` lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum JankType {
    MissedVsync,
    HighInputLatency,
    SlowUi,
    SlowSync,
    SlowRt,
    MissedDeadline,
    MissedDeadlineLegacy,
}

impl JankType {
    pub const COUNT: usize = 7;
    pub const ALL: [JankType; Self::COUNT] = [
        Self::MissedVsync,
        Self::HighInputLatency,
        Self::SlowUi,
        Self::SlowSync,
        Self::SlowRt,
        Self::MissedDeadline,
        Self::MissedDeadlineLegacy,
    ];

    /// frameprobe's key (JSON summary and `jank_types`).
    pub fn key(self) -> &'static str {
        match self {
            Self::MissedVsync => "missed_vsync",
            Self::HighInputLatency => "high_input_latency",
            Self::SlowUi => "slow_ui_thread",
            Self::SlowSync => "slow_bitmap_uploads",
            Self::SlowRt => "slow_issue_draw_commands",
            Self::MissedDeadline => "frame_deadline_missed",
            Self::MissedDeadlineLegacy => "frame_deadline_missed_legacy",
        }
    }

    /// The name in HWUI's `Number <name>: N` summary line.
    pub fn hwui_name(self) -> &'static str {
        match self {
            Self::MissedVsync => "Missed Vsync",
            Self::HighInputLatency => "High input latency",
            Self::SlowUi => "Slow UI thread",
            Self::SlowSync => "Slow bitmap uploads",
            Self::SlowRt => "Slow issue draw commands",
            Self::MissedDeadline => "Frame deadline missed",
            Self::MissedDeadlineLegacy => "Frame deadline missed (legacy)",
        }
    }
}

#[cfg(test)]
mod tests {
    /// JankTracker and ProfileData both use the jank types; they must not use either back.
    #[test]
    fn jank_types_import_nothing() {
        let src = include_str!("jank_type.rs");
        assert!(!src.lines().any(|l| l.starts_with("use ")));
    }
}
