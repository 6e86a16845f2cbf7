#!/usr/bin/env bash
# Builds (once) oneDNN 3.7 from Debian's source package as a CPU-only, static library and
# prints its install prefix on stdout (last line). Quiver links it into libquiver.so, so the library,
# the wheel and the jar need no oneDNN on the target machine.
#
# Why this build: Debian 12 ships oneDNN 2.6, which reads no cache sizes on AMD CPUs; no registry has a
# oneDNN 3 static library; trixie's source package (3.7.2 plus Debian's cherry-pick of the 3.7.3
# fixes) builds here with the system compiler. Inference workload only, no graph API, no RNN/SDPA:
# what the runtime calls, built in about a quarter of the full library's time. Threading is the
# threadpool runtime: oneDNN runs its parallel loops on Quiver's own compute threads
# (engine/backends/cpu/runtime/compute_pool.h), which spin between kernels and share the process's budget;
# OpenMP's per-caller teams slept and woke twice per kernel.
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/onednn-3.7, rebuilt when this script's commands or the
# patch under scripts/patches change (its comments are not part of the key: rewording them costs no
# 25-minute rebuild).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

POOL=http://deb.debian.org/debian/pool/main/o/onednn
ORIG=onednn_3.7.2+ds.orig.tar.xz
ORIG_SHA256=0cc51ca26c1af6a2bb1e71e378e7046f3ceb3e71791ee9d4e246d50f904a6ea6
DEBIAN=onednn_3.7.2+ds-2.debian.tar.xz
DEBIAN_SHA256=db6b5144773b4f5b152a0138cba74af39124d59285975db7f2c220e992dcd2d4
PRIMITIVES="BATCH_NORMALIZATION;BINARY;CONCAT;CONVOLUTION;DECONVOLUTION;ELTWISE;INNER_PRODUCT;LAYER_NORMALIZATION;LRN;MATMUL;POOLING;PRELU;REDUCTION;REORDER;RESAMPLING;SHUFFLE;SOFTMAX;SUM"

fetch() {  # FILE SHA256 DEST_DIR
  curl -fsSL --retry 3 -o "$3/$1" "$POOL/$1"
  echo "$2  $3/$1" | sha256sum -c --quiet -
}

generate() {  # OUT
  local out="$1" work
  work="$(mktemp -d)"
  fetch "$ORIG" "$ORIG_SHA256" "$work"
  fetch "$DEBIAN" "$DEBIAN_SHA256" "$work"
  tar -C "$work" -xf "$work/$ORIG"
  tar -C "$work" -xf "$work/$DEBIAN"
  # Debian's other patches are for its packaging (system gtest/spdlog, soname) and other CPUs. Ours: a
  # portability fix that libc++ 22 needs (the patch file says why).
  patch -d "$work/oneDNN-3.7.2" -p1 --quiet <"$work/debian/patches/upstream-3.7.3.patch"
  patch -d "$work/oneDNN-3.7.2" -p1 --quiet <"$here/patches/onednn-3.7-eltwise-table-lookup.patch"
  # DNNL_MAYBE_UNIQUE_PTR_IS_UNIQUE=0: the JIT code that the gemm-based kernels keep in static
  # pointers is never freed at exit. Quiver lets running work finish at exit (engine/scheduler),
  # but those statics come into being at a kernel's first run, after Quiver's exit handler, so exit
  # would destroy them first: a program that returned from main with a gemm-based step running
  # crashed in it (tests/c/exit_with_work_test.c).
  CXXFLAGS="-DDNNL_MAYBE_UNIQUE_PTR_IS_UNIQUE=0" \
  cmake -S "$work/oneDNN-3.7.2" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$out" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DDNNL_LIBRARY_TYPE=STATIC -DDNNL_CPU_RUNTIME=THREADPOOL -DDNNL_GPU_RUNTIME=NONE \
    -DDNNL_ENABLE_WORKLOAD=INFERENCE -DDNNL_ENABLE_PRIMITIVE="$PRIMITIVES" -DONEDNN_BUILD_GRAPH=OFF \
    -DDNNL_ENABLE_JIT_PROFILING=OFF -DDNNL_ENABLE_ITT_TASKS=OFF \
    -DDNNL_BUILD_TESTS=OFF -DDNNL_BUILD_EXAMPLES=OFF -DDNNL_BUILD_DOC=OFF
  cmake --build "$work/build" -j"$(nproc)"
  cmake --install "$work/build"
  printf '{"onednn": "3.7.2+3.7.3-fixes", "library": "static", "runtime": "THREADPOOL", "primitives": "%s"}\n' \
    "$PRIMITIVES" >"$out/manifest.json"
  rm -rf "$work"
}

source "$here/cached_dir.sh"
CACHED_DIR_LOG=build_onednn
key="$({ grep -v '^[[:space:]]*#' "${BASH_SOURCE[0]}"; cat "$here/patches/onednn-3.7-eltwise-table-lookup.patch"; } |
  sha256sum | cut -d' ' -f1)"
cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/onednn-3.7" .stamp "$key" "${QUIVER_REBUILD_ONEDNN:-0}" generate
