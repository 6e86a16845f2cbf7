#!/usr/bin/env bash
# Installs what the JVM side needs from Debian's registry: a JDK 17 (with the JNI headers) and Maven.
# Idempotent: packages already present are skipped.
set -euo pipefail

packages=(openjdk-17-jdk-headless maven)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install_jvm_deps: JDK and Maven present"
  exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
