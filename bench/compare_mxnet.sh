#!/usr/bin/env bash
# Runs Quiver's benchmark and real MXNet 1.9.1 on the same model side by side and prints ratios.
#
#   bench/compare_mxnet.sh [PREFIX]
#
# PREFIX defaults to the resnet50_v2 fixture (scripts/make_fixtures.sh makes it). Each round runs,
# in this order: quiver b1/c1, mxnet b1/c1, quiver b1/c2, mxnet b1/c2, so both engines see the same
# machine conditions; the medians over ROUNDS rounds are compared:
#   latency ratio     quiver p50 / mxnet p50 at batch 1, 1 client     (below 1: Quiver is faster)
#   throughput ratio  quiver / mxnet images per second at batch 1, 2 clients (above 1: Quiver wins)
# Every raw JSON line is kept in $OUT_DIR/runs.jsonl; the summary goes to stdout, the last line of
# which is one JSON object.
#
# Environment (all optional):
#   QUIVER_BENCH   Quiver's tool               (default: build/bench/quiver_bench)
#   MXNET_PYTHON   python with mxnet 1.9.1     (default: from scripts/setup_mxnet_venv.sh)
#   ROUNDS=3 ITERS=30 WARMUP=5 EPOCH=0 SHAPE=3,224,224 CLIENTS2=2
#   QUIVER_INFLIGHT=1   in-flight requests per Quiver client
#   MXNET_THREADS       compute threads for MXNet (default: usable cores)
#   INPUT_NAME=data     the input --shape describes (models with several inputs)
#   EXTRA_INPUTS        the other inputs, space-separated NAME:D0,D1,...=V0,V1,... (whole shape, values
#                       repeated to fill it), e.g. "valid_length:1=128" or "im_info:1,3=600,1000,1"
#   OUT_DIR             where to keep the raw results (default: a new temporary directory)
#
# Quiver's tool contract: quiver_bench --prefix P --epoch E --batch B --clients C --inflight D
#   --iters N --warmup W --shape S prints one JSON line with the keys engine, model, batch, clients,
#   p50_ms, p90_ms, p99_ms, throughput_per_s.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
QUIVER_BENCH="${QUIVER_BENCH:-$ROOT/build/bench/quiver_bench}"
ROUNDS="${ROUNDS:-3}"
ITERS="${ITERS:-30}"
WARMUP="${WARMUP:-5}"
EPOCH="${EPOCH:-0}"
SHAPE="${SHAPE:-3,224,224}"
CLIENTS2="${CLIENTS2:-2}"
QUIVER_INFLIGHT="${QUIVER_INFLIGHT:-1}"

log() { echo "compare_mxnet: $*" >&2; }

if [ ! -x "$QUIVER_BENCH" ]; then
  log "Quiver's benchmark tool not found at $QUIVER_BENCH (build it, or set QUIVER_BENCH)"
  exit 2
fi
MXNET_PYTHON="${MXNET_PYTHON:-$("$ROOT/scripts/setup_mxnet_venv.sh")}"
if [ $# -ge 1 ]; then
  PREFIX="$1"
else
  PREFIX="$("$ROOT/scripts/make_fixtures.sh")/resnet50_v2"
fi
if [ ! -f "$PREFIX-symbol.json" ]; then
  log "no model at prefix $PREFIX (missing $PREFIX-symbol.json)"
  exit 2
fi
OUT_DIR="${OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/compare_mxnet.XXXXXX")}"
mkdir -p "$OUT_DIR"
RUNS="$OUT_DIR/runs.jsonl"
: >"$RUNS"

mxnet_args=()
[ -n "${MXNET_THREADS:-}" ] && mxnet_args=(--threads "$MXNET_THREADS")

# Runs one benchmark command and appends its JSON line (tagged with the round) to runs.jsonl.
run_one() {
  local round="$1" label="$2"; shift 2
  local out line
  log "round $round: $label"
  if ! out="$("$@" 2>"$OUT_DIR/last.stderr")"; then
    log "$label failed:"; tail -n 20 "$OUT_DIR/last.stderr" >&2
    exit 1
  fi
  line="$(printf '%s\n' "$out" | grep '^{' | tail -n 1)"
  if [ -z "$line" ]; then
    log "$label printed no JSON line; its output was:"; printf '%s\n' "$out" >&2
    exit 1
  fi
  printf '{"round": %s, "run": "%s", "result": %s}\n' "$round" "$label" "$line" >>"$RUNS"
  log "  $line"
}

