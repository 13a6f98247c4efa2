//! Frame analysis over the imported tables.

pub mod sql_functions;
pub mod stdlib;
