#!/usr/bin/env bash
# Mutation testing of the modules that encode frameprobe's rules (cargo-mutants).
#
#   scripts/mutants.sh                 every module below
#   scripts/mutants.sh jank clock      only those (names from the table)
#   scripts/mutants.sh --list          the table
#
# Each module runs in two passes in place (the working tree is restored after every mutant):
# first against the library's unit tests, then the mutants still alive against the
# integration tests that exercise that module. Results go to mutants.out/<module>/ and a
# summary (caught / missed / unviable / timeout, and the share of viable mutants caught) is
# printed at the end. Needs `cargo install cargo-mutants`; it takes hours for the whole table
# on two cores, so run it per module after changing one.
set -euo pipefail
cd "$(dirname "$0")/.."

# name | source files | integration tests run in the second pass
MODULES=(
  "frame_timeline|src/import/frame_timeline.rs|frame_timeline_tags seed_sql_frame_timeline frame_timeline_real_traces oracle_frame_timeline"
  "jank|src/analysis/jank.rs src/trace/frame_timeline_vocab.rs|frame_timeline_tags"
  "frames|src/analysis/frames.rs src/analysis/frame_model.rs|analyze_synthetic"
  "macrobenchmark|src/analysis/macrobenchmark.rs|process_identity_real_traces"
  "frame_timing|src/analysis/frame_timing.rs|process_identity_real_traces"
  "jank_tracker|src/gfxinfo/jank_tracker.rs src/gfxinfo/jank_tracker/*.rs src/gfxinfo/jank_type.rs|gfxinfo_cli"
  "frame_info|src/gfxinfo/frame_info.rs|gfxinfo_cli"
  "compare|src/gate/compare.rs|gate_cli"
  "metrics|src/gate/metrics.rs|gate_cli"
  "clock|src/trace/clock.rs|ftrace_clock"
  "sort|src/trace/sort.rs|sorter_windows"
  "cause_categories|src/analysis/causes/categories.rs|causes_synthetic"
)

if [[ "${1:-}" == "--list" ]]; then
  printf '%s\n' "${MODULES[@]}" | column -t -s '|'
  exit 0
fi
command -v cargo-mutants >/dev/null || { echo "cargo-mutants is not installed: cargo install cargo-mutants" >&2; exit 2; }
if ! git diff --quiet -- src; then
  echo "src/ has uncommitted changes: mutants run in place, commit or stash them first" >&2
  exit 2
fi

wanted=("$@")
out=mutants.out
mkdir -p "$out"
common=(--in-place --baseline skip --profile mutants --timeout 120 --build-timeout 900 --no-shuffle)

# Lines in a cargo-mutants list (0 when the file is absent or empty).
count() { if [[ -f "$1" ]]; then grep -c . "$1" || true; else echo 0; fi; }

summary=()
for row in "${MODULES[@]}"; do
  IFS='|' read -r name files tests <<<"$row"
  if ((${#wanted[@]})) && [[ ! " ${wanted[*]} " == *" $name "* ]]; then continue; fi
  fargs=()
  for f in $files; do fargs+=(-f "$f"); done
  dir="$out/$name"
  rm -rf "$dir"
  echo "== $name: unit tests" >&2
  cargo mutants "${common[@]}" "${fargs[@]}" -C --lib --output "$dir" || true
  if [[ -n "$tests" && -s "$dir/mutants.out/missed.txt" ]]; then
    echo "== $name: survivors against integration tests ($tests)" >&2
    targs=()
    for t in $tests; do targs+=(-C --test -C "$t"); done
    cargo mutants "${common[@]}" "${fargs[@]}" --iterate -C --lib "${targs[@]}" --output "$dir" || true
  fi
  # After a second pass, mutants.out.old holds the first pass's verdicts: the second only
  # tested the first's survivors (missed and timed out), so caught/unviable add up while
  # missed and timeout are the second pass's alone.
  m="$dir/mutants.out"
  o="$dir/mutants.out.old"
  caught=$(($(count "$m/caught.txt") + $(count "$o/caught.txt")))
  unviable=$(($(count "$m/unviable.txt") + $(count "$o/unviable.txt")))
  timeout=$(count "$m/timeout.txt")
  missed=$(count "$m/missed.txt")
  viable=$((caught + missed + timeout))
  pct=$(awk -v c=$((caught + timeout)) -v v=$viable 'BEGIN { printf (v ? "%.1f" : "-"), 100 * c / v }')
  summary+=("$name|$caught|$missed|$unviable|$timeout|$pct")
done

echo
{
  echo "module|caught|missed|unviable|timeout|caught %"
  printf '%s\n' "${summary[@]}"
} | column -t -s '|'
echo "missed mutants: $out/<module>/mutants.out/missed.txt"
