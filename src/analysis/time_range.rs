//! A time range of a trace (`--from` / `--to`): a frame is in it when its start (`ts`: the
//! actual surface frame's start, else its doFrame's) lies in [from, to). Values are seconds
//! from the trace start (`trace_start()`) or, with `ns:`, absolute trace timestamps.

use std::collections::HashMap;

use serde::Serialize;

use super::frame_model::Frame;
use crate::store::Upid;

/// One end of a range as the user wrote it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimePoint {
    /// Nanoseconds after the trace start.
    SinceStart(i64),
    /// A trace timestamp (the trace clock, as in the tables' `ts`).
    Absolute(i64),
}

/// A relative value this far out (about 11.6 days) is a mistyped absolute timestamp.
const MAX_RELATIVE_NS: i64 = 1_000_000 * 1_000_000_000;

impl TimePoint {
    /// `2`, `2.5`, `+2.5s`, `1500ms`, `250us` (from the trace start) or `ns:578090289999415`
    /// (absolute). Negative, empty, finer than a nanosecond or huge relative values are errors.
    pub fn parse(text: &str) -> Result<TimePoint, String> {
        let t = text.trim();
        if let Some(abs) = t.strip_prefix("ns:") {
            return match abs.parse::<i64>() {
                Ok(n) if n >= 0 && !abs.starts_with('+') => Ok(TimePoint::Absolute(n)),
                _ => Err(format!(
                    "{text:?}: after `ns:` give a trace timestamp in whole nanoseconds (a non-negative integer)"
                )),
            };
        }
        if t.starts_with('-') {
            return Err(format!(
                "{text:?} is negative: give a time after the trace start (seconds, e.g. 2.5 or 1500ms) or an absolute trace timestamp (ns:N)"
            ));
        }
        let body = t.strip_prefix('+').unwrap_or(t);
        let (number, unit_ns, unit_digits) = if let Some(n) = body.strip_suffix("ms") {
            (n, 1_000_000, 6)
        } else if let Some(n) = body.strip_suffix("us") {
            (n, 1_000, 3)
        } else if let Some(n) = body.strip_suffix('s') {
            (n, 1_000_000_000, 9)
        } else {
            (body, 1_000_000_000, 9)
        };
        let ns = decimal_ns(number, unit_ns, unit_digits).map_err(|()| {
            format!(
                "{text:?} is not a time: give seconds from the trace start (2, 2.5, +2.5s, 1500ms, 250us) or an absolute trace timestamp (ns:578090289999415)"
            )
        })?;
        // None: too large for nanoseconds in an i64, which is far beyond any trace too.
        let Some(ns) = ns.filter(|&ns| ns <= MAX_RELATIVE_NS) else {
            return Err(format!(
                "{text:?} is more than 11 days after the trace start: for an absolute trace timestamp write ns:{}",
                number.split('.').next().unwrap_or(number)
            ));
        };
        Ok(TimePoint::SinceStart(ns))
    }

    /// The trace timestamp this point stands for.
    pub fn at(self, trace_start: i64) -> i64 {
        match self {
            TimePoint::SinceStart(ns) => trace_start.saturating_add(ns),
            TimePoint::Absolute(ns) => ns,
        }
    }
}

/// As the user can write it back: `+2.5 s` or `ns:578090289999415`.
impl std::fmt::Display for TimePoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            TimePoint::SinceStart(ns) => {
                let frac = format!("{:09}", ns % 1_000_000_000);
                let frac = frac.trim_end_matches('0');
                let dot = if frac.is_empty() { "" } else { "." };
                write!(f, "+{}{dot}{frac} s", ns / 1_000_000_000)
            }
            TimePoint::Absolute(ns) => write!(f, "ns:{ns}"),
        }
    }
}

