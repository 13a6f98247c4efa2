//! Renderers for the analysis: tables for people, CSV/JSON/Markdown for machines and CI.

pub mod analyze_csv;
pub mod analyze_text;
pub mod causes_text;
pub mod csv_rows;
pub mod diff;
pub mod doctor_text;
pub mod frames_json;
pub mod gate;
pub mod gfxinfo;
pub mod html;
pub mod interactions_text;
pub mod result_set;
pub mod shorten;
pub mod stream_grid;
pub mod verdicts;
pub mod visible;

pub use stream_grid::StreamGrid;

/// A time as tables show it: seconds from the trace start, to the millisecond (`+12.345 s`).
pub fn since_start(ms: f64) -> String {
    format!("{:+.3} s", ms / 1e3)
}

/// Rows (the first is the header) as an aligned text table, the style every command uses.
pub fn grid<R, C>(rows: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: Into<String>,
{
    let mut b = tabled::builder::Builder::default();
    for r in rows {
        // Cells hold names from the trace: no raw control characters on a terminal.
        b.push_record(r.into_iter().map(|c| {
            let c: String = c.into();
            match visible::visible(&c) {
                std::borrow::Cow::Owned(e) => e,
                std::borrow::Cow::Borrowed(_) => c,
            }
        }));
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::psql());
    t.to_string()
}
