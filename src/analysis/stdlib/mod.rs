//! Perfetto stdlib compatibility: `INCLUDE PERFETTO MODULE x;` statements and the modules
//! frameprobe implements, each built on demand once per connection.
//!
//! A module is one SQL file here; [`MODULES`] says which Perfetto module names it answers,
//! which tables it defines (a query naming one of them gets the module without an INCLUDE)
//! and which other modules it needs first.

use anyhow::{bail, Result};
use rusqlite::Connection;

/// One frameprobe implementation of one or more Perfetto stdlib modules.
pub struct Module {
    /// Perfetto module names this SQL provides (as written after INCLUDE PERFETTO MODULE).
    pub provides: &'static [&'static str],
    /// Tables and views the SQL creates; the first one marks the module as built.
    pub tables: &'static [&'static str],
    /// Other modules (by an entry of their `provides`, or the first table of one that provides
    /// no Perfetto name) to build first.
    pub requires: &'static [&'static str],
    pub sql: &'static str,
    /// The SQL joins slices by time: a copied slice table needs an index on `ts` (a virtual
    /// one answers time ranges itself and cannot be indexed).
    pub joins_slices_by_ts: bool,
}

/// Every module frameprobe provides.
pub static MODULES: &[Module] = &[
    Module {
        provides: &[
            "android.frames.timeline",
            "android.frames.per_frame_metrics",
        ],
        tables: &[
            "android_frame_stats",
            "android_frames",
            "android_frames_overrun",
            "android_frames_ui_time",
            "android_frames_layers",
            "android_app_vsync_delay_per_frame",
            "android_cpu_time_per_frame",
            "android_frames_choreographer_do_frame",
            "android_frames_draw_frame",
        ],
        requires: &["slices.with_context"],
        sql: include_str!("android_frames.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.monitor_contention"],
        tables: &[
            "android_monitor_contention_chain_blocked_functions_by_txn",
            "android_monitor_contention_chain_thread_state_by_txn",
            "android_monitor_contention_chain_thread_state",
            "android_monitor_contention_chain",
            "android_monitor_contention",
        ],
        requires: &[],
        sql: include_str!("android_monitor_contention.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.garbage_collection"],
        tables: &["android_garbage_collection_events"],
        requires: &["slices.with_context"],
        sql: include_str!("android_garbage_collection.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["slices.with_context"],
        tables: &["thread_or_process_slice", "thread_slice", "process_slice"],
        requires: &[],
        sql: include_str!("slices_with_context.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.critical_blocking_calls"],
        tables: &["_android_critical_blocking_calls"],
        requires: &["android.binder", "slices.with_context"],
        sql: include_str!("android_frame_blocking_calls.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.cujs.base"],
        tables: &[
            "_jank_cujs_slices",
            "_cuj_state_markers",
            "_cuj_instant_events",
            "_all_frames_in_cuj",
            "_android_distinct_frames_in_cuj",
            "_android_jank_cuj_do_frames",
            "android_jank_cuj",
        ],
        requires: &["android.frames.timeline"],
        sql: include_str!("android_cujs_base.sql"),
        joins_slices_by_ts: true,
    },
    // The first table of blocking_calls_aggregation, on its own so that `analyze` can
    // build it without the blocking calls (see `analysis::causes::cuj`).
    Module {
        provides: &[],
        tables: &["_extended_frame_boundary"],
        requires: &["android.cujs.base"],
        sql: include_str!("android_cuj_frame_boundary.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.frame_blocking_calls.blocking_calls_aggregation"],
        tables: &["_blocking_calls_frame_cuj"],
        requires: &[
            "android.critical_blocking_calls",
            "android.cujs.base",
            "_extended_frame_boundary",
        ],
        sql: include_str!("android_blocking_calls_aggregation.sql"),
        joins_slices_by_ts: false,
    },
    Module {
        provides: &["android.binder"],
        tables: &[
            "android_binder_txns",
            "android_binder_metrics_by_process",
            "android_sync_binder_thread_state_by_txn",
            "android_sync_binder_blocked_functions_by_txn",
        ],
        requires: &[],
        sql: include_str!("android_binder.sql"),
        joins_slices_by_ts: false,
    },
];

/// The module that provides a Perfetto module name.
pub fn module_named(name: &str) -> Option<&'static Module> {
    MODULES.iter().find(|m| m.provides.contains(&name))
}

