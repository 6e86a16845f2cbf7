#!/usr/bin/env bash
# Runs a program on an emulated AMD Zen 3 (QEMU's EPYC-Milan model), a CPU that cannot execute AVX-512
# at all: QEMU's user-mode emulator (Debian's qemu-user, installed here by scripts/install_deps.sh) runs
# AVX2, FMA and everything older, and ends the program with SIGILL at the first AVX-512, VNNI or AMX
# instruction, whether or not the code asked CPUID first. scripts/as_avx2_cpu.sh only hides those from
# CPUID, at native speed; this is 20-100x slower and checks what that cannot: that nothing on the path
# executes them anyway.
#
#   scripts/as_emulated_zen3.sh PROGRAM [ARG...]   (an ELF program, e.g. a venv's python, not a script)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/install_deps.sh" qemu-user >&2
# QEMU names the Zen 3 features its emulator lacks (system ones such as pcid, and rdseed, sha-ni, fsrm),
# once per run; it clears them from CPUID, so programs do not use them. Those lines are dropped.
exec qemu-x86_64 -cpu EPYC-Milan "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2)
