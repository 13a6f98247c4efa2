//! Typed columns to one Parquet file: one row group, zstd pages, every column optional (null
//! where the CSV cell is empty), the schema version in the key-value metadata.

use std::io::Write;
use std::sync::Arc;

use anyhow::{Context, Result};
use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DataType, DoubleType, Int64Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::{SerializedColumnWriter, SerializedFileWriter};
use parquet::schema::types::Type;

use super::columns::{Column, Values};
use super::schema::SCHEMA_VERSION;
use super::Table;

/// The metadata key readers check before trusting the columns.
pub const VERSION_KEY: &str = "frameprobe.schema_version";

pub fn write(out: impl Write + Send, table: Table, cols: &[Column]) -> Result<()> {
    let fields = cols
        .iter()
        .map(|c| field(c).map(Arc::new))
        .collect::<Result<Vec<_>>>()?;
    let schema = Type::group_type_builder(&format!("frameprobe_{}", table.name()))
        .with_fields(fields)
        .build()?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(Default::default()))
        .set_key_value_metadata(Some(vec![
            KeyValue::new(VERSION_KEY.into(), SCHEMA_VERSION.to_string()),
            KeyValue::new("frameprobe.table".into(), table.name().to_string()),
            KeyValue::new(
                "frameprobe.version".into(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
        ]))
        .build();
    let mut w = SerializedFileWriter::new(out, Arc::new(schema), Arc::new(props))?;
    let mut group = w.next_row_group()?;
    for c in cols {
        let mut cw = group
            .next_column()?
            .context("the Parquet writer has fewer columns than the schema")?;
        put_column(&mut cw, &c.values).with_context(|| format!("writing column {}", c.name))?;
        cw.close()?;
    }
    group.close()?;
    w.close().context("finishing the Parquet file")?;
    Ok(())
}

fn field(c: &Column) -> Result<Type> {
    let (physical, logical) = match c.values {
        Values::Int64(_) => (Physical::INT64, None),
        Values::Double(_) => (Physical::DOUBLE, None),
        Values::Boolean(_) => (Physical::BOOLEAN, None),
        Values::Text(_) => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
    };
    Ok(Type::primitive_type_builder(&c.name, physical)
        .with_repetition(Repetition::OPTIONAL)
        .with_logical_type(logical)
        .build()?)
}

fn put_column(w: &mut SerializedColumnWriter<'_>, v: &Values) -> Result<()> {
    match v {
        Values::Int64(v) => put::<Int64Type>(w, v.iter().copied()),
        Values::Double(v) => put::<DoubleType>(w, v.iter().copied()),
        Values::Boolean(v) => put::<BoolType>(w, v.iter().copied()),
        Values::Text(v) => put::<ByteArrayType>(
            w,
            v.iter()
                .map(|s| s.as_ref().map(|s| ByteArray::from(s.as_bytes().to_vec()))),
        ),
    }
}

/// Optional values: definition level 1 where present, 0 for null; only present values are
/// stored.
fn put<T: DataType>(
    w: &mut SerializedColumnWriter<'_>,
    cells: impl Iterator<Item = Option<T::T>>,
) -> Result<()> {
    let (mut defs, mut present) = (Vec::new(), Vec::new());
    for c in cells {
        defs.push(i16::from(c.is_some()));
        present.extend(c);
    }
    w.typed::<T>().write_batch(&present, Some(&defs), None)?;
    Ok(())
}