/// `digits[.fraction]` in a unit of `unit_ns` nanoseconds, exactly (no float rounding):
/// Err(()) when it is no such number or is finer than a nanosecond, Ok(None) when it does
/// not fit in an i64 of nanoseconds.
fn decimal_ns(number: &str, unit_ns: i64, unit_digits: usize) -> Result<Option<i64>, ()> {
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (whole.is_empty() && frac.is_empty()) || !digits(whole) || !digits(frac) {
        return Err(());
    }
    let frac = frac.trim_end_matches('0');
    if number.ends_with('.') || frac.len() > unit_digits {
        return Err(());
    }
    let Ok(whole) = (if whole.is_empty() {
        Ok(0)
    } else {
        whole.parse::<i64>()
    }) else {
        return Ok(None);
    };
    // At most nine digits: always fits.
    let frac_ns = frac.parse::<i64>().unwrap_or(0) * 10i64.pow((unit_digits - frac.len()) as u32);
    Ok(whole
        .checked_mul(unit_ns)
        .and_then(|w| w.checked_add(frac_ns)))
}

/// The range as given: either end may be open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RangeSpec {
    pub from: Option<TimePoint>,
    pub to: Option<TimePoint>,
}

impl RangeSpec {
    pub fn is_set(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }

    /// `frames starting from +2 s to +6 s`, as given (relative ends from each trace's start).
    pub fn describe(&self) -> String {
        let end = |p: Option<TimePoint>, open: &str| p.map_or(open.to_string(), |p| p.to_string());
        format!(
            "frames starting from {} to {}",
            end(self.from, "the trace start"),
            end(self.to, "the end of the trace")
        )
    }

    /// The range in trace timestamps.
    pub fn resolve(&self, trace_start: i64) -> TimeRange {
        TimeRange {
            from: self.from.map(|p| p.at(trace_start)),
            to: self.to.map(|p| p.at(trace_start)),
        }
    }

    /// What the output says about the range, for a trace spanning `bounds`; None when no
    /// range was asked for.
    pub fn report(&self, bounds: (i64, i64)) -> Option<RangeReport> {
        if !self.is_set() {
            return None;
        }
        let r = self.resolve(bounds.0);
        let rel = |ns: i64| round_s(ns.saturating_sub(bounds.0));
        let from_ns = r.from.unwrap_or(bounds.0);
        Some(RangeReport {
            from_ns,
            to_ns: r.to,
            from_s: rel(from_ns),
            to_s: r.to.map(rel),
            trace_end_s: rel(bounds.1),
            trace_has_frames: true,
        })
    }
}

fn round_s(ns: i64) -> f64 {
    (ns as f64 / 1e6).round() / 1e3
}

/// A resolved range in trace timestamps: [from, to), an open end unbounded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeRange {
    pub from: Option<i64>,
    pub to: Option<i64>,
}

impl TimeRange {
    pub fn contains(&self, ts: i64) -> bool {
        self.from.is_none_or(|f| ts >= f) && self.to.is_none_or(|t| ts < t)
    }

    /// Keeps each process's frames that start in the range; a process left without frames
    /// goes too.
    pub fn retain_frames(&self, by_process: &mut HashMap<Upid, Vec<Frame>>) {
        for frames in by_process.values_mut() {
            frames.retain(|f| self.contains(f.ts));
        }
        by_process.retain(|_, frames| !frames.is_empty());
    }
}

/// The analysed range in the output (JSON `range`): trace timestamps and seconds from the
/// trace start. `to_ns` / `to_s` null: to the end of the trace.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RangeReport {
    pub from_ns: i64,
    pub to_ns: Option<i64>,
    pub from_s: f64,
    pub to_s: Option<f64>,
    /// The trace's last timestamp, in seconds from its start.
    pub trace_end_s: f64,
    /// Whether the trace has frames at all (outside the range too): says which "no frames"
    /// message fits.
    #[serde(skip)]
    pub trace_has_frames: bool,
}

impl RangeReport {
    /// `+2.000 s to +3.000 s` (`to the end of the trace` when open).
    pub fn describe(&self) -> String {
        match self.to_s {
            Some(t) => format!("{:+.3} s to {:+.3} s", self.from_s, t),
            None => format!("{:+.3} s to the end of the trace", self.from_s),
        }
    }

    /// The header line of tables and Markdown.
    pub fn header(&self) -> String {
        format!(
            "range: frames starting from {} (trace spans +0.000 s to {:+.3} s); trace-wide figures (trust, sources) cover the whole trace",
            self.describe(),
            self.trace_end_s
        )
    }

