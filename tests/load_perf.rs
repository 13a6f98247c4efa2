//! Import timing on a large trace (not run by default):
//! `FRAMEPROBE_PERF_TRACE=big.pftrace cargo test --release --test load_perf -- --ignored --nocapture`

use std::path::PathBuf;
use std::time::Instant;

use frameprobe::import::{load, LoadOptions};

#[test]
#[ignore]
fn load_large_trace() {
    let Ok(path) = std::env::var("FRAMEPROBE_PERF_TRACE") else {
        eprintln!("FRAMEPROBE_PERF_TRACE not set; nothing to time");
        return;
    };
    let started = Instant::now();
    let loaded = load(&PathBuf::from(&path), LoadOptions::all()).expect("trace loads");
    let s = &loaded.store;
    eprintln!(
        "{path}: {:.2}s, {} MB, sched {}, threads {}, processes {}, counters {}",
        started.elapsed().as_secs_f64(),
        loaded.bytes_read >> 20,
        s.sched.len(),
        s.threads.len(),
        s.processes.len(),
        s.counters.len()
    );
}
