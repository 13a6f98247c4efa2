//! Macrobenchmark's FrameTimingMetric, reproduced: which frames it counts for a package and
//! the four per-frame values (androidx `FrameTimingQuery`, 1.4 era). Pure functions over
//! plain slices so each rule can be tested on its own.
//!
//! Selection (done by the caller): `Choreographer#doFrame%` slices on the package's main
//! thread, `DrawFrame%` slices on threads named `RenderThread`, and the package's actual and
//! expected FrameTimeline slices (named after their token). As in Macrobenchmark's SQL
//! `UNION`, identical (name, ts, dur) rows count once.

use super::max_tree::MaxTree;
use super::time_range::TimeRange;

/// A slice as Macrobenchmark sees it: name, start and duration.
#[derive(Debug, Clone, PartialEq)]
pub struct MbSlice {
    pub name: String,
    pub ts: i64,
    pub dur: i64,
}

impl MbSlice {
    pub fn end(&self) -> i64 {
        self.ts + self.dur
    }

    /// The word after the first space, as an Int (androidx.benchmark.traceprocessor.Slice):
    /// "Choreographer#doFrame 123" -> 123, "actual 7" -> 7, "... - resynced to ..." -> none.
    pub fn frame_id(&self) -> Option<i32> {
        let first = self.name.find(' ')?;
        let rest = &self.name[first + 1..];
        let word = rest.split(' ').next().unwrap_or("");
        parse_kotlin_int(word)
    }

    /// Inclusive at both ends.
    pub fn contains(&self, t: i64) -> bool {
        t >= self.ts && t <= self.ts + self.dur
    }
}

/// Kotlin's `String.toIntOrNull()`: optional sign, decimal digits, must fit in an i32. Rust's
/// integer parsing has exactly these rules for ASCII (Kotlin also takes other Unicode decimal
/// digits, which no frame slice name carries).
fn parse_kotlin_int(s: &str) -> Option<i32> {
    s.parse::<i32>().ok()
}

/// The inputs of one package, each list in the order the query returns them (by ts).
#[derive(Debug, Default, Clone)]
pub struct MbInput {
    pub ui: Vec<MbSlice>,
    pub rt: Vec<MbSlice>,
    pub actual: Vec<MbSlice>,
    pub expected: Vec<MbSlice>,
    /// The frames reported: those starting in this range (matched over the whole trace).
    pub range: TimeRange,
}

impl MbInput {
    /// The same input, reporting only the frames that start in `range`.
    pub fn within(self, range: TimeRange) -> MbInput {
        MbInput { range, ..self }
    }
}

/// One counted frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MbFrame {
    pub ui: MbSlice,
    pub rt: MbSlice,
    pub expected: Option<MbSlice>,
    pub actual: Option<MbSlice>,
}

/// Macrobenchmark's per-frame values (ns). Overrun and full duration need API 31+.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MbMetrics {
    pub duration_cpu_ns: i64,
    pub duration_ui_ns: i64,
    pub overrun_ns: Option<i64>,
    pub duration_full_ns: Option<i64>,
}

impl MbFrame {
    pub fn metrics(&self) -> MbMetrics {
        // Workaround kept from Macrobenchmark (b/279088460): the actual slice can end before
        // the RenderThread does, so the later of the two ends the frame.
        let end = self.actual.as_ref().map(|a| a.end().max(self.rt.end()));
        MbMetrics {
            duration_cpu_ns: self.rt.end() - self.ui.ts,
            duration_ui_ns: self.ui.dur,
            overrun_ns: end.zip(self.expected.as_ref()).map(|(e, x)| e - x.end()),
            duration_full_ns: end.zip(self.expected.as_ref()).map(|(e, x)| e - x.ts),
        }
    }
}

/// Why no frames could be computed (Macrobenchmark fails its check in these cases).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MbProblem {
    NoRenderThreadSlices,
    NoExpectedActualSlices,
    SliceWithoutFrameId(String),
}

impl std::fmt::Display for MbProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MbProblem::NoRenderThreadSlices => write!(
                f,
                "no RenderThread DrawFrame slices (is the app hardware accelerated and redrawing?)"
            ),
            MbProblem::NoExpectedActualSlices => {
                write!(f, "no expected/actual FrameTimeline slices for the package")
            }
            MbProblem::SliceWithoutFrameId(n) => write!(f, "frame slice without a frame id: {n:?}"),
        }
    }
}

