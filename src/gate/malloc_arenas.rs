//! glibc's malloc arenas for the command line, which works on one trace or on several at
//! once (issue 19, peak memory).
//!
//! glibc gives a thread that finds the main arena busy an arena of its own, and an arena
//! keeps what it frees for its own thread. With one trace in flight, the frame database's
//! thread then grows a second heap beside the one the load has just freed (sorter chunks,
//! queues): 14 MiB of the x60 `analyze` peak. One arena lets it reuse that memory. With
//! several traces in flight, one arena would serialise their allocations (x200 fleet, 2
//! jobs: 4.2 s became 6.4 s), so glibc's default is kept there.

use std::sync::atomic::{AtomicBool, Ordering};

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Lets [`for_workers`] tune the process: called by the command line only, as a library
/// must not change its host's allocator.
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// Before starting `workers` trace workers: with one, every thread shares the main arena.
/// Returns whether it changed the setting.
pub fn for_workers(workers: usize) -> bool {
    if workers != 1 || !ENABLED.load(Ordering::Relaxed) {
        return false;
    }
    one_arena()
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn one_arena() -> bool {
    // SAFETY: mallopt only sets a tunable; glibc applies it to arenas created afterwards.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn one_arena() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_arena_only_for_the_command_line_and_one_trace_at_a_time() {
        // A library caller keeps its allocator as it is.
        assert!(!for_workers(1));
        enable();
        // Several traces at once would contend for one arena.
        assert!(!for_workers(2));
        assert!(!for_workers(8));
        assert_eq!(
            for_workers(1),
            cfg!(all(target_os = "linux", target_env = "gnu"))
        );
    }
}
