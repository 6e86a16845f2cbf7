#!/usr/bin/env bash
# tools/avx2_cpu.c: under it, CPUID shows AVX2 and none of AVX-512, VNNI or AMX, to the instruction and
# to libgcc's __builtin_cpu_supports; a program's own SIGSEGV handler still gets its faults; a fault with
# no handler still kills the process with SIGSEGV. Without it, the probe sees what /proc/cpuinfo says.
#   tests/tools/avx2_cpu_test.sh LIBRARY PROBE
set -uo pipefail
library="$1" probe="$2"
here="$(dirname "${BASH_SOURCE[0]}")"
failed=0
expect() {  # WHAT WANT GOT
  if [ "$2" = "$3" ]; then echo "ok: $1"; else echo "FAILED: $1: wanted '$2', got '$3'"; failed=1; fi
}
flags="$(grep -m1 '^flags' /proc/cpuinfo)"
has() { if grep -qw "$1" <<<"$flags"; then echo 1; else echo 0; fi; }
# Only the long-known flags are compared unmasked: an older kernel may leave newer ones (AMX, AVX-VNNI)
# out of /proc/cpuinfo while CPUID has them.
unmasked="$(env -u LD_PRELOAD "$probe")"
expect "unmasked, the probe sees /proc/cpuinfo's AVX2 and AVX-512F" \
  "avx2=$(has avx2) avx512f=$(has avx512f)" "$(cut -d' ' -f1,2 <<<"$unmasked")"
masked="avx2=$(has avx2) avx512f=0 avx512_vnni=0 avx_vnni=0 amx_int8=0 builtin_avx512f=0"
got="$(bash "$here/with_avx2_cpu.sh" "$library" "$probe")"
if [ $? = 77 ]; then echo "$got"; exit 77; fi
expect "masked, AVX-512, VNNI and AMX are gone" "$masked" "$got"
expect "masked, a program's own SIGSEGV handler runs, and the mask holds after it" \
  "own handler ran $masked" "$(bash "$here/with_avx2_cpu.sh" "$library" "$probe" own-handler | tr '\n' ' ' | sed 's/ $//')"
bash "$here/with_avx2_cpu.sh" "$library" "$probe" crash >/dev/null 2>&1
expect "masked, a fault with no handler kills with SIGSEGV (status 139)" 139 "$?"
exit "$failed"
