//! frameprobe as a library: trace reading, Perfetto-shaped tables, frame analysis and
//! reports. The binary (`src/main.rs`) is a thin wrapper around [`cli`]; the test and bench
//! tools live in `crates/frameprobe-tools`.

pub mod analysis;
pub mod cli;
pub mod diff;
pub mod export_parquet;
pub mod fleet;
pub mod gate;
pub mod gfxinfo;
pub mod import;
pub mod report;
pub mod rng;
pub mod single_trace;
pub mod store;
pub mod trace;

/// Types generated from `proto/perfetto_subset.proto` (field numbers identical to Perfetto's).
pub mod protos {
    #![allow(clippy::all, missing_docs)]
    include!(concat!(env!("OUT_DIR"), "/perfetto.protos.rs"));
}
