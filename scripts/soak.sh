#!/usr/bin/env bash
# The long soak and the fault-injection tests: 16 threads x 10,000 invocations (or ITERATIONS per
# thread) over three models loaded at once, re-created midway, results checked bit for bit, memory
# figures printed (QvGetMemoryStats and RSS after warm-up and at the end).
#   scripts/soak.sh [ITERATIONS]
# CTest runs the same suite with 300 iterations per thread (the short version in CI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="$(bash scripts/build.sh)"
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_FIXTURES_DIR
export QUIVER_REQUIRE_FIXTURES=1
QUIVER_SOAK_ITERATIONS="${1:-10000}" "$build_dir/tests/soak/quiver_soak_tests"
