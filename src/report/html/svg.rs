//! Inline SVG charts: the frame timeline, histograms with percentile marks, horizontal
//! stacked bars and paired bars. Every label passed in is escaped here.

use std::fmt::Write;

use super::{esc, num};

/// How a frame's bar is drawn: a CSS class, its colour and the legend text.
#[derive(Debug, PartialEq, Eq)]
pub struct TagStyle {
    pub class: &'static str,
    pub colour: &'static str,
    pub label: &'static str,
}

const fn style(class: &'static str, colour: &'static str, label: &'static str) -> TagStyle {
    TagStyle {
        class,
        colour,
        label,
    }
}

pub const NO_JANK: TagStyle = style("tn", "#66bb6a", "No Jank");
pub const SELF_JANK: TagStyle = style("ts", "#e53935", "Self Jank");
pub const OTHER_JANK: TagStyle = style("to", "#fb8c00", "Other Jank");
pub const DROPPED: TagStyle = style("td", "#8e24aa", "Dropped Frame");
pub const BUFFER_STUFFING: TagStyle = style("tb", "#42a5f5", "Buffer Stuffing");
pub const SF_STUFFING: TagStyle = style("tf", "#00838f", "SurfaceFlinger Stuffing");
pub const NON_PERCEIVABLE: TagStyle = style("tp", "#fdd835", "Non-perceivable Jank");
pub const UNSPECIFIED: TagStyle = style("tu", "#9e9e9e", "Unspecified / other");
/// No FrameTimeline: CPU (or UI) time over the frame budget.
pub const SLOW_CPU: TagStyle = style("tc", "#d81b60", "Slow (no FrameTimeline, CPU over budget)");
/// No FrameTimeline: within the budget.
pub const OK_CPU: TagStyle = style("tk", "#a5d6a7", "Within budget (no FrameTimeline)");

pub const ALL_TAGS: [&TagStyle; 10] = [
    &NO_JANK,
    &SELF_JANK,
    &OTHER_JANK,
    &DROPPED,
    &BUFFER_STUFFING,
    &SF_STUFFING,
    &NON_PERCEIVABLE,
    &UNSPECIFIED,
    &SLOW_CPU,
    &OK_CPU,
];

/// The colours the tag classes stand for (kept in step with [`ALL_TAGS`]).
pub const TAG_CSS: &str = ".tn{stroke:#66bb6a}.ts{stroke:#e53935}.to{stroke:#fb8c00}.td{stroke:#8e24aa}\
.tb{stroke:#42a5f5}.tf{stroke:#00838f}.tp{stroke:#fdd835}.tu{stroke:#9e9e9e}.tc{stroke:#d81b60}.tk{stroke:#a5d6a7}";

/// The style of a frame with this FrameTimeline jank tag (None: no FrameTimeline, judged by
/// CPU time against the budget, `janky` says which side).
pub fn tag_style(tag: Option<&str>, janky: bool) -> &'static TagStyle {
    match tag {
        Some("No Jank") => &NO_JANK,
        Some("Self Jank") => &SELF_JANK,
        Some("Other Jank") => &OTHER_JANK,
        Some("Dropped Frame") => &DROPPED,
        Some("Buffer Stuffing") => &BUFFER_STUFFING,
        Some("SurfaceFlinger Stuffing") => &SF_STUFFING,
        Some("Non-perceivable Jank") => &NON_PERCEIVABLE,
        Some(_) => &UNSPECIFIED,
        None if janky => &SLOW_CPU,
        None => &OK_CPU,
    }
}

/// A legend of coloured boxes.
pub fn legend<'a>(items: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut o = String::from("<div class=\"legend\">");
    for (colour, label) in items {
        let _ = write!(
            o,
            "<span><i style=\"background:{}\"></i>{}</span>",
            esc(colour),
            esc(label)
        );
    }
    o.push_str("</div>");
    o
}

/// A "nice" tick step (1, 2, 2.5, 5 times a power of ten) giving about `target` ticks.
pub fn nice_step(range: f64, target: f64) -> f64 {
    if !range.is_finite() || range <= 0.0 {
        return 1.0;
    }
    let raw = range / target.max(1.0);
    let p = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if m * p >= raw {
            return m * p;
        }
    }
    10.0 * p
}

