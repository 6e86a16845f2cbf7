#!/usr/bin/env bash
# Sanitizer build and test run: scripts/sanitize.sh address   (ASan + UBSan)
#                               scripts/sanitize.sh thread    (TSan)
# Builds into build-<kind>/ and runs every CTest suite under the sanitizer.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

kind="${1:-}"
case "$kind" in
  address|thread) ;;
  *) echo "usage: $0 address|thread" >&2; exit 2 ;;
esac

build_dir="$(QUIVER_BUILD_DIR="build-$kind" QUIVER_BUILD_TYPE=RelWithDebInfo bash scripts/build.sh -DQUIVER_SANITIZE="$kind")"
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"
QUIVER_CONFORMANCE_DIR="$(bash tests/conformance/make_fixtures.sh ci)"  # the drop-in libmxnet.so suite reads it
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_FIXTURES_DIR QUIVER_CONFORMANCE_DIR
export QUIVER_REQUIRE_FIXTURES=1
# allocator_may_return_null: tests ask for absurd sizes on purpose and expect QV_ERR_OUT_OF_MEMORY.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# oneDNN is not built with TSan: its frames are suppressed (scripts/tsan.supp); everything in
# Quiver's own code, the compute pool that runs oneDNN's loops included, is checked.
export TSAN_OPTIONS="allocator_may_return_null=1:halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
cd "$build_dir"
ctest --output-on-failure -j1 --timeout 1200
