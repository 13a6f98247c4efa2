"""The Dask job over a 200-trace directory (scripts/fleet-dir.sh: copies of the real traces,
every tenth gzip-compressed, 3 corrupt files in broken/). Expected values come from the CLI
(target/release/frameprobe) run on each file: `analyze --format json` for frames, janky frames
(`causes.janky_frames`) and causes (`primary_frames`), `frames --format csv` for the overruns
(P99 by numpy's linear interpolation), `query` on the metadata table for device and build,
and the CLI's `error:` line for each corrupt file. Copies give the same results, so the CLI
runs once per distinct file content."""

import collections
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, cli_error, need_real_traces, read_cli_csv, run_cli, shared_root

sys.path.insert(0, str(REPO / "python"))
import fleet_job  # noqa: E402

METADATA_SQL = (
    "select name, str_value, int_value from metadata "
    "where name in ('android_build_fingerprint', 'android_sdk_version')"
)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    need_real_traces()
    root = tmp_path_factory.mktemp("fleet")
    traces, out = root / "traces", root / "out"
    subprocess.run(["bash", str(REPO / "scripts/fleet-dir.sh"), str(shared_root() / "traces"), str(traces), "200", "3"], check=True)
    p = subprocess.run(
        [sys.executable, str(REPO / "python/fleet_job.py"), str(traces), "--out", str(out), "--workers", "2", "--threads-per-worker", "1"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-4000:]
    return traces, out, p.stdout


def cli_results(path, cache):
    """What the CLI says about one file: ("error", message) or ("ok", report, frames, meta)."""
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if key not in cache:
        code, out, err = run_cli("analyze", path, "--format", "json")
        if code != 0:
            cache[key] = ("error", cli_error(err))
        else:
            report = json.loads(out)
            _, frames_csv, _ = run_cli("frames", path, "--format", "csv")
            frames = read_cli_csv(frames_csv)
            _, meta_csv, _ = run_cli("query", path, METADATA_SQL, "--format", "csv")
            meta = read_cli_csv(meta_csv)
            values = {r.name: r.str_value for r in meta.itertuples() if isinstance(r.str_value, str)}
            fingerprint = values.get("android_build_fingerprint")
            device = fingerprint.split("/")[2].split(":")[0] if fingerprint else None
            cache[key] = ("ok", report, frames, (device, fingerprint))
    return cache[key]


def expected(traces_dir):
    """(aggregate rows keyed by app x version x device x build, {file: error message})."""
    cache, groups, errors = {}, {}, {}
    for path in fleet_job.find_traces(traces_dir):
        r = cli_results(Path(path), cache)
        if r[0] == "error":
            # The CLI names the file it was given; the job names the same path.
            errors[path] = r[1]
            continue
        _, report, frames, (device, build) = r
        for proc in report["processes"]:
            key = (proc["name"] or fleet_job.UNNAMED, None, device, build)
            g = groups.setdefault(key, {"traces": set(), "frames": 0, "janky": 0, "causes": collections.Counter(), "overruns": []})
            g["traces"].add(path)
            g["frames"] += proc["frames"]
            causes = proc["causes"] or {}
            g["janky"] += causes.get("janky_frames", 0)
            for c in causes.get("top_by_frames", []):
                g["causes"][c["category"]] += c["primary_frames"]
            g["overruns"].extend(frames.loc[frames["pid"] == proc["pid"], "overrun_ms"].dropna())
    return groups, errors


def test_aggregate_equals_the_clis_per_trace_sums(fleet):
    traces, out, _ = fleet
    groups, _ = expected(traces)
    got = pd.read_parquet(out / "aggregate.parquet")
    assert len(got) == len(groups)
    for row in got.itertuples():
        key = (row.process, None if pd.isna(row.app_version) else row.app_version, row.device, row.build)
        want = groups[key]
        assert row.traces == len(want["traces"]), key
        assert row.frames == want["frames"], key
        assert row.janky_frames == want["janky"], key
        assert row.jank_rate_pct == pytest.approx(100.0 * want["janky"] / want["frames"]), key
        if want["overruns"]:
            assert row.overrun_p99_ms == pytest.approx(np.percentile(want["overruns"], 99)), key
        else:
            assert pd.isna(row.overrun_p99_ms), key
        top = sorted(((c, n) for c, n in want["causes"].items() if n > 0), key=lambda cn: (-cn[1], cn[0]))[: fleet_job.TOP_CAUSES]
        assert row.top_causes == ", ".join(f"{c}={n}" for c, n in top), key
    # Nothing is lost: every frame of every good trace is in the table.
    assert got["frames"].sum() == sum(g["frames"] for g in groups.values())


def test_exactly_the_corrupt_files_are_error_records(fleet):
    traces, out, stdout = fleet
    _, errors = expected(traces)
    status = pd.read_parquet(out / "traces.parquet")
    assert len(status) == 200
    failed = status[status["status"] == "error"]
    assert sorted(failed["trace"]) == sorted(errors)
    assert len(errors) == 3 and all("/broken/" in t for t in errors)
    for r in failed.itertuples():
        assert r.error == errors[r.trace]
    assert "200 traces (197 ok, 3 errors)" in stdout


def test_frames_parquet_holds_every_frame(fleet):
    traces, out, _ = fleet
    frames = pd.read_parquet(out / "frames")
    status = pd.read_parquet(out / "traces.parquet")
    assert len(frames) == status["frames"].sum()
    assert frames["trace"].nunique() == 197
