#!/usr/bin/env python3
"""Jank over a fleet of traces on Dask distributed.

map: each trace, on a worker process, through the frameprobe Python package: its frames
(``frameprobe.frames``, the CLI's ``frames --format csv``) and its device and build (a query on
the ``metadata`` table). A trace frameprobe refuses becomes an error record; the job goes on.
reduce: a Dask DataFrame group-by over every frame, per app (process) x app version x device x
build: frames, janky frames, jank rate, P99 overrun, top causes of the janky frames.
out: Parquet under --out (aggregate, per-frame rows, one status row per trace) and a summary.

    python python/fleet_job.py TRACE_DIR --out OUT_DIR                  # LocalCluster, 2 workers
    python python/fleet_job.py TRACE_DIR --out OUT_DIR --scheduler tcp://HOST:8786
"""

import argparse
import os
import sys
import time
from pathlib import Path

import dask.bag as db
import pandas as pd
from dask.distributed import Client, LocalCluster

# What `frameprobe analyze DIR` picks up in a directory, compressed or not.
TRACE_SUFFIXES = (".perfetto-trace", ".pftrace", ".pb")
COMPRESSED_SUFFIXES = ("", ".gz", ".zst")

KEYS = ["process", "app_version", "device", "build"]
# How many cause categories the aggregate names per group.
TOP_CAUSES = 3
UNNAMED = "<unnamed>"



