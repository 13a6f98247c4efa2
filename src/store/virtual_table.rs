//! Store tables served to SQLite where they lie (SQLite virtual tables) instead of copied
//! into it row by row: the copy was a quarter of `query`'s time on a large trace (issue 19).
//!
//! What SQL sees is what the copied table gave:
//! - rows come out in id order whatever the plan, as a scan of the copied table gives them;
//! - every constraint SQLite hands over is checked again by SQLite on what comes back
//!   (none is omitted), so a lookup only has to return a superset of the matching rows
//!   and SQLite's own comparison rules (affinity, collation) still decide.
//!
//! A plan walks one column's equality or range (an id range, or a sorted index of that
//! column built the second time a plan filters on it: a single filtered scan is cheaper than
//! building it, while a join that probes the column many times needs it, and SQLite builds
//! no automatic index on a virtual table). Constraints on other columns filter the walked
//! rows before SQLite sees them.

use std::borrow::Cow;
use std::ffi::{c_int, CStr, CString};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use rusqlite::types::{Null, ValueRef};
use rusqlite::vtab::{
    Context, CreateVTab, Filters, IndexConstraintOp, IndexInfo, Module, VTab, VTabConnection,
    VTabCursor, VTabKind,
};
use rusqlite::{ffi, Connection};

use super::strings::StrId;
use super::Store;

/// How a column's values are typed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Int,
    Text,
    /// Not indexed: constraints on it are left to SQLite.
    Real,
}

/// One value of a row.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Cell {
    Int(i64),
    Text(StrId),
    Real(f64),
    Null,
}

/// A store table as SQL sees it.
pub struct TableDef {
    /// Column names and kinds; column 0 is `id`, the row's index, which is also its rowid.
    pub columns: &'static [(&'static str, Kind)],
    pub rows: fn(&Store) -> usize,
    pub cell: fn(&Store, u32, usize) -> Cell,
}

/// Replaces the (empty) table `name` of the schema by `def`'s rows of `store`. Views over
/// `name` read the virtual table from then on.
pub fn serve(
    conn: &Connection,
    name: &str,
    def: &'static TableDef,
    store: Arc<Store>,
) -> rusqlite::Result<()> {
    const MODULE: Module<'static, StoreTable> = Module::read_only_module();
    let rows = (def.rows)(&store);
    let n = def.columns.len();
    let source = Arc::new(Source {
        store,
        def,
        rows,
        indexes: (0..n).map(|_| OnceLock::new()).collect(),
        filtered: (0..n).map(|_| AtomicU32::new(0)).collect(),
    });
    let module = format!("__fp_rows_{name}");
    conn.create_module(module.as_str(), &MODULE, Some(source))?;
    conn.execute_batch(&format!(
        "DROP TABLE {name}; CREATE VIRTUAL TABLE {name} USING {module}"
    ))
}

/// The key a column is indexed and compared by: the value, or the string's pool id (the
/// pool holds each string once, so equal strings have equal ids).
fn key(c: Cell) -> Option<i64> {
    match c {
        Cell::Int(v) => Some(v),
        Cell::Text(s) => Some(s.index() as i64),
        Cell::Real(_) | Cell::Null => None,
    }
}

/// A column's non-null rows sorted by (key, id).
struct SortedColumn {
    keys: Vec<i64>,
    ids: Vec<u32>,
}

impl SortedColumn {
    fn build(src: &Source, col: usize) -> SortedColumn {
        let mut pairs: Vec<(i64, u32)> = (0..src.rows as u32)
            .filter_map(|r| key((src.def.cell)(&src.store, r, col)).map(|k| (k, r)))
            .collect();
        pairs.sort_unstable();
        let (keys, ids) = pairs.into_iter().unzip();
        SortedColumn { keys, ids }
    }

    /// The ids whose key is in `lo..=hi`, ascending; `None` when they are so many that a
    /// filtered scan of every row is cheaper than sorting them back into id order.
    fn ids_in(&self, lo: i64, hi: i64) -> Option<Vec<u32>> {
        let a = self.keys.partition_point(|&k| k < lo);
        let b = self.keys.partition_point(|&k| k <= hi).max(a);
        let ids = &self.ids[a..b];
        if lo == hi {
            // Sorted by (key, id): one key's ids are in order already.
            return Some(ids.to_vec());
        }
        if ids.len() > self.ids.len() / 16 {
            return None;
        }
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        Some(ids)
    }
}

struct Source {
    store: Arc<Store>,
    def: &'static TableDef,
    rows: usize,
    indexes: Vec<OnceLock<SortedColumn>>,
    /// Filtered scans run per column, to build its index on the second.
    filtered: Vec<AtomicU32>,
}

