#!/usr/bin/env bash
# The Python side of CI, run inside an activated venv that has maturin, pandas, pyarrow,
# dask[distributed,dataframe] and pytest: builds the abi3 wheel (into the workspace's
# target/wheels, reusing target/), installs it, runs python/tests, then runs the Dask job
# once on a 200-trace directory. Prints the wheel build time and the job's wall time.
#
#   scripts/python-ci.sh [SHARED_DIR=../shared]
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${1:-${FRAMEPROBE_SHARED:-../shared}}
seconds_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
[[ -n ${VIRTUAL_ENV:-} ]] || { echo "python-ci: activate the venv first" >&2; exit 2; }

start=$(date +%s%N)
maturin build --release --locked -m crates/frameprobe-py/Cargo.toml --out target/wheels
wheel=$(ls -t target/wheels/frameprobe-*-abi3-*.whl | head -n 1)
echo "python-ci: wheel $wheel built in $(seconds_since "$start") s"
pip install --quiet --no-deps --force-reinstall "$wheel"

# The tests compare with the CLI.
[[ -x target/release/frameprobe ]] || cargo build --release --locked
FRAMEPROBE_SHARED=$shared python -m pytest -q python/tests

if [[ -d $shared/traces ]]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  scripts/fleet-dir.sh "$shared/traces" "$tmp/traces" 200 3
  start=$(date +%s%N)
  python python/fleet_job.py "$tmp/traces" --out "$tmp/out" --workers 2 --threads-per-worker 1
  echo "python-ci: Dask job on 200 traces: $(seconds_since "$start") s wall"
elif [[ ${CI:-} == true ]]; then
  echo "python-ci: no traces in $shared/traces" >&2; exit 1
else
  echo "python-ci: skipping the Dask job run: no traces in $shared/traces" >&2
fi
