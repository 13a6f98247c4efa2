#!/usr/bin/env bash
# A directory of many traces for fleet tests and benchmarks: copies of the traces in SRC,
# renamed and spread over per-device subdirectories, every tenth one gzip-compressed, plus
# CORRUPT files that no reader can import (text, empty, a wrong first byte).
#
#   scripts/fleet-dir.sh SRC_DIR OUT_DIR [COUNT=200] [CORRUPT=3]
#
# COUNT includes the corrupt files. The layout is deterministic: the same inputs give the
# same names and bytes.
set -euo pipefail
src=${1:?SRC_DIR}; out=${2:?OUT_DIR}; count=${3:-200}; corrupt=${4:-3}
mapfile -t traces < <(find "$src" -maxdepth 1 -type f \( -name '*.perfetto-trace' -o -name '*.pftrace' \) | sort)
((${#traces[@]})) || { echo "no *.perfetto-trace or *.pftrace in $src" >&2; exit 2; }
((count >= corrupt)) || { echo "COUNT ($count) is smaller than CORRUPT ($corrupt)" >&2; exit 2; }
mkdir -p "$out"
good=$((count - corrupt))
for ((i = 0; i < good; i++)); do
  t=${traces[$((i % ${#traces[@]}))]}
  dir="$out/device-$((i % 4))"
  mkdir -p "$dir"
  name=$(printf 'trace-%04d' "$i")
  if ((i % 10 == 9)); then
    gzip -c -n "$t" > "$dir/$name.perfetto-trace.gz"
  else
    cp "$t" "$dir/$name.perfetto-trace"
  fi
done
mkdir -p "$out/broken"
for ((j = 0; j < corrupt; j++)); do
  f="$out/broken/$(printf 'corrupt-%02d' "$j").perfetto-trace"
  case $((j % 3)) in
    0) echo "this is not a Perfetto trace" > "$f" ;;
    1) : > "$f" ;;
    2) printf '\x0e\x01\x02\x03\x04\x05\x06\x07' > "$f" ;;
  esac
done
echo "$count files in $out ($corrupt corrupt)" >&2
