#!/usr/bin/env bash
# Creates (once) what the comparison benchmarks (bench/compare_runtimes.sh, compare_batching.sh) need
# besides Quiver:
#   - a venv with the runtimes Quiver is held to, ONNX Runtime and OpenVINO, and onnx for ONNX Runtime's
#     quantizer (bench/quantize_onnx.py):
#     ${QUIVER_CACHE:-$HOME/.cache/quiver}/baselines-venv
#   - onnx 1.14.1 for MXNet's exporter (mx.onnx), installed with --target beside the MXNet venv
#     (scripts/setup_mxnet_venv.sh) rather than into it, so the shared oracle venv stays as it is:
#     ${QUIVER_CACHE:-$HOME/.cache/quiver}/onnx-export
#
#   bench/setup_baselines_venv.sh      -> prints the venv's python path on stdout (last line)
#
# Stamps record the pinned requirements; when they match the script returns at once. Logs: stderr.
set -euo pipefail

BASELINE_REQUIREMENTS=("onnxruntime==1.31.1" "openvino==2026.4.0" "numpy==2.4.6" "onnx==1.23.2")
# onnx 1.14.1 is the last release MXNet 1.9.1's exporter works with; protobuf 3.20 is what it was
# built against. --no-deps keeps the MXNet venv's numpy 1.23.5 in charge.
EXPORT_REQUIREMENTS=("onnx==1.14.1" "protobuf==3.20.3" "typing_extensions==4.16.0")

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../scripts/cached_venv.sh"
CACHED_VENV_LOG=setup_baselines_venv
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/baselines-venv"
EXPORT_DIR="$CACHE_DIR/onnx-export"

install_export() {
  local mxnet_python
  mxnet_python="$(bash "$HERE/../scripts/setup_mxnet_venv.sh")"
  "$mxnet_python" -m pip install -q --no-deps --target "$EXPORT_DIR" "${EXPORT_REQUIREMENTS[@]}" >&2
}

cached_venv "$VENV" "baselines-venv: ${BASELINE_REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${BASELINE_REQUIREMENTS[@]}"
cached_venv "$EXPORT_DIR" "onnx-export: ${EXPORT_REQUIREMENTS[*]}" install_export
echo "$VENV/bin/python"
