#!/usr/bin/env bash
# Runs the JVM suites: builds the native half and every Maven module with its tests (JUnit 5 in java/,
# ScalaTest in scala/, the Spark local-mode test in examples/spark/, the text examples' test in
# examples/text/), installs the artifacts into the
# local Maven repository, checks that the shaded jar loads its native libraries in a fresh JVM without
# LD_LIBRARY_PATH and runs the Spark job from it (tests/jvm/spark_shaded_jar.sh), and prints the test
# counts from the suites' reports.
#
# Environment: QUIVER_FIXTURES_DIR (default: scripts/make_fixtures.sh makes or reuses them) and
# QUIVER_REQUIRE_FIXTURES=1 (oracle tests fail instead of skipping without fixtures; scripts/test.sh sets it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fixtures="${QUIVER_FIXTURES_DIR:-$(bash scripts/make_fixtures.sh)}"
reports=(java/target/surefire-reports scala/target/surefire-reports examples/spark/target/surefire-reports
         examples/text/target/surefire-reports)
rm -rf "${reports[@]}"  # counts below are this run's only
bash scripts/build_jvm.sh -Dquiver.fixtures.dir="$fixtures" -Dquiver.require.fixtures="${QUIVER_REQUIRE_FIXTURES:-0}" >/dev/null

version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)"
env -u LD_LIBRARY_PATH java -cp "scala/target/quiver-scala_2.13-$version-all.jar" io.quiver.infer.Quiver
bash tests/jvm/spark_shaded_jar.sh "$fixtures"
# Each library ships its sources and its API docs (Javadoc, Scaladoc) beside it.
for jar in java/target/quiver-java-"$version" scala/target/quiver-scala_2.13-"$version"; do
  jar tf "$jar-javadoc.jar" | grep -qx 'index.html' || { echo "test_jvm: $jar-javadoc.jar has no index.html" >&2; exit 1; }
  jar tf "$jar-sources.jar" | grep -q '/Predictor\.\(java\|scala\)$' ||
    { echo "test_jvm: $jar-sources.jar lacks the Predictor source" >&2; exit 1; }
done

# One line per module: tests, failures, errors, skipped (ScalaTest's aggregate DiscoverySuite report left out).
for dir in "${reports[@]}"; do
  files=()
  for f in "$dir"/TEST-*.xml; do
    [[ -e "$f" && "$f" != *DiscoverySuite* ]] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || { echo "test_jvm: ${dir%/target/*}: no test reports" >&2; exit 1; }
  tr '\n' ' ' < <(cat "${files[@]}") | grep -o '<testsuite [^>]*>' |
    awk -v module="${dir%/target/*}" '
      function attr(name) { return match($0, name "=\"[0-9]+\"") ? substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 3) : 0 }
      { t += attr("tests"); f += attr("failures"); e += attr("errors"); s += attr("skipped") }
      END { printf "test_jvm: %-15s %3d tests, %d failures, %d errors, %d skipped\n", module, t, f, e, s }'
done
