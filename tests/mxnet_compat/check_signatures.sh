#!/usr/bin/env bash
# Compiles MXNet 1.9.1's c_api.h and c_predict_api.h (from the wheel) together with Quiver's own
# declarations of the drop-in (mxnet_compat/mx_abi.h): a C++ compiler rejects two declarations of
# one extern "C" function with different types, so a signature that drifts from MXNet's fails here.
#   check_signatures.sh MX_ABI_H
set -euo pipefail
abi="$1"
pkg="${QUIVER_MXNET_PACKAGE:-}"
if [ -z "$pkg" ]; then
  for candidate in "${QUIVER_CACHE:-$HOME/.cache/quiver}"/mxnet-venv/lib/python3*/site-packages/mxnet; do
    [ -d "$candidate" ] && pkg="$candidate"
  done
fi
if [ -z "$pkg" ] || [ ! -f "$pkg/include/mxnet/c_api.h" ]; then
  echo "*** MXNet signature check DID NOT RUN: no mxnet 1.9.1 package with headers (scripts/setup_mxnet_venv.sh)" >&2
  [ "${QUIVER_REQUIRE_FIXTURES:-0}" = 1 ] && exit 1
  exit 77
fi
printf '#include <stdbool.h>\n#include <stdint.h>\n#include <mxnet/c_api.h>\n#include <mxnet/c_predict_api.h>\n#include "%s"\n' \
  "$abi" | ${CXX:-c++} -std=c++17 -fsyntax-only -Wall -Werror -I"$pkg/include" -x c++ -
echo "every declaration in $(basename "$abi") matches MXNet 1.9.1's headers"
