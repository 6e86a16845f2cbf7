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

CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/python-venv"
STAMP="$VENV/.quiver-stamp"
WANT_STAMP="quiver-python-venv: ${REQUIREMENTS[*]}"

log() { echo "setup_python_venv: $*" >&2; }
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

up_to_date() {
  [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT_STAMP" ] && "$VENV/bin/python" -c 'import sys' 2>/dev/null
}

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/python-venv.lock"
flock 9
if ! up_to_date; then
  python="${QUIVER_PYTHON:-python3}"
  log "creating $VENV with $("$python" --version 2>&1)"
  rm -rf "$VENV"
  "$python" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "${REQUIREMENTS[@]}" >&2
  echo "$WANT_STAMP" > "$STAMP"
fi
log "venv ready at $VENV"
echo "$VENV/bin/python"
