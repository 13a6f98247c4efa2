//! Many traces in one command (`analyze`, `frames`, `doctor` over files, directories and
//! globs): finding the traces, running them on worker threads, and the per-trace JSON Lines
//! they stream as each one finishes.

pub mod discover;
pub mod jsonl;
pub mod progress;
pub mod reorder;
pub mod run;