/// Kotlin's `List.binarySearch(comparison)` by frame id over a list: any index whose frame
/// id matches, assuming the list is sorted by frame id (it is sorted by ts, which
/// Macrobenchmark relies on). The ids are parsed once, not at every probe.
struct ById<'a> {
    list: &'a [MbSlice],
    ids: Vec<i32>,
}

impl<'a> ById<'a> {
    fn new(list: &'a [MbSlice]) -> Self {
        let ids = list.iter().map(|s| s.frame_id().unwrap_or(0)).collect();
        ById { list, ids }
    }

    fn find(&self, id: i32) -> Option<&'a MbSlice> {
        let (mut lo, mut hi) = (0i64, self.ids.len() as i64 - 1);
        while lo <= hi {
            let mid = ((lo + hi) as u64 >> 1) as i64;
            match self.ids[mid as usize].wrapping_sub(id).cmp(&0) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid - 1,
                std::cmp::Ordering::Equal => return Some(&self.list[mid as usize]),
            }
        }
        None
    }
}

fn keep(s: &MbSlice) -> bool {
    s.dur > 0 && !s.name.contains("resynced")
}

/// Macrobenchmark's frame list for one package on a device of `api_level`, restricted to
/// the frames starting in the input's range (the actual frame's start, else the doFrame's:
/// the model frame's `ts`). Frames are matched over the whole trace first, so a range never
/// changes which slices make a frame.
pub fn frames(input: &MbInput, api_level: u32) -> Result<Vec<MbFrame>, MbProblem> {
    let mut out = frames_whole_trace(input, api_level)?;
    out.retain(|f| {
        let start = f.actual.as_ref().map_or(f.ui.ts, |a| a.ts);
        input.range.contains(start)
    });
    Ok(out)
}

fn frames_whole_trace(input: &MbInput, api_level: u32) -> Result<Vec<MbFrame>, MbProblem> {
    // Each list by ts, as the query returns them (the matching below searches by start).
    let filter = |v: &[MbSlice]| -> Vec<MbSlice> {
        let mut kept: Vec<MbSlice> = v.iter().filter(|s| keep(s)).cloned().collect();
        kept.sort_by_key(|s| s.ts);
        kept
    };
    let ui = filter(&input.ui);
    let rt = filter(&input.rt);
    let actual = filter(&input.actual);
    let expected = filter(&input.expected);
    if ui.is_empty() {
        return Ok(Vec::new());
    }
    if rt.is_empty() {
        return Err(MbProblem::NoRenderThreadSlices);
    }
    if api_level < 31 {
        // The first UI slice containing the RenderThread slice's start: of those started by
        // then (a prefix, the list being by ts), the first whose end reaches it, which is
        // where the running maximum of their ends first reaches it.
        let reach: Vec<i64> = ui
            .iter()
            .scan(i64::MIN, |m, u| {
                *m = (*m).max(u.end());
                Some(*m)
            })
            .collect();
        return Ok(rt
            .iter()
            .filter_map(|r| {
                let started = ui.partition_point(|u| u.ts <= r.ts);
                let u = ui[..started].get(reach.partition_point(|&e| e < r.ts))?;
                Some(MbFrame {
                    ui: u.clone(),
                    rt: r.clone(),
                    expected: None,
                    actual: None,
                })
            })
            .collect());
    }
    if actual.is_empty() || expected.is_empty() {
        return Err(MbProblem::NoExpectedActualSlices);
    }
    // Every selected slice must carry an id. "resynced" doFrames never do; they are dropped
    // before this check (the fix for b/394610806 that androidx's fixedTrace35_resynced pins).
    let selected = input
        .ui
        .iter()
        .chain(&input.rt)
        .chain(&input.actual)
        .chain(&input.expected);
    for s in selected.filter(|s| !s.name.contains("resynced")) {
        if s.frame_id().is_none() {
            return Err(MbProblem::SliceWithoutFrameId(s.name.clone()));
        }
    }
    let mut unused = MaxTree::new(actual.iter().map(MbSlice::end));
    let (ui_by_id, expected_by_id) = (ById::new(&ui), ById::new(&expected));
    let mut out = Vec::new();
    for r in &rt {
        let id = r.frame_id().expect("checked above");
        let Some(u) = ui_by_id.find(id) else {
            continue;
        };
        // The last unused actual slice that starts before the UI slice (+50 µs of slack for
        // the synthetic tracepoint) and contains the UI slice's midpoint; ids are not used
        // because FrameTimeline tokens can differ from the vsync id (b/279088460). Those
        // starting early enough are a prefix of the list (by ts); of them, the last unused
        // one ending at the midpoint or later.
        let mid = u.ts + u.dur / 2;
        let early = actual.partition_point(|a| a.ts < u.ts + 50_000 && a.ts <= mid);
        let pos = unused.last_at_least(early, mid);
        let a = pos.map(|p| {
            unused.remove(p);
            actual[p].clone()
        });
        let x = a
            .as_ref()
            .and_then(|a| a.frame_id())
            .and_then(|id| expected_by_id.find(id));
        if let (Some(a), Some(x)) = (a, x) {
            out.push(MbFrame {
                ui: u.clone(),
                rt: r.clone(),
                expected: Some(x.clone()),
                actual: Some(a),
            });
        }
    }
    Ok(out)
}

