"""frameprobe for Python: the CLI's single-trace commands as pandas DataFrames.

Each function runs the same Rust code path as the matching CLI command (with the GIL
released), so the rows, columns and numbers are the CLI's and a trace the CLI refuses raises
FrameprobeError with the message the CLI prints after ``error: ``. Loader warnings (damage
after a good prefix) are issued as Python warnings.
"""

import io
import json
import os
import warnings
from typing import Iterable, Optional, Union

import pandas as pd

from ._native import FrameprobeError
from . import _native

__all__ = ["FrameprobeError", "frames", "analyze", "analyze_json", "query"]

PathLike = Union[str, "os.PathLike[str]"]


def _warn(path: PathLike, messages: Iterable[str]) -> None:
    for m in messages:
        warnings.warn(f"{os.fspath(path)}: {m}", stacklevel=3)


def _read_cli_csv(text: str) -> pd.DataFrame:
    # Only an empty field is missing: a process called "NA" or "null" stays a name.
    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])


def frames(
    path: PathLike,
    process: Union[None, str, int, Iterable[Union[str, int]]] = None,
    janky: bool = False,
) -> pd.DataFrame:
    """One row per frame: ``frameprobe frames PATH [--process P]... [--janky] --format csv``.

    ``process`` is a name glob or a pid, or several of them.
    """
    if process is None:
        processes = []
    elif isinstance(process, (str, int)):
        processes = [str(process)]
    else:
        processes = [str(p) for p in process]
    text, warns = _native.frames_csv(os.fspath(path), processes, bool(janky))
    _warn(path, warns)
    return _read_cli_csv(text)


def analyze(path: PathLike) -> pd.DataFrame:
    """One row per process and layer: ``frameprobe analyze PATH --format csv``."""
    text, warns = _native.analyze_csv(os.fspath(path))
    _warn(path, warns)
    return _read_cli_csv(text)


def analyze_json(path: PathLike) -> dict:
    """The whole report: ``frameprobe analyze PATH --format json``."""
    text, warns = _native.analyze_json(os.fspath(path))
    _warn(path, warns)
    return json.loads(text)


def query(path: PathLike, sql: str, ftrace_raw: bool = True) -> pd.DataFrame:
    """``frameprobe query PATH SQL``: the last statement's rows, over tables shaped like
    trace_processor's. ``ftrace_raw=False`` is the CLI's ``--no-ftrace-raw``. The SQL can read
    and change the in-memory tables but not write files."""
    names, columns, warns = _native.query_columns(os.fspath(path), sql, bool(ftrace_raw))
    _warn(path, warns)
    # Columns by position: SQL may give two columns the same name.
    df = pd.DataFrame({i: _column(c) for i, c in enumerate(columns)}, columns=range(len(names)))
    df.columns = names
    return df


def _column(cells: list) -> pd.Series:
    """SQLite cells as a Series: integers as Int64 (nullable), reals as float64, text as
    strings; a column that mixes kinds stays object."""
    kinds = {type(c) for c in cells if c is not None}
    if kinds == {int}:
        return pd.Series(pd.array(cells, dtype="Int64"))
    if kinds and kinds <= {int, float}:
        return pd.Series([float("nan") if c is None else float(c) for c in cells], dtype="float64")
    if kinds == {str}:
        return pd.Series(cells, dtype="string")
    return pd.Series(cells, dtype="object")
