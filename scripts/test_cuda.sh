#!/usr/bin/env bash
# Builds with the CUDA backend (scripts/build_cuda.sh) and runs every CTest suite against that build:
# the CPU suites unchanged, the CUDA backend's host suite, and the GPU suite, which reports
# "not run: no GPU" (CTest: skipped) on a machine without one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="$(bash scripts/build_cuda.sh)"
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_FIXTURES_DIR
(cd "$build_dir" && ctest --output-on-failure -j"$(nproc)" --timeout 600 "$@")