#[repr(C)]
struct StoreTable {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab,
    src: Arc<Source>,
}

/// The constraint operators a plan passes on, numbered from 1 as in [`Plan`].
const OPS: [IndexConstraintOp; 5] = [
    IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_EQ,
    IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GT,
    IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_GE,
    IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LT,
    IndexConstraintOp::SQLITE_INDEX_CONSTRAINT_LE,
];
const EQ: u8 = 1;
/// Bounds on the driving column, and arguments in all.
const MAX_DRIVING: usize = 4;
const MAX_ARGS: usize = 8;

fn op_code(op: IndexConstraintOp) -> Option<u8> {
    OPS.iter().position(|o| *o == op).map(|i| i as u8 + 1)
}

/// A plan: for each argument SQLite passes, in order, the column it bounds and its operator.
/// The first argument's column drives the walk (an id range or that column's sorted index);
/// the other columns filter the rows it yields. Packed into `idx_str` as `col.op` words.
#[derive(Debug, PartialEq, Eq)]
struct Plan {
    args: Vec<(usize, u8)>,
}

impl Plan {
    fn encode(&self) -> String {
        let words: Vec<String> = self.args.iter().map(|(c, o)| format!("{c}.{o}")).collect();
        words.join(" ")
    }

    fn decode(s: Option<&str>) -> Option<Plan> {
        let args = s
            .unwrap_or("")
            .split_whitespace()
            .map(|w| {
                let (c, o) = w.split_once('.')?;
                Some((c.parse().ok()?, o.parse().ok()?))
            })
            .collect::<Option<_>>()?;
        Some(Plan { args })
    }
}

unsafe impl<'vtab> VTab<'vtab> for StoreTable {
    type Aux = Arc<Source>;
    type Cursor = StoreCursor;

    fn connect(
        _db: &mut VTabConnection,
        aux: Option<&Arc<Source>>,
        _module_name: &[u8],
        _database_name: &[u8],
        _table_name: &[u8],
        _args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, Self)> {
        let src = aux
            .cloned()
            .ok_or_else(|| rusqlite::Error::ModuleError("a store table needs its rows".into()))?;
        let cols: Vec<String> = src
            .def
            .columns
            .iter()
            .map(|(name, kind)| {
                let ty = match kind {
                    Kind::Int => "INTEGER",
                    Kind::Text => "TEXT",
                    Kind::Real => "REAL",
                };
                format!("{name} {ty}")
            })
            .collect();
        let schema = CString::new(format!("CREATE TABLE x({})", cols.join(",")))
            .map_err(|e| rusqlite::Error::ModuleError(e.to_string()))?;
        let table = StoreTable {
            base: ffi::sqlite3_vtab::default(),
            src,
        };
        Ok((Cow::Owned(schema), table))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        guard(|| self.plan(info))
    }

    fn open(&'vtab mut self) -> rusqlite::Result<StoreCursor> {
        Ok(StoreCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            src: self.src.clone(),
            scan: Scan::Ids(Vec::new(), 0),
            filters: Vec::new(),
        })
    }
}

