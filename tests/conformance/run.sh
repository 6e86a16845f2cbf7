#!/usr/bin/env bash
# The conformance suite on one fixture set: tests/conformance/run.sh [ci|full] [pytest args...]
# Builds and installs the Python package, makes (or reuses) the set's fixtures (and MXNet's bfloat16
# outputs for them, tests/amp/make_fixtures.sh --conformance=SET), runs the comparisons.
# QUIVER_CONFORMANCE_REPORT=FILE keeps each case's max error as JSON lines (bench/conformance_table.py).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
set_name="${1:-full}"
shift || true
python="$(bash scripts/build_python.sh)"
QUIVER_CONFORMANCE_DIR="$(bash tests/conformance/make_fixtures.sh "$set_name")"
QUIVER_AMP_CONFORMANCE_DIR="$(bash tests/amp/make_fixtures.sh --conformance="$set_name")"
# Exported apart from the assignments: `export X="$(cmd)"` would hide cmd's failure from set -e.
export QUIVER_CONFORMANCE_DIR QUIVER_AMP_CONFORMANCE_DIR
export QUIVER_REQUIRE_FIXTURES=1
# The set's float32 conformance, and precision bfloat16 on its files against MXNet's own bfloat16 error.
"$python" -m pytest -q -rs -p no:cacheprovider tests/conformance tests/amp/test_conformance_bf16.py "$@"
