#!/usr/bin/env bash
# Quiver against MXNet 1.9.1, ONNX Runtime and OpenVINO on sequence models, side by side on the same
# weights: a BERT-base encoder at sequence 128 and an LSTM language model over 35 tokens
# (bench/make_sequence_models.sh), batch 1: bench/compare_runtimes.sh on that set, with its engines,
# rounds, environment and table (quiver-int8 is left out: these models have no int8 export).
#
#   bench/compare_sequence_runtimes.sh [MODEL...]      (default: both)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MODELS_DIR="$(bash "$ROOT/bench/make_sequence_models.sh")" exec bash "$ROOT/bench/compare_runtimes.sh" "$@"