impl StoreTable {
    /// Chooses how to walk the rows for the constraints SQLite offers.
    fn plan(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let columns = self.src.def.columns;
        // Constraints this table can narrow a walk by: (constraint index, column, op, IN).
        let mut usable = Vec::new();
        for (i, c) in info.constraints().enumerate() {
            let col = if c.column() < 0 {
                0
            } else {
                c.column() as usize
            };
            let Some(op) = op_code(c.operator()) else {
                continue;
            };
            if !c.is_usable() || col >= columns.len() || columns[col].1 == Kind::Real {
                continue;
            }
            // Strings are indexed by pool id: only equality under binary collation holds.
            if columns[col].1 == Kind::Text && (op != EQ || info.collation(i)? != "BINARY") {
                continue;
            }
            let is_in = op == EQ && info.is_in_constraint(i)?;
            usable.push((i, col, op, is_in));
        }
        // SQLite walks an IN list in ascending order, one filter per value: ids then come
        // out ascending, but only when the list is the driving equality on `id`.
        let plain_eq = |id: bool| {
            usable
                .iter()
                .find(|u| u.2 == EQ && (u.1 == 0) == id && !u.3)
        };
        let id_in = usable.iter().find(|u| u.1 == 0 && u.3);
        let mut chosen: Vec<(usize, usize, u8)> = Vec::new();
        match plain_eq(true).or(id_in).or_else(|| plain_eq(false)) {
            Some(&(i, col, op, _)) => chosen.push((i, col, op)),
            None => {
                if let Some(&(_, col, _, _)) = usable.iter().find(|u| !u.3) {
                    let ranges = usable.iter().filter(|u| u.1 == col && !u.3);
                    chosen.extend(ranges.take(MAX_DRIVING).map(|u| (u.0, u.1, u.2)));
                }
            }
        }
        let driving = chosen.first().map(|c| c.1);
        let others = usable.iter().filter(|u| Some(u.1) != driving && !u.3);
        chosen.extend(others.map(|u| (u.0, u.1, u.2)));
        chosen.truncate(MAX_ARGS);

        let n = self.src.rows.max(1) as f64;
        // Rows left after some of the chosen constraints: an id is one row, another
        // equality a tenth of them (a guess, as SQLite's own), a bound a quarter.
        let left = |on: &dyn Fn(usize) -> bool| {
            let kept = chosen.iter().filter(|c| on(c.1));
            let rows = kept.fold(n, |r, &(_, col, op)| match (col, op) {
                (0, EQ) => 1.0,
                (_, EQ) => r / 10.0,
                _ => r / 4.0,
            });
            rows.max(1.0)
        };
        let rows = left(&|_| true);
        let cost = match chosen.first() {
            None => n,
            Some((_, 0, EQ)) => 1.0,
            // The walk's own rows, before the other columns filter them.
            Some(&(_, col, _)) => n.log2() + left(&|c| c == col),
        };
        for (arg, &(i, _, _)) in chosen.iter().enumerate() {
            info.constraint_usage(i).set_argv_index(arg as c_int + 1);
        }
        let plan = Plan {
            args: chosen.iter().map(|c| (c.1, c.2)).collect(),
        };
        info.set_idx_str(&plan.encode());
        info.set_estimated_cost(cost);
        info.set_estimated_rows(rows.ceil() as i64);
        // Every plan returns rows by ascending id; with no constraint passed on, a single
        // pass returns all of them, so an ORDER BY id is already met.
        let by_id = info.num_of_order_by() == 1
            && info
                .order_bys()
                .all(|o| (o.column() <= 0) && !o.is_order_by_desc());
        if by_id && chosen.is_empty() {
            info.set_order_by_consumed(true);
        }
        Ok(true)
    }
}

impl CreateVTab<'_> for StoreTable {
    const KIND: VTabKind = VTabKind::Default;
}

/// What a cursor walks.
enum Scan {
    /// Ids `pos..end`.
    Range { pos: u32, end: u32 },
    /// Listed ids, ascending.
    Ids(Vec<u32>, usize),
}

#[repr(C)]
struct StoreCursor {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab_cursor,
    src: Arc<Source>,
    scan: Scan,
    /// Rows are kept only when their key in each column is within its `lo..=hi`.
    filters: Vec<(usize, i64, i64)>,
}

impl StoreCursor {
    fn matches(&self, row: u32) -> bool {
        self.filters.iter().all(|&(col, lo, hi)| {
            key((self.src.def.cell)(&self.src.store, row, col))
                .is_some_and(|k| (lo..=hi).contains(&k))
        })
    }

    fn at_end(&self) -> bool {
        match &self.scan {
            Scan::Range { pos, end } => pos >= end,
            Scan::Ids(ids, i) => *i >= ids.len(),
        }
    }

    fn advance(&mut self) {
        match &mut self.scan {
            Scan::Range { pos, .. } => *pos += 1,
            Scan::Ids(_, i) => *i += 1,
        }
    }

    /// Moves forward to the next row the filters keep.
    fn settle(&mut self) {
        while !self.at_end() && !self.matches(self.current()) {
            self.advance();
        }
    }

    fn current(&self) -> u32 {
        match &self.scan {
            Scan::Range { pos, .. } => *pos,
            Scan::Ids(ids, i) => ids[*i],
        }
    }
}