fn tick_label(v: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{v:.0}")
    } else if step >= 0.1 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// One frame in the timeline.
pub struct Bar {
    /// Start of the frame (trace clock, ns).
    pub ts: i64,
    /// Bar height in ms; None draws a short stub ("no duration").
    pub value_ms: Option<f64>,
    pub style: &'static TagStyle,
    pub janky: bool,
    /// `data-frame` attribute (the FrameTimeline token / vsync id, or an index).
    pub frame: String,
    /// Tooltip text.
    pub title: String,
}

const TL_LEFT: f64 = 46.0;
const TL_RIGHT: f64 = 12.0;
const TL_TOP: f64 = 14.0;
const TL_PLOT: f64 = 200.0;
const TL_BOTTOM: f64 = 30.0;
/// Pixels per frame budget of time on the x axis, and the width limits of the plot.
const PX_PER_BUDGET: f64 = 3.0;
const TL_MIN_W: f64 = 1100.0;
const TL_MAX_W: f64 = 12000.0;

/// The y-axis ceiling: the tallest bar, but not so far above the budget and the P99 that
/// normal frames become invisible; taller bars are clipped and capped at the top.
pub fn timeline_ceiling(values: &[f64], budget_ms: f64, p99: Option<f64>) -> f64 {
    let max = values.iter().copied().fold(0.0, f64::max);
    let cap = (4.0 * budget_ms).max(p99.unwrap_or(0.0) * 1.15);
    max.min(cap).max(2.0 * budget_ms).max(1.0)
}

/// The frame timeline: one bar per frame at its start time, height its duration, colour its
/// jank tag, the budget as a dashed line; gaps are the times no frame was produced.
///
/// `t0` is the time of x = 0 (the process's first frame, so its layers' charts line up).
pub fn timeline(bars: &[Bar], t0: i64, budget_ms: f64, y_max: f64, y_label: &str) -> String {
    let mut o = String::new();
    if bars.is_empty() {
        return o;
    }
    let t0 = t0.min(bars.iter().map(|b| b.ts).min().unwrap_or(t0));
    let t1 = bars.iter().map(|b| b.ts).max().unwrap_or(0);
    let budget_ns = (budget_ms * 1e6).max(1.0);
    let span_ns = (t1 - t0) as f64 + budget_ns;
    let w = (span_ns / budget_ns * PX_PER_BUDGET).clamp(TL_MIN_W, TL_MAX_W);
    let px_per_ns = w / span_ns;
    let bar_w = (budget_ns * px_per_ns * 0.75).clamp(1.0, 12.0);
    let total_w = TL_LEFT + w + TL_RIGHT;
    let total_h = TL_TOP + TL_PLOT + TL_BOTTOM;
    let y = |v: f64| TL_TOP + TL_PLOT - (v.min(y_max) / y_max) * TL_PLOT;
    let _ = write!(
        o,
        "<div class=\"scroll\"><svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\
         <title>{}</title><rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
        num(total_w),
        num(total_h),
        num(total_w),
        num(total_h),
        esc(&format!(
            "Frame timeline: {} frames, height = {y_label}",
            bars.len()
        )),
        num(TL_LEFT),
        num(TL_TOP),
        num(w),
        num(TL_PLOT)
    );
    // Y grid and labels.
    let ystep = nice_step(y_max, 5.0);
    let mut v = 0.0;
    while v <= y_max + 1e-9 {
        let yy = y(v);
        y_gridline(&mut o, TL_LEFT, TL_LEFT + w, yy, &tick_label(v, ystep));
        v += ystep;
    }
    let _ = write!(o, "<text x=\"4\" y=\"{}\">ms</text>", num(TL_TOP + 4.0));
    // X ticks: seconds from the first frame.
    let span_s = span_ns / 1e9;
    let xstep = nice_step(span_s, (w / 110.0).max(2.0));
    let mut s = 0.0;
    while s <= span_s + 1e-9 {
        let xx = TL_LEFT + s * 1e9 * px_per_ns;
        x_tick(
            &mut o,
            xx,
            TL_TOP + TL_PLOT,
            16.0,
            &format!("{} s", tick_label(s, xstep)),
        );
        s += xstep;
    }
    // Bars: vertical strokes drawn upwards from the baseline (the group is flipped, so a bar
    // is "M x 0 v height"; the stroke width is the group's), which keeps a 2,000-frame page
    // small.
    let _ = write!(
        o,
        "<g class=\"bars\" stroke-width=\"{}\" transform=\"translate(0 {}) scale(1 -1)\">",
        num(bar_w),
        num(TL_TOP + TL_PLOT)
    );
    let mut caps = String::new();
    for b in bars {
        let x = TL_LEFT + (b.ts - t0) as f64 * px_per_ns + bar_w / 2.0;
        // A frame without a duration keeps its colour but is only a short stub.
        let (h, clipped) = match b.value_ms {
            Some(v) => (
                (v.max(0.0).min(y_max) / y_max * TL_PLOT).max(1.0),
                v > y_max,
            ),
            None => (3.0, false),
        };
        let _ = write!(
            o,
            "<path d=\"M{} 0v{}\" class=\"{}{}{}\" data-frame=\"{}\"><title>{}</title></path>",
            num(x),
            num(h),
            b.style.class,
            if b.value_ms.is_none() { " nd" } else { "" },
            if b.janky { " j" } else { "" },
            esc(&b.frame),
            esc(&b.title)
        );
        if clipped {
            let _ = write!(
                caps,
                "<path d=\"M{} {}h{}\"/>",
                num(x - bar_w / 2.0 - 1.0),
                num(TL_PLOT - 1.5),
                num(bar_w + 2.0)
            );
        }
    }
    o.push_str("</g>");
    if !caps.is_empty() {
        // Bars taller than the chart: a dark cap where they leave it.
        let _ = write!(
            o,
            "<g class=\"caps\" stroke=\"#212121\" stroke-width=\"3\" transform=\"translate(0 {}) scale(1 -1)\">{caps}</g>",
            num(TL_TOP + TL_PLOT)
        );
    }
    // The budget line over the bars.
    let by = y(budget_ms);
    let _ = write!(
        o,
        "<line class=\"budget\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\
         <text x=\"{}\" y=\"{}\" fill=\"#c62828\" style=\"fill:#c62828\">budget {:.1} ms</text>",
        num(TL_LEFT),
        num(TL_LEFT + w),
        num(by),
        num(by),
        num(TL_LEFT + 4.0),
        num(by - 4.0),
        budget_ms
    );
    o.push_str("</svg></div>");
    o
}

