//! SQL functions frameprobe adds to the query engine: Perfetto stdlib's jank-type
//! predicates (`android_is_sf_jank_type`, ...).

use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;

use super::jank;

fn predicate(conn: &Connection, name: &str, f: fn(&str) -> bool) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function(name, 1, flags, move |ctx| {
        let v: Option<String> = ctx.get(0)?;
        Ok(v.map(|s| f(&s) as i64))
    })
}

pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    predicate(conn, "android_is_sf_jank_type", jank::is_sf_jank_type)?;
    predicate(conn, "android_is_app_jank_type", jank::is_app_jank_type)?;
    predicate(
        conn,
        "android_is_missed_frame_type",
        jank::is_missed_frame_type,
    )?;
    Ok(())
}
