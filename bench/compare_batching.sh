#!/usr/bin/env bash
# Dynamic batching side by side: ResNet-18 on the CPU under 1/4/16/64 concurrent batch-1 clients,
# Quiver without and with a request queue, and ONNX Runtime with the same clients on one shared
# session (the same model, exported with MXNet's own ONNX exporter). Prints a table of medians over
# ROUNDS interleaved rounds and, last, one JSON line. Each round also times `instances` clients sending
# full batches back to back: the most any scheduler could reach ("full batches / off").
#
#   bench/compare_batching.sh [PREFIX]        (default: the resnet18_v1 fixture)
#
# Environment (all optional):
#   ROUNDS=3  CLIENTS="1 4 16 64"  REQUESTS=192 (per run, shared by the clients; at least 4 each)
#   WARMUP=3  BATCHING="max_batch_size=16 batch_timeout_us=2000"  (Quiver's flags when batching is on)
#   ORT_THREADS (intra_op_num_threads; default ONNX Runtime's)  QUIVER_BENCH (default build/bench/quiver_bench)
#   OUT_DIR (raw results; default a new temporary directory)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
log() { echo "compare_batching: $*" >&2; }

if [ ! -x "$QUIVER_BENCH" ]; then
  log "Quiver's benchmark tool not found at $QUIVER_BENCH (build it, or set QUIVER_BENCH)"
  exit 2
fi
ort_python="$(bash "$ROOT/bench/setup_baselines_venv.sh")"
mxnet_python="$(bash "$ROOT/scripts/setup_mxnet_venv.sh")"
fixtures="$(bash "$ROOT/scripts/make_fixtures.sh")"
PREFIX="${1:-$fixtures/resnet18_v1}"
[ -f "$PREFIX-symbol.json" ] || { log "no model at $PREFIX"; exit 2; }

onnx="$CACHE_DIR/onnx-models/$(basename "$PREFIX").onnx"
if [ ! -f "$onnx" ] || [ "$PREFIX-0000.params" -nt "$onnx" ]; then
  mkdir -p "$(dirname "$onnx")"
  PYTHONPATH="$CACHE_DIR/onnx-export" "$mxnet_python" "$ROOT/bench/export_onnx.py" "$PREFIX" "$onnx" >&2
fi
check=()
if [ -f "$PREFIX-in-1x3x224x224.f32" ]; then
  check=(--check "$PREFIX-in-1x3x224x224.f32,$PREFIX-out-1x3x224x224.f32")
fi
exec "$ort_python" "$ROOT/bench/compare_batching.py" --quiver-bench "$QUIVER_BENCH" --prefix "$PREFIX" \
  --onnx "$onnx" "${check[@]}"
