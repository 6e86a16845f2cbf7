#!/usr/bin/env bash
# The same compiled program on MXNet's libmxnet.so and on Quiver's drop-in (build/mxnet_compat), with
# LD_LIBRARY_PATH the only difference: MXNet's predict API, ResNet-50 v2 at batch 1, 1 and 4 client
# threads (handles from MXPredCreateMultiThread). Rounds alternate the libraries so both see the same
# machine; medians over ROUNDS are compared:
#   latency ratio     quiver p50 / mxnet p50, 1 thread           (below 1: Quiver is faster)
#   throughput ratio  quiver / mxnet runs per second, 4 threads  (above 1: Quiver does more)
#
#   bench/compare_mxnet_dropin.sh            ROUNDS=3 ITERS=20 WARMUP=3 by default
#   ROUNDS=1 ITERS=1 WARMUP=0 bench/compare_mxnet_dropin.sh   (a quick check that it runs)
#
# Environment: QUIVER_BUILD_DIR (default build), QUIVER_FIXTURES_DIR, QUIVER_MXNET_PACKAGE (the mxnet
# package directory; default: the venv of scripts/setup_mxnet_venv.sh), MODEL (default resnet50_v2).
# MXNet runs with NaiveEngine (its multi-threaded predict API requires it) and its default oneDNN
# kernels; the last line of the output is one JSON object.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-3}" ITERS="${ITERS:-20}" WARMUP="${WARMUP:-3}"
build="${QUIVER_BUILD_DIR:-$ROOT/build}"
fixtures="${QUIVER_FIXTURES_DIR:-${QUIVER_CACHE:-$HOME/.cache/quiver}/fixtures}"
model="$fixtures/${MODEL:-resnet50_v2}"
pkg="${QUIVER_MXNET_PACKAGE:-$(dirname "$(dirname "$(bash "$ROOT/scripts/setup_mxnet_venv.sh")")")}"
[ -f "$pkg/include/mxnet/c_predict_api.h" ] || pkg="$(ls -d "$pkg"/lib/python3*/site-packages/mxnet | tail -n 1)"
[ -f "$pkg/include/mxnet/c_predict_api.h" ] || { echo "compare_mxnet_dropin: no MXNet headers in $pkg" >&2; exit 1; }
[ -f "$build/mxnet_compat/libmxnet.so" ] || { echo "compare_mxnet_dropin: build $build/mxnet_compat/libmxnet.so first" >&2; exit 1; }
[ -f "$model-symbol.json" ] || { echo "compare_mxnet_dropin: no model $model (scripts/make_fixtures.sh)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
exe="$work/mxnet_predict_bench"
${CXX:-c++} -std=c++17 -O2 -Wall -Wextra -Werror -I"$pkg/include" "$ROOT/bench/mxnet_predict_bench.cc" -o "$exe" \
  -L"$build/mxnet_compat" -lmxnet -pthread

run() {  # LIBDIR THREADS -> one JSON line
  env LD_LIBRARY_PATH="$1" MXNET_ENGINE_TYPE=NaiveEngine "$exe" "$model" "$2" "$ITERS" "$WARMUP" 2>"$work/log" ||
    { cat "$work/log" >&2; exit 1; }
}
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }

for round in $(seq "$ROUNDS"); do
  for threads in 1 4; do
    for lib in quiver mxnet; do
      dir="$build/mxnet_compat"; [ "$lib" = mxnet ] && dir="$pkg"
      line="$(run "$dir" "$threads")"
      echo "round $round $lib threads=$threads: $line" >&2
      echo "$lib $threads $(field "$line" p50_ms) $(field "$line" throughput_per_s)" >>"$work/results"
    done
  done
done
python3 - "$work/results" <<'PY'
import json, statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(lib, threads, col):
    return statistics.median(float(r[col]) for r in rows if r[0] == lib and r[1] == str(threads))
out = {}
for t in (1, 4):
    for lib in ("quiver", "mxnet"):
        out["%s_t%d_p50_ms" % (lib, t)] = round(med(lib, t, 2), 3)
        out["%s_t%d_per_s" % (lib, t)] = round(med(lib, t, 3), 3)
    out["latency_ratio_t%d" % t] = round(out["quiver_t%d_p50_ms" % t] / out["mxnet_t%d_p50_ms" % t], 3)
    out["throughput_ratio_t%d" % t] = round(out["quiver_t%d_per_s" % t] / out["mxnet_t%d_per_s" % t], 3)
print("latency ratio (quiver/mxnet p50, 1 thread): %.3f" % out["latency_ratio_t1"])
print("throughput ratio (quiver/mxnet, 4 threads): %.3f" % out["throughput_ratio_t4"])
print(json.dumps(out))
PY
