//! Perfetto stdlib compatibility: `INCLUDE PERFETTO MODULE ...;` statements.

use anyhow::Result;
use rusqlite::Connection;

/// Removes `INCLUDE PERFETTO MODULE x;` statements (modules frameprobe provides are always
/// present).
pub fn strip_includes(_conn: &Connection, sql: &str) -> Result<String> {
    let mut out = String::with_capacity(sql.len());
    for stmt in sql.split_inclusive(';') {
        let t = stmt.trim_start();
        if t.len() >= 23 && t[..23].eq_ignore_ascii_case("include perfetto module") {
            continue;
        }
        out.push_str(stmt);
    }
    Ok(out)
}
