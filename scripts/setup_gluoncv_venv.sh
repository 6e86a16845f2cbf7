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
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_gluoncv_venv
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/gluoncv-venv"

create() {
  local base
  base="$("$(bash "$HERE/setup_mxnet_venv.sh")" -c 'import sys; print(sys._base_executable)')"
  new_venv "$VENV" "$base" "${REQUIREMENTS[@]}"
  "$VENV/bin/python" -c 'import mxnet, gluoncv; assert mxnet.__version__ == "1.9.1"' >&2
}

cached_venv "$VENV" "quiver-gluoncv-venv v1: ${REQUIREMENTS[*]}" create
echo "$VENV/bin/python"
