#!/usr/bin/env bash
# Makes (or reuses) the conformance fixtures of one set and prints their directory on stdout.
#
#   tests/conformance/make_fixtures.sh ci|full [--force]
#
# Directory: ${QUIVER_CACHE:-$HOME/.cache/quiver}/conformance-SET, reused while its stamp holds the
# SHA-256 of make_fixtures.py; otherwise regenerated (with scripts/setup_gluoncv_venv.sh's python) into
# a temporary sibling that replaces it only once complete. Logs go to stderr.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
set_name="${1:-}"
case "$set_name" in ci|full) ;; *) echo "usage: $0 ci|full [--force]" >&2; exit 2 ;; esac
force="${2:-}"
DIR="${QUIVER_CACHE:-$HOME/.cache/quiver}/conformance-$set_name"
want="$(sha256sum "$HERE/make_fixtures.py" | cut -d' ' -f1)"
log() { echo "conformance fixtures: $*" >&2; }
fresh() { [ "$force" != "--force" ] && [ -f "$DIR/manifest.json" ] && [ "$(cat "$DIR/.stamp" 2>/dev/null)" = "$want" ]; }

if fresh; then echo "$DIR"; exit 0; fi
mkdir -p "$(dirname "$DIR")"
exec 8>"$DIR.lock"
flock 8
if fresh; then echo "$DIR"; exit 0; fi
rm -rf "$DIR".tmp.* "$DIR".old.*   # left over from a killed run (we hold the lock)

python="$(bash "$HERE/../../scripts/setup_gluoncv_venv.sh")"
tmp="$(mktemp -d "$DIR.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
log "generating the $set_name set (generator sha256 $want) ..."
start=$(date +%s)
env -u PYTHONPATH "$python" "$HERE/make_fixtures.py" --set "$set_name" --out "$tmp" >&2
echo "$want" >"$tmp/.stamp"
chmod 755 "$tmp"
if [ -e "$DIR" ]; then
  old="$(mktemp -u "$DIR.old.XXXXXX")"
  mv "$DIR" "$old"
  rm -rf "$old"
fi
mv "$tmp" "$DIR"
log "ready in $DIR ($(( $(date +%s) - start )) s, $(du -sh "$DIR" | cut -f1))"
echo "$DIR"
