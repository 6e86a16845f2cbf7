#!/usr/bin/env bash
# The shipped artifact in Spark: runs the example job (io.quiver.examples.spark.ClassifyImages) the way
# spark-submit does, from the application jar and quiver-scala_<scala>-<version>-all.jar beside Spark's own
# jars (Spark 4 for Scala 2.13, Spark 3.5 for 2.12: the example's build for that Scala), in a fresh JVM
# (local[2] master) with an empty LD_LIBRARY_PATH, so the natives can only come from the shaded jar. Checks
# that every image got its top-3 classes, and that the README's spark-submit command names that class and
# those jars (for Scala 2.13). Run by scripts/test_jvm.sh after the Maven builds (the jars must exist).
#   tests/jvm/spark_shaded_jar.sh FIXTURES_DIR [SCALA_BINARY_VERSION=2.13]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fixtures="$1"
scala="${2:-2.13}"
case "$scala" in
  2.13) target=target profile=() ;;
  2.12) target=target/scala-2.12 profile=(-Pscala-2.12) ;;
  *) echo "spark_shaded_jar: Scala 2.12 or 2.13, not '$scala'" >&2; exit 2 ;;
esac
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)"
shaded="scala/$target/quiver-scala_$scala-$version-all.jar"
app="examples/spark/$target/quiver-spark-example_$scala-$version.jar"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Spark and its dependencies as the example's build resolves them, without Quiver's own jars.
mvn -B -q -ntp -f examples/spark/pom.xml "${profile[@]}" \
  org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
  -Dmdep.includeScope=test -Dmdep.excludeGroupIds=io.quiver -Dmdep.outputFile="$work/spark.classpath" >&2
spark="$(tr ':' '\n' <"$work/spark.classpath" | sed -n 's:.*/spark-core_[0-9.]*-\([^/]*\)\.jar$:\1:p')"

mkdir -p "$work/model" "$work/images"
cp "$fixtures/resnet18_v1-symbol.json" "$fixtures/resnet18_v1-0000.params" "$work/model/"
seq 0 999 | sed 's/^/class/' >"$work/model/synset.txt"
python="$(bash scripts/setup_python_venv.sh)"
"$python" - "$work/images" <<'PY'
import sys
import numpy as np
from PIL import Image
rng = np.random.default_rng(5)
for n in range(6):
    pixels = rng.integers(0, 256, size=(120 + 8 * n, 160 + 16 * n, 3), dtype=np.uint8)
    Image.fromarray(pixels).save(f"{sys.argv[1]}/image{n}.png")
PY

jvm_args="$(sed -n 's:.*<spark.test.jvm.args>\(.*\)</spark.test.jvm.args>.*:\1:p' pom.xml)"
# shellcheck disable=SC2086  # the JVM arguments are separate words
env -u LD_LIBRARY_PATH java $jvm_args -Dspark.master='local[2]' -Dspark.ui.enabled=false \
  -Dspark.driver.host=127.0.0.1 -Dspark.driver.bindAddress=127.0.0.1 \
  -cp "$app:$shaded:$(cat "$work/spark.classpath")" io.quiver.examples.spark.ClassifyImages \
  "$work/images" "$work/model/resnet18_v1" "$work/out" 3 2> "$work/spark.log" ||
  { tail -40 "$work/spark.log" >&2; exit 1; }

rows="$(cat "$work"/out/part-*.json | wc -l)"
images="$(cat "$work"/out/part-*.json | sed -n 's:.*"path"\:"[^"]*/\(image[0-9]*\.png\)".*:\1:p' | sort -u | wc -l)"
[ "$rows" -eq 18 ] && [ "$images" -eq 6 ] ||
  { echo "spark_shaded_jar: expected 6 images x 3 classes, got $rows rows for $images images" >&2; exit 1; }
echo "spark_shaded_jar: quiver-scala_$scala's shaded jar on Spark $spark classified 6 images (18 rows) with no LD_LIBRARY_PATH"
if [ "$scala" = 2.13 ]; then
  command="$(sed -n '/^spark-submit --class/,/^```/p' README.md | tr -d '\\\n')"
  for word in "--class io.quiver.examples.spark.ClassifyImages" "--jars $shaded" "$app"; do
    case "$command" in *"$word"*) ;; *) echo "spark_shaded_jar: the README's spark-submit lacks '$word'" >&2; exit 1 ;; esac
  done
fi
