//! SQL functions frameprobe adds to the query engine.

use rusqlite::Connection;

pub fn register(_conn: &Connection) -> rusqlite::Result<()> {
    Ok(())
}
