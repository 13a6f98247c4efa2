//! `frameprobe query` runs user SQL against the in-memory tables only: nothing it runs may
//! create or write a file. SQLite reaches files through ATTACH (which creates a missing
//! database) and VACUUM INTO (which writes one, attaching it first), so attaching is
//! limited to zero databases and denied by an authorizer, which also records that it did so
//! for the error message. CREATE TABLE / VIEW and friends stay allowed: they only touch
//! the in-memory database, and Perfetto SQL relies on them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::limits::Limit;
use rusqlite::Connection;

/// Set when the authorizer refused something (to explain SQLite's "not authorized").
#[derive(Clone, Default)]
pub struct Refusals(Arc<AtomicBool>);

impl Refusals {
    pub fn any(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Makes `conn` read-only towards the file system; returns the refusal flag.
pub fn restrict(conn: &mut Connection) -> rusqlite::Result<Refusals> {
    conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
    let refusals = Refusals::default();
    let flag = refusals.0.clone();
    conn.authorizer(Some(move |ctx: AuthContext<'_>| {
        if touches_files(&ctx.action) {
            flag.store(true, Ordering::Relaxed);
            Authorization::Deny
        } else {
            Authorization::Allow
        }
    }))?;
    Ok(refusals)
}

fn touches_files(action: &AuthAction<'_>) -> bool {
    match action {
        AuthAction::Attach { .. } | AuthAction::Detach { .. } => true,
        // An ATTACH whose file name is a bound parameter is not known when prepared.
        AuthAction::Unknown { code, .. } => {
            *code == rusqlite::ffi::SQLITE_ATTACH || *code == rusqlite::ffi::SQLITE_DETACH
        }
        AuthAction::Function { function_name } => {
            // Not compiled into the bundled SQLite today; refused should they ever be.
            ["load_extension", "readfile", "writefile", "edit"]
                .iter()
                .any(|f| function_name.eq_ignore_ascii_case(f))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> (Connection, Refusals) {
        let mut c = Connection::open_in_memory().unwrap();
        let r = restrict(&mut c).unwrap();
        (c, r)
    }

    #[test]
    fn attach_and_vacuum_into_are_refused_and_create_nothing() {
        let dir = std::env::temp_dir().join(format!("frameprobe-ro-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let a = dir.join("attached.db");
        let v = dir.join("vacuumed.db");
        let (c, r) = conn();
        assert!(!r.any());
        let err = c
            .execute("ATTACH ?1 AS x", [a.to_str().unwrap()])
            .unwrap_err();
        assert!(r.any(), "{err}");
        let (c, _) = conn();
        c.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
        assert!(c.execute("VACUUM INTO ?1", [v.to_str().unwrap()]).is_err());
        assert!(!a.exists() && !v.exists());
        // In-memory work is untouched.
        let n: i64 = c
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
    }
}
