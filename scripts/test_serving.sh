#!/usr/bin/env bash
# Runs the serving tests (tests/serving/: `quiver serve` on KServe's model server, driven by Triton's
# Python clients over HTTP and gRPC on loopback) in their own venv (scripts/setup_serving_venv.sh).
#
#   scripts/test_serving.sh [pytest arguments]
#
# Quiver is built into a private overlay on PYTHONPATH (scripts/build_python_overlay.sh): nothing is
# installed into the venv.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

python="$(bash scripts/setup_serving_venv.sh)"
PYTHONPATH="$(bash scripts/build_python_overlay.sh serving)"
export PYTHONPATH
cd tests/serving
"$python" -m pytest -q -rs -p no:cacheprovider "$@" .  # -rs: say why anything skipped
