#!/usr/bin/env bash
# Builds and installs the Python package (`pip install .`: libquiver.so + the SWIG extension + python/quiver)
# into the project's Python venv (scripts/setup_python_venv.sh). Prints the venv's python path.
# Incremental: CMake's build tree stays under build/python/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/install_deps.sh >&2
python="$(bash scripts/setup_python_venv.sh)"
# The venv already holds the build requirements: no isolated build env to download each time.
"$python" -m pip install --no-build-isolation --disable-pip-version-check -q . >&2
echo "$python"
