//! The table style of [`grid`](super::grid) written row by row: column widths are measured in
//! a first pass over the rows and the table is written in a second, so a table of a million
//! rows never exists as one value (gfxinfo's frame tables).

use std::io::{self, Write};

use super::visible::visible;

pub struct StreamGrid {
    header: Vec<String>,
    widths: Vec<usize>,
}

/// Display width of a cell: its characters (the table's cells are escaped, so no control
/// characters; the non-ASCII ones they hold, like `×` and `≥`, are one column wide).
fn width(s: &str) -> usize {
    s.chars().count()
}

impl StreamGrid {
    pub fn new<S: AsRef<str>>(header: &[S]) -> Self {
        let header: Vec<String> = header
            .iter()
            .map(|h| visible(h.as_ref()).into_owned())
            .collect();
        let widths = header.iter().map(|h| width(h)).collect();
        StreamGrid { header, widths }
    }

    /// First pass: widens the columns to fit `row`.
    pub fn measure<S: AsRef<str>>(&mut self, row: &[S]) {
        for (w, c) in self.widths.iter_mut().zip(row) {
            *w = (*w).max(width(&visible(c.as_ref())));
        }
    }

    fn line<S: AsRef<str>>(&self, out: &mut dyn Write, row: &[S]) -> io::Result<()> {
        let mut text = String::new();
        for (i, w) in self.widths.iter().enumerate() {
            if i > 0 {
                text.push('|');
            }
            let cell = row.get(i).map_or("", |c| c.as_ref());
            let cell = visible(cell);
            text.push(' ');
            text.push_str(&cell);
            text.extend(std::iter::repeat_n(' ', w.saturating_sub(width(&cell)) + 1));
        }
        writeln!(out, "{text}")
    }

    /// Second pass, first: the header and the rule under it.
    pub fn write_header(&self, out: &mut dyn Write) -> io::Result<()> {
        self.line(out, &self.header)?;
        let rule: Vec<String> = self.widths.iter().map(|w| "-".repeat(w + 2)).collect();
        writeln!(out, "{}", rule.join("+"))
    }

    /// Second pass: one row (cells beyond the header's are ignored).
    pub fn write_row<S: AsRef<str>>(&self, out: &mut dyn Write, row: &[S]) -> io::Result<()> {
        self.line(out, row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_rows_match_the_grid_style() {
        let rows = vec![
            vec!["line", "jank types", "total ms"],
            vec!["12", "high_input_latency×2, Davey", "16.70"],
            vec!["13", "not judged: FrameCompleted is ≥ 1 h", "-"],
            vec!["14", "", "0 (not counted)"],
        ];
        let mut g = StreamGrid::new(&rows[0]);
        for r in &rows[1..] {
            g.measure(r);
        }
        let mut out = Vec::new();
        g.write_header(&mut out).unwrap();
        for r in &rows[1..] {
            g.write_row(&mut out, r).unwrap();
        }
        let streamed = String::from_utf8(out).unwrap();
        assert_eq!(streamed, format!("{}\n", super::super::grid(rows.clone())));
    }

    #[test]
    fn cells_are_escaped() {
        let mut g = StreamGrid::new(&["name"]);
        g.measure(&["a\x1b[2Jb"]);
        let mut out = Vec::new();
        g.write_row(&mut out, &["a\x1b[2Jb"]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), " a\\x1b[2Jb \n");
    }
}
