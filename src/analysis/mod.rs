//! Frame analysis over the imported tables.

pub mod frame_timing;
pub mod jank;
pub mod sql_functions;
pub mod stdlib;
