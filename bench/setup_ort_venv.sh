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

CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/ort-venv"
EXPORT_DIR="$CACHE_DIR/onnx-export"
log() { echo "setup_ort_venv: $*" >&2; }
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/ort-venv.lock"
flock 9

want="ort-venv: ${ORT_REQUIREMENTS[*]}"
if [ "$(cat "$VENV/.quiver-stamp" 2>/dev/null)" != "$want" ] || ! "$VENV/bin/python" -c 'import onnxruntime' 2>/dev/null; then
  log "creating $VENV"
  rm -rf "$VENV"
  "${QUIVER_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "${ORT_REQUIREMENTS[@]}" >&2
  echo "$want" > "$VENV/.quiver-stamp"
fi

mxnet_python="$(bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/setup_mxnet_venv.sh")"
want="onnx-export: ${EXPORT_REQUIREMENTS[*]}"
if [ "$(cat "$EXPORT_DIR/.quiver-stamp" 2>/dev/null)" != "$want" ]; then
  log "installing ${EXPORT_REQUIREMENTS[*]} into $EXPORT_DIR"
  rm -rf "$EXPORT_DIR"
  "$mxnet_python" -m pip install -q --no-deps --target "$EXPORT_DIR" "${EXPORT_REQUIREMENTS[@]}" >&2
  echo "$want" > "$EXPORT_DIR/.quiver-stamp"
fi
log "ready: $VENV, $EXPORT_DIR"
echo "$VENV/bin/python"
