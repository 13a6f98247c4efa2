#!/usr/bin/env bash
# Instructions retired by `analyze TRACE --format json` for each binary, counted by valgrind's
# cachegrind: a measure that, unlike wall or CPU time, does not move with a shared host's
# load, for comparing two builds of a change that removes work (docs/speed.md, "CPU,
# twenty-third round"). The importers' second thread makes the count vary by a few tenths
# of a percent between runs. About 25 s per binary on the 202 MB workload.
#
#     scripts/instructions.sh TRACE BIN [BIN...]
set -euo pipefail
trace=${1:?usage: instructions.sh TRACE BIN [BIN...]}
shift
command -v valgrind >/dev/null || { echo "instructions.sh: needs valgrind (apt-get install valgrind)" >&2; exit 3; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for bin in "$@"; do
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out/cg.out" \
    "$bin" analyze "$trace" --format json >/dev/null 2>"$out/err"
  refs=$(sed -n 's/.*I *refs: *//p' "$out/err")
  echo "$bin: $refs instructions"
done