/// A histogram: values binned on [lo, hi] (values outside go to the first or last bin),
/// percentile marks as labelled vertical lines, an optional budget line; bins above
/// `bad_above` are drawn in red.
pub struct Histogram<'a> {
    pub title: &'a str,
    pub values: &'a [f64],
    pub lo: f64,
    pub hi: f64,
    pub bins: usize,
    pub marks: &'a [(&'a str, f64)],
    pub budget: Option<f64>,
    pub bad_above: Option<f64>,
    pub x_label: &'a str,
    /// Shared y scale (for side-by-side histograms); None: this histogram's tallest bin.
    pub y_max: Option<usize>,
    /// Fill of the bins at or below `bad_above`.
    pub colour: &'a str,
}

const H_W: f64 = 480.0;
const H_H: f64 = 170.0;
const H_LEFT: f64 = 42.0;
const H_TOP: f64 = 48.0;
const H_BOTTOM: f64 = 34.0;

/// The bin counts of a histogram (shared by callers that need a common y scale).
pub fn bin_counts(values: &[f64], lo: f64, hi: f64, bins: usize) -> Vec<usize> {
    let bins = bins.max(1);
    let mut c = vec![0usize; bins];
    let width = (hi - lo).max(1e-9) / bins as f64;
    for &v in values {
        if !v.is_finite() {
            continue;
        }
        let i = (((v - lo) / width).floor().max(0.0) as usize).min(bins - 1);
        c[i] += 1;
    }
    c
}

