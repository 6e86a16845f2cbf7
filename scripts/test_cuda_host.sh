#!/usr/bin/env bash
# CI's CUDA step: builds the CUDA configuration's library and the CUDA suites into build-cuda/ (or
# $QUIVER_BUILD_DIR), which compiles every CUDA kernel and GPU test, then runs the CUDA suites: the
# host suite, and the GPU and multi-GPU suites, which report "not run: no GPU" (CTest: skipped) on a
# machine without one (the multi-GPU suite also on a machine with one). The CPU suites are scripts/test.sh's; scripts/test_cuda.sh runs everything on the CUDA build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build_dir="$(QUIVER_BUILD_TARGETS="quiver quiver_cuda_host_tests quiver_cuda_gpu_tests quiver_cuda_multi_gpu_tests" bash scripts/build_cuda.sh)"
(cd "$build_dir" && ctest --output-on-failure --timeout 600 -R '^cuda\.' "$@")
