#!/usr/bin/env bash
# Quiver against what its users could pick instead, side by side on the same weights: ResNet-50 v1,
# MobileNetV2 1.0, MobileNet 0.25 and ResNet-18 v1 at batch 1 through Quiver's C API (quiver_bench; float32,
# bfloat16, int8 and auto, the last two on MXNet's quantize_net file) and its Python API, real MXNet 1.9.1
# (bench/mxnet_bench.py), ONNX Runtime and OpenVINO with FP32 forced, with their default precision and in
# int8 on ONNX Runtime's QDQ file of the same weights (bench/baseline_bench.py), each on THREADS compute
# threads. Every round runs each engine once per model and client count, interleaved, as separate
# processes; the table gives medians over the rounds of each run's p50 latency (1 client) and throughput
# (2 clients sharing one model), each engine's largest difference from MXNet's recorded output on the
# models' recorded input, and the precision it ran in. Under scripts/as_avx2_cpu.sh every engine runs as
# on an AVX2-only CPU.
#
#   bench/compare_runtimes.sh [MODEL...]      (default: the models of bench/make_models.sh)
#
# Environment (all optional): ROUNDS=5  THREADS=2  CLIENTS="1 2"  ENGINES (default: all)
#   QUIVER_BENCH (default build/bench/quiver_bench)  OUT_DIR (raw results; default a new temporary directory)
#   MODELS_DIR (another set in make_models.sh's form; bench/compare_sequence_runtimes.sh passes its own)
# The last line of stdout is one JSON object with every median.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
if [ ! -x "$QUIVER_BENCH" ]; then
  echo "compare_runtimes: Quiver's benchmark tool not found at $QUIVER_BENCH (build it, or set QUIVER_BENCH)" >&2
  exit 2
fi
models_dir="${MODELS_DIR:-$(bash "$ROOT/bench/make_models.sh")}"
baselines_python="$(bash "$ROOT/bench/setup_baselines_venv.sh")"
exec "$baselines_python" "$ROOT/bench/compare_runtimes.py" --models-dir "$models_dir" --quiver-bench "$QUIVER_BENCH" \
  --quiver-python "$(bash "$ROOT/scripts/build_python.sh")" \
  --mxnet-python "$(bash "$ROOT/scripts/setup_mxnet_venv.sh")" --baselines-python "$baselines_python" "$@"