/// A module a `requires` entry names: by a Perfetto name, else by its first table.
fn required(name: &str) -> Option<&'static Module> {
    module_named(name).or_else(|| MODULES.iter().find(|m| m.tables.first() == Some(&name)))
}

/// frameprobe's part of `blocking_calls_aggregation` that builds `_extended_frame_boundary`.
pub fn cuj_frame_boundary_module() -> Option<&'static Module> {
    required("_extended_frame_boundary")
}

/// Builds a module (and what it requires) unless this connection already has it.
pub fn ensure_module(conn: &Connection, m: &Module) -> Result<()> {
    for r in m.requires {
        match required(r) {
            Some(dep) => ensure_module(conn, dep)?,
            None => bail!("internal: stdlib module requires unknown module {r}"),
        }
    }
    let exists: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE name = ?1",
        [m.tables[0]],
        |r| r.get(0),
    )?;
    if !exists {
        if m.joins_slices_by_ts && !slices_are_virtual(conn)? {
            conn.execute_batch("CREATE INDEX IF NOT EXISTS __slice_ts ON __intrinsic_slice(ts)")?;
        }
        conn.execute_batch(m.sql)?;
    }
    Ok(())
}

/// Whether the slice table is served in place ([`crate::store::virtual_table`]).
fn slices_are_virtual(conn: &Connection) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE name = '__intrinsic_slice' AND sql LIKE 'CREATE VIRTUAL TABLE%'",
        [],
        |r| r.get(0),
    )?)
}

/// Builds the `android.frames.*` tables once per connection.
pub fn ensure_frames_module(conn: &Connection) -> Result<()> {
    ensure_module(conn, &MODULES[0])
}

/// The module name of an `INCLUDE PERFETTO MODULE name;` statement, if `stmt` is one.
fn include_target(stmt: &str) -> Option<&str> {
    const KW: [&str; 3] = ["include", "perfetto", "module"];
    let mut rest = stmt.trim_start();
    for kw in KW {
        let word_end = rest.find(char::is_whitespace)?;
        if !rest[..word_end].eq_ignore_ascii_case(kw) {
            return None;
        }
        rest = rest[word_end..].trim_start();
    }
    Some(rest.trim_end_matches(';').trim())
}

/// The modules an INCLUDE target names: one module, or every module under a `prefix.*`.
fn resolve_include(target: &str) -> Result<Vec<&'static Module>> {
    let found: Vec<&'static Module> = match target.strip_suffix(".*") {
        Some(prefix) => MODULES
            .iter()
            .filter(|m| {
                m.provides
                    .iter()
                    .any(|p| p.strip_prefix(prefix).is_some_and(|r| r.starts_with('.')))
            })
            .collect(),
        None => module_named(target).into_iter().collect(),
    };
    if found.is_empty() {
        let mut names: Vec<&str> = MODULES
            .iter()
            .flat_map(|m| m.provides.iter().copied())
            .collect();
        names.sort_unstable();
        bail!(
            "frameprobe does not provide the Perfetto stdlib module '{target}'; it provides: {}",
            names.join(", ")
        );
    }
    Ok(found)
}

/// The SQL without its `INCLUDE PERFETTO MODULE x;` statements, and the modules it needs:
/// those it includes and those whose tables the remaining SQL names.
fn modules_for(sql: &str) -> Result<(String, Vec<&'static Module>)> {
    let mut out = String::with_capacity(sql.len());
    let mut wanted: Vec<&'static Module> = Vec::new();
    for stmt in sql.split_inclusive(';') {
        match include_target(stmt) {
            Some(target) => wanted.extend(resolve_include(target)?),
            None => out.push_str(stmt),
        }
    }
    let lower = out.to_ascii_lowercase();
    for m in MODULES {
        if m.tables.iter().any(|t| lower.contains(t)) {
            wanted.push(m);
        }
    }
    Ok((out, wanted))
}

