#!/usr/bin/env bash
# CTest's way to run a test program as on an AVX2-only CPU: preloads tools/avx2_cpu.c's library, or
# says "not run" (CTest's skip code, 77) where this CPU cannot trap CPUID.
#   tests/tools/with_avx2_cpu.sh LIBRARY COMMAND [ARG...]
set -euo pipefail
if ! grep -m1 '^flags' /proc/cpuinfo | grep -qw cpuid_fault; then
  echo "not run: this CPU or kernel cannot trap CPUID (no cpuid_fault in /proc/cpuinfo)"
  exit 77
fi
library="$1"
shift
LD_PRELOAD="$library${LD_PRELOAD:+:$LD_PRELOAD}" exec "$@"
