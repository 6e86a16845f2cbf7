#!/usr/bin/env bash
# Installs (once) a CUDA 13.0 toolkit (nvcc, the runtime, cuBLAS/cuBLASLt and cuDNN 9) from NVIDIA's PyPI
# wheels and prints its root on stdout (last line): enough to compile and link the CUDA backend on a machine
# with no GPU and no system CUDA. Version 13.0 matches the driver of the GPU machines this project is
# tested on (CUDA runtime minor versions newer than the driver's are not guaranteed to load).
# Every wheel is pinned, nvcc's own dependencies (crt headers, nvvm) too: unpinned, pip takes the
# newest (13.5), whose headers and device compiler do not match nvcc 13.0.
# Size: the cuBLAS wheel is about 420 MB (600 MB installed, mostly libcublasLt), cuDNN's about 330 MB
# (470 MB installed, mostly engine libraries that libcudnn loads at run time).
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/cuda-venv. The wheels install their files under
# site-packages/nvidia/cu13 (cuDNN: nvidia/cudnn) with versioned .so names only; nvcc looks for
# targets/x86_64-linux/{include,lib} under its root, so the root is a directory of links.
set -euo pipefail

REQUIREMENTS=(
  "nvidia-cuda-nvcc==13.0.88"
  "nvidia-cuda-runtime==13.0.96"
  "nvidia-cuda-crt==13.0.88"
  "nvidia-nvvm==13.0.88"
  "nvidia-cuda-cccl==13.0.85"  # libcu++ headers (nv/target) that cuda_runtime.h and cuBLAS include
  "nvidia-cublas==13.0.2.14"
  "nvidia-cudnn-cu13==9.13.0.50"
)
LAYOUT=5  # the toolkit folder's layout: raise it when create() changes, so cached ones are made anew

source "$(dirname "${BASH_SOURCE[0]}")/cached_venv.sh"
CACHED_VENV_LOG=setup_cuda_toolkit
VENV="${QUIVER_CACHE:-$HOME/.cache/quiver}/cuda-venv"
ROOT="$VENV/toolkit"

create() {
  local nv cuda lib name
  new_venv "$VENV" "${QUIVER_PYTHON:-python3}" "${REQUIREMENTS[@]}"
  nv="$("$VENV/bin/python" -c 'import os, nvidia; print(os.path.dirname(nvidia.__path__[0] + "/"))')"
  cuda="$nv/cu13"
  mkdir -p "$ROOT/targets/x86_64-linux/lib" "$ROOT/bin"
  # bin is a folder of links, not a link: nvcc finds include/, lib64/ and nvvm/ as bin/.., which
  # through a linked folder would be the wheel's own folder (it has lib/, not lib64/).
  for name in "$cuda"/bin/*; do ln -sfn "$name" "$ROOT/bin/$(basename "$name")"; done
  ln -sfn "$cuda/nvvm" "$ROOT/nvvm"
  ln -sfn "$cuda/include" "$ROOT/targets/x86_64-linux/include"
  ln -sfn "targets/x86_64-linux/include" "$ROOT/include"
  ln -sfn "targets/x86_64-linux/lib" "$ROOT/lib64"
  # Every library under its versioned and its unversioned name.
  # cuDNN beside the toolkit, where CMakeLists.txt looks for it (root/cudnn/{include,lib}). Every one of
  # its libraries: libcudnn.so.9 loads the others (libcudnn_graph.so.9, ...) from its $ORIGIN, which is
  # this folder of links, not the wheel's (without them it aborts the process at its first call).
  mkdir -p "$ROOT/cudnn/lib"
  ln -sfn "$nv/cudnn/include" "$ROOT/cudnn/include"
  for lib in "$nv"/cudnn/lib/*.so*; do ln -sfn "$lib" "$ROOT/cudnn/lib/$(basename "$lib")"; done
  ln -sfn libcudnn.so.9 "$ROOT/cudnn/lib/libcudnn.so"
  for lib in "$cuda"/lib/*.so* "$cuda"/lib/*.a; do
    name="$(basename "$lib")"
    ln -sfn "$lib" "$ROOT/targets/x86_64-linux/lib/$name"
    case "$name" in *.so.*) ln -sfn "$lib" "$ROOT/targets/x86_64-linux/lib/${name%%.so.*}.so" ;; esac
  done
}

cached_venv "$VENV" "quiver-cuda-venv (layout $LAYOUT): ${REQUIREMENTS[*]}" create
echo "$ROOT"
