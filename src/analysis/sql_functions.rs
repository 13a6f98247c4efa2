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

/// The index-th piece (0-based) of `s` split on `delimiter`, as Perfetto's `str_split`.
pub fn split_nth<'a>(s: &'a str, delimiter: &str, index: usize) -> Option<&'a str> {
    s.split(delimiter).nth(index)
}

/// `str_split(text, delimiter, index)`: the index-th piece (0-based), NULL when absent.
fn str_split(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("str_split", 3, flags, |ctx| {
        let s: Option<String> = ctx.get(0)?;
        let d: String = ctx.get(1)?;
        let i: i64 = ctx.get(2)?;
        Ok(match (s, d.is_empty(), usize::try_from(i)) {
            (Some(s), false, Ok(i)) => split_nth(&s, &d, i).map(str::to_string),
            _ => None,
        })
    })
}

/// `trace_start()` / `trace_end()`: the bounds of the trace's events.
pub fn register_bounds(conn: &Connection, start: i64, end: i64) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("trace_start", 0, flags, move |_| Ok(start))?;
    conn.create_scalar_function("trace_end", 0, flags, move |_| Ok(end))?;
    conn.create_scalar_function("trace_dur", 0, flags, move |_| Ok(end - start))?;
    Ok(())
}

pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    str_split(conn)?;
    super::monitor_contention_name::register(conn)?;
    super::slice_name::register(conn)?;
    // Perfetto's `_is_relevant_blocking_call(name, depth)` (depth unused).
    conn.create_scalar_function(
        "_is_relevant_blocking_call",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let v: Option<String> = ctx.get(0)?;
            Ok(v.map(|s| super::causes::categories::is_perfetto_blocking_call(&s) as i64))
        },
    )?;
    super::span_join::register(conn)?;
    predicate(conn, "android_is_sf_jank_type", jank::is_sf_jank_type)?;
    predicate(conn, "android_is_app_jank_type", jank::is_app_jank_type)?;
    predicate(
        conn,
        "android_is_missed_frame_type",
        jank::is_missed_frame_type,
    )?;
    Ok(())
}
