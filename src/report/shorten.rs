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

/// Shortens the process and layer names of a report that is about to become a table.
pub fn shorten_report_names(r: &mut AnalyzeReport, max: usize) {
    for p in &mut r.processes {
        if let Some(n) = &mut p.name {
            shorten_in_place(n, max);
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
            shorten_in_place(n, max);
        }
    }
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
}
