#!/usr/bin/env bash
# The Java API's cost over the C API, and 1- vs 2-thread throughput, measured side by side.
#
#   bench/compare_jvm.sh [PREFIX] [SHAPE]
#
# Runs, per round, interleaved: quiver_bench (C), then bench/JvmBench.java with float[] in and out
# (--api floats) and with NDArrays (--api ndarray, no copies), on the same model with 1 client, then all
# three with 2 clients sharing one model. Prints medians over ROUNDS rounds:
#   overhead_us / ndarray_overhead_us   JVM p50 - C p50 per call, 1 client (what the binding adds)
#   c_2v1 / jvm_2v1 / ndarray_2v1       throughput with 2 client threads / with 1
# PREFIX defaults to the `tiny` fixture (a model so small that per-call costs dominate), SHAPE 3,16,16.
# Environment: ROUNDS=5 ITERS=2000 WARMUP=200 QUIVER_BENCH (default build/bench/quiver_bench); the
# Java jar comes from scripts/build_jvm.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
PREFIX="${1:-$("$ROOT/scripts/make_fixtures.sh")/tiny}"
SHAPE="${2:-3,16,16}"
ROUNDS="${ROUNDS:-5}"
ITERS="${ITERS:-2000}"
WARMUP="${WARMUP:-200}"
JVM_DIR="$(bash "$ROOT/scripts/build_jvm.sh")"
JAR="$(ls "$ROOT"/java/target/quiver-java-*.jar | head -1)"
RUNS="$(mktemp "${TMPDIR:-/tmp}/compare_jvm.XXXXXX.jsonl")"

common=(--prefix "$PREFIX" --iters "$ITERS" --warmup "$WARMUP" --shape "$SHAPE")
for round in $(seq "$ROUNDS"); do
  for clients in 1 2; do
    # The C side on the jar's own libquiver.so.1 (the glibc 2.28 build), not the test build's.
    LD_LIBRARY_PATH="$JVM_DIR/native/linux-x86_64" "$QUIVER_BENCH" "${common[@]}" --clients "$clients" 2>/dev/null >>"$RUNS"
    for api in floats ndarray; do
      java -cp "$JAR" "$ROOT/bench/JvmBench.java" "${common[@]}" --clients "$clients" --api "$api" >>"$RUNS"
    done
  done
  echo "compare_jvm: round $round/$ROUNDS done" >&2
done

python3 - "$RUNS" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
def median(engine, clients, key):
    return statistics.median(r[key] for r in runs if r["engine"] == engine and r["clients"] == clients)
c1, j1, n1 = (median(e, 1, "p50_ms") for e in ("quiver", "quiver-jvm", "quiver-jvm-ndarray"))
summary = {"model": runs[0]["model"], "rounds": len(runs) // 6, "c_p50_ms": c1, "jvm_p50_ms": j1,
           "ndarray_p50_ms": n1, "overhead_us": (j1 - c1) * 1e3, "ndarray_overhead_us": (n1 - c1) * 1e3}
for name, engine in (("c", "quiver"), ("jvm", "quiver-jvm"), ("ndarray", "quiver-jvm-ndarray")):
    one, two = median(engine, 1, "throughput_per_s"), median(engine, 2, "throughput_per_s")
    summary.update({f"{name}_tput_1": one, f"{name}_tput_2": two, f"{name}_2v1": two / one})
print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in summary.items()}))
PY
