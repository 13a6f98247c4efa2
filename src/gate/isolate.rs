//! One trace's failure stays that trace's: work over many traces runs each trace behind a
//! panic guard, on worker threads with a known stack, so a bad file becomes an error line
//! for that file while the others are still evaluated.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// Stack of every worker thread. The main thread gets 8 MiB from the OS; a spawned thread
/// would get Rust's 2 MiB default. Reading is bounded (compressed packets nest at most
/// `trace::limits::MAX_COMPRESSION_NESTING` deep), so this is headroom, not a need.
pub const WORKER_STACK_BYTES: usize = 64 << 20;

/// Runs `f`, turning a panic into an error that names it.
pub fn run_isolated<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(anyhow::anyhow!(
                "internal error while reading this trace ({msg}); please report it"
            ))
        }
    }
}

/// A worker thread builder with [`WORKER_STACK_BYTES`] of stack.
pub fn worker() -> std::thread::Builder {
    std::thread::Builder::new().stack_size(WORKER_STACK_BYTES)
}

/// `f` over every item with `jobs` worker threads, each item behind [`run_isolated`]: a
/// panic is that item's error and the others are still done. Results keep the input order.
pub fn each_isolated<I: Sync, T: Send>(
    items: &[I],
    jobs: usize,
    f: impl Fn(&I) -> anyhow::Result<T> + Sync,
) -> Vec<anyhow::Result<T>> {
    let mut results: Vec<Option<anyhow::Result<T>>> = (0..items.len()).map(|_| None).collect();
    each_isolated_streaming(items, jobs, f, |i, r| {
        results[i] = Some(r);
        true
    });
    results
        .into_iter()
        .map(|r| r.expect("every item done"))
        .collect()
}

/// [`each_isolated`] delivering each result as it finishes: `on_done(index, result)` runs
/// on the calling thread (so it may write output in completion order). When it returns
/// false, no further item is started and the results of those under way are dropped.
pub fn each_isolated_streaming<I: Sync, T: Send>(
    items: &[I],
    jobs: usize,
    f: impl Fn(&I) -> anyhow::Result<T> + Sync,
    mut on_done: impl FnMut(usize, anyhow::Result<T>) -> bool,
) {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel();
    let workers = jobs.max(1).min(items.len().max(1));
    crate::import::pipeline::set_several_loads(workers > 1);
    std::thread::scope(|s| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop, f) = (&next, &stop, &f);
            let work = move || loop {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if tx.send((i, run_isolated(|| f(item)))).is_err() {
                    break;
                }
            };
            if worker().spawn_scoped(s, work.clone()).is_err() {
                // No thread to be had: do the work here (its results are read below).
                work();
            }
        }
        drop(tx);
        for (i, r) in rx {
            if !stop.load(Ordering::Relaxed) && !on_done(i, r) {
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_panicking_item_is_its_own_error() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let items: Vec<u32> = (0..9).collect();
        let r = each_isolated(&items, 3, |&i| {
            if i == 4 {
                panic!("item {i} is cursed");
            }
            if i == 6 {
                anyhow::bail!("item {i} is unreadable");
            }
            Ok(i * 10)
        });
        std::panic::set_hook(hook);
        assert_eq!(r.len(), 9);
        for (i, r) in r.iter().enumerate() {
            match i {
                4 => assert!(format!("{:#}", r.as_ref().unwrap_err()).contains("item 4 is cursed")),
                6 => assert!(r.as_ref().unwrap_err().to_string().contains("unreadable")),
                _ => assert_eq!(*r.as_ref().unwrap(), i as u32 * 10),
            }
        }
    }

    #[test]
    fn streaming_delivers_every_item_once_and_can_stop_early() {
        let items: Vec<u32> = (0..50).collect();
        let mut seen = Vec::new();
        each_isolated_streaming(
            &items,
            3,
            |&i| Ok(i),
            |i, r| {
                assert_eq!(r.unwrap() as usize, i);
                seen.push(i);
                true
            },
        );
        seen.sort_unstable();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
        let mut delivered = 0;
        each_isolated_streaming(
            &items,
            2,
            |&i| Ok(i),
            |_, _| {
                delivered += 1;
                delivered < 5
            },
        );
        assert_eq!(
            delivered, 5,
            "nothing is delivered after the callback says stop"
        );
    }

    #[test]
    fn a_panic_becomes_an_error() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r: anyhow::Result<()> = run_isolated(|| panic!("boom"));
        std::panic::set_hook(hook);
        let e = r.unwrap_err().to_string();
        assert!(e.contains("boom"), "{e}");
        assert_eq!(run_isolated(|| Ok(3)).unwrap(), 3);
    }

    #[test]
    fn workers_get_the_stack_they_are_given() {
        // 16 MiB of locals in nested frames: over Rust's 2 MiB default for spawned threads.
        fn deep(n: u32) -> u64 {
            let pad = [n as u8; 4096];
            if n == 0 {
                return pad[0] as u64;
            }
            std::hint::black_box(&pad);
            deep(n - 1) + pad[1] as u64
        }
        let r = std::thread::scope(|s| worker().spawn_scoped(s, || deep(4096)).unwrap().join());
        assert!(r.is_ok());
    }
}
