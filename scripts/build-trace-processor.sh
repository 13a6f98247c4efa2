#!/usr/bin/env bash
# Builds trace_processor_shell from a Perfetto source tree for `frameprobe-bench --tp`, on a
# machine that cannot download Perfetto's own toolchain and third-party sources
# (tools/install-build-deps). It uses Debian's gn, ninja, compiler and protobuf, the system
# zlib, and the SQLite amalgamation that rusqlite's libsqlite3-sys keeps in the cargo registry
# (run `cargo build` first). Importers that need other third-party sources (zstd, re2, expat
# for Instruments, LLVM demangling, ETM) are left out; none of them reads an Android trace.
#
#   git clone -b v58.2 https://github.com/google/perfetto /path/to/perfetto
#   scripts/build-trace-processor.sh /path/to/perfetto [OUT] [clang|gcc]
#
# Writes OUT/trace_processor_shell (stripped; default OUT: bench-out/tp). The source tree is
# modified: buildtools/sqlite is filled in and an out/frameprobe-<compiler> build dir is made.
# About 20 minutes on two cores.
set -euo pipefail

src=${1:?usage: build-trace-processor.sh PERFETTO_SRC [OUT] [clang|gcc]}
out=$(realpath -m "${2:-bench-out/tp}")
compiler=${3:-clang}

need=(generate-ninja ninja-build libprotobuf-dev protobuf-compiler libprotoc-dev pkg-config zlib1g-dev)
[ "$compiler" = clang ] && need+=(clang)
missing=()
for p in "${need[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi

amalgamation=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*/libsqlite3-sys-*/sqlite3/sqlite3.c' 2>/dev/null | sort -V | tail -1)
[ -n "$amalgamation" ] || { echo "no SQLite amalgamation in the cargo registry: run cargo build first" >&2; exit 1; }
mkdir -p "$src/buildtools/sqlite" "$src/buildtools/sqlite_src/ext/misc"
cp "$(dirname "$amalgamation")"/sqlite3{.c,.h,ext.h} "$src/buildtools/sqlite/"
# The percentile extension comes from SQLite's full sources; it is switched off below, but
# the sqlite target still lists the file.
pct="$src/buildtools/sqlite_src/ext/misc/percentile.c"
[ -f "$pct" ] || echo "/* percentile extension disabled (enable_perfetto_trace_processor_percentile=false) */" > "$pct"

build="$src/out/frameprobe-$compiler"
mkdir -p "$build"
is_clang=false
[ "$compiler" = clang ] && is_clang=true
cat > "$build/args.gn" <<EOF
is_debug = false
is_clang = $is_clang
is_hermetic_clang = false
use_custom_libcxx = false
skip_buildtools_check = true
perfetto_use_system_protobuf = true
perfetto_use_system_zlib = true
perfetto_enable_git_rev_version_header = false
enable_perfetto_zstd = false
enable_perfetto_re2 = false
enable_perfetto_llvm_demangle = false
enable_perfetto_etm_importer = false
enable_perfetto_trace_processor_linenoise = false
enable_perfetto_trace_processor_httpd = false
enable_perfetto_trace_processor_percentile = false
enable_perfetto_trace_processor_mac_instruments = false
enable_perfetto_ui = false
enable_perfetto_unittests = false
enable_perfetto_integration_tests = false
enable_perfetto_benchmarks = false
enable_perfetto_heapprofd = false
enable_perfetto_traced_perf = false
enable_perfetto_tools = false
enable_perfetto_grpc = false
EOF
(cd "$src" && gn gen "$build" && ninja -C "$build" trace_processor_shell)
mkdir -p "$out"
strip -o "$out/trace_processor_shell" "$build/trace_processor_shell"
"$out/trace_processor_shell" --version
echo "built $out/trace_processor_shell; compare with: frameprobe-bench --tp $out/trace_processor_shell" >&2
