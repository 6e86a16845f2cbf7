#!/usr/bin/env bash
# Creates (once) the Python virtual environment the Python package is built, tested and demonstrated
# in: numpy, Pillow, pytest, and the build tools (scikit-build-core, SWIG from PyPI).
#
#   scripts/setup_python_venv.sh      -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/python-venv. A stamp records the pinned requirements;
# when it matches the script returns at once. Logs go to stderr.
set -euo pipefail

REQUIREMENTS=(
  "numpy==2.4.6"
  "pillow==13.0.0"
  "pytest==9.2.0"
  "scikit-build-core==1.1.2"
  "swig==4.5.1"
)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_python_venv
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/python-venv"

cached_venv "$VENV" "quiver-python-venv: ${REQUIREMENTS[*]}" \
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${REQUIREMENTS[@]}"
echo "$VENV/bin/python"
