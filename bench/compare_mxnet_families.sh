#!/usr/bin/env bash
# Times every model of a list against MXNet 1.9.1 (bench/compare_mxnet.sh, one model after another) and
# prints one markdown table: p50 latency at batch 1 and throughput with 2 clients, with their ratios.
#
#   bench/compare_mxnet_families.sh LIST DIR [NAME ...]
#
# LIST: lines "name<TAB>shape" (bench/vision_families.tsv); DIR holds NAME-symbol.json and
# NAME-0000.params (tests/conformance/make_fixtures.py --set full --out DIR --only NAME ... makes them);
# NAMEs limit the run to those models. compare_mxnet.sh's settings pass through (ROUNDS, ITERS, WARMUP,
# ...); each model's raw results stay in OUT_DIR/NAME (default: a new temporary directory).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 2 ] || { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
list="$1" dir="$2"
shift 2
out_dir="${OUT_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/compare_families.XXXXXX")}"
mkdir -p "$out_dir"
summaries="$out_dir/summaries.jsonl"
: >"$summaries"

while IFS=$'\t' read -r name shape; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  echo "compare_families: $name ($shape)" >&2
  summary="$(OUT_DIR="$out_dir/$name" SHAPE="$shape" bash "$ROOT/bench/compare_mxnet.sh" "$dir/$name" | tail -n 1)"
  printf '{"name": "%s", "shape": "%s", "summary": %s}\n' "$name" "$shape" "$summary" >>"$summaries"
done <"$list"

python3 - "$summaries" <<'PY'
import json, sys

print("| model (input) | Quiver p50 ms | MXNet p50 ms | latency ratio | Quiver, 2 clients, /s "
      "| MXNet, 2 clients, /s | throughput ratio |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for line in open(sys.argv[1]):
    r = json.loads(line)
    s = r["summary"]
    print("| %s (%s) | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
        r["name"], r["shape"].replace(",", "x"), s["quiver_p50_ms_c1"], s["mxnet_p50_ms_c1"], s["latency_ratio"],
        s["quiver_throughput_c2"], s["mxnet_throughput_c2"], s["throughput_ratio"]))
PY
echo "compare_families: raw results in $out_dir" >&2
