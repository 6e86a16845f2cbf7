#!/usr/bin/env bash
# Runs the PySpark and Ray Data tests (tests/scaleout/: quiver.spark and quiver.ray on the real engines,
# local mode, 2 CPUs) in their own venv (scripts/setup_scaleout_venv.sh).
#
#   scripts/test_scaleout.sh [pytest arguments]
#
# Quiver is built into a private overlay, build/scaleout/site (put on PYTHONPATH), with the build tools of
# the project's Python venv and the CMake build tree of `pip install .` (build/python/): nothing is
# installed into either venv. PySpark needs Java 17 (installed here from Debian if missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh openjdk-17-jre-headless >&2
build_python="$(bash scripts/setup_python_venv.sh)"
python="$(bash scripts/setup_scaleout_venv.sh)"
unset PYTHONHOME PIP_REQUIRE_VIRTUALENV
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}"

overlay="$PWD/build/scaleout/site"
echo "test_scaleout: building quiver into $overlay" >&2
"$build_python" -m pip install --no-deps --no-build-isolation --disable-pip-version-check -q --upgrade \
  --target "$overlay" . >&2

export PYTHONPATH="$overlay"
export JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
# Ray's and Spark's scratch files stay out of the shared /tmp/ray and /tmp/spark-*.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export RAY_TMPDIR="$scratch" TMPDIR="$scratch"
cd tests/scaleout
"$python" -m pytest -q -p no:cacheprovider "$@" .
