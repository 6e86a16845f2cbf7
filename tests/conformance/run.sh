#!/usr/bin/env bash
# The conformance suite on one fixture set: tests/conformance/run.sh [ci|full] [pytest args...]
# Builds and installs the Python package, makes (or reuses) the set's fixtures, runs the comparison.
# QUIVER_CONFORMANCE_REPORT=FILE keeps each case's max error as JSON lines (bench/conformance_table.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
set_name="${1:-full}"
shift || true
python="$(bash scripts/build_python.sh)"
export QUIVER_CONFORMANCE_DIR="$(bash tests/conformance/make_fixtures.sh "$set_name")"
export QUIVER_REQUIRE_FIXTURES=1
"$python" -m pytest -q -rs -p no:cacheprovider tests/conformance "$@"
