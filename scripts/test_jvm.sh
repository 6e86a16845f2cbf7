#!/usr/bin/env bash
# Runs the JVM suites: builds the native half and every Maven module with its tests (JUnit 5 in java/,
# ScalaTest in scala/, the Spark local-mode test in examples/spark/, the text examples' test in
# examples/text/), then scala/ and examples/spark/ again for Scala 2.12 (Spark 3.5; the Scala 2.13 build runs
# the example on Spark 4), installs the artifacts into the local Maven repository, checks that each Scala
# version's shaded jar loads its native libraries in a fresh JVM without LD_LIBRARY_PATH and runs the Spark
# job from it (tests/jvm/spark_shaded_jar.sh), and prints the test counts from the suites' reports.
#
# Environment: QUIVER_FIXTURES_DIR (default: scripts/make_fixtures.sh makes or reuses them) and
# QUIVER_REQUIRE_FIXTURES=1 (oracle tests fail instead of skipping without fixtures; scripts/test.sh sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fixtures="${QUIVER_FIXTURES_DIR:-$(bash scripts/make_fixtures.sh)}"
# Each suite as NAME=BUILD_DIRECTORY (the Scala 2.12 build's under target/scala-2.12).
suites=(java=java/target scala_2.13=scala/target examples/spark_2.13=examples/spark/target
        scala_2.12=scala/target/scala-2.12 examples/spark_2.12=examples/spark/target/scala-2.12
        examples/text=examples/text/target)
for suite in "${suites[@]}"; do rm -rf "${suite#*=}/surefire-reports"; done  # counts below are this run's only
bash scripts/build_jvm.sh -Dquiver.fixtures.dir="$fixtures" -Dquiver.require.fixtures="${QUIVER_REQUIRE_FIXTURES:-0}" >/dev/null

version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)"
for all in scala/target/quiver-scala_2.13-"$version"-all.jar scala/target/scala-2.12/quiver-scala_2.12-"$version"-all.jar; do
  env -u LD_LIBRARY_PATH java -cp "$all" io.quiver.infer.Quiver
  # Without the Scala library: Spark brings its own.
  if jar tf "$all" | grep -x 'scala/Predef.class' >/dev/null; then echo "test_jvm: $all carries the Scala library" >&2; exit 1; fi
done
bash tests/jvm/spark_shaded_jar.sh "$fixtures" 2.13   # Spark 4
bash tests/jvm/spark_shaded_jar.sh "$fixtures" 2.12   # Spark 3.5
# Each library ships its sources and its API docs (Javadoc, Scaladoc) beside it.
for jar in java/target/quiver-java-"$version" scala/target/quiver-scala_2.13-"$version" \
           scala/target/scala-2.12/quiver-scala_2.12-"$version"; do
  jar tf "$jar-javadoc.jar" | grep -qx 'index.html' || { echo "test_jvm: $jar-javadoc.jar has no index.html" >&2; exit 1; }
  jar tf "$jar-sources.jar" | grep -q '/Predictor\.\(java\|scala\)$' ||
    { echo "test_jvm: $jar-sources.jar lacks the Predictor source" >&2; exit 1; }
done

# One line per suite: tests, failures, errors, skipped (ScalaTest's aggregate DiscoverySuite report left out).
for suite in "${suites[@]}"; do
  name="${suite%%=*}" dir="${suite#*=}/surefire-reports"
  files=()
  for f in "$dir"/TEST-*.xml; do
    [[ -e "$f" && "$f" != *DiscoverySuite* ]] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || { echo "test_jvm: $name: no test reports" >&2; exit 1; }
  tr '\n' ' ' < <(cat "${files[@]}") | grep -o '<testsuite [^>]*>' |
    awk -v module="$name" '
      function attr(name) { return match($0, name "=\"[0-9]+\"") ? substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 3) : 0 }
      { t += attr("tests"); f += attr("failures"); e += attr("errors"); s += attr("skipped") }
      END { printf "test_jvm: %-20s %3d tests, %d failures, %d errors, %d skipped\n", module, t, f, e, s }'
done
