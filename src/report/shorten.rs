//! Table output fits a terminal: system_server layer names run to ~220 characters and would
//! wrap every row. Tables show long names shortened in the middle, where the two ends that
//! tell layers apart (package and `#N` suffix) survive; JSON, CSV, Markdown and `--wide`
//! keep them whole.

use crate::analysis::report_model::AnalyzeReport;

/// The longest name a table shows whole.
pub const NAME_WIDTH: usize = 60;

/// `s` with its middle replaced by `…` so that it is at most `max` characters long.
pub fn shorten_middle(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max || max < 3 {
        return s.to_string();
    }
    let keep = max - 1;
    let head = keep.div_ceil(2);
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

fn shorten_in_place(s: &mut String, max: usize) {
    if s.chars().count() > max {
        *s = shorten_middle(s, max);
    }
}

/// Calls `f` on every process and layer name a table of the report shows.
fn each_name(r: &mut AnalyzeReport, mut f: impl FnMut(&mut String)) {
    for p in &mut r.processes {
        if let Some(n) = &mut p.name {
            f(n);
        }
        let layers = p.layers.iter_mut().map(|l| &mut l.layer);
        let frames = p
            .worst_frames
            .iter_mut()
            .chain(p.all_frames.iter_mut())
            .map(|f| &mut f.layer);
        let recs = p.reconciliation.iter_mut().flat_map(|rec| {
            std::iter::once(&mut rec.layer)
                .chain(rec.disagreements.iter_mut().map(|d| &mut d.layer))
        });
        for n in layers.chain(frames).chain(recs).flatten() {
            f(n);
        }
    }
}

/// Shortens the process and layer names of a report that is about to become a table.
pub fn shorten_report_names(r: &mut AnalyzeReport, max: usize) {
    each_name(r, |n| shorten_in_place(n, max));
}

/// How wide a table may be: `COLUMNS` when set (as `ls` honours it), else the width of the
/// terminal standard output is; None when writing to a file or pipe.
pub fn table_width() -> Option<usize> {
    use std::io::IsTerminal;
    if let Some(c) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse().ok())
    {
        return Some(c);
    }
    let out = std::io::stdout();
    if !out.is_terminal() {
        return None;
    }
    terminal_size::terminal_size_of(&out).map(|(w, _)| usize::from(w.0))
}

/// Names are never shortened below this many characters, however narrow the terminal.
const MIN_NAME_WIDTH: usize = 24;

/// A report rendered as tables whose names fit `width` (see `fit`); `wide` keeps every
/// name whole.
pub fn render_fitted(
    r: &AnalyzeReport,
    wide: bool,
    width: Option<usize>,
    render: impl Fn(&AnalyzeReport) -> String,
) -> String {
    let with_cap = |cap: Option<usize>| {
        let mut shown = r.clone();
        if let Some(cap) = cap {
            shorten_report_names(&mut shown, cap);
        }
        render(&shown)
    };
    if wide {
        return with_cap(None);
    }
    let mut longest = 0;
    each_name(&mut r.clone(), |n| longest = longest.max(n.chars().count()));
    fit(width, longest, with_cap)
}

/// Output whose names fit `width`: whole when the widest line fits, otherwise shortened in
/// the middle just enough (down to MIN_NAME_WIDTH). Without a width (file or pipe) names
/// over NAME_WIDTH are shortened, so output does not depend on where it goes.
/// `render(Some(n))` renders with names cut to `n` characters, `render(None)` whole.
pub fn fit(
    width: Option<usize>,
    longest: usize,
    render: impl Fn(Option<usize>) -> String,
) -> String {
    let Some(width) = width else {
        return render(Some(NAME_WIDTH));
    };
    let mut cap = longest;
    let mut out = render(None);
    // Each pass takes the overflow off the names; a name column that another long cell
    // keeps wide may need a second pass.
    for _ in 0..4 {
        let widest = widest_row(&out);
        let over = widest.saturating_sub(width);
        if over == 0 || cap <= MIN_NAME_WIDTH {
            break;
        }
        cap = cap.saturating_sub(over).max(MIN_NAME_WIDTH);
        let shorter = render(Some(cap));
        // A table without names (or prose) is the widest: names are not what overflows.
        if widest_row(&shorter) >= widest {
            break;
        }
        out = shorter;
    }
    out
}

/// The widest table row (a line with ` | ` between cells; prose lines wrap on their own),
/// or the widest line when there is no table.
fn widest_row(s: &str) -> usize {
    let width = |l: &str| l.chars().count();
    let rows = s.lines().filter(|l| l.contains(" | ")).map(width).max();
    rows.unwrap_or_else(|| s.lines().map(width).max().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_keep_both_ends() {
        assert_eq!(shorten_middle("short", 10), "short");
        assert_eq!(shorten_middle("0123456789", 10), "0123456789");
        // 11 characters into 10: 5 from the start, the ellipsis, 4 from the end.
        assert_eq!(shorten_middle("0123456789A", 10), "01234…789A");
        let layer = format!("com.android.systemui/{}#123", "x".repeat(200));
        let s = shorten_middle(&layer, NAME_WIDTH);
        assert_eq!(s.chars().count(), NAME_WIDTH);
        assert!(s.starts_with("com.android.systemui/") && s.ends_with("#123"));
        // Characters, not bytes: no multi-byte character is cut.
        assert_eq!(shorten_middle("ééééééé", 5), "éé…éé");
    }

    /// A stand-in table: a name then 30 characters of numbers, per name.
    fn table(names: &[&str], cap: Option<usize>) -> String {
        names
            .iter()
            .map(|n| {
                let n = cap.map_or(n.to_string(), |c| shorten_middle(n, c));
                format!("{n} | {}\n", "9".repeat(28))
            })
            .collect()
    }

    #[test]
    fn names_shrink_just_enough_to_fit_the_terminal() {
        let long = format!("com.android.systemui/{}#123", "x".repeat(99));
        assert_eq!(long.chars().count(), 124);
        let names = [long.as_str(), "short"];
        let render = |cap| table(&names, cap);
        // A 124-character name + " | " + 28 = 155 columns: whole in 200.
        assert!(fit(Some(200), 124, render).contains(&long));
        // In 100 columns the name gets 100 - 31 = 69 characters.
        let out = fit(Some(100), 124, render);
        assert_eq!(widest_row(&out), 100, "{out}");
        assert!(out.contains("com.android.systemui/") && out.contains("#123"));
        // Never below MIN_NAME_WIDTH: 24 + 31 = 55 in a 40-column terminal.
        assert_eq!(widest_row(&fit(Some(40), 124, render)), 55);
        // Prose wider than the terminal is left to wrap: names stay whole.
        let prose = |cap| format!("{}\n{}", "p".repeat(300), table(&names, cap));
        assert!(fit(Some(200), 124, prose).contains(&long));
        // A table without names that is wider than the terminal: names are not cut.
        let other = |cap| format!("{} | x\n{}", "o".repeat(300), table(&names, cap));
        assert!(fit(Some(200), 124, other).contains(&long));
        // A pipe (no width) cuts at NAME_WIDTH: 60 + 31.
        assert_eq!(widest_row(&fit(None, 124, render)), NAME_WIDTH + 31);
    }
}
