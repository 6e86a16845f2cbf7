#!/usr/bin/env bash
# Builds everything with the CUDA backend into build-cuda/ (or $QUIVER_BUILD_DIR) and prints the
# directory. The toolkit comes from scripts/setup_cuda_toolkit.sh unless CUDAToolkit_ROOT names one
# (the GPU machine's own, e.g. /usr/local/cuda). No GPU is needed to build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

root="${CUDAToolkit_ROOT:-$(bash scripts/setup_cuda_toolkit.sh)}"
QUIVER_BUILD_DIR="${QUIVER_BUILD_DIR:-build-cuda}" bash scripts/build.sh -DQUIVER_CUDA=ON -DCUDAToolkit_ROOT="$root" "$@"
