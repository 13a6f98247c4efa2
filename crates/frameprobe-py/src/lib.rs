//! `frameprobe._native`: the library's single-trace commands for Python. Each function runs
//! the code path the CLI runs (`frameprobe::single_trace`) with the GIL released and hands
//! back the CLI's CSV / JSON text or the query's typed cells; the pure-Python package
//! `frameprobe` turns them into pandas DataFrames.

use std::path::PathBuf;

use frameprobe::analysis::report_model::AnalyzeReport;
use frameprobe::analysis::AnalyzeOptions;
use frameprobe::report::analyze_csv as csv_rows;
use frameprobe::single_trace::{self, query};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use pyo3::IntoPyObjectExt;
use rusqlite::types::Value;

pyo3::create_exception!(
    frameprobe,
    FrameprobeError,
    PyException,
    "A trace frameprobe cannot read or analyze; the message is the CLI's."
);

/// The CLI prints `error: {e:#}`; Python gets the same text.
fn to_py(e: anyhow::Error) -> PyErr {
    FrameprobeError::new_err(format!("{e:#}"))
}

/// The options of `frameprobe analyze` / `frames` with no flags but these.
fn options(processes: Vec<String>, all_frames: bool, only_janky: bool) -> AnalyzeOptions {
    AnalyzeOptions {
        processes,
        layer: None,
        // analyze's `--top` default; frames lists every frame instead.
        top: if all_frames { 0 } else { 5 },
        all_frames,
        only_janky,
        range: Default::default(),
        interactions: Default::default(),
    }
}

/// Text the CLI prints for a trace and the loader's warnings.
type Rendered = (String, Vec<String>);

/// Analyzes one trace as the CLI does (without the GIL) and renders the report.
fn analyzed(
    py: Python<'_>,
    path: PathBuf,
    opts: AnalyzeOptions,
    render: impl FnOnce(&AnalyzeReport) -> anyhow::Result<String> + Send,
) -> PyResult<Rendered> {
    py.detach(|| {
        let done = single_trace::analyze_one(&path, &opts)?;
        Ok((render(&done.report)?, done.load_warnings))
    })
    .map_err(to_py)
}

/// `frameprobe frames PATH [--process P]... [--janky] --format csv`.
#[pyfunction]
#[pyo3(signature = (path, processes, janky))]
fn frames_csv(
    py: Python<'_>,
    path: PathBuf,
    processes: Vec<String>,
    janky: bool,
) -> PyResult<Rendered> {
    analyzed(py, path, options(processes, true, janky), |r| {
        Ok(csv_rows::frames_csv(r))
    })
}

/// `frameprobe analyze PATH --format csv`.
#[pyfunction]
fn analyze_csv(py: Python<'_>, path: PathBuf) -> PyResult<Rendered> {
    analyzed(py, path, options(Vec::new(), false, false), |r| {
        Ok(csv_rows::layers_csv(r))
    })
}

/// `frameprobe analyze PATH --format json`.
#[pyfunction]
fn analyze_json(py: Python<'_>, path: PathBuf) -> PyResult<Rendered> {
    analyzed(py, path, options(Vec::new(), false, false), |r| {
        Ok(serde_json::to_string(r)?)
    })
}

/// Column names, one list of cells per column, the loader's warnings.
type Columns = (Vec<String>, Vec<Vec<Py<PyAny>>>, Vec<String>);

/// `frameprobe query PATH SQL`, cells as SQLite typed them (None, int, float, str, bytes).
#[pyfunction]
#[pyo3(signature = (path, sql, ftrace_raw))]
fn query_columns(
    py: Python<'_>,
    path: PathBuf,
    sql: String,
    ftrace_raw: bool,
) -> PyResult<Columns> {
    let opts = query::QueryOptions {
        ftrace_raw,
        allow_writes: false,
    };
    let (rs, warnings) = py
        .detach(|| {
            let loaded = query::load_for_query(&path, &sql, opts)?;
            let store = std::sync::Arc::new(loaded.store);
            Ok((query::run_query(store, &sql, opts)?, loaded.warnings))
        })
        .map_err(to_py)?;
    let mut columns: Vec<Vec<Py<PyAny>>> = rs
        .columns
        .iter()
        .map(|_| Vec::with_capacity(rs.rows.len()))
        .collect();
    for row in rs.rows {
        for (column, v) in columns.iter_mut().zip(row) {
            column.push(cell(py, v)?);
        }
    }
    Ok((rs.columns, columns, warnings))
}

fn cell(py: Python<'_>, v: Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Null => Ok(py.None()),
        Value::Integer(i) => i.into_py_any(py),
        Value::Real(r) => r.into_py_any(py),
        Value::Text(t) => t.into_py_any(py),
        Value::Blob(b) => Ok(PyBytes::new(py, &b).into_any().unbind()),
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("FrameprobeError", m.py().get_type::<FrameprobeError>())?;
    m.add_function(wrap_pyfunction!(frames_csv, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_csv, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add_function(wrap_pyfunction!(query_columns, m)?)?;
    Ok(())
}
