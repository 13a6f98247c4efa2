//! Frame analysis over the imported tables.

pub mod jank;
pub mod sql_functions;
pub mod stdlib;
