#!/usr/bin/env bash
# Makes (or reuses) the model of bench/compare_serving.sh and prints its directory on stdout: ResNet-18 v1
# exported by MXNet 1.9.1 (bench/make_models.py) and converted to ONNX by MXNet's own exporter
# (bench/export_onnx.py), so that Quiver and ONNX Runtime serve the same weights.
#
#   bench/make_serving_models.sh          -> ${QUIVER_CACHE:-$HOME/.cache/quiver}/bench-serving-models
#
# Rebuilt when these scripts or the exporters change (scripts/cached_dir.sh). Logs: stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/cached_dir.sh"
CACHED_DIR_LOG=make_serving_models
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"

generate() {  # OUT_DIR
  local mxnet_python
  mxnet_python="$(bash "$ROOT/scripts/setup_mxnet_venv.sh")"
  bash "$ROOT/bench/setup_baselines_venv.sh" >/dev/null  # MXNet's ONNX exporter needs onnx beside it
  "$mxnet_python" "$ROOT/bench/make_models.py" "$1" resnet18_v1
  PYTHONPATH="$CACHE_DIR/onnx-export" "$mxnet_python" "$ROOT/bench/export_onnx.py" "$1/resnet18_v1" \
    "$1/resnet18_v1.onnx" >&2
}

key="$(cat "$ROOT/bench/make_serving_models.sh" "$ROOT/bench/make_models.py" "$ROOT/bench/export_onnx.py" \
  "$ROOT/tests/conformance/make_fixtures.py" | sha256sum | cut -d' ' -f1)"
cached_dir "$CACHE_DIR/bench-serving-models" .stamp "$key" 0 generate
