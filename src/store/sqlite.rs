//! Writes the store into SQLite with trace_processor's table and column names, and registers
//! the SQL functions Perfetto queries use (EXTRACT_ARG, ...). Every value goes in as a bound
//! parameter; rows are inserted in id order inside one transaction, indexes come after.

use std::sync::Arc;

use rusqlite::functions::FunctionFlags;
use rusqlite::types::{Null, Value};
use rusqlite::{params, Connection, ToSql};

use super::args::ArgValue;
use super::in_place_tables::{COUNTER_TABLE, SCHED_TABLE, SLICE_TABLE, THREAD_STATE_TABLE};
use super::virtual_table::{Cell, TableDef};
use super::{EventType, FrameSliceRow, FrameTimelineRow, MetaValue, SliceId, Store, TrackScope};

const SCHEMA: &str = include_str!("schema.sql");

/// Which tables a command needs; everything else is left empty (cheap to skip).
#[derive(Debug, Clone, Copy)]
pub struct ExportOptions {
    pub sched: bool,
    pub counters: bool,
    pub slices: bool,
    /// Only the slices the frame tables use (doFrame, DrawFrame, FrameTimeline) and the CUJ
    /// slices and their FrameTracker markers (`J<…>`, `FT#…`), no flows, and of the slice
    /// and frame timeline tables only the columns the stdlib frame and CUJ modules read:
    /// `analyze`'s internal frame database.
    pub only_frame_slices: bool,
    /// `thread_state` (with `sched`): about two rows per context switch, the costliest
    /// table to write, so a query that does not name it can skip it.
    pub thread_state: bool,
    /// `args` and the lookup behind `EXTRACT_ARG`.
    pub args: bool,
    /// `trace_bounds` when the caller has it already (`Store::bounds` walks every row).
    pub bounds: Option<(i64, i64)>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            sched: true,
            counters: true,
            slices: true,
            only_frame_slices: false,
            thread_state: true,
            args: true,
            bounds: None,
        }
    }
}

impl ExportOptions {
    /// The tables SQL can read, judged from its text (the query and the stdlib modules it
    /// builds): a table group is written when the text names any table or view of it.
    /// Over-inclusion only costs time (`sched_slice` also brings the slices); names are
    /// matched as substrings so views (`thread_slice`, `counters`, `instant`) count too.
    /// Processes, threads, tracks, stats and metadata are small and always written.
    pub fn for_sql(text: &str) -> Self {
        let t = text.to_ascii_lowercase();
        let names = |words: &[&str]| words.iter().any(|w| t.contains(w));
        let thread_state = names(&["thread_state", "spurious_sched_wakeup"]);
        ExportOptions {
            slices: names(&["slice", "instant", "flow"]),
            counters: names(&["counter"]),
            sched: thread_state || names(&["sched"]),
            thread_state,
            args: names(&["arg"]),
            only_frame_slices: false,
            bounds: None,
        }
    }
}

/// Slice names the frame and CUJ tables need (a bitmap over string ids).
fn frame_slice_names(s: &Store) -> Vec<bool> {
    s.strings
        .iter()
        .map(|n| {
            n.starts_with("Choreographer#doFrame")
                || n.starts_with("DrawFrame")
                || n.starts_with("J<")
                || n.starts_with("FT#")
        })
        .collect()
}

/// Rows per INSERT statement in [`append_rows`]: one statement per row spends more time
/// starting and resetting the statement than inserting.
const ROWS_PER_INSERT: usize = 64;

/// Inserts rows whose ids are exactly 0..n in order. The first row carries its id; the rest
/// let SQLite assign max(id) + 1, the same number, which takes SQLite's append fast path
/// instead of a B-tree search per row. `bind(stmt, row, first)` binds the row's columns
/// starting at parameter index `first`.
fn append_rows(
    conn: &Connection,
    table: &str,
    cols: &[&str],
    n: usize,
    mut bind: impl FnMut(&mut rusqlite::Statement<'_>, usize, usize) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    if n == 0 {
        return Ok(());
    }
    let marks = vec!["?"; cols.len()].join(",");
    let mut first = conn.prepare(&format!(
        "INSERT INTO {table}(id,{}) VALUES (?,{marks})",
        cols.join(",")
    ))?;
    first.raw_bind_parameter(1, 0i64)?;
    bind(&mut first, 0, 2)?;
    first.raw_execute()?;
    insert_rows(conn, table, cols, 1..n, bind)
}

