#!/usr/bin/env bash
# What loading Quiver costs a fresh process, side by side in interleaved rounds: a JVM from start to a
# loaded library (`java -cp quiver-java-VERSION.jar io.quiver.infer.Quiver`; the shaded Scala jars carry the
# same natives and loader) and Python's
# `import quiver` from the wheel.
#
#   bench/compare_startup.sh           (ROUNDS=7; the artifacts from scripts/build_wheel.sh and build_jvm.sh)
#
# JVM, per round:  copy_each_start  the cache unwritable, so the jar's natives are copied to a temporary
#                                   directory on every start (what every JVM did before the cache)
#                  first_start      an empty cache: copied out once, then loaded
#                  second_start     the same cache again: checked against the recorded sums, then loaded
# Python, per round: import_stripped  the wheel as shipped
#                    import_with_dwarf the same wheel with its library's DWARF put back (eu-unstrip), as
#                                      the wheel shipped before its natives were stripped
# Prints the sizes of the artifacts and one JSON line of medians (seconds) and ratios.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS="${ROUNDS:-7}"
cd "$ROOT"

bash scripts/install_deps.sh elfutils >&2  # eu-unstrip
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)"
jar="java/target/quiver-java-$version.jar"
wheel="$(ls dist/quiver-*manylinux_2_28_x86_64.whl 2>/dev/null || true)"
debuginfo="dist/quiver-$version-debuginfo.tar.gz"
for artifact in "$jar" "$wheel" "$debuginfo"; do
  [ -n "$artifact" ] && [ -f "$artifact" ] ||
    { echo "compare_startup: ${artifact:-the wheel} is missing (scripts/build_wheel.sh, scripts/build_jvm.sh)" >&2; exit 1; }
done
python="$(bash scripts/setup_python_venv.sh)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" -m zipfile -e "$wheel" "$work/stripped"
cp -r "$work/stripped" "$work/with_dwarf"
mkdir "$work/debug" && tar -xzf "$debuginfo" -C "$work/debug"
library="$work/with_dwarf/quiver/libquiver.so.1"
id="$(readelf -n "$library" | awk '/Build ID:/ {print $3; exit}')"
eu-unstrip -o "$library.full" "$library" "$work/debug/.build-id/${id:0:2}/${id:2}.debug"
mv "$library.full" "$library"

seconds() {  # COMMAND...: wall seconds of one run (its output discarded; a failure stops the bench)
  local start=$EPOCHREALTIME
  "$@" >/dev/null
  awk -v start="$start" -v end="$EPOCHREALTIME" 'BEGIN { printf "%.4f", end - start }'
}
touch "$work/not-a-directory"
declare -A runs
for round in $(seq "$ROUNDS"); do
  rm -rf "$work/cache"
  runs[copy_each_start]+=" $(seconds java -Dquiver.native.cache="$work/not-a-directory" -cp "$jar" io.quiver.infer.Quiver)"
  runs[first_start]+=" $(seconds java -Dquiver.native.cache="$work/cache" -cp "$jar" io.quiver.infer.Quiver)"
  runs[second_start]+=" $(seconds java -Dquiver.native.cache="$work/cache" -cp "$jar" io.quiver.infer.Quiver)"
  runs[import_stripped]+=" $(PYTHONPATH="$work/stripped" seconds "$python" -c 'import quiver')"
  runs[import_with_dwarf]+=" $(PYTHONPATH="$work/with_dwarf" seconds "$python" -c 'import quiver')"
  echo "compare_startup: round $round of $ROUNDS" >&2
done

sizes="$(for f in "$wheel" "$jar" "$work/stripped/quiver/libquiver.so.1" "$library"; do
  printf '%s=%s\n' "$f" "$(stat -c %s "$f")"; done)"
"$python" - "$sizes" "$(declare -p runs)" <<'EOF'
import json, re, statistics, sys
sizes = dict(line.rsplit("=", 1) for line in sys.argv[1].splitlines())
runs = dict(re.findall(r'\[(\w+)\]="([^"]*)"', sys.argv[2]))
medians = {name: statistics.median(float(v) for v in values.split()) for name, values in runs.items()}
for path, size in sizes.items():
    print(f"compare_startup: {path.rsplit('/', 1)[-1]}: {int(size) / 2**20:.1f} MB", file=sys.stderr)
print(json.dumps({**{k: round(v, 3) for k, v in medians.items()},
                  "second_vs_copy_each_start": round(medians["second_start"] / medians["copy_each_start"], 3),
                  "import_stripped_vs_with_dwarf": round(medians["import_stripped"] / medians["import_with_dwarf"], 3)}))
EOF
