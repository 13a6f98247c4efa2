//! `dumpsys gfxinfo <pkg> framestats` parsing and HWUI JankTracker verdicts (issue 6).