/// Inserts the rows `rows` names, in order, [`ROWS_PER_INSERT`] to a statement (multi-row
/// VALUES keep their order). `bind(stmt, row, first)` binds the row's columns starting at
/// parameter index `first`.
fn insert_rows(
    conn: &Connection,
    table: &str,
    cols: &[&str],
    rows: std::ops::Range<usize>,
    mut bind: impl FnMut(&mut rusqlite::Statement<'_>, usize, usize) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let row = format!("({})", vec!["?"; cols.len()].join(","));
    let insert = |rows: usize| {
        conn.prepare(&format!(
            "INSERT INTO {table}({}) VALUES {}",
            cols.join(","),
            vec![row.as_str(); rows].join(",")
        ))
    };
    // Binds rows start.. into a statement of `rows` row groups and runs it.
    let mut run = |st: &mut rusqlite::Statement<'_>, start: usize, rows: usize| {
        for k in 0..rows {
            bind(st, start + k, 1 + k * cols.len())?;
        }
        st.raw_execute()
    };
    let (mut i, n) = (rows.start, rows.end);
    if n.saturating_sub(i) >= ROWS_PER_INSERT {
        let mut batch = insert(ROWS_PER_INSERT)?;
        while n - i >= ROWS_PER_INSERT {
            run(&mut batch, i, ROWS_PER_INSERT)?;
            i += ROWS_PER_INSERT;
        }
    }
    if i < n {
        run(&mut insert(n - i)?, i, n - i)?;
    }
    Ok(())
}

/// Binds `values` to the parameters from `first` on.
fn bind_values(
    st: &mut rusqlite::Statement<'_>,
    first: usize,
    values: &[&dyn ToSql],
) -> rusqlite::Result<()> {
    for (k, v) in values.iter().enumerate() {
        st.raw_bind_parameter(first + k, v)?;
    }
    Ok(())
}

fn opt_str(s: &Store, id: Option<super::strings::StrId>) -> Option<&str> {
    id.map(|i| s.strings.get(i))
}

/// Builds an in-memory database holding the store.
pub fn to_connection(store: &Store, opts: ExportOptions) -> rusqlite::Result<Connection> {
    let later = FromCaller {
        frame_slice_ids: || None,
        bounds: || opts.bounds,
    };
    to_connection_later(store, opts, later)
}

/// What a caller that builds the database beside its own work hands over, each asked only
/// when it is needed; None: worked out here.
pub struct FromCaller<F, B> {
    /// [`frame_db_slice_ids`], asked before the slices are written.
    pub frame_slice_ids: F,
    /// The trace bounds, asked once the rows are written (None: the store's own).
    pub bounds: B,
}

/// [`to_connection`] for a caller that works out some of its inputs meanwhile.
pub fn to_connection_later(
    store: &Store,
    opts: ExportOptions,
    later: FromCaller<impl FnOnce() -> Option<Vec<SliceId>>, impl FnOnce() -> Option<(i64, i64)>>,
) -> rusqlite::Result<Connection> {
    let conn = with_schema()?;
    write_rows(
        &conn,
        store,
        opts,
        LargeTables::Copied,
        later.frame_slice_ids,
    )?;
    let bounds = (later.bounds)();
    finish(&conn, store, ExportOptions { bounds, ..opts })?;
    Ok(conn)
}

