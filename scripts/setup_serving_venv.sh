#!/usr/bin/env bash
# Creates (once) the venv the serving tests and benchmark run in (scripts/test_serving.sh,
# bench/compare_serving.sh): KServe's model server (quiver[serving]), Triton's Python clients (the tests'
# independent clients, over HTTP and gRPC), ONNX Runtime (the benchmark's other KServe model), Quiver's
# own dependencies and pytest, all pinned. Quiver itself is not installed here: the scripts put their own
# build on PYTHONPATH.
#
#   scripts/setup_serving_venv.sh      -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/serving-venv. A stamp records the pinned requirements;
# when it matches the script returns at once. Logs go to stderr.
set -euo pipefail

REQUIREMENTS=(
  "kserve==0.21.0"
  "tritonclient[http,grpc]==2.73.0"
  "onnxruntime==1.31.1"
  "numpy==2.4.6"
  "pillow==13.0.0"
  "tqdm==4.70.1"
  "pytest==9.2.0"
)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_serving_venv
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/serving-venv"

cached_venv "$VENV" "quiver-serving-venv: ${REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${REQUIREMENTS[@]}"
echo "$VENV/bin/python"
