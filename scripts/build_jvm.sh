#!/usr/bin/env bash
# Builds the JVM artifacts and installs them into the local Maven repository (~/.m2):
#   1. CMake, with QUIVER_BUILD_JAVA=ON and zig's clang for glibc 2.28 (scripts/setup_glibc228_toolchain.sh:
#      the jar's natives load on RHEL 8 and later), in build/glibc2.28, the build tree of the wheel's natives
#      (scripts/build_wheel.sh): libquiver_jni.so and the SWIG Java sources, staged with libquiver.so.1 and
#      the suites' C oracle under build/glibc2.28/jvm;
#   2. Maven, from pom.xml at the root: io.quiver:quiver-java, io.quiver:quiver-scala_2.13 (and its
#      shaded quiver-scala_2.13-<version>-all.jar), examples/spark (on Spark 4) and examples/text;
#   3. Maven again with the profile scala-2.12: io.quiver:quiver-scala_2.12 from the same sources (and its
#      -all jar) and examples/spark on Spark 3.5, under target/scala-2.12 in those modules.
#
#   scripts/build_jvm.sh [maven arguments]     (default: -DskipTests; scripts/test_jvm.sh runs the tests)
#
# Prints the staging directory (<build>/jvm) on stdout; logs go to stderr.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh openjdk-17-jdk-headless maven >&2  # JDK 17 (JNI headers) and Maven
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}"
export JAVA_HOME
python="$(bash scripts/setup_python_venv.sh)"   # SWIG comes from PyPI, in the project's Python venv
toolchain="$(bash scripts/setup_glibc228_toolchain.sh)"
build_dir="$(QUIVER_BUILD_DIR=build/glibc2.28 QUIVER_BUILD_TARGETS="quiver_jni capi_predict" bash scripts/build.sh \
  -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DQUIVER_BUILD_JAVA=ON -DQUIVER_BUILD_TESTS=OFF -DQUIVER_BUILD_EXAMPLES=OFF \
  -DQUIVER_SPLIT_DEBUG=ON \
  -DSWIG_EXECUTABLE="$(dirname "$python")/swig")"
jvm_dir="$(cd "$build_dir" && pwd)/jvm"
# The natives in the jars are stripped (QUIVER_SPLIT_DEBUG, as the wheel's); their DWARF goes here.
bash scripts/package_debuginfo.sh "$build_dir" "$jvm_dir/quiver-natives-debuginfo.tar.gz"

maven_args=("$@")
[ ${#maven_args[@]} -gt 0 ] || maven_args=(-DskipTests)
mvn -B -q -ntp -f pom.xml -Dquiver.jvm.dir="$jvm_dir" "${maven_args[@]}" install >&2
# quiver-java comes from the local repository, where the first pass put it.
mvn -B -q -ntp -f pom.xml -Pscala-2.12 -pl scala,examples/spark -Dquiver.jvm.dir="$jvm_dir" "${maven_args[@]}" install >&2
echo "$jvm_dir"