/// [`to_connection`] for SQL that only reads: the large tables (slices, counters, sched,
/// thread states) are served from the store where they lie ([`super::virtual_table`])
/// instead of copied, which takes no time and no memory up front. The connection keeps the
/// store alive.
pub fn to_shared_connection(
    store: Arc<Store>,
    opts: ExportOptions,
) -> rusqlite::Result<Connection> {
    let conn = with_schema()?;
    write_rows(&conn, &store, opts, LargeTables::InPlace, || None)?;
    let served = [
        (
            opts.slices && !opts.only_frame_slices,
            "__intrinsic_slice",
            &SLICE_TABLE,
        ),
        (opts.counters, "__intrinsic_counter", &COUNTER_TABLE),
        (opts.sched, "__intrinsic_sched_slice", &SCHED_TABLE),
        (
            opts.sched && opts.thread_state,
            "__intrinsic_thread_state",
            &THREAD_STATE_TABLE,
        ),
    ];
    for (wanted, name, def) in served {
        if wanted {
            super::virtual_table::serve(&conn, name, def, store.clone())?;
        }
    }
    finish(&conn, &store, opts)?;
    Ok(conn)
}

fn with_schema() -> rusqlite::Result<Connection> {
    let conn = Connection::open_in_memory()?;
    conn.execute_batch(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;",
    )?;
    conn.execute_batch(SCHEMA)?;
    Ok(conn)
}

fn finish(conn: &Connection, store: &Store, opts: ExportOptions) -> rusqlite::Result<()> {
    conn.execute_batch(include_str!("indexes.sql"))?;
    register_functions(conn, store, opts)
}

/// Whether [`write_rows`] copies the rows of the large tables (slices, counters, sched,
/// thread states) or the caller serves them in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LargeTables {
    Copied,
    InPlace,
}

/// `frame_slice_ids`: [`frame_db_slice_ids`] when the caller has them.
fn write_rows(
    conn: &Connection,
    s: &Store,
    opts: ExportOptions,
    large: LargeTables,
    frame_slice_ids: impl FnOnce() -> Option<Vec<SliceId>>,
) -> rusqlite::Result<()> {
    let copied = large == LargeTables::Copied;
    conn.execute_batch("BEGIN")?;
    {
        write_processes_threads_tracks(conn, s)?;
        if opts.slices {
            if copied && !opts.only_frame_slices {
                copy_table(conn, s, "__intrinsic_slice", &SLICE_TABLE)?;
            }
            if opts.only_frame_slices {
                let ids = frame_slice_ids()
                    .unwrap_or_else(|| frame_db_slice_ids(s, 0..s.slices.len() as SliceId));
                write_frame_slices(conn, s, &ids)?;
                write_frame_table_keys(conn, s)?;
                write_frame_slice_extra(conn, s, Some(&ids))?;
            } else {
                write_frame_tables(conn, s)?;
                write_frame_slice_extra(conn, s, None)?;
            }
            // The frame modules read no flows, and most flows join slices a frame-slice
            // database leaves out.
            if !opts.only_frame_slices {
                let mut st = conn.prepare("INSERT INTO __intrinsic_flow(id,slice_out,slice_in,trace_id,arg_set_id) VALUES (?,?,?,?,NULL)")?;
                for (i, f) in s.flows.iter().enumerate() {
                    st.execute(params![i as i64, f.slice_out, f.slice_in, f.trace_id])?;
                }
            }
        }
        if opts.counters && copied {
            copy_table(conn, s, "__intrinsic_counter", &COUNTER_TABLE)?;
        }
        if opts.sched && copied {
            copy_table(conn, s, "__intrinsic_sched_slice", &SCHED_TABLE)?;
        }
        if opts.sched && opts.thread_state {
            if copied {
                copy_table(conn, s, "__intrinsic_thread_state", &THREAD_STATE_TABLE)?;
            }
            write_spurious_wakeups(conn, s)?;
        }
        if opts.args && !opts.only_frame_slices {
            write_args(conn, s)?;
        }
        let mut st = conn.prepare(
            "INSERT INTO stats(name,idx,severity,source,value,description) VALUES (?,?,?,'trace',?,?)",
        )?;
        for ((name, idx), e) in &s.stats {
            let idx: Option<i64> = (*idx >= 0).then_some(*idx);
            st.execute(params![
                name,
                idx,
                e.severity.as_str(),
                e.value,
                e.description
            ])?;
        }
        let mut st = conn.prepare(
            "INSERT INTO metadata(name,key_type,int_value,str_value) VALUES (?,'single',?,?)",
        )?;
        for (k, v) in &s.metadata {
            match v {
                MetaValue::Int(i) => st.execute(params![k, i, Null])?,
                MetaValue::Str(t) => st.execute(params![k, Null, t])?,
            };
        }
    }
    conn.execute_batch("COMMIT")
}