pub fn histogram(h: &Histogram<'_>) -> String {
    let mut o = String::new();
    let bins = h.bins.max(1);
    let counts = bin_counts(h.values, h.lo, h.hi, bins);
    let ymax = h
        .y_max
        .unwrap_or_else(|| counts.iter().copied().max().unwrap_or(0))
        .max(1) as f64;
    let total_w = H_LEFT + H_W + 14.0;
    let total_h = H_TOP + H_H + H_BOTTOM;
    let bw = H_W / bins as f64;
    let span = (h.hi - h.lo).max(1e-9);
    let x = |v: f64| H_LEFT + ((v - h.lo) / span).clamp(0.0, 1.0) * H_W;
    let _ = write!(
        o,
        "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\
         <text x=\"{}\" y=\"13\" style=\"font-weight:600\">{}</text>\
         <rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
        num(total_w),
        num(total_h),
        num(total_w),
        num(total_h),
        esc(h.title),
        num(H_LEFT),
        esc(h.title),
        num(H_LEFT),
        num(H_TOP),
        num(H_W),
        num(H_H)
    );
    // Y grid.
    let ystep = nice_step(ymax, 4.0).max(1.0);
    let mut v = 0.0;
    while v <= ymax + 1e-9 {
        let yy = H_TOP + H_H - v / ymax * H_H;
        y_gridline(&mut o, H_LEFT, H_LEFT + H_W, yy, &tick_label(v, ystep));
        v += ystep;
    }
    // Bins.
    let width = span / bins as f64;
    for (i, &c) in counts.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let a = h.lo + i as f64 * width;
        let b = a + width;
        let bh = c as f64 / ymax * H_H;
        let bad = h.bad_above.is_some_and(|t| a >= t);
        let range = match i {
            0 if bins > 1 => format!("< {b:.2}"),
            _ if i == bins - 1 && bins > 1 => format!("≥ {a:.2}"),
            _ => format!("{a:.2}–{b:.2}"),
        };
        let _ = write!(
            o,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {}: {} frame{}</title></rect>",
            num(H_LEFT + i as f64 * bw + 0.5),
            num(H_TOP + H_H - bh),
            num((bw - 1.0).max(0.6)),
            num(bh),
            if bad { "#e57373" } else { h.colour },
            range,
            esc(h.x_label),
            c,
            if c == 1 { "" } else { "s" }
        );
    }
    // X ticks.
    let xstep = nice_step(span, 6.0);
    let mut t = (h.lo / xstep).ceil() * xstep;
    while t <= h.hi + 1e-9 {
        x_tick(&mut o, x(t), H_TOP + H_H, 15.0, &tick_label(t, xstep));
        t += xstep;
    }
    let _ = write!(
        o,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        num(H_LEFT + H_W / 2.0),
        num(H_TOP + H_H + 29.0),
        esc(h.x_label)
    );
    if let Some(b) = h.budget.filter(|b| *b >= h.lo && *b <= h.hi) {
        let xx = x(b);
        let _ = write!(
            o,
            "<line class=\"budget\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"><title>budget {b:.2} ms</title></line>",
            num(xx),
            num(xx),
            num(H_TOP),
            num(H_TOP + H_H)
        );
    }
    // Percentile marks; each label goes on the lowest of three rows where it does not
    // overlap the labels already there.
    let mut row_end = [f64::NEG_INFINITY; 3];
    for (label, v) in h.marks.iter() {
        let xx = x(*v);
        let half = 3.2 * label.chars().count() as f64 + 2.0;
        let row = (0..row_end.len())
            .find(|&r| row_end[r] < xx - half)
            .unwrap_or(row_end.len() - 1);
        row_end[row] = xx + half;
        let ly = H_TOP - 4.0 - row as f64 * 10.0;
        let _ = write!(
            o,
            "<line class=\"pct\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"><title>{} {:.2}</title></line>\
             <text class=\"pct-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            num(xx),
            num(xx),
            num(ly + 2.0),
            num(H_TOP + H_H),
            esc(label),
            v,
            num(xx),
            num(ly),
            esc(label)
        );
    }
    o.push_str("</svg>");
    o
}

/// A histogram's x range: from the smallest value (or 0) to the largest, capped so one
/// outlier does not squeeze the rest (values beyond go to the last bin).
pub fn hist_range(values: &[f64], p99: Option<f64>, budget: Option<f64>) -> (f64, f64) {
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !min.is_finite() || !max.is_finite() {
        return (0.0, budget.unwrap_or(1.0) * 2.0);
    }
    let lo = min.min(0.0).floor();
    let cap = (p99.unwrap_or(max) * 1.3).max(budget.unwrap_or(0.0) * 2.0);
    let hi = max.min(cap).max(budget.unwrap_or(0.0) * 1.2);
    let hi = if hi <= lo { lo + 1.0 } else { hi };
    let step = nice_step(hi - lo, 8.0);
    (lo, (hi / step).ceil() * step)
}

