//! Rendering of SQL result sets: aligned tables for people, CSV and JSON for machines.

use std::io::Write;

use rusqlite::types::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

pub struct ResultSet {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// Reals the way Perfetto's shell prints them (`%f`).
fn real(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.6}")
    } else {
        v.to_string()
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Integer(i) => Some(i.to_string()),
        Value::Real(r) => Some(real(*r)),
        Value::Text(t) => Some(t.clone()),
        Value::Blob(b) => Some(format!("<{} bytes>", b.len())),
    }
}

/// One CSV field by RFC 4180, with sqlite3's convention that an empty text is `""` and a
/// NULL an empty field. The csv crate (used for every other CSV) cannot quote a single empty
/// field, so SQL results keep this writer.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.is_empty() {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn write_csv(out: &mut dyn Write, rs: &ResultSet) -> std::io::Result<()> {
    let header: Vec<String> = rs.columns.iter().map(|c| csv_field(c)).collect();
    writeln!(out, "{}", header.join(","))?;
    for row in &rs.rows {
        let cells: Vec<String> = row
            .iter()
            .map(|v| match (v, text(v)) {
                (Value::Text(_), Some(t)) => csv_field(&t),
                (_, Some(t)) => t,
                (_, None) => String::new(),
            })
            .collect();
        writeln!(out, "{}", cells.join(","))?;
    }
    Ok(())
}

pub fn to_json(rs: &ResultSet) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rs
        .rows
        .iter()
        .map(|row| {
            let mut m = serde_json::Map::new();
            for (c, v) in rs.columns.iter().zip(row) {
                let j = match v {
                    Value::Null => serde_json::Value::Null,
                    Value::Integer(i) => (*i).into(),
                    Value::Real(r) => serde_json::Number::from_f64(*r)
                        .map(serde_json::Value::Number)
                        .unwrap_or(serde_json::Value::Null),
                    Value::Text(t) => t.clone().into(),
                    Value::Blob(b) => format!("<{} bytes>", b.len()).into(),
                };
                m.insert(c.clone(), j);
            }
            serde_json::Value::Object(m)
        })
        .collect();
    serde_json::json!({ "columns": rs.columns, "rows": rows })
}

pub fn write_table(out: &mut dyn Write, rs: &ResultSet) -> std::io::Result<()> {
    let header = std::iter::once(rs.columns.clone());
    let body = rs.rows.iter().map(|row| {
        row.iter()
            .map(|v| text(v).unwrap_or_else(|| "NULL".into()))
            .collect()
    });
    writeln!(out, "{}", crate::report::grid(header.chain(body)))?;
    writeln!(
        out,
        "({} row{})",
        rs.rows.len(),
        if rs.rows.len() == 1 { "" } else { "s" }
    )
}

pub fn write(out: &mut dyn Write, rs: &ResultSet, format: Format) -> std::io::Result<()> {
    match format {
        Format::Table => write_table(out, rs),
        Format::Csv => write_csv(out, rs),
        Format::Json => writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&to_json(rs)).unwrap()
        ),
    }
}
