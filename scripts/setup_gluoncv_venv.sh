#!/usr/bin/env bash
# Creates (once) the venv that makes the conformance fixtures: real MXNet 1.9.1 plus GluonCV (SSD models).
#
#   scripts/setup_gluoncv_venv.sh          -> prints the venv's python path on stdout (last line)
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/gluoncv-venv, built with the interpreter the MXNet
# venv (scripts/setup_mxnet_venv.sh) found to work. A stamp records the pinned requirements; when it
# matches, the script returns at once. Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REQUIREMENTS=(
  "mxnet==1.9.1"
  "numpy==1.23.5"               # as in the MXNet venv
  "gluoncv==0.10.5.post0"
  "opencv-python==4.11.0.86"    # a GluonCV requirement; 4.12 needs numpy 2
)
CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/gluoncv-venv"
STAMP="$VENV/.quiver-stamp"
WANT_STAMP="quiver-gluoncv-venv v1: ${REQUIREMENTS[*]}"

log() { echo "setup_gluoncv_venv: $*" >&2; }
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

fresh() { [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT_STAMP" ] && "$VENV/bin/python" -c 'import sys' 2>/dev/null; }
if fresh; then
  echo "$VENV/bin/python"
  exit 0
fi
mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/gluoncv-venv.lock"
flock 9
if fresh; then
  echo "$VENV/bin/python"
  exit 0
fi

base="$("$("$HERE/setup_mxnet_venv.sh")" -c 'import sys; print(sys._base_executable)')"
log "creating $VENV with $base"
rm -rf "$VENV"
"$base" -m venv "$VENV" >&2
"$VENV/bin/python" -m pip install --progress-bar off -q "${REQUIREMENTS[@]}" >&2
"$VENV/bin/python" -c 'import mxnet, gluoncv; assert mxnet.__version__ == "1.9.1"' >&2
echo "$WANT_STAMP" >"$STAMP"
log "venv ready at $VENV"
echo "$VENV/bin/python"
