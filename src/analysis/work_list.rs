//! Independent pieces of analysis shared by the calling thread and one more (issue 19: both
//! cores after the load). Each thread takes the next item as it finishes one, so a long
//! item does not hold up the rest; the results come back in item order, so the output does
//! not depend on which thread did what.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` applied to every item, in item order. A second thread joins in from `two_from`
/// items on (when the system gives one); with fewer, or while several traces are in flight
/// (their workers already use every core), everything runs on this thread.
pub fn map_in_order<T: Send, R: Send>(
    items: Vec<T>,
    two_from: usize,
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let several = crate::import::pipeline::several_loads();
    let two = second_thread(items.len(), two_from, several);
    on_threads(items, two, f)
}

/// Whether `items` pieces of work are worth a second thread.
fn second_thread(items: usize, two_from: usize, several_traces_in_flight: bool) -> bool {
    items >= two_from.max(2) && !several_traces_in_flight
}

fn on_threads<T: Send, R: Send>(items: Vec<T>, two: bool, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    if !two {
        return items.into_iter().map(f).collect();
    }
    let slots: Vec<Mutex<Option<T>>> = items.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = slots.get(i) else { break };
            let item = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(item) = item {
                done.push((i, f(item)));
            }
        }
        done
    };
    let mut done = std::thread::scope(|s| {
        let other = std::thread::Builder::new().spawn_scoped(s, work);
        let mut done = work();
        if let Ok(h) = other {
            done.extend(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::Mutex;
    use std::thread::ThreadId;

    #[test]
    fn results_come_back_in_item_order_whoever_computed_them() {
        let threads = Mutex::new(HashSet::<ThreadId>::new());
        // Early items are slow: the other thread takes the later ones meanwhile.
        let items: Vec<u64> = (0..64).collect();
        let out = on_threads(items, true, |i| {
            threads.lock().unwrap().insert(std::thread::current().id());
            if i < 4 {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            i * i
        });
        assert_eq!(out, (0..64).map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(threads.lock().unwrap().len(), 2, "both threads took items");
    }

    #[test]
    fn a_second_thread_only_for_enough_work_and_one_trace_in_flight() {
        assert!(second_thread(8, 8, false));
        assert!(!second_thread(7, 8, false));
        // Two items at least, whatever the threshold.
        assert!(!second_thread(1, 0, false));
        assert!(second_thread(2, 0, false));
        // Several traces in flight: their workers have the cores.
        assert!(!second_thread(64, 2, true));
    }

    #[test]
    fn below_the_threshold_everything_runs_here() {
        let here = std::thread::current().id();
        let out = map_in_order(vec![1, 2, 3], 4, |i| {
            assert_eq!(std::thread::current().id(), here);
            i + 1
        });
        assert_eq!(out, vec![2, 3, 4]);
        assert!(map_in_order(Vec::<u8>::new(), 0, |i| i).is_empty());
    }
}
