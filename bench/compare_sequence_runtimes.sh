#!/usr/bin/env bash
# Quiver against MXNet 1.9.1, ONNX Runtime and OpenVINO on sequence models, side by side on the same
# weights: a BERT-base encoder at sequence 128 and an LSTM language model over 35 tokens
# (bench/make_sequence_models.sh), batch 1, through the same driver and with the same engines, rounds and
# table as bench/compare_runtimes.sh (see there; quiver-int8 is left out: these models have no int8 export).
#
#   bench/compare_sequence_runtimes.sh [MODEL...]      (default: both)
#
# Environment (all optional): ROUNDS=5  THREADS=2  CLIENTS="1 2"  ENGINES (default: all)
#   QUIVER_BENCH (default build/bench/quiver_bench)  OUT_DIR (raw results; default a new temporary directory)
# The last line of stdout is one JSON object with every median.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
if [ ! -x "$QUIVER_BENCH" ]; then
  echo "compare_sequence_runtimes: Quiver's benchmark tool not found at $QUIVER_BENCH" \
    "(build it, or set QUIVER_BENCH)" >&2
  exit 2
fi
models_dir="$(bash "$ROOT/bench/make_sequence_models.sh")"
baselines_python="$(bash "$ROOT/bench/setup_baselines_venv.sh")"
exec "$baselines_python" "$ROOT/bench/compare_runtimes.py" --models-dir "$models_dir" --quiver-bench "$QUIVER_BENCH" \
  --quiver-python "$(bash "$ROOT/scripts/build_python.sh")" \
  --mxnet-python "$(bash "$ROOT/scripts/setup_mxnet_venv.sh")" --baselines-python "$baselines_python" "$@"
