#!/usr/bin/env bash
# What `precision=auto` picks for a calibrated model on this CPU, against every precision the CPU runs:
# Quiver's float32, its bfloat16 where the CPU has native bfloat16 instructions, and its int8, on
# ResNet-18 v1 and MobileNetV2 1.0 at batch 1, 224x224, one client, THREADS compute threads. Run it under
# scripts/as_avx2_cpu.sh to see an AVX2-only CPU on a newer one. The files are tests/int8/make_fixtures.sh's
# (MXNet 1.9.1's float32 export and its quantize_net naive export of the same random weights). Every
# round runs each model in each precision once, interleaved, as separate quiver_bench processes; the
# table gives the median over the rounds of each run's p50 latency.
#
# This is the benchmark that keeps `auto`'s rule true (docs/precision.rst: a calibrated model runs int8
# on every CPU with AVX2): it exits 1 where auto does not pick int8 or int8's median is not below every
# other precision's.
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
bench() {  # MODEL FILES PRECISION ITERS: one run, its JSON line tagged with the round
  QUIVER_NUM_THREADS="$THREADS" "$QUIVER_BENCH" --prefix "$int8_dir/$1-$2" --option "precision=$3" \
    --iters "$4" --warmup 5 --shape 3,224,224 2>/dev/null
}
runs=("float32 float" "int8 naive")
if bench resnet18_v1 float bfloat16 1 >/dev/null; then
  runs+=("bfloat16 float")
else
  echo "compare_int8: no bfloat16 here: this CPU has no native bfloat16 instructions (or they are hidden)" >&2
fi
for model in resnet18_v1 mobilenetv2_1.0; do
  bench "$model" naive auto 1 | sed 's/^{/{"auto": true, /' >>"$results"
done
for round in $(seq "$ROUNDS"); do
  for model in resnet18_v1 mobilenetv2_1.0; do
    for run in "${runs[@]}"; do
      set -- $run
      bench "$model" "$2" "$1" "$ITERS" | sed "s/^{/{\"round\": $round, /" >>"$results"
    done
  done
done
python3 - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
auto = {r["model"].rsplit("-", 1)[0]: r["precision"] for r in runs if r.get("auto")}
p50 = {}
for r in runs:
    if not r.get("auto"):
        p50.setdefault(r["model"].rsplit("-", 1)[0], {}).setdefault(r["precision"], []).append(r["p50_ms"])
ok = True
print("| model | " + " | ".join(f"{p} p50 ms" for p in next(iter(p50.values()))) + " | auto picks | fastest |")
print("|---|" + "---|" * (len(next(iter(p50.values()))) + 2))
for model, by_precision in p50.items():
    medians = {p: statistics.median(v) for p, v in by_precision.items()}
    fastest = min(medians, key=medians.get)
    ok &= auto[model] == fastest == "int8"
    print(f"| {model} | " + " | ".join(f"{m:.2f}" for m in medians.values()) + f" | {auto[model]} | {fastest} |")
sys.exit(0 if ok else 1)
PY
