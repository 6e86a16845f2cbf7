#!/usr/bin/env bash
# Builds the quiver package (and its native libraries) into a private overlay, build/NAME/site, for the
# suites that run in venvs of their own (test_scaleout.sh, test_serving.sh, bench/compare_serving.sh):
# put it on PYTHONPATH. It uses the build tools of the project's Python venv and the CMake build tree of
# `pip install .` (build/python/); nothing is installed into any venv.
#
#   scripts/build_python_overlay.sh NAME      -> prints the overlay's path on stdout
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
name="${1:?usage: build_python_overlay.sh NAME}"

build_python="$(bash scripts/setup_python_venv.sh)"
unset PYTHONHOME PIP_REQUIRE_VIRTUALENV
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"
overlay="$PWD/build/$name/site"
echo "build_python_overlay: building quiver into $overlay" >&2
"$build_python" -m pip install --no-deps --no-build-isolation --disable-pip-version-check -q --upgrade \
  --target "$overlay" . >&2
echo "$overlay"
