//! Replays the real `dumpsys gfxinfo ... framestats` dumps in ../shared/gfxinfo (see its
//! MANIFEST.md) and checks frameprobe against what HWUI printed on the devices.
//!
//! A window's printed summary can only be checked when it "covers the rows": it counts no
//! more frames than the block has rows, so every frame HWUI counted is still in the ring
//! buffer. For those windows every counter, both histograms and the GPU percentiles must
//! match exactly. This holds once two facts are applied (docs/gfxinfo.md):
//! - rows whose FrameCompleted is 0 or not a timestamp (≥ 1 h after IntendedVsync: stale
//!   ring-buffer memory) are frames HWUI never finished and never counted;
//! - the printed FrameDeadline already holds the triple-buffering adjustment.
//!
//! Skips (with a message) when ../shared/gfxinfo is absent.

mod common;

use std::path::{Path, PathBuf};

use frameprobe::gfxinfo::parser::{self, StartIntervalOrder};
use frameprobe::gfxinfo::replay::{self, IntervalSource, NotJudged, ReplayOptions, WindowReport};
use frameprobe::gfxinfo::summary::Counter;

fn dir() -> Option<PathBuf> {
    common::shared("gfxinfo", "gfxinfo_real_dumps")
}

fn replay_file(dir: &Path, name: &str) -> Vec<WindowReport> {
    let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dump = parser::parse(&parser::decode(&bytes)).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        dump.diagnostics.is_empty(),
        "{name}: {:?}",
        dump.diagnostics
    );
    replay::replay(&dump, &ReplayOptions::default())
}

const FILES: [&str; 6] = [
    "anavmode_t865_a14_allprocs.txt",
    "aneb_e1_emulator_a14_150506_lf-normalized.txt",
    "aneb_e1_emulator_a14_170127_lf-normalized.txt",
    "linkadb_mobileqq_a14_utf16le_crlf.txt",
    "soundvis_a14_framestats.txt",
    "soundvis_a14_framestats_stay.txt",
];

fn nonzero(h: &[(u32, u32)]) -> Vec<(u32, u32)> {
    h.iter().copied().filter(|e| e.1 > 0).collect()
}

#[test]
fn covered_windows_reproduce_every_printed_counter() {
    let Some(dir) = dir() else { return };
    let mut covered = Vec::new();
    for file in FILES {
        for w in replay_file(&dir, file) {
            let printed = w.printed.as_ref().expect("every real window has a summary");
            let total = printed.total_frames.expect("Total frames rendered");
            assert_eq!(
                w.printed_covers_rows,
                total as usize <= w.rows,
                "{file} {}",
                w.window
            );
            if !w.printed_covers_rows {
                continue;
            }
            let s = w.summary.as_ref().unwrap();
            for c in Counter::all() {
                assert_eq!(
                    Some(s.get(c)),
                    printed.get(c),
                    "{file} / {}: {}",
                    w.window,
                    c.label()
                );
            }
            let hist: Vec<(u32, u32)> = s
                .histogram
                .iter()
                .map(|e| (e.render_time_ms, e.frame_count))
                .collect();
            assert_eq!(
                nonzero(&hist),
                nonzero(printed.histogram.as_ref().unwrap()),
                "{file} / {}: HISTOGRAM",
                w.window
            );
            let gpu: Vec<(u32, u32)> = s
                .gpu_histogram
                .iter()
                .map(|e| (e.render_time_ms, e.frame_count))
                .collect();
            assert_eq!(
                nonzero(&gpu),
                nonzero(printed.gpu_histogram.as_ref().unwrap()),
                "{file} / {}: GPU HISTOGRAM",
                w.window
            );
            assert_eq!(
                s.gpu_percentiles_ms.map(Some),
                printed.gpu_percentiles_ms,
                "{file} / {}: gpu percentiles",
                w.window
            );
            covered.push((file, w.window.clone(), w.rows, s.total_frames));
        }
    }
    // MANIFEST.md lists the covering windows: five with rows and two empty ones in the
    // whole-device dump, one window in each emulator dump, and the empty Toast window.
    let mut names: Vec<(&str, &str, usize, u32)> = covered
        .iter()
        .map(|(f, w, r, t)| (*f, w.rsplit('.').next().unwrap(), *r, *t))
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec![
            ("anavmode_t865_a14_allprocs.txt", "InputMethod", 86, 86),
            (
                "anavmode_t865_a14_allprocs.txt",
                "NavigationActivity",
                117,
                116
            ),
            (
                "anavmode_t865_a14_allprocs.txt",
                "ScreenDecorOverlay",
                21,
                19
            ),
            (
                "anavmode_t865_a14_allprocs.txt",
                "ScreenDecorOverlayBottom",
                0,
                0
            ),
            (
                "anavmode_t865_a14_allprocs.txt",
                "SettingsHomepageActivity",
                67,
                65
            ),
            ("anavmode_t865_a14_allprocs.txt", "ShellDropTarget", 0, 0),
            ("anavmode_t865_a14_allprocs.txt", "SubSettings", 80, 79),
            (
                "aneb_e1_emulator_a14_150506_lf-normalized.txt",
                "StimulusActivity",
                10,
                6
            ),
            (
                "aneb_e1_emulator_a14_170127_lf-normalized.txt",
                "StimulusActivity",
                13,
                8
            ),
            ("linkadb_mobileqq_a14_utf16le_crlf.txt", "Toast", 0, 0),
        ]
    );
}