/// Macrobenchmark's percentile: linear interpolation at `p/100 * (n-1)` over sorted data.
pub fn percentile(sorted: &[f64], p: u32) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let ideal = p.min(100) as f64 / 100.0 * (sorted.len() - 1) as f64;
    let first = ideal as usize;
    let a = sorted[first];
    let b = *sorted.get(first + 1).unwrap_or(&a);
    let ratio = ideal - first as f64;
    Some(a * (1.0 - ratio) + b * ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(name: &str, ts: i64, dur: i64) -> MbSlice {
        MbSlice {
            name: name.into(),
            ts,
            dur,
        }
    }

    #[test]
    fn frame_id_is_the_number_after_the_last_space() {
        assert_eq!(s("Choreographer#doFrame 123", 0, 1).frame_id(), Some(123));
        assert_eq!(s("DrawFrames 7", 0, 1).frame_id(), Some(7));
        assert_eq!(s("actual 99", 0, 1).frame_id(), Some(99));
        assert_eq!(s("Choreographer#doFrame", 0, 1).frame_id(), None);
        assert_eq!(s("x 12a", 0, 1).frame_id(), None);
        assert_eq!(
            s("Choreographer#doFrame - resynced to 5 in 2.0ms", 0, 1).frame_id(),
            None
        );
        assert_eq!(s("DrawFrames 42 extra", 0, 1).frame_id(), Some(42));
        // Larger than an Int: no id, as Kotlin's toIntOrNull.
        assert_eq!(s("x 3000000000", 0, 1).frame_id(), None);
    }

    #[test]
    fn kotlin_int_rules() {
        // Kotlin: "+7".toIntOrNull() == 7, "-7" == -7; "", "+", "-", "7 ", "+-7", "0x1F" and
        // anything past Int.MAX_VALUE are null.
        assert_eq!(parse_kotlin_int("+7"), Some(7));
        assert_eq!(parse_kotlin_int("-7"), Some(-7));
        assert_eq!(parse_kotlin_int("2147483647"), Some(i32::MAX));
        assert_eq!(parse_kotlin_int("-2147483648"), Some(i32::MIN));
        for bad in ["", "+", "-", "7 ", "+-7", "0x1F", "2147483648", "1_000"] {
            assert_eq!(parse_kotlin_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn within_keeps_the_slices_and_sets_the_range() {
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 1", 0, 5)],
            rt: vec![s("DrawFrames 1", 5, 5)],
            actual: vec![s("1", 0, 12)],
            expected: vec![s("1", 0, 16)],
            range: TimeRange::default(),
        };
        let r = TimeRange {
            from: Some(3),
            to: Some(9),
        };
        let w = input.clone().within(r);
        assert_eq!(w.range, r);
        assert_eq!(
            (w.ui, w.rt, w.actual, w.expected),
            (input.ui, input.rt, input.actual, input.expected)
        );
    }

    #[test]
    fn binary_search_finds_every_id_and_misses_the_others() {
        // Ids 10, 20, ..., 70 (sorted, as by ts): each is found; 5, 15 and 80 are not (80 is
        // past the end, where an off-by-one upper bound would read out of range).
        let list: Vec<MbSlice> = (1..=7)
            .map(|k| s(&format!("actual {}", k * 10), k, 1))
            .collect();
        for k in 1..=7 {
            let found = ById::new(&list).find(k * 10).map(|x| x.ts);
            assert_eq!(found, Some(k as i64), "id {}", k * 10);
        }
        for id in [5, 15, 80] {
            assert_eq!(ById::new(&list).find(id), None, "id {id}");
        }
        assert_eq!(ById::new(&[]).find(1), None);
    }

    #[test]
    fn metrics_by_hand() {
        // UI 100..110, RenderThread 110..130, expected 100..116, actual 100..125: the frame
        // ends at max(125, 130) = 130. cpu = 130 - 100 = 30, ui = 10, overrun = 130 - 116 =
        // 14, full = 130 - 100 = 30.
        let f = MbFrame {
            ui: s("Choreographer#doFrame 1", 100, 10),
            rt: s("DrawFrames 1", 110, 20),
            expected: Some(s("1", 100, 16)),
            actual: Some(s("1", 100, 25)),
        };
        assert_eq!(
            f.metrics(),
            MbMetrics {
                duration_cpu_ns: 30,
                duration_ui_ns: 10,
                overrun_ns: Some(14),
                duration_full_ns: Some(30),
            }
        );
        // The actual slice ending after the RenderThread ends the frame: 100..140 -> overrun
        // 24, full 40. Without FrameTimeline (API < 31) only the two durations exist.
        let late = MbFrame {
            actual: Some(s("1", 100, 40)),
            ..f.clone()
        };
        assert_eq!(late.metrics().overrun_ns, Some(24));
        assert_eq!(late.metrics().duration_full_ns, Some(40));
        let old = MbFrame {
            expected: None,
            actual: None,
            ..f
        };
        assert_eq!(
            (old.metrics().overrun_ns, old.metrics().duration_full_ns),
            (None, None)
        );
    }

    #[test]
    fn contains_is_inclusive() {
        let a = s("a", 10, 5);
        assert!(a.contains(10) && a.contains(15) && !a.contains(16) && !a.contains(9));
    }

    #[test]
    fn api31_matches_actual_by_time_not_id() {
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 10", 1_000_000, 4_000_000)],
            rt: vec![s("DrawFrames 10", 5_100_000, 3_000_000)],
            // Token 11 differs from the vsync id 10 but covers the UI midpoint.
            actual: vec![s("actual 11", 1_020_000, 9_000_000)],
            expected: vec![s("expected 11", 1_000_000, 16_000_000)],
            ..Default::default()
        };
        let f = frames(&input, 33).unwrap();
        assert_eq!(f.len(), 1);
        let m = f[0].metrics();
        assert_eq!(m.duration_ui_ns, 4_000_000);
        assert_eq!(m.duration_cpu_ns, 8_100_000 - 1_000_000);
        // max(actual end 10.02ms, rt end 8.1ms) - expected end 17ms
        assert_eq!(m.overrun_ns, Some(10_020_000 - 17_000_000));
        assert_eq!(m.duration_full_ns, Some(10_020_000 - 1_000_000));
    }

    #[test]
    fn rt_end_is_used_when_the_actual_slice_ends_too_early() {
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 1", 0, 4)],
            rt: vec![s("DrawFrames 1", 5, 20)],
            actual: vec![s("actual 1", 0, 10)],
            expected: vec![s("expected 1", 0, 16)],
            ..Default::default()
        };
        let m = frames(&input, 31).unwrap()[0].metrics();
        assert_eq!(m.overrun_ns, Some(25 - 16));
    }

    #[test]
    fn actual_starting_more_than_50us_after_ui_is_not_matched() {
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 1", 0, 4_000_000)],
            rt: vec![s("DrawFrames 1", 4_100_000, 1_000_000)],
            actual: vec![s("actual 1", 50_000, 10_000_000)],
            expected: vec![s("expected 1", 0, 16_000_000)],
            ..Default::default()
        };
        assert!(frames(&input, 31).unwrap().is_empty());
    }

    #[test]
    fn each_actual_slice_is_used_once_and_the_last_candidate_wins() {
        // Two RenderThread slices with the same id (a DrawFrames id can repeat) and two
        // actual slices that both contain the UI midpoint.
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 5", 100, 1000)],
            rt: vec![s("DrawFrames 5", 1200, 100), s("DrawFrames 5", 1400, 100)],
            actual: vec![s("actual 5", 90, 2000), s("actual 6", 95, 2000)],
            expected: vec![s("expected 5", 0, 1600), s("expected 6", 10, 1600)],
            ..Default::default()
        };
        let f = frames(&input, 35).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].actual.as_ref().unwrap().name, "actual 6");
        assert_eq!(f[1].actual.as_ref().unwrap().name, "actual 5");
        assert_eq!(f[0].expected.as_ref().unwrap().name, "expected 6");
    }

    #[test]
    fn keep_drops_zero_length_unterminated_and_resynced_slices() {
        // Macrobenchmark's filter: dur > 0 and a name without "resynced".
        assert!(keep(&s("DrawFrames 1", 0, 1)));
        assert!(!keep(&s("DrawFrames 1", 0, 0)));
        assert!(!keep(&s("DrawFrames 1", 0, -1)));
        assert!(!keep(&s(
            "Choreographer#doFrame - resynced to 1 in 2ms",
            0,
            5
        )));
    }

    #[test]
    fn api31_needs_expected_and_actual_slices() {
        // The RenderThread slice starts inside the UI slice (600..1100), so the pre-31 rule
        // pairs them too.
        let base = MbInput {
            ui: vec![s("Choreographer#doFrame 7", 600, 500)],
            rt: vec![s("DrawFrames 7", 1000, 100)],
            actual: vec![s("actual 7", 590, 800)],
            expected: vec![s("expected 7", 500, 1000)],
            ..Default::default()
        };
        assert_eq!(frames(&base, 31).unwrap().len(), 1);
        let no_expected = MbInput {
            expected: vec![],
            ..base.clone()
        };
        assert_eq!(
            frames(&no_expected, 31),
            Err(MbProblem::NoExpectedActualSlices)
        );
        let no_actual = MbInput {
            actual: vec![],
            ..base.clone()
        };
        assert_eq!(
            frames(&no_actual, 31),
            Err(MbProblem::NoExpectedActualSlices)
        );
        // Below API 31 neither is read.
        assert_eq!(frames(&no_actual, 30).unwrap().len(), 1);
    }

    #[test]
    fn unterminated_slices_are_dropped() {
        let input = MbInput {
            ui: vec![
                s("Choreographer#doFrame 7", 600, 500),
                s("Choreographer#doFrame 8", 2000, 0),
            ],
            rt: vec![s("DrawFrames 7", 1200, 100), s("DrawFrames 8", 2100, -1)],
            actual: vec![s("actual 7", 590, 800)],
            expected: vec![s("expected 7", 500, 1000)],
            ..Default::default()
        };
        assert_eq!(frames(&input, 31).unwrap().len(), 1);
    }

    #[test]
    fn resynced_slices_are_dropped_before_the_frame_id_check() {
        let input = MbInput {
            ui: vec![
                s("Choreographer#doFrame - resynced to 7 in 3.2ms", 0, 500),
                s("Choreographer#doFrame 7", 600, 500),
            ],
            rt: vec![s("DrawFrames 7", 1200, 100)],
            actual: vec![s("actual 7", 590, 800)],
            expected: vec![s("expected 7", 500, 1000)],
            ..Default::default()
        };
        let f = frames(&input, 35).unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].ui.name, "Choreographer#doFrame 7");
        // Any other slice without an id fails the check, as in Macrobenchmark.
        let mut bad = input.clone();
        bad.rt.push(s("DrawFrame", 1500, 10));
        assert!(matches!(
            frames(&bad, 35),
            Err(MbProblem::SliceWithoutFrameId(_))
        ));
    }

    #[test]
    fn pre_31_pairs_render_thread_with_the_containing_ui_slice() {
        let input = MbInput {
            ui: vec![
                s("Choreographer#doFrame", 0, 100),
                s("Choreographer#doFrame", 200, 100),
            ],
            rt: vec![
                s("DrawFrame", 50, 100),
                s("DrawFrame", 150, 10),
                s("DrawFrame", 250, 80),
            ],
            ..Default::default()
        };
        let f = frames(&input, 28).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].metrics().duration_cpu_ns, 150);
        assert_eq!(f[1].metrics().duration_cpu_ns, 130);
        assert_eq!(f[1].metrics().overrun_ns, None);
    }

    #[test]
    fn missing_render_thread_is_a_problem_not_an_empty_list() {
        let input = MbInput {
            ui: vec![s("Choreographer#doFrame 1", 0, 1)],
            ..Default::default()
        };
        assert_eq!(frames(&input, 31), Err(MbProblem::NoRenderThreadSlices));
    }

    #[test]
    fn percentile_interpolates_like_macrobenchmark() {
        let d = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&d, 50), Some(3.0));
        assert_eq!(percentile(&d, 90), Some(4.6));
        assert_eq!(percentile(&d, 0), Some(1.0));
        assert_eq!(percentile(&d, 100), Some(5.0));
        assert_eq!(percentile(&[7.0], 99), Some(7.0));
        assert_eq!(percentile(&[], 50), None);
    }

    /// Macrobenchmark's matching as its source states it: for each RenderThread slice, a
    /// scan of the UI slices (API < 31), or of the actual slices not yet taken (API 31+),
    /// whose token must then have an expected slice. Frames as (UI, RenderThread, actual).
    fn matched_by_scans(input: &MbInput, api: u32) -> Vec<(String, String, Option<String>)> {
        let mut pool = input.actual.clone();
        input
            .rt
            .iter()
            .filter_map(|r| {
                if api < 31 {
                    let u = input.ui.iter().find(|u| u.contains(r.ts))?;
                    return Some((u.name.clone(), r.name.clone(), None));
                }
                let u = ById::new(&input.ui).find(r.frame_id()?)?;
                let mid = u.ts + u.dur / 2;
                let p = pool
                    .iter()
                    .rposition(|a| a.ts < u.ts + 50_000 && a.contains(mid))?;
                let a = pool.remove(p);
                ById::new(&input.expected).find(a.frame_id()?)?;
                Some((u.name.clone(), r.name.clone(), Some(a.name)))
            })
            .collect()
    }

    #[test]
    fn matching_agrees_with_macrobenchmarks_scans() {
        // Overlapping, touching and nested slices at random (fixed seed) on a 10 µs grid, so
        // that starts, ends, midpoints and the 50 µs slack often coincide, several actual
        // slices compete for one frame and some frames find none.
        let mut rng = crate::rng::Rng::new(99);
        let mut next = move |m: u64| (rng.next_u64() % m) as i64;
        let mut matched = [0; 2];
        for round in 0..60 {
            let n = 1 + round * 2;
            let mut list = |prefix: &str, steps: u64, step: i64| -> Vec<MbSlice> {
                // Ids follow the ts order, as frame ids and tokens do.
                let mut v: Vec<(i64, i64)> = (0..n)
                    .map(|_| (next(40) * 10_000, (1 + next(steps)) * step))
                    .collect();
                v.sort_unstable();
                let named = v.iter().enumerate();
                named
                    .map(|(i, &(ts, dur))| s(&format!("{prefix}{}", i + 1), ts, dur))
                    .collect()
            };
            let input = MbInput {
                ui: list("Choreographer#doFrame ", 6, 20_000),
                rt: list("DrawFrames ", 6, 10_000),
                actual: list("actual ", 15, 10_000),
                expected: list("expected ", 15, 10_000),
                range: TimeRange::default(),
            };
            for api in [30, 33] {
                let got: Vec<_> = frames(&input, api)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|f| (f.ui.name, f.rt.name, f.actual.map(|a| a.name)))
                    .collect();
                assert_eq!(
                    got,
                    matched_by_scans(&input, api),
                    "round {round}, API {api}"
                );
                matched[usize::from(api >= 31)] += got.len();
            }
        }
        // Both rules matched many frames, not a few.
        assert!(matched.iter().all(|&m| m > 500), "{matched:?}");
    }
}
