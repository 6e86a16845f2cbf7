#!/usr/bin/env bash
# The Python distributions install anywhere: builds the repaired wheel and the sdist
# (scripts/build_wheel.sh), installs the wheel into a fresh venv and runs
# check_installed_wheel.py there with an empty LD_LIBRARY_PATH; then installs from the sdist the way a
# user would (`pip install quiver-<version>.tar.gz`, build dependencies from PyPI) and runs the same
# check.
#   tests/packaging/test_wheel.sh          (QUIVER_FIXTURES_DIR: the fixtures of scripts/make_fixtures.sh)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

fixtures="${QUIVER_FIXTURES_DIR:-$(bash scripts/make_fixtures.sh)}"
wheel="$(bash scripts/build_wheel.sh)"
version="$(basename "$wheel" | cut -d- -f2)"
sdist="$(dirname "$wheel")/quiver-$version.tar.gz"  # not quiver-VERSION-debuginfo.tar.gz beside it
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

check() {  # VENV: run outside the source tree, so that `import quiver` is the installed one
  local venv="$1" script="$PWD/tests/packaging/check_installed_wheel.py"
  (cd "$work" && env LD_LIBRARY_PATH= "$venv/bin/python" "$script" "$fixtures")
}

"${QUIVER_PYTHON:-python3}" -m venv "$work/wheel-venv"
"$work/wheel-venv/bin/python" -m pip install -q --disable-pip-version-check "$wheel"
echo "test_wheel: $(basename "$wheel")"
check "$work/wheel-venv"

"${QUIVER_PYTHON:-python3}" -m venv "$work/sdist-venv"
start=$SECONDS
"$work/sdist-venv/bin/python" -m pip install -q --disable-pip-version-check "$sdist"
echo "test_wheel: $(basename "$sdist") built and installed in $((SECONDS - start)) s"
check "$work/sdist-venv"
