#!/usr/bin/env bash
# Gathers the debug information split off the shipped natives of a build tree (cmake/split_debug.cmake)
# into one tarball, laid out as debuggers look for it by build id:
#   .build-id/NN/REST.debug     (gdb: `set debug-file-directory DIR`; elfutils: DEBUGINFOD-style paths)
#   MANIFEST                    one line per library: its build id and file name
# Only a .debug file whose library beside it carries the same build id is taken (a stale one is not).
#   scripts/package_debuginfo.sh BUILD_DIR OUT.tar.gz
set -euo pipefail

build_dir="${1:?usage: $0 BUILD_DIR OUT.tar.gz}"
out="${2:?usage: $0 BUILD_DIR OUT.tar.gz}"
build_id() { readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
found=0
while IFS= read -r -d '' debug; do
  library="${debug%.debug}"
  id="$(build_id "$debug")"
  [ -n "$id" ] && [ -f "$library" ] && [ "$(build_id "$library")" = "$id" ] || continue
  mkdir -p "$stage/.build-id/${id:0:2}"
  cp "$debug" "$stage/.build-id/${id:0:2}/${id:2}.debug"
  echo "$id $(basename "$library")" >> "$stage/MANIFEST"
  found=$((found + 1))
done < <(find "$build_dir" -name '*.debug' -type f -print0)
[ "$found" -gt 0 ] || { echo "package_debuginfo: no split debug files in $build_dir (QUIVER_SPLIT_DEBUG off?)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
# gzip -1: the DWARF is hundreds of MB and this runs on every build of the artifacts.
tar -C "$stage" -cf - MANIFEST .build-id | gzip -1 > "$out"
echo "package_debuginfo: $found libraries -> $out ($(du -h "$out" | cut -f1))" >&2
