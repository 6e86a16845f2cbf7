#!/usr/bin/env bash
# Quiver's float32 against its int8 on this CPU, as oneDNN sees it (set ONEDNN_MAX_CPU_ISA=AVX2 to
# emulate an AVX2-only CPU on a newer one): ResNet-18 v1 and MobileNetV2 1.0 at batch 1, 224x224, one
# client, THREADS compute threads. The files are tests/int8/make_fixtures.sh's (MXNet 1.9.1's float32
# export and its quantize_net naive export of the same random weights). Every round runs each model in
# each precision once, interleaved, as separate quiver_bench processes; the table gives the median over
# the rounds of each run's p50 latency.
#
# This is the benchmark that keeps `precision=auto`'s rule true (docs/precision.rst: a calibrated model
# runs int8 on every CPU with AVX2): it exits 1 where int8's median is not below float32's.
#
#   bench/compare_int8.sh        Environment (optional): ROUNDS=5 THREADS=2 ITERS=40
#                                QUIVER_BENCH (default build/bench/quiver_bench)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
ROUNDS="${ROUNDS:-5}" THREADS="${THREADS:-2}" ITERS="${ITERS:-40}"
if [ ! -x "$QUIVER_BENCH" ]; then
  echo "compare_int8: Quiver's benchmark tool not found at $QUIVER_BENCH (build it, or set QUIVER_BENCH)" >&2
  exit 2
fi
int8_dir="$(bash "$ROOT/tests/int8/make_fixtures.sh")"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for round in $(seq "$ROUNDS"); do
  for model in resnet18_v1 mobilenetv2_1.0; do
    for run in "float32 float" "int8 naive"; do
      set -- $run
      QUIVER_NUM_THREADS="$THREADS" "$QUIVER_BENCH" --prefix "$int8_dir/$model-$2" --option "precision=$1" \
        --iters "$ITERS" --warmup 5 --shape 3,224,224 2>/dev/null | sed "s/^{/{\"precision\": \"$1\", \"round\": $round, /" >>"$results"
    done
  done
done
python3 - "$results" <<'EOF'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
p50 = {}
for r in runs:
    p50.setdefault((r["model"].rsplit("-", 1)[0], r["precision"]), []).append(r["p50_ms"])
faster = True
print("| model | float32 p50 ms | int8 p50 ms | float32 / int8 |")
print("|---|---|---|---|")
for model in dict.fromkeys(m for m, _ in p50):
    f32, i8 = statistics.median(p50[model, "float32"]), statistics.median(p50[model, "int8"])
    faster &= i8 < f32
    print(f"| {model} | {f32:.2f} | {i8:.2f} | {f32 / i8:.2f}x |")
sys.exit(0 if faster else 1)
EOF
