"""The Python package gives the CLI's rows, numbers and error messages. Every expected value
is the CLI's own output (target/release/frameprobe) on the same file, read by pandas."""

import json

import numpy as np
import pandas as pd
import pytest

import frameprobe
from conftest import cli_error, need_real_traces, read_cli_csv, real_traces, run_cli

# One id per real trace; a single placeholder when ../shared is absent, so the test reports
# the skip (or fails under CI=true) instead of silently collecting nothing.
TRACES = [t.name for t in real_traces()] or ["<no real traces>"]

QUERY = (
    "select name, count(*) as n, sum(dur) as total_dur, avg(dur) as mean_dur, "
    "min(depth) as min_depth from slice group by name order by n desc, name limit 25"
)


def trace_path(name):
    return next(t for t in need_real_traces() if t.name == name)


def cli_csv(*args):
    code, out, err = run_cli(*args, "--format", "csv")
    assert code == 0, err
    return read_cli_csv(out)


@pytest.mark.parametrize("name", TRACES)
@pytest.mark.parametrize("command", ["frames", "analyze"])
def test_dataframe_equals_cli_csv(command, name):
    t = trace_path(name)
    pd.testing.assert_frame_equal(getattr(frameprobe, command)(str(t)), cli_csv(command, t))


@pytest.mark.parametrize("name", TRACES)
def test_janky_frames_of_the_busiest_process_equal_cli_csv(name):
    t = trace_path(name)
    busiest = int(frameprobe.frames(t)["pid"].value_counts().idxmax())
    code, out, err = run_cli("frames", t, "--process", busiest, "--janky", "--format", "csv")
    if code != 0:
        # No janky frame: the CLI's error is the package's.
        with pytest.raises(frameprobe.FrameprobeError) as e:
            frameprobe.frames(t, process=busiest, janky=True)
        assert str(e.value) == cli_error(err)
        return
    got = frameprobe.frames(t, process=busiest, janky=True)
    pd.testing.assert_frame_equal(got, read_cli_csv(out))
    assert (got["janky"] == 1).all()


@pytest.mark.parametrize("name", TRACES)
def test_analyze_json_equals_cli_json(name):
    t = trace_path(name)
    code, out, err = run_cli("analyze", t, "--format", "json")
    assert code == 0, err
    assert frameprobe.analyze_json(str(t)) == json.loads(out)


@pytest.mark.parametrize("name", TRACES)
def test_query_equals_cli_csv(name):
    t = trace_path(name)
    got = frameprobe.query(t, QUERY)
    want = cli_csv("query", t, QUERY)
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for c in ["name", "n", "total_dur", "min_depth"]:
        assert got[c].astype(object).tolist() == want[c].astype(object).tolist(), c
    # The CLI prints reals as %f (six decimals), the package keeps SQLite's double.
    np.testing.assert_allclose(got["mean_dur"].to_numpy(float), want["mean_dur"].to_numpy(float), atol=5e-7)


def test_dtypes_are_numbers_not_text():
    t = need_real_traces()[-1]
    f = frameprobe.frames(t)
    assert f["ts"].dtype == "int64" and f["pid"].dtype == "int64"
    assert f["dur_ms"].dtype == "float64"
    q = frameprobe.query(t, "select 1 as i, 1.5 as r, 'x' as s, null as z, x'00ff' as b")
    assert str(q["i"].dtype) == "Int64" and q["r"].dtype == "float64" and str(q["s"].dtype) == "string"
    assert q.loc[0, "b"] == b"\x00\xff" and q.loc[0, "z"] is None


@pytest.mark.parametrize(
    "content",
    [b"this is not a Perfetto trace\n", b"", b"\x0e\x01\x02\x03\x04\x05\x06\x07"],
    ids=["text", "empty", "wrong-first-byte"],
)
@pytest.mark.parametrize("call", ["frames", "analyze", "analyze_json"])
def test_corrupt_file_raises_the_cli_message(tmp_path, content, call):
    bad = tmp_path / "corrupt.perfetto-trace"
    bad.write_bytes(content)
    command = "frames" if call == "frames" else "analyze"
    code, _, err = run_cli(command, bad, "--format", "csv")
    assert code == 2
    with pytest.raises(frameprobe.FrameprobeError) as e:
        getattr(frameprobe, call)(str(bad))
    assert str(e.value) == cli_error(err)
    assert isinstance(e.value, Exception)


def test_query_error_raises_the_cli_message():
    t = need_real_traces()[0]
    sql = "select * from no_such_table"
    code, _, err = run_cli("query", t, sql, "--format", "csv")
    assert code == 2
    with pytest.raises(frameprobe.FrameprobeError) as e:
        frameprobe.query(t, sql)
    assert str(e.value) == cli_error(err)


def test_missing_file_raises_the_cli_message(tmp_path):
    missing = tmp_path / "nope.perfetto-trace"
    _, _, err = run_cli("analyze", missing)
    with pytest.raises(frameprobe.FrameprobeError) as e:
        frameprobe.analyze(missing)
    assert str(e.value) == cli_error(err)
