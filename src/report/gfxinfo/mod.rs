//! `frameprobe gfxinfo` output: tables for people, CSV and the JSON contract for machines.
//! Every format streams: a window is replayed once for its summary and again to write its
//! frames one at a time, so a dump of any size holds one frame's report at a time.

pub mod csv;
pub mod json;
mod table;

pub use table::write_table;

use crate::gfxinfo::jank_type::JankType;
use crate::gfxinfo::parser::StartIntervalOrder;
use crate::gfxinfo::replay::{IntervalSource, WindowReport};
use crate::gfxinfo::summary::Counter;

pub(crate) fn ms(ns: i64) -> String {
    format!("{:.2}", ns as f64 / 1e6)
}

pub(crate) fn opt_ms(ns: Option<i64>) -> String {
    ns.map(ms).unwrap_or_else(|| "-".into())
}

/// Jank type keys in report order, repeats folded (`high_input_latency×2`).
pub(crate) fn jank_type_list(types: &[JankType], sep: &str) -> String {
    let mut seen: Vec<(JankType, usize)> = Vec::new();
    for t in types {
        match seen.iter_mut().find(|(x, _)| x == t) {
            Some((_, n)) => *n += 1,
            None => seen.push((*t, 1)),
        }
    }
    seen.iter()
        .map(|(t, n)| {
            if *n > 1 {
                format!("{}×{n}", t.key())
            } else {
                t.key().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(sep)
}

pub(crate) fn interval_text(w: &WindowReport) -> String {
    match w.interval {
        Some(IntervalSource::Column(StartIntervalOrder::Swapped { decided_by_data })) => format!(
            "each row's FrameInterval, read from the column headed \"FrameStartTime\" \
             (Android 12–14 header pitfall; {})",
            if decided_by_data {
                "seen in the data"
            } else {
                "no rows: enum order"
            }
        ),
        Some(IntervalSource::Column(_)) => "each row's FrameInterval column".into(),
        Some(IntervalSource::Given(ns)) => format!("{} ms (--frame-interval-ns)", ms(ns)),
        Some(IntervalSource::Inferred(ns)) => {
            format!("{} ms, inferred from IntendedVsync spacing", ms(ns))
        }
        Some(IntervalSource::Default(ns)) => format!("{} ms (default: too few rows)", ms(ns)),
        None => "-".into(),
    }
}

pub(crate) fn printed_matches(w: &WindowReport) -> Option<bool> {
    let (Some(s), Some(p)) = (&w.summary, &w.printed) else {
        return None;
    };
    if !w.printed_covers_rows {
        return None;
    }
    Some(
        Counter::all()
            .into_iter()
            .all(|c| p.get(c).is_none_or(|v| v == s.get(c))),
    )
}
