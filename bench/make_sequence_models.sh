#!/usr/bin/env bash
# Makes (or reuses) the sequence models of bench/compare_sequence_runtimes.sh and prints their directory
# on stdout: each exported by MXNet 1.9.1 with its output for one recorded input
# (bench/make_sequence_models.py), converted to ONNX by MXNet's own exporter (bench/export_onnx.py) and
# its constant subgraphs folded (bench/fold_onnx.py: OpenVINO cannot compile BERT's export otherwise), so
# that every runtime compared runs the same weights.
#
#   bench/make_sequence_models.sh          -> ${QUIVER_CACHE:-$HOME/.cache/quiver}/bench-sequence-models
#
# Rebuilt when these scripts or the exporters change (scripts/cached_dir.sh). Logs: stderr.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/scripts/cached_dir.sh"
CACHED_DIR_LOG=make_sequence_models
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"

generate() {  # OUT_DIR
  local mxnet_python baselines_python
  mxnet_python="$(bash "$ROOT/scripts/setup_mxnet_venv.sh")"
  baselines_python="$(bash "$ROOT/bench/setup_baselines_venv.sh")"  # also puts onnx beside MXNet's venv
  "$mxnet_python" "$ROOT/bench/make_sequence_models.py" "$1"
  "$mxnet_python" - "$1/manifest.json" <<'PY' | while read -r name shapes; do
import json, sys
for m in json.load(open(sys.argv[1]))["models"]:
    print(m["name"], " ".join("--shape " + s for s in m["onnx_shapes"]))
PY
    # shellcheck disable=SC2086  # $shapes is a list of flags
    PYTHONPATH="$CACHE_DIR/onnx-export" "$mxnet_python" "$ROOT/bench/export_onnx.py" "$1/$name" \
      "$1/$name.exported.onnx" $shapes >&2
    "$baselines_python" "$ROOT/bench/fold_onnx.py" "$1/$name.exported.onnx" "$1/$name.onnx"
    rm "$1/$name.exported.onnx"
  done
}

key="$(cat "$ROOT/bench/make_sequence_models.sh" "$ROOT/bench/make_sequence_models.py" "$ROOT/bench/export_onnx.py" \
  "$ROOT/bench/fold_onnx.py" "$ROOT/bench/export_bert_base.py" "$ROOT/bench/export_lstm_lm.py" \
  "$ROOT/tests/conformance/sequence_models.py" | sha256sum | cut -d' ' -f1)"
cached_dir "$CACHE_DIR/bench-sequence-models" .stamp "$key" 0 generate
