#!/usr/bin/env bash
# Builds target/pgo/use/release/frameprobe: the release binary, optimised a second time with
# a profile of its own runs (profile-guided optimisation). The profile comes from traces
# repeated by frameprobe-bench: the sample trace in testdata/ (so a fresh clone can build
# it), and the api35 device trace the benchmark repeats when ../shared is beside the repo.
# x60 `analyze`: 17% less wall time than the plain release build with both, 11% with the
# sample alone (docs/speed.md, "CPU, eighteenth round"); the output is the same.
#
#     scripts/build-pgo.sh            # then: target/pgo/use/release/frameprobe analyze ...
#
# Needs llvm-profdata from the toolchain's own LLVM (rustup's llvm-tools component, added
# here when missing). Exits 3 when it cannot be had.
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  echo "== adding rustup's llvm-tools (llvm-profdata matching rustc's LLVM)"
  if ! rustup component add llvm-tools >/dev/null 2>&1 || [ ! -x "$profdata" ]; then
    echo "build-pgo: llvm-profdata is unavailable (rustup component add llvm-tools failed); no PGO build" >&2
    exit 3
  fi
fi

root="$PWD/target/pgo"
data="$root/data"
rm -rf "$data" "$root/train"
mkdir -p "$data"

echo "== instrumented build"
RUSTFLAGS="-Cprofile-generate=$data" \
  cargo build --release --locked --bin frameprobe --target-dir "$root/gen"

echo "== training runs"
cargo build --release --locked -p frameprobe-tools --bin frameprobe-bench
target/release/frameprobe-bench --trace testdata/scroll_60hz.perfetto-trace \
  --copies 30 --only-generate --dir "$root/train/sample" >/dev/null
device=../shared/traces/androidx_api35_startup_cold_classinit.perfetto-trace
if [ -f "$device" ]; then
  target/release/frameprobe-bench --trace "$device" \
    --copies 6 --only-generate --dir "$root/train/device" >/dev/null
else
  echo "($device is absent: training on the sample trace alone)"
fi
gen="$root/gen/release/frameprobe"
for trace in testdata/scroll_60hz.perfetto-trace "$root"/train/*/*.perfetto-trace; do
  "$gen" analyze "$trace" --format json >/dev/null
  "$gen" analyze "$trace" >/dev/null
  "$gen" frames "$trace" --janky >/dev/null
  "$gen" query "$trace" "select count(*) from slice" >/dev/null
  "$gen" query "$trace" "select count(*) from thread_state" >/dev/null
done
"$profdata" merge -o "$root/merged.profdata" "$data"

echo "== optimised build"
RUSTFLAGS="-Cprofile-use=$root/merged.profdata" \
  cargo build --release --locked --bin frameprobe --target-dir "$root/use"
echo "built $root/use/release/frameprobe"
