#!/usr/bin/env bash
# Installs the native dependencies (Debian packages) and builds everything into build/ (or $QUIVER_BUILD_DIR).
#   scripts/build.sh [extra cmake -D options]
# QUIVER_BUILD_TARGETS (space-separated) builds only those targets and what they need.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh >&2
build_dir="${QUIVER_BUILD_DIR:-build}"
fixtures="${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}"
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${QUIVER_BUILD_TYPE:-Release}" \
  -DQUIVER_FIXTURES_DIR="$fixtures" "$@" >&2
targets=()
for t in ${QUIVER_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}" >&2
echo "$build_dir"
