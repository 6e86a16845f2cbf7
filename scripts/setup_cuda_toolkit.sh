#!/usr/bin/env bash
# Installs (once) a CUDA 13.0 toolkit (nvcc and the runtime) from NVIDIA's PyPI wheels and prints its
# root on stdout (last line): enough to compile the CUDA backend on a machine with no GPU and no
# system CUDA. Version 13.0 matches the driver of the GPU machines this project is tested on (CUDA
# runtime minor versions newer than the driver's are not guaranteed to load).
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/cuda-venv. The wheels install their files under
# site-packages/nvidia/cu13 with versioned .so names only; nvcc looks for
# targets/x86_64-linux/{include,lib} under its root, so the root is a directory of links.
set -euo pipefail

REQUIREMENTS=(
  "nvidia-cuda-nvcc==13.0.88"
  "nvidia-cuda-runtime==13.0.96"
)

CACHE_DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}"
VENV="$CACHE_DIR/cuda-venv"
ROOT="$VENV/toolkit"
STAMP="$VENV/.quiver-stamp"
WANT_STAMP="quiver-cuda-venv: ${REQUIREMENTS[*]}"

log() { echo "setup_cuda_toolkit: $*" >&2; }
unset PYTHONPATH PYTHONHOME PIP_REQUIRE_VIRTUALENV
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1

mkdir -p "$CACHE_DIR"
exec 9>"$CACHE_DIR/cuda-venv.lock"
flock 9
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT_STAMP" ]; then
  log "installing ${REQUIREMENTS[*]} into $VENV"
  rm -rf "$VENV"
  "${QUIVER_PYTHON:-python3}" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "${REQUIREMENTS[@]}" >&2
  nv="$("$VENV/bin/python" -c 'import os, nvidia; print(os.path.dirname(nvidia.__path__[0] + "/"))')"
  cuda="$nv/cu13"
  mkdir -p "$ROOT/targets/x86_64-linux/lib"
  ln -sfn "$cuda/bin" "$ROOT/bin"
  ln -sfn "$cuda/nvvm" "$ROOT/nvvm"
  ln -sfn "$cuda/include" "$ROOT/targets/x86_64-linux/include"
  ln -sfn "targets/x86_64-linux/include" "$ROOT/include"
  ln -sfn "targets/x86_64-linux/lib" "$ROOT/lib64"
  # Every library under its versioned and its unversioned name.
  for lib in "$cuda"/lib/*.so* "$cuda"/lib/*.a; do
    name="$(basename "$lib")"
    ln -sfn "$lib" "$ROOT/targets/x86_64-linux/lib/$name"
    case "$name" in *.so.*) ln -sfn "$lib" "$ROOT/targets/x86_64-linux/lib/${name%%.so.*}.so" ;; esac
  done
  echo "$WANT_STAMP" > "$STAMP"
fi
log "CUDA toolkit ready at $ROOT"
echo "$ROOT"
