//! CSV for machines, written by the `csv` crate (RFC 4180 quoting: a field with a comma,
//! quote or line break is quoted, quotes doubled).

use std::io::Write;

/// Rows of cells, the first the header, as CSV text.
pub fn to_csv<R, C>(rows: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: AsRef<[u8]>,
{
    let mut buf = Vec::new();
    let mut w = csv::Writer::from_writer(&mut buf);
    for r in rows {
        // Writing to memory fails only on a ragged row, which our own tables never are.
        w.write_record(r).expect("CSV row of the table's width");
    }
    drop(w);
    String::from_utf8(buf).expect("cells are UTF-8")
}

/// A CSV writer over `out` that takes rows one at a time (for output of any length).
pub fn writer(out: &mut dyn Write) -> csv::Writer<&mut dyn Write> {
    csv::WriterBuilder::new().flexible(false).from_writer(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected text by RFC 4180's rules, written out by hand.
    #[test]
    fn names_from_the_trace_are_quoted_only_when_needed() {
        let rows = [
            vec!["name", "n"],
            vec!["a,b", "1"],
            vec!["say \"hi\"", "2"],
            vec!["two\nlines", ""],
            vec!["plain", "3"],
        ];
        assert_eq!(
            to_csv(rows),
            "name,n\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",\nplain,3\n"
        );
    }
}
