#!/usr/bin/env bash
# Installs the native build and test dependencies from Debian's registry, and any further Debian
# packages named as arguments (scripts/build_jvm.sh adds the JDK and Maven).
# Idempotent: packages already present are skipped by apt.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  curl xz-utils patch                               # oneDNN 3.7 from source (scripts/build_onednn.sh)
  nlohmann-json3-dev catch2                         # JSON parsing, unit tests
  libdlpack-dev                                     # DLPack tensors in the Python binding (header only)
  clang-14 libclang-rt-14-dev                       # sanitizer and fuzzer builds
  ccache                                            # CI rebuilds the same sources in many trees
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_deps: all native dependencies present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
