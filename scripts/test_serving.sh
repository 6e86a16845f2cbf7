#!/usr/bin/env bash
# Runs the serving tests (tests/serving/: `quiver serve` on KServe's model server, driven by Triton's
# Python clients over HTTP and gRPC on loopback) in their own venv (scripts/setup_serving_venv.sh).
#
#   scripts/test_serving.sh [pytest arguments]
#
# Quiver is built into a private overlay, build/serving/site (put on PYTHONPATH), with the build tools of
# the project's Python venv and the CMake build tree of `pip install .` (build/python/): nothing is
# installed into either venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_python="$(bash scripts/setup_python_venv.sh)"
python="$(bash scripts/setup_serving_venv.sh)"
unset PYTHONHOME PIP_REQUIRE_VIRTUALENV
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

overlay="$PWD/build/serving/site"
echo "test_serving: building quiver into $overlay" >&2
"$build_python" -m pip install --no-deps --no-build-isolation --disable-pip-version-check -q --upgrade \
  --target "$overlay" . >&2

export PYTHONPATH="$overlay"
cd tests/serving
"$python" -m pytest -q -p no:cacheprovider "$@" .
