#!/usr/bin/env bash
# Makes (or reuses) the models of bench/compare_runtimes.sh and prints their directory on stdout: each
# exported by MXNet 1.9.1 (bench/make_models.py: calibrated random weights, MXNet's output for one
# recorded input) and converted to ONNX by MXNet's own exporter (bench/export_onnx.py), so that every
# runtime compared runs the same weights; and quantized, on the same calibration images, by MXNet's
# quantize_net (bench/quantize_models.py: NAME-int8, for Quiver's int8 engine) and by ONNX Runtime's
# quantize_static (bench/quantize_onnx.py: NAME-int8.onnx, for the int8 peers).
#
#   bench/make_models.sh          -> ${QUIVER_CACHE:-$HOME/.cache/quiver}/bench-models
#
# Rebuilt when these scripts or the conformance exporter change (scripts/cached_dir.sh). Logs: stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/cached_dir.sh"
CACHED_DIR_LOG=make_models
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
MODELS=(resnet50_v1 mobilenetv2_1.0 mobilenet0.25 resnet18_v1)

generate() {  # OUT_DIR
  local mxnet_python baselines_python
  mxnet_python="$(bash "$ROOT/scripts/setup_mxnet_venv.sh")"
  baselines_python="$(bash "$ROOT/bench/setup_baselines_venv.sh")"  # also puts onnx beside MXNet's venv
  "$mxnet_python" "$ROOT/bench/make_models.py" "$1" "${MODELS[@]}"
  for name in "${MODELS[@]}"; do
    PYTHONPATH="$CACHE_DIR/onnx-export" "$mxnet_python" "$ROOT/bench/export_onnx.py" "$1/$name" "$1/$name.onnx" >&2
  done
  "$mxnet_python" "$ROOT/bench/quantize_models.py" "$1" "${MODELS[@]}"
  "$baselines_python" "$ROOT/bench/quantize_onnx.py" "$1" "${MODELS[@]}"
}

key="$(cat "$ROOT/bench/make_models.sh" "$ROOT/bench/make_models.py" "$ROOT/bench/export_onnx.py" \
  "$ROOT/bench/quantize_models.py" "$ROOT/bench/quantize_onnx.py" "$ROOT/tests/int8/make_fixtures.py" "$ROOT/tests/amp/make_fixtures.py" \
  "$ROOT/tests/conformance/make_fixtures.py" | sha256sum | cut -d' ' -f1)"
cached_dir "$CACHE_DIR/bench-models" .stamp "$key" 0 generate
