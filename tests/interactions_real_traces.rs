//! Interactions on the real device traces in `../shared/traces`: the startups are the
//! launches Perfetto's `android_startups` reports (values from google/perfetto's
//! startups_tests.py, quoted in the MANIFEST), with the frames a hand-written query counts
//! in them; nowinandroid's frames fall into the bursts a hand-written idle-gap query finds.

mod common;

use std::path::{Path, PathBuf};

fn trace(name: &str, test: &str) -> Option<PathBuf> {
    let dir = common::shared("traces", test)?;
    Some(dir.join(format!("{name}.perfetto-trace")))
}

/// The app process's interactions in analyze's JSON: (label, ordinal, frames, ts, dur_ns).
fn interactions(path: &Path, pid: i64) -> Vec<(String, u64, u64, i64, i64)> {
    let doc = common::run_json(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    let p = doc["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
        .expect("the app is analysed")
        .clone();
    p["interactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_string(),
                i["ordinal"].as_u64().unwrap(),
                i["frames"].as_u64().unwrap(),
                i["ts"].as_i64().unwrap(),
                (i["dur_ms"].as_f64().unwrap() * 1e6).round() as i64,
            )
        })
        .collect()
}

fn count(path: &Path, sql: &str) -> u64 {
    common::query_csv(path, sql)[1][0].parse().unwrap()
}

/// A startup's window and its frames: those starting inside it.
fn check_startup(name: &str, test: &str, pid: i64, ts: i64, dur: i64, frames_sql: &str) {
    let Some(path) = trace(name, test) else {
        return;
    };
    let list = interactions(&path, pid);
    let s = list
        .iter()
        .find(|i| i.0 == "startup")
        .unwrap_or_else(|| panic!("no startup in {list:?}"));
    assert_eq!(s.3, ts, "android_startups.ts");
    // dur_ms carries 10 µs precision.
    assert!(
        (s.4 - dur).abs() <= 5_000,
        "{} vs android_startups.dur {dur}",
        s.4
    );
    let by_hand = count(
        &path,
        &frames_sql
            .replace("{ts}", &ts.to_string())
            .replace("{end}", &(ts + dur).to_string()),
    );
    assert!(by_hand > 0);
    assert_eq!(s.2, by_hand, "frames starting in the launch");
}

#[test]
fn cold_startup_api24_is_the_launch_perfetto_reports() {
    // No FrameTimeline on API 24: a frame is a main-thread doFrame.
    check_startup(
        "androidx_api24_startup_cold",
        "cold_startup_api24_is_the_launch_perfetto_reports",
        7694,
        791231114368,
        269946500,
        "SELECT count(*) FROM slice s JOIN thread_track tt ON s.track_id = tt.id \
         JOIN thread USING (utid) WHERE thread.tid = 7694 \
         AND s.name GLOB 'Choreographer#doFrame*' AND s.ts BETWEEN {ts} AND {end}",
    );
}

#[test]
fn warm_startup_api33_is_the_launch_perfetto_reports() {
    // FrameTimeline: a frame is an actual surface frame of the app.
    check_startup(
        "androidx_api32_startup_warm",
        "warm_startup_api33_is_the_launch_perfetto_reports",
        7663,
        157479786566030,
        156515747,
        "SELECT count(*) FROM actual_frame_timeline_slice a JOIN process USING (upid) \
         WHERE process.pid = 7663 AND a.ts BETWEEN {ts} AND {end}",
    );
}

/// Bursts by hand: the app's actual surface frames in time order, a new burst wherever a
/// frame starts 100 ms or more after every earlier frame ended.
#[test]
fn nowinandroid_frames_fall_into_idle_gap_bursts() {
    let test = "nowinandroid_frames_fall_into_idle_gap_bursts";
    let Some(path) = trace("nowinandroid_demo_pixel7pro_api33", test) else {
        return;
    };
    let sql = "WITH f AS (SELECT a.ts, a.ts + a.dur AS e FROM actual_frame_timeline_slice a \
               JOIN process USING (upid) WHERE process.pid = 9305), \
               g AS (SELECT ts, max(e) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev FROM f), \
               h AS (SELECT ts, sum(CASE WHEN prev IS NOT NULL AND ts - prev >= 100000000 THEN 1 ELSE 0 END) \
                     OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS k FROM g) \
               SELECT k, count(*), min(ts) FROM h GROUP BY k ORDER BY k";
    let rows = common::query_csv(&path, sql);
    let by_hand: Vec<(u64, i64)> = rows[1..]
        .iter()
        .map(|r| (r[1].parse().unwrap(), r[2].parse().unwrap()))
        .collect();
    assert!(by_hand.len() > 1, "the trace has idle gaps");
    let found: Vec<(u64, i64)> = interactions(&path, 9305)
        .iter()
        .map(|i| {
            assert_eq!(i.0, "burst", "no other source in this trace");
            (i.2, i.3)
        })
        .collect();
    assert_eq!(found, by_hand);
}
