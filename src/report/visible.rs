//! Table output is for terminals, and names come from the trace: a process, layer or slice
//! name holding `ESC]0;…BEL`, `ESC[2J` or a CR/LF could retitle the terminal, clear it,
//! recolour it or split a table row. Table renderers pass such strings through [`visible`],
//! which shows every control character as an escape (`\x1b`, `\r`, `\n`). CSV and JSON keep
//! the exact bytes.

use std::borrow::Cow;
use std::fmt::Write;

use crate::analysis::report_model::AnalyzeReport;

/// Whether `c` must not reach a terminal raw: C0 and C1 controls, DEL, and the Unicode
/// bidirectional overrides that reorder what is shown.
fn is_hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn escape_into(out: &mut String, c: char) {
    let _ = match c {
        '\n' => write!(out, "\\n"),
        '\r' => write!(out, "\\r"),
        '\t' => write!(out, "\\t"),
        c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
        c => write!(out, "\\u{{{:x}}}", c as u32),
    };
}

fn escape_where(s: &str, hide: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(&hide) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if hide(c) {
            escape_into(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` with every control character escaped (line breaks included).
pub fn visible(s: &str) -> Cow<'_, str> {
    escape_where(s, is_hidden)
}

/// A rendered multi-line text with its control characters escaped except the line breaks
/// that separate its lines.
pub fn visible_lines(s: &str) -> Cow<'_, str> {
    escape_where(s, |c| c != '\n' && is_hidden(c))
}

fn escape_in_place(s: &mut String) {
    if let Cow::Owned(e) = visible(s) {
        *s = e;
    }
}

/// The analyze report with the names it got from the trace escaped, for the table: the
/// trace path, process and layer names, blame explanations, cause sentences, notes and
/// warnings.
pub fn escape_report_names(r: &mut AnalyzeReport) {
    escape_in_place(&mut r.trace);
    r.warnings.iter_mut().for_each(escape_in_place);
    for p in &mut r.processes {
        if let Some(n) = &mut p.name {
            escape_in_place(n);
        }
        p.notes.iter_mut().for_each(escape_in_place);
        for l in &mut p.layers {
            if let Some(n) = &mut l.layer {
                escape_in_place(n);
            }
        }
        for f in p.worst_frames.iter_mut().chain(p.all_frames.iter_mut()) {
            if let Some(n) = &mut f.layer {
                escape_in_place(n);
            }
            if let Some(b) = &mut f.blame {
                escape_in_place(&mut b.explanation);
            }
            if let Some(c) = &mut f.causes {
                escape_in_place(&mut c.sentence);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_become_visible_escapes() {
        assert_eq!(visible("plain name"), Cow::Borrowed("plain name"));
        assert_eq!(visible("a\x1b]0;owned\x07b"), "a\\x1b]0;owned\\x07b");
        assert_eq!(visible("\x1b[2J\x1b[31mred"), "\\x1b[2J\\x1b[31mred");
        assert_eq!(visible("two\r\nlines\t"), "two\\r\\nlines\\t");
        assert_eq!(visible("del\x7f c1\u{9b}"), "del\\x7f c1\\u{9b}");
        assert_eq!(visible("bidi\u{202e}x"), "bidi\\u{202e}x");
        // Non-ASCII text that is not a control stays as it is.
        assert_eq!(visible("Zoë ✓ 日本"), "Zoë ✓ 日本");
    }

    #[test]
    fn rendered_text_keeps_its_own_line_breaks() {
        assert_eq!(visible_lines("a\x1b[2J\nb\r\n"), "a\\x1b[2J\nb\\r\n");
    }
}
