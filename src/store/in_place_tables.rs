//! The large tables `query` serves in place (see [`super::virtual_table`]): the same
//! columns, in the same order and with the same values, as the tables the schema declares
//! and [`super::sqlite::to_connection`] copies.

use super::strings::StrId;
use super::virtual_table::{Cell, Kind, TableDef};
use super::{SliceId, Store};

fn int(v: Option<impl Into<i64>>) -> Cell {
    v.map_or(Cell::Null, |v| Cell::Int(v.into()))
}

fn text(v: Option<StrId>) -> Cell {
    v.map_or(Cell::Null, Cell::Text)
}

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
    let thread = |f: fn(&super::SliceThreadTimes) -> Option<i64>| {
        int(s.slice_thread_times.get(&id).and_then(f))
    };
    match col {
        0 => Cell::Int(id.into()),
        1 => Cell::Int(r.ts),
        2 => Cell::Int(r.dur),
        3 => Cell::Int(r.track_id.into()),
        4 => text(s.slice_category(id)),
        5 => text(r.name),
        6 => Cell::Int(r.depth().into()),
        7 => int(s.slice_parent(id)),
        8 => int(r.arg_set_id.get()),
        9 => thread(|t| t.thread_ts),
        10 => thread(|t| t.thread_dur),
        11 => thread(|t| t.thread_instruction_count),
        12 => thread(|t| t.thread_instruction_delta),
        _ => Cell::Null,
    }
}

pub static COUNTER_TABLE: TableDef = TableDef {
    columns: &[
        ("id", Kind::Int),
        ("ts", Kind::Int),
        ("track_id", Kind::Int),
        ("value", Kind::Real),
        ("arg_set_id", Kind::Int),
    ],
    rows: |s| s.counters.len(),
    cell: |s, id, col| {
        let r = &s.counters[id as usize];
        match col {
            0 => Cell::Int(id.into()),
            1 => Cell::Int(r.ts),
            2 => Cell::Int(r.track_id.into()),
            3 => Cell::Real(r.value),
            4 => int(r.arg_set_id.get()),
            _ => Cell::Null,
        }
    },
};

pub static SCHED_TABLE: TableDef = TableDef {
    columns: &[
        ("id", Kind::Int),
        ("ts", Kind::Int),
        ("dur", Kind::Int),
        ("utid", Kind::Int),
        ("end_state", Kind::Text),
        ("priority", Kind::Int),
        ("ucpu", Kind::Int),
    ],
    rows: |s| s.sched.len(),
    cell: |s, id, col| {
        let r = &s.sched[id as usize];
        match col {
            0 => Cell::Int(id.into()),
            1 => Cell::Int(r.ts),
            2 => Cell::Int(r.dur),
            3 => Cell::Int(r.utid.into()),
            4 => text(r.end_state),
            5 => Cell::Int(r.priority.into()),
            6 => Cell::Int(r.cpu.into()),
            _ => Cell::Null,
        }
    },
};

pub static THREAD_STATE_TABLE: TableDef = TableDef {
    columns: &[
        ("id", Kind::Int),
        ("ts", Kind::Int),
        ("dur", Kind::Int),
        ("utid", Kind::Int),
        ("state", Kind::Text),
        ("io_wait", Kind::Int),
        ("blocked_function", Kind::Text),
        ("waker_utid", Kind::Int),
        ("waker_id", Kind::Int),
        ("irq_context", Kind::Int),
        ("ucpu", Kind::Int),
    ],
    rows: |s| s.thread_states.len(),
    cell: |s, id, col| {
        let r = s.thread_states.row(id as usize);
        match col {
            0 => Cell::Int(id.into()),
            1 => Cell::Int(r.ts),
            2 => Cell::Int(r.dur),
            3 => Cell::Int(r.utid.into()),
            4 => text(r.state()),
            5 => int(r.io_wait()),
            6 => text(s.blocked_function(id)),
            7 => int(r.waker_utid(&s.thread_states)),
            8 => int(r.waker_id()),
            9 => int(r.irq_context()),
            10 => int(r.cpu()),
            _ => Cell::Null,
        }
    },
};
