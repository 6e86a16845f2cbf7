#!/usr/bin/env bash
# Builds one program written for MXNet against MXNet 1.9.1's own headers (from the wheel in the
# MXNet venv that scripts/setup_mxnet_venv.sh makes), links it with -lmxnet, and runs it twice with
# nothing changed but LD_LIBRARY_PATH: on MXNet's libmxnet.so (saving its results), then on Quiver's
# (holding its results to MXNet's). CTest runs it (tests/mxnet_compat/CMakeLists.txt).
#
#   run.sh --lib-dir DIR --work DIR [--sanitize=KIND] SOURCE [ARGS...]
#
# ARGS are passed to the program; the word @FIXTURES@ becomes the fixture directory
# ($QUIVER_FIXTURES_DIR, else ~/.cache/quiver/fixtures), @CONFORMANCE@ the conformance set's
# ($QUIVER_CONFORMANCE_DIR, else ~/.cache/quiver/conformance-ci). Without the wheel or the fixtures
# the ARGS name the suite cannot run: it says so loudly and exits 77 (CTest: skipped), or fails under
# QUIVER_REQUIRE_FIXTURES=1.
# With --sanitize=address or =thread (a sanitizer build of Quiver) the program is instrumented too and only Quiver's leg
# runs, held to the fixtures' reference outputs alone: MXNet's library is not built for the sanitizers.
set -euo pipefail

lib_dir="" work="" sanitize=""
while [ $# -gt 0 ]; do
  case "$1" in
    --lib-dir) lib_dir="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --sanitize=*) sanitize="${1#--sanitize=}"; shift ;;
    *) break ;;
  esac
done
[ -n "$lib_dir" ] && [ -n "$work" ] && [ $# -ge 1 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
src="$1"; shift
name="$(basename "${src%.*}")"
fixtures="${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}"
conformance="${QUIVER_CONFORMANCE_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/conformance-ci}"

cannot_run() {
  echo "************************************************************************" >&2
  echo "*** MXNet drop-in test '$name' DID NOT RUN: $*" >&2
  echo "************************************************************************" >&2
  [ "${QUIVER_REQUIRE_FIXTURES:-0}" = 1 ] && exit 1
  exit 77
}

# MXNet's package: its headers and its libmxnet.so.
pkg="${QUIVER_MXNET_PACKAGE:-}"
if [ -z "$pkg" ]; then
  for candidate in "${QUIVER_CACHE:-$HOME/.cache/quiver}"/mxnet-venv/lib/python3*/site-packages/mxnet; do
    [ -d "$candidate" ] && pkg="$candidate"
  done
fi
[ -n "$pkg" ] && [ -f "$pkg/include/mxnet/c_predict_api.h" ] && [ -f "$pkg/libmxnet.so" ] ||
  cannot_run "no mxnet 1.9.1 package with headers and libmxnet.so (run scripts/setup_mxnet_venv.sh, or set QUIVER_MXNET_PACKAGE)"
case " $* " in *@FIXTURES@*)
  [ -f "$fixtures/resnet18_v1-symbol.json" ] && [ -f "$fixtures/digits_cnn-symbol.json" ] ||
    cannot_run "no fixtures in $fixtures (run scripts/make_fixtures.sh)" ;;
esac
case " $* " in *@CONFORMANCE@*)
  [ -f "$conformance/manifest.json" ] ||
    cannot_run "no conformance fixtures ($conformance/manifest.json; run tests/conformance/make_fixtures.sh ci, or set QUIVER_CONFORMANCE_DIR)" ;;
esac
[ -f "$lib_dir/libmxnet.so" ] || { echo "run.sh: Quiver's $lib_dir/libmxnet.so is missing" >&2; exit 1; }

mkdir -p "$work"
exe="$work/$name"
flags=(-O1 -Wall -Wextra -Werror -I"$pkg/include" -I"$(dirname "$0")" -I"$(dirname "$src")")
case "$sanitize" in
  "") ;;
  address) flags+=(-fsanitize=address,undefined -fno-omit-frame-pointer) ;;
  thread) flags+=(-fsanitize=thread) ;;
  *) echo "run.sh: unknown --sanitize $sanitize" >&2; exit 2 ;;
esac
case "$src" in
  *.c) ${CC:-cc} -std=c99 "${flags[@]}" "$src" -o "$exe" -L"$lib_dir" -lmxnet -lm ;;
  *) ${CXX:-c++} -std=c++17 "${flags[@]}" "$src" -o "$exe" -L"$lib_dir" -lmxnet -pthread ;;
esac

args=()
for a in "$@"; do a="${a//@FIXTURES@/$fixtures}"; args+=("${a//@CONFORMANCE@/$conformance}"); done

# Runs the program on the library in $1, after checking that the loader really picks that one.
run_on() {
  local dir="$1" label="$2"; shift 2
  local resolved
  resolved="$(LD_LIBRARY_PATH="$dir" ldd "$exe" | awk '$1 == "libmxnet.so" {print $3}')"
  [ "$(realpath "$resolved")" = "$(realpath "$dir/libmxnet.so")" ] ||
    { echo "run.sh: the loader picks '$resolved', not $dir/libmxnet.so" >&2; exit 1; }
  echo "--- $name on $label ($dir/libmxnet.so)"
  env MXC_LIBRARY="$label" LD_LIBRARY_PATH="$dir" "$@" "$exe" "${args[@]}"
}

saved="$work/$name.mxnet-results"
rm -rf "$saved"
mkdir -p "$saved"
if [ -z "$sanitize" ]; then
  # MXNet's leg: its plain operators (the fixtures' reference is computed without its fusion pass),
  # NaiveEngine as its multi-threaded predict API demands, its log lines out of the way.
  run_on "$pkg" mxnet MXC_SAVE_DIR="$saved" MXNET_SUBGRAPH_BACKEND=NONE MXNET_ENGINE_TYPE=NaiveEngine \
    MXC_SERIAL_THREADS=1 2> >(grep -v '^\[[0-9:]*\] \.\./src/executor/graph_executor.cc:60: MXNET_SUBGRAPH_BACKEND=NONE' >&2)
  run_on "$lib_dir" quiver MXC_COMPARE_DIR="$saved"
else
  run_on "$lib_dir" quiver ASAN_OPTIONS="detect_leaks=0:allocator_may_return_null=1"
fi
