//! Parsing of ART's `monitor contention with owner …` slice names, as Perfetto stdlib's
//! `android_extract_android_monitor_contention_*` SQL functions do (module
//! `android.monitor_contention`). Registered on every connection under Perfetto's names.
//!
//! A name looks like
//! `monitor contention with owner OWNER (TID) at BLOCKING_METHOD(BLOCKING_SRC) waiters=N
//! blocking from BLOCKED_METHOD(BLOCKED_SRC)`. Every piece is found with `str_split` rules
//! (the index-th piece between delimiters, or none), so malformed names give NULL columns
//! exactly where trace_processor gives them.

use rusqlite::functions::FunctionFlags;
use rusqlite::types::ToSql;
use rusqlite::Connection;

use super::sql_functions::split_nth;

fn split2<'a>(s: &'a str, d1: &str, i1: usize, d2: &str, i2: usize) -> Option<&'a str> {
    split_nth(s, d1, i1).and_then(|p| split_nth(p, d2, i2))
}

/// A method with its argument list: the text after `marker` up to its first `(`, then
/// `(` and the text up to the next `(` (the argument list and its closing parenthesis).
fn method_after(name: &str, marker: &str) -> Option<String> {
    let rest = split_nth(name, marker, 1)?;
    let head = split_nth(rest, "(", 0)?;
    let args = split_nth(rest, "(", 1)?;
    Some(format!("{head}({args}"))
}

/// A method without its return type and arguments: the second word, up to `(`.
fn short_method(method: Option<String>) -> Option<String> {
    method.and_then(|m| split2(&m, " ", 1, "(", 0).map(str::to_string))
}

/// SQLite's `CAST(text AS INT)`: the longest integer prefix (after leading spaces), else 0.
pub fn sqlite_cast_int(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes().take_while(u8::is_ascii_digit) {
        let d = i64::from(b - b'0');
        v = match v.checked_mul(10).and_then(|x| {
            if neg {
                x.checked_sub(d)
            } else {
                x.checked_add(d)
            }
        }) {
            Some(x) => x,
            None => return if neg { i64::MIN } else { i64::MAX },
        };
    }
    v
}

pub fn blocking_thread(name: &str) -> Option<String> {
    split2(name, "with owner ", 1, " (", 0).map(str::to_string)
}

pub fn blocking_tid(name: &str) -> Option<i64> {
    split2(name, " (", 1, ")", 0).map(sqlite_cast_int)
}

pub fn blocking_method(name: &str) -> Option<String> {
    method_after(name, ") at ")
}

pub fn short_blocking_method(name: &str) -> Option<String> {
    short_method(blocking_method(name))
}

pub fn blocked_method(name: &str) -> Option<String> {
    method_after(name, "blocking from ")
}

pub fn short_blocked_method(name: &str) -> Option<String> {
    short_method(blocked_method(name))
}

pub fn waiter_count(name: &str) -> Option<i64> {
    split2(name, "waiters=", 1, " ", 0).map(sqlite_cast_int)
}

pub fn blocking_src(name: &str) -> Option<String> {
    split2(name, ")(", 1, ")", 0).map(str::to_string)
}

pub fn blocked_src(name: &str) -> Option<String> {
    split2(name, ")(", 2, ")", 0).map(str::to_string)
}

fn extractor<T: ToSql + 'static>(
    conn: &Connection,
    suffix: &str,
    f: fn(&str) -> Option<T>,
) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let name = format!("android_extract_android_monitor_contention_{suffix}");
    conn.create_scalar_function(name.as_str(), 1, flags, move |ctx| {
        let v: Option<String> = ctx.get(0)?;
        Ok(v.and_then(|s| f(&s)))
    })
}

pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    extractor(conn, "blocking_thread", blocking_thread)?;
    extractor(conn, "blocking_tid", blocking_tid)?;
    extractor(conn, "blocking_method", blocking_method)?;
    extractor(conn, "short_blocking_method", short_blocking_method)?;
    extractor(conn, "blocked_method", blocked_method)?;
    extractor(conn, "short_blocked_method", short_blocked_method)?;
    extractor(conn, "waiter_count", waiter_count)?;
    extractor(conn, "blocking_src", blocking_src)?;
    extractor(conn, "blocked_src", blocked_src)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // The Android U+ format (ART's monitor.cc), with the owner's tid.
    const U: &str = "monitor contention with owner Thread-63 (7722) at int \
        libcore.io.Linux.readBytes(java.io.FileDescriptor, java.lang.Object, int, int)\
        (Linux.java:-2) waiters=0 blocking from void \
        java.lang.UNIXProcess$ProcessPipeInputStream.processExited()(UNIXProcess.java:-1)";

    #[test]
    fn every_piece_of_a_full_name() {
        assert_eq!(blocking_thread(U).as_deref(), Some("Thread-63"));
        assert_eq!(blocking_tid(U), Some(7722));
        assert_eq!(
            blocking_method(U).as_deref(),
            Some("int libcore.io.Linux.readBytes(java.io.FileDescriptor, java.lang.Object, int, int)")
        );
        assert_eq!(
            short_blocking_method(U).as_deref(),
            Some("libcore.io.Linux.readBytes")
        );
        assert_eq!(
            blocked_method(U).as_deref(),
            Some("void java.lang.UNIXProcess$ProcessPipeInputStream.processExited()")
        );
        assert_eq!(
            short_blocked_method(U).as_deref(),
            Some("java.lang.UNIXProcess$ProcessPipeInputStream.processExited")
        );
        assert_eq!(waiter_count(U), Some(0));
        assert_eq!(blocking_src(U).as_deref(), Some("Linux.java:-2"));
        assert_eq!(blocked_src(U).as_deref(), Some("UNIXProcess.java:-1"));
    }

    #[test]
    fn missing_pieces_are_null_and_bad_numbers_cast_like_sqlite() {
        let n = "monitor contention with owner main (abc) at void a.B.c()(B.java:1) waiters=x";
        assert_eq!(blocking_tid(n), Some(0), "CAST('abc' AS INT) is 0");
        assert_eq!(waiter_count(n), Some(0));
        assert_eq!(blocked_method(n), None, "no 'blocking from'");
        assert_eq!(short_blocked_method(n), None);
        assert_eq!(blocked_src(n), None, "only one ')(' in the name");
        assert_eq!(blocking_thread("Lock contention on a monitor lock"), None);
        // A method without a return type has no second word: the short form is NULL.
        assert_eq!(
            short_blocking_method("monitor contention with owner t (1) at m()(F.java:1)"),
            None
        );
    }

    #[test]
    fn sqlite_cast_int_takes_the_integer_prefix() {
        assert_eq!(sqlite_cast_int(" 42abc"), 42);
        assert_eq!(sqlite_cast_int("-7"), -7);
        assert_eq!(sqlite_cast_int("1e5"), 1);
        assert_eq!(sqlite_cast_int(""), 0);
        assert_eq!(sqlite_cast_int("99999999999999999999"), i64::MAX);
    }
}