/// A finished frame completes after its IntendedVsync, so every row judged under the
/// "never finished" rule has a positive duration and is counted: no row is left to the
/// `totalDuration <= 0` early return. (The rows it filters out in uncovered windows, with
/// FrameCompleted seconds before IntendedVsync, are listed here by line.)
#[test]
fn every_judged_row_is_counted_and_stale_rows_are_left_out() {
    let Some(dir) = dir() else { return };
    let mut stale = Vec::new();
    for file in FILES {
        for w in replay_file(&dir, file) {
            let judged = w.frames.iter().filter(|f| f.verdict.is_some()).count();
            assert_eq!(
                w.summary.as_ref().unwrap().total_frames as usize,
                judged,
                "{file} / {}",
                w.window
            );
            stale.extend(
                w.frames
                    .iter()
                    .filter(|f| f.not_judged == Some(NotJudged::FrameCompletedStale))
                    .map(|f| (file, f.line)),
            );
        }
    }
    let all = "anavmode_t865_a14_allprocs.txt";
    assert_eq!(
        stale,
        vec![
            (all, 641), // SpaActivity, flags 10 (SkippedFrame | RTAnimation)
            (all, 913), // RecentsActivity
            (all, 914),
            (all, 1013),
            (all, 1014),
            (all, 2201), // NotificationShade
            (all, 2202),
            (all, 2203),
            ("linkadb_mobileqq_a14_utf16le_crlf.txt", 172),
        ]
    );
}

/// The rows HWUI did not count are exactly the unfinished ones MANIFEST.md describes.
#[test]
fn rows_hwui_never_finished_are_the_ones_left_out() {
    let Some(dir) = dir() else { return };
    let count = |w: &WindowReport, kind: NotJudged| {
        w.frames
            .iter()
            .filter(|f| f.not_judged == Some(kind))
            .count()
    };
    let check = |file: &str, window_suffix: &str, unset: usize, implausible: usize| {
        let windows = replay_file(&dir, file);
        let w = windows
            .iter()
            .find(|w| w.window.ends_with(window_suffix))
            .unwrap_or_else(|| panic!("{file}: no window {window_suffix}"));
        assert_eq!(
            (
                count(w, NotJudged::FrameCompletedUnset),
                count(w, NotJudged::FrameCompletedImplausible)
            ),
            (unset, implausible),
            "{file} / {window_suffix}"
        );
        // Every judged row was counted (positive duration), so rows − skipped = total.
        let s = w.summary.as_ref().unwrap();
        assert_eq!(
            s.total_frames as usize,
            w.rows - unset - implausible,
            "{file} / {window_suffix}"
        );
    };
    // 150506: 3 rows FrameCompleted=0, 1 garbage (72904454231818944): 10 − 4 = 6 printed.
    check(
        "aneb_e1_emulator_a14_150506_lf-normalized.txt",
        "StimulusActivity",
        3,
        1,
    );
    // 170127: 3 zero, 2 garbage: 13 − 5 = 8 printed. The flags=1 row is counted.
    check(
        "aneb_e1_emulator_a14_170127_lf-normalized.txt",
        "StimulusActivity",
        3,
        2,
    );
    let all = "anavmode_t865_a14_allprocs.txt";
    check(all, "SettingsHomepageActivity", 0, 2);
    check(all, "SubSettings", 1, 0);
    check(all, "InputMethod", 0, 0);
    check(all, "NavigationActivity", 1, 0);
    check(all, "ScreenDecorOverlay", 1, 1);
}