/// One segment of a stacked bar.
pub struct Segment<'a> {
    pub label: &'a str,
    pub ms: f64,
    pub colour: &'a str,
}

/// A horizontal stacked bar on a 0..`scale_ms` axis, with an optional budget mark.
pub fn stacked(segments: &[Segment<'_>], scale_ms: f64, budget: Option<f64>, width: f64) -> String {
    let mut o = String::new();
    let h = 22.0;
    let total_h = h + 16.0;
    let scale = scale_ms.max(1e-6);
    let total: f64 = segments.iter().map(|s| s.ms.max(0.0)).sum();
    let _ = write!(
        o,
        "<svg class=\"stack\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\
         <rect class=\"plot\" x=\"0\" y=\"0\" width=\"{}\" height=\"{}\"/>",
        num(width),
        num(total_h),
        num(width),
        num(total_h),
        esc(&segments
            .iter()
            .map(|s| format!("{} {:.2} ms", s.label, s.ms))
            .collect::<Vec<_>>()
            .join(", ")),
        num(width),
        num(h)
    );
    let mut x = 0.0;
    for s in segments {
        let w = s.ms.max(0.0) / scale * width;
        if w <= 0.0 {
            continue;
        }
        let w = w.min(width - x).max(0.0);
        let _ = write!(
            o,
            "<rect x=\"{}\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} {:.2} ms</title></rect>",
            num(x),
            num(w),
            num(h),
            esc(s.colour),
            esc(s.label),
            s.ms
        );
        if w > 44.0 {
            let _ = write!(
                o,
                "<text x=\"{}\" y=\"15\" style=\"fill:#fff;font-weight:600\">{:.1}</text>",
                num(x + 4.0),
                s.ms
            );
        }
        x += w;
    }
    if let Some(b) = budget.filter(|b| *b <= scale) {
        let bx = b / scale * width;
        let _ = write!(
            o,
            "<line class=\"budget\" x1=\"{}\" x2=\"{}\" y1=\"-2\" y2=\"{}\"/>\
             <text x=\"{}\" y=\"{}\" text-anchor=\"middle\" style=\"fill:#c62828\">budget</text>",
            num(bx),
            num(bx),
            num(h + 2.0),
            num(bx),
            num(h + 13.0)
        );
    }
    let _ = write!(
        o,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.1} ms</text></svg>",
        num(width - 2.0),
        num(h + 13.0),
        total
    );
    o
}

