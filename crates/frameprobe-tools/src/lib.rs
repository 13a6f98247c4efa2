//! frameprobe's test and bench tools, kept out of the library users link: the trace
//! synthesiser (`frameprobe-synth`, and the planted traces the tests check answers against),
//! the mutation fuzzer (`frameprobe-fuzz`) and the benchmark (`frameprobe-bench`, whose
//! many-trace mode is `fleet_bench` and whose goals are `speed`). They use
//! frameprobe through its public API only.

pub mod fleet_bench;
pub mod fuzz;
pub mod speed;
pub mod synth;
