#!/usr/bin/env bash
# Python's cost over the C API, and 1- vs 2-thread throughput, measured side by side.
#
#   bench/compare_python.sh [PREFIX] [SHAPE]
#
# Runs, per round, interleaved: quiver_bench (C) and bench/python_bench.py on the same model with 1
# client, then both with 2 clients sharing one model. Prints medians over ROUNDS rounds:
#   overhead_us       Python p50 - C p50 per call, 1 client (what the binding adds to one prediction)
#   c_2v1 / py_2v1    throughput with 2 client threads / with 1
# PREFIX defaults to the `tiny` fixture (a model so small that per-call costs dominate), SHAPE 3,16,16.
# Environment: ROUNDS=5 ITERS=2000 WARMUP=50 QUIVER_BENCH (default build/bench/quiver_bench).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
PREFIX="${1:-$("$ROOT/scripts/make_fixtures.sh")/tiny}"
SHAPE="${2:-3,16,16}"
ROUNDS="${ROUNDS:-5}"
ITERS="${ITERS:-2000}"
WARMUP="${WARMUP:-50}"
PYTHON="$("$ROOT/scripts/build_python.sh")"
RUNS="$(mktemp "${TMPDIR:-/tmp}/compare_python.XXXXXX.jsonl")"

common=(--prefix "$PREFIX" --iters "$ITERS" --warmup "$WARMUP" --shape "$SHAPE")
for round in $(seq "$ROUNDS"); do
  for clients in 1 2; do
    "$QUIVER_BENCH" "${common[@]}" --clients "$clients" 2>/dev/null >>"$RUNS"
    "$PYTHON" "$ROOT/bench/python_bench.py" "${common[@]}" --clients "$clients" >>"$RUNS"
  done
  echo "compare_python: round $round/$ROUNDS done" >&2
done

"$PYTHON" - "$RUNS" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
def median(engine, clients, key):
    return statistics.median(r[key] for r in runs if r["engine"] == engine and r["clients"] == clients)
c1, p1 = median("quiver", 1, "p50_ms"), median("quiver-python", 1, "p50_ms")
summary = {
    "model": runs[0]["model"], "rounds": len(runs) // 4,
    "c_p50_ms": c1, "py_p50_ms": p1, "overhead_us": (p1 - c1) * 1e3,
    "c_tput_1": median("quiver", 1, "throughput_per_s"), "c_tput_2": median("quiver", 2, "throughput_per_s"),
    "py_tput_1": median("quiver-python", 1, "throughput_per_s"),
    "py_tput_2": median("quiver-python", 2, "throughput_per_s"),
}
summary["c_2v1"] = summary["c_tput_2"] / summary["c_tput_1"]
summary["py_2v1"] = summary["py_tput_2"] / summary["py_tput_1"]
print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in summary.items()}))
PY
