#!/usr/bin/env bash
# The shipped artifacts on an older Linux: every shared library in the wheel and the jars needs no glibc
# symbol newer than 2.28 and no system library beyond glibc's (check_glibc_symbols.py), each artifact is
# within its size and its libraries carry no DWARF (check_shipped_natives.py); then, inside Ubuntu 20.04's
# userland (glibc 2.31, its OpenJDK 17, and
# a CPython 3.11 built there: scripts/setup_old_glibc_root.sh), with nothing of this machine's libraries
# visible,
#   - the wheel installs into a fresh venv (its dependencies' wheels fetched from PyPI here, offline there)
#     and passes check_installed_wheel.py
#     (a prediction within MXNet's output; every native file from the wheel or the manylinux allowlist);
#   - quiver-java's jar predicts the same within MXNet's output (tests/jvm/PredictFixture.java), and each
#     Scala version's shaded jar loads its natives (`java -cp ...-all.jar io.quiver.infer.Quiver`).
# Runs in its own mount and PID namespaces (unshare), so the fixtures' bind mount and /proc go with it.
# Needs root. Run after tests/packaging/test_wheel.sh and scripts/test_jvm.sh (scripts/test.sh does).
#   tests/packaging/test_old_glibc.sh          (QUIVER_FIXTURES_DIR: the fixtures of scripts/make_fixtures.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fixtures="${QUIVER_FIXTURES_DIR:-$(bash scripts/make_fixtures.sh)}"
version="$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1)"
wheel="$(ls dist/quiver-*manylinux_2_28_x86_64.whl)"
java_jar="java/target/quiver-java-$version.jar"
shaded=(scala/target/quiver-scala_2.13-"$version"-all.jar scala/target/scala-2.12/quiver-scala_2.12-"$version"-all.jar)
for artifact in "$wheel" "$java_jar" "${shaded[@]}"; do
  [ -f "$artifact" ] || { echo "test_old_glibc: $artifact is missing (run scripts/test.sh)" >&2; exit 1; }
done

# Every shipped library needs glibc 2.28 at most, and nothing else from the system.
python="$(bash scripts/setup_python_venv.sh)"
"$python" tests/packaging/check_glibc_symbols.py --max-glibc 2.28 "$wheel" "$java_jar" "${shaded[@]}"
# Within their sizes, every library stripped of its DWARF and keeping its build id and debug link.
"$python" tests/packaging/check_shipped_natives.py "$wheel" "$java_jar" "${shaded[@]}"

root="$(bash scripts/setup_old_glibc_root.sh)"
work="$(mktemp -d "$root/tmp/quiver-check.XXXXXX")"
trap 'rm -rf "$work"' EXIT
inside="${work#"$root"}"  # the same directory as the chroot sees it
mkdir -p "$work/fixtures" "$work/classes"
cp "$wheel" "$java_jar" "${shaded[@]}" tests/packaging/check_installed_wheel.py "$work/"
javac --release 17 -cp "$java_jar" -d "$work/classes" tests/jvm/PredictFixture.java
# The wheel's dependencies for its Python and platform, downloaded here: the old userland installs offline.
"$python" -m pip download -q --disable-pip-version-check --only-binary=:all: --python-version 3.11 \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$work/wheels" "$wheel"

# The fixture case that check_installed_wheel.py checks, as PredictFixture's arguments.
case_args="$("$python" - "$fixtures" "$inside/fixtures" <<'PY'
import json, sys
model = json.load(open(f"{sys.argv[1]}/manifest.json"))["models"]["resnet18_v1"]
case, at = model["cases"][0], sys.argv[2]
print(f"{at}/{model['prefix']} {at}/{case['input_file']} {at}/{case['output_file']} {1e-4 * case['output_scale']}",
      *case["input_shape"])
PY
)"

cat >"$work/run.sh" <<EOF
set -eu
cd $inside
echo "test_old_glibc: \$(ldd --version | head -1)"
/opt/python3.11/bin/python3 -m venv venv
venv/bin/python -m pip install -q --disable-pip-version-check --no-index --find-links wheels $(basename "$wheel")
(cd /tmp && env LD_LIBRARY_PATH= $inside/venv/bin/python $inside/check_installed_wheel.py $inside/fixtures)
java -version 2>&1 | head -1
env LD_LIBRARY_PATH= java -cp $(basename "$java_jar"):classes PredictFixture $case_args
for jar in ${shaded[*]##*/}; do env LD_LIBRARY_PATH= java -cp \$jar io.quiver.infer.Quiver; done
EOF
unshare --mount --pid --fork --mount-proc="$root/proc" \
  sh -c 'mount --bind -o ro "$1" "$2/fixtures" && chroot "$3" env -i PATH=/usr/bin:/bin HOME=/root sh "$4/run.sh"' \
  _ "$fixtures" "$work" "$root" "$inside"
echo "test_old_glibc: the wheel and the jars ran on $(sed -n 's/.*"glibc": "\([^"]*\)".*/glibc \1/p' "$root/manifest.json") (Ubuntu 20.04)"
