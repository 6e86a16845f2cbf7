#!/usr/bin/env bash
# Creates (once) the venv the PySpark and Ray Data tests run in (scripts/test_scaleout.sh): Ray Data and
# PySpark from PyPI (PySpark 4 needs Java 17: scripts/install_deps.sh), with pandas and pyarrow pinned
# (both need them), numpy, Pillow and pytest. Quiver itself is not installed here: the test script puts
# its own build on PYTHONPATH.
#
#   scripts/setup_scaleout_venv.sh      -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/scaleout-venv. A stamp records the pinned requirements;
# when it matches the script returns at once. Logs go to stderr.
set -euo pipefail

REQUIREMENTS=(
  "ray[data]==2.60.0"
  "pyspark==4.3.0"
  "pandas==3.1.1"
  "pyarrow==26.0.1"
  "numpy==2.4.6"
  "pillow==13.0.0"
  "pytest==9.2.0"
)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_scaleout_venv
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/scaleout-venv"

cached_venv "$VENV" "quiver-scaleout-venv: ${REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${REQUIREMENTS[@]}"
echo "$VENV/bin/python"
