//! Perfetto stdlib compatibility: `INCLUDE PERFETTO MODULE ...;` statements and the frame
//! tables of `android.frames.*`, built on demand.

use anyhow::Result;
use rusqlite::Connection;

/// Tables the frames module defines; a query naming one of them gets the module.
const FRAME_TABLES: [&str; 9] = [
    "android_frames",
    "android_frame_stats",
    "android_frames_overrun",
    "android_frames_ui_time",
    "android_frames_layers",
    "android_app_vsync_delay_per_frame",
    "android_cpu_time_per_frame",
    "android_frames_choreographer_do_frame",
    "android_frames_draw_frame",
];

/// Builds the `android.frames.*` tables once per connection.
pub fn ensure_frames_module(conn: &Connection) -> Result<()> {
    let exists: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE name = 'android_frame_stats'",
        [],
        |r| r.get(0),
    )?;
    if !exists {
        conn.execute_batch(include_str!("stdlib_frames.sql"))?;
    }
    Ok(())
}

fn is_include(stmt: &str) -> bool {
    let t = stmt.trim_start();
    t.len() >= 23 && t[..23].eq_ignore_ascii_case("include perfetto module")
}

/// Removes `INCLUDE PERFETTO MODULE x;` statements, building the frame tables when the SQL
/// includes a module or names one of them.
pub fn strip_includes(conn: &Connection, sql: &str) -> Result<String> {
    let mut out = String::with_capacity(sql.len());
    let mut wants_frames = false;
    for stmt in sql.split_inclusive(';') {
        if is_include(stmt) {
            wants_frames |= stmt.contains("android.frames") || stmt.contains("android.cujs");
            continue;
        }
        out.push_str(stmt);
    }
    let lower = out.to_ascii_lowercase();
    wants_frames |=
        FRAME_TABLES.iter().any(|t| lower.contains(t)) || lower.contains("thread_slice");
    if wants_frames {
        ensure_frames_module(conn)?;
    }
    Ok(out)
}