/// Whether running `sql` needs the `thread_state` table: it names the table (or the
/// spurious wakeups its tracker finds), or uses a module that reads it.
pub fn needs_thread_state(sql: &str) -> bool {
    crate::store::sqlite::ExportOptions::for_sql(&sql_read_by(sql)).thread_state
}

/// The text of everything running `sql` executes: the SQL itself and the SQL of every
/// stdlib module it builds (with the modules those require). Used to tell which tables the
/// run can read. An INCLUDE of an unknown module contributes nothing; running reports it.
pub fn sql_read_by(sql: &str) -> String {
    let mut text = sql.to_string();
    let mut seen: Vec<*const Module> = Vec::new();
    let mut todo: Vec<&'static Module> = modules_for(sql).map(|(_, m)| m).unwrap_or_default();
    while let Some(m) = todo.pop() {
        if seen.contains(&(m as *const Module)) {
            continue;
        }
        seen.push(m);
        text.push('\n');
        text.push_str(m.sql);
        todo.extend(m.requires.iter().filter_map(|r| module_named(r)));
    }
    text
}

/// Removes `INCLUDE PERFETTO MODULE x;` statements, building each included module, and
/// any module whose tables the remaining SQL names.
pub fn strip_includes(conn: &Connection, sql: &str) -> Result<String> {
    let (out, wanted) = modules_for(sql)?;
    for m in wanted {
        ensure_module(conn, m)?;
    }
    Ok(out)
}

#[cfg(test)]
mod android_binder_tests;
#[cfg(test)]
mod module_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_statements_are_recognised_with_any_spacing_and_case() {
        assert_eq!(
            include_target("\n  include  PERFETTO module android.binder;"),
            Some("android.binder")
        );
        assert_eq!(include_target("select 1;"), None);
        assert_eq!(include_target("INCLUDE PERFETTO"), None);
    }

    #[test]
    fn unknown_module_is_an_error_listing_the_provided_ones() {
        let err = resolve_include("android.nope").err().unwrap().to_string();
        assert!(err.contains("android.nope"), "{err}");
        assert!(err.contains("android.frames.timeline"), "{err}");
    }

    #[test]
    fn thread_state_is_needed_by_the_modules_that_read_it() {
        assert!(needs_thread_state(
            "INCLUDE PERFETTO MODULE android.garbage_collection; select 1"
        ));
        assert!(needs_thread_state(
            "select * from android_garbage_collection_events"
        ));
        assert!(needs_thread_state("select * from thread_state"));
        assert!(!needs_thread_state(
            "INCLUDE PERFETTO MODULE android.frames.timeline; select * from android_frames"
        ));
        assert!(!needs_thread_state(
            "INCLUDE PERFETTO MODULE nope.nope; select 1"
        ));
    }

    #[test]
    fn every_required_module_exists() {
        for m in MODULES {
            for r in m.requires {
                assert!(required(r).is_some(), "{r}");
            }
        }
    }

    #[test]
    fn only_perfetto_names_are_provided_and_internal_modules_are_found_by_table() {
        let internal = cuj_frame_boundary_module().unwrap();
        assert!(internal.provides.is_empty());
        assert_eq!(internal.tables, ["_extended_frame_boundary"]);
        assert!(module_named("_extended_frame_boundary").is_none());
        // The aggregation still brings the boundary, by INCLUDE or by naming either table.
        let (_, m) = modules_for(
            "INCLUDE PERFETTO MODULE android.frame_blocking_calls.blocking_calls_aggregation; select 1",
        )
        .unwrap();
        assert!(m[0].requires.contains(&"_extended_frame_boundary"));
        let (_, m) = modules_for("select * from _extended_frame_boundary").unwrap();
        assert!(m.iter().any(|m| std::ptr::eq(*m, internal)));
    }

    #[test]
    fn wildcard_includes_every_module_under_the_prefix() {
        let m = resolve_include("android.frames.*").unwrap();
        assert_eq!(m.len(), 1);
        assert!(resolve_include("android.fr.*").is_err());
    }
}
