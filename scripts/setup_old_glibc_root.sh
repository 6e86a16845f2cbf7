#!/usr/bin/env bash
# Makes (once) an older Linux userland to run the shipped artifacts in, and prints its directory: Ubuntu
# 20.04 (glibc 2.31, older than the 2.34 of Amazon Linux 2023; no release with glibc 2.28 itself is in
# the registries this project reaches) from archive.ubuntu.com by debootstrap, with OpenJDK 17 for the
# jar, binutils (the wheel check reads ELF files with readelf) and CPython 3.11 (the wheel's Python;
# Ubuntu 20.04 has 3.9 at most), built there from Debian's source package so that it needs that glibc
# only. tests/packaging/test_old_glibc.sh chroots into it.
#
# Location: ${QUIVER_CACHE:-$HOME/.cache/quiver}/ubuntu-focal-root, remade when this script's commands
# change (about 15 min on 2 cores). Needs root (debootstrap, chroot). Logs go to stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

MIRROR=http://archive.ubuntu.com/ubuntu
PYTHON_SOURCE=http://deb.debian.org/debian/pool/main/p/python3.11/python3.11_3.11.2.orig.tar.gz
PYTHON_SHA256=2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849

generate() {  # OUT
  local root="$1"
  bash "$here/install_deps.sh" debootstrap
  debootstrap --variant=minbase focal "$root" "$MIRROR"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  echo "deb $MIRROR focal main universe
deb $MIRROR focal-updates main universe" >"$root/etc/apt/sources.list"
  chroot "$root" apt-get update -q
  # The JDK's install scripts run java, which needs /proc: a private one in a namespace of its own.
  DEBIAN_FRONTEND=noninteractive unshare --mount --pid --fork --mount-proc="$root/proc" \
    chroot "$root" apt-get install -y -q --no-install-recommends \
    openjdk-17-jre-headless binutils gcc make libc6-dev zlib1g-dev libssl-dev libffi-dev
  chroot "$root" apt-get clean
  curl -fsSL --retry 3 -o "$root/tmp/python.tar.gz" "$PYTHON_SOURCE"
  echo "$PYTHON_SHA256  $root/tmp/python.tar.gz" | sha256sum -c --quiet -
  chroot "$root" sh -c 'cd /tmp && tar xzf python.tar.gz && cd Python-3.11.2 &&
    ./configure -q --prefix=/opt/python3.11 && make -s -j"$(nproc)" && make -s install' >/dev/null
  rm -rf "$root/tmp/python.tar.gz" "$root/tmp/Python-3.11.2"
  printf '{"distribution": "ubuntu focal", "glibc": "%s", "python": "%s"}\n' \
    "$(chroot "$root" ldd --version | head -1 | awk '{print $NF}')" \
    "$(chroot "$root" /opt/python3.11/bin/python3 -c 'import platform; print(platform.python_version())')" \
    >"$root/manifest.json"
}

source "$here/cached_dir.sh"
CACHED_DIR_LOG=setup_old_glibc_root
key="$(grep -v '^[[:space:]]*#' "${BASH_SOURCE[0]}" | sha256sum | cut -d' ' -f1)"
cached_dir "${QUIVER_CACHE:-$HOME/.cache/quiver}/ubuntu-focal-root" .stamp "$key" 0 generate
