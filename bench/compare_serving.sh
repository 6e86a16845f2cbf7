#!/usr/bin/env bash
# The serving load figure: ResNet-18 v1, batch-1 image requests over gRPC (Triton's asyncio client), at
# 1, 16 and 64 concurrent clients, for
#   quiver-serve   `quiver serve` (KServe's model server, Quiver's batching: --max-batch-size 16)
#   kserve-onnx    the same KServe server running ONNX Runtime on the model's ONNX export, one request
#                  per run (bench/serving_onnx_model.py)
#   in-process     Quiver's Predictor.apredict called by the same client loop in one process, batching as
#                  served: what the server itself costs is the gap to quiver-serve
# Rounds are interleaved (each round starts every server afresh); the table has each figure's median.
#
#   [ROUNDS=3] [SECONDS_PER_RUN=10] [CLIENTS="1 16 64"] bash bench/compare_serving.sh
#
# Everything runs on this machine: the load generator shares its CPUs with the server. Needs the serving
# venv (scripts/setup_serving_venv.sh) and the models (bench/make_serving_models.sh); both are cached.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS="${ROUNDS:-3}"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-10}"
CLIENTS="${CLIENTS:-1 16 64}"

python="$(bash scripts/setup_serving_venv.sh)"
models="$(bash bench/make_serving_models.sh)"
PYTHONPATH="$(bash scripts/build_python_overlay.sh serving)"
export PYTHONPATH
results="$(mktemp)"
server_log="$(mktemp)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -f "$results" "$server_log"' EXIT

start() {  # ENGINE: starts its server on ports 18080/18081 and waits until it is ready
  case "$1" in
    quiver-serve) "$python" -m quiver serve "$models/resnet18_v1" --shape data:1,3,224,224 \
                    --port 18080 --grpc-port 18081 >"$server_log" 2>&1 & ;;
    kserve-onnx) "$python" bench/serving_onnx_model.py "$models/resnet18_v1.onnx" --name resnet18_v1 \
                   --http-port 18080 --grpc-port 18081 >"$server_log" 2>&1 & ;;
  esac
  server=$!
  "$python" - <<'PY' || { cat "$server_log" >&2; exit 1; }
import time, tritonclient.http as c
client, end = c.InferenceServerClient("127.0.0.1:18080"), time.monotonic() + 180
while time.monotonic() < end:
    try:
        if client.is_model_ready("resnet18_v1"):
            raise SystemExit(0)
    except Exception:  # not listening yet
        pass
    time.sleep(0.2)
raise SystemExit("the server was not ready within 180 s")
PY
}

stop() {
  kill "$server" && wait "$server" 2>/dev/null || true
  server=""
}

for round in $(seq "$ROUNDS"); do
  for engine in quiver-serve kserve-onnx in-process; do
    [ "$engine" = in-process ] || start "$engine"
    for clients in $CLIENTS; do
      if [ "$engine" = in-process ]; then
        line="$("$python" bench/serving_load.py in-process "$models/resnet18_v1" --clients "$clients" \
                 --seconds "$SECONDS_PER_RUN")"
      else
        line="$("$python" bench/serving_load.py grpc 127.0.0.1:18081 resnet18_v1 --clients "$clients" \
                 --seconds "$SECONDS_PER_RUN")"
      fi
      echo "compare_serving: round $round $engine $line" >&2
      echo "{\"engine\": \"$engine\", \"result\": $line}" >>"$results"
    done
    [ "$engine" = in-process ] || stop
  done
done

"$python" - "$results" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
engines = list(dict.fromkeys(r["engine"] for r in runs))
clients = sorted({r["result"]["clients"] for r in runs})
print("| clients | engine | requests/s | p50 ms | p99 ms | errors |")
print("| --- | --- | --- | --- | --- | --- |")
for n in clients:
    for engine in engines:
        mine = [r["result"] for r in runs if r["engine"] == engine and r["result"]["clients"] == n]
        median = lambda key: statistics.median(m[key] for m in mine)
        print(f"| {n} | {engine} | {median('per_second'):.1f} | {median('p50_ms'):.2f} | {median('p99_ms'):.2f} "
              f"| {sum(m['errors'] for m in mine)} |")
PY