log "model $PREFIX, $ROUNDS rounds x $ITERS iterations, results in $RUNS"
log "machine load before start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
common=(--prefix "$PREFIX" --epoch "$EPOCH" --batch 1 --iters "$ITERS" --warmup "$WARMUP" --shape "$SHAPE")
for extra in ${EXTRA_INPUTS:-}; do common+=(--extra-input "$extra"); done
mxnet_args+=(--input-name "${INPUT_NAME:-data}")
for round in $(seq 1 "$ROUNDS"); do
  run_one "$round" quiver_c1 "$QUIVER_BENCH" "${common[@]}" --clients 1 --inflight "$QUIVER_INFLIGHT"
  run_one "$round" mxnet_c1 "$MXNET_PYTHON" "$ROOT/bench/mxnet_bench.py" "${common[@]}" --clients 1 \
    "${mxnet_args[@]}"
  run_one "$round" quiver_c2 "$QUIVER_BENCH" "${common[@]}" --clients "$CLIENTS2" \
    --inflight "$QUIVER_INFLIGHT"
  run_one "$round" mxnet_c2 "$MXNET_PYTHON" "$ROOT/bench/mxnet_bench.py" "${common[@]}" \
    --clients "$CLIENTS2" "${mxnet_args[@]}"
done

"$MXNET_PYTHON" - "$RUNS" "$CLIENTS2" <<'PY'
import json, statistics, sys

runs_file, clients2 = sys.argv[1], sys.argv[2]
by_run = {}
for line in open(runs_file):
    rec = json.loads(line)
    by_run.setdefault(rec["run"], []).append(rec["result"])

def med(run, key):
    return statistics.median(float(r[key]) for r in by_run[run])

rows = []
for run in ("quiver_c1", "mxnet_c1", "quiver_c2", "mxnet_c2"):
    rows.append((run, med(run, "p50_ms"), med(run, "p90_ms"), med(run, "p99_ms"),
                 med(run, "throughput_per_s")))
print("model %s, batch 1, medians over %d rounds" % (by_run["mxnet_c1"][0]["model"],
                                                    len(by_run["mxnet_c1"])))
print("%-10s %9s %9s %9s %12s" % ("run", "p50 ms", "p90 ms", "p99 ms", "images/s"))
for row in rows:
    print("%-10s %9.2f %9.2f %9.2f %12.2f" % row)
paths = sorted({r.get("path", "?") for r in by_run["mxnet_c1"] + by_run["mxnet_c2"]})
print("mxnet path: " + "; ".join(paths))
loads = [r["other_load"] for rs in by_run.values() for r in rs if "other_load" in r]
if loads and max(loads) > 0.1:
    print("warning: other processes used up to %.0f%% of the CPU during some runs" % (100 * max(loads)))
latency_ratio = med("quiver_c1", "p50_ms") / med("mxnet_c1", "p50_ms")
throughput_ratio = med("quiver_c2", "throughput_per_s") / med("mxnet_c2", "throughput_per_s")
print("latency ratio quiver/mxnet (p50, batch 1, 1 client): %.3f" % latency_ratio)
print("throughput ratio quiver/mxnet (batch 1, %s clients): %.3f" % (clients2, throughput_ratio))
print(json.dumps({
    "model": by_run["mxnet_c1"][0]["model"], "rounds": len(by_run["mxnet_c1"]),
    "quiver_p50_ms_c1": med("quiver_c1", "p50_ms"), "mxnet_p50_ms_c1": med("mxnet_c1", "p50_ms"),
    "quiver_throughput_c2": med("quiver_c2", "throughput_per_s"),
    "mxnet_throughput_c2": med("mxnet_c2", "throughput_per_s"),
    "latency_ratio": round(latency_ratio, 4), "throughput_ratio": round(throughput_ratio, 4),
}))
PY
