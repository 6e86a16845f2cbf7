#!/usr/bin/env bash
# The shipped natives against the test build: one quiver_bench binary, run on libquiver.so.1 built by zig's
# clang for glibc 2.28 (build/glibc2.28, what the wheel and the jar carry) and on the system compiler's
# (build/), chosen by LD_LIBRARY_PATH, in interleaved rounds. Prints one JSON line per model and batch:
# the medians over ROUNDS of p50 latency and of throughput for each build, and shipped / test.
#
#   bench/compare_toolchains.sh          (ROUNDS=5 ITERS=60 WARMUP=10; builds what it lacks)
# Models: ResNet-50 v2 (scripts/make_fixtures.sh) and MobileNet 0.25 (tests/conformance/make_fixtures.sh ci),
# batch 1 with 1 client and batch 8 with 2 clients.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-5}"
ITERS="${ITERS:-60}"
WARMUP="${WARMUP:-10}"
declare -A libraries

test_build="$(cd "$ROOT" && cd "$(QUIVER_BUILD_TARGETS=quiver_bench bash scripts/build.sh)" && pwd)"
libraries=([shipped]="$(bash "$ROOT/scripts/build_jvm.sh")/native/linux-x86_64"  # libquiver.so.1 as the jar carries it
           [test]="$test_build")
fixtures="$(bash "$ROOT/scripts/make_fixtures.sh")"
conformance="$(bash "$ROOT/tests/conformance/make_fixtures.sh" ci)"
RUNS="$(mktemp "${TMPDIR:-/tmp}/compare_toolchains.XXXXXX.jsonl")"

models=("$fixtures/resnet50_v2" "$conformance/mobilenet0.25")
loads=("--batch 1 --clients 1" "--batch 8 --clients 2")
for round in $(seq "$ROUNDS"); do
  for model in "${models[@]}"; do
    for load in "${loads[@]}"; do
      for build in shipped test; do
        # shellcheck disable=SC2086  # the load is separate words
        LD_LIBRARY_PATH="${libraries[$build]}" "$test_build/bench/quiver_bench" --prefix "$model" --iters "$ITERS" \
          --warmup "$WARMUP" $load | sed "s/^{/{\"build\": \"$build\", /" >>"$RUNS"
      done
    done
  done
  echo "compare_toolchains: round $round/$ROUNDS done" >&2
done

python3 - "$RUNS" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
for key in sorted({(r["model"], r["batch"], r["clients"]) for r in runs}):
    def median(build, field):
        return statistics.median(r[field] for r in runs if (r["model"], r["batch"], r["clients"]) == key
                                 and r["build"] == build)
    row = {"model": key[0], "batch": key[1], "clients": key[2]}
    for field in ("p50_ms", "throughput_per_s"):
        shipped, test = median("shipped", field), median("test", field)
        row.update({f"shipped_{field}": round(shipped, 3), f"test_{field}": round(test, 3),
                    f"{field}_ratio": round(shipped / test, 3)})
    print(json.dumps(row))
PY