    /// Why the range holds no frame.
    pub fn empty_message(&self) -> String {
        let span = format!("trace spans +0.000 s to {:+.3} s", self.trace_end_s);
        match self.to_ns {
            Some(to) if to <= self.from_ns => format!(
                "the range is empty: its start ({:+.3} s, ns:{}) is not before its end ({:+.3} s, ns:{to}); {span}",
                self.from_s,
                self.from_ns,
                self.to_s.unwrap_or_default()
            ),
            Some(_) => format!(
                "no frames between {:+.3} s and {:+.3} s; {span}",
                self.from_s,
                self.to_s.unwrap_or_default()
            ),
            None => format!("no frames after {:+.3} s; {span}", self.from_s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_values_in_seconds_milliseconds_and_microseconds() {
        let p = |s: &str| TimePoint::parse(s).unwrap();
        assert_eq!(p("2"), TimePoint::SinceStart(2_000_000_000));
        assert_eq!(p("2.5"), TimePoint::SinceStart(2_500_000_000));
        assert_eq!(p("+2.5s"), TimePoint::SinceStart(2_500_000_000));
        assert_eq!(p("1500ms"), TimePoint::SinceStart(1_500_000_000));
        assert_eq!(p("0.000000001"), TimePoint::SinceStart(1));
        assert_eq!(p("250us"), TimePoint::SinceStart(250_000));
        assert_eq!(p(".5"), TimePoint::SinceStart(500_000_000));
        assert_eq!(p("1500ms").to_string(), "+1.5 s");
        assert_eq!(p("3").to_string(), "+3 s");
        assert_eq!(
            p("ns:578090289999415"),
            TimePoint::Absolute(578_090_289_999_415)
        );
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let e = |s: &str| TimePoint::parse(s).unwrap_err();
        assert!(e("-1").contains("negative"));
        assert!(e("").contains("not a time"));
        assert!(e("2 s s").contains("not a time"));
        assert!(e("1.5.2").contains("not a time"));
        assert!(e("2.").contains("not a time"));
        assert!(e("nan").contains("not a time"));
        assert!(e("0.0000000001").contains("not a time"));
        assert!(e("ns:-5").contains("non-negative"));
        assert!(e("ns:1.5").contains("non-negative"));
        // A plain timestamp typed without `ns:` is ambiguous: refused with the spelling.
        assert!(e("578090289999415").contains("ns:578090289999415"));
        assert!(e("99999999999999999999").contains("ns:99999999999999999999"));
        assert!(e("1000001").contains("more than 11 days"));
        assert_eq!(
            TimePoint::parse("1000000").unwrap(),
            TimePoint::SinceStart(MAX_RELATIVE_NS)
        );
    }

    #[test]
    fn a_range_is_half_open() {
        let r = RangeSpec {
            from: Some(TimePoint::SinceStart(10)),
            to: Some(TimePoint::Absolute(1_020)),
        }
        .resolve(1_000);
        assert!(!r.contains(1_009));
        assert!(r.contains(1_010));
        assert!(r.contains(1_019));
        assert!(!r.contains(1_020));
        assert!(TimeRange::default().contains(i64::MIN));
    }

    #[test]
    fn report_names_the_range_and_the_trace_span() {
        let spec = RangeSpec {
            from: Some(TimePoint::SinceStart(2_000_000_000)),
            to: Some(TimePoint::SinceStart(3_000_000_000)),
        };
        let r = spec.report((5_000, 5_000 + 9_876_000_000)).unwrap();
        assert_eq!(r.from_ns, 2_000_005_000);
        assert_eq!(r.to_ns, Some(3_000_005_000));
        assert_eq!(
            r.empty_message(),
            "no frames between +2.000 s and +3.000 s; trace spans +0.000 s to +9.876 s"
        );
        let inverted = RangeSpec {
            from: Some(TimePoint::SinceStart(5_000_000_000)),
            to: Some(TimePoint::Absolute(5_000)),
        };
        let m = inverted.report((5_000, 10_000)).unwrap().empty_message();
        assert!(m.contains("is not before its end"), "{m}");
        assert_eq!(RangeSpec::default().report((0, 1)), None);
    }
}
