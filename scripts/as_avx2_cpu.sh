#!/usr/bin/env bash
# Runs a command as on an AVX2-only CPU (AMD Zen 2 and 3, Intel Haswell to Broadwell) on a newer one:
# the command and every program it starts see no AVX-512, AVX-VNNI, AVX512-BF16/FP16 or AMX in CPUID
# (tools/avx2_cpu.c, preloaded), so oneDNN, ONNX Runtime, OpenVINO, MXNet and numpy all take their AVX2
# paths, at native speed; glibc's own string functions are held to the same (GLIBC_TUNABLES).
#
#   scripts/as_avx2_cpu.sh COMMAND [ARG...]
#
# Needs the kernel's CPUID faulting (cpuid_fault in /proc/cpuinfo; KVM guests have it); exits 3 and says
# so where it is missing. Builds the preloaded library with scripts/build.sh (QUIVER_BUILD_DIR) first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if ! grep -m1 '^flags' /proc/cpuinfo | grep -qw cpuid_fault; then
  echo "as_avx2_cpu: this CPU or kernel cannot trap CPUID (no cpuid_fault in /proc/cpuinfo), so AVX-512" \
    "cannot be hidden" >&2
  exit 3
fi
build_dir="$(cd "$ROOT" && QUIVER_BUILD_TARGETS=quiver_avx2_cpu bash scripts/build.sh)"
export LD_PRELOAD="$(cd "$ROOT" && realpath "$build_dir")/tools/libquiver_avx2_cpu.so${LD_PRELOAD:+:$LD_PRELOAD}"
export GLIBC_TUNABLES="glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX512DQ,-AVX512CD,-AVX_VNNI${GLIBC_TUNABLES:+:$GLIBC_TUNABLES}"
exec "$@"
