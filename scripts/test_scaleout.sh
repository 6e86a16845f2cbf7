#!/usr/bin/env bash
# Runs the PySpark and Ray Data tests (tests/scaleout/: quiver.spark and quiver.ray on the real engines,
# local mode, 2 CPUs) in their own venv (scripts/setup_scaleout_venv.sh).
#
#   scripts/test_scaleout.sh [pytest arguments]
#
# Quiver is built into a private overlay on PYTHONPATH (scripts/build_python_overlay.sh): nothing is
# installed into the venv. PySpark needs Java 17 (installed here from Debian if missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh openjdk-17-jre-headless >&2
QUIVER_FIXTURES_DIR="$(bash scripts/make_fixtures.sh)"  # the README snippet's test runs the fixtures' ResNet-18
export QUIVER_FIXTURES_DIR
python="$(bash scripts/setup_scaleout_venv.sh)"
PYTHONPATH="$(bash scripts/build_python_overlay.sh scaleout)"
export PYTHONPATH
export JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
# Ray's and Spark's scratch files stay out of the shared /tmp/ray and /tmp/spark-*.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export RAY_TMPDIR="$scratch" TMPDIR="$scratch"
cd tests/scaleout
"$python" -m pytest -q -p no:cacheprovider "$@" .