/// Copies a large table ([`super::in_place_tables`]): the same columns and values
/// [`to_shared_connection`] serves in place.
fn copy_table(conn: &Connection, s: &Store, table: &str, def: &TableDef) -> rusqlite::Result<()> {
    let cols: Vec<&str> = def.columns[1..].iter().map(|c| c.0).collect();
    append_rows(conn, table, &cols, (def.rows)(s), |st, i, b| {
        bind_cells(st, s, def, i as u32, 1, b)
    })
}

/// Binds row `row`'s cells from column `from` on, to the parameters from `first` on.
fn bind_cells(
    st: &mut rusqlite::Statement<'_>,
    s: &Store,
    def: &TableDef,
    row: u32,
    from: usize,
    first: usize,
) -> rusqlite::Result<()> {
    for col in from..def.columns.len() {
        let p = first + col - from;
        match (def.cell)(s, row, col) {
            Cell::Int(v) => st.raw_bind_parameter(p, v)?,
            Cell::Text(t) => st.raw_bind_parameter(p, s.str(t))?,
            Cell::Real(v) => st.raw_bind_parameter(p, v)?,
            Cell::Null => st.raw_bind_parameter(p, Null)?,
        }
    }
    Ok(())
}

/// The slices a frame database holds ([`ExportOptions::only_frame_slices`]), in id order:
/// the FrameTimeline slices, and those among `candidates` named as frame or CUJ slices.
pub fn frame_db_slice_ids(
    s: &Store,
    candidates: impl IntoIterator<Item = SliceId>,
) -> Vec<SliceId> {
    let wanted = frame_slice_names(s);
    let named = |id: &SliceId| {
        let name = s.slices[*id as usize].name;
        name.is_some_and(|n| wanted[n.index() as usize])
    };
    let mut ids: Vec<SliceId> = s.frame_timeline.iter().map(|f| f.slice_id).collect();
    ids.extend(candidates.into_iter().filter(named));
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// `process`, `thread` and `track`, [`ROWS_PER_INSERT`] rows to a statement: every database
/// holds them all, and a frame database writes them before anything else.
fn write_processes_threads_tracks(conn: &Connection, s: &Store) -> rusqlite::Result<()> {
    let cols = [
        "pid",
        "name",
        "start_ts",
        "end_ts",
        "parent_upid",
        "uid",
        "android_appid",
        "android_user_id",
        "cmdline",
        "arg_set_id",
        "machine_id",
    ];
    append_rows(
        conn,
        "__intrinsic_process",
        &cols,
        s.processes.len(),
        |st, i, b| {
            let p = &s.processes[i];
            bind_values(
                st,
                b,
                &[
                    &p.pid,
                    &opt_str(s, p.name),
                    &p.start_ts,
                    &p.end_ts,
                    &p.parent_upid,
                    &p.uid,
                    &p.android_appid,
                    &p.android_user_id,
                    &opt_str(s, p.cmdline),
                    &p.arg_set_id,
                    &p.machine_id,
                ],
            )
        },
    )?;
    let cols = [
        "tid",
        "name",
        "start_ts",
        "end_ts",
        "upid",
        "is_main_thread",
        "is_idle",
        "machine_id",
        "arg_set_id",
    ];
    append_rows(
        conn,
        "__intrinsic_thread",
        &cols,
        s.threads.len(),
        |st, i, b| {
            let t = &s.threads[i];
            bind_values(
                st,
                b,
                &[
                    &t.tid,
                    &opt_str(s, t.name),
                    &t.start_ts,
                    &t.end_ts,
                    &t.upid,
                    &t.is_main_thread,
                    &t.is_idle,
                    &t.machine_id,
                    &t.arg_set_id,
                ],
            )
        },
    )?;
    let cols = [
        "name",
        "type",
        "event_type",
        "dimension_arg_set_id",
        "parent_id",
        "source_arg_set_id",
        "machine_id",
        "counter_unit",
        "utid",
        "upid",
        "cpu",
    ];
    append_rows(
        conn,
        "__intrinsic_track",
        &cols,
        s.tracks.len(),
        |st, i, b| {
            let t = &s.tracks[i];
            let (utid, upid, cpu) = match t.scope {
                TrackScope::Thread(u) => (Some(u), None, None),
                TrackScope::Process(u) => (None, Some(u), None),
                TrackScope::Cpu(c) => (None, None, Some(c)),
                TrackScope::Global => (None, None, None),
            };
            let ev = match t.event_type {
                EventType::Slice => "slice",
                EventType::Counter => "counter",
            };
            bind_values(
                st,
                b,
                &[
                    &opt_str(s, t.name),
                    &s.str(t.kind),
                    &ev,
                    &t.dimension_arg_set_id,
                    &t.parent_id,
                    &t.source_arg_set_id,
                    &t.machine_id,
                    &opt_str(s, t.counter_unit),
                    &utid,
                    &upid,
                    &cpu,
                ],
            )
        },
    )
}

/// The slices `ids` ([`frame_db_slice_ids`]) under their own ids, with only the columns the
/// stdlib frame and CUJ modules read (as [`write_frame_table_keys`]): the thread times alone
/// were four lookups per row.
fn write_frame_slices(conn: &Connection, s: &Store, ids: &[SliceId]) -> rusqlite::Result<()> {
    let cols = ["id", "ts", "dur", "track_id", "name"];
    insert_rows(
        conn,
        "__intrinsic_slice",
        &cols,
        0..ids.len(),
        |st, k, b| {
            let id = ids[k];
            let r = &s.slices[id as usize];
            bind_values(
                st,
                b,
                &[&id, &r.ts, &r.dur, &r.track_id, &opt_str(s, r.name)],
            )
        },
    )
}

/// `spurious_sched_wakeup`, from the thread state tracker as `thread_state` is.
fn write_spurious_wakeups(conn: &Connection, s: &Store) -> rusqlite::Result<()> {
    let cols = ["ts", "thread_state_id", "irq_context", "utid", "waker_utid"];
    append_rows(
        conn,
        "__intrinsic_spurious_sched_wakeup",
        &cols,
        s.spurious_wakeups.len(),
        |st, i, b| {
            let r = &s.spurious_wakeups[i];
            st.raw_bind_parameter(b, r.ts)?;
            st.raw_bind_parameter(b + 1, r.thread_state_id)?;
            st.raw_bind_parameter(b + 2, r.irq_context)?;
            st.raw_bind_parameter(b + 3, r.utid)?;
            st.raw_bind_parameter(b + 4, r.waker_utid)
        },
    )
}

/// `args`: every arg of every set, in set order (arg ids are row numbers).
fn write_args(conn: &Connection, s: &Store) -> rusqlite::Result<()> {
    // (set id, index in `s.args.args`) of each row.
    let rows: Vec<(u32, u32)> = s
        .args
        .sets
        .iter()
        .enumerate()
        .flat_map(|(set_id, &(a, b))| (a..b).map(move |i| (set_id as u32, i)))
        .collect();
    let cols = [
        "arg_set_id",
        "flat_key",
        "key",
        "int_value",
        "string_value",
        "real_value",
        "value_type",
    ];
    append_rows(conn, "__intrinsic_args", &cols, rows.len(), |st, i, b| {
        let (set_id, arg) = rows[i];
        let arg = &s.args.args[arg as usize];
        let (iv, sv, rv): (Option<i64>, Option<&str>, Option<f64>) = match &arg.value {
            ArgValue::Int(v) => (Some(*v), None, None),
            ArgValue::UInt(v) => (Some(*v as i64), None, None),
            ArgValue::Bool(v) => (Some(*v as i64), None, None),
            ArgValue::Pointer(v) => (Some(*v as i64), None, None),
            ArgValue::Str(v) => (None, Some(s.str(*v)), None),
            ArgValue::Real(v) => (None, None, Some(*v)),
            ArgValue::Null => (None, None, None),
        };
        st.raw_bind_parameter(b, set_id)?;
        st.raw_bind_parameter(b + 1, s.str(arg.flat_key))?;
        st.raw_bind_parameter(b + 2, s.str(arg.key))?;
        st.raw_bind_parameter(b + 3, iv)?;
        st.raw_bind_parameter(b + 4, sv)?;
        st.raw_bind_parameter(b + 5, rv)?;
        st.raw_bind_parameter(b + 6, arg.value.type_name())
    })
}

/// A frame database's `expected_frame_timeline_slice` / `actual_frame_timeline_slice`: only
/// the columns the stdlib frame and CUJ modules read (a frame's token, process, layer and
/// span; the rest stay NULL). Binding the other 19 text and number columns was most of the
/// cost of these rows (x300: 142 ms on the frame database's critical path); the frame
/// database is internal to `analyze`, and `frame_db_reads_only_the_columns_it_writes` checks
/// its module tables against a full database's.
fn write_frame_table_keys(conn: &Connection, s: &Store) -> rusqlite::Result<()> {
    let (actual, expected): (Vec<&FrameTimelineRow>, Vec<&FrameTimelineRow>) =
        s.frame_timeline.iter().partition(|f| f.actual);
    let cols = ["id", "ts", "dur", "track_id", "name", "upid", "layer_name"];
    for (table, rows) in [
        ("expected_frame_timeline_slice", &expected),
        ("actual_frame_timeline_slice", &actual),
    ] {
        insert_rows(conn, table, &cols, 0..rows.len(), |st, k, b| {
            let f = rows[k];
            let r = &s.slices[f.slice_id as usize];
            bind_values(
                st,
                b,
                &[
                    &f.slice_id,
                    &r.ts,
                    &r.dur,
                    &r.track_id,
                    &opt_str(s, r.name),
                    &f.upid,
                    &opt_str(s, f.layer_name),
                ],
            )
        })?;
    }
    Ok(())
}

/// `expected_frame_timeline_slice` / `actual_frame_timeline_slice` with every column.
fn write_frame_tables(conn: &Connection, s: &Store) -> rusqlite::Result<()> {
    const BASE: [&str; 9] = [
        "id",
        "ts",
        "dur",
        "track_id",
        "category",
        "name",
        "depth",
        "parent_id",
        "arg_set_id",
    ];
    let (actual, expected): (Vec<&FrameTimelineRow>, Vec<&FrameTimelineRow>) =
        s.frame_timeline.iter().partition(|f| f.actual);
    // The columns every frame timeline slice has, bound from `first` on.
    let bind_base = |st: &mut rusqlite::Statement<'_>, f: &FrameTimelineRow, first: usize| {
        let r = &s.slices[f.slice_id as usize];
        bind_values(
            st,
            first,
            &[
                &f.slice_id,
                &r.ts,
                &r.dur,
                &r.track_id,
                &None::<String>,
                &opt_str(s, r.name),
                &r.depth(),
                &s.slice_parent(f.slice_id),
                &r.arg_set_id.get(),
            ],
        )
    };
    // One table's rows: the base columns, then `extra` bound by `bind_extra`.
    type BindExtra<'b> =
        &'b dyn Fn(&mut rusqlite::Statement<'_>, &FrameTimelineRow, usize) -> rusqlite::Result<()>;
    let write = |table: &str, extra: &[&str], rows: &[&FrameTimelineRow], bind_extra: BindExtra| {
        let cols: Vec<&str> = BASE.iter().chain(extra).copied().collect();
        insert_rows(conn, table, &cols, 0..rows.len(), |st, k, b| {
            bind_base(st, rows[k], b)?;
            bind_extra(st, rows[k], b + BASE.len())
        })
    };
    write(
        "expected_frame_timeline_slice",
        &[
            "display_frame_token",
            "surface_frame_token",
            "upid",
            "layer_name",
        ],
        &expected,
        &|st, f, b| {
            let layer = opt_str(s, f.layer_name);
            bind_values(
                st,
                b,
                &[
                    &f.display_frame_token,
                    &f.surface_frame_token,
                    &f.upid,
                    &layer,
                ],
            )
        },
    )?;
    write(
        "actual_frame_timeline_slice",
        &[
            "display_frame_token",
            "upid",
            "surface_frame_token",
            "layer_name",
            "present_type",
            "on_time_finish",
            "gpu_composition",
            "jank_type",
            "jank_severity_type",
            "prediction_type",
            "jank_tag",
            "jank_tag_experimental",
            "jank_score",
            "latched_unsignaled_count",
            "addressable_unsignaled_latch_count",
            "latched_fence_state",
        ],
        &actual,
        &|st, f, b| {
            let text = |id| opt_str(s, id);
            bind_values(
                st,
                b,
                &[
                    &f.display_frame_token,
                    &f.upid,
                    &f.surface_frame_token,
                    &text(f.layer_name),
                    &text(f.present_type),
                    &f.on_time_finish,
                    &f.gpu_composition,
                    &text(f.jank_type),
                    &text(f.jank_severity_type),
                    &text(f.prediction_type),
                    &text(f.jank_tag),
                    &text(f.jank_tag_experimental),
                    &f.jank_score,
                    &f.latched_unsignaled_count,
                    &f.addressable_unsignaled_latch_count,
                    &text(f.latched_fence_state),
                ],
            )
        },
    )
}

