#!/usr/bin/env bash
# Creates (once) what bench/compare_batching.sh needs besides Quiver:
#   - a venv with ONNX Runtime (the baseline): ${QUIVER_CACHE:-$HOME/.cache/quiver}/ort-venv
#   - onnx 1.14.1 for MXNet's exporter (mx.onnx), installed with --target beside the MXNet venv
#     (scripts/setup_mxnet_venv.sh) rather than into it, so the shared oracle venv stays as it is:
#     ${QUIVER_CACHE:-$HOME/.cache/quiver}/onnx-export
#
#   bench/setup_ort_venv.sh      -> prints the ORT venv's python path on stdout (last line)
#
# Stamps record the pinned requirements; when they match the script returns at once. Logs: stderr.
set -euo pipefail

ORT_REQUIREMENTS=("onnxruntime==1.31.1" "numpy==2.4.6")
# onnx 1.14.1 is the last release MXNet 1.9.1's exporter works with; protobuf 3.20 is what it was
# built against. --no-deps keeps the MXNet venv's numpy 1.23.5 in charge.
EXPORT_REQUIREMENTS=("onnx==1.14.1" "protobuf==3.20.3" "typing_extensions==4.16.0")

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/../scripts/cached_venv.sh"
CACHED_VENV_LOG=setup_ort_venv
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/ort-venv"
EXPORT_DIR="$CACHE_DIR/onnx-export"

install_export() {
  local mxnet_python
  mxnet_python="$(bash "$HERE/../scripts/setup_mxnet_venv.sh")"
  "$mxnet_python" -m pip install -q --no-deps --target "$EXPORT_DIR" "${EXPORT_REQUIREMENTS[@]}" >&2
}

cached_venv "$VENV" "ort-venv: ${ORT_REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${ORT_REQUIREMENTS[@]}"
cached_venv "$EXPORT_DIR" "onnx-export: ${EXPORT_REQUIREMENTS[*]}" install_export
echo "$VENV/bin/python"
