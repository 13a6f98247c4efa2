//! Forecasts of the importers' two largest tables, from the events the loading thread has
//! pushed so far scaled to the whole file, so that the importers' thread can fault in their
//! pages while it waits (`store::prefault`). A forecast aims low: its rows are a floor of
//! what the events seen so far make, and it never asks for more than a share of the file.

use crate::store::prefault::RowForecast;
use crate::store::slice_row::SliceRow;
use crate::store::thread_states;
use crate::trace::sort::Pushed;

/// The first forecast: far enough into the file for its mix of events to say something,
/// early enough that the importers still wait for the sorter's first window (x60: about
/// 13 MB in).
const FIRST_AT: u64 = 2 << 20;

/// A table is never forecast larger than this share (1/N) of the file: a trace that
/// starts dense and goes on sparse cannot make the importers fault in much more than
/// they fill. x60: the slice rows come to 0.3 of the file, the thread states to 0.24.
const MAX_SHARE_OF_FILE: u64 = 8;

/// Forecasts at each doubling of the bytes read, from [`FIRST_AT`] on.
#[derive(Debug)]
pub struct Forecaster {
    file_bytes: u64,
    next_at: u64,
}

impl Forecaster {
    /// None for a file of unknown size, or one too small to forecast from (a compressed
    /// one too: its offsets count decompressed bytes).
    pub fn new(file_bytes: Option<u64>, compressed: bool) -> Option<Self> {
        file_bytes
            .filter(|&b| b > FIRST_AT && !compressed)
            .map(|file_bytes| Forecaster {
                file_bytes,
                next_at: FIRST_AT,
            })
    }

    /// The forecast once `offset` bytes of the file are read, if one is due.
    pub fn at(&mut self, offset: u64, pushed: &Pushed) -> Option<RowForecast> {
        if offset < self.next_at {
            return None;
        }
        self.next_at = offset.saturating_mul(2);
        let rows = |seen: u64, row_bytes: usize| {
            let whole = u128::from(seen) * u128::from(self.file_bytes) / u128::from(offset);
            let most = u128::from(self.file_bytes / MAX_SHARE_OF_FILE) / row_bytes as u128;
            whole.min(most) as usize
        };
        Some(RowForecast {
            // A slice takes a begin and an end, and counters are prints too: half of the
            // pairs is a floor.
            slices: rows(pushed.prints / 4, std::mem::size_of::<SliceRow>()),
            // Every switch opens a row for the thread switched in.
            thread_states: rows(pushed.switches, thread_states::ROW_BYTES),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;

    #[test]
    fn forecasts_scale_what_was_read_to_the_file_at_each_doubling() {
        let mut f = Forecaster::new(Some(200 * MB), false).unwrap();
        let pushed = Pushed {
            prints: 4_000,
            switches: 5_000,
        };
        assert_eq!(f.at(MB, &pushed), None, "too early");
        let first = f.at(2 * MB, &pushed).expect("due at 2 MB");
        assert_eq!(
            first.slices,
            1_000 * 100,
            "a quarter of the prints, times 100"
        );
        assert_eq!(first.thread_states, 5_000 * 100);
        assert_eq!(f.at(3 * MB, &pushed), None, "next due at 4 MB");
        let pushed = Pushed {
            prints: 8_000,
            switches: 10_000,
        };
        let second = f.at(4 * MB, &pushed).expect("due at 4 MB");
        assert_eq!(second, first, "the same density gives the same forecast");
    }

    #[test]
    fn a_dense_start_is_capped_at_a_share_of_the_file() {
        let mut f = Forecaster::new(Some(100 * MB), false).unwrap();
        let dense = Pushed {
            prints: 0,
            switches: 1 << 20,
        };
        let rows = f.at(2 * MB, &dense).unwrap().thread_states;
        assert_eq!(
            rows * thread_states::ROW_BYTES,
            (100 * MB / 8) as usize / thread_states::ROW_BYTES * thread_states::ROW_BYTES
        );
    }

    #[test]
    fn no_forecast_without_a_size_for_small_or_compressed_files() {
        assert!(Forecaster::new(None, false).is_none());
        assert!(Forecaster::new(Some(MB), false).is_none());
        assert!(Forecaster::new(Some(100 * MB), true).is_none());
    }
}
