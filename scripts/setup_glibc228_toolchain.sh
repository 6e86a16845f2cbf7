#!/usr/bin/env bash
# Creates (once) the C and C++ toolchain the shipped natives are built with (the wheel's
# scripts/build_wheel.sh, the jar's scripts/build_jvm.sh), and prints its CMake toolchain file on stdout.
#
# Why: the system compiler links against this machine's glibc (2.36), so what it builds needs glibc 2.34
# or newer; RHEL 8 and its clones have 2.28. Zig's clang (the `ziglang` package on PyPI) compiles for
# x86_64-linux-gnu.2.28: it links against glibc 2.28's symbol versions, so a symbol newer than that
# fails the link instead of the user's load, and it links LLVM's libc++ into each library statically.
# That is safe because only the C ABI crosses library boundaries: libquiver.so.1 exports its C names only
# (capi/quiver.map), and the SWIG and JNI modules call nothing else.
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/glibc2.28-toolchain: a venv holding zig, the wrappers
# CMake calls as its compilers and archiver, toolchain.cmake, and (CMakeLists.txt builds it there) the
# oneDNN built with it, which goes with the toolchain when this script's commands change. Logs: stderr.
set -euo pipefail

ZIG="ziglang==0.17.1"
TARGET=x86_64-linux-gnu.2.28

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$HERE/cached_venv.sh"
CACHED_VENV_LOG=setup_glibc228_toolchain
DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}/glibc2.28-toolchain"

wrapper() {  # NAME ZIG-COMMAND...: DIR/bin/NAME runs `zig ZIG-COMMAND... "$@"`
  local zig
  zig="$("$DIR/bin/python" -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')"
  printf '#!/bin/sh\nexec "%s" %s "$@"\n' "$zig" "${*:2}" >"$DIR/bin/$1"
  chmod +x "$DIR/bin/$1"
}

create() {
  new_venv "$DIR" "${QUIVER_PYTHON:-python3}" "$ZIG"
  wrapper zig-cc cc -target "$TARGET"
  wrapper zig-c++ c++ -target "$TARGET"
  wrapper zig-ar ar
  wrapper zig-ranlib ranlib
  cat >"$DIR/toolchain.cmake" <<EOF
# Made by scripts/setup_glibc228_toolchain.sh: zig's clang for $TARGET. Not a cross build (no
# CMAKE_SYSTEM_NAME): Python's and the JDK's headers are found where the host has them. Zig's own glibc
# 2.28 and Linux headers come first; /usr/include after them only adds header-only libraries.
set(CMAKE_C_FLAGS_INIT "-idirafter /usr/include")
set(CMAKE_CXX_FLAGS_INIT "-idirafter /usr/include")
set(CMAKE_C_COMPILER "$DIR/bin/zig-cc")
set(CMAKE_CXX_COMPILER "$DIR/bin/zig-c++")
set(CMAKE_AR "$DIR/bin/zig-ar" CACHE FILEPATH "")
set(CMAKE_RANLIB "$DIR/bin/zig-ranlib" CACHE FILEPATH "")
EOF
}

cached_venv "$DIR" "quiver-glibc2.28-toolchain: $ZIG $TARGET $(grep -v '^[[:space:]]*#' "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)" create
echo "$DIR/toolchain.cmake"
