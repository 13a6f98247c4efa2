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
        // Read in place: the frame tables split every doFrame, DrawFrame and layer name.
        let s = ctx.get_raw(0).as_str_or_null()?;
        let d = ctx.get_raw(1).as_str()?;
        let i: i64 = ctx.get(2)?;
        Ok(match (s, d.is_empty(), usize::try_from(i)) {
            (Some(s), false, Ok(i)) => split_nth(s, d, i).map(str::to_string),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Perfetto's `str_split`: the piece at a 0-based index, NULL for a NULL text, an index
    /// past the last piece, a negative index or an empty delimiter.
    #[test]
    fn str_split_gives_the_piece_or_null() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        let split = |sql: &str| -> Option<String> {
            conn.query_row(&format!("SELECT {sql}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(
            split("str_split('Choreographer#doFrame 123', ' ', 1)").as_deref(),
            Some("123")
        );
        assert_eq!(split("str_split('a#b#c', '#', 0)").as_deref(), Some("a"));
        assert_eq!(split("str_split('a##c', '#', 1)").as_deref(), Some(""));
        assert_eq!(split("str_split('a#b', '#', 2)"), None);
        assert_eq!(split("str_split('a#b', '#', -1)"), None);
        assert_eq!(split("str_split('a#b', '', 0)"), None);
        assert_eq!(split("str_split(NULL, '#', 0)"), None);
    }
}