#[test]
fn header_pitfall_is_seen_in_every_real_block() {
    let Some(dir) = dir() else { return };
    for file in FILES {
        for w in replay_file(&dir, file) {
            assert_eq!(w.column_count, Some(23), "{file}");
            let decided_by_data = w.rows > 0;
            assert_eq!(
                w.interval,
                Some(IntervalSource::Column(StartIntervalOrder::Swapped {
                    decided_by_data
                })),
                "{file} / {}",
                w.window
            );
            for f in &w.frames {
                // 60 Hz rows say 16666666/16666667 (emulator and tablet) or ~16.5–16.7 ms;
                // the soundvis device runs at 120 Hz (~8.3 ms).
                assert!(
                    (8_000_000..17_000_000).contains(&f.frame_interval_ns),
                    "{file} line {}: {}",
                    f.line,
                    f.frame_interval_ns
                );
            }
        }
    }
}

#[test]
fn whole_device_dump_and_utf16_file_are_split_into_their_windows() {
    let Some(dir) = dir() else { return };
    let windows = replay_file(&dir, "anavmode_t865_a14_allprocs.txt");
    assert_eq!(windows.len(), 13);
    let processes: std::collections::BTreeSet<&str> = windows
        .iter()
        .filter_map(|w| w.process.as_deref())
        .collect();
    // MANIFEST.md's block list names six processes (its summary line says eight; the file
    // has PROFILEDATA blocks in six: systemui 5, settings 3, launcher3 2, and three with 1).
    assert_eq!(processes.len(), 6);

    let windows = replay_file(&dir, "linkadb_mobileqq_a14_utf16le_crlf.txt");
    let names: Vec<&str> = windows.iter().map(|w| w.window.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "com.tencent.mobileqq/com.tencent.mobileqq.activity.Alias5SplashActivity",
            "Toast"
        ]
    );
    assert_eq!(windows[0].rows, 120);
    assert_eq!(windows[0].process.as_deref(), Some("com.tencent.mobileqq"));
}

/// For windows whose summary does not cover the rows, the ring holds only the newest frames:
/// what frameprobe recomputes from them can never exceed what HWUI counted in all.
#[test]
fn uncovered_windows_recompute_no_more_frames_than_printed() {
    let Some(dir) = dir() else { return };
    for file in FILES {
        for w in replay_file(&dir, file) {
            if w.printed_covers_rows {
                continue;
            }
            let s = w.summary.as_ref().unwrap();
            let p = w.printed.as_ref().unwrap();
            for c in [
                Counter::TotalFrames,
                Counter::JankyFrames,
                Counter::JankyFramesLegacy,
            ] {
                assert!(
                    Some(s.get(c)) <= p.get(c),
                    "{file} / {}: {}",
                    w.window,
                    c.label()
                );
            }
        }
    }
}

/// A dump cut anywhere (a capture interrupted mid-write) never makes the reader panic.
#[test]
fn real_dumps_cut_anywhere_never_panic() {
    let Some(dir) = dir() else { return };
    for file in FILES {
        let text = parser::decode(&std::fs::read(dir.join(file)).unwrap());
        let chars: Vec<char> = text.chars().collect();
        for k in 1..=60 {
            let cut: String = chars[..chars.len() * k / 61].iter().collect();
            if let Ok(dump) = parser::parse(&cut) {
                let _ = replay::replay(&dump, &ReplayOptions::default());
            }
        }
    }
}
