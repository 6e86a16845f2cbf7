#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang-14 (ASan + UBSan, libstdc++'s assertions) into
# build-fuzz/ and runs each for a number of executions, or of seconds:
#   scripts/fuzz.sh [RUNS] [TARGET...]              default: 1000000 runs of every target
#   scripts/fuzz.sh --seconds S [TARGET...]         S seconds of each (.ci/run's bounded step)
# Targets: symbol_json params graph_shapes cached_op_flags. Corpora start from tests/fuzz/seeds, the
# MXNet fixtures and generated .params files, and grow under $QUIVER_CACHE/fuzz/<target>/ (kept between
# runs). A crashing input is saved under $QUIVER_CACHE/fuzz/findings/ and the script fails; once fixed,
# the input belongs in tests/fuzz/regressions/<target>/, which the normal test suite replays.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [ "${1:-}" = "--seconds" ]; then
  bound=(-max_total_time="${2:?--seconds needs a number}") what="${2} s"
  shift 2
else
  bound=(-runs="${1:-1000000}") what="${1:-1000000} runs"
  shift || true
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(symbol_json params graph_shapes cached_op_flags)

bash scripts/install_deps.sh >&2
build_dir="${QUIVER_FUZZ_BUILD_DIR:-build-fuzz}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DQUIVER_BUILD_FUZZERS=ON >&2
cmake --build "$build_dir" -j"$(nproc)" --target $(printf 'fuzz_%s ' "${targets[@]}") >&2

cache="${QUIVER_CACHE:-$HOME/.cache/quiver}/fuzz"
fixtures="${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}"
findings="$cache/findings"
mkdir -p "$findings"

# Extra seeds per target, made fresh each run in $cache/<target>/seeds.
make_seeds() {
  local target="$1" dir="$cache/$1/seeds"
  rm -rf "$dir" && mkdir -p "$dir"
  case "$target" in
    symbol_json) cp "$fixtures"/*-symbol.json "$dir"/ 2>/dev/null || true ;;
    params)
      python3 tests/fuzz/make_params_seeds.py "$dir"
      cp "$fixtures"/digits_cnn-0000.params "$dir"/ 2>/dev/null || true ;;
    graph_shapes)  # the digits CNN with its input sized by the control bytes
      [ -f "$fixtures/digits_cnn-symbol.json" ] &&
        { cat "$fixtures/digits_cnn-symbol.json"; printf '\n\x00\x07\x07\x00\x00\x00\x00'; } > "$dir/digits_cnn" ;;
  esac
  [ -n "$(ls -A "$dir")" ] || echo "fuzz: no fixture seeds for $target (fixtures not made?)" >&2
}

declare -A dict=([symbol_json]=symbol [graph_shapes]=symbol [params]=params [cached_op_flags]=flags)
declare -A max_len=([symbol_json]=65536 [graph_shapes]=8192 [params]=32768 [cached_op_flags]=512)
summary=()
status=0
for target in "${targets[@]}"; do
  make_seeds "$target"
  corpus="$cache/$target/corpus"
  mkdir -p "$corpus"
  log="$cache/$target.log"
  echo "fuzz: $target, $what (log: $log)" >&2
  inputs=("$corpus")  # the first directory collects new inputs; the others are only read
  for dir in "tests/fuzz/seeds/$target" "$cache/$target/seeds" "tests/fuzz/regressions/$target"; do
    [ -d "$dir" ] && inputs+=("$dir")
  done
  start=$(date +%s)
  # allocator_may_return_null: absurd sizes must come back as QV_ERR_OUT_OF_MEMORY, not abort.
  # QUIVER_MEMORY_LIMIT keeps plans small enough that oneDNN's own allocations while building kernels
  # stay under libFuzzer's limit (-rss_limit_mb, which also caps single mallocs).
  if ! ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1" QUIVER_MEMORY_LIMIT=1G \
      "$build_dir/tests/fuzz/fuzz_$target" "${bound[@]}" -dict="tests/fuzz/dict/${dict[$target]}.dict" \
      -max_len="${max_len[$target]}" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$findings/$target-" "${inputs[@]}" > "$log" 2>&1; then
    status=1
    echo "fuzz: $target FAILED; see $log and $findings" >&2
  fi
  executed=$(grep -o 'number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}' || true)
  summary+=("$target: ${executed:-?} executions in $(( $(date +%s) - start )) s, corpus $(ls "$corpus" | wc -l) inputs")
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
