"""Helpers shared by the Python tests, as tests/common does for the Rust ones: the reference
material in ../shared is optional (a test that needs it skips with the reason) except under
CI=true, where its absence fails the test."""

import io
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]


def in_ci():
    return os.environ.get("CI", "") not in ("", "false", "0")


def skip_or_fail(why):
    if in_ci():
        pytest.fail(f"{why} (CI=true: reference material must be present)")
    pytest.skip(why)


def shared_root():
    return Path(os.environ.get("FRAMEPROBE_SHARED", REPO.parent / "shared"))


def real_traces():
    """The real device traces in ../shared/traces, in name order (empty when absent)."""
    d = shared_root() / "traces"
    return sorted(d.glob("*.perfetto-trace")) if d.is_dir() else []


def need_real_traces():
    traces = real_traces()
    if not traces:
        skip_or_fail(f"no real traces in {shared_root() / 'traces'}")
    return traces


def cli_bin():
    """The CLI the package is compared with: FRAMEPROBE_BIN, else target/release/frameprobe."""
    b = Path(os.environ.get("FRAMEPROBE_BIN", REPO / "target" / "release" / "frameprobe"))
    if not b.exists():
        skip_or_fail(f"{b} is not built (cargo build --release)")
    return b


def run_cli(*args):
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    p = subprocess.run([str(cli_bin()), *map(str, args)], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    return p.returncode, p.stdout, p.stderr


def cli_error(stderr):
    """The message the CLI printed after `error: ` (the text FrameprobeError carries)."""
    lines = stderr.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("error: "))
    return "\n".join(lines[start:])[len("error: "):]


def read_cli_csv(text):
    """CLI CSV as the package reads it: only an empty field is missing."""
    return pd.read_csv(io.StringIO(text), keep_default_na=False, na_values=[""])
