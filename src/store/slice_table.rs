//! The `__intrinsic_slice` table as `query` serves it in place (see [`super::virtual_table`]):
//! the same columns, in the same order, as the table the schema declares.

use super::virtual_table::{Cell, Kind, TableDef};
use super::{SliceId, Store};

pub static SLICE_TABLE: TableDef = TableDef {
    columns: &[
        ("id", Kind::Int),
        ("ts", Kind::Int),
        ("dur", Kind::Int),
        ("track_id", Kind::Int),
        ("category", Kind::Text),
        ("name", Kind::Text),
        ("depth", Kind::Int),
        ("parent_id", Kind::Int),
        ("arg_set_id", Kind::Int),
        ("thread_ts", Kind::Int),
        ("thread_dur", Kind::Int),
        ("thread_instruction_count", Kind::Int),
        ("thread_instruction_delta", Kind::Int),
    ],
    rows: |s| s.slices.len(),
    cell: slice_cell,
};

fn slice_cell(s: &Store, id: SliceId, col: usize) -> Cell {
    let r = &s.slices[id as usize];
    let int = |v: Option<i64>| v.map_or(Cell::Null, Cell::Int);
    let text = |v: Option<super::strings::StrId>| v.map_or(Cell::Null, Cell::Text);
    let thread = |f: fn(&super::SliceThreadTimes) -> Option<i64>| {
        int(s.slice_thread_times.get(&id).and_then(f))
    };
    match col {
        0 => Cell::Int(id as i64),
        1 => Cell::Int(r.ts),
        2 => Cell::Int(r.dur),
        3 => Cell::Int(r.track_id as i64),
        4 => text(s.slice_category(id)),
        5 => text(r.name),
        6 => Cell::Int(r.depth() as i64),
        7 => int(s.slice_parent(id).map(i64::from)),
        8 => int(r.arg_set_id.get().map(i64::from)),
        9 => thread(|t| t.thread_ts),
        10 => thread(|t| t.thread_dur),
        11 => thread(|t| t.thread_instruction_count),
        12 => thread(|t| t.thread_instruction_delta),
        _ => Cell::Null,
    }
}