/// `__frame_slice_extra` for the slices a frame database holds (`kept`, from
/// [`frame_db_slice_ids`]), or for all.
fn write_frame_slice_extra(
    conn: &Connection,
    s: &Store,
    kept: Option<&[SliceId]>,
) -> rusqlite::Result<()> {
    let cols = [
        "id",
        "layer_name",
        "frame_number",
        "queue_to_acquire_time",
        "acquire_to_latch_time",
        "latch_to_present_time",
    ];
    // `frame_slice` joins these to their slices, so a frame database needs only the rows of
    // the slices it holds: none, as a rule, since it leaves the FrameTracer slices out.
    let extra: Vec<&FrameSliceRow> = s
        .frame_slices
        .iter()
        .filter(|f| kept.is_none_or(|ids| ids.binary_search(&f.slice_id).is_ok()))
        .collect();
    insert_rows(
        conn,
        "__frame_slice_extra",
        &cols,
        0..extra.len(),
        |st, k, b| {
            let f = extra[k];
            bind_values(
                st,
                b,
                &[
                    &f.slice_id,
                    &opt_str(s, f.layer_name),
                    &f.frame_number,
                    &f.queue_to_acquire_time,
                    &f.acquire_to_latch_time,
                    &f.latch_to_present_time,
                ],
            )
        },
    )
}