/// Narrows a column's key range `lo..=hi` by one argument; `None` when no row can match.
/// An argument that is not of the column's kind narrows nothing: SQLite's own check
/// decides for it.
fn narrow(
    src: &Source,
    col: usize,
    op: u8,
    arg: ValueRef<'_>,
    range: &mut (i64, i64),
) -> Option<()> {
    let (lo, hi) = range;
    let (below, above) = match (src.def.columns[col].1, arg) {
        // A comparison with NULL is never true.
        (_, ValueRef::Null) => return None,
        (Kind::Int, ValueRef::Integer(v)) => (v, v),
        // The integers either side of a real (`ts < t.ts + 5e6`): a bound widened to
        // them keeps every row SQLite's numeric comparison would.
        (Kind::Int, ValueRef::Real(r)) if !r.is_nan() => (r.floor() as i64, r.ceil() as i64),
        (Kind::Text, ValueRef::Text(t)) => {
            let s = std::str::from_utf8(t).ok()?;
            let k = src.store.strings.lookup(s)?.index() as i64;
            (k, k)
        }
        _ => return Some(()),
    };
    let exact = below == above;
    match op {
        EQ => (*lo, *hi) = ((*lo).max(below), (*hi).min(above)),
        2 if exact => *lo = (*lo).max(below.checked_add(1)?),
        2 | 3 => *lo = (*lo).max(below),
        4 if exact => *hi = (*hi).min(above.checked_sub(1)?),
        _ => *hi = (*hi).min(above),
    }
    (*lo <= *hi).then_some(())
}

/// Each column's key range under the plan's arguments, in the order the plan names the
/// columns (the driving one first); `None` when no row can match.
fn key_ranges(src: &Source, plan: &Plan, args: &Filters<'_>) -> Option<Vec<(usize, i64, i64)>> {
    let mut ranges: Vec<(usize, (i64, i64))> = Vec::new();
    for (i, &(col, op)) in plan.args.iter().enumerate() {
        let at = match ranges.iter().position(|r| r.0 == col) {
            Some(at) => at,
            None => {
                ranges.push((col, (i64::MIN, i64::MAX)));
                ranges.len() - 1
            }
        };
        narrow(src, col, op, args[i].get_raw(), &mut ranges[at].1)?;
    }
    Some(
        ranges
            .into_iter()
            .map(|(c, (lo, hi))| (c, lo, hi))
            .collect(),
    )
}

unsafe impl VTabCursor for StoreCursor {
    fn filter(
        &mut self,
        _idx_num: c_int,
        idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        guard(|| self.start(idx_str, args))
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        guard(|| {
            self.advance();
            self.settle();
            Ok(())
        })
    }

    fn eof(&self) -> bool {
        self.at_end()
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        guard(|| {
            let store = &self.src.store;
            match (self.src.def.cell)(store, self.current(), i as usize) {
                Cell::Int(v) => ctx.set_result(v),
                Cell::Text(s) => ctx.set_result(store.str(s)),
                Cell::Real(v) => ctx.set_result(v),
                Cell::Null => ctx.set_result(Null),
            }
        })
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.current() as i64)
    }
}

/// Runs a callback SQLite made: a panic there would abort the process (it cannot unwind
/// through SQLite), so it becomes this statement's error instead.
fn guard<T>(f: impl FnOnce() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(rusqlite::Error::ModuleError(
            "internal error reading a store table".into(),
        ))
    })
}

impl StoreCursor {
    /// Starts the walk a plan ([`StoreTable::plan`]) chose, with its arguments.
    fn start(&mut self, idx_str: Option<&str>, args: &Filters<'_>) -> rusqlite::Result<()> {
        let src = self.src.clone();
        let all = src.rows as u32;
        let plan = Plan::decode(idx_str)
            .filter(|p| {
                p.args.len() == args.len() && p.args.iter().all(|a| a.0 < src.def.columns.len())
            })
            .ok_or_else(|| {
                rusqlite::Error::ModuleError("a store table got a plan it did not make".into())
            })?;
        let Some(mut ranges) = key_ranges(&src, &plan, args) else {
            self.scan = Scan::Ids(Vec::new(), 0);
            self.filters.clear();
            return Ok(());
        };
        self.scan = match ranges.first().copied() {
            None => Scan::Range { pos: 0, end: all },
            Some((0, lo, hi)) => {
                ranges.remove(0);
                Scan::Range {
                    pos: lo.clamp(0, all as i64) as u32,
                    end: hi.saturating_add(1).clamp(0, all as i64) as u32,
                }
            }
            Some((col, lo, hi)) => {
                let earlier = src.filtered[col].fetch_add(1, Ordering::Relaxed);
                let index = match src.indexes[col].get() {
                    None if earlier == 0 => None,
                    _ => Some(src.indexes[col].get_or_init(|| SortedColumn::build(&src, col))),
                };
                match index.and_then(|index| index.ids_in(lo, hi)) {
                    Some(ids) => {
                        ranges.remove(0);
                        Scan::Ids(ids, 0)
                    }
                    // Scanned, with the driving column as one more filter.
                    None => Scan::Range { pos: 0, end: all },
                }
            }
        };
        self.filters = ranges;
        self.settle();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
