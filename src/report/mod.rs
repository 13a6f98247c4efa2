//! Renderers for the analysis: tables for people, CSV/JSON/Markdown for machines and CI.

pub mod analyze_csv;
pub mod analyze_text;
pub mod causes_text;
pub mod doctor_text;
pub mod html;
pub mod verdicts;

/// Rows (the first is the header) as an aligned text table, the style every command uses.
pub fn grid<R, C>(rows: R) -> String
where
    R: IntoIterator<Item = C>,
    C: IntoIterator,
    C::Item: Into<String>,
{
    let mut b = tabled::builder::Builder::default();
    for r in rows {
        b.push_record(r.into_iter().map(Into::into));
    }
    let mut t = b.build();
    t.with(tabled::settings::Style::psql());
    t.to_string()
}