def empty_frame(**dtypes):
    """An empty DataFrame with these columns and dtypes: the meta Dask needs up front."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in dtypes.items()})


FRAME_META = empty_frame(
    trace="string",
    process="string",
    app_version="string",
    device="string",
    build="string",
    sdk="Int64",
    layer="string",
    frame_id="Int64",
    janky="Int64",
    overrun_ms="float64",
    primary_cause="string",
)
STATUS_META = empty_frame(trace="string", status="string", error="string", frames="Int64")
AGGREGATE_META = empty_frame(
    traces="int64",
    frames="int64",
    janky_frames="int64",
    jank_rate_pct="float64",
    overrun_p99_ms="float64",
    top_causes="string",
)


def find_traces(root):
    """Every trace file under root, recursively, in name order."""
    suffixes = tuple(t + c for t in TRACE_SUFFIXES for c in COMPRESSED_SUFFIXES)
    found = []
    for dirpath, _, names in os.walk(root):
        found.extend(os.path.join(dirpath, n) for n in names if n.endswith(suffixes))
    return sorted(found)


def device_and_build(path):
    """Device (the fingerprint's third field: brand/product/device:release/...), the build
    fingerprint and the SDK level from the trace's metadata table; None where absent."""
    import frameprobe

    meta = frameprobe.query(
        path,
        "select name, str_value, int_value from metadata "
        "where name in ('android_build_fingerprint', 'android_sdk_version')",
    )
    values = {r.name: (r.str_value if pd.notna(r.str_value) else r.int_value) for r in meta.itertuples()}
    fingerprint = values.get("android_build_fingerprint")
    device = None
    if isinstance(fingerprint, str) and fingerprint.count("/") >= 2:
        device = fingerprint.split("/")[2].split(":")[0]
    sdk = values.get("android_sdk_version")
    return device, fingerprint, None if pd.isna(sdk) else int(sdk)


def map_trace(path):
    """One trace -> {"status": {...}, "frames": [per-frame records]}. Any failure is this
    trace's error record."""
    import frameprobe

    try:
        frames = frameprobe.frames(path)
        device, build, sdk = device_and_build(path)
    except Exception as e:  # noqa: BLE001 - every failure is the trace's, not the job's
        kind = "" if isinstance(e, frameprobe.FrameprobeError) else f"{type(e).__name__}: "
        return {"status": {"trace": path, "status": "error", "error": f"{kind}{e}", "frames": None}, "frames": []}
    rows = pd.DataFrame(
        {
            "trace": path,
            "process": frames["process"].fillna(UNNAMED).astype(str),
            # frameprobe's tables have no package list yet: the app version is unknown.
            "app_version": None,
            "device": device,
            "build": build,
            "sdk": sdk,
            "layer": frames["layer"],
            "frame_id": frames["frame_id"],
            "janky": frames["janky"],
            "overrun_ms": frames["overrun_ms"],
            "primary_cause": frames["primary_cause"],
        }
    )
    status = {"trace": path, "status": "ok", "error": None, "frames": len(rows)}
    return {"status": status, "frames": rows.to_dict("records")}


def summarise_group(g):
    """One app x version x device x build: the counts, P99 overrun (linear interpolation,
    pandas' default; frames without an overrun are left out) and the most frequent primary
    causes of its janky frames."""
    janky = g["janky"].fillna(0).astype("int64")
    causes = g.loc[janky == 1, "primary_cause"].dropna().value_counts()
    causes = causes.sort_index().sort_values(ascending=False, kind="stable").head(TOP_CAUSES)
    overrun = g["overrun_ms"].dropna()
    return pd.DataFrame(
        {
            "traces": [g["trace"].nunique()],
            "frames": [len(g)],
            "janky_frames": [int(janky.sum())],
            "jank_rate_pct": [100.0 * janky.sum() / len(g) if len(g) else 0.0],
            "overrun_p99_ms": [overrun.quantile(0.99) if len(overrun) else float("nan")],
            "top_causes": [", ".join(f"{c}={n}" for c, n in causes.items())],
        }
    ).astype(AGGREGATE_META.dtypes.to_dict())


def run(traces, out, client):
    """The job: returns (aggregate, status) as pandas DataFrames and writes them (and the
    frames) as Parquet under out."""
    partitions = max(1, min(len(traces), 4 * max(1, len(client.scheduler_info()["workers"]))))
    records = db.from_sequence(traces, npartitions=partitions).map(map_trace).persist()
    status = records.map(lambda r: r["status"]).to_dataframe(meta=STATUS_META)
    frames = records.map(lambda r: r["frames"]).flatten().to_dataframe(meta=FRAME_META)
    # Group keys may be null (an unknown app version); group on a filled copy.
    keyed = frames.assign(**{f"_{k}": frames[k].fillna("") for k in KEYS})
    aggregate = keyed.groupby([f"_{k}" for k in KEYS]).apply(
        summarise_group, meta=AGGREGATE_META, shuffle_method="tasks"
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    frames.to_parquet(out / "frames", write_index=False, overwrite=True)
    aggregate, status = client.compute([aggregate, status], sync=True)
    aggregate = aggregate.reset_index(level=len(KEYS), drop=True).reset_index()
    aggregate = aggregate.rename(columns={f"_{k}": k for k in KEYS})
    for k in KEYS:
        aggregate[k] = aggregate[k].replace("", None).astype("string")
    aggregate = aggregate.sort_values(KEYS, kind="stable").reset_index(drop=True)
    status = status.sort_values("trace").reset_index(drop=True)
    aggregate.to_parquet(out / "aggregate.parquet", index=False)
    status.to_parquet(out / "traces.parquet", index=False)
    return aggregate, status


def print_summary(aggregate, status, seconds):
    ok = int((status["status"] == "ok").sum())
    print(f"{len(status)} traces ({ok} ok, {len(status) - ok} errors) in {seconds:.1f} s")
    with pd.option_context("display.max_rows", 50, "display.width", 200, "display.max_colwidth", 60):
        shown = aggregate.sort_values("janky_frames", ascending=False, kind="stable")
        print(shown.drop(columns=["build"]).to_string(index=False))
    for r in status[status["status"] == "error"].itertuples():
        print(f"error: {r.error}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("traces", help="directory of traces (searched recursively)")
    p.add_argument("--out", required=True, help="output directory for the Parquet files")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    p.add_argument("--threads-per-worker", type=int, default=1, help="LocalCluster threads per worker (default 1)")
    a = p.parse_args(argv)
    traces = find_traces(a.traces)
    if not traces:
        print(f"error: no traces under {a.traces}", file=sys.stderr)
        return 2
    start = time.monotonic()
    if a.scheduler:
        client = Client(a.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(
            n_workers=a.workers, threads_per_worker=a.threads_per_worker, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        aggregate, status = run(traces, a.out, client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    print_summary(aggregate, status, time.monotonic() - start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