fn arg_to_sql(s: &Store, v: &ArgValue) -> Value {
    match v {
        ArgValue::Int(i) => Value::Integer(*i),
        ArgValue::UInt(u) => Value::Integer(*u as i64),
        ArgValue::Bool(b) => Value::Integer(*b as i64),
        ArgValue::Pointer(p) => Value::Integer(*p as i64),
        ArgValue::Real(r) => Value::Real(*r),
        ArgValue::Str(id) => Value::Text(s.str(*id).to_string()),
        ArgValue::Null => Value::Null,
    }
}

/// A read-only copy of the args the SQL functions need.
struct ArgsIndex {
    sets: Vec<Vec<(String, Value)>>,
}

/// With `opts.args`, EXTRACT_ARG answers from the store's args; without, it answers NULL (the
/// SQL does not name args, see [`ExportOptions::for_sql`]).
fn register_functions(conn: &Connection, s: &Store, opts: ExportOptions) -> rusqlite::Result<()> {
    let sets = if opts.args { &s.args.sets[..] } else { &[][..] };
    let index = Arc::new(ArgsIndex {
        sets: sets
            .iter()
            .map(|&(a, b)| {
                s.args.args[a as usize..b as usize]
                    .iter()
                    .map(|arg| (s.str(arg.key).to_string(), arg_to_sql(s, &arg.value)))
                    .collect()
            })
            .collect(),
    });
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    conn.create_scalar_function("extract_arg", 2, flags, move |ctx| {
        let set: Option<i64> = ctx.get(0)?;
        let key: String = ctx.get(1)?;
        let Some(set) = set else {
            return Ok(Value::Null);
        };
        let Some(args) = index.sets.get(set as usize) else {
            return Ok(Value::Null);
        };
        Ok(args
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Null))
    })?;
    crate::analysis::sql_functions::register(conn)?;
    let (start, end) = opts.bounds.unwrap_or_else(|| s.bounds());
    crate::analysis::sql_functions::register_bounds(conn, start, end)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::args::ArgValue;
    use crate::store::NewSlice;

    /// One slice with one arg `k = 7`, on a fresh store.
    fn store_with_an_arg() -> Store {
        let mut s = Store::default();
        let key = s.intern("k");
        let set = s.args.insert_set(vec![(key, ArgValue::Int(7))]);
        let name = s.intern("work");
        s.push_slice(NewSlice {
            ts: 10,
            dur: 5,
            name: Some(name),
            arg_set_id: set,
            ..Default::default()
        });
        s
    }

    fn one(conn: &Connection, sql: &str) -> Value {
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    #[test]
    fn a_query_gets_the_tables_it_names() {
        let o = ExportOptions::for_sql("select count(*) from slice");
        assert!(o.slices && !o.args && !o.counters && !o.sched && !o.thread_state);
        let o = ExportOptions::for_sql("SELECT EXTRACT_ARG(arg_set_id, 'k') FROM slices");
        assert!(o.slices && o.args);
        let o = ExportOptions::for_sql("select * from thread_state");
        assert!(o.thread_state && o.sched && !o.slices);
        assert!(ExportOptions::for_sql("select * from counters").counters);
        assert!(ExportOptions::for_sql("select * from instant").slices);
    }

    #[test]
    fn rows_keep_their_ids_and_values_across_insert_batches() {
        // One row, a partial batch, one full batch plus the first row, and two full
        // batches plus a partial one.
        for n in [1, 2, ROWS_PER_INSERT + 1, 2 * ROWS_PER_INSERT + 5] {
            let s = Store {
                counters: (0..n)
                    .map(|i| crate::store::CounterRow {
                        ts: i as i64 * 10,
                        track_id: 0,
                        arg_set_id: None.into(),
                        value: i as f64 / 2.0,
                    })
                    .collect(),
                ..Default::default()
            };
            let conn = to_connection(&s, ExportOptions::for_sql("select * from counter")).unwrap();
            let rows: Vec<(i64, i64, f64)> = conn
                .prepare("select id, ts, value from __intrinsic_counter order by id")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let want: Vec<(i64, i64, f64)> = (0..n)
                .map(|i| (i as i64, i as i64 * 10, i as f64 / 2.0))
                .collect();
            assert_eq!(rows, want, "{n} rows");
        }
    }

    #[test]
    fn args_are_written_and_extracted_only_when_asked_for() {
        let s = store_with_an_arg();
        let sql = "select extract_arg(arg_set_id, 'k') from slice";
        let conn = to_connection(&s, ExportOptions::for_sql(sql)).unwrap();
        assert_eq!(one(&conn, sql), Value::Integer(7));
        assert_eq!(
            one(&conn, "select int_value from args where key = 'k'"),
            Value::Integer(7)
        );
        let sql = "select count(*) from slice";
        let conn = to_connection(&s, ExportOptions::for_sql(sql)).unwrap();
        assert_eq!(one(&conn, sql), Value::Integer(1));
        assert_eq!(one(&conn, "select count(*) from args"), Value::Integer(0));
    }

    /// trace_start()/trace_end() come from the store unless the caller gives the bounds it
    /// already computed (analyze does, so the frame database does not walk every row again).
    #[test]
    fn trace_bounds_come_from_the_caller_when_given() {
        let s = store_with_an_arg();
        let ends = "select trace_start() || ',' || trace_end()";
        let conn = to_connection(&s, ExportOptions::default()).unwrap();
        let (start, end) = s.bounds();
        assert_eq!(one(&conn, ends), Value::Text(format!("{start},{end}")));
        let given = ExportOptions {
            bounds: Some((5, 9)),
            ..Default::default()
        };
        let conn = to_connection(&s, given).unwrap();
        assert_eq!(one(&conn, ends), Value::Text("5,9".into()));
    }
}
