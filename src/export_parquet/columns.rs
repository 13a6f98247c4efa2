//! CSV rows (header first) to typed columns, the trace's columns in front.

use anyhow::{bail, Context, Result};

use super::schema::{csv_kind, Kind, SCHEMA_VERSION, TRACE_COLUMNS};
use super::{Table, TraceColumns};

/// One column's cells, None for null.
#[derive(Debug, PartialEq)]
pub enum Values {
    Int64(Vec<Option<i64>>),
    Double(Vec<Option<f64>>),
    Boolean(Vec<Option<bool>>),
    Text(Vec<Option<String>>),
}

#[derive(Debug)]
pub struct Column {
    pub name: String,
    pub values: Values,
}

/// The table's columns: [`TRACE_COLUMNS`] repeated on every row, then the CSV's columns.
pub fn build(table: Table, rows: &[Vec<String>], trace: &TraceColumns) -> Result<Vec<Column>> {
    let Some((head, body)) = rows.split_first() else {
        bail!("the {} table has no header", table.name());
    };
    let mut out: Vec<Column> = TRACE_COLUMNS
        .iter()
        .map(|&(name, _)| Column {
            name: name.to_string(),
            values: trace_cells(name, trace, body.len()),
        })
        .collect();
    for (i, name) in head.iter().enumerate() {
        let kind = csv_kind(table, name).with_context(|| {
            format!(
                "the {} table's column {name} has no Parquet type (add it to \
                 src/export_parquet/schema.rs and docs/parquet.md)",
                table.name()
            )
        })?;
        let cells = body.iter().map(|r| r.get(i).map_or("", String::as_str));
        let values = parse(kind, cells)
            .with_context(|| format!("the {} table's column {name}", table.name()))?;
        out.push(Column {
            name: name.clone(),
            values,
        });
    }
    Ok(out)
}

fn trace_cells(name: &str, t: &TraceColumns, n: usize) -> Values {
    let text = |v: Option<&String>| Values::Text(vec![v.cloned(); n]);
    match name {
        "schema_version" => Values::Int64(vec![Some(SCHEMA_VERSION); n]),
        "trace_id" => text(Some(&t.trace_id)),
        "trace_path" => text(Some(&t.trace_path)),
        "android_build_fingerprint" => text(t.build_fingerprint.as_ref()),
        "android_sdk_version" => Values::Int64(vec![t.sdk_version; n]),
        "android_device_manufacturer" => text(t.device_manufacturer.as_ref()),
        "android_soc_model" => text(t.soc_model.as_ref()),
        _ => unreachable!("TRACE_COLUMNS and trace_cells list the same names"),
    }
}

/// Cells as `kind`: empty is null; a cell that does not parse is an error naming its row.
fn parse<'a>(kind: Kind, cells: impl Iterator<Item = &'a str>) -> Result<Values> {
    fn each<T>(
        cells: impl Iterator<Item = String>,
        f: impl Fn(&str) -> Option<T>,
        what: &str,
    ) -> Result<Vec<Option<T>>> {
        cells
            .enumerate()
            .map(|(row, c)| match c.as_str() {
                "" => Ok(None),
                s => f(s)
                    .map(Some)
                    .with_context(|| format!("row {}: {s:?} is not {what}", row + 1)),
            })
            .collect()
    }
    let cells = cells.map(String::from);
    Ok(match kind {
        Kind::Int64 => Values::Int64(each(cells, |s| s.parse().ok(), "an integer")?),
        Kind::Double => Values::Double(each(cells, |s| s.parse().ok(), "a number")?),
        Kind::Boolean => Values::Boolean(each(
            cells,
            |s| match s {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            },
            "0 or 1",
        )?),
        Kind::Text => Values::Text(cells.map(|c| Some(c).filter(|c| !c.is_empty())).collect()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(r: &[&[&str]]) -> Vec<Vec<String>> {
        r.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    /// Expected values written out by hand from the cells.
    #[test]
    fn cells_become_typed_values_and_empty_is_null() {
        let t = TraceColumns {
            trace_id: "a-1".into(),
            sdk_version: Some(33),
            ..Default::default()
        };
        let cols = build(
            Table::Frames,
            &rows(&[
                &["pid", "dur_ms", "janky", "layer"],
                &["7", "16.5", "1", "L#0"],
                &["8", "", "0", ""],
            ]),
            &t,
        )
        .unwrap();
        let by = |n: &str| &cols.iter().find(|c| c.name == n).unwrap().values;
        assert_eq!(*by("pid"), Values::Int64(vec![Some(7), Some(8)]));
        assert_eq!(*by("dur_ms"), Values::Double(vec![Some(16.5), None]));
        assert_eq!(*by("janky"), Values::Boolean(vec![Some(true), Some(false)]));
        assert_eq!(*by("layer"), Values::Text(vec![Some("L#0".into()), None]));
        assert_eq!(*by("android_sdk_version"), Values::Int64(vec![Some(33); 2]));
        assert_eq!(*by("android_soc_model"), Values::Text(vec![None, None]));
        assert_eq!(*by("schema_version"), Values::Int64(vec![Some(1); 2]));
    }

    #[test]
    fn a_bad_cell_or_an_unknown_column_is_an_error_that_names_it() {
        let t = TraceColumns::default();
        let e = build(Table::Frames, &rows(&[&["janky"], &["1"], &["yes"]]), &t).unwrap_err();
        let e = format!("{e:#}");
        assert!(e.contains("column janky") && e.contains("row 2"), "{e}");
        let e = build(Table::Summary, &rows(&[&["new_thing"]]), &t).unwrap_err();
        assert!(e.to_string().contains("new_thing"), "{e}");
    }
}