/// Grouped vertical bars: for each group a baseline and a candidate value.
pub fn paired_bars(
    title: &str,
    groups: &[(String, Option<f64>, Option<f64>)],
    unit: &str,
    colours: (&str, &str),
) -> String {
    let mut o = String::new();
    let plot_h = 150.0;
    let left = 42.0;
    let top = 24.0;
    let group_w = 92.0;
    let w = group_w * groups.len().max(1) as f64;
    let total_w = left + w + 10.0;
    let total_h = top + plot_h + 52.0;
    let max = groups
        .iter()
        .flat_map(|g| [g.1, g.2])
        .flatten()
        .fold(0.0, f64::max);
    let ymax = if max <= 0.0 {
        1.0
    } else {
        let s = nice_step(max, 4.0);
        (max / s).ceil() * s
    };
    let _ = write!(
        o,
        "<svg class=\"pairs\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" \
         viewBox=\"0 0 {} {}\" role=\"img\"><title>{}</title>\
         <text x=\"{}\" y=\"13\" style=\"font-weight:600\">{}</text>\
         <rect class=\"plot\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>",
        num(total_w),
        num(total_h),
        num(total_w),
        num(total_h),
        esc(title),
        num(left),
        esc(title),
        num(left),
        num(top),
        num(w),
        num(plot_h)
    );
    let ystep = nice_step(ymax, 4.0);
    let mut v = 0.0;
    while v <= ymax + 1e-9 {
        let yy = top + plot_h - v / ymax * plot_h;
        y_gridline(&mut o, left, left + w, yy, &tick_label(v, ystep));
        v += ystep;
    }
    for (i, (label, b, c)) in groups.iter().enumerate() {
        let gx = left + i as f64 * group_w;
        for (j, (val, colour, side)) in [(b, colours.0, "baseline"), (c, colours.1, "candidate")]
            .into_iter()
            .enumerate()
        {
            let x = gx + 16.0 + j as f64 * 30.0;
            match val {
                Some(v) => {
                    let bh = v / ymax * plot_h;
                    let _ = write!(
                        o,
                        "<rect x=\"{}\" y=\"{}\" width=\"28\" height=\"{}\" fill=\"{}\"><title>{} {}: {:.2} {}</title></rect>",
                        num(x),
                        num(top + plot_h - bh),
                        num(bh.max(0.5)),
                        esc(colour),
                        esc(label),
                        side,
                        v,
                        esc(unit)
                    );
                }
                None => {
                    let _ = write!(
                        o,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">n/a</text>",
                        num(x + 14.0),
                        num(top + plot_h - 4.0)
                    );
                }
            }
        }
        // Labels word by word on their own lines, so long tag names do not run together.
        let _ = write!(
            o,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">",
            num(gx + group_w / 2.0),
            num(top + plot_h + 15.0)
        );
        for (k, word) in label.split(' ').enumerate() {
            let _ = write!(
                o,
                "<tspan x=\"{}\" dy=\"{}\">{}</tspan>",
                num(gx + group_w / 2.0),
                if k == 0 { 0 } else { 12 },
                esc(word)
            );
        }
        o.push_str("</text>");
    }
    let _ = write!(
        o,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></svg>",
        num(left + w / 2.0),
        num(top + plot_h + 44.0),
        esc(unit)
    );
    o
}

/// A tick on an x axis at `baseline`: a 4 px mark and its label `label_dy` below.
fn x_tick(o: &mut String, x: f64, baseline: f64, label_dy: f64, label: &str) {
    let _ = write!(
        o,
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        num(x),
        num(x),
        num(baseline),
        num(baseline + 4.0),
        num(x),
        num(baseline + label_dy),
        label
    );
}

/// A horizontal grid line from `left` to `right` at `y`, labelled at its left end.
fn y_gridline(o: &mut String, left: f64, right: f64, y: f64, label: &str) {
    let _ = write!(
        o,
        "<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        num(left),
        num(right),
        num(y),
        num(y),
        num(left - 4.0),
        num(y + 4.0),
        label
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(10.0, 4.0), 2.5);
        assert_eq!(nice_step(0.0, 4.0), 1.0);
        assert_eq!(nice_step(7.0, 7.0), 1.0);
    }

    #[test]
    fn bins_clamp_outliers_to_the_ends() {
        let c = bin_counts(&[-5.0, 0.0, 0.5, 1.5, 99.0], 0.0, 2.0, 2);
        assert_eq!(c, vec![3, 2]);
    }

    #[test]
    fn tag_css_covers_every_tag() {
        for t in ALL_TAGS {
            assert!(
                TAG_CSS.contains(&format!(".{}{{stroke:{}}}", t.class, t.colour)),
                "{}",
                t.label
            );
        }
    }

    #[test]
    fn timeline_has_one_bar_per_frame_and_marks_janky_ones() {
        let bars: Vec<Bar> = (0..5)
            .map(|i| Bar {
                ts: 1_000_000_000 + i * 16_666_667,
                value_ms: if i == 4 {
                    None
                } else {
                    Some(10.0 + i as f64 * 10.0)
                },
                style: tag_style(Some(if i == 2 { "Self Jank" } else { "No Jank" }), i == 2),
                janky: i == 2,
                frame: format!("{i}"),
                title: "<x>".into(),
            })
            .collect();
        let s = timeline(&bars, 1_000_000_000, 16.7, 35.0, "ms");
        assert_eq!(s.matches("data-frame=").count(), 5);
        assert_eq!(s.matches(" j\"").count(), 1);
        assert_eq!(
            s.matches("class=\"caps\"").count(),
            1,
            "the 40 ms bar is capped at the ceiling"
        );
        assert!(s.contains("&lt;x&gt;"));
        assert!(!s.contains("<x>"));
    }
}
